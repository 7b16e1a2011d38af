//! Every provider against a loopback server speaking its API (bodies shaped as each
//! provider documents them): the definitions it is sent, the calls answered in its shape
//! and in call order, the key header, usage, streaming, and every way a run can fail.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{
    Reply, Server, candidate, function_call, function_call_part, message, output_message, response, sse,
    status, text_block, tool_use,
};
use example_app::{App, toolset};
use serde_json::{Value, json};
use toolcall_agent::{Agent, AgentError, Event, Outcome, Provider, Usage};
use toolcall_runtime::glue;

const WEATHER_ARGS: &str = r#"{"city":"Oslo"}"#;
const BAD_ADD_ARGS: &str = r#"{"a":"two","b":3}"#;
const PROMPT: &str = "Weather in Oslo, and add two and 3?";

/// A reply asking for `calls` (id, name, arguments JSON text), in `provider`'s shape,
/// counting 10 tokens in and 5 out.
fn calls(provider: Provider, calls: &[(&str, &str, &str)]) -> Reply {
    match provider {
        Provider::OpenAi => common::tool_calls(calls),
        Provider::OpenAiResponses => {
            response(calls.iter().map(|(id, name, args)| function_call(id, name, args)).collect(), 10, 5)
        }
        Provider::Anthropic => message(
            calls
                .iter()
                .map(|(id, name, args)| tool_use(id, name, serde_json::from_str(args).unwrap()))
                .collect(),
            10,
            5,
        ),
        Provider::Gemini => candidate(
            calls
                .iter()
                .map(|(_, name, args)| function_call_part(name, serde_json::from_str(args).unwrap()))
                .collect(),
            10,
            5,
        ),
    }
}

/// A reply answering `text`, counting 10 tokens in and 5 out.
fn text(provider: Provider, text: &str) -> Reply {
    match provider {
        Provider::OpenAi => common::answer(text),
        Provider::OpenAiResponses => response(vec![output_message(text)], 10, 5),
        Provider::Anthropic => message(vec![text_block(text)], 10, 5),
        Provider::Gemini => candidate(vec![json!({"text": text})], 10, 5),
    }
}

fn base_url(provider: Provider, server: &Server) -> String {
    match provider {
        Provider::Gemini => server.gemini_url.clone(),
        _ => server.base_url.clone(),
    }
}

fn agent(provider: Provider, server: &Server) -> Agent<App> {
    Agent::for_provider(&toolset::ALL, App::demo(), provider, base_url(provider, server))
        .api_key(Some("k-test".to_owned()))
        .model("m")
}

/// An event, owned.
#[derive(Debug, PartialEq, Clone)]
enum Seen {
    Text(String),
    Call(String, String, String),
    Result(String, String, String),
}

async fn run(agent: &Agent<App>, prompt: &str) -> (Result<Outcome, AgentError>, Vec<Seen>) {
    let mut seen = Vec::new();
    let outcome = agent
        .run(prompt, |event| match event {
            Event::Text(text) => seen.push(Seen::Text(text.into())),
            Event::ToolCall { id, name, arguments } => {
                seen.push(Seen::Call(id.into(), name.into(), arguments.into()))
            }
            Event::ToolResult { id, name, content } => {
                seen.push(Seen::Result(id.into(), name.into(), content.into()))
            }
            _ => {}
        })
        .await;
    (outcome, seen)
}

async fn content(name: &str, arguments: &str) -> String {
    glue::content(&toolset::ALL.call_json(&App::demo(), name, arguments).await)
}

/// The path a provider's request goes to, for model `m`.
fn path(provider: Provider, stream: bool) -> &'static str {
    match (provider, stream) {
        (Provider::OpenAi, _) => "/v1/chat/completions",
        (Provider::OpenAiResponses, _) => "/v1/responses",
        (Provider::Anthropic, _) => "/v1/messages",
        (Provider::Gemini, false) => "/v1beta/models/m:generateContent",
        (Provider::Gemini, true) => "/v1beta/models/m:streamGenerateContent",
    }
}

/// The key header a provider gets, and how the key is written in it.
fn key_header(provider: Provider) -> (&'static str, &'static str) {
    match provider {
        Provider::OpenAi | Provider::OpenAiResponses => ("authorization", "Bearer k-test"),
        Provider::Anthropic => ("x-api-key", "k-test"),
        Provider::Gemini => ("x-goog-api-key", "k-test"),
    }
}

/// The tools field as `provider` must get it.
fn tools(provider: Provider, strict: bool) -> Value {
    let emitted = toolset::ALL.emit_value(provider.format(), strict);
    match provider {
        Provider::Gemini => json!([{"functionDeclarations": emitted}]),
        _ => emitted,
    }
}

/// The second request's body: the prompt, the two calls and their answers, each in
/// `provider`'s shape, call ids as the run reported them.
fn second_body(provider: Provider, ids: &[String], weather: &str, bad_add: &str) -> Value {
    let weather_value: Value = serde_json::from_str(weather).unwrap();
    let bad_value: Value = serde_json::from_str(bad_add).unwrap();
    match provider {
        Provider::OpenAi => json!({
            "model": "m",
            "messages": [
                {"role": "user", "content": PROMPT},
                {"role": "assistant", "tool_calls": [
                    {"id": ids[0], "type": "function", "function": {"name": "get_weather", "arguments": WEATHER_ARGS}},
                    {"id": ids[1], "type": "function", "function": {"name": "add", "arguments": BAD_ADD_ARGS}},
                ]},
                {"role": "tool", "tool_call_id": ids[0], "content": weather},
                {"role": "tool", "tool_call_id": ids[1], "content": bad_add},
            ],
            "tools": tools(provider, false),
        }),
        Provider::OpenAiResponses => json!({
            "model": "m",
            "input": [
                {"type": "message", "role": "user", "content": PROMPT},
                {"type": "function_call", "call_id": ids[0], "name": "get_weather", "arguments": WEATHER_ARGS},
                {"type": "function_call", "call_id": ids[1], "name": "add", "arguments": BAD_ADD_ARGS},
                {"type": "function_call_output", "call_id": ids[0], "output": weather},
                {"type": "function_call_output", "call_id": ids[1], "output": bad_add},
            ],
            "tools": tools(provider, false),
        }),
        Provider::Anthropic => json!({
            "model": "m",
            "max_tokens": toolcall_agent::ANTHROPIC_MAX_TOKENS,
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": PROMPT}]},
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": ids[0], "name": "get_weather", "input": {"city": "Oslo"}},
                    {"type": "tool_use", "id": ids[1], "name": "add", "input": {"a": "two", "b": 3}},
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": ids[0], "content": weather},
                    {"type": "tool_result", "tool_use_id": ids[1], "content": bad_add, "is_error": true},
                ]},
            ],
            "tools": tools(provider, false),
        }),
        Provider::Gemini => json!({
            "contents": [
                {"role": "user", "parts": [{"text": PROMPT}]},
                {"role": "model", "parts": [
                    {"functionCall": {"id": ids[0], "name": "get_weather", "args": {"city": "Oslo"}}},
                    {"functionCall": {"id": ids[1], "name": "add", "args": {"a": "two", "b": 3}}},
                ]},
                {"role": "user", "parts": [
                    {"functionResponse": {"id": ids[0], "name": "get_weather", "response": {"output": weather_value}}},
                    {"functionResponse": {"id": ids[1], "name": "add", "response": {"error": bad_value}}},
                ]},
            ],
            "tools": tools(provider, false),
        }),
    }
}

#[tokio::test]
async fn every_provider_runs_two_calls_one_bad_then_answers() {
    let weather = content("get_weather", WEATHER_ARGS).await;
    let bad_add = content("add", BAD_ADD_ARGS).await;
    assert!(bad_add.contains("invalid_argument"), "{bad_add}");
    for provider in Provider::ALL {
        let first = [("call_weather", "get_weather", WEATHER_ARGS), ("call_add", "add", BAD_ADD_ARGS)];
        let server =
            Server::start(vec![calls(provider, &first), text(provider, "Oslo: 21.5 degrees.")]).await;
        let (outcome, seen) = run(&agent(provider, &server), PROMPT).await;
        let outcome = outcome.unwrap_or_else(|e| panic!("{provider}: {e}"));
        assert_eq!(outcome.answer, "Oslo: 21.5 degrees.", "{provider}");
        assert_eq!(outcome.turns, 2, "{provider}");
        assert_eq!(outcome.usage, Usage::new(20, 10), "{provider}");
        assert_eq!(outcome.messages.len(), 4, "{provider}");

        // Gemini sends no call ids: the run made its own, the same in events and requests.
        let ids: Vec<String> = seen
            .iter()
            .filter_map(|s| match s {
                Seen::Call(id, ..) => Some(id.clone()),
                _ => None,
            })
            .collect();
        if provider != Provider::Gemini {
            assert_eq!(ids, ["call_weather", "call_add"], "{provider}");
        }
        assert_ne!(ids[0], ids[1]);
        assert_eq!(
            seen,
            [
                Seen::Call(ids[0].clone(), "get_weather".into(), WEATHER_ARGS.into()),
                Seen::Call(ids[1].clone(), "add".into(), BAD_ADD_ARGS.into()),
                Seen::Result(ids[0].clone(), "get_weather".into(), weather.clone()),
                Seen::Result(ids[1].clone(), "add".into(), bad_add.clone()),
            ],
            "{provider}"
        );

        let requests = server.requests();
        assert_eq!(requests.len(), 2, "{provider}");
        let (key, value) = key_header(provider);
        for request in &requests {
            assert_eq!(request.path, path(provider, false), "{provider}");
            assert_eq!(request.header(key), Some(value), "{provider}");
            assert_eq!(request.body["tools"], tools(provider, false), "{provider}");
        }
        if provider == Provider::Anthropic {
            assert_eq!(requests[0].header("anthropic-version"), Some("2023-06-01"));
            assert_eq!(requests[0].header("authorization"), None);
        }
        assert_eq!(requests[1].body, second_body(provider, &ids, &weather, &bad_add), "{provider}");
    }
}

/// Every provider gets each definition as `emit` gives it, byte for byte: parameters and
/// nested properties in the order the author declared them (#42 item 1).
#[tokio::test]
async fn the_sent_definitions_are_the_emitted_text_byte_for_byte() {
    for provider in Provider::ALL {
        for strict in [false, true] {
            let server = Server::start(vec![text(provider, "hi")]).await;
            let (outcome, _) = run(&agent(provider, &server).strict(strict), "hello").await;
            assert_eq!(outcome.unwrap().answer, "hi", "{provider}");
            let raw = &server.requests()[0].raw;
            let emitted: Vec<Value> =
                serde_json::from_str(toolset::ALL.emit(provider.format(), strict)).unwrap();
            for tool in emitted {
                let tool = tool.to_string();
                assert!(
                    raw.contains(&tool),
                    "{provider} strict={strict}: sent differs from emitted:\n{tool}"
                );
            }
        }
    }
}

#[tokio::test]
async fn strict_definitions_and_the_system_message_in_each_providers_place() {
    for provider in Provider::ALL {
        let server = Server::start(vec![text(provider, "hi")]).await;
        let agent = agent(provider, &server).strict(true).system("Be brief.");
        let (outcome, _) = run(&agent, "hello").await;
        assert_eq!(outcome.unwrap().answer, "hi", "{provider}");
        let body = &server.requests()[0].body;
        assert_eq!(body["tools"], tools(provider, true), "{provider}");
        let system = match provider {
            Provider::OpenAi => body["messages"][0].clone(),
            Provider::OpenAiResponses => body["instructions"].clone(),
            Provider::Anthropic => body["system"].clone(),
            Provider::Gemini => body["systemInstruction"].clone(),
        };
        let expected = match provider {
            Provider::OpenAi => json!({"role": "system", "content": "Be brief."}),
            Provider::Gemini => json!({"parts": [{"text": "Be brief."}]}),
            _ => json!("Be brief."),
        };
        assert_eq!(system, expected, "{provider}");
    }
}

#[tokio::test]
async fn no_key_or_an_empty_key_sends_no_key_header() {
    for provider in Provider::ALL {
        for key in [None, Some(String::new())] {
            let server = Server::start(vec![text(provider, "hi")]).await;
            let agent = agent(provider, &server).api_key(key.clone());
            assert!(run(&agent, "hi").await.0.is_ok(), "{provider}");
            let request = &server.requests()[0];
            for header in ["authorization", "x-api-key", "x-goog-api-key"] {
                assert_eq!(request.header(header), None, "{provider} {key:?} {header}");
            }
        }
    }
}

#[tokio::test]
async fn the_turn_limit_ends_the_run_on_every_provider() {
    for provider in Provider::ALL {
        let server = Server::start(vec![calls(provider, &[("call_1", "add", r#"{"a":1,"b":2}"#)])]).await;
        let (outcome, seen) = run(&agent(provider, &server).max_turns(2), "loop").await;
        assert_eq!(outcome.unwrap_err(), AgentError::TurnLimit(2), "{provider}");
        assert_eq!(server.requests().len(), 2, "{provider}");
        assert_eq!(seen.len(), 2, "one call and its answer, the last calls not run: {provider}");
    }
}

#[tokio::test]
async fn server_errors_are_retried_then_reported_with_their_status() {
    for provider in Provider::ALL {
        let server = Server::start(vec![status(503, "overloaded")]).await;
        let (outcome, _) = run(&agent(provider, &server), "hi").await;
        assert_eq!(outcome.unwrap_err(), AgentError::Http { status: 503, message: "overloaded".into() });
        assert_eq!(server.requests().len(), 4, "{provider}: three retries");
    }
}

#[tokio::test]
async fn client_errors_carry_the_providers_own_error_message() {
    let cases = [
        (
            Provider::OpenAi,
            401,
            r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#,
            "invalid_request_error: Incorrect API key provided (code: invalid_api_key)",
        ),
        (
            Provider::OpenAiResponses,
            400,
            r#"{"error":{"message":"Invalid 'input[0]'","type":"invalid_request_error","param":"input","code":null}}"#,
            "invalid_request_error: Invalid 'input[0]' (param: input)",
        ),
        (
            Provider::Anthropic,
            400,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"},"request_id":"req_1"}"#,
            "invalid_request_error: max_tokens: Field required",
        ),
        (
            Provider::Gemini,
            404,
            r#"{"error":{"code":404,"message":"models/m is not found for API version v1beta","status":"NOT_FOUND"}}"#,
            "NOT_FOUND: models/m is not found for API version v1beta",
        ),
        (Provider::Anthropic, 429, "", "(empty body)"),
    ];
    for (provider, code, body, expected) in cases {
        // A 429 is retried, then reported like a 4xx.
        let server = Server::start(vec![status(code, body)]).await;
        let (outcome, _) = run(&agent(provider, &server), "hi").await;
        assert_eq!(
            outcome.unwrap_err(),
            AgentError::Http { status: code, message: expected.into() },
            "{provider}"
        );
        assert_eq!(server.requests().len(), if code == 429 { 4 } else { 1 }, "{provider}");
    }
}

#[tokio::test]
async fn a_wrong_base_url_is_a_404_with_the_body_text() {
    for provider in Provider::ALL {
        let server = Server::start(vec![text(provider, "unused")]).await;
        let root = server.base_url.trim_end_matches("/v1").to_owned();
        let agent = Agent::for_provider(&toolset::ALL, App::demo(), provider, root);
        let (outcome, _) = run(&agent, "hi").await;
        let expected = AgentError::Http { status: 404, message: "404 page not found".into() };
        assert_eq!(outcome.unwrap_err(), expected, "{provider}");
    }
}

#[tokio::test]
async fn bodies_that_are_not_the_providers_reply_are_malformed() {
    let wrong = [
        (Provider::OpenAi, vec!["not json at all", r#"{"choices": "many"}"#, "{}"]),
        (Provider::OpenAiResponses, vec!["not json at all", r#"{"output": "many"}"#, "{}"]),
        (Provider::Anthropic, vec!["not json at all", r#"{"content": [{"type": "tool_use"}]}"#, "{}"]),
        (Provider::Gemini, vec!["not json at all", r#"{"candidates": "many"}"#, "{}"]),
    ];
    for (provider, bodies) in wrong {
        for body in bodies {
            let server = Server::start(vec![status(200, body)]).await;
            let (outcome, _) = run(&agent(provider, &server), "hi").await;
            let error = outcome.unwrap_err();
            assert!(matches!(&error, AgentError::Malformed { .. }), "{provider} {body}: {error:?}");
            assert!(error.to_string().starts_with("the endpoint's reply is malformed"), "{error}");
        }
    }
}

#[tokio::test]
async fn errors_the_provider_reports_in_a_2xx_reply() {
    let failed = json!({"id": "resp_1", "object": "response", "status": "failed", "output": [],
        "error": {"code": "server_error", "message": "The model failed to generate a response."}});
    let blocked = json!({"promptFeedback": {"blockReason": "SAFETY", "safetyRatings": []},
        "usageMetadata": {"promptTokenCount": 8, "totalTokenCount": 8}});
    let overloaded = sse(&[
        (
            Some("message_start"),
            json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "m", "usage": {"input_tokens": 5, "output_tokens": 1}}}),
        ),
        (
            Some("error"),
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        ),
    ]);
    let chat_error =
        sse(&[(None, json!({"error": {"message": "The server had an error", "type": "server_error"}}))]);
    let cases = [
        (
            Provider::OpenAiResponses,
            status(200, &failed.to_string()),
            false,
            "server_error: The model failed to generate a response.",
        ),
        (Provider::Gemini, status(200, &blocked.to_string()), false, "the prompt was blocked: SAFETY"),
        (Provider::Anthropic, overloaded, true, "overloaded_error: Overloaded"),
        (Provider::OpenAi, chat_error, true, "The server had an error"),
    ];
    for (provider, reply, stream, message) in cases {
        let server = Server::start(vec![reply]).await;
        let (outcome, _) = run(&agent(provider, &server).stream(stream), "hi").await;
        let error = outcome.unwrap_err();
        assert_eq!(error, AgentError::Provider(message.into()), "{provider}");
        assert!(error.to_string().starts_with("the provider reported an error: "), "{error}");
    }
}

#[tokio::test]
async fn an_endpoint_nobody_listens_on_is_a_transport_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    for provider in Provider::ALL {
        let agent = Agent::for_provider(&toolset::ALL, App::demo(), provider, format!("http://{addr}/v1"));
        let (outcome, _) = run(&agent, "hi").await;
        let error = outcome.unwrap_err();
        assert!(matches!(error, AgentError::Connection { .. }), "{provider}: {error:?}");
        assert!(std::error::Error::source(&error).is_some(), "the HTTP client's error is kept");
        assert!(error.to_string().contains(&addr.to_string()), "{error}");
    }
}

#[tokio::test]
async fn bad_settings_are_config_errors_before_any_request() {
    for provider in Provider::ALL {
        let agent = Agent::for_provider(&toolset::ALL, App::demo(), provider, "ftp://example.com");
        let error = run(&agent, "hi").await.0.unwrap_err();
        assert!(
            matches!(&error, AgentError::Config(m) if m.contains("not http(s)")),
            "{provider}: {error:?}"
        );
        let agent = Agent::for_provider(&toolset::ALL, App::demo(), provider, "http://127.0.0.1:1/v1")
            .api_key(Some("k\nsecret".into()));
        let error = run(&agent, "hi").await.0.unwrap_err();
        assert_eq!(error, AgentError::Config("the API key is not a valid HTTP header value".into()));
    }
}

/// A streamed reply saying "Let me check." while asking for `get_weather`, in the
/// provider's own events, the call's arguments in fragments where the provider splits
/// them; then a streamed answer.
fn streamed(provider: Provider) -> (Reply, Reply) {
    match provider {
        Provider::OpenAi => {
            let chunk = |delta: Value| json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": null}]});
            let usage = json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}});
            let first = sse(&[
                (None, chunk(json!({"role": "assistant", "content": "Let me "}))),
                (None, chunk(json!({"content": "check."}))),
                (
                    None,
                    chunk(
                        json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]}),
                    ),
                ),
                (None, chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"city\":"}}]}))),
                (None, chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "\"Oslo\"}"}}]}))),
                (None, usage.clone()),
            ]);
            let mut first = first;
            first.body.push_str("data: [DONE]\n\n");
            let mut second = sse(&[
                (None, chunk(json!({"content": "21.5 "}))),
                (None, chunk(json!({"content": "degrees."}))),
                (None, usage),
            ]);
            second.body.push_str("data: [DONE]\n\n");
            (first, second)
        }
        Provider::OpenAiResponses => {
            let completed = json!({"type": "response.completed", "response": {"id": "resp_1", "object": "response", "status": "completed", "output": [], "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}}});
            let first = sse(&[
                (
                    Some("response.created"),
                    json!({"type": "response.created", "response": {"id": "resp_1", "object": "response", "status": "in_progress", "output": []}}),
                ),
                (
                    Some("response.output_item.added"),
                    json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "message", "id": "msg_1", "status": "in_progress", "role": "assistant", "content": []}}),
                ),
                (
                    Some("response.output_text.delta"),
                    json!({"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "Let me "}),
                ),
                (
                    Some("response.output_text.delta"),
                    json!({"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "check."}),
                ),
                (
                    Some("response.output_item.added"),
                    json!({"type": "response.output_item.added", "output_index": 1, "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather", "arguments": "", "status": "in_progress"}}),
                ),
                (
                    Some("response.function_call_arguments.delta"),
                    json!({"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 1, "delta": "{\"city\":"}),
                ),
                (
                    Some("response.function_call_arguments.delta"),
                    json!({"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 1, "delta": "\"Oslo\"}"}),
                ),
                (
                    Some("response.function_call_arguments.done"),
                    json!({"type": "response.function_call_arguments.done", "item_id": "fc_1", "output_index": 1, "arguments": WEATHER_ARGS}),
                ),
                (Some("response.completed"), completed.clone()),
            ]);
            let second = sse(&[
                (
                    Some("response.output_text.delta"),
                    json!({"type": "response.output_text.delta", "item_id": "msg_2", "output_index": 0, "content_index": 0, "delta": "21.5 "}),
                ),
                (
                    Some("response.output_text.delta"),
                    json!({"type": "response.output_text.delta", "item_id": "msg_2", "output_index": 0, "content_index": 0, "delta": "degrees."}),
                ),
                (Some("response.completed"), completed),
            ]);
            (first, second)
        }
        Provider::Anthropic => {
            let start = json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "m", "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 10, "output_tokens": 1}}});
            let first = sse(&[
                (Some("message_start"), start.clone()),
                (
                    Some("content_block_start"),
                    json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
                ),
                (Some("ping"), json!({"type": "ping"})),
                (
                    Some("content_block_delta"),
                    json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Let me "}}),
                ),
                (
                    Some("content_block_delta"),
                    json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "check."}}),
                ),
                (Some("content_block_stop"), json!({"type": "content_block_stop", "index": 0})),
                (
                    Some("content_block_start"),
                    json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {}}}),
                ),
                (
                    Some("content_block_delta"),
                    json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"city\":"}}),
                ),
                (
                    Some("content_block_delta"),
                    json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "\"Oslo\"}"}}),
                ),
                (Some("content_block_stop"), json!({"type": "content_block_stop", "index": 1})),
                (
                    Some("message_delta"),
                    json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null}, "usage": {"output_tokens": 5}}),
                ),
                (Some("message_stop"), json!({"type": "message_stop"})),
            ]);
            let second = sse(&[
                (Some("message_start"), start),
                (
                    Some("content_block_start"),
                    json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
                ),
                (
                    Some("content_block_delta"),
                    json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "21.5 "}}),
                ),
                (
                    Some("content_block_delta"),
                    json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "degrees."}}),
                ),
                (Some("content_block_stop"), json!({"type": "content_block_stop", "index": 0})),
                (
                    Some("message_delta"),
                    json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null}, "usage": {"output_tokens": 5}}),
                ),
                (Some("message_stop"), json!({"type": "message_stop"})),
            ]);
            (first, second)
        }
        Provider::Gemini => {
            let chunk = |parts: Value, usage: Value| json!({"candidates": [{"content": {"parts": parts, "role": "model"}, "index": 0}], "usageMetadata": usage, "modelVersion": "m"});
            let partial = json!({"promptTokenCount": 10, "candidatesTokenCount": 2, "totalTokenCount": 12});
            let whole = json!({"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15});
            let first = sse(&[
                (None, chunk(json!([{"text": "Let me "}]), partial.clone())),
                (None, chunk(json!([{"text": "check."}]), partial.clone())),
                (
                    None,
                    chunk(
                        json!([{"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}, "thoughtSignature": "c2lnbmF0dXJl"}]),
                        whole.clone(),
                    ),
                ),
            ]);
            let second = sse(&[
                (None, chunk(json!([{"text": "21.5 "}]), partial)),
                (None, chunk(json!([{"text": "degrees."}]), whole)),
            ]);
            (first, second)
        }
    }
}

#[tokio::test]
async fn streaming_reports_text_deltas_and_puts_calls_together_on_every_provider() {
    let weather = content("get_weather", WEATHER_ARGS).await;
    for provider in Provider::ALL {
        let (first, second) = streamed(provider);
        let server = Server::start(vec![first, second]).await;
        let (outcome, seen) = run(&agent(provider, &server).stream(true), "Weather in Oslo?").await;
        let outcome = outcome.unwrap_or_else(|e| panic!("{provider}: {e}"));
        assert_eq!(outcome.answer, "21.5 degrees.", "{provider}");
        assert_eq!(outcome.usage, Usage::new(20, 10), "{provider}");
        let id = match &seen[2] {
            Seen::Call(id, ..) => id.clone(),
            other => panic!("{provider}: {other:?}"),
        };
        assert_eq!(
            seen,
            [
                Seen::Text("Let me ".into()),
                Seen::Text("check.".into()),
                Seen::Call(id.clone(), "get_weather".into(), WEATHER_ARGS.into()),
                Seen::Result(id.clone(), "get_weather".into(), weather.clone()),
                Seen::Text("21.5 ".into()),
                Seen::Text("degrees.".into()),
            ],
            "{provider}"
        );
        match &outcome.messages[1] {
            toolcall_agent::Message::Assistant { content, tool_calls, .. } => {
                assert_eq!(content, "Let me check.", "{provider}");
                assert_eq!(tool_calls.len(), 1, "{provider}");
            }
            other => panic!("{provider}: {other:?}"),
        }
        let requests = server.requests();
        assert_eq!(requests[0].path, path(provider, true), "{provider}");
        match provider {
            Provider::OpenAi => {
                assert_eq!(requests[0].body["stream"], true);
                assert_eq!(requests[0].body["stream_options"], json!({"include_usage": true}));
            }
            Provider::Gemini => {
                assert_eq!(requests[0].query, "alt=sse");
                // The call's signature goes back with it.
                assert_eq!(requests[1].body["contents"][1]["parts"][1]["thoughtSignature"], "c2lnbmF0dXJl");
            }
            _ => assert_eq!(requests[0].body["stream"], true, "{provider}"),
        }
    }
}

#[tokio::test]
async fn a_stream_cut_short_is_malformed() {
    let cut = [
        (
            Provider::OpenAiResponses,
            sse(&[(None, json!({"type": "response.output_text.delta", "output_index": 0, "delta": "Hi"}))]),
        ),
        (Provider::Anthropic, sse(&[(None, json!({"type": "ping"}))])),
        (Provider::Gemini, status(200, "")),
        (Provider::OpenAi, sse(&[(None, json!({"choices": "many"}))])),
    ];
    for (provider, reply) in cut {
        let server = Server::start(vec![reply]).await;
        let (outcome, _) = run(&agent(provider, &server).stream(true), "hi").await;
        let error = outcome.unwrap_err();
        assert!(matches!(error, AgentError::Malformed { .. }), "{provider}: {error:?}");
    }
}

#[tokio::test]
async fn typed_output_uses_each_providers_own_mechanism() {
    let spec = toolcall_agent::OutputSpec {
        name: "Report".into(),
        description: "The report.".into(),
        schema: json!({"type": "object", "properties": {"temp": {"type": "number"}}, "required": ["temp"], "additionalProperties": false}),
        gemini_schema: None,
    };
    let decode = |text: &str| -> Result<f64, String> {
        let value: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        value["temp"].as_f64().ok_or_else(|| "`temp` is not a number".to_owned())
    };
    let answer = r#"{"temp":21.5}"#;
    for provider in Provider::ALL {
        let reply = match provider {
            Provider::Anthropic => {
                message(vec![tool_use("toolu_1", "Report", serde_json::from_str(answer).unwrap())], 1, 1)
            }
            _ => text(provider, answer),
        };
        let server = Server::start(vec![reply]).await;
        let (temp, outcome) =
            agent(provider, &server).run_output_with(&[], "temp?", &spec, decode, |_| {}).await.unwrap();
        assert_eq!((temp, outcome.turns), (21.5, 1), "{provider}");
        let body = &server.requests()[0].body;
        match provider {
            Provider::OpenAi => assert_eq!(
                body["response_format"],
                json!({"type": "json_schema", "json_schema": {"name": "Report", "description": "The report.", "schema": spec.schema, "strict": true}})
            ),
            Provider::OpenAiResponses => assert_eq!(
                body["text"],
                json!({"format": {"type": "json_schema", "name": "Report", "description": "The report.", "schema": spec.schema, "strict": true}})
            ),
            Provider::Anthropic => {
                let tools = body["tools"].as_array().unwrap();
                assert_eq!(
                    tools.last().unwrap(),
                    &json!({"name": "Report", "description": "The report.", "input_schema": spec.schema})
                );
                assert_eq!(tools.len(), toolset::ALL.len() + 1);
                assert_eq!(body["tool_choice"], json!({"type": "any"}));
            }
            Provider::Gemini => assert_eq!(
                body["generationConfig"],
                json!({"responseMimeType": "application/json", "responseJsonSchema": spec.schema})
            ),
        }
    }
}
