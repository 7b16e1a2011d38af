//! Calling tools: runtime-built `DynTool`s, a `Toolset` built by hand the way generated code
//! builds one, a `Registry` holding both, and the provider glue. Checks DESIGN.md's
//! "Dispatch contract" table row by row.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::HashMap;
use std::sync::LazyLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::{TARGETS, check_tool, check_tools, deep_array, dismantle, tool_name};
use serde_json::{Map, Value, json};
use toolcall_runtime::__private::decode::decode_slot;
use toolcall_runtime::__private::{Dispatched, arguments, encode, encode_result, invoke};
use toolcall_runtime::Runner;
use toolcall_runtime::glue::{
    answer_anthropic, answer_openai, anthropic_tool_result, content, openai_tool_message,
};
use toolcall_runtime::ir::{Param, Tool, Type};
use toolcall_runtime::render::{Format, render_input_schema, render_tools};
use toolcall_runtime::{DuplicateTool, DynTool, Emitted, Reason, Registry, ToolError, ToolInfo, Toolset};

// ---------------------------------------------------------------------------------------
// A toolset written the way `toolcall-build` generates one

/// The user's tool functions.
mod user_tools {
    use std::collections::HashMap;

    #[derive(serde::Serialize)]
    pub struct Forecast<'a> {
        pub city: &'a str,
        pub days: u32,
        pub temp: f64,
    }

    /// Get the forecast for a city.
    pub fn get_weather(city: &str, days: Option<u32>) -> Forecast<'_> {
        let days = days.unwrap_or(3);
        Forecast { city, days, temp: 21.5 }
    }

    /// Always panics.
    pub fn explode(message: String) -> u8 {
        panic!("{message}")
    }

    /// Fails for negative input.
    pub fn checked_sqrt(x: f64) -> Result<f64, String> {
        if x < 0.0 { Err(format!("cannot take the square root of {x}")) } else { Ok(x.sqrt()) }
    }

    /// Returns a map with non-string keys, which JSON cannot encode.
    pub fn pairs() -> HashMap<(u8, u8), u8> {
        HashMap::from([((1, 2), 3)])
    }
}

/// The arguments object, failing on unknown keys: these hand-written dispatchers stop at
/// the first error, where generated ones report every error at once.
fn checked<'a>(args: &'a Value, known: &[&str]) -> Result<&'a serde_json::Map<String, Value>, ToolError> {
    match arguments(args, known)? {
        (map, None) => Ok(map),
        (_, Some(unknown)) => Err(unknown),
    }
}

/// The IR the build script derives for the weather module.
fn weather_ir() -> Vec<Tool> {
    vec![
        Tool::new("get_weather")
            .description("Get the forecast for a city.")
            .param(Param::new("city", Type::string()))
            .param(Param::new("days", Type::integer_between(0, i64::from(u32::MAX))).default(3)),
        Tool::new("explode").description("Always panics.").param(Param::new("message", Type::string())),
        Tool::new("checked_sqrt")
            .description("Fails for negative input.")
            .param(Param::new("x", Type::number())),
        Tool::new("pairs").description("Returns a map with non-string keys, which JSON cannot encode."),
    ]
}

/// The generated dispatcher: one `match` arm per tool.
fn weather_dispatch<'a>(_: &'a (), name: &'a str, args: &'a Value) -> Option<Dispatched<'a>> {
    Some(Dispatched::Ready(match name {
        "get_weather" => call_get_weather(args),
        "explode" => call_explode(args),
        "checked_sqrt" => call_checked_sqrt(args),
        "pairs" => call_pairs(args),
        _ => return None,
    }))
}

fn call_get_weather(args: &Value) -> Result<Value, ToolError> {
    let map = checked(args, &["city", "days"])?;
    let city: &str = decode_slot(map.get("city"), "city")?;
    let days: Option<u32> = decode_slot(map.get("days"), "days")?;
    invoke("get_weather", || encode(user_tools::get_weather(city, days)))
}

fn call_explode(args: &Value) -> Result<Value, ToolError> {
    let map = checked(args, &["message"])?;
    let message: String = decode_slot(map.get("message"), "message")?;
    invoke("explode", || encode(user_tools::explode(message)))
}

fn call_checked_sqrt(args: &Value) -> Result<Value, ToolError> {
    let map = checked(args, &["x"])?;
    let x: f64 = decode_slot(map.get("x"), "x")?;
    invoke("checked_sqrt", || encode_result(user_tools::checked_sqrt(x)))
}

fn call_pairs(args: &Value) -> Result<Value, ToolError> {
    checked(args, &[])?;
    invoke("pairs", || encode(user_tools::pairs()))
}

/// Precomputed parts, as generated code holds them (here computed once, then leaked).
fn precompute(tools: &[Tool], module: &'static str) -> (&'static [ToolInfo], &'static Emitted) {
    let infos: Vec<ToolInfo> = tools.iter().map(|t| ToolInfo::leaked(module, t)).collect();
    (Box::leak(infos.into_boxed_slice()), Box::leak(Box::new(Emitted::new())))
}

static WEATHER: LazyLock<Toolset> = LazyLock::new(|| {
    let (tools, schemas) = precompute(&weather_ir(), "weather");
    Toolset::new(tools, schemas, weather_dispatch)
});

/// A second module, for the registry.
static MATH: LazyLock<Toolset> = LazyLock::new(|| {
    let add = Tool::new("add")
        .description("Add two integers.")
        .param(Param::new("a", Type::integer()))
        .param(Param::new("b", Type::integer()));
    let (tools, schemas) = precompute(&[add], "math");
    Toolset::new(tools, schemas, |_, name, args| match name {
        "add" => Some(Dispatched::Ready((|| {
            let map = checked(args, &["a", "b"])?;
            let (a, b): (i64, i64) = (decode_slot(map.get("a"), "a")?, decode_slot(map.get("b"), "b")?);
            invoke("add", || encode(a + b))
        })())),
        _ => None,
    })
});

const PING_INPUT: &str = r#"{"type":"object","properties":{},"required":[],"additionalProperties":false}"#;

/// A fully `const` toolset with hand-written schema text, as generated code writes it.
static PING_TOOLS: [ToolInfo; 1] = [ToolInfo {
    module: "health",
    name: "ping",
    description: "Check the service is up.",
    parameters: PING_INPUT,
    strict_parameters: PING_INPUT,
    anthropic_strict_parameters: PING_INPUT,
    gemini_parameters: "",
    ..ToolInfo::EMPTY
}];

/// What `PING` emits, written out by hand: `[format][strict]` in `Format::ALL`'s order.
const PING_EMITTED: [[&str; 2]; 5] = [
    [
        r#"[{"type":"function","function":{"name":"ping","description":"Check the service is up.","parameters":{"type":"object","properties":{},"required":[],"additionalProperties":false}}}]"#,
        r#"[{"type":"function","function":{"name":"ping","description":"Check the service is up.","parameters":{"type":"object","properties":{},"required":[],"additionalProperties":false},"strict":true}}]"#,
    ],
    [
        r#"[{"name":"ping","description":"Check the service is up.","input_schema":{"type":"object","properties":{},"required":[],"additionalProperties":false}}]"#,
        r#"[{"name":"ping","description":"Check the service is up.","input_schema":{"type":"object","properties":{},"required":[],"additionalProperties":false},"strict":true}]"#,
    ],
    [
        r#"[{"name":"ping","description":"Check the service is up.","inputSchema":{"type":"object","properties":{},"required":[],"additionalProperties":false}}]"#,
        r#"[{"name":"ping","description":"Check the service is up.","inputSchema":{"type":"object","properties":{},"required":[],"additionalProperties":false}}]"#,
    ],
    [
        r#"[{"type":"function","name":"ping","description":"Check the service is up.","parameters":{"type":"object","properties":{},"required":[],"additionalProperties":false},"strict":false}]"#,
        r#"[{"type":"function","name":"ping","description":"Check the service is up.","parameters":{"type":"object","properties":{},"required":[],"additionalProperties":false},"strict":true}]"#,
    ],
    [
        r#"[{"name":"ping","description":"Check the service is up."}]"#,
        r#"[{"name":"ping","description":"Check the service is up."}]"#,
    ],
];

fn ping_dispatch<'a>(_: &'a (), name: &'a str, args: &'a Value) -> Option<Dispatched<'a>> {
    match name {
        "ping" => Some(Dispatched::Ready(checked(args, &[]).and_then(|_| invoke("ping", || encode("pong"))))),
        _ => None,
    }
}

static PING_EMITTED_ARRAYS: Emitted = Emitted::new();
static PING: Toolset = Toolset::new(&PING_TOOLS, &PING_EMITTED_ARRAYS, ping_dispatch);

/// A module that reuses a name from WEATHER (and brings a new one).
static CLASH: LazyLock<Toolset> = LazyLock::new(|| {
    let tools = [Tool::new("fresh").description("New."), Tool::new("get_weather").description("Again.")];
    let (tools, schemas) = precompute(&tools, "clash");
    Toolset::new(tools, schemas, |_, _, _| None)
});

/// A module that names one tool twice.
static TWICE: LazyLock<Toolset> = LazyLock::new(|| {
    let tools = [Tool::new("same").description("One."), Tool::new("same").description("Two.")];
    let (tools, schemas) = precompute(&tools, "twice");
    Toolset::new(tools, schemas, |_, _, _| None)
});

// ---------------------------------------------------------------------------------------
// DynTool

fn dyn_weather() -> DynTool {
    DynTool::new(weather_ir().remove(0), |args| {
        Ok(json!({"city": args["city"], "days": args["days"], "temp": 21.5}))
    })
}

/// A tool whose handler returns the arguments it was given.
fn echo(tool: Tool) -> DynTool {
    DynTool::new(tool, |args| Ok(Value::Object(args.clone())))
}

#[test]
fn dyn_tool_fills_in_defaults() {
    let tool = dyn_weather();
    assert_eq!(tool.run(&json!({"city": "Oslo"})).unwrap(), json!({"city": "Oslo", "days": 3, "temp": 21.5}));
    // An explicit null for a non-nullable optional argument means "absent".
    assert_eq!(tool.run(&json!({"city": "Oslo", "days": null})).unwrap()["days"], json!(3));
    assert_eq!(tool.run(&json!({"city": "Oslo", "days": 5})).unwrap()["days"], json!(5));
    // Without a default, an absent optional argument is absent for the handler too.
    let tool = echo(Tool::new("e").param(Param::new("a", Type::string()).optional()));
    assert_eq!(tool.run(&json!({})).unwrap(), json!({}));
    assert_eq!(tool.run(&json!({"a": null})).unwrap(), json!({}));
    // Defaults inside nested objects are filled in as well.
    let inner =
        Type::Object(vec![Param::new("x", Type::integer()), Param::new("y", Type::integer()).default(0)]);
    let tool = echo(Tool::new("e").param(Param::new("point", inner)));
    assert_eq!(tool.run(&json!({"point": {"x": 1}})).unwrap(), json!({"point": {"x": 1, "y": 0}}));
}

#[test]
fn dyn_tool_normalises_whole_floats_to_integers() {
    let tool = echo(
        Tool::new("e")
            .param(Param::new("n", Type::integer()))
            .param(Param::new("list", Type::array(Type::integer_between(0, 255)))),
    );
    let out = tool.run(&json!({"n": 1.0, "list": [2.0, 3]})).unwrap();
    assert_eq!(out, json!({"n": 1, "list": [2, 3]}));
    assert!(out["n"].is_i64() && out["list"][0].is_i64());
    let error = tool.run(&json!({"n": 1.5, "list": []})).unwrap_err();
    assert_eq!(
        error,
        ToolError::InvalidArgument {
            name: "n".into(),
            reason: Box::new(Reason::ExpectedInteger { value: json!(1.5) })
        }
    );
}

#[test]
fn dyn_tool_nullable_optional_passes_null_through() {
    let tool = echo(Tool::new("e").param(Param::new("nickname", Type::string().nullable()).optional()));
    assert_eq!(tool.run(&json!({"nickname": null})).unwrap(), json!({"nickname": null}));
    assert_eq!(tool.run(&json!({})).unwrap(), json!({}));
    assert_eq!(tool.run(&json!({"nickname": "Al"})).unwrap(), json!({"nickname": "Al"}));
}

#[test]
fn dyn_tool_lists_every_unknown_argument() {
    let error = dyn_weather().run(&json!({"city": "Oslo", "c": 1, "d": 2, "zz": null})).unwrap_err();
    assert_eq!(error, ToolError::UnknownArguments(vec!["c".into(), "d".into(), "zz".into()]));
    // Unknown arguments come first, then the missing ones: one reply says both.
    let error = dyn_weather().run(&json!({"town": "Oslo"})).unwrap_err();
    let expected =
        vec![ToolError::UnknownArguments(vec!["town".into()]), ToolError::MissingArgument("city".into())];
    assert_eq!(error, ToolError::Several(expected));
}

#[test]
fn dyn_tool_reports_every_missing_argument_in_declaration_order() {
    let tool = echo(
        Tool::new("e")
            .param(Param::new("zeta", Type::string()))
            .param(Param::new("alpha", Type::string()))
            .param(Param::new("mid", Type::string())),
    );
    let missing = |names: &[&str]| names.iter().map(|n| ToolError::MissingArgument((*n).into())).collect();
    assert_eq!(tool.run(&json!({})).unwrap_err(), ToolError::Several(missing(&["zeta", "alpha", "mid"])));
    assert_eq!(tool.run(&json!({"zeta": "z"})).unwrap_err(), ToolError::Several(missing(&["alpha", "mid"])));
    assert_eq!(
        tool.run(&json!({"alpha": "a", "mid": "m"})).unwrap_err(),
        ToolError::MissingArgument("zeta".into())
    );
    assert_eq!(
        dyn_weather().run(&json!({"days": 5})).unwrap_err(),
        ToolError::MissingArgument("city".into())
    );
    // A required argument sent as null is not absent: it is the wrong type.
    let error = tool.run(&json!({"zeta": null, "alpha": "a", "mid": "m"})).unwrap_err();
    assert_eq!(
        error,
        ToolError::InvalidArgument {
            name: "zeta".into(),
            reason: Box::new(Reason::ExpectedString { value: json!(null) })
        }
    );
    // A field missing inside an object argument is an InvalidArgument naming the object.
    let tool = echo(Tool::new("e").param(Param::new(
        "address",
        Type::Object(vec![Param::new("street", Type::string()), Param::new("zip", Type::string())]),
    )));
    let error = tool.run(&json!({"address": {"street": "Main"}})).unwrap_err();
    assert_eq!(
        error,
        ToolError::InvalidArgument {
            name: "address".into(),
            reason: Box::new(Reason::MissingField { field: "zip".into() })
        }
    );
    assert_eq!(error.to_string(), r#"address: missing required field "zip""#);
    let error = tool.run(&json!({"address": {"street": "Main", "zip": 5}})).unwrap_err();
    assert_eq!(error.to_string(), "address.zip: expected a string, got 5");
}

#[test]
fn dyn_tool_rejects_arguments_that_are_not_an_object() {
    for args in [json!([1, 2]), json!("x"), json!(3), json!(null), json!(true)] {
        assert_eq!(dyn_weather().run(&args).unwrap_err(), ToolError::InvalidArguments(args.clone()));
    }
}

#[test]
fn dyn_tool_panic_is_caught_and_the_next_call_works() {
    let calls = std::sync::Arc::new(AtomicUsize::new(0));
    let seen = calls.clone();
    let tool = DynTool::new(Tool::new("flaky").param(Param::new("mode", Type::string())), move |args| {
        seen.fetch_add(1, Ordering::SeqCst);
        match args["mode"].as_str() {
            Some("str") => panic!("static message"),
            Some("string") => panic!("formatted {}", 42),
            Some("other") => std::panic::panic_any(7u8),
            Some("err") => Err("went wrong".to_owned()),
            _ => Ok(json!("fine")),
        }
    });
    assert_eq!(tool.run(&json!({"mode": "str"})).unwrap_err(), ToolError::Panicked("static message".into()));
    assert_eq!(tool.run(&json!({"mode": "ok"})).unwrap(), json!("fine"));
    assert_eq!(tool.run(&json!({"mode": "string"})).unwrap_err(), ToolError::Panicked("formatted 42".into()));
    assert_eq!(
        tool.run(&json!({"mode": "other"})).unwrap_err(),
        ToolError::Panicked("panic with a non-string payload".into())
    );
    assert_eq!(tool.run(&json!({"mode": "err"})).unwrap_err(), ToolError::Failed("went wrong".into()));
    assert_eq!(tool.run(&json!({"mode": "ok"})).unwrap(), json!("fine"));
    assert_eq!(calls.load(Ordering::SeqCst), 6);
    // Invalid arguments never reach the handler.
    assert!(tool.run(&json!({"mode": 1})).is_err());
    assert_eq!(calls.load(Ordering::SeqCst), 6);
    // A panic outside any tool still reaches the normal hook and unwinds as usual.
    assert!(std::panic::catch_unwind(|| -> u8 { panic!("outside") }).is_err());
}

#[test]
fn dyn_tool_renders_with_the_shared_renderer() {
    let tool = dyn_weather();
    assert_eq!(tool.name(), "get_weather");
    assert_eq!(tool.tool(), &weather_ir()[0]);
    for (format, strict) in TARGETS {
        let text = tool.render(format, strict);
        assert_eq!(text, toolcall_runtime::render::render_tool(&weather_ir()[0], format, strict));
        check_tool(format, strict, &text);
    }
    let debug = format!("{tool:?}");
    assert!(debug.starts_with("DynTool { tool: Tool {") && debug.ends_with(".. }"), "{debug}");
    fn send_sync<T: Send + Sync>(_: &T) {}
    send_sync(&tool);
}

// ---------------------------------------------------------------------------------------
// Toolset

#[test]
fn toolset_dispatch_contract() {
    let set = &*WEATHER;
    let run = |args: Value| set.run("get_weather", &args);
    assert_eq!(run(json!({"city": "Oslo"})).unwrap(), json!({"city": "Oslo", "days": 3, "temp": 21.5}));
    assert_eq!(run(json!({})).unwrap_err(), ToolError::MissingArgument("city".into()));
    assert_eq!(run(json!({"days": 5})).unwrap_err(), ToolError::MissingArgument("city".into()));
    let days = |value: Value| ToolError::InvalidArgument {
        name: "days".into(),
        reason: Box::new(Reason::ExpectedInteger { value }),
    };
    assert_eq!(run(json!({"city": "Oslo", "days": 1.5})).unwrap_err(), days(json!(1.5)));
    assert_eq!(run(json!({"city": "Oslo", "days": "5"})).unwrap_err(), days(json!("5")));
    assert_eq!(run(json!({"city": "Oslo", "days": 1.0})).unwrap()["days"], json!(1));
    assert_eq!(
        run(json!({"city": "Oslo", "c": 1})).unwrap_err(),
        ToolError::UnknownArguments(vec!["c".into()])
    );
    for args in [json!([1, 2]), json!("x"), json!(3)] {
        assert_eq!(run(args.clone()).unwrap_err(), ToolError::InvalidArguments(args));
    }
    assert_eq!(run(json!({"city": "Oslo", "days": null})).unwrap()["days"], json!(3), "null is None");
    let error = set.run("get_wether", &json!({})).unwrap_err();
    let known = ["get_weather", "explode", "checked_sqrt", "pairs"].map(String::from).to_vec();
    assert_eq!(error, ToolError::UnknownTool { name: "get_wether".into(), known });
    let error = set.run("explode", &json!({"message": "kaboom"})).unwrap_err();
    assert_eq!(error, ToolError::Panicked("kaboom".into()));
    assert_eq!(set.run("checked_sqrt", &json!({"x": 4})).unwrap(), json!(2.0));
    let error = set.run("checked_sqrt", &json!({"x": -1})).unwrap_err();
    assert_eq!(error, ToolError::Failed("cannot take the square root of -1".into()));
    let error = set.run("pairs", &json!({})).unwrap_err();
    assert_eq!(error, ToolError::Failed("result could not be encoded as JSON: key must be a string".into()));
    // The input is never lost: after all of the above the set still works.
    assert_eq!(run(json!({"city": "Bergen", "days": 1})).unwrap()["city"], "Bergen");
}

#[test]
fn toolset_matches_dyn_tool_behaviour() {
    let dynamic = dyn_weather();
    let inputs = [
        json!({"city": "Oslo"}),
        json!({}),
        json!({"days": 5}),
        json!({"city": "Oslo", "days": 1.5}),
        json!({"city": "Oslo", "days": "5"}),
        json!({"city": "Oslo", "days": -1}),
        json!({"city": "Oslo", "days": 4294967296u64}),
        json!({"city": "Oslo", "c": 1, "b": 2}),
        json!({"city": 5}),
        json!([1, 2]),
        json!("x"),
        json!(null),
        json!({"city": "Oslo", "days": null}),
    ];
    for args in inputs {
        assert_eq!(WEATHER.run("get_weather", &args), dynamic.run(&args), "{args}");
    }
}

/// Threads asking for an array none has asked for yet all get the one text: it is put
/// together once, and the strict and lax arrays of a format are different texts (but
/// Gemini's, which has no strict mode, are one).
#[test]
fn first_emits_from_many_threads_share_one_text() {
    let tools = [Tool::new("first").param(Param::new("n", Type::integer())), Tool::new("second")];
    let (tools, emitted) = precompute(&tools, "race");
    let set: &'static Toolset = Box::leak(Box::new(Toolset::new(tools, emitted, |_, _, _| None)));
    let addresses: Vec<Vec<usize>> = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..8)
            .map(|_| {
                scope.spawn(|| {
                    TARGETS
                        .iter()
                        .map(|&(format, strict)| set.emit(format, strict).as_ptr() as usize)
                        .collect()
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    });
    assert!(addresses.iter().all(|a| *a == addresses[0]), "every thread got the same texts");
    assert!(std::ptr::eq(set.emit(Format::Gemini, true), set.emit(Format::Gemini, false)));
    assert!(!std::ptr::eq(set.emit(Format::OpenAi, true), set.emit(Format::OpenAi, false)));
}

#[test]
fn toolset_emit_assembles_each_array_once() {
    let set = &*WEATHER;
    for (format, strict) in TARGETS {
        let first = set.emit(format, strict);
        let second = set.emit(format, strict);
        assert!(std::ptr::eq(first, second), "emit must assemble an array once, not per call");
        assert_eq!(first, render_tools(&weather_ir(), format, strict));
        let tools = check_tools(format, strict, first);
        let names: Vec<&str> = tools.iter().map(|t| tool_name(format, t)).collect();
        assert_eq!(names, set.names().collect::<Vec<_>>());
        assert_eq!(set.emit_value(format, strict), serde_json::from_str::<Value>(first).unwrap());
        // The hand-written const toolset holds exactly what the renderer produces.
        let ping = [Tool::new("ping").description("Check the service is up.")];
        assert_eq!(PING.emit(format, strict), render_tools(&ping, format, strict));
        assert_eq!(PING.emit(format, strict), PING_EMITTED[format.index()][usize::from(strict)]);
        check_tools(format, strict, PING.emit(format, strict));
    }
    assert_eq!(PING_TOOLS[0].parameters, render_input_schema(&Tool::new("ping"), Format::Mcp, false));
}

#[test]
fn toolset_describes_its_tools() {
    let set = &*WEATHER;
    assert_eq!(set.len(), 4);
    assert!(!set.is_empty());
    assert!(set.contains("pairs") && !set.contains("pair"));
    assert_eq!(set.names().len(), 4);
    let info = set.describe()[0];
    assert_eq!(
        (info.module, info.name, info.description),
        ("weather", "get_weather", "Get the forecast for a city.")
    );
    let parameters = info.parameters_value();
    assert_eq!(parameters["properties"]["days"]["default"], json!(3));
    assert_eq!(parameters["required"], json!(["city"]));
    assert_eq!(PING.run("ping", &json!({})).unwrap(), json!("pong"));
    assert_eq!(
        PING.run("ping", &json!({"x": 1})).unwrap_err(),
        ToolError::UnknownArguments(vec!["x".into()])
    );
    static NOTHING: Emitted = Emitted::new();
    let empty = Toolset::new(&[], &NOTHING, |_, _, _| None);
    assert!(empty.is_empty());
    assert_eq!(empty.emit(Format::Anthropic, true), "[]");
    assert_eq!(
        empty.run("x", &json!({})).unwrap_err(),
        ToolError::UnknownTool { name: "x".into(), known: vec![] }
    );
}

#[test]
fn toolset_run_json_and_run_bytes() {
    let set = &*WEATHER;
    let ok = json!({"city": "Oslo", "days": 3, "temp": 21.5});
    assert_eq!(set.run_json("get_weather", r#"{"city":"Oslo"}"#).unwrap(), ok);
    assert_eq!(set.run_bytes("get_weather", br#"{"city":"Oslo"}"#).unwrap(), ok);
    assert_eq!(set.run_json("get_weather", " {\"city\" : \"Oslo\"}\n").unwrap(), ok);
    // A valid surrogate pair is fine.
    assert_eq!(set.run_json("get_weather", r#"{"city":"\ud83d\ude00"}"#).unwrap()["city"], "😀");
    let malformed: [&[u8]; 11] = [
        br#"{"city":"#,
        br#"{"city":"Oslo""#,
        br#"{"city":"Oslo"} trailing"#,
        br#"{'city':'Oslo'}"#,
        b" x ",
        br#"{"city":"\ud800"}"#,
        br#"{"city":"\udc00"}"#,
        br#"{"city":"\ud800\u0041"}"#,
        b"{\"city\":\"\xff\"}",
        b"{\"city\":\"\xc0\xaf\"}",
        b"{\"city\":\"\xed\xa0\x80\"}",
    ];
    for bytes in malformed {
        let result = set.run_bytes("get_weather", bytes);
        assert!(
            matches!(result, Err(ToolError::InvalidJson(_))),
            "{:?} gave {result:?}",
            String::from_utf8_lossy(bytes)
        );
        if let Ok(text) = std::str::from_utf8(bytes) {
            assert_eq!(set.run_json("get_weather", text), result);
        }
    }
    // Even for an unknown tool, the text is parsed first.
    assert!(matches!(set.run_json("nope", "{"), Err(ToolError::InvalidJson(_))));
    assert!(matches!(set.run_json("nope", "{}"), Err(ToolError::UnknownTool { .. })));
}

/// #31 item 4: local model servers send `""` for a tool without parameters. Blank text is
/// `{}` on every text entry point, and then the usual rules apply.
#[test]
fn blank_argument_text_is_an_empty_object_on_every_text_entry_point() {
    for blank in ["", " ", "\n\t \r\n"] {
        assert_eq!(PING.run_json("ping", blank), Ok(json!("pong")), "{blank:?}");
        assert_eq!(PING.run_bytes("ping", blank.as_bytes()), Ok(json!("pong")), "{blank:?}");
        assert_eq!(Runner::run_json(&registry(), "add", blank), Err(ToolError::MissingArgument("a".into())));
        // A required parameter is still missing; an unknown tool is still unknown.
        assert_eq!(WEATHER.run_json("get_weather", blank), Err(ToolError::MissingArgument("city".into())));
        assert!(matches!(WEATHER.run_json("nope", blank), Err(ToolError::UnknownTool { .. })));
        let answer = answer_openai(&PING, &openai_call("call_1", "ping", json!(blank)));
        assert_eq!(answer_content(&answer), json!("pong"), "{blank:?}");
        let ctx = ();
        let out = ready_now(PING.call_json(&ctx, "ping", blank));
        assert_eq!(out, Ok(json!("pong")), "{blank:?}");
    }
}

/// Polls a future that is ready without waiting (the tools here are sync).
fn ready_now<F: std::future::Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match future.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(out) => out,
        std::task::Poll::Pending => panic!("a sync tool's future is ready at its first poll"),
    }
}

#[test]
fn run_json_with_100000_nested_brackets_is_invalid_json() {
    let text = "[".repeat(100_000) + &"]".repeat(100_000);
    let result = WEATHER.run_json("get_weather", &text);
    assert!(
        matches!(result, Err(ToolError::InvalidJson(ref m)) if m.contains("recursion limit")),
        "{result:?}"
    );
    let result = WEATHER.run_bytes("get_weather", text.as_bytes());
    assert!(matches!(result, Err(ToolError::InvalidJson(_))));
    // And a deep value that arrives already parsed is refused by a runtime tool.
    let tool = DynTool::new(Tool::new("t").param(Param::new("v", Type::Any)), |_| Ok(json!(null)));
    let args = Value::Object(Map::from_iter([("v".to_owned(), deep_array(100_000))]));
    assert!(matches!(
        tool.run(&args),
        Err(ToolError::InvalidArgument { reason, .. }) if matches!(*reason, Reason::TooDeep { .. })
    ));
    dismantle(args);
}

// ---------------------------------------------------------------------------------------
// Registry

fn registry() -> Registry {
    let mut registry = Registry::new();
    registry.add_toolset(&WEATHER).unwrap();
    registry
        .add_tool(echo(Tool::new("echo").description("Echo.").param(Param::new("text", Type::string()))))
        .unwrap();
    registry.add_toolset(&MATH).unwrap();
    registry
}

#[test]
fn registry_routes_by_name() {
    let registry = registry();
    let names: Vec<&str> = registry.names().collect();
    assert_eq!(names, ["get_weather", "explode", "checked_sqrt", "pairs", "echo", "add"]);
    assert_eq!(registry.run("get_weather", &json!({"city": "Oslo"})).unwrap()["days"], json!(3));
    assert_eq!(registry.run("echo", &json!({"text": "hi"})).unwrap(), json!({"text": "hi"}));
    assert_eq!(registry.run("add", &json!({"a": 2, "b": 3.0})).unwrap(), json!(5));
    assert_eq!(registry.run("add", &json!({"a": 2})).unwrap_err(), ToolError::MissingArgument("b".into()));
    let error = registry.run("nope", &json!({})).unwrap_err();
    let known: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    assert_eq!(error, ToolError::UnknownTool { name: "nope".into(), known });
    // The `Runner` trait, which the glue uses, routes the same way.
    assert_eq!(Runner::run_json(&registry, "add", r#"{"a":1,"b":1}"#).unwrap(), json!(2));
    assert!(matches!(Runner::run_json(&registry, "add", r#"{"a":1"#), Err(ToolError::InvalidJson(_))));
    assert!(matches!(
        Runner::run_json(&registry, "add", r#"{"a":"\ud800"}"#),
        Err(ToolError::InvalidJson(_))
    ));
}

#[test]
fn registry_emits_every_tool() {
    let registry = registry();
    for (format, strict) in TARGETS {
        let text = registry.emit(format, strict);
        let tools = check_tools(format, strict, &text);
        let mut names: Vec<&str> = tools.iter().map(|t| tool_name(format, t)).collect();
        // Static sets come first, then runtime-built tools (not strictly the order added).
        assert_eq!(names[4..], ["add", "echo"]);
        let mut added: Vec<&str> = registry.names().collect();
        names.sort_unstable();
        added.sort_unstable();
        assert_eq!(names, added);
        // Static parts are copied as they were precomputed.
        let weather = WEATHER.emit(format, strict);
        assert!(text.starts_with(&weather[..weather.len() - 1]), "{text}");
    }
    assert_eq!(Registry::new().emit(Format::OpenAi, true), "[]");
}

#[test]
fn registry_refuses_duplicate_names() {
    let dup = |name: &str| DuplicateTool { name: name.into() };
    // dynamic + dynamic
    let mut registry = Registry::new();
    registry.add_tool(echo(Tool::new("echo"))).unwrap();
    assert_eq!(registry.add_tool(echo(Tool::new("echo"))).unwrap_err(), dup("echo"));
    // static + static: the same set twice, or two sets sharing a name
    let mut registry = Registry::new();
    registry.add_toolset(&WEATHER).unwrap();
    assert_eq!(registry.add_toolset(&WEATHER).unwrap_err(), dup("get_weather"));
    assert_eq!(registry.add_toolset(&CLASH).unwrap_err(), dup("get_weather"));
    assert!(!registry.names().any(|n| n == "fresh"), "a refused set adds nothing");
    assert!(matches!(registry.run("fresh", &json!({})), Err(ToolError::UnknownTool { .. })));
    // static then dynamic, dynamic then static
    assert_eq!(registry.add_tool(echo(Tool::new("explode"))).unwrap_err(), dup("explode"));
    let mut registry = Registry::new();
    registry.add_tool(echo(Tool::new("add"))).unwrap();
    assert_eq!(registry.add_toolset(&MATH).unwrap_err(), dup("add"));
    assert_eq!(registry.run("add", &json!({})).unwrap(), json!({}), "the first `add` still serves");
    // one set naming a tool twice
    let mut registry = Registry::new();
    assert_eq!(registry.add_toolset(&TWICE).unwrap_err(), dup("same"));
    assert_eq!(registry.names().count(), 0);
    assert_eq!(dup("x").to_string(), "a tool named `x` is already registered");
    let error: Box<dyn std::error::Error> = Box::new(dup("x"));
    assert!(error.to_string().contains('x'));
}

// ---------------------------------------------------------------------------------------
// Provider glue

fn openai_call(id: &str, name: &str, arguments: Value) -> Value {
    json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
}

/// The parsed `content` of an answer.
fn answer_content(answer: &Value) -> Value {
    serde_json::from_str(answer["content"].as_str().unwrap()).unwrap()
}

#[test]
fn answer_openai_with_json_string_arguments() {
    let call = openai_call("call_1", "get_weather", json!(r#"{"city":"Oslo"}"#));
    let answer = answer_openai(&*WEATHER, &call);
    assert_eq!(answer["role"], "tool");
    assert_eq!(answer["tool_call_id"], "call_1");
    assert_eq!(answer_content(&answer), json!({"city": "Oslo", "days": 3, "temp": 21.5}));
    assert_eq!(answer.as_object().unwrap().len(), 3);
    // Some gateways send the arguments already decoded.
    let call = openai_call("call_2", "get_weather", json!({"city": "Oslo"}));
    assert_eq!(answer_content(&answer_openai(&*WEATHER, &call))["city"], "Oslo");
    // Errors come back as the error's JSON object.
    let call = openai_call("call_3", "get_weather", json!(r#"{"days":"5"}"#));
    let content = answer_content(&answer_openai(&*WEATHER, &call));
    assert_eq!(content, ToolError::MissingArgument("city".into()).to_value());
    // Works with a registry too.
    let call = openai_call("call_4", "echo", json!(r#"{"text":"hi"}"#));
    assert_eq!(answer_content(&answer_openai(&registry(), &call)), json!({"text": "hi"}));
}

#[test]
fn answer_openai_survives_malformed_calls() {
    let calls = [
        json!(null),
        json!([]),
        json!("call"),
        json!({}),
        json!({"id": 7, "function": 5}),
        json!({"function": {"name": 3, "arguments": "{}"}}),
        json!({"id": "c", "function": {"name": "get_weather"}}),
        openai_call("c", "get_weather", json!(5)),
        openai_call("c", "get_weather", json!(["Oslo"])),
        openai_call("c", "get_weather", json!("not json")),
        openai_call("c", "get_weather", json!("[1,2]")),
        openai_call("c", "get_weather", json!("")),
        openai_call("c", "nope", json!("{}")),
    ];
    for call in calls {
        let answer = answer_openai(&*WEATHER, &call);
        assert_eq!(answer["role"], "tool", "{call}");
        assert!(answer["tool_call_id"].is_string(), "{call}");
        let error = answer_content(&answer);
        assert!(error["error"].is_string() && error["message"].is_string(), "{call} -> {answer}");
    }
    let answer = answer_openai(&*WEATHER, &json!({"function": {"name": "get_weather"}}));
    assert_eq!(answer["tool_call_id"], "");
    assert_eq!(answer_content(&answer)["error"], "invalid_arguments");
    let answer = answer_openai(&*WEATHER, &openai_call("c", "get_weather", json!("not json")));
    assert_eq!(answer_content(&answer)["error"], "invalid_json");
    let answer = answer_openai(&*WEATHER, &openai_call("c", "nope", json!("{}")));
    assert_eq!(answer_content(&answer)["error"], "unknown_tool");
}

#[test]
fn answer_anthropic_marks_errors() {
    let block =
        json!({"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"}});
    let answer = answer_anthropic(&*WEATHER, &block);
    assert_eq!(answer["type"], "tool_result");
    assert_eq!(answer["tool_use_id"], "toolu_1");
    assert_eq!(answer_content(&answer), json!({"city": "Oslo", "days": 3, "temp": 21.5}));
    assert!(answer.get("is_error").is_none(), "no is_error on success: {answer}");
    let block = json!({"type": "tool_use", "id": "toolu_2", "name": "get_weather", "input": {"city": "Oslo", "days": "5"}});
    let answer = answer_anthropic(&*WEATHER, &block);
    assert_eq!(answer["is_error"], json!(true));
    assert_eq!(answer["content"], r#"days: expected an integer, got "5""#);
    let block = json!({"type": "tool_use", "id": "toolu_3", "name": "explode", "input": {"message": "x"}});
    let answer = answer_anthropic(&registry(), &block);
    assert_eq!(answer["is_error"], json!(true));
    assert_eq!(answer["content"], "tool panicked: x");
}

#[test]
fn answer_anthropic_survives_malformed_blocks() {
    let blocks = [
        json!(null),
        json!({}),
        json!({"id": 1, "name": 5}),
        json!({"id": "toolu", "name": "get_weather"}),
        json!({"id": "toolu", "name": "get_weather", "input": "{\"city\":\"Oslo\"}"}),
        json!({"id": "toolu", "name": "nope", "input": {}}),
    ];
    for block in blocks {
        let answer = answer_anthropic(&*WEATHER, &block);
        assert_eq!(answer["type"], "tool_result", "{block}");
        assert_eq!(answer["is_error"], json!(true), "{block}");
        assert!(answer["content"].as_str().is_some_and(|c| !c.is_empty()), "{block}");
    }
}

#[test]
fn result_messages() {
    let ok: Result<Value, ToolError> = Ok(json!({"a": [1, "two"]}));
    let err: Result<Value, ToolError> = Err(ToolError::Failed("boom".into()));
    assert_eq!(content(&ok), r#"{"a":[1,"two"]}"#);
    assert_eq!(content(&err), r#"{"error":"failed","detail":"boom","message":"tool failed: boom"}"#);
    assert_eq!(
        openai_tool_message("id", &ok),
        json!({"role": "tool", "tool_call_id": "id", "content": r#"{"a":[1,"two"]}"#})
    );
    assert_eq!(
        anthropic_tool_result("id", &err),
        json!({"type": "tool_result", "tool_use_id": "id", "content": "tool failed: boom", "is_error": true})
    );
    assert_eq!(content(&Ok(json!("plain"))), r#""plain""#);
}

#[test]
fn encode_helpers() {
    assert_eq!(encode(vec![1, 2]).unwrap(), json!([1, 2]));
    assert_eq!(encode_result::<u8, &str>(Err("nope")).unwrap_err(), ToolError::Failed("nope".into()));
    let bad: HashMap<Vec<u8>, u8> = HashMap::from([(vec![1], 1)]);
    assert!(matches!(encode(bad), Err(ToolError::Failed(m)) if m.starts_with("result could not be encoded")));
    assert_eq!(encode(f64::NAN).unwrap(), json!(null));
}

/// `names()` is an iterator that prints as the list of names, for a registry too.
#[test]
fn names_print_as_a_list() {
    let mut registry = toolcall_runtime::Registry::new();
    registry.add_tool(echo(Tool::new("b"))).unwrap();
    registry.add_tool(echo(Tool::new("a"))).unwrap();
    assert_eq!(format!("{:?}", registry.names()), r#"["b", "a"]"#);
    assert_eq!(registry.names().len(), 2);
    assert_eq!(registry.names().collect::<Vec<_>>(), ["b", "a"]);
}
