//! Budgets of a run (`Agent::limits`): requests, tool calls and tokens, each ending the
//! run with `AgentError::UsageLimit` and the usage so far, on `ScriptedModel` and on the
//! loopback fake of each provider; and what `Outcome::run_usage` counts.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Server, provider_calls, provider_text};
use example_app::{App, toolset};
use toolcall_agent::{
    Agent, AgentError, Limit, ModelResponse, Provider, RunUsage, ScriptedModel, ToolCall, UsageLimits,
};

fn add(id: &str) -> ToolCall {
    ToolCall::new(id, "add", r#"{"a":1,"b":2}"#)
}

fn agent(model: &ScriptedModel, limits: UsageLimits) -> Agent<App> {
    Agent::with_model(&toolset::ALL, App::demo(), model.clone()).limits(limits)
}

/// The limit a run passed and what it had used; panics on any other ending.
fn passed(result: Result<toolcall_agent::Outcome, AgentError>) -> (Limit, RunUsage) {
    match result {
        Err(AgentError::UsageLimit { limit, usage }) => (limit, usage),
        other => panic!("not a usage limit: {other:?}"),
    }
}

#[tokio::test]
async fn a_request_limit_sends_that_many_requests_and_no_more() {
    let model =
        ScriptedModel::new((0..5).map(|i| ModelResponse::calls([add(&format!("c{i}"))]).with_usage(10, 2)));
    let (limit, usage) = passed(agent(&model, UsageLimits::new().requests(2)).run("go", |_| {}).await);
    assert_eq!(limit, Limit::Requests(2));
    assert_eq!((usage.requests, usage.tool_calls, usage.tokens.input_tokens), (2, 2, 20));
    assert_eq!(model.requests().len(), 2);
}

#[tokio::test]
async fn a_reply_whose_calls_pass_the_limit_runs_none_of_them() {
    let model = ScriptedModel::new([
        ModelResponse::calls([add("c1")]),
        ModelResponse::calls([add("c2"), add("c3")]),
        ModelResponse::text("3"),
    ]);
    let mut calls = 0;
    let result = agent(&model, UsageLimits::new().tool_calls(2))
        .run("go", |event| {
            if matches!(event, toolcall_agent::Event::ToolCall { .. }) {
                calls += 1;
            }
        })
        .await;
    let (limit, usage) = passed(result);
    assert_eq!(limit, Limit::ToolCalls(2));
    assert_eq!((usage.requests, usage.tool_calls), (2, 1));
    assert_eq!(calls, 1, "the second reply's calls were not run");
    assert_eq!(
        limit.to_string() + " / " + &AgentError::UsageLimit { limit, usage }.to_string(),
        "2 tool call(s) / the run passed its limit of 2 tool call(s); it used 2 request(s), 1 tool call(s), 0 input and 0 output token(s)"
    );
}

#[tokio::test]
async fn token_limits_are_checked_after_each_reply() {
    for (limits, expected) in [
        (UsageLimits::new().input_tokens(20), Limit::InputTokens(20)),
        (UsageLimits::new().output_tokens(3), Limit::OutputTokens(3)),
        (UsageLimits::new().total_tokens(25), Limit::TotalTokens(25)),
    ] {
        let model = ScriptedModel::new([
            ModelResponse::calls([add("c1")]).with_usage(12, 2),
            ModelResponse::text("3").with_usage(12, 2),
        ]);
        let (limit, usage) = passed(agent(&model, limits).run("go", |_| {}).await);
        assert_eq!(limit, expected);
        assert_eq!((usage.requests, usage.tokens.input_tokens, usage.tokens.output_tokens), (2, 24, 4));
    }
    // Within every limit, the run answers.
    let model = ScriptedModel::new([ModelResponse::text("hi").with_usage(12, 2)]);
    let limits =
        UsageLimits::new().requests(1).tool_calls(0).input_tokens(12).output_tokens(2).total_tokens(14);
    let outcome = agent(&model, limits).run("go", |_| {}).await.unwrap();
    assert_eq!(outcome.answer, "hi");
}

#[tokio::test]
async fn the_outcome_counts_refused_and_failed_calls_apart() {
    let model = ScriptedModel::new([
        ModelResponse::calls([
            ToolCall::new("c1", "add", r#"{"a":"one","b":2}"#),
            ToolCall::new("c2", "divide", r#"{"a":1,"b":0}"#),
            add("c3"),
        ])
        .with_usage(5, 1),
        ModelResponse::text("3").with_usage(6, 1),
    ]);
    let outcome = agent(&model, UsageLimits::new()).run("go", |_| {}).await.unwrap();
    let usage = outcome.run_usage;
    assert_eq!((usage.requests, usage.tool_calls, usage.refused_calls, usage.failed_calls), (2, 3, 1, 1));
    assert_eq!(usage.tokens, outcome.usage);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_provider_ends_the_run_at_its_token_limit() {
    for provider in Provider::ALL {
        let calls = [("c1", "add", r#"{"a":1,"b":2}"#)];
        let server =
            Server::start(vec![provider_calls(provider, &calls), provider_text(provider, "3")]).await;
        let agent = Agent::for_provider(&toolset::ALL, App::demo(), provider, server.url_for(provider))
            .model("m")
            .limits(UsageLimits::new().output_tokens(9));
        let (limit, usage) = passed(agent.run("go", |_| {}).await);
        assert_eq!(limit, Limit::OutputTokens(9), "{provider}");
        assert_eq!((usage.requests, usage.tool_calls, usage.tokens.output_tokens), (2, 1, 10), "{provider}");
        assert_eq!(server.requests().len(), 2, "{provider}");
    }
}
