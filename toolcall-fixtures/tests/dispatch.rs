//! The dispatch contract of DESIGN.md, every row, against the generated code of the
//! fixture tools (compiled for real in this crate).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use toolcall_fixtures::toolset;
use toolcall_runtime::{Reason, ToolError};

fn run(name: &str, args: Value) -> Result<Value, ToolError> {
    toolset::ALL.run(name, &args)
}

#[test]
fn ok_applies_the_functions_default() {
    let out = run("get_weather", json!({"city": "Oslo"})).unwrap();
    assert_eq!(out, json!({"city": "Oslo", "days": 3, "temp": 21.5}));
    let out = toolset::weather::TOOLS.run("get_weather", &json!({"city": "Oslo", "days": 5})).unwrap();
    assert_eq!(out["days"], 5);
}

#[test]
fn a_single_missing_argument_is_its_own_error() {
    for args in [json!({}), json!({"days": 5})] {
        assert_eq!(run("get_weather", args), Err(ToolError::MissingArgument("city".into())));
    }
    assert_eq!(run("divide", json!({"b": 1})), Err(ToolError::MissingArgument("a".into())));
    assert_eq!(run("divide", json!({"a": 1})), Err(ToolError::MissingArgument("b".into())));
}

#[test]
fn every_mistake_of_a_call_is_in_one_error_in_a_stable_order() {
    let both = Err(ToolError::Several(vec![
        ToolError::MissingArgument("a".into()),
        ToolError::MissingArgument("b".into()),
    ]));
    assert_eq!(run("divide", json!({})), both);
    // Unknown keys first (all of them, with suggestions), then each parameter in
    // declaration order, whatever order the object holds them in.
    let err = run("get_weather", json!({"days": "5", "Citty": "Oslo"})).unwrap_err();
    let ToolError::Several(errors) = &err else { panic!("{err:?}") };
    assert_eq!(errors.len(), 3, "{err:?}");
    assert!(
        matches!(&errors[0], ToolError::UnknownArguments(u) if u[0].did_you_mean.as_deref() == Some("city"))
    );
    assert_eq!(errors[1], ToolError::MissingArgument("city".into()));
    assert!(matches!(&errors[2], ToolError::InvalidArgument { name, .. } if name == "days"));
    assert_eq!(
        err.to_string(),
        "3 mistakes in the arguments:\n\
         - unknown argument \"Citty\" (did you mean \"city\"?)\n\
         - city: missing required argument\n\
         - days: expected an integer, got \"5\""
    );
    let value = err.to_value();
    assert_eq!(value["error"], "several");
    assert_eq!(value["errors"][1]["error"], "missing_argument");
    assert_eq!(value["errors"][0]["unknown"][0]["did_you_mean"], "city");
}

#[test]
fn more_parameters_than_one_decoded_tuple_holds() {
    let args: serde_json::Map<String, Value> = (1..=13).map(|i| (format!("p{i}"), json!(i))).collect();
    let out = run("fourteen", Value::Object(args.clone())).unwrap();
    assert_eq!(out, json!([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, null]));
    // Errors on both sides of the group boundary come back together, in declaration order,
    // after the unknown argument.
    let mut bad = args;
    bad.insert("p2".into(), json!(-1));
    bad.insert("p13".into(), json!("x"));
    bad.remove("p12");
    bad.insert("p15".into(), json!(1));
    let err = run("fourteen", Value::Object(bad)).unwrap_err();
    let ToolError::Several(errors) = &err else { panic!("{err:?}") };
    assert!(matches!(&errors[0], ToolError::UnknownArguments(u) if u[0].name == "p15"), "{err:?}");
    assert!(matches!(&errors[1], ToolError::InvalidArgument { name, .. } if name == "p2"), "{err:?}");
    assert_eq!(errors[2], ToolError::MissingArgument("p12".into()));
    assert!(matches!(&errors[3], ToolError::InvalidArgument { name, .. } if name == "p13"), "{err:?}");
    assert_eq!(errors.len(), 4, "{err:?}");
}

#[test]
fn a_fraction_or_a_string_is_not_an_integer() {
    for bad in [json!(1.5), json!("5")] {
        let err = run("get_weather", json!({"city": "Oslo", "days": bad.clone()})).unwrap_err();
        let expected = ToolError::InvalidArgument {
            name: "days".into(),
            reason: Box::new(Reason::ExpectedInteger { value: bad }),
        };
        assert_eq!(err, expected);
    }
    let err = run("get_weather", json!({"city": "Oslo", "days": "5"})).unwrap_err();
    assert_eq!(err.to_string(), r#"days: expected an integer, got "5""#);
    assert_eq!(err.to_value()["error"], "invalid_argument");
    assert_eq!(err.to_value()["name"], "days");
}

#[test]
fn unknown_arguments_are_all_listed() {
    let err = run("get_weather", json!({"city": "Oslo", "c": 1, "zz": 2, "a": 3})).unwrap_err();
    let ToolError::UnknownArguments(unknown) = err else { panic!("{err:?}") };
    let mut names: Vec<&str> = unknown.iter().map(|u| u.name.as_str()).collect();
    names.sort();
    assert_eq!(names, vec!["a", "c", "zz"]);
    // "c" is one edit from "city" only by a third of its length: no suggestion for it.
    assert!(unknown.iter().all(|u| u.did_you_mean.is_none()), "{unknown:?}");
    // A tool with no parameters rejects any key too.
    assert_eq!(run("ping", json!({"x": 1})), Err(ToolError::UnknownArguments(vec!["x".into()])));
}

#[test]
fn arguments_that_are_not_an_object() {
    for args in [json!([1, 2]), json!("x"), json!(3), json!(null)] {
        assert_eq!(run("get_weather", args.clone()), Err(ToolError::InvalidArguments(args)));
    }
}

#[test]
fn invalid_json_text_bytes_and_surrogates() {
    let all = &toolset::ALL;
    for text in ["{", r#"{"city": }"#, " x ", r#"{"city":"\ud800"}"#] {
        let err = all.run_json("get_weather", text).unwrap_err();
        assert!(matches!(err, ToolError::InvalidJson(_)), "{text}: {err:?}");
    }
    // Blank text is `{}` (some local model servers send "" for no arguments): a required
    // parameter is then missing, as with `{}`.
    for text in ["", " \n"] {
        assert_eq!(all.run_json("get_weather", text), Err(ToolError::MissingArgument("city".into())));
        assert_eq!(
            all.run_bytes("get_weather", text.as_bytes()),
            Err(ToolError::MissingArgument("city".into()))
        );
    }
    let err = all.run_bytes("get_weather", b"{\"city\":\"\xff\"}").unwrap_err();
    assert!(matches!(err, ToolError::InvalidJson(_)), "{err:?}");
    assert_eq!(all.run_json("get_weather", r#"{"city":"Oslo"}"#).unwrap()["days"], 3);
    assert_eq!(all.run_bytes("get_weather", br#"{"city":"Oslo"}"#).unwrap()["city"], "Oslo");
}

#[test]
fn explicit_null_means_absent() {
    let out = run("get_weather", json!({"city": "Oslo", "days": null})).unwrap();
    assert_eq!(out["days"], 3);
    // Null for a required parameter is not absence: it is the wrong type.
    let err = run("get_weather", json!({"city": null})).unwrap_err();
    assert_eq!(
        err,
        ToolError::InvalidArgument {
            name: "city".into(),
            reason: Box::new(Reason::ExpectedString { value: Value::Null })
        }
    );
}

#[test]
fn unknown_tool_lists_the_known_names() {
    let err = run("get_wether", json!({})).unwrap_err();
    let ToolError::UnknownTool { name, known } = err else { panic!("{err:?}") };
    assert_eq!(name, "get_wether");
    let all: Vec<String> = toolset::ALL.names().map(str::to_owned).collect();
    assert_eq!(known, all);
    assert!(known.contains(&"get_weather".to_owned()));
    // A module toolset knows only its own tools.
    let err = toolset::weather::TOOLS.run("divide", &json!({"a": 1, "b": 1})).unwrap_err();
    assert_eq!(err, ToolError::UnknownTool { name: "divide".into(), known: vec!["get_weather".into()] });
    // As text too: the module's toolset shares the crate's dispatcher, which would run it.
    let err = toolset::weather::TOOLS.run_json("divide", r#"{"a": 1, "b": 1}"#).unwrap_err();
    assert_eq!(err, ToolError::UnknownTool { name: "divide".into(), known: vec!["get_weather".into()] });
    assert_eq!(toolset::ALL.run_json("divide", r#"{"a": 4, "b": 2}"#), Ok(json!(2)));
}

#[test]
fn a_panic_is_caught_and_the_next_call_works() {
    let err = run("explode", json!({"message": "now"})).unwrap_err();
    assert_eq!(err, ToolError::Panicked("boom: now".into()));
    assert!(!err.is_call_error());
    assert_eq!(run("divide", json!({"a": 7, "b": 2})), Ok(json!(3)));
    let err = run("explode", json!({"message": "again"})).unwrap_err();
    assert_eq!(err, ToolError::Panicked("boom: again".into()));
}

#[test]
fn an_err_becomes_failed_with_its_display() {
    assert_eq!(run("divide", json!({"a": 1, "b": 0})), Err(ToolError::Failed("division by zero".into())));
    let err = run("read_size", json!({"path": "/x"})).unwrap_err();
    assert_eq!(err, ToolError::Failed("/x: not found".into()));
    assert_eq!(err.to_value()["error"], "failed");
}

#[test]
fn a_tool_failure_says_retry_or_failed_with_its_code() {
    use toolcall_runtime::ToolFailure;
    let retry = run("stock", json!({"item": "desk"})).unwrap_err();
    let expected = ToolFailure::retry("no item named \"desk\"; try \"lamp\"").with_code("not_found");
    assert_eq!(retry, ToolError::Reported(expected));
    assert!(retry.is_call_error(), "a retry is the model's to fix");
    assert_eq!(
        retry.to_value(),
        json!({
            "error": "retry",
            "detail": "no item named \"desk\"; try \"lamp\"",
            "code": "not_found",
            "message": "call again with changed arguments (not_found): no item named \"desk\"; try \"lamp\"",
        })
    );
    let failed = run("stock", json!({"item": "closed"})).unwrap_err();
    assert_eq!(failed.kind(), "failed");
    assert!(!failed.is_call_error());
    assert_eq!(failed.to_string(), "tool failed (unavailable): the warehouse is closed");
    assert_eq!(failed.to_value()["code"], "unavailable");
    assert_eq!(run("stock", json!({"item": "lamp"})), Ok(json!(3)));
}

#[test]
fn a_boxed_error_holding_a_tool_failure_keeps_it() {
    let retry = run("reserve", json!({"item": "desk"})).unwrap_err();
    assert_eq!(retry, ToolError::Reported(toolcall_runtime::ToolFailure::retry("reserve \"lamp\" instead")));
    // Any other boxed error is a failure with its text, as before.
    assert_eq!(run("reserve", json!({"item": "gone"})), Err(ToolError::Failed("sold out".into())));
}

#[test]
fn unit_returns_are_null() {
    assert_eq!(run("log_line", json!({"message": "hi"})), Ok(Value::Null));
    assert_eq!(run("ping", json!({})), Ok(Value::Null));
}

#[test]
fn a_result_that_cannot_be_encoded_is_an_error_not_a_panic() {
    let err = run("unencodable", json!({})).unwrap_err();
    let ToolError::Failed(message) = &err else { panic!("{err:?}") };
    assert!(message.contains("could not be encoded"), "{message}");
}

#[test]
fn nested_failures_name_their_path() {
    let err = run("ship", json!({"address": {"street": "Main 1", "zip": "x"}, "express": true})).unwrap_err();
    assert_eq!(
        err,
        ToolError::InvalidArgument {
            name: "address.zip".into(),
            reason: Box::new(Reason::ExpectedInteger { value: json!("x") })
        }
    );
    assert_eq!(err.to_string(), r#"address.zip: expected an integer, got "x""#);
    let ok = json!({"street": "a", "zip": 1});
    let items = json!([ok, ok, ok, {"street": "b", "zip": -1}]);
    let err = run("ship_many", json!({"items": items})).unwrap_err();
    let ToolError::InvalidArgument { name, reason } = err else { panic!("{err:?}") };
    assert_eq!(name, "items[3].zip");
    assert!(matches!(*reason, Reason::OutOfRange { .. }), "{reason:?}");
    let err = run("ship_many", json!({"items": [ok, {"street": "b"}]})).unwrap_err();
    assert_eq!(
        err,
        ToolError::InvalidArgument {
            name: "items[1]".into(),
            reason: Box::new(Reason::MissingField { field: "zip".into() })
        }
    );
    let err =
        run("ship", json!({"address": {"street": "a", "zip": 1, "floor": 2}, "express": false})).unwrap_err();
    assert_eq!(
        err,
        ToolError::InvalidArgument {
            name: "address".into(),
            reason: Box::new(Reason::UnknownFields { fields: vec!["floor".into()] })
        }
    );
}

#[test]
fn nested_modules_have_their_own_toolset() {
    let invoices = &toolset::billing::invoices::TOOLS;
    assert_eq!(invoices.names().collect::<Vec<_>>(), vec!["get_invoice"]);
    assert_eq!(invoices.describe()[0].module, "billing::invoices");
    assert_eq!(invoices.run("get_invoice", &json!({"number": 42})), Ok(json!("INV-00042")));
    assert_eq!(toolset::ALL.run("get_invoice", &json!({"number": 7})), Ok(json!("INV-00007")));
}

#[test]
fn errors_serialize_for_the_model() {
    let err = run("get_weather", json!({})).unwrap_err();
    assert_eq!(
        err.to_value(),
        json!({"error": "missing_argument", "name": "city", "message": "city: missing required argument"})
    );
}

/// `TOOL_PARAMS` ranges narrow the schema and the decoder alike.
#[test]
fn override_ranges_are_in_the_schema_and_enforced() {
    let ok = json!({"hour": 7, "label": "wake", "snooze": [5, 10], "volume": 2.5, "ticket": "1000"});
    assert_eq!(run("set_alarm", ok.clone()).unwrap()["hour"], 7);
    let with = |key: &str, value: Value| {
        let mut args = ok.clone();
        args[key] = value;
        run("set_alarm", args).unwrap_err().to_string()
    };
    assert_eq!(with("hour", json!(24)), "hour: 24 is out of range (0 to 23)");
    assert_eq!(with("minute", json!(60)), "minute: 60 is out of range (0 to 59)");
    assert_eq!(with("label", json!("")), r#"label: expected 1 to 12 characters, got """#);
    assert_eq!(with("snooze", json!([1, 2, 3, 4])), "snooze: expected 0 to 3 items, got [1,2,3,4]");
    assert_eq!(with("volume", json!(10.5)), "volume: 10.5 is out of range (0 to 10)");
    assert!(with("ticket", json!("999")).starts_with(r#"ticket: "999" is out of range (1000 to "#));
    // The type's own errors are unchanged, and a null optional is still absent.
    assert_eq!(with("hour", json!("7")), r#"hour: expected an integer, got "7""#);
    let mut args = ok.clone();
    args["minute"] = Value::Null;
    assert_eq!(run("set_alarm", args).unwrap()["minute"], 0);

    let schema = toolset::ALL.emit(toolcall_runtime::Format::Mcp, false);
    let tools: Value = serde_json::from_str(schema).unwrap();
    let alarm = tools.as_array().unwrap().iter().find(|t| t["name"] == "set_alarm").unwrap();
    let props = &alarm["inputSchema"]["properties"];
    assert_eq!((&props["hour"]["minimum"], &props["hour"]["maximum"]), (&json!(0), &json!(23)));
    assert_eq!(props["minute"]["maximum"], 59);
    assert_eq!((&props["label"]["minLength"], &props["label"]["maxLength"]), (&json!(1), &json!(12)));
    assert_eq!(props["snooze"]["maxItems"], 3);
    assert_eq!(props["volume"]["maximum"], json!(10.0));
}

/// An explicit description is emitted as written; the string-integer hint only fills an
/// empty one.
#[test]
fn override_descriptions_are_kept_as_written() {
    let tools: Value = serde_json::from_str(toolset::ALL.emit(toolcall_runtime::Format::Mcp, false)).unwrap();
    let find = |name: &str| tools.as_array().unwrap().iter().find(|t| t["name"] == name).unwrap().clone();
    let transfer = find("transfer");
    let props = &transfer["inputSchema"]["properties"];
    assert_eq!(props["user_id"]["description"], "Snowflake id");
    assert_eq!(props["memo_id"]["description"], "a big optional id");
    let alarm = find("set_alarm");
    assert_eq!(alarm["inputSchema"]["properties"]["ticket"]["description"], "a big id (at least 1000)");
}

/// `TOOLS` metadata: a renamed tool answers to its wire name only; title and annotations
/// are in MCP definitions, examples in Anthropic's, the time limit in `ToolInfo`.
#[test]
fn tool_metadata_reaches_every_place_it_belongs() {
    let args = json!({"account": {"number": 1}, "label": "vip"});
    assert_eq!(run("label_account", args.clone()).unwrap()["label"], "vip");
    let err = run("tag_account", args).unwrap_err();
    assert!(matches!(err, ToolError::UnknownTool { .. }), "{err:?}");
    assert!(toolset::ALL.names().any(|n| n == "label_account"));

    let mcp: Value = serde_json::from_str(toolset::ALL.emit(toolcall_runtime::Format::Mcp, false)).unwrap();
    let find =
        |tools: &Value, name: &str| tools.as_array().unwrap().iter().find(|t| t["name"] == name).cloned();
    let alarm = find(&mcp, "set_alarm").unwrap();
    assert_eq!(alarm["title"], "Set an alarm");
    assert_eq!(alarm["annotations"], json!({"idempotentHint": true, "openWorldHint": false}));
    assert_eq!(find(&mcp, "label_account").unwrap()["annotations"], json!({"destructiveHint": false}));
    assert!(alarm.get("input_examples").is_none());
    // The same hints, typed, on the tool's info (#42 item 6): what filters and approval read.
    let info = |name: &str| *toolset::ALL.describe().iter().find(|t| t.name == name).unwrap();
    let hints = toolcall_runtime::Annotations {
        idempotent: Some(true),
        open_world: Some(false),
        ..Default::default()
    };
    assert_eq!(info("set_alarm").hints, hints);
    assert_eq!(info("label_account").hints.destructive, Some(false));
    assert!(!info("label_account").is_destructive() && !info("set_alarm").is_read_only());
    assert_eq!(info("paint_brush").hints, toolcall_runtime::Annotations::NONE);

    for strict in [false, true] {
        let anthropic: Value =
            serde_json::from_str(toolset::ALL.emit(toolcall_runtime::Format::Anthropic, strict)).unwrap();
        let alarm = find(&anthropic, "set_alarm").unwrap();
        assert_eq!(alarm["input_examples"].as_array().map(Vec::len), Some(2), "{alarm}");
        assert_eq!(alarm["input_examples"][0]["label"], "wake");
        assert!(alarm.get("title").is_none() && alarm.get("annotations").is_none());
    }
    let openai = toolset::ALL.emit(toolcall_runtime::Format::OpenAi, true);
    assert!(!openai.contains("input_examples") && !openai.contains(r#""title":"Set an alarm""#));

    let info = toolset::ALL.describe().iter().find(|t| t.name == "set_alarm").unwrap();
    assert_eq!(info.timeout_ms, Some(250));
    assert_eq!(toolset::ALL.describe().iter().find(|t| t.name == "transfer").unwrap().timeout_ms, None);
}

/// Every generated description reads as English in every format (#42 item 5): a count of
/// one takes the singular (`at least 1 character`, never `1 characters`).
#[test]
fn descriptions_say_one_in_the_singular() {
    for format in toolcall_runtime::Format::ALL {
        for strict in [false, true] {
            let text = toolset::ALL.emit(format, strict);
            for plural in ["characters", "items", "properties", "keys"] {
                let wrong = format!(" 1 {plural}");
                assert!(!text.contains(&wrong), "{format:?} strict={strict}: `{wrong}` in {text}");
            }
        }
    }
}
