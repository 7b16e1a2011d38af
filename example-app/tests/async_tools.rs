//! example-app's context and async tools: identity comes from the context, two slow tools
//! of one message run concurrently, and calls can be spawned.

use std::sync::Arc;
use std::time::{Duration, Instant};

use example_app::app::Store;
use example_app::models::{Role, User};
use example_app::{App, toolset};
use serde_json::{Value, json};
use toolcall_runtime::ToolError;
use toolcall_runtime::glue::{answer_anthropic_message, answer_openai_message};

fn ada(store: &Arc<Store>) -> App {
    App::for_user(store, User { id: 1, name: "Ada".into(), role: Role::Editor })
}

fn grace(store: &Arc<Store>) -> App {
    App::for_user(store, User { id: 2, name: "Grace".into(), role: Role::Viewer })
}

fn owners(notes: &Value) -> Vec<u64> {
    notes.as_array().map(|n| n.iter().filter_map(|note| note["owner"].as_u64()).collect()).unwrap_or_default()
}

#[tokio::test]
async fn two_200_ms_tools_of_one_message_take_about_200_ms() {
    let store = Arc::new(Store::seeded(Duration::from_millis(200)));
    let app = ada(&store);
    let message = json!({"role": "assistant", "tool_calls": [
        {"id": "1", "type": "function", "function": {"name": "list_notes", "arguments": "{}"}},
        {"id": "2", "type": "function", "function": {"name": "add_note", "arguments": "{\"text\":\"hi\"}"}},
    ]});
    let started = Instant::now();
    let answers = answer_openai_message(&toolset::ALL, &app, &message).await;
    let elapsed = started.elapsed();
    assert_eq!(answers.len(), 2);
    assert!(elapsed >= Duration::from_millis(200), "{elapsed:?}: the tools did wait");
    assert!(elapsed < Duration::from_millis(380), "{elapsed:?}: run one after the other (400 ms)");
    assert_eq!(answers[0]["tool_call_id"], "1");
    assert_eq!(answers[1]["tool_call_id"], "2");

    let message = json!({"role": "assistant", "content": [
        {"type": "tool_use", "id": "a", "name": "list_notes", "input": {}},
        {"type": "tool_use", "id": "b", "name": "list_notes", "input": {"limit": 1}},
    ]});
    let started = Instant::now();
    let blocks = answer_anthropic_message(&toolset::ALL, &app, &message).await;
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_millis(380), "{elapsed:?}");
    assert_eq!(blocks.iter().map(|b| b["tool_use_id"].clone()).collect::<Vec<_>>(), [json!("a"), json!("b")]);
}

#[tokio::test]
async fn tools_act_as_the_signed_in_user_only() {
    let store = Arc::new(Store::seeded(Duration::ZERO));
    let (ada, grace) = (ada(&store), grace(&store));
    let mine = toolset::ALL.call(&ada, "list_notes", &json!({})).await.unwrap();
    assert_eq!(owners(&mine), [1, 1]);
    let hers = toolset::ALL.call(&grace, "list_notes", &json!({})).await.unwrap();
    assert_eq!(owners(&hers), [2]);
    // The model cannot name another user: there is no argument for it.
    for forged in [json!({"user_id": 2}), json!({"owner": 2}), json!({"app": {"user": {"id": 2}}})] {
        let result = toolset::ALL.call(&ada, "list_notes", &forged).await;
        assert!(matches!(result, Err(ToolError::UnknownArguments(_))), "{forged}: {result:?}");
    }
    let added = toolset::ALL.call(&ada, "add_note", &json!({"text": "mine"})).await.unwrap();
    assert_eq!(added["owner"], 1);
    assert_eq!(owners(&toolset::ALL.call(&grace, "list_notes", &json!({})).await.unwrap()), [2]);
    assert_eq!(toolset::ALL.call(&grace, "whoami", &json!({})).await, Ok(json!({"id": 2, "name": "Grace"})));
    let schema = toolset::ALL.describe().iter().find(|i| i.name == "add_note").map(|i| i.parameters_value());
    assert_eq!(schema.map(|s| s["required"].clone()), Some(json!(["text"])));
}

#[tokio::test]
async fn limits_and_errors_of_the_async_tools() {
    let store = Arc::new(Store::seeded(Duration::ZERO));
    let app = ada(&store);
    let newest = toolset::ALL.call(&app, "list_notes", &json!({"limit": 1})).await.unwrap();
    assert_eq!(newest.as_array().map(Vec::len), Some(1));
    assert_eq!(newest[0]["text"], "call the plumber about the boiler");
    let empty = toolset::ALL.call(&app, "add_note", &json!({"text": ""})).await;
    assert_eq!(empty, Err(ToolError::Failed("a note has 1 to 500 characters, got 0".into())));
    assert_eq!(
        toolset::ALL.run_with(&app, "list_notes", &json!({})),
        Err(ToolError::AsyncTool("list_notes".into()))
    );
    assert_eq!(toolset::ALL.run_with(&app, "whoami", &json!({})), Ok(json!({"id": 1, "name": "Ada"})));
}

/// #31 item 4: blank argument text (local model servers send `""` for a tool without
/// parameters) is `{}` through the generated text path and the glue; a required
/// parameter is then still missing.
#[tokio::test]
async fn blank_argument_text_is_an_empty_object() {
    let store = Arc::new(Store::seeded(Duration::ZERO));
    let app = ada(&store);
    let me = json!({"id": 1, "name": "Ada"});
    for blank in ["", "  ", "\n"] {
        assert_eq!(toolset::ALL.call_json(&app, "whoami", blank).await, Ok(me.clone()), "{blank:?}");
        assert_eq!(toolset::ALL.call_bytes(&app, "whoami", blank.as_bytes()).await, Ok(me.clone()));
        let missing = toolset::ALL.call_json(&app, "add_note", blank).await;
        assert_eq!(missing, Err(ToolError::MissingArgument("text".into())), "{blank:?}");
        let message = json!({"role": "assistant", "tool_calls": [
            {"id": "1", "type": "function", "function": {"name": "whoami", "arguments": blank}},
        ]});
        let answers = answer_openai_message(&toolset::ALL, &app, &message).await;
        let content: Value =
            serde_json::from_str(answers[0]["content"].as_str().unwrap_or_default()).unwrap_or_default();
        assert_eq!(content, me, "{blank:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_are_spawned_per_request_with_their_own_context() {
    let store = Arc::new(Store::seeded(Duration::from_millis(10)));
    let tasks: Vec<_> = (0..10u64)
        .map(|i| {
            let app =
                App::for_user(&store, User { id: 100 + i, name: format!("user {i}"), role: Role::Editor });
            tokio::spawn(async move {
                let text = format!("note {i}");
                toolset::ALL.call(&app, "add_note", &json!({"text": text})).await
            })
        })
        .collect();
    for (i, task) in (0..10u64).zip(tasks) {
        let note = task.await.unwrap().unwrap();
        assert_eq!(
            (note["owner"].as_u64(), note["text"].as_str()),
            (Some(100 + i), Some(format!("note {i}").as_str()))
        );
    }
    assert_eq!(store.notes_of(105, 10).await.unwrap().len(), 1);
}
