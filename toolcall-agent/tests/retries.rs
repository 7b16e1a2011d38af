//! Retries against the loopback fakes: the wait the server asks for (`Retry-After`,
//! `retry-after-ms`, the rate-limit reset headers of OpenAI and Anthropic), the cap on it,
//! `x-should-retry`, `max_retries`; and the model's argument mistakes counted per tool
//! apart from the tools' own failures.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, SystemTime};

use common::{Reply, Server, answer, status, tool_calls};
use example_app::{App, toolset};
use toolcall_agent::{Agent, AgentError, ModelResponse, Provider, ScriptedModel, ToolCall};

fn agent(server: &Server) -> Agent<App> {
    Agent::new(&toolset::ALL, App::demo(), server.base_url.clone()).model("m")
}

/// The time between the first two requests the server got.
fn gap(server: &Server) -> Duration {
    let requests = server.requests();
    requests[1].at - requests[0].at
}

fn rate_limited() -> Reply {
    status(429, r#"{"error":{"message":"Rate limit reached","type":"requests"}}"#)
}

#[tokio::test]
async fn retry_after_and_retry_after_ms_are_waited_for() {
    let server = Server::start(vec![rate_limited().with_header("retry-after", "1"), answer("hi")]).await;
    assert_eq!(agent(&server).run("hi", |_| {}).await.unwrap().answer, "hi");
    assert!(gap(&server) >= Duration::from_secs(1), "{:?}", gap(&server));

    let limited = rate_limited().with_header("retry-after-ms", "300").with_header("retry-after", "30");
    let server = Server::start(vec![limited, answer("hi")]).await;
    agent(&server).run("hi", |_| {}).await.unwrap();
    let waited = gap(&server);
    assert!(waited >= Duration::from_millis(300) && waited < Duration::from_secs(5), "{waited:?}");
}

#[tokio::test]
async fn rate_limit_resets_are_waited_for_when_a_limit_is_used_up() {
    let openai = rate_limited()
        .with_header("x-ratelimit-remaining-requests", "0")
        .with_header("x-ratelimit-reset-requests", "400ms")
        .with_header("x-ratelimit-remaining-tokens", "5000")
        .with_header("x-ratelimit-reset-tokens", "6m0s");
    let server = Server::start(vec![openai, answer("hi")]).await;
    agent(&server).run("hi", |_| {}).await.unwrap();
    let waited = gap(&server);
    assert!(waited >= Duration::from_millis(400) && waited < Duration::from_secs(5), "{waited:?}");

    // Anthropic says when each limit resets, as a timestamp.
    let at = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap().as_secs() + 2;
    let (days, secs) = (at / 86_400, at % 86_400);
    let reset = format!("{}T{:02}:{:02}:{:02}Z", civil(days), secs / 3600, secs % 3600 / 60, secs % 60);
    let limited =
        status(429, r#"{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}"#)
            .with_header("anthropic-ratelimit-requests-remaining", "0")
            .with_header("anthropic-ratelimit-requests-reset", reset);
    let server = Server::start(vec![limited, common::message(vec![common::text_block("hi")], 1, 1)]).await;
    let agent = Agent::for_provider(&toolset::ALL, App::demo(), Provider::Anthropic, server.base_url.clone());
    agent.run("hi", |_| {}).await.unwrap();
    assert!(gap(&server) >= Duration::from_secs(1), "{:?}", gap(&server));
}

/// `YYYY-MM-DD` of a day since the epoch (Howard Hinnant's algorithm).
fn civil(days: u64) -> String {
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

#[tokio::test]
async fn a_wait_past_the_cap_ends_the_run_at_once() {
    let server = Server::start(vec![rate_limited().with_header("retry-after", "120"), answer("hi")]).await;
    let started = std::time::Instant::now();
    let error = agent(&server).run("hi", |_| {}).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(
        error,
        AgentError::RetryAfter {
            status: 429,
            message: "requests: Rate limit reached".into(),
            wait: Duration::from_secs(120)
        }
    );
    assert!(error.to_string().contains("asks to retry after 120.0 s"), "{error}");
    assert_eq!(server.requests().len(), 1);

    let server = Server::start(vec![rate_limited().with_header("retry-after", "2"), answer("hi")]).await;
    let error = agent(&server).max_retry_wait(Duration::from_secs(1)).run("hi", |_| {}).await.unwrap_err();
    assert!(matches!(error, AgentError::RetryAfter { status: 429, .. }), "{error}");
}

#[tokio::test]
async fn the_server_and_max_retries_decide_whether_to_retry() {
    let server =
        Server::start(vec![status(503, "down").with_header("x-should-retry", "false"), answer("hi")]).await;
    let error = agent(&server).run("hi", |_| {}).await.unwrap_err();
    assert_eq!(error, AgentError::Http { status: 503, message: "down".into() });
    assert_eq!(server.requests().len(), 1);

    let server =
        Server::start(vec![status(400, "flaky").with_header("x-should-retry", "true"), answer("hi")]).await;
    assert_eq!(agent(&server).run("hi", |_| {}).await.unwrap().answer, "hi");

    for (code, retried) in [(408, true), (409, true), (422, false)] {
        let server = Server::start(vec![status(code, "x"), answer("hi")]).await;
        let result = agent(&server).run("hi", |_| {}).await;
        assert_eq!(result.is_ok(), retried, "{code}: {result:?}");
    }

    let server = Server::start(vec![status(500, "boom")]).await;
    let error = agent(&server).max_retries(1).run("hi", |_| {}).await.unwrap_err();
    assert_eq!(error, AgentError::Http { status: 500, message: "boom".into() });
    assert_eq!(server.requests().len(), 2, "one retry");
    let server = Server::start(vec![status(500, "boom")]).await;
    agent(&server).max_retries(0).run("hi", |_| {}).await.unwrap_err();
    assert_eq!(server.requests().len(), 1, "no retry");
}

#[tokio::test]
async fn argument_mistakes_count_per_tool_and_failures_do_not() {
    // Refusals of `add` in a row pass its budget, whatever `divide` does between them.
    let bad_add = ToolCall::new("a", "add", r#"{"a":"one","b":2}"#);
    let failing = ToolCall::new("d", "divide", r#"{"a":1,"b":0}"#);
    let model = ScriptedModel::new([
        ModelResponse::calls([bad_add.clone(), failing.clone()]),
        ModelResponse::calls([bad_add.clone(), failing.clone()]),
        ModelResponse::calls([bad_add.clone()]),
    ]);
    let scripted = Agent::with_model(&toolset::ALL, App::demo(), model).tool_retries(2);
    match scripted.run("go", |_| {}).await.unwrap_err() {
        AgentError::ToolRetries { tool, refused, message } => {
            assert_eq!((tool.as_str(), refused), ("add", 3));
            assert!(message.contains("a: expected an integer"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    // A tool that keeps failing is the model's to read, not a retry: no budget for it.
    let model = ScriptedModel::new(
        std::iter::repeat_n(ModelResponse::calls([failing]), 5).chain([ModelResponse::text("gave up")]),
    );
    let outcome =
        Agent::with_model(&toolset::ALL, App::demo(), model).tool_retries(0).run("go", |_| {}).await.unwrap();
    assert_eq!(outcome.answer, "gave up");
    assert_eq!((outcome.run_usage.failed_calls, outcome.run_usage.refused_calls), (5, 0));

    // Over HTTP the same.
    let server = Server::start(vec![tool_calls(&[("c", "add", r#"{"a":"x","b":1}"#)])]).await;
    let error = agent(&server).tool_retries(1).run("go", |_| {}).await.unwrap_err();
    assert!(matches!(error, AgentError::ToolRetries { refused: 2, .. }), "{error}");
}
