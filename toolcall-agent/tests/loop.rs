//! The agent against a real HTTP server on 127.0.0.1 that plays a scripted model: the
//! requests it sent (tools, messages, ids, results, error texts, the API key), the
//! answer, the turn limit, and every way the endpoint can fail.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{Server, answer, calling, status, tool_calls};
use example_app::app::Store;
use example_app::models::User;
use example_app::{App, toolset};
use serde_json::{Value, json};
use toolcall_agent::{Agent, AgentError, Event, Outcome};
use toolcall_runtime::{Format, glue};

/// An event, owned, to compare after the run.
#[derive(Debug, PartialEq)]
enum Seen {
    Call(String, String, String),
    Result(String, String, String),
}

fn agent(server: &Server) -> Agent<App> {
    Agent::new(&toolset::ALL, App::demo(), server.base_url.clone())
        .api_key(Some("sk-test".to_owned()))
        .model("scripted-model")
}

/// Runs `agent` on `prompt`, returning the outcome and the events in order.
async fn run(agent: &Agent<App>, prompt: &str) -> (Result<Outcome, AgentError>, Vec<Seen>) {
    let mut seen = Vec::new();
    let outcome = agent
        .run(prompt, |event| match event {
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

/// What the glue answers for a call, computed here without the agent.
async fn expected_content(name: &str, arguments: &str) -> String {
    glue::content(&toolset::ALL.call_json(&App::demo(), name, arguments).await)
}

const WEATHER_ARGS: &str = r#"{"city":"Oslo"}"#;
const BAD_ADD_ARGS: &str = r#"{"a":"two","b":3}"#;

#[tokio::test]
async fn two_parallel_calls_one_bad_then_an_answer() {
    let first = [("call_weather", "get_weather", WEATHER_ARGS), ("call_add", "add", BAD_ADD_ARGS)];
    let server = Server::start(vec![tool_calls(&first), answer("Oslo: 21.5 degrees.")]).await;
    let (outcome, seen) = run(&agent(&server), "Weather in Oslo, and add two and 3?").await;
    let outcome = outcome.unwrap();
    assert_eq!(outcome.answer, "Oslo: 21.5 degrees.");
    assert_eq!(outcome.turns, 2);

    let weather = expected_content("get_weather", WEATHER_ARGS).await;
    assert_eq!(weather, r#"{"city":"Oslo","days":3,"temp":21.5}"#);
    let bad_add = expected_content("add", BAD_ADD_ARGS).await;
    let error: Value = serde_json::from_str(&bad_add).unwrap();
    assert_eq!((error["error"].as_str(), error["name"].as_str()), (Some("invalid_argument"), Some("a")));

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let tools = toolset::ALL.emit_value(Format::OpenAi, false);
    for request in &requests {
        assert_eq!(request.path, "/v1/chat/completions");
        assert_eq!(request.authorization.as_deref(), Some("Bearer sk-test"));
        assert_eq!(request.body["model"], "scripted-model");
        assert_eq!(request.body["tools"], tools);
    }
    let prompt = json!({"role": "user", "content": "Weather in Oslo, and add two and 3?"});
    assert_eq!(requests[0].body["messages"], json!([prompt]));
    assert_eq!(
        requests[1].body["messages"],
        json!([
            prompt,
            {"role": "assistant", "tool_calls": calling(&first)["tool_calls"]},
            {"role": "tool", "tool_call_id": "call_weather", "content": weather},
            {"role": "tool", "tool_call_id": "call_add", "content": bad_add},
        ])
    );
    assert_eq!(outcome.messages.len(), 4, "the prompt, the calls, their answers and the answer");
    assert_eq!(outcome.usage, toolcall_agent::Usage::new(20, 10));

    assert_eq!(
        seen,
        [
            Seen::Call("call_weather".into(), "get_weather".into(), WEATHER_ARGS.into()),
            Seen::Call("call_add".into(), "add".into(), BAD_ADD_ARGS.into()),
            Seen::Result("call_weather".into(), "get_weather".into(), weather),
            Seen::Result("call_add".into(), "add".into(), bad_add),
        ]
    );
}

#[tokio::test]
async fn the_calls_of_a_turn_run_concurrently() {
    // Two reads of a store whose round trip takes 300 ms: about 300 ms together, 600 one
    // after the other. The server sees the gap between the two requests.
    let store = Arc::new(Store::seeded(Duration::from_millis(300)));
    let app = App::for_user(&store, User::ada());
    let calls = [("call_1", "list_notes", "{}"), ("call_2", "list_notes", r#"{"limit":1}"#)];
    let server = Server::start(vec![tool_calls(&calls), answer("two lists")]).await;
    let agent = Agent::new(&toolset::ALL, app, server.base_url.clone());
    let (outcome, seen) = run(&agent, "list twice").await;
    assert_eq!(outcome.unwrap().answer, "two lists");
    assert_eq!(seen.len(), 4);
    let requests = server.requests();
    let gap = requests[1].at - requests[0].at;
    assert!(gap >= Duration::from_millis(300) && gap < Duration::from_millis(550), "{gap:?}");
    let notes = requests[1].body["messages"][2]["content"].as_str().unwrap();
    assert!(notes.contains("oat milk") && !notes.contains("launch codes"), "{notes}");
}

#[tokio::test]
async fn strict_sends_the_strict_definitions_and_a_system_message() {
    let server = Server::start(vec![answer("hi")]).await;
    let agent = agent(&server).strict(true).system("Be brief.");
    let (outcome, seen) = run(&agent, "hello").await;
    assert_eq!(outcome.unwrap().answer, "hi");
    assert!(seen.is_empty());
    let request = &server.requests()[0].body;
    assert_eq!(request["tools"], toolset::ALL.emit_value(Format::OpenAi, true));
    assert_ne!(request["tools"], toolset::ALL.emit_value(Format::OpenAi, false));
    assert_eq!(
        request["messages"],
        json!([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hello"}])
    );
}

#[tokio::test]
async fn an_unknown_tool_is_answered_to_the_model_as_an_error() {
    let calls = [("call_1", "launch_rockets", "{}")];
    let server = Server::start(vec![tool_calls(&calls), answer("I cannot launch rockets.")]).await;
    let (outcome, _) = run(&agent(&server), "launch").await;
    assert_eq!(outcome.unwrap().answer, "I cannot launch rockets.");
    let sent = &server.requests()[1].body["messages"][2];
    assert_eq!(sent["tool_call_id"], "call_1");
    let error: Value = serde_json::from_str(sent["content"].as_str().unwrap()).unwrap();
    assert_eq!(error["error"], "unknown_tool");
    assert_eq!(error["name"], "launch_rockets");
    assert!(error["known"].as_array().unwrap().contains(&json!("get_weather")), "{error}");
}

#[tokio::test]
async fn arguments_that_are_not_json_go_back_as_the_error_text() {
    let calls = [("call_1", "add", "{\"a\": 1,")];
    let server = Server::start(vec![tool_calls(&calls), answer("retrying later")]).await;
    let (outcome, _) = run(&agent(&server), "add").await;
    assert_eq!(outcome.unwrap().turns, 2);
    let content = server.requests()[1].body["messages"][2]["content"].as_str().unwrap().to_owned();
    assert_eq!(content, expected_content("add", "{\"a\": 1,").await);
    assert!(content.contains("invalid_json"), "{content}");
}

#[tokio::test]
async fn the_turn_limit_ends_the_run_without_running_the_last_calls() {
    let server = Server::start(vec![tool_calls(&[("call_1", "add", r#"{"a":1,"b":2}"#)])]).await;
    let (outcome, seen) = run(&agent(&server).max_turns(2), "loop forever").await;
    assert_eq!(outcome.unwrap_err(), AgentError::TurnLimit(2));
    assert_eq!(server.requests().len(), 2);
    assert_eq!(
        seen,
        [
            Seen::Call("call_1".into(), "add".into(), r#"{"a":1,"b":2}"#.into()),
            Seen::Result("call_1".into(), "add".into(), "3".into()),
        ]
    );
}

#[tokio::test]
async fn a_server_error_is_reported_with_its_status_after_the_retries() {
    let server = Server::start(vec![status(500, "upstream exploded")]).await;
    let (outcome, _) = run(&agent(&server), "hi").await;
    let error = outcome.unwrap_err();
    assert_eq!(error, AgentError::Http { status: 500, message: "upstream exploded".into() });
    assert_eq!(error.to_string(), "the endpoint answered HTTP 500: upstream exploded");
    assert_eq!(server.requests().len(), 4, "a 5xx is retried three times");
}

#[tokio::test]
async fn a_client_error_carries_the_openai_error_message() {
    let body = r#"{"error":{"message":"model `nope` does not exist","type":"invalid_request_error","param":"model","code":null}}"#;
    let server = Server::start(vec![status(400, body)]).await;
    let (outcome, _) = run(&agent(&server), "hi").await;
    let AgentError::Http { status, message } = outcome.unwrap_err() else { panic!("not an HTTP error") };
    assert_eq!(status, 400);
    assert_eq!(message, "invalid_request_error: model `nope` does not exist (param: model)");
    assert_eq!(server.requests().len(), 1, "a 4xx is not retried");
}

#[tokio::test]
async fn a_wrong_base_url_is_a_404_with_the_body_text() {
    let server = Server::start(vec![answer("unused")]).await;
    let base = server.base_url.trim_end_matches("/v1").to_owned();
    let agent = Agent::new(&toolset::ALL, App::demo(), base).api_key(None);
    let (outcome, _) = run(&agent, "hi").await;
    assert_eq!(outcome.unwrap_err(), AgentError::Http { status: 404, message: "404 page not found".into() });
    let requests = server.requests();
    assert_eq!(requests[0].path, "/chat/completions");
    assert_eq!(requests[0].authorization, None, "no key, no header");
}

#[tokio::test]
async fn a_body_that_is_not_a_chat_completion_is_malformed() {
    for body in ["not json at all", r#"{"id": "x", "choices": "many"}"#] {
        let server = Server::start(vec![status(200, body)]).await;
        let (outcome, _) = run(&agent(&server), "hi").await;
        let error = outcome.unwrap_err();
        assert!(matches!(&error, AgentError::Malformed { body: sent, .. } if sent == body), "{error:?}");
        assert!(error.to_string().starts_with("the endpoint's reply is malformed"), "{error}");
    }
}

#[tokio::test]
async fn a_completion_without_choices_is_malformed() {
    let empty = json!({"id": "x", "object": "chat.completion", "created": 1, "model": "m", "choices": []});
    let server = Server::start(vec![status(200, &empty.to_string())]).await;
    let (outcome, _) = run(&agent(&server), "hi").await;
    assert_eq!(
        outcome.unwrap_err(),
        AgentError::Malformed { reason: "`choices` is empty".into(), body: String::new() }
    );
}

#[tokio::test]
async fn an_endpoint_nobody_listens_on_is_a_transport_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let agent = Agent::new(&toolset::ALL, App::demo(), format!("http://{addr}/v1"));
    let (outcome, _) = run(&agent, "hi").await;
    let error = outcome.unwrap_err();
    assert!(matches!(error, AgentError::Connection { .. }), "{error:?}");
    assert!(std::error::Error::source(&error).is_some(), "the HTTP client's error is kept");
    assert!(error.to_string().contains(&addr.to_string()), "{error}");
}

#[tokio::test]
async fn a_tools_own_time_limit_ends_its_call_and_the_model_is_told() {
    // `remove_note` has a 2 s limit of its own (`TOOLS` in example-app); the store's round
    // trip takes 3 s, so the call is cancelled at 2 s, before it removes anything.
    let store = Arc::new(Store::seeded(Duration::from_millis(3_000)));
    let app = App::for_user(&store, User::ada());
    let calls = [("call_1", "remove_note", r#"{"id":1}"#)];
    let server = Server::start(vec![tool_calls(&calls), answer("it took too long")]).await;
    // Approved, so the tool's own confirmation is that yes and it goes to the store.
    let agent = Agent::new(&toolset::ALL, app, server.base_url.clone()).approve(|_| async { true });
    let started = std::time::Instant::now();
    let (outcome, _) = run(&agent, "remove my first note").await;
    assert_eq!(outcome.unwrap().answer, "it took too long");
    assert!(started.elapsed() < Duration::from_millis(2_900), "{:?}", started.elapsed());
    let content = server.requests()[1].body["messages"][2]["content"].as_str().unwrap().to_owned();
    assert!(
        content.contains("`remove_note` did not finish within 2000 ms (the tool's time limit)"),
        "{content}"
    );
    assert_eq!(store.notes_of(1, 10).await.unwrap().len(), 2, "the cancelled call removed nothing");
}
