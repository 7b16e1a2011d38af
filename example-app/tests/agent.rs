//! `example-app agent` as a child process against a scripted model server on 127.0.0.1
//! (toolcall-agent's test server, speaking each provider's API): what it prints, what it
//! sent (the key from `OPENAI_API_KEY`, `ANTHROPIC_API_KEY` or `GEMINI_API_KEY`, the
//! model, the tools, the answers), streaming, and how it fails; and the app's tools in
//! the loop on `ScriptedModel`, without any server.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../toolcall-agent/tests/common/mod.rs"]
mod common;

use std::process::Output;

use common::{Server, answer, candidate, message, sse, status, text_block, tool_calls, tool_use};
use example_app::{App, toolset};
use serde_json::json;
use toolcall_agent::{Agent, Message, ModelResponse, ScriptedModel, ToolCall};
use toolcall_runtime::{Format, glue};

/// Runs `example-app agent ARGS..` with each provider's key variable set, to completion.
async fn agent(args: &[&str]) -> Output {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_example-app"))
        .arg("agent")
        .args(args)
        .env("OPENAI_API_KEY", "sk-from-env")
        .env("ANTHROPIC_API_KEY", "ant-from-env")
        .env("GEMINI_API_KEY", "gem-from-env")
        .output()
        .await
        .expect("example-app runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const WEATHER_ARGS: &str = r#"{"city":"Oslo"}"#;
const BAD_ADD_ARGS: &str = r#"{"a":"two","b":3}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prints_each_call_and_answer_then_the_answer() {
    let first = [("call_weather", "get_weather", WEATHER_ARGS), ("call_add", "add", BAD_ADD_ARGS)];
    let server = Server::start(vec![tool_calls(&first), answer("Oslo: 21.5 degrees.")]).await;
    let out = agent(&["Weather in Oslo?", "--base-url", &server.base_url, "--model", "local-model"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));

    let bad_add = glue::content(&toolset::ALL.call_json(&App::demo(), "add", BAD_ADD_ARGS).await);
    assert!(bad_add.contains("invalid_argument"), "{bad_add}");
    let expected = [
        format!("-> call_weather get_weather {WEATHER_ARGS}"),
        format!("-> call_add add {BAD_ADD_ARGS}"),
        r#"<- call_weather {"city":"Oslo","days":3,"temp":21.5}"#.to_owned(),
        format!("<- call_add {bad_add}"),
        "Oslo: 21.5 degrees.".to_owned(),
    ];
    assert_eq!(text(&out.stdout).lines().collect::<Vec<_>>(), expected);

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    for request in &requests {
        assert_eq!(request.authorization.as_deref(), Some("Bearer sk-from-env"));
        assert_eq!(request.body["model"], "local-model");
        assert_eq!(request.body["tools"], toolset::ALL.emit_value(Format::OpenAi, false));
    }
    assert_eq!(
        requests[1].body["messages"][3],
        json!({"role": "tool", "tool_call_id": "call_add", "content": bad_add})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strict_sends_the_strict_definitions() {
    let server = Server::start(vec![answer("hi")]).await;
    let out = agent(&["hello", "--base-url", &server.base_url, "--strict"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "hi\n");
    let request = &server.requests()[0].body;
    assert_eq!(request["tools"], toolset::ALL.emit_value(Format::OpenAi, true));
    assert_eq!(request["model"], toolcall_agent::DEFAULT_MODEL);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failures_are_one_error_line_and_exit_1() {
    let server = Server::start(vec![status(503, "overloaded")]).await;
    let cases = [
        (vec!["hi", "--base-url", &server.base_url], "error: the endpoint answered HTTP 503: overloaded\n"),
        (vec!["hi", "--base-url", "nowhere"], "error: bad setting: base URL `nowhere` is not a URL"),
    ];
    for (args, stderr) in cases {
        let out = agent(&args).await;
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(text(&out.stderr).starts_with(stderr), "{args:?}: {}", text(&out.stderr));
        assert!(!text(&out.stderr).contains("panicked"));
        assert!(out.stdout.is_empty());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_turn_limit_is_an_error_after_printing_the_calls() {
    let server = Server::start(vec![tool_calls(&[("call_1", "add", r#"{"a":1,"b":2}"#)])]).await;
    let out = agent(&["loop", "--base-url", &server.base_url, "--max-turns", "2"]).await;
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "-> call_1 add {\"a\":1,\"b\":2}\n<- call_1 3\n");
    assert_eq!(text(&out.stderr), "error: no answer within 2 turn(s): the model was still calling tools\n");
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_requests_and_max_tool_calls_end_the_run_with_what_it_used() {
    let calls = [("c1", "add", r#"{"a":1,"b":2}"#), ("c2", "add", r#"{"a":3,"b":4}"#)];
    let server = Server::start(vec![tool_calls(&calls[..1]), tool_calls(&calls), answer("done")]).await;
    let out = agent(&["add", "--base-url", &server.base_url, "--max-requests", "1"]).await;
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "error: the run passed its limit of 1 request(s); it used 1 request(s), 1 tool call(s), 10 input and 5 output token(s)\n"
    );
    assert_eq!(server.requests().len(), 1, "a second request was never sent");

    let server = Server::start(vec![tool_calls(&calls[..1]), tool_calls(&calls), answer("done")]).await;
    let out = agent(&["add", "--base-url", &server.base_url, "--max-tool-calls", "2"]).await;
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).starts_with(
            "error: the run passed its limit of 2 tool call(s); it used 2 request(s), 1 tool call(s)"
        ),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        text(&out.stdout).lines().filter(|l| l.starts_with("->")).count(),
        1,
        "the second reply's calls did not run"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_command_lines_are_usage_errors() {
    for args in [
        vec!["hi"],
        vec!["hi", "--base-url", "http://127.0.0.1:1/v1", "--max-turns", "0"],
        vec!["hi", "--base-url", "http://127.0.0.1:1/v1", "--provider", "mistral"],
    ] {
        let out = agent(&args).await;
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(text(&out.stderr).contains("error:"), "{args:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn help_lists_the_command_and_its_options() {
    let top =
        tokio::process::Command::new(env!("CARGO_BIN_EXE_example-app")).arg("--help").output().await.unwrap();
    assert!(
        text(&top.stdout).lines().any(|line| line.trim_start().starts_with("agent")),
        "{}",
        text(&top.stdout)
    );
    let help = agent(&["--help"]).await;
    assert_eq!(help.status.code(), Some(0));
    let help = text(&help.stdout);
    for option in [
        "Usage: example-app agent [OPTIONS] --base-url <URL> <PROMPT>",
        "--provider <P>",
        "--model <M>",
        "--max-turns <N>",
        "--strict",
        "--stream",
        "-y, --yes",
        "--mcp <CMD_OR_URL>",
        "--max-requests <N>",
        "--max-tool-calls <N>",
    ] {
        assert!(help.contains(option), "lacks {option}:\n{help}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anthropic_gets_its_key_its_tools_and_tool_result_blocks() {
    let first = message(vec![tool_use("toolu_1", "add", json!({"a": 1, "b": 2}))], 10, 5);
    let server = Server::start(vec![first, message(vec![text_block("3")], 10, 5)]).await;
    let out = agent(&["add", "--provider", "anthropic", "--base-url", &server.base_url]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "-> toolu_1 add {\"a\":1,\"b\":2}\n<- toolu_1 3\n3\n");
    let requests = server.requests();
    assert_eq!(requests[0].path, "/v1/messages");
    assert_eq!(requests[0].header("x-api-key"), Some("ant-from-env"));
    assert_eq!(requests[0].body["model"], "claude-sonnet-5");
    assert_eq!(requests[0].body["tools"], toolset::ALL.emit_value(Format::Anthropic, false));
    assert_eq!(
        requests[1].body["messages"][2],
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "3"}]})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_and_responses_take_their_own_paths_and_keys() {
    let server = Server::start(vec![candidate(vec![json!({"text": "hi"})], 1, 1)]).await;
    let out =
        agent(&["hello", "--provider", "gemini", "--base-url", &server.gemini_url, "--model", "g"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "hi\n");
    let request = &server.requests()[0];
    assert_eq!(request.path, "/v1beta/models/g:generateContent");
    assert_eq!(request.header("x-goog-api-key"), Some("gem-from-env"));
    assert_eq!(
        request.body["tools"][0]["functionDeclarations"],
        toolset::ALL.emit_value(Format::Gemini, false)
    );

    let reply = common::response(vec![common::output_message("hi")], 1, 1);
    let server = Server::start(vec![reply]).await;
    let out = agent(&["hello", "--provider", "responses", "--base-url", &server.base_url, "--strict"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let request = &server.requests()[0];
    assert_eq!(request.path, "/v1/responses");
    assert_eq!(request.authorization.as_deref(), Some("Bearer sk-from-env"));
    assert_eq!(request.body["tools"], toolset::ALL.emit_value(Format::OpenAiResponses, true));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stream_prints_the_text_as_it_arrives() {
    let start = json!({"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant", "content": [], "model": "m", "usage": {"input_tokens": 1, "output_tokens": 1}}});
    let reply = sse(&[
        (Some("message_start"), start),
        (
            Some("content_block_start"),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        (
            Some("content_block_delta"),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hello "}}),
        ),
        (
            Some("content_block_delta"),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "there."}}),
        ),
        (Some("message_stop"), json!({"type": "message_stop"})),
    ]);
    let server = Server::start(vec![reply]).await;
    let out = agent(&["hi", "--provider", "anthropic", "--base-url", &server.base_url, "--stream"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "Hello there.\n");
    assert_eq!(server.requests()[0].body["stream"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_key_in_the_environment_sends_no_key_header() {
    let server = Server::start(vec![answer("hi")]).await;
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_example-app"))
        .args(["agent", "hi", "--base-url", &server.base_url])
        .env("OPENAI_API_KEY", "")
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(server.requests()[0].authorization, None);
}

#[tokio::test]
async fn the_apps_tools_run_on_a_scripted_model_without_a_server() {
    let model = ScriptedModel::new([
        ModelResponse::calls([
            ToolCall::new("c1", "get_weather", r#"{"city":"Oslo"}"#),
            ToolCall::new("c2", "whoami", "{}"),
        ]),
        ModelResponse::text("Ada, Oslo is 21.5 degrees."),
    ]);
    let agent = Agent::with_model(&toolset::ALL, App::demo(), model.clone());
    let outcome = agent.run("weather for me?", |_| {}).await.unwrap();
    assert_eq!(outcome.answer, "Ada, Oslo is 21.5 degrees.");
    let Message::Tool { results } = &model.requests()[1].messages[2] else { panic!("no answers") };
    assert_eq!(results[0].content, r#"{"city":"Oslo","days":3,"temp":21.5}"#);
    assert!(results[1].content.contains("Ada"), "{}", results[1].content);
    assert!(!results[0].is_error && !results[1].is_error);
}

const DECLINED: &str =
    r#"{"error":"declined","message":"the user declined to run `remove_note`; it was not run"}"#;

/// A model that removes Ada's note 1, then lists her notes, then answers; what
/// `example-app agent ARGS..` (stdin not a terminal) printed, and what the model was sent.
async fn remove_then_list(args: &[&str]) -> (Output, Vec<common::Recorded>) {
    let server = Server::start(vec![
        tool_calls(&[("call_rm", "remove_note", r#"{"id":1}"#)]),
        tool_calls(&[("call_ls", "list_notes", "{}")]),
        answer("done"),
    ])
    .await;
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_example-app"));
    command.args(["agent", "tidy up", "--base-url", &server.base_url]).args(args);
    let out = command.stdin(std::process::Stdio::null()).output().await.expect("example-app runs");
    assert!(out.status.success(), "{}", text(&out.stderr));
    (out, server.requests())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_terminal_and_without_yes_a_destructive_call_is_declined() {
    let (out, requests) = remove_then_list(&[]).await;
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[..2], [r#"-> call_rm remove_note {"id":1}"#, &format!("<- call_rm {DECLINED}")]);
    assert_eq!(
        requests[1].body["messages"][2],
        json!({"role": "tool", "tool_call_id": "call_rm", "content": DECLINED})
    );
    // Not run: both of Ada's notes are still there.
    let listed = requests[2].body["messages"][4]["content"].as_str().unwrap().to_owned();
    assert!(listed.contains("buy oat milk") && listed.contains("plumber"), "{listed}");
    assert!(!text(&out.stderr).contains("[y/N]"), "nobody is asked: {}", text(&out.stderr));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn yes_approves_every_destructive_call() {
    for yes in ["--yes", "-y"] {
        let (out, requests) = remove_then_list(&[yes]).await;
        let removed = r#"{"id":1,"owner":1,"text":"buy oat milk"}"#;
        assert!(text(&out.stdout).contains(&format!("<- call_rm {removed}\n")), "{}", text(&out.stdout));
        assert_eq!(requests[1].body["messages"][2]["content"], removed);
        let listed = requests[2].body["messages"][4]["content"].as_str().unwrap().to_owned();
        assert!(!listed.contains("buy oat milk") && listed.contains("plumber"), "{yes}: {listed}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_and_log_messages_go_to_stderr() {
    let call = [("call_x", "export_notes", "{}")];
    let server = Server::start(vec![tool_calls(&call), answer("exported")]).await;
    let out = agent(&["export my notes", "--base-url", &server.base_url]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stderr).lines().collect::<Vec<_>>(),
        [
            ".. call_x export_notes info: exporting the notes of user 1",
            ".. call_x export_notes 1/2 note 1",
            ".. call_x export_notes 2/2 note 2",
            ".. call_x export_notes info: exported 2 notes",
        ]
    );
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with(
            "-> call_x export_notes {}\n<- call_x [resource <notes://user/1/export.md>]\n# Ada's notes\n"
        ),
        "{stdout}"
    );
    assert!(!stdout.contains(".. call_x"), "{stdout}");
    let sent = requests_content(&server.requests()[1].body["messages"][2]);
    assert!(sent.contains("## Note 1\n\nbuy oat milk"), "{sent}");
}

/// The text of a `role: tool` message.
fn requests_content(message: &serde_json::Value) -> String {
    message["content"].as_str().unwrap_or_default().to_owned()
}
