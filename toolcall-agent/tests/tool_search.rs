//! Tool search (`Agent::tool_search`) on every provider, against the loopback fakes: what
//! the first request sends (the always-visible tool as emitted, the others deferred where
//! the provider defers natively, a search tool), the search round (the fake model asks
//! for tools, the agent answers from the example app's compiled index in the provider's
//! shape: Anthropic's `tool_reference` blocks, Responses' `tool_search_output`, the
//! definitions as text elsewhere), and the found tool called by name and run. Every body
//! sent to OpenAI and Anthropic is checked against the request types of their official
//! Python SDKs (`tests/clients/sdk_types.py`, on the `agent-sdk` venv that
//! `scripts/install-clients` makes; without it that check says SKIPPED, and fails in CI).
//!
//! And every reply the agent cannot use ends the run with an error naming what came back
//! (issue 63, point 6), search on or off.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};

use common::{Reply, Server, candidate, json_reply, message, response, sse};
use example_app::{App, toolset};
use serde_json::{Value, json};
use toolcall_agent::{
    Agent, AgentError, Event, Message, ModelResponse, Provider, ScriptedModel, ToolCall, ToolSearch,
};
use toolcall_runtime::Format;

const QUERY: &str = r#"{"query":"weather forecast for a city"}"#;
const WEATHER_ARGS: &str = r#"{"city":"Oslo"}"#;

fn settings() -> ToolSearch {
    ToolSearch::new().always_visible(["whoami"])
}

fn agent(provider: Provider, server: &Server) -> Agent<App> {
    Agent::for_provider(&toolset::ALL, App::demo(), provider, server.url_for(provider))
        .api_key(Some("k-test".to_owned()))
        .model("m")
        .tool_search(settings())
}

/// The fake model's search call: the search tool (Responses: a client `tool_search_call`).
fn search_call(provider: Provider) -> Reply {
    match provider {
        Provider::OpenAiResponses => response(
            vec![
                json!({"type": "tool_search_call", "id": "tsc_1", "call_id": "call_search", "execution": "client",
                "arguments": serde_json::from_str::<Value>(QUERY).unwrap(), "status": "completed"}),
            ],
            10,
            5,
        ),
        _ => common::provider_calls(provider, &[("call_search", "search_tools", QUERY)]),
    }
}

/// The fake model calling the tool it found (Responses: in its namespace).
fn weather_call(provider: Provider) -> Reply {
    match provider {
        Provider::OpenAiResponses => response(
            vec![
                json!({"type": "function_call", "id": "fc_1", "call_id": "call_weather", "name": "get_weather",
                "namespace": "weather", "arguments": WEATHER_ARGS, "status": "completed"}),
            ],
            10,
            5,
        ),
        _ => common::provider_calls(provider, &[("call_weather", "get_weather", WEATHER_ARGS)]),
    }
}

/// The emitted definition of `name` in `format`, as a JSON value.
fn emitted(format: Format, name: &str) -> Value {
    let all = toolset::ALL.emit_value(format, false);
    let found = all.as_array().unwrap().iter().find(|tool| {
        let tool_name = if format == Format::OpenAi { &tool["function"]["name"] } else { &tool["name"] };
        tool_name == name
    });
    found.cloned().unwrap_or_else(|| panic!("{name} is emitted"))
}

/// The names of the tools of a Chat or Gemini request.
fn plain_names(provider: Provider, body: &Value) -> Vec<String> {
    let tools = match provider {
        Provider::Gemini => body["tools"][0]["functionDeclarations"].as_array().unwrap(),
        _ => body["tools"].as_array().unwrap(),
    };
    tools
        .iter()
        .map(|tool| {
            let name = if provider == Provider::OpenAi { &tool["function"]["name"] } else { &tool["name"] };
            name.as_str().unwrap().to_owned()
        })
        .collect()
}

/// The first request: the tools as each provider gets them.
fn check_first(provider: Provider, body: &Value) {
    let format = provider.format();
    match provider {
        Provider::Anthropic => {
            let tools = body["tools"].as_array().unwrap();
            let all = toolset::ALL.emit_value(format, false);
            let all = all.as_array().unwrap();
            assert_eq!(tools.len(), all.len() + 1, "every tool and the search tool");
            for (sent, emitted) in tools.iter().zip(all) {
                let mut expected = emitted.clone();
                if emitted["name"] != "whoami" {
                    expected["defer_loading"] = json!(true);
                }
                assert_eq!(sent, &expected);
            }
            let search = tools.last().unwrap();
            assert_eq!(search["name"], "search_tools");
            assert_eq!(search["input_schema"]["required"], json!(["query"]));
            assert!(search.get("defer_loading").is_none(), "the search tool is never deferred");
        }
        Provider::OpenAiResponses => {
            let tools = body["tools"].as_array().unwrap();
            assert_eq!(tools[0], emitted(format, "whoami"), "the always-visible tool, as emitted");
            let last = tools.last().unwrap();
            assert_eq!(last["type"], "tool_search");
            assert_eq!(last["execution"], "client");
            assert_eq!(last["parameters"]["required"], json!(["query"]));
            let namespaces = &tools[1..tools.len() - 1];
            let mut deferred = 0;
            for namespace in namespaces {
                assert_eq!(namespace["type"], "namespace", "{namespace}");
                let name = namespace["name"].as_str().unwrap();
                for function in namespace["tools"].as_array().unwrap() {
                    let info = toolset::ALL.describe().iter().find(|t| t.name == function["name"]).unwrap();
                    assert_eq!(info.module, name, "a tool is in its module's namespace");
                    let mut expected = emitted(format, info.name);
                    expected["defer_loading"] = json!(true);
                    assert_eq!(function, &expected);
                    assert!(namespace["description"].as_str().unwrap().contains(info.name));
                    deferred += 1;
                }
            }
            assert_eq!(deferred, toolset::ALL.len() - 1, "every tool but whoami is deferred");
            assert!(namespaces.iter().any(|n| n["name"] == "weather"));
        }
        Provider::OpenAi | Provider::Gemini => {
            assert_eq!(plain_names(provider, body), ["whoami", "search_tools"]);
            let whoami = match provider {
                Provider::Gemini => &body["tools"][0]["functionDeclarations"][0],
                _ => &body["tools"][0],
            };
            assert_eq!(whoami, &emitted(format, "whoami"));
        }
    }
}

/// The second request: the search answered in the provider's shape.
fn check_search_answer(provider: Provider, body: &Value) {
    match provider {
        Provider::Anthropic => {
            let messages = body["messages"].as_array().unwrap();
            let result = &messages.last().unwrap()["content"][0];
            assert_eq!(result["type"], "tool_result");
            assert_eq!(result["tool_use_id"], "call_search");
            let references = result["content"].as_array().unwrap();
            assert_eq!(references[0], json!({"type": "tool_reference", "tool_name": "get_weather"}));
            assert!(references.len() <= toolcall_agent::DEFAULT_SEARCH_LIMIT);
            assert!(references.iter().all(|r| r["type"] == "tool_reference" && r["tool_name"] != "whoami"));
            assert_eq!(body["tools"].as_array().unwrap().len(), toolset::ALL.len() + 1, "the same tools");
        }
        Provider::OpenAiResponses => {
            let input = body["input"].as_array().unwrap();
            let n = input.len();
            assert_eq!(
                input[n - 2],
                json!({"type": "tool_search_call", "call_id": "call_search", "execution": "client",
                    "status": "completed", "arguments": {"query": "weather forecast for a city"}})
            );
            let output = &input[n - 1];
            assert_eq!(output["type"], "tool_search_output");
            assert_eq!(output["call_id"], "call_search");
            assert_eq!(output["execution"], "client");
            let first = &output["tools"][0];
            assert_eq!(first["type"], "namespace");
            assert_eq!(first["name"], "weather");
            let mut weather = emitted(Format::OpenAiResponses, "get_weather");
            weather["defer_loading"] = json!(true);
            assert_eq!(first["tools"][0], weather);
        }
        Provider::OpenAi | Provider::Gemini => {
            let content: Value = match provider {
                Provider::Gemini => {
                    let parts = body["contents"].as_array().unwrap().last().unwrap()["parts"].clone();
                    assert_eq!(parts[0]["functionResponse"]["name"], "search_tools");
                    parts[0]["functionResponse"]["response"]["output"].clone()
                }
                _ => {
                    let last = body["messages"].as_array().unwrap().last().unwrap().clone();
                    assert_eq!(last["tool_call_id"], "call_search");
                    serde_json::from_str(last["content"].as_str().unwrap()).unwrap()
                }
            };
            let found = content["tools"].as_array().unwrap();
            assert_eq!(found[0]["name"], "get_weather");
            assert_eq!(found[0]["parameters"]["required"], json!(["city"]));
            assert!(found.iter().all(|tool| tool["name"] != "whoami"), "always visible: not found again");
            let names = plain_names(provider, body);
            assert_eq!(names[..2], ["whoami", "search_tools"]);
            assert!(names[2..].iter().any(|name| name == "get_weather"), "found tools are sent: {names:?}");
            assert_eq!(names.len(), 2 + found.len());
        }
    }
}

/// The third request: the found tool's call and answer, in the provider's shape.
fn check_call(provider: Provider, body: &Value, weather: &str) {
    match provider {
        Provider::OpenAiResponses => {
            let input = body["input"].as_array().unwrap();
            let n = input.len();
            assert_eq!(
                input[n - 2],
                json!({"type": "function_call", "call_id": "call_weather", "name": "get_weather",
                    "arguments": WEATHER_ARGS, "namespace": "weather"})
            );
            assert_eq!(
                input[n - 1],
                json!({"type": "function_call_output", "call_id": "call_weather", "output": weather})
            );
        }
        Provider::Anthropic => {
            let last = body["messages"].as_array().unwrap().last().unwrap();
            assert_eq!(last["content"][0]["content"], weather);
        }
        Provider::OpenAi => {
            assert_eq!(body["messages"].as_array().unwrap().last().unwrap()["content"], weather);
            assert!(plain_names(provider, body).contains(&"get_weather".to_owned()), "still sent");
        }
        Provider::Gemini => {
            let last = body["contents"].as_array().unwrap().last().unwrap();
            let expected: Value = serde_json::from_str(weather).unwrap();
            assert_eq!(last["parts"][0]["functionResponse"]["response"]["output"], expected);
            assert!(plain_names(provider, body).contains(&"get_weather".to_owned()), "still sent");
        }
    }
}

#[tokio::test]
async fn every_provider_defers_the_tools_answers_a_search_and_runs_the_tool_found() {
    let weather = toolcall_runtime::glue::content(
        &toolset::ALL.call_json(&App::demo(), "get_weather", WEATHER_ARGS).await,
    );
    let mut bodies = Vec::new();
    for provider in Provider::ALL {
        let replies =
            vec![search_call(provider), weather_call(provider), common::provider_text(provider, "Rain.")];
        let server = Server::start(replies).await;
        let mut seen = Vec::new();
        let outcome = agent(provider, &server)
            .run("Will it rain in Oslo?", |event| {
                if let Event::ToolResult { name, content, .. } = event {
                    seen.push((name.to_owned(), content.to_owned()));
                }
            })
            .await
            .unwrap_or_else(|e| panic!("{provider}: {e}"));
        assert_eq!(outcome.answer, "Rain.", "{provider}");
        assert_eq!(seen.len(), 2, "{provider}: {seen:?}");
        assert_eq!(seen[0].0, "search_tools");
        assert!(seen[0].1.contains("\"get_weather\""), "{provider}: {}", seen[0].1);
        assert_eq!(seen[1], ("get_weather".to_owned(), weather.clone()), "{provider}: the found tool ran");
        let requests = server.requests();
        assert_eq!(requests.len(), 3, "{provider}");
        let body = |n: usize| &requests[n].body;
        check_first(provider, body(0));
        check_search_answer(provider, body(1));
        check_call(provider, body(2), &weather);
        if provider == Provider::Anthropic {
            assert!(requests[0].header("anthropic-beta").is_none(), "tool search needs no beta header");
        }
        for request in &requests {
            bodies.push((provider, request.body.clone()));
        }
    }
    check_against_the_sdks(&bodies);
}

#[tokio::test]
async fn search_on_sends_fewer_bytes_than_every_definition() {
    for provider in Provider::ALL {
        let server = Server::start(vec![common::provider_text(provider, "hi")]).await;
        agent(provider, &server).run("hi", |_| {}).await.unwrap();
        let plain = Server::start(vec![common::provider_text(provider, "hi")]).await;
        let without =
            Agent::for_provider(&toolset::ALL, App::demo(), provider, plain.url_for(provider)).model("m");
        without.run("hi", |_| {}).await.unwrap();
        let (searched, every) = (server.requests()[0].raw.len(), plain.requests()[0].raw.len());
        match provider {
            // Deferred tools still go out whole: the saving is in the model's context.
            Provider::Anthropic | Provider::OpenAiResponses => assert!(searched > every / 2, "{provider}"),
            _ => assert!(searched * 3 < every, "{provider}: {searched} bytes against {every}"),
        }
    }
}

#[tokio::test]
async fn streamed_responses_read_a_client_tool_search_call() {
    let arguments = json!({"query": "add or list notes", "limit": 2});
    let item = json!({"type": "tool_search_call", "id": "tsc_1", "call_id": "call_search", "execution": "client",
        "arguments": arguments, "status": "completed"});
    let completed = json!({"type": "response.completed", "response": {"id": "r", "status": "completed", "output": [],
        "usage": {"input_tokens": 1, "output_tokens": 1}}});
    let searching = sse(&[
        (
            None,
            json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "tool_search_call", "id": "tsc_1", "status": "in_progress", "execution": "client", "arguments": {}}}),
        ),
        (None, json!({"type": "response.output_item.done", "output_index": 0, "item": item})),
        (None, completed.clone()),
    ]);
    let answer = sse(&[
        (None, json!({"type": "response.output_text.delta", "output_index": 0, "delta": "Rain."})),
        (None, completed),
    ]);
    let server = Server::start(vec![searching, answer]).await;
    let outcome = agent(Provider::OpenAiResponses, &server).stream(true).run("Rain?", |_| {}).await.unwrap();
    assert_eq!(outcome.answer, "Rain.");
    let input = server.requests()[1].body["input"].as_array().unwrap().clone();
    let n = input.len();
    assert_eq!(input[n - 2]["type"], "tool_search_call");
    assert_eq!(input[n - 2]["arguments"], arguments);
    let namespaces = input[n - 1]["tools"].as_array().unwrap();
    let found: usize = namespaces.iter().map(|n| n["tools"].as_array().unwrap().len()).sum();
    assert_eq!(found, 2, "the limit the model asked for");
    assert_eq!(namespaces[0]["name"], "notes");
}

#[tokio::test]
async fn a_scripted_model_is_sent_the_found_tools_from_then_on() {
    let model = ScriptedModel::new([
        ModelResponse::calls([ToolCall::new(
            "s1",
            "search_tools",
            r#"{"query":"add two numbers","limit":1}"#,
        )]),
        ModelResponse::calls([ToolCall::new("s2", "search_tools", r#"{"limit":1}"#)]),
        ModelResponse::calls([ToolCall::new("c1", "add", r#"{"a":1,"b":2}"#)]),
        ModelResponse::text("3"),
    ]);
    let agent = Agent::with_model(&toolset::ALL, App::demo(), model.clone()).tool_search(settings());
    let outcome = agent.run("1 + 2?", |_| {}).await.unwrap();
    assert_eq!(outcome.answer, "3");
    let tools: Vec<Vec<String>> = model.requests().into_iter().map(|request| request.tools).collect();
    assert_eq!(tools[0], ["whoami", "search_tools"]);
    assert_eq!(tools[1], ["whoami", "search_tools", "add"], "the tool found is offered from then on");
    assert_eq!(tools[3], ["whoami", "search_tools", "add"]);
    let answers: Vec<_> = outcome
        .messages
        .iter()
        .filter_map(|message| match message {
            Message::Tool { results } => Some(results[0].clone()),
            _ => None,
        })
        .collect();
    assert_eq!(found_names(&answers[0].content), ["add"]);
    assert!(answers[1].is_error, "a search without a query is refused: {}", answers[1].content);
    assert!(answers[1].content.contains("query"), "{}", answers[1].content);
    assert_eq!(answers[2].content, "3");
    assert_eq!(outcome.run_usage.refused_calls, 1);
}

fn found_names(content: &str) -> Vec<String> {
    let value: Value = serde_json::from_str(content).unwrap();
    value["tools"].as_array().unwrap().iter().map(|tool| tool["name"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn settings_the_run_cannot_use_are_config_errors_before_any_request() {
    let model = ScriptedModel::new([ModelResponse::text("never")]);
    let named_add = Agent::with_model(&toolset::ALL, App::demo(), model.clone())
        .tool_search(ToolSearch::new().named("add"));
    match named_add.run("hi", |_| {}).await {
        Err(AgentError::Config(message)) => assert!(message.contains("`add`"), "{message}"),
        other => panic!("{other:?}"),
    }
    let unknown = Agent::with_model(&toolset::ALL, App::demo(), model.clone())
        .tool_search(ToolSearch::new().always_visible(["whoami", "nope"]));
    match unknown.run("hi", |_| {}).await {
        Err(AgentError::Config(message)) => {
            assert!(message.contains("`nope`") && !message.contains("whoami"), "{message}")
        }
        other => panic!("{other:?}"),
    }
    assert!(model.requests().is_empty());
}

/// A Responses reply holding only `items`.
fn responses_only(items: Vec<Value>) -> Reply {
    response(items, 3, 1)
}

#[tokio::test]
async fn every_reply_the_agent_cannot_use_is_an_error_naming_what_came_back() {
    let search_item = json!({"type": "tool_search_call", "id": "tsc_1", "call_id": "call_1", "execution": "client",
        "arguments": {"query": "weather"}, "status": "completed"});
    let cases: Vec<(Provider, Reply, &str)> = vec![
        (
            Provider::OpenAiResponses,
            responses_only(vec![search_item.clone()]),
            "the model's reply held only a `tool_search_call` item, which this agent did not ask for (the model stopped: completed)",
        ),
        (
            Provider::OpenAiResponses,
            responses_only(vec![
                json!({"type": "web_search_call", "id": "ws_1", "status": "completed"}),
                json!({"type": "reasoning", "id": "rs_1", "summary": []}),
            ]),
            "the model's reply held only a `web_search_call` item, which this agent did not ask for (the model stopped: completed)",
        ),
        (
            Provider::OpenAiResponses,
            responses_only(Vec::new()),
            "the model's reply held no text and no tool call (the model stopped: completed)",
        ),
        (
            Provider::Anthropic,
            message(vec![json!({"type": "thinking", "thinking": "hm", "signature": "s"})], 3, 1),
            "the model's reply held only a `thinking` block, which this agent did not ask for (the model stopped: end_turn)",
        ),
        (
            Provider::Anthropic,
            message(
                vec![
                    json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}),
                    json!({"type": "server_tool_use", "id": "srvtoolu_2", "name": "web_search", "input": {}}),
                ],
                3,
                1,
            ),
            "the model's reply held only 2 `server_tool_use` blocks, which this agent did not ask for (the model stopped: end_turn)",
        ),
        (
            Provider::Gemini,
            json_reply(
                json!({"candidates": [{"content": {"role": "model", "parts": []}, "finishReason": "SAFETY"}]}),
            ),
            "the model's reply held no text and no tool call (the model stopped: SAFETY)",
        ),
        (
            Provider::Gemini,
            candidate(vec![json!({"executableCode": {"language": "PYTHON", "code": "print(1)"}})], 3, 1),
            "the model's reply held only a `executableCode` part, which this agent did not ask for (the model stopped: STOP)",
        ),
        (
            Provider::OpenAi,
            common::completion(json!({"role": "assistant", "content": null})),
            "the model's reply held no text and no tool call (the model stopped: stop)",
        ),
    ];
    for (provider, reply, expected) in cases {
        let server = Server::start(vec![reply]).await;
        let plain =
            Agent::for_provider(&toolset::ALL, App::demo(), provider, server.url_for(provider)).model("m");
        match plain.run("hi", |_| {}).await {
            Err(error @ AgentError::Unusable(_)) => assert_eq!(error.to_string(), expected, "{provider}"),
            other => panic!("{provider}: {other:?}"),
        }
    }
    // A streamed Responses reply holding only a search call, search off.
    let streamed = sse(&[
        (None, json!({"type": "response.output_item.added", "output_index": 0, "item": search_item})),
        (None, json!({"type": "response.output_item.done", "output_index": 0, "item": search_item})),
        (
            None,
            json!({"type": "response.completed", "response": {"id": "r", "status": "completed", "output": [], "usage": {"input_tokens": 1, "output_tokens": 1}}}),
        ),
    ]);
    let server = Server::start(vec![streamed]).await;
    let plain =
        Agent::for_provider(&toolset::ALL, App::demo(), Provider::OpenAiResponses, server.base_url.clone())
            .stream(true);
    let error = plain.run("hi", |_| {}).await.unwrap_err();
    assert!(
        error.to_string().starts_with("the model's reply held only a `tool_search_call` item"),
        "{error}"
    );
    // Streamed Anthropic thinking alone, streamed Chat with nothing in it.
    let thinking = sse(&[
        (
            Some("message_start"),
            json!({"type": "message_start", "message": {"usage": {"input_tokens": 3, "output_tokens": 1}}}),
        ),
        (
            Some("content_block_start"),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
        ),
        (
            Some("message_delta"),
            json!({"type": "message_delta", "delta": {"stop_reason": "max_tokens"}, "usage": {"output_tokens": 9}}),
        ),
    ]);
    let mut empty = sse(&[(
        None,
        json!({"choices": [{"index": 0, "delta": {"role": "assistant"}, "finish_reason": "length"}]}),
    )]);
    empty.body.push_str("data: [DONE]\n\n");
    for (provider, reply, expected) in [
        (
            Provider::Anthropic,
            thinking,
            "the model's reply held only a `thinking` block, which this agent did not ask for (the model stopped: max_tokens)",
        ),
        (
            Provider::OpenAi,
            empty,
            "the model's reply held no text and no tool call (the model stopped: length)",
        ),
    ] {
        let server = Server::start(vec![reply]).await;
        let plain =
            Agent::for_provider(&toolset::ALL, App::demo(), provider, server.url_for(provider)).stream(true);
        let error = plain.run("hi", |_| {}).await.unwrap_err();
        assert_eq!(error.to_string(), expected, "{provider}");
    }
    // A hosted (server) search call on an agent that searches on its own is not its.
    let server = Server::start(vec![responses_only(vec![json!({"type": "tool_search_call", "id": "tsc_1", "execution": "server", "arguments": {}, "status": "completed"})])]).await;
    let error = agent(Provider::OpenAiResponses, &server).run("hi", |_| {}).await.unwrap_err();
    assert!(error.to_string().contains("`tool_search_call` item"), "{error}");
    // Text beside an item it does not read is an answer.
    let server = Server::start(vec![responses_only(vec![
        json!({"type": "web_search_call", "id": "ws_1", "status": "completed"}),
        common::output_message("hi"),
    ])])
    .await;
    let plain =
        Agent::for_provider(&toolset::ALL, App::demo(), Provider::OpenAiResponses, server.base_url.clone());
    assert_eq!(plain.run("hi", |_| {}).await.unwrap().answer, "hi");
}

/// The interpreter of the `agent-sdk` venv `scripts/install-clients` makes; `None` when it
/// is not there, which fails in CI.
fn sdk_python() -> Option<PathBuf> {
    let dir = std::env::var_os("TOOLCALL_CLIENTS_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".cache/toolcall-ci")))?;
    let python = dir.join("agent-sdk/bin/python");
    if python.is_file() {
        return Some(python);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "the official anthropic and openai Python SDKs are not in {}: run scripts/install-clients",
        dir.display()
    );
    eprintln!(
        "SKIPPED: the official anthropic and openai Python SDKs are not in {}: run scripts/install-clients",
        dir.display()
    );
    None
}

/// Checks every body sent to OpenAI (Chat, Responses) and Anthropic against the SDKs'
/// request types; Gemini's have no SDK here to check against.
fn check_against_the_sdks(bodies: &[(Provider, Value)]) {
    let Some(python) = sdk_python() else { return };
    let checked: Vec<Value> = bodies
        .iter()
        .filter(|(provider, _)| *provider != Provider::Gemini)
        .map(|(provider, body)| json!({"provider": provider.as_str(), "body": body}))
        .collect();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/sdk_types.py");
    let mut child = std::process::Command::new(python)
        .arg(script)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python runs");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(Value::Array(checked.clone()).to_string().as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(stdout.lines().filter(|line| line.starts_with("ok ")).count(), checked.len(), "{stdout}");
}

#[test]
fn the_sdk_check_refuses_a_misspelt_field() {
    let body = |tools: Value| json!({"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}], "tools": tools});
    let Some(python) = sdk_python() else { return };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/sdk_types.py");
    let bad = json!([
        {"provider": "anthropic", "body": body(json!([{"name": "a", "input_schema": {"type": "object"}, "defer_load": true}]))},
        {"provider": "responses", "body": {"model": "m", "input": [], "tools": [{"type": "tool_search", "execution": "clint"}]}},
    ]);
    let mut child = std::process::Command::new(python)
        .arg(script)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(bad.to_string().as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{stdout}");
    assert!(stdout.contains("error anthropic") && stdout.contains("defer_load"), "{stdout}");
    assert!(stdout.contains("error responses"), "{stdout}");
}

#[tokio::test]
async fn strict_search_requests_check_against_the_sdks_too() {
    let mut bodies = Vec::new();
    for provider in [Provider::OpenAi, Provider::OpenAiResponses, Provider::Anthropic] {
        let server = Server::start(vec![common::provider_text(provider, "hi")]).await;
        agent(provider, &server).strict(true).prompt_cache(true).run("hi", |_| {}).await.unwrap();
        let body = server.requests()[0].body.clone();
        let strict = match provider {
            Provider::OpenAi => body["tools"][1]["function"]["strict"].clone(),
            Provider::OpenAiResponses => body["tools"][1]["tools"][0]["strict"].clone(),
            _ => body["tools"][0]["strict"].clone(),
        };
        assert_eq!(strict, json!(true), "{provider}: {body}");
        bodies.push((provider, body));
    }
    check_against_the_sdks(&bodies);
}
