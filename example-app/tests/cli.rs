//! The command line, run as a process: `call` through the generated dispatcher with its
//! exit codes, `schema` for every format, usage errors in clap's style (exit 2), `--help`
//! on every command, `--version`, a closed pipe, and the demo.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::ffi::OsStr;
use std::process::{Command, Output, Stdio};

use example_app::toolset;
use serde_json::{Value, json};
use toolcall_runtime::Format;

fn example_app<S: AsRef<OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_example-app")).args(args).output().expect("run example-app")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("stderr is UTF-8")
}

/// Runs `call NAME ARGS`, expecting a tool error: returns the JSON object on stdout and
/// the message on stderr.
fn call_error(name: &str, args: &str) -> (Value, String) {
    let output = example_app(&["call", name, args]);
    assert_eq!(output.status.code(), Some(1), "{name} {args}: {output:?}");
    let error: Value = serde_json::from_str(&stdout(&output)).expect("the error object on stdout");
    (error, stderr(&output))
}

#[test]
fn call_prints_the_result_and_exits_0() {
    let output = example_app(&["call", "get_weather", r#"{"city":"Oslo"}"#]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let result: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(result, json!({"city": "Oslo", "days": 3, "temp": 21.5}));
    assert_eq!(stdout(&output), "{\"city\":\"Oslo\",\"days\":3,\"temp\":21.5}\n");
    assert!(output.stderr.is_empty());
}

#[test]
fn call_with_a_fraction_names_days_and_wants_an_integer() {
    let (error, message) = call_error("get_weather", r#"{"city":"Oslo","days":1.5}"#);
    assert!(message.contains("days") && message.contains("expected an integer"), "{message}");
    assert_eq!(error["error"], json!("invalid_argument"));
    assert_eq!(error["name"], json!("days"));
    assert_eq!(error["reason"], json!({"kind": "expected_integer", "value": 1.5}));
}

#[test]
fn call_reports_every_row_of_the_contract() {
    let rows = [
        ("get_weather", r#"{}"#, "missing_argument", "city: missing required argument"),
        ("get_weather", r#"{"days":5}"#, "missing_argument", "city: missing"),
        (
            "get_weather",
            r#"{"city":"Oslo","days":"5"}"#,
            "invalid_argument",
            r#"days: expected an integer, got "5""#,
        ),
        ("get_weather", r#"{"city":"Oslo","c":1}"#, "unknown_arguments", r#"unknown argument "c""#),
        ("get_weather", "[1,2]", "invalid_arguments", "must be a JSON object"),
        ("get_weather", r#""x""#, "invalid_arguments", "must be a JSON object"),
        ("get_weather", "3", "invalid_arguments", "must be a JSON object"),
        ("get_weather", r#"{"city":"#, "invalid_json", "not valid JSON"),
        ("get_weather", r#"{"city":"\ud800"}"#, "invalid_json", "not valid JSON"),
        ("get_wether", "{}", "unknown_tool", "known tools: transfer, price"),
        ("divide", r#"{"a":1,"b":0}"#, "failed", "b must not be zero"),
        ("explode", "{}", "panicked", "explode always panics"),
        (
            "check_address",
            r#"{"address":{"street":"x","zip":"1"}}"#,
            "invalid_argument",
            "address.zip: expected an integer",
        ),
        (
            "price",
            r#"{"amount":"12.5"}"#,
            "invalid_argument",
            "amount: \"12.5\" is not an amount with two decimals",
        ),
        // A model that contradicts itself is told so, not answered with the last value.
        ("add", r#"{"a":1,"a":2,"b":3}"#, "invalid_argument", "a: given more than once"),
        ("add", r#"{"a":1,"b":2,"\u0061":5}"#, "invalid_argument", "a: given more than once"),
        ("add", r#"{"A":1,"b":2}"#, "several", r#"unknown argument "A" (did you mean "a"?)"#),
        ("add", r#"{"A":1,"b":2}"#, "several", "a: missing required argument"),
        ("get_wether", "{}", "unknown_tool", r#"(did you mean "get_weather"?)"#),
        (
            "add",
            "{}",
            "several",
            "2 mistakes in the arguments:\n- a: missing required argument\n- b: missing",
        ),
    ];
    for (name, args, kind, message) in rows {
        let (error, stderr) = call_error(name, args);
        assert_eq!(error["error"], json!(kind), "{name} {args}: {error}");
        assert!(stderr.contains(message), "{name} {args}: {stderr}");
        assert_eq!(error["message"].as_str().map(|m| stderr.contains(m)), Some(true), "{stderr}");
    }
}

#[test]
fn call_null_for_days_applies_the_default() {
    let output = example_app(&["call", "get_weather", r#"{"city":"Oslo","days":null}"#]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(serde_json::from_str::<Value>(&stdout(&output)).unwrap()["days"], json!(3));
}

#[cfg(unix)]
#[test]
fn call_with_bytes_that_are_not_utf8_is_invalid_json() {
    use std::os::unix::ffi::OsStrExt;
    let args = [OsStr::new("call"), OsStr::new("get_weather"), OsStr::from_bytes(b"{\"city\":\"Osl\xff\"}")];
    let output = example_app(&args);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let error: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(error["error"], json!("invalid_json"));
}

#[test]
fn schema_prints_every_format_and_exits_0() {
    for format in Format::ALL {
        for strict in [false, true] {
            let mut args = vec!["schema", "--format", format.as_str()];
            if strict {
                args.push("--strict");
            }
            let output = example_app(&args);
            assert_eq!(output.status.code(), Some(0), "{args:?}: {output:?}");
            assert_eq!(stdout(&output), format!("{}\n", toolset::ALL.emit(format, strict)), "{args:?}");
        }
    }
    let default = example_app(&["schema"]);
    assert_eq!(stdout(&default), format!("{}\n", toolset::ALL.emit(Format::OpenAi, false)));
}

#[test]
fn bad_command_lines_print_an_error_to_stderr_and_exit_2() {
    let lines: [(&[&str], &str); 8] = [
        (&["schema", "--format", "bard"], "error: invalid value 'bard' for '--format <FORMAT>'"),
        (&["schema", "--format"], "error: a value is required for '--format <FORMAT>'"),
        (&["schema", "--pretty"], "error: unexpected argument '--pretty' found"),
        (&["call", "get_weather"], "error: the following required arguments were not provided:"),
        (&["call", "get_weather", "{}", "extra"], "error: unexpected argument 'extra' found"),
        (&["serve", "--http", "nowhere"], "error: invalid value 'nowhere' for '--http <ADDR>'"),
        (&["serve", "--stdio"], "error: unexpected argument '--stdio' found"),
        (&["frobnicate"], "error: unrecognized subcommand 'frobnicate'"),
    ];
    for (args, message) in lines {
        let output = example_app(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {output:?}");
        assert!(output.stdout.is_empty(), "{args:?}");
        let stderr = stderr(&output);
        assert!(stderr.starts_with(message), "{args:?}: {stderr}");
        assert!(stderr.ends_with("For more information, try '--help'.\n"), "{args:?}: {stderr}");
    }
    let missing = stderr(&example_app(&["call", "get_weather"]));
    assert!(
        missing.contains("<JSON>") && missing.contains("Usage: example-app call <NAME> <JSON>"),
        "{missing}"
    );
}

#[test]
fn help_lists_the_commands() {
    for args in [&["--help"][..], &["-h"], &["help"]] {
        let output = example_app(args);
        assert_eq!(output.status.code(), Some(0), "{args:?}");
        let help = stdout(&output);
        assert!(help.contains("Usage: example-app [OPTIONS] [COMMAND]"), "{help}");
        for command in ["demo", "schema", "call", "serve", "help"] {
            assert!(help.lines().any(|l| l.trim_start().starts_with(command)), "{command}: {help}");
        }
        assert!(help.contains("--version") && help.contains("--db <PATH|URL>"), "{help}");
    }
}

#[test]
fn help_on_each_command_lists_its_options() {
    let commands: [(&str, &[&str]); 4] = [
        ("demo", &["Usage: example-app demo", "--db <PATH|URL>"]),
        (
            "schema",
            &["Usage: example-app schema [OPTIONS]", "--format <FORMAT>", "--strict", "responses, gemini"],
        ),
        ("call", &["Usage: example-app call [OPTIONS] <NAME> <JSON>", "<NAME>", "<JSON>", "--db <PATH|URL>"]),
        ("serve", &["Usage: example-app serve [OPTIONS]", "--http <ADDR>", "--db <PATH|URL>"]),
    ];
    for (command, expected) in commands {
        for help in [vec![command, "--help"], vec![command, "-h"], vec!["help", command]] {
            let output = example_app(&help);
            assert_eq!(output.status.code(), Some(0), "{help:?}");
            let text = stdout(&output);
            for line in expected.iter().chain(&["-h, --help"]) {
                assert!(text.contains(line), "{help:?} lacks {line}:\n{text}");
            }
        }
    }
}

#[test]
fn version_is_the_package_version() {
    for flag in ["--version", "-V"] {
        let output = example_app(&[flag]);
        assert_eq!(output.status.code(), Some(0));
        assert_eq!(stdout(&output), format!("example-app {}\n", env!("CARGO_PKG_VERSION")));
    }
}

#[test]
fn schema_into_a_closed_pipe_ends_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_example-app"))
        .args(["schema", "--format", "mcp"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(output.stderr.is_empty(), "{}", stderr(&output));
}

#[test]
fn demo_is_also_a_command() {
    let output = example_app(&["demo"]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(stdout(&output).contains("answered 3 calls concurrently in"));
}

/// The JSON after `prefix` on each line of the demo that starts with it.
fn answers(demo: &str, prefix: &str) -> Vec<Value> {
    demo.lines()
        .filter_map(|line| line.strip_prefix(prefix))
        .map(|json| serde_json::from_str(json.trim()).unwrap())
        .collect()
}

#[test]
fn the_demo_answers_the_seeds_calls_for_both_providers() {
    let output = example_app::<&str>(&[]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let demo = stdout(&output);
    assert!(demo.contains(&toolcall_runtime::json::pretty(toolset::ALL.emit(Format::OpenAi, true))));
    // The strict schema it prints leaves `restock`'s open map unusable: the demo says so.
    let notes: Vec<&str> = demo.lines().filter(|l| l.starts_with("note: in strict mode")).collect();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].contains("`restock`'s `counts` (an open map) can only be {}"), "{notes:?}");
    for format in ["openai", "anthropic", "mcp"] {
        assert_eq!(
            demo.lines().filter(|l| l.starts_with(format) && l.ends_with(" bytes")).count(),
            2,
            "{format}"
        );
    }
    let openai = answers(&demo, "OpenAI:");
    let ids: Vec<&Value> = openai.iter().map(|m| &m["tool_call_id"]).collect();
    let expected = ["call_1", "call_2", "call_3", "call_a", "call_b", "call_c"].map(|id| json!(id));
    assert_eq!(ids, expected.iter().collect::<Vec<_>>());
    assert!(openai.iter().all(|m| m["role"] == json!("tool")));
    // The concurrent message: the signed-in user's notes only, a new note owned by them,
    // and who they are.
    let notes: Value = serde_json::from_str(openai[3]["content"].as_str().unwrap()).unwrap();
    assert!(!notes.as_array().unwrap().is_empty());
    assert!(notes.as_array().unwrap().iter().all(|n| n["owner"] == 1), "{notes}");
    assert!(!demo.contains("launch codes"), "another user's note leaked:\n{demo}");
    let added: Value = serde_json::from_str(openai[4]["content"].as_str().unwrap()).unwrap();
    assert_eq!((&added["owner"], &added["text"]), (&json!(1), &json!("water the plants")));
    assert_eq!(openai[5]["content"], json!(r#"{"id":1,"name":"Ada"}"#));
    assert!(demo.contains("answered 3 calls concurrently in"), "{demo}");
    assert_eq!(openai[0]["content"], json!(r#"{"city":"Oslo","days":5,"temp":21.5}"#));
    let anthropic = answers(&demo, "Anthropic:");
    let errors: Vec<&Value> = anthropic.iter().map(|b| &b["is_error"]).collect();
    assert_eq!(errors, [&Value::Null, &json!(true), &json!(true)]);
    assert_eq!(anthropic[1]["content"], json!(r#"days: expected an integer, got "5""#));
    assert_eq!(anthropic[2]["content"], json!(r#"unknown argument "c""#));
}
