//! `ToolError` and `Reason`: the one-line `Display` a model reads and the JSON object sent
//! back as the tool result, for every variant, snapshotted. Errors come from real calls
//! where one can produce them, so the snapshots show what a caller actually gets.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{pretty, snapshot};
use serde_json::{Value, json};
use toolcall_runtime::__private::decode::decode_arg;
use toolcall_runtime::__private::parse_arguments;
use toolcall_runtime::ir::{Param, Tool, Type};
use toolcall_runtime::{DynTool, Reason, ToolError};

/// `display: ...` then the pretty JSON, as one snapshot text.
fn describe(error: &ToolError) -> String {
    let json = serde_json::to_string(error).unwrap();
    format!("display: {error}\njson:\n{}", pretty(&json))
}

/// Checks the invariants of the JSON form, then snapshots `error` as `error__<name>`.
fn check_and_snapshot(name: &str, error: &ToolError) {
    let value = serde_json::to_value(error).unwrap();
    assert_eq!(value["error"], error.kind(), "`error` is the variant's kind");
    assert_eq!(value["message"], error.to_string(), "`message` is the Display line");
    assert_eq!(error.to_value(), value);
    // One line, except the list of several mistakes: one line each.
    let lines = error.to_string().lines().count();
    let expected = if let ToolError::Several(errors) = error { errors.len() + 1 } else { 1 };
    assert_eq!(lines, expected, "Display: {error}");
    snapshot(&format!("error__{name}"), &format!("ToolError::{name}"), &describe(error));
}

fn weather() -> DynTool {
    DynTool::new(
        Tool::new("get_weather")
            .param(Param::new("city", Type::string()))
            .param(Param::new("days", Type::integer_between(0, 255)).default(3)),
        |args| {
            if args["city"] == "Atlantis" {
                panic!("no weather under the sea");
            }
            if args["city"] == "Nowhere" {
                return Err("city not found: Nowhere".to_owned());
            }
            Ok(json!({"city": args["city"], "days": args["days"], "temp": 21.5}))
        },
    )
}

#[test]
fn days_expected_an_integer_display_line() {
    let error = ToolError::InvalidArgument {
        name: "days".into(),
        reason: Box::new(Reason::ExpectedInteger { value: json!("5") }),
    };
    assert_eq!(error.to_string(), r#"days: expected an integer, got "5""#);
    assert_eq!(weather().run(&json!({"city": "Oslo", "days": "5"})).unwrap_err(), error);
}

#[test]
fn unknown_tool() {
    let registry = {
        let mut r = toolcall_runtime::Registry::new();
        r.add_tool(weather()).unwrap();
        r.add_tool(DynTool::new(Tool::new("echo"), |_| Ok(json!(null)))).unwrap();
        r
    };
    let error = registry.run("get_wether", &json!({})).unwrap_err();
    assert_eq!(
        error,
        ToolError::UnknownTool {
            name: "get_wether".into(),
            known: vec!["get_weather".into(), "echo".into()]
        }
    );
    assert_eq!(error.did_you_mean(), Some("get_weather"));
    assert_eq!(error.to_value()["did_you_mean"], "get_weather");
    assert!(error.is_call_error());
    check_and_snapshot("unknown_tool", &error);
}

#[test]
fn unknown_arguments() {
    let error = weather().run(&json!({"city": "Oslo", "c": 1, "units": "metric", "Days": 2})).unwrap_err();
    let days = toolcall_runtime::UnknownName { name: "Days".into(), did_you_mean: Some("days".into()) };
    // In the order the model sent them.
    assert_eq!(error, ToolError::UnknownArguments(vec!["c".into(), "units".into(), days]));
    assert!(error.is_call_error());
    check_and_snapshot("unknown_arguments", &error);
}

#[test]
fn invalid_arguments() {
    let error = weather().run(&json!([1, 2])).unwrap_err();
    assert_eq!(error, ToolError::InvalidArguments(json!([1, 2])));
    assert!(error.is_call_error());
    check_and_snapshot("invalid_arguments", &error);
}

#[test]
fn missing_argument() {
    let error = weather().run(&json!({"days": 5})).unwrap_err();
    assert_eq!(error, ToolError::MissingArgument("city".into()));
    assert!(error.is_call_error());
    check_and_snapshot("missing_argument", &error);
}

#[test]
fn invalid_argument() {
    let error = weather().run(&json!({"city": "Oslo", "days": "5"})).unwrap_err();
    assert!(error.is_call_error());
    check_and_snapshot("invalid_argument", &error);
}

#[test]
fn invalid_json() {
    let error = parse_arguments(br#"{"city": "Oslo""#).unwrap_err();
    assert!(matches!(error, ToolError::InvalidJson(_)));
    assert!(error.is_call_error());
    check_and_snapshot("invalid_json", &error);
}

#[test]
fn failed() {
    let error = weather().run(&json!({"city": "Nowhere"})).unwrap_err();
    assert_eq!(error, ToolError::Failed("city not found: Nowhere".into()));
    assert!(!error.is_call_error(), "a failure is about the tool, not the call");
    check_and_snapshot("failed", &error);
}

#[test]
fn panicked() {
    let error = weather().run(&json!({"city": "Atlantis"})).unwrap_err();
    assert_eq!(error, ToolError::Panicked("no weather under the sea".into()));
    assert!(!error.is_call_error());
    check_and_snapshot("panicked", &error);
}

/// A sync entry point asked for an async tool: the caller's mistake, named with the fix.
#[test]
fn async_tool() {
    let error = ToolError::AsyncTool("lookup".into());
    assert!(!error.is_call_error());
    check_and_snapshot("async_tool", &error);
}

#[test]
fn kinds_are_stable_snake_case_names() {
    let all = [
        ToolError::UnknownTool { name: "a".into(), known: vec![] },
        ToolError::UnknownArguments(vec![]),
        ToolError::InvalidArguments(Value::Null),
        ToolError::MissingArgument("a".into()),
        ToolError::InvalidArgument { name: "a".into(), reason: Box::new(Reason::TooDeep { limit: 1 }) },
        ToolError::InvalidJson(String::new()),
        ToolError::Failed(String::new()),
        ToolError::Panicked(String::new()),
        ToolError::AsyncTool("a".into()),
        ToolError::Several(vec![]),
    ];
    let kinds: Vec<&str> = all.iter().map(ToolError::kind).collect();
    assert_eq!(
        kinds,
        [
            "unknown_tool",
            "unknown_arguments",
            "invalid_arguments",
            "missing_argument",
            "invalid_argument",
            "invalid_json",
            "failed",
            "panicked",
            "async_tool",
            "several"
        ]
    );
    let boxed: Box<dyn std::error::Error> = Box::new(all[3].clone());
    assert_eq!(boxed.to_string(), "a: missing required argument");
}

#[test]
fn strings_in_messages_are_json_quoted() {
    let error = ToolError::UnknownArguments(vec!["a\"b".into(), "line\nbreak".into()]);
    assert_eq!(error.to_string(), r#"unknown arguments: "a\"b", "line\nbreak""#);
    let error = ToolError::UnknownTool { name: "x\"y".into(), known: vec!["a".into(), "b".into()] };
    assert_eq!(error.to_string(), r#"unknown tool "x\"y"; known tools: a, b"#);
}

/// Several mistakes are one error: each listed on its own line, and as an array.
#[test]
fn several() {
    let error = weather().run(&json!({"town": "Oslo", "days": "5"})).unwrap_err();
    let ToolError::Several(errors) = &error else { panic!("{error:?}") };
    assert_eq!(errors.len(), 3);
    assert!(error.is_call_error());
    assert_eq!(error.to_value()["errors"].as_array().map(Vec::len), Some(3));
    check_and_snapshot("several", &error);
    // One mistake is never wrapped; nested lists flatten.
    let one = ToolError::MissingArgument("a".into());
    assert_eq!(ToolError::all([one.clone()]), Some(one.clone()));
    assert_eq!(ToolError::all([]), None);
    let nested = ToolError::all([ToolError::Several(vec![one.clone(), one.clone()]), one.clone()]);
    assert_eq!(nested, Some(ToolError::Several(vec![one.clone(), one.clone(), one])));
}

/// Every `Reason`, as the `InvalidArgument` it travels in.
#[test]
fn every_reason() {
    let from = |value: Value, decode: fn(&Value) -> ToolError| decode(&value);
    let reasons: Vec<ToolError> = vec![
        from(json!(1.5), |v| decode_arg::<u8>(v, "days").unwrap_err()),
        from(json!("1.5"), |v| decode_arg::<f64>(v, "ratio").unwrap_err()),
        from(json!(5), |v| decode_arg::<String>(v, "city").unwrap_err()),
        from(json!("yes"), |v| decode_arg::<bool>(v, "verbose").unwrap_err()),
        from(json!({"a": 1}), |v| decode_arg::<Vec<u8>>(v, "items").unwrap_err()),
        from(json!([1]), |v| decode_arg::<std::collections::HashMap<String, u8>>(v, "labels").unwrap_err()),
        from(json!(0), |v| {
            toolcall_runtime::__private::validate(&Type::Null, v, 0).unwrap_err().into_tool_error("nothing")
        }),
        from(json!(256), |v| decode_arg::<u8>(v, "level").unwrap_err()),
        from(json!("blue"), |v| {
            let ty = Type::enumeration(["red", "green"]);
            toolcall_runtime::__private::validate(&ty, v, 0).unwrap_err().into_tool_error("color")
        }),
        ToolError::InvalidArgument {
            name: "day".into(),
            reason: Box::new(Reason::InvalidDate { value: json!("2023-02-29"), format: "date".into() }),
        },
        from(json!("999.1.1.1"), |v| decode_arg::<std::net::IpAddr>(v, "ip").unwrap_err()),
        from(json!("ab"), |v| decode_arg::<char>(v, "letter").unwrap_err()),
        from(json!(["a", "a"]), |v| decode_arg::<std::collections::BTreeSet<String>>(v, "tags").unwrap_err()),
        from(json!({"street": "Main"}), |v| {
            let ty =
                Type::Object(vec![Param::new("street", Type::string()), Param::new("zip", Type::string())]);
            toolcall_runtime::__private::validate(&ty, v, 0).unwrap_err().into_tool_error("address")
        }),
        from(json!({"street": "Main", "zip": "1", "city": "X"}), |v| {
            let ty =
                Type::Object(vec![Param::new("street", Type::string()), Param::new("zip", Type::string())]);
            toolcall_runtime::__private::validate(&ty, v, 0).unwrap_err().into_tool_error("address")
        }),
        ToolError::InvalidArgument {
            name: "payload".into(),
            reason: Box::new(Reason::TooDeep { limit: 128 }),
        },
        toolcall_runtime::__private::parse_arguments(br#"{"tags": {"a": 1, "\u0061": 2}}"#).unwrap_err(),
        from(json!({"units": "5"}), |v| {
            #[derive(serde::Deserialize, Debug)]
            #[allow(dead_code)]
            struct Money {
                units: i64,
            }
            toolcall_runtime::__private::decode::deserialize_arg::<Money>(v, 0)
                .unwrap_err()
                .into_tool_error("price")
        }),
    ];
    let mut kinds = Vec::new();
    let mut text = String::new();
    for error in &reasons {
        let ToolError::InvalidArgument { reason, .. } = error else { panic!("{error:?}") };
        kinds.push(serde_json::to_value(reason).unwrap()["kind"].as_str().unwrap().to_owned());
        text.push_str(&describe(error));
        text.push_str("\n\n");
    }
    let mut unique = kinds.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 18, "every Reason variant once: {kinds:?}");
    snapshot("error__reasons", "every Reason variant inside InvalidArgument", &text);
}

// Bounded errors (#29): an error's text and JSON stay small whatever the input's size, so
// a bad call can neither amplify into a huge reply nor flood the model's context.

/// The display line and the JSON text of `error`, in bytes.
fn sizes(error: &ToolError) -> (usize, usize) {
    (error.to_string().len(), serde_json::to_string(error).unwrap().len())
}

#[test]
fn three_hundred_thousand_unknown_arguments_list_twenty_and_count_the_rest() {
    let mut args = serde_json::Map::new();
    args.insert("city".into(), json!("Oslo"));
    for i in 0..300_000 {
        args.insert(format!("k{i:06}"), json!(i));
    }
    let error = weather().run(&Value::Object(args)).unwrap_err();
    let ToolError::UnknownArguments(names) = &error else { panic!("{error:?}") };
    assert_eq!(names.len(), 300_000, "every name is counted");
    let text = error.to_string();
    assert!(text.starts_with(r#"unknown arguments: "k000000", "k000001", "#), "{}", &text[..80]);
    assert!(text.ends_with(r#""k000019", and 299980 more"#), "{text}");
    assert_eq!(text.matches("\"k").count(), 20);
    let value = error.to_value();
    assert_eq!(value["names"].as_array().unwrap().len(), 20);
    assert_eq!(value["unknown"].as_array().unwrap().len(), 20);
    assert_eq!(value["omitted"], 299_980);
    let (display, json) = sizes(&error);
    assert!(display < 1024 && json < 4096, "{display} {json}");
}

#[test]
fn only_the_listed_unknown_names_get_suggestions() {
    let keys: Vec<String> = (0..25).map(|_| "Days".to_owned()).collect();
    let names = toolcall_runtime::UnknownName::all(keys.iter(), &["days"]);
    assert_eq!(names.len(), 25);
    assert!(names[..20].iter().all(|n| n.did_you_mean.as_deref() == Some("days")));
    assert!(names[20..].iter().all(|n| n.did_you_mean.is_none()));
}

#[test]
fn several_lists_twenty_mistakes_and_counts_the_rest() {
    let one = |i: usize| ToolError::MissingArgument(format!("a{i}"));
    let error = ToolError::Several((0..1000).map(one).collect());
    let text = error.to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1 + 20 + 1, "{text}");
    assert_eq!(lines[0], "1000 mistakes in the arguments:");
    assert_eq!(lines[20], "- a19: missing required argument");
    assert_eq!(lines[21], "- and 980 more");
    let value = error.to_value();
    assert_eq!(value["errors"].as_array().unwrap().len(), 20);
    assert_eq!(value["omitted"], 980);
    // Twenty is not cut: no `omitted`, no count line.
    let twenty = ToolError::Several((0..20).map(one).collect());
    assert_eq!(twenty.to_string().lines().count(), 21);
    assert!(twenty.to_value().get("omitted").is_none());
}

#[test]
fn names_and_messages_from_the_input_are_cut() {
    let huge = "x".repeat(1 << 20);
    let errors = [
        ToolError::UnknownTool { name: huge.clone(), known: vec!["add".into()] },
        ToolError::UnknownArguments(vec![huge.as_str().into(), "b".into()]),
        ToolError::MissingArgument(huge.clone()),
        ToolError::InvalidArgument {
            name: huge.clone(),
            reason: Box::new(Reason::Invalid { message: huge.clone() }),
        },
        ToolError::InvalidArgument {
            name: "a".into(),
            reason: Box::new(Reason::UnknownFields { fields: vec![huge.as_str().into()] }),
        },
        ToolError::InvalidJson(huge.clone()),
        ToolError::Failed(huge.clone()),
        ToolError::Panicked(huge.clone()),
        ToolError::AsyncTool(huge.clone()),
    ];
    for error in &errors {
        let (display, json) = sizes(error);
        assert!(display < 2048 && json < 6144, "{}: {display} {json}", error.kind());
        assert!(error.to_string().contains("xxx…"), "{}: the cut is marked", error.kind());
    }
}

#[test]
fn a_summarized_value_stays_small_however_it_nests() {
    let string = "y".repeat(10_000);
    let level3: serde_json::Map<String, Value> =
        (0..8).map(|i| (format!("{i}{string}"), json!(string))).collect();
    let level2: serde_json::Map<String, Value> =
        (0..8).map(|i| (format!("{i}{string}"), Value::Object(level3.clone()))).collect();
    let level1: serde_json::Map<String, Value> =
        (0..100).map(|i| (format!("{i}{string}"), Value::Object(level2.clone()))).collect();
    let summary = toolcall_runtime::__private::summarize(&Value::Object(level1));
    let text = summary.to_string();
    assert!(text.len() < 2048, "{} bytes", text.len());
    assert!(text.contains("more keys"), "{text}");
    // A small value is kept as it is.
    let small = json!({"a": [1, 2, {"b": "c"}], "d": null});
    assert_eq!(toolcall_runtime::__private::summarize(&small), small);
    // Twenty errors, each carrying a value summarized at the limit, are still small.
    let reason = || {
        Box::new(Reason::ExpectedInteger { value: toolcall_runtime::__private::summarize(&json!(string)) })
    };
    let error = ToolError::Several(
        (0..1000).map(|i| ToolError::InvalidArgument { name: format!("a{i}"), reason: reason() }).collect(),
    );
    let (display, json) = sizes(&error);
    assert!(display < 8 * 1024 && json < 24 * 1024, "{display} {json}");
}
