//! `example-app agent --tool-search` as a child process against the scripted model server
//! (toolcall-agent's loopback fakes): the model is sent `whoami` and a search tool, its
//! search is answered from the app's compiled index and printed as a call and its answer,
//! and the tool it found runs. And a reply the agent cannot use (a Responses
//! `tool_search_call` it did not ask for) is an error line and exit status 1, not an
//! empty answer and exit 0 (issue 63, point 6).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../toolcall-agent/tests/common/mod.rs"]
mod common;

use std::process::Output;

use common::{Server, answer, response, tool_calls};
use example_app::toolset;
use serde_json::{Value, json};
use toolcall_runtime::Format;

async fn agent(args: &[&str]) -> Output {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_example-app"))
        .arg("agent")
        .args(args)
        .env_remove("OPENAI_API_KEY")
        .output()
        .await
        .expect("example-app runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const QUERY: &str = r#"{"query":"weather forecast for a city"}"#;
const WEATHER_ARGS: &str = r#"{"city":"Oslo"}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_search_sends_whoami_and_a_search_tool_and_runs_what_it_finds() {
    let replies = vec![
        tool_calls(&[("call_search", "search_tools", QUERY)]),
        tool_calls(&[("call_weather", "get_weather", WEATHER_ARGS)]),
        answer("Rain in Oslo."),
    ];
    let server = Server::start(replies).await;
    let out = agent(&["Rain in Oslo?", "--base-url", &server.base_url, "--tool-search"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], format!("-> call_search search_tools {QUERY}"));
    let found: Value = serde_json::from_str(lines[1].strip_prefix("<- call_search ").unwrap()).unwrap();
    assert_eq!(found["tools"][0]["name"], "get_weather", "{found}");
    assert_eq!(lines[2], format!("-> call_weather get_weather {WEATHER_ARGS}"));
    assert!(lines[3].starts_with("<- call_weather {\"city\":\"Oslo\""), "{stdout}");
    assert_eq!(lines[4], "Rain in Oslo.");

    let requests = server.requests();
    let names = |n: usize| -> Vec<String> {
        let tools = requests[n].body["tools"].as_array().unwrap();
        tools.iter().map(|tool| tool["function"]["name"].as_str().unwrap().to_owned()).collect()
    };
    assert_eq!(names(0), ["whoami", "search_tools"]);
    let all = toolset::ALL.emit_value(Format::OpenAi, false);
    let whoami = all.as_array().unwrap().iter().find(|tool| tool["function"]["name"] == "whoami").unwrap();
    assert_eq!(&requests[0].body["tools"][0], whoami, "the always-visible tool, as emitted");
    assert!(names(1).contains(&"get_weather".to_owned()), "the found tool is sent from then on");
    assert_eq!(names(2), names(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_search_on_responses_defers_the_tools_in_their_modules_namespaces() {
    let search = json!({"type": "tool_search_call", "id": "tsc_1", "call_id": "call_search", "execution": "client",
        "arguments": {"query": "weather forecast for a city"}, "status": "completed"});
    let call = json!({"type": "function_call", "id": "fc_1", "call_id": "call_weather", "name": "get_weather",
        "namespace": "weather", "arguments": WEATHER_ARGS, "status": "completed"});
    let replies = vec![
        response(vec![search], 1, 1),
        response(vec![call], 1, 1),
        response(vec![common::output_message("Rain.")], 1, 1),
    ];
    let server = Server::start(replies).await;
    let out =
        agent(&["Rain?", "--provider", "responses", "--base-url", &server.base_url, "--tool-search"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).ends_with("Rain.\n"), "{}", text(&out.stdout));
    let requests = server.requests();
    let tools = requests[0].body["tools"].as_array().unwrap();
    assert_eq!(tools[0]["name"], "whoami");
    assert_eq!(tools.last().unwrap()["type"], "tool_search");
    assert!(tools.iter().any(|tool| tool["type"] == "namespace" && tool["name"] == "weather"));
    let output = requests[1].body["input"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(output["type"], "tool_search_output");
    assert_eq!(output["tools"][0]["tools"][0]["name"], "get_weather");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_holding_only_a_tool_search_call_is_an_error_and_exit_1() {
    let search = json!({"type": "tool_search_call", "id": "tsc_1", "call_id": "call_search", "execution": "client",
        "arguments": {"query": "weather"}, "status": "completed"});
    let server = Server::start(vec![response(vec![search], 1, 1)]).await;
    let out = agent(&["Rain?", "--provider", "responses", "--base-url", &server.base_url]).await;
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "");
    assert_eq!(
        text(&out.stderr),
        "error: the model's reply held only a `tool_search_call` item, which this agent did not ask for (the model stopped: completed)\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn help_lists_tool_search() {
    let help = agent(&["--help"]).await;
    assert_eq!(help.status.code(), Some(0));
    assert!(text(&help.stdout).contains("--tool-search"), "{}", text(&help.stdout));
}
