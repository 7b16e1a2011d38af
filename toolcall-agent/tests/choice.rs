//! Tool choice and parallel tool calls (`Agent::tool_choice`, `tool_choice_with`,
//! `keep_tool_choice`, `parallel_tool_calls`), as each provider's loopback fake receives
//! them, and on `ScriptedModel`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Server, provider_calls, provider_text};
use example_app::{App, toolset};
use serde_json::{Value, json};
use toolcall_agent::{Agent, AgentError, ModelResponse, Provider, ScriptedModel, ToolCall, ToolChoice};

/// What a request of `provider` said of the tool choice, and of parallel calls.
fn said(provider: Provider, body: &Value) -> (Value, Value) {
    let choice = match provider {
        Provider::Gemini => body["toolConfig"].clone(),
        _ => body["tool_choice"].clone(),
    };
    (choice, body["parallel_tool_calls"].clone())
}

fn expected(provider: Provider, choice: &ToolChoice) -> Value {
    match (provider, choice) {
        (Provider::OpenAi | Provider::OpenAiResponses, ToolChoice::Required) => json!("required"),
        (Provider::OpenAi | Provider::OpenAiResponses, ToolChoice::None) => json!("none"),
        (Provider::OpenAi, ToolChoice::Tool(name)) => json!({"type": "function", "function": {"name": name}}),
        (Provider::OpenAiResponses, ToolChoice::Tool(name)) => json!({"type": "function", "name": name}),
        (Provider::Anthropic, ToolChoice::Required) => {
            json!({"type": "any", "disable_parallel_tool_use": true})
        }
        (Provider::Anthropic, ToolChoice::None) => json!({"type": "none"}),
        (Provider::Anthropic, ToolChoice::Tool(name)) => {
            json!({"type": "tool", "name": name, "disable_parallel_tool_use": true})
        }
        (Provider::Gemini, ToolChoice::Required) => json!({"functionCallingConfig": {"mode": "ANY"}}),
        (Provider::Gemini, ToolChoice::None) => json!({"functionCallingConfig": {"mode": "NONE"}}),
        (Provider::Gemini, ToolChoice::Tool(name)) => {
            json!({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": [name]}})
        }
        other => panic!("no expectation for {other:?}"),
    }
}

fn agent(provider: Provider, server: &Server) -> Agent<App> {
    Agent::for_provider(&toolset::ALL, App::demo(), provider, server.url_for(provider)).model("m")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_provider_gets_the_choice_in_its_shape_until_a_tool_is_called() {
    let add = [("c1", "add", r#"{"a":1,"b":2}"#)];
    for provider in Provider::ALL {
        for choice in [ToolChoice::Required, ToolChoice::tool("add"), ToolChoice::None] {
            let server =
                Server::start(vec![provider_calls(provider, &add), provider_text(provider, "3")]).await;
            let agent = agent(provider, &server).tool_choice(choice.clone()).parallel_tool_calls(false);
            agent.run("add", |_| {}).await.unwrap();
            let requests = server.requests();
            let (first, parallel) = said(provider, &requests[0].body);
            assert_eq!(first, expected(provider, &choice), "{provider} {choice:?}");
            let parallel_expected = match provider {
                Provider::OpenAi | Provider::OpenAiResponses => json!(false),
                _ => Value::Null,
            };
            assert_eq!(parallel, parallel_expected, "{provider} {choice:?}");
            // After the call, the model decides again; parallel calls stay off.
            let (second, parallel) = said(provider, &requests[1].body);
            let second_expected = match provider {
                Provider::Anthropic => json!({"type": "auto", "disable_parallel_tool_use": true}),
                _ => Value::Null,
            };
            assert_eq!(second, second_expected, "{provider} {choice:?}");
            assert_eq!(parallel, parallel_expected, "{provider} {choice:?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_and_the_default_send_nothing_and_keep_tool_choice_keeps_it() {
    let add = [("c1", "add", r#"{"a":1,"b":2}"#)];
    for provider in Provider::ALL {
        let server = Server::start(vec![provider_text(provider, "hi")]).await;
        agent(provider, &server).tool_choice(ToolChoice::Auto).run("hi", |_| {}).await.unwrap();
        let body = &server.requests()[0].body;
        for key in ["tool_choice", "toolConfig", "parallel_tool_calls"] {
            assert!(body.get(key).is_none(), "{provider}: {key} in {body}");
        }
        let server = Server::start(vec![provider_calls(provider, &add), provider_text(provider, "3")]).await;
        let agent = agent(provider, &server).tool_choice(ToolChoice::tool("add")).keep_tool_choice(true);
        agent.run("add", |_| {}).await.unwrap();
        let requests = server.requests();
        let mut named = expected(provider, &ToolChoice::tool("add"));
        if let Some(object) = named.as_object_mut() {
            object.remove("disable_parallel_tool_use");
        }
        for request in &requests {
            assert_eq!(said(provider, &request.body).0, named, "{provider}");
        }
    }
}

#[tokio::test]
async fn a_choice_per_request_and_choices_the_run_cannot_meet() {
    let model = ScriptedModel::new([
        ModelResponse::calls([ToolCall::new("c1", "add", r#"{"a":1,"b":2}"#)]),
        ModelResponse::calls([ToolCall::new("c2", "add", r#"{"a":3,"b":4}"#)]),
        ModelResponse::text("7"),
    ]);
    let agent = Agent::with_model(&toolset::ALL, App::demo(), model.clone())
        .tool_choice_with(|n, messages| match n {
            1 => ToolChoice::tool("add"),
            2 if messages.len() == 3 => ToolChoice::Required,
            _ => ToolChoice::None,
        })
        .parallel_tool_calls(false);
    agent.run("add", |_| {}).await.unwrap();
    let seen: Vec<ToolChoice> = model.requests().into_iter().map(|r| r.tool_choice).collect();
    assert_eq!(seen, [ToolChoice::tool("add"), ToolChoice::Required, ToolChoice::None]);
    assert!(model.requests().iter().all(|r| r.parallel_tool_calls == Some(false)));

    let model = ScriptedModel::new([ModelResponse::text("never")]);
    let error = Agent::with_model(&toolset::ALL, App::demo(), model.clone())
        .tool_choice(ToolChoice::tool("nope"))
        .run("go", |_| {})
        .await
        .unwrap_err();
    assert_eq!(
        error,
        AgentError::Config("the tool choice names `nope`, which the run does not offer".into())
    );
    assert!(model.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anthropic_typed_output_keeps_its_final_answer_tool_with_parallel_calls_off() {
    let server = Server::start(vec![common::message(
        vec![common::tool_use("toolu_1", "Forecast", json!({"city": "Oslo", "tempC": 4.5}))],
        10,
        5,
    )])
    .await;
    let agent = Agent::for_provider(
        &toolcall_fixtures::toolset::ALL,
        (),
        Provider::Anthropic,
        server.base_url.clone(),
    )
    .parallel_tool_calls(false);
    let (forecast, _) =
        agent.run_output::<toolcall_fixtures::models::Forecast>("Oslo?", |_| {}).await.unwrap();
    assert_eq!(forecast.city, "Oslo");
    assert_eq!(
        server.requests()[0].body["tool_choice"],
        json!({"type": "any", "disable_parallel_tool_use": true})
    );
}
