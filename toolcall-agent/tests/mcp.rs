//! MCP servers as toolsets (the `mcp` feature), against a server written with another
//! SDK: the official Python SDK's MCPServer (`tests/servers/py_server.py`), over stdio
//! and streamable HTTP, with the agent's model on the loopback fakes of each provider.
//! Its tools are listed page by page, prefixed, filtered, rendered by toolcall's renderer
//! under the strict rules of compiled tools, called, and answered as compiled tools are.
//!
//! The Python SDK is what `scripts/install-clients` installs; without it the tests say
//! SKIPPED, and in CI (`CI` set) they fail instead.

#![cfg(feature = "mcp")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{Reply, Server, provider_calls, provider_text};
use example_app::{App, toolset};
use serde_json::Value;
use tokio::io::AsyncBufReadExt;
use toolcall_agent::{Agent, AgentError, Event, McpTools, McpToolset, Outcome, Provider};
use toolcall_runtime::ir::{Param, Tool, Type};
use toolcall_runtime::render::render_tool;

/// The Python interpreter `scripts/install-clients` made (with the `mcp` package);
/// `None` when it is not there, which fails in CI.
fn python() -> Option<PathBuf> {
    let dir = std::env::var_os("TOOLCALL_CLIENTS_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".cache/toolcall-ci")))?;
    let python = dir.join("py/bin/python");
    if python.is_file() {
        return Some(python);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "the official Python MCP SDK is not in {}: run scripts/install-clients",
        dir.display()
    );
    eprintln!(
        "SKIPPED: the official Python MCP SDK is not in {}: run scripts/install-clients",
        dir.display()
    );
    None
}

fn script() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/servers/py_server.py").display().to_string()
}

/// The Python server over stdio, its tools offered as `py_*`.
async fn stdio(python: &Path) -> McpTools {
    McpToolset::command(python.display().to_string(), [script(), "stdio".to_owned()])
        .prefix("py")
        .quiet()
        .connect()
        .await
        .expect("the Python server starts and lists its tools")
}

/// The Python server on streamable HTTP, stopped when dropped.
struct Http {
    _child: tokio::process::Child,
    url: String,
}

async fn http(python: &Path, token: Option<&str>) -> Http {
    let mut command = tokio::process::Command::new(python);
    command.arg(script()).arg("http").args(token).kill_on_drop(true);
    command.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::null());
    let mut child = command.spawn().expect("python runs");
    let stdout = child.stdout.take().expect("its stdout");
    let mut lines = tokio::io::BufReader::new(stdout).lines();
    let first = tokio::time::timeout(Duration::from_secs(30), lines.next_line()).await;
    let line = first.expect("the server says its port").unwrap().expect("a line");
    let port = line.strip_prefix("PORT ").expect("PORT n").trim().to_owned();
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    Http { _child: child, url: format!("http://127.0.0.1:{port}/mcp") }
}

fn agent(provider: Provider, server: &Server, tools: &McpTools) -> Agent<App> {
    Agent::for_provider(&toolset::ALL, App::demo(), provider, server.url_for(provider))
        .api_key(Some("k-test".to_owned()))
        .model("m")
        .mcp(tools.clone())
}

/// An event, owned.
#[derive(Clone, Debug, PartialEq)]
enum Seen {
    Call(String, String),
    Result(String, String),
    Progress(String, u64, Option<u64>, String),
}

async fn run(agent: &Agent<App>) -> (Result<Outcome, AgentError>, Vec<Seen>) {
    let mut seen = Vec::new();
    let outcome = agent
        .run("Go.", |event| match event {
            Event::ToolCall { name, arguments, .. } => seen.push(Seen::Call(name.into(), arguments.into())),
            Event::ToolResult { name, content, .. } => seen.push(Seen::Result(name.into(), content.into())),
            Event::Progress { name, done, total, message, .. } => {
                seen.push(Seen::Progress(name.into(), done, total, message.into()))
            }
            _ => {}
        })
        .await;
    (outcome, seen)
}

fn results(seen: &[Seen]) -> Vec<(String, String)> {
    seen.iter()
        .filter_map(|s| match s {
            Seen::Result(name, content) => Some((name.clone(), content.clone())),
            _ => None,
        })
        .collect()
}

/// The definitions a request carried, in the provider's shape, as a list.
fn definitions(provider: Provider, body: &Value) -> Vec<Value> {
    let tools = match provider {
        Provider::Gemini => &body["tools"][0]["functionDeclarations"],
        _ => &body["tools"],
    };
    tools.as_array().cloned().unwrap_or_default()
}

fn name_of(definition: &Value) -> &str {
    definition["name"].as_str().or_else(|| definition["function"]["name"].as_str()).unwrap_or_default()
}

/// `forecast` as toolcall's IR would say it by hand: what its pydantic schema reads as.
fn forecast_ir() -> Tool {
    Tool::new("py_forecast")
        .description("The forecast for a city.")
        .param(Param::new("city", Type::string()))
        .param(Param::new("days", Type::integer_between(1, 7)).description("how many days").default(1))
}

const PY_TOOLS: [&str; 8] =
    ["py_forecast", "py_echo", "py_pixel", "py_wipe", "py_slow", "py_grow", "py_tally", "py_calls"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_are_listed_page_by_page_prefixed_and_checked_for_strict_mode() {
    let Some(python) = python() else { return };
    let tools = stdio(&python).await;
    assert_eq!(tools.server_name(), "weather-py");
    let listed = tools.tools();
    // Two per page: four pages.
    assert_eq!(listed.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), PY_TOOLS);
    assert_eq!(listed[0].server_name, "forecast");
    assert!(listed[0].read_only && !listed[0].destructive);
    assert!(listed[3].destructive, "wipe is annotated destructive");
    let tally = &listed[6];
    assert_eq!(tally.not_strict, ["`counts` is an object with open keys"]);
    assert!(listed.iter().filter(|t| t.name != "py_tally").all(|t| t.not_strict.is_empty()), "{listed:?}");
    let warnings = tools.warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("tool `py_tally` is sent non-strict: `counts` is an object with open keys"));

    let only = McpToolset::command(python.display().to_string(), [script(), "stdio".to_owned()])
        .quiet()
        .only(["echo", "calls"])
        .connect()
        .await
        .unwrap();
    assert_eq!(only.tools().iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["echo", "calls"]);
    let unread = McpToolset::command(python.display().to_string(), [script(), "stdio".to_owned()])
        .quiet()
        .filter(|tool| !tool.read_only && !tool.destructive)
        .connect()
        .await
        .unwrap();
    assert!(!unread.tools().iter().any(|t| t.name == "forecast" || t.name == "wipe"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_provider_sends_mcp_tools_after_the_compiled_ones_and_hands_back_their_answers() {
    let Some(python) = python() else { return };
    let tools = stdio(&python).await;
    for provider in Provider::ALL {
        let first = [
            ("c1", "py_forecast", r#"{"city":"Oslo"}"#),
            ("c2", "py_echo", r#"{"text":5}"#),
            ("c3", "py_forecast", r#"{"city":"Atlantis"}"#),
            ("c4", "py_echo", r#"{"text":"hi","times":null}"#),
        ];
        let server =
            Server::start(vec![provider_calls(provider, &first), provider_text(provider, "done")]).await;
        let (outcome, seen) = run(&agent(provider, &server, &tools)).await;
        let outcome = outcome.unwrap_or_else(|e| panic!("{provider}: {e}"));
        assert_eq!(outcome.answer, "done", "{provider}");

        let requests = server.requests();
        let sent = definitions(provider, &requests[0].body);
        let compiled = toolset::ALL.emit_value(provider.format(), false);
        let compiled = compiled.as_array().unwrap();
        assert_eq!(
            &sent[..compiled.len()],
            compiled.as_slice(),
            "{provider}: the compiled tools first, as emitted"
        );
        let names: Vec<&str> = sent[compiled.len()..].iter().map(name_of).collect();
        assert_eq!(names, PY_TOOLS, "{provider}");
        let rendered: Value =
            serde_json::from_str(&render_tool(&forecast_ir(), provider.format(), false)).unwrap();
        assert_eq!(sent[compiled.len()], rendered, "{provider}: forecast through toolcall's renderer");

        let results = results(&seen);
        assert_eq!(
            results[0],
            ("py_forecast".into(), r#"{"city":"Oslo","temp_c":21.5,"days":1}"#.into()),
            "{provider}"
        );
        let refused: Value = serde_json::from_str(&results[1].1).unwrap();
        assert_eq!(refused["error"], "invalid_argument", "{provider}: checked before it is sent: {refused}");
        let failed: Value = serde_json::from_str(&results[2].1).unwrap();
        assert_eq!(failed["error"], "failed", "{provider}: {failed}");
        assert!(results[2].1.contains("no weather station in Atlantis"), "{provider}: {failed}");
        assert_eq!(results[3], ("py_echo".into(), "hi".into()), "{provider}: a null optional is left out");
        if provider == Provider::Anthropic {
            let answers = &requests[1].body["messages"][2]["content"];
            let flags: Vec<bool> =
                answers.as_array().unwrap().iter().map(|b| b["is_error"] == true).collect();
            assert_eq!(flags, [false, true, true, false], "{answers}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_strict_agent_sends_mcp_tools_strict_unless_their_schema_cannot_be() {
    let Some(python) = python() else { return };
    let tools = stdio(&python).await;
    for provider in [Provider::OpenAi, Provider::OpenAiResponses, Provider::Anthropic] {
        let server = Server::start(vec![provider_text(provider, "ok")]).await;
        let (outcome, _) = run(&agent(provider, &server, &tools).strict(true)).await;
        outcome.unwrap();
        let sent = definitions(provider, &server.requests()[0].body);
        let strict = |name: &str| {
            let definition = sent.iter().find(|d| name_of(d) == name).unwrap();
            definition.get("strict").or_else(|| definition["function"].get("strict")).cloned()
        };
        assert_eq!(strict("py_forecast"), Some(Value::Bool(true)), "{provider}");
        let loose = if provider == Provider::OpenAiResponses { Some(Value::Bool(false)) } else { None };
        assert_eq!(strict("py_tally"), loose, "{provider}: an open map goes non-strict");
        let rendered: Value =
            serde_json::from_str(&render_tool(&forecast_ir(), provider.format(), true)).unwrap();
        assert_eq!(sent.iter().find(|d| name_of(d) == "py_forecast"), Some(&rendered), "{provider}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_with_a_token_images_progress_and_a_changed_tool_list() {
    let Some(python) = python() else { return };
    let served = http(&python, Some("s3cret")).await;
    let refused = McpToolset::http(&served.url).connect().await.unwrap_err();
    assert!(matches!(&refused, AgentError::Mcp { server, .. } if *server == served.url), "{refused}");
    assert!(refused.to_string().contains("401"), "{refused}");
    let tools = McpToolset::http(&served.url).bearer("s3cret").prefix("py").connect().await.unwrap();
    assert_eq!(tools.tools().len(), PY_TOOLS.len());

    let provider = Provider::Anthropic;
    let replies: Vec<Reply> = vec![
        provider_calls(provider, &[("c1", "py_pixel", "{}")]),
        provider_calls(provider, &[("c2", "py_slow", r#"{"steps":2}"#)]),
        provider_calls(provider, &[("c3", "py_grow", "{}")]),
        provider_calls(provider, &[("c4", "py_late", r#"{"word":"hi"}"#)]),
        provider_text(provider, "ok"),
    ];
    let server = Server::start(replies).await;
    let (outcome, seen) = run(&agent(provider, &server, &tools)).await;
    assert_eq!(outcome.unwrap().answer, "ok");
    let requests = server.requests();
    let image = &requests[1].body["messages"][2]["content"][0]["content"][0];
    assert_eq!(image["type"], "image", "{image}");
    assert_eq!(image["source"]["media_type"], "image/png", "{image}");
    let progress: Vec<&Seen> = seen.iter().filter(|s| matches!(s, Seen::Progress(..))).collect();
    assert_eq!(
        progress,
        [
            &Seen::Progress("py_slow".into(), 1, Some(2), "step 1".into()),
            &Seen::Progress("py_slow".into(), 2, Some(2), "step 2".into())
        ]
    );
    let offered = |i: usize| {
        definitions(provider, &requests[i].body).iter().map(|d| name_of(d).to_owned()).collect::<Vec<_>>()
    };
    assert!(!offered(2).contains(&"py_late".to_owned()));
    assert!(offered(3).contains(&"py_late".to_owned()), "listed again after list_changed");
    assert_eq!(results(&seen).last(), Some(&("py_late".into(), "HI".into())));

    // Where the provider has no place for an image, the model reads what it was.
    let server = Server::start(vec![
        provider_calls(Provider::OpenAi, &[("c1", "py_pixel", "{}")]),
        provider_text(Provider::OpenAi, "ok"),
    ])
    .await;
    let (_, seen) = run(&agent(Provider::OpenAi, &server, &tools)).await;
    assert!(results(&seen)[0].1.starts_with("[image image/png, "), "{seen:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn destructive_mcp_tools_are_asked_about_and_declined_ones_do_not_run() {
    let Some(python) = python() else { return };
    let tools = stdio(&python).await;
    let provider = Provider::OpenAi;
    let replies = vec![
        provider_calls(
            provider,
            &[("c1", "py_wipe", r#"{"what":"all"}"#), ("c2", "py_echo", r#"{"text":"x"}"#)],
        ),
        provider_calls(provider, &[("c3", "py_calls", "{}")]),
        provider_text(provider, "ok"),
    ];
    let server = Server::start(replies).await;
    let asked = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&asked);
    let agent = agent(provider, &server, &tools).approve(move |call| {
        record.lock().unwrap().push(call.name.clone());
        async { false }
    });
    assert!(agent.is_destructive("py_wipe") && !agent.is_destructive("py_echo"));
    let (outcome, seen) = run(&agent).await;
    outcome.unwrap();
    assert_eq!(*asked.lock().unwrap(), ["py_wipe"]);
    let results = results(&seen);
    assert!(results[0].1.contains("declined"), "{results:?}");
    assert_eq!(results[2], ("py_calls".into(), "echo".into()), "wipe never ran");

    // Asking about every tool not annotated read-only.
    let cautious = McpToolset::command(python.display().to_string(), [script(), "stdio".to_owned()])
        .quiet()
        .ask_unless_read_only(true)
        .connect()
        .await
        .unwrap();
    let destructive: Vec<String> = cautious.tools().iter().map(|t| t.name.clone()).collect();
    let agent = Agent::new(&toolset::ALL, App::demo(), server.base_url.clone()).mcp(cautious);
    assert!(!agent.is_destructive("forecast"));
    assert!(destructive.iter().filter(|n| *n != "forecast").all(|n| agent.is_destructive(n)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_taken_twice_end_the_run_and_refusals_count_against_tool_retries() {
    let Some(python) = python() else { return };
    let plain = || async {
        McpToolset::command(python.display().to_string(), [script(), "stdio".to_owned()])
            .quiet()
            .connect()
            .await
            .unwrap()
    };
    let server = Server::start(vec![provider_text(Provider::OpenAi, "ok")]).await;
    let twice =
        Agent::new(&toolset::ALL, App::demo(), server.base_url.clone()).mcp(plain().await).mcp(plain().await);
    let (outcome, _) = run(&twice).await;
    let error = outcome.unwrap_err().to_string();
    assert!(error.contains("has the name of a tool of MCP server") && error.contains("prefix"), "{error}");
    assert!(server.requests().is_empty(), "nothing was sent");

    let tools = stdio(&python).await;
    let bad = ("c", "py_echo", r#"{"text":5}"#);
    let server = Server::start(vec![provider_calls(Provider::OpenAi, &[bad])]).await;
    let (outcome, _) = run(&agent(Provider::OpenAi, &server, &tools).tool_retries(1)).await;
    match outcome {
        Err(AgentError::ToolRetries { tool, refused, .. }) => {
            assert_eq!((tool.as_str(), refused), ("py_echo", 2))
        }
        other => panic!("{other:?}"),
    }
    // A failure is not the model's to fix: it does not count.
    let failing = ("c", "py_forecast", r#"{"city":"Atlantis"}"#);
    let server = Server::start(vec![
        provider_calls(Provider::OpenAi, &[failing]),
        provider_calls(Provider::OpenAi, &[failing]),
        provider_text(Provider::OpenAi, "gave up"),
    ])
    .await;
    let (outcome, _) = run(&agent(Provider::OpenAi, &server, &tools).tool_retries(0)).await;
    assert_eq!(outcome.unwrap().answer, "gave up");
}

/// With tool search, an MCP server's tools are indexed when listed and searched with the
/// compiled ones: on Responses they go deferred in one namespace per server (its prefix),
/// a search finds one of them, and the model calls it by name in that namespace.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_search_finds_mcp_tools_beside_the_compiled_ones() {
    let Some(python) = python() else { return };
    let tools = stdio(&python).await;
    let search = serde_json::json!({"type": "tool_search_call", "id": "tsc_1", "call_id": "call_s",
        "execution": "client", "arguments": {"query": "repeat a text"}, "status": "completed"});
    let echo = serde_json::json!({"type": "function_call", "id": "fc_1", "call_id": "call_e", "name": "py_echo",
        "namespace": "py", "arguments": r#"{"text":"hi","times":2}"#, "status": "completed"});
    let replies = vec![
        common::response(vec![search], 10, 5),
        common::response(vec![echo], 10, 5),
        provider_text(Provider::OpenAiResponses, "done"),
    ];
    let server = Server::start(replies).await;
    let agent = agent(Provider::OpenAiResponses, &server, &tools)
        .tool_search(toolcall_agent::ToolSearch::new().always_visible(["whoami"]));
    let (outcome, seen) = run(&agent).await;
    assert_eq!(outcome.unwrap().answer, "done");
    let results = results(&seen);
    assert_eq!(results[1], ("py_echo".into(), "hi hi".into()), "the tool found ran on the server");
    let requests = server.requests();
    let sent = requests[0].body["tools"].as_array().unwrap();
    let py = sent.iter().find(|tool| tool["name"] == "py").expect("a namespace for the server");
    let names: Vec<&str> =
        py["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, PY_TOOLS, "every tool of the server, deferred");
    assert!(py["tools"].as_array().unwrap().iter().all(|t| t["defer_loading"] == true));
    let found = results[0].1.clone();
    let found: Value = serde_json::from_str(&found).unwrap();
    assert_eq!(found["tools"][0]["name"], "py_echo", "{found}");
    let input = requests[1].body["input"].as_array().unwrap();
    let loaded = &input.last().unwrap()["tools"][0];
    assert_eq!(
        (loaded["type"].as_str(), loaded["name"].as_str()),
        (Some("namespace"), Some("py")),
        "{loaded}"
    );
    assert_eq!(loaded["tools"][0]["name"], "py_echo");
    let call = &requests[2].body["input"].as_array().unwrap()[3];
    assert_eq!((call["name"].as_str(), call["namespace"].as_str()), (Some("py_echo"), Some("py")), "{call}");
}
