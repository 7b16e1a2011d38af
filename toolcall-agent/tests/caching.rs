//! Prompt caching, reasoning and defaults against the loopback fakes: Anthropic's
//! `cache_control` breakpoints (`Agent::prompt_cache`) and every provider's cache reads
//! and writes in `Usage`; OpenAI Responses reasoning items sent back on the next request
//! (streamed or not, encrypted on request); the default models and output-token limits.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{Server, json_reply, response, sse};
use example_app::{App, toolset};
use serde_json::{Value, json};
use toolcall_agent::{ANTHROPIC_MAX_TOKENS, Agent, Message, Provider, Reasoning, Usage};
use toolcall_runtime::Format;

fn add_call() -> Value {
    common::function_call("call_1", "add", r#"{"a":1,"b":2}"#)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anthropic_prompt_cache_marks_the_tools_the_system_prompt_and_the_conversation() {
    let usage = json!({"input_tokens": 12, "cache_creation_input_tokens": 900, "cache_read_input_tokens": 0, "output_tokens": 5});
    let first = json_reply(json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "m", "stop_reason": "tool_use",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 1, "b": 2}}],
        "usage": usage,
    }));
    let second = json_reply(json!({
        "id": "msg_2", "type": "message", "role": "assistant", "model": "m", "stop_reason": "end_turn",
        "content": [{"type": "text", "text": "3"}],
        "usage": {"input_tokens": 30, "cache_creation_input_tokens": 40, "cache_read_input_tokens": 900, "output_tokens": 2},
    }));
    let server = Server::start(vec![first, second]).await;
    let agent = Agent::for_provider(&toolset::ALL, App::demo(), Provider::Anthropic, server.base_url.clone())
        .system("Be brief.")
        .prompt_cache(true);
    let outcome = agent.run("add 1 and 2", |_| {}).await.unwrap();
    assert_eq!(
        outcome.usage,
        Usage { cache_read_tokens: 900, cache_write_tokens: 940, ..Usage::new(1882, 7) }
    );

    let requests = server.requests();
    let ephemeral = json!({"type": "ephemeral"});
    let body = &requests[0].body;
    assert_eq!(body["system"], json!([{"type": "text", "text": "Be brief.", "cache_control": ephemeral}]));
    let tools = body["tools"].as_array().unwrap();
    let emitted = toolset::ALL.emit_value(Format::Anthropic, false);
    let emitted = emitted.as_array().unwrap();
    assert_eq!(tools[..tools.len() - 1], emitted[..emitted.len() - 1], "only the last tool is marked");
    assert_eq!(tools.last().unwrap()["cache_control"], ephemeral);
    assert_eq!(body["messages"][0]["content"][0]["cache_control"], ephemeral);
    // The next request marks its own last block: the tool result.
    let last = &requests[1].body["messages"][2]["content"][0];
    assert_eq!((last["type"].as_str(), &last["cache_control"]), (Some("tool_result"), &ephemeral));
    assert!(
        requests[1].body["messages"][0]["content"][0].get("cache_control").is_none(),
        "at most four breakpoints"
    );

    // Without the option, nothing is marked.
    let server = Server::start(vec![common::message(vec![common::text_block("hi")], 1, 1)]).await;
    Agent::for_provider(&toolset::ALL, App::demo(), Provider::Anthropic, server.base_url.clone())
        .system("Be brief.")
        .run("hi", |_| {})
        .await
        .unwrap();
    let body = &server.requests()[0].body;
    assert_eq!(body["system"], "Be brief.");
    assert!(!body.to_string().contains("cache_control"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_and_gemini_cache_reads_are_reported() {
    let chat = json_reply(json!({
        "id": "c", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 2000, "completion_tokens": 3, "total_tokens": 2003, "prompt_tokens_details": {"cached_tokens": 1920}},
    }));
    let server = Server::start(vec![chat]).await;
    let outcome =
        Agent::new(&toolset::ALL, App::demo(), server.base_url.clone()).run("hi", |_| {}).await.unwrap();
    assert_eq!(outcome.usage, Usage { cache_read_tokens: 1920, ..Usage::new(2000, 3) });

    let gemini = json_reply(json!({
        "candidates": [{"content": {"role": "model", "parts": [{"text": "hi"}]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 5000, "cachedContentTokenCount": 4096, "candidatesTokenCount": 2, "totalTokenCount": 5002},
    }));
    let server = Server::start(vec![gemini]).await;
    let agent = Agent::for_provider(&toolset::ALL, App::demo(), Provider::Gemini, server.gemini_url.clone());
    let outcome = agent.run("hi", |_| {}).await.unwrap();
    assert_eq!(outcome.usage, Usage { cache_read_tokens: 4096, ..Usage::new(5000, 2) });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn responses_reasoning_items_go_back_before_their_calls_streamed_or_not() {
    let reasoning = json!({"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Add."}], "encrypted_content": "gAAAA"});
    let server = Server::start(vec![
        response(vec![reasoning.clone(), add_call()], 10, 5),
        response(vec![common::output_message("3")], 10, 5),
    ])
    .await;
    let agent =
        Agent::for_provider(&toolset::ALL, App::demo(), Provider::OpenAiResponses, server.base_url.clone())
            .encrypted_reasoning(true);
    let outcome = agent.run("add", |_| {}).await.unwrap();
    let requests = server.requests();
    assert_eq!(requests[0].body["store"], false);
    assert_eq!(requests[0].body["include"], json!(["reasoning.encrypted_content"]));
    let input = requests[1].body["input"].as_array().unwrap();
    assert_eq!(input[1], reasoning, "the reasoning item, whole");
    assert_eq!(input[2]["type"], "function_call");
    let Message::Assistant { reasoning: kept, .. } = &outcome.messages[1] else {
        panic!("{:?}", outcome.messages)
    };
    let expected = Reasoning {
        id: "rs_1".into(),
        summary: vec!["Add.".into()],
        encrypted_content: Some("gAAAA".into()),
    };
    assert_eq!(kept, &[expected]);
    // Stored and resumed, the conversation keeps it.
    let stored: Vec<Message> =
        serde_json::from_str(&serde_json::to_string(&outcome.messages).unwrap()).unwrap();
    assert_eq!(stored, outcome.messages);

    // Streamed: the reasoning item arrives whole in `response.output_item.done`.
    let item = json!({"type": "reasoning", "id": "rs_2", "summary": []});
    let streamed = sse(&[
        (
            None,
            json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "reasoning", "id": "rs_2", "summary": []}}),
        ),
        (None, json!({"type": "response.output_item.done", "output_index": 0, "item": item})),
        (
            None,
            json!({"type": "response.output_item.added", "output_index": 1, "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "add", "arguments": ""}}),
        ),
        (
            None,
            json!({"type": "response.function_call_arguments.done", "output_index": 1, "arguments": "{\"a\":1,\"b\":2}"}),
        ),
        (
            None,
            json!({"type": "response.completed", "response": {"id": "r", "status": "completed", "output": [], "usage": {"input_tokens": 1, "output_tokens": 1}}}),
        ),
    ]);
    let answer = sse(&[
        (None, json!({"type": "response.output_text.delta", "output_index": 0, "delta": "3"})),
        (
            None,
            json!({"type": "response.completed", "response": {"id": "r", "status": "completed", "output": [], "usage": {"input_tokens": 1, "output_tokens": 1}}}),
        ),
    ]);
    let server = Server::start(vec![streamed, answer]).await;
    let agent =
        Agent::for_provider(&toolset::ALL, App::demo(), Provider::OpenAiResponses, server.base_url.clone())
            .stream(true);
    agent.run("add", |_| {}).await.unwrap();
    let requests = server.requests();
    assert!(requests[0].body.get("store").is_none() && requests[0].body.get("include").is_none());
    assert_eq!(requests[1].body["input"][1], item);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn default_models_and_output_token_limits() {
    assert_eq!(
        Provider::ALL.map(Provider::default_model),
        ["gpt-5.5", "gpt-5.5", "claude-sonnet-5", "gemini-3.5-flash"]
    );
    assert_eq!(
        Provider::ALL.map(Provider::default_max_tokens),
        [None, None, Some(ANTHROPIC_MAX_TOKENS), None]
    );
    for provider in Provider::ALL {
        let reply = common::provider_text(provider, "hi");
        let server = Server::start(vec![reply]).await;
        Agent::for_provider(&toolset::ALL, App::demo(), provider, server.url_for(provider))
            .run("hi", |_| {})
            .await
            .unwrap();
        let request = &server.requests()[0];
        match provider {
            Provider::Gemini => {
                assert_eq!(request.path, "/v1beta/models/gemini-3.5-flash:generateContent");
                assert!(request.body.get("generationConfig").is_none(), "the model's own limit");
            }
            Provider::Anthropic => {
                assert_eq!(request.body["model"], "claude-sonnet-5");
                assert_eq!(request.body["max_tokens"], 16_384);
            }
            _ => {
                assert_eq!(request.body["model"], "gpt-5.5", "{provider}");
                assert!(
                    request.body.get("max_completion_tokens").is_none()
                        && request.body.get("max_output_tokens").is_none()
                );
            }
        }
    }
}
