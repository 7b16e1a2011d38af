//! Context and async tools (DESIGN.md "Tools that do real work"), compiled for real:
//! `context_tools` is generated with `Builder::context("crate::Ctx")`, `tools::asynchronous`
//! is a context-free crate's async tools.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::{Value, json};
use toolcall_fixtures::context_toolset::{self, ALL};
use toolcall_fixtures::{Ctx, toolset};
use toolcall_runtime::{Format, ToolError};

fn ctx(user: &str) -> Ctx {
    Ctx { user: user.to_owned(), ..Ctx::default() }
}

fn parameters(tool: &str) -> Vec<String> {
    let info = ALL.describe().iter().find(|i| i.name == tool).unwrap_or_else(|| panic!("no tool {tool}"));
    let schema = info.parameters_value();
    schema["properties"].as_object().map(|p| p.keys().cloned().collect()).unwrap_or_default()
}

// --- The context ------------------------------------------------------------------------

#[test]
fn the_context_is_in_no_schema_in_any_position() {
    assert_eq!(parameters("whoami"), Vec::<String>::new());
    assert_eq!(parameters("greet"), ["greeting", "punctuation"]);
    assert_eq!(parameters("note"), ["id"]);
    assert_eq!(parameters("twice"), ["label"]);
    assert_eq!(parameters("explode"), ["message"]);
    for format in Format::ALL {
        for strict in [false, true] {
            let text = ALL.emit(format, strict);
            for binding in ["\"ctx\"", "\"session\"", "\"first\"", "\"second\""] {
                assert!(!text.contains(binding), "{binding} in {format:?} strict={strict}: {text}");
            }
        }
    }
}

#[tokio::test]
async fn tools_read_the_callers_context_in_any_position() {
    let ada = ctx("ada");
    assert_eq!(ALL.call(&ada, "whoami", &json!({})).await, Ok(json!("ada")));
    assert_eq!(ALL.call(&ada, "greet", &json!({"greeting": "Hi"})).await, Ok(json!("Hi, ada!")));
    assert_eq!(
        ALL.call(&ada, "greet", &json!({"greeting": "Hi", "punctuation": "?"})).await,
        Ok(json!("Hi, ada?"))
    );
    assert_eq!(ALL.call(&ada, "twice", &json!({"label": "same"})).await, Ok(json!("same: ada true")));
    assert_eq!(ALL.call(&ada, "add", &json!({"a": 2, "b": 3})).await, Ok(json!(5)));
    let grace = ctx("grace");
    assert_eq!(ALL.call(&grace, "note", &json!({"id": 7})).await, Ok(json!("note 7 of grace")));
    assert_eq!(grace.hits.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn no_argument_reaches_the_context() {
    let ada = ctx("ada");
    for forged in
        [json!({"ctx": {"user": "mallory"}}), json!({"user": "mallory"}), json!({"session": "mallory"})]
    {
        let key = forged.as_object().and_then(|o| o.keys().next().cloned()).unwrap_or_default();
        assert_eq!(
            ALL.call(&ada, "whoami", &forged).await,
            Err(ToolError::UnknownArguments(vec![key.as_str().into()]))
        );
        let mut note = forged.clone();
        note["id"] = json!(1);
        assert_eq!(ALL.call(&ada, "note", &note).await, Err(ToolError::UnknownArguments(vec![key.into()])));
    }
    assert_eq!(ada.hits.load(Ordering::SeqCst), 0, "a refused call never runs the tool");
}

#[tokio::test]
async fn call_json_and_call_bytes_parse_then_call() {
    let ada = ctx("ada");
    assert_eq!(ALL.call_json(&ada, "note", r#"{"id": 3}"#).await, Ok(json!("note 3 of ada")));
    assert_eq!(ALL.call_json(&ada, "note", r#"{"id": 0}"#).await, Err(ToolError::Failed("no note 0".into())));
    assert!(matches!(ALL.call_json(&ada, "note", "{").await, Err(ToolError::InvalidJson(_))));
    assert!(matches!(ALL.call_bytes(&ada, "note", b"{\"id\":\xff}").await, Err(ToolError::InvalidJson(_))));
    let unknown = ALL.call_json(&ada, "nope", "{}").await;
    assert!(matches!(unknown, Err(ToolError::UnknownTool { ref name, .. }) if name == "nope"), "{unknown:?}");
    // A module's toolset serves only its own tools.
    let cancel = &context_toolset::cancel::TOOLS;
    assert!(matches!(cancel.call(&ada, "whoami", &json!({})).await, Err(ToolError::UnknownTool { .. })));
}

#[tokio::test]
async fn argument_errors_of_async_tools_come_back_before_the_body_runs() {
    let ada = ctx("ada");
    assert_eq!(ALL.call(&ada, "note", &json!({})).await, Err(ToolError::MissingArgument("id".into())));
    let wrong = ALL.call(&ada, "note", &json!({"id": "x"})).await.unwrap_err();
    assert_eq!(wrong.to_string(), r#"id: expected an integer, got "x""#);
    assert_eq!(ada.hits.load(Ordering::SeqCst), 0);
}

// --- Async: Send, panics, cancellation --------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_call_future_is_send_and_can_be_spawned() {
    let ada = Arc::new(ctx("ada"));
    let handles: Vec<_> = (1..=8)
        .map(|id| {
            let ada = Arc::clone(&ada);
            tokio::spawn(async move { ALL.call(&ada, "note", &json!({"id": id})).await })
        })
        .collect();
    for (id, handle) in (1..=8).zip(handles) {
        assert_eq!(handle.await.unwrap(), Ok(json!(format!("note {id} of ada"))));
    }
    assert_eq!(ada.hits.load(Ordering::SeqCst), 8);
}

#[tokio::test]
async fn a_panic_in_a_later_poll_is_panicked_and_the_next_call_works() {
    let ada = ctx("ada");
    let result = ALL.call(&ada, "explode", &json!({"message": "boom after a turn"})).await;
    assert_eq!(result, Err(ToolError::Panicked("boom after a turn".into())));
    assert_eq!(ada.live.load(Ordering::SeqCst), 0, "the guard was dropped while unwinding");
    assert_eq!(ALL.call(&ada, "whoami", &json!({})).await, Ok(json!("ada")));
    assert_eq!(ALL.call(&ada, "note", &json!({"id": 1})).await, Ok(json!("note 1 of ada")));
}

#[tokio::test]
async fn dropping_the_call_cancels_the_tool_and_leaks_nothing() {
    let ada = Arc::new(ctx("ada"));
    // A timeout drops the call future at its deadline.
    for _ in 0..3 {
        let timed_out =
            tokio::time::timeout(Duration::from_millis(20), ALL.call(&ada, "hold", &json!({}))).await;
        assert!(timed_out.is_err(), "`hold` never finishes");
        assert_eq!(ada.live.load(Ordering::SeqCst), 0);
    }
    // A spawned call is alive while it waits and gone once aborted.
    let task = {
        let ada = Arc::clone(&ada);
        tokio::spawn(async move { ALL.call(&ada, "hold", &json!({})).await })
    };
    for _ in 0..100 {
        if ada.live.load(Ordering::SeqCst) == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(ada.live.load(Ordering::SeqCst), 1, "the held call is running");
    task.abort();
    assert!(task.await.unwrap_err().is_cancelled());
    assert_eq!(ada.live.load(Ordering::SeqCst), 0, "cancelled at its .await, guard dropped");
    // The toolset keeps serving.
    assert_eq!(ALL.call(&ada, "note", &json!({"id": 2})).await, Ok(json!("note 2 of ada")));
}

// --- Sync entry points never block on an async tool -------------------------------------

#[test]
fn run_with_serves_sync_tools_and_refuses_async_ones_without_running_them() {
    let ada = ctx("ada");
    assert_eq!(ALL.run_with(&ada, "whoami", &json!({})), Ok(json!("ada")));
    assert_eq!(ALL.run_with(&ada, "note", &json!({"id": 1})), Err(ToolError::AsyncTool("note".into())));
    assert_eq!(ALL.run_with(&ada, "hold", &json!({})), Err(ToolError::AsyncTool("hold".into())));
    assert_eq!((ada.hits.load(Ordering::SeqCst), ada.live.load(Ordering::SeqCst)), (0, 0));
    let error = ToolError::AsyncTool("note".into());
    assert!(error.to_string().contains("Toolset::call"), "{error}");
    assert_eq!(error.to_value()["error"], "async_tool");
    assert!(!error.is_call_error(), "the model cannot fix this");
}

#[test]
fn a_context_free_crate_runs_sync_tools_and_refuses_async_ones() {
    assert_eq!(
        toolset::ALL.run("echo_later", &json!({"text": "hi"})),
        Err(ToolError::AsyncTool("echo_later".into()))
    );
    assert_eq!(
        toolset::ALL.run_json("nothing_later", "{}"),
        Err(ToolError::AsyncTool("nothing_later".into()))
    );
    assert_eq!(
        toolset::ALL.run_bytes("nothing_later", b"{}"),
        Err(ToolError::AsyncTool("nothing_later".into()))
    );
    // Their argument errors still come back as usual.
    assert_eq!(toolset::ALL.run("echo_later", &json!({})), Err(ToolError::MissingArgument("text".into())));
    assert_eq!(
        toolset::ALL.run("get_weather", &json!({"city": "Oslo"})).map(|v| v["days"].clone()),
        Ok(json!(3))
    );
}

#[tokio::test]
async fn a_context_free_crate_calls_every_tool_with_unit() {
    let all = &toolset::ALL;
    assert_eq!(all.call(&(), "echo_later", &json!({"text": "hi"})).await, Ok(json!("hi")));
    assert_eq!(all.call(&(), "divide_later", &json!({"a": 1, "b": 4})).await, Ok(json!(0.25)));
    assert_eq!(
        all.call(&(), "divide_later", &json!({"a": 1, "b": 0})).await,
        Err(ToolError::Failed("division by zero".into()))
    );
    assert_eq!(all.call(&(), "nothing_later", &json!({})).await, Ok(Value::Null));
    assert_eq!(
        all.call(&(), "panic_later", &json!({"message": "late"})).await,
        Err(ToolError::Panicked("late".into()))
    );
    // Sync tools through `call` give what `run` gives.
    for (name, args) in [("get_weather", json!({"city": "Oslo"})), ("divide", json!({"a": 1, "b": 0}))] {
        assert_eq!(all.call(&(), name, &args).await, all.run(name, &args), "{name}");
    }
}

// --- Glue: every call of one message, concurrently, in order ----------------------------

#[tokio::test]
async fn the_glue_answers_every_call_of_a_message_in_order() {
    use toolcall_runtime::glue::{answer_anthropic_message, answer_openai_message};
    let ada = ctx("ada");
    let message = json!({"role": "assistant", "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "note", "arguments": "{\"id\":1}"}},
        {"id": "b", "type": "function", "function": {"name": "whoami", "arguments": "{}"}},
        {"id": "c", "type": "function", "function": {"name": "note", "arguments": {"id": 2}}},
        {"id": "d", "type": "function", "function": {"name": "note", "arguments": "{"}},
        {"id": "e", "type": "function", "function": {"arguments": "{}"}},
        {"id": "f", "type": "function", "function": {"name": "explode", "arguments": "{\"message\":\"x\"}"}},
    ]});
    let answers = answer_openai_message(&ALL, &ada, &message).await;
    let ids: Vec<&str> = answers.iter().map(|a| a["tool_call_id"].as_str().unwrap_or("?")).collect();
    assert_eq!(ids, ["a", "b", "c", "d", "e", "f"]);
    let content = |i: usize| answers[i]["content"].as_str().unwrap_or_default().to_owned();
    assert_eq!(content(0), r#""note 1 of ada""#);
    assert_eq!(content(1), r#""ada""#);
    assert_eq!(content(2), r#""note 2 of ada""#);
    assert!(content(3).contains("invalid_json"), "{}", content(3));
    assert!(content(4).contains("invalid_arguments"), "{}", content(4));
    assert!(content(5).contains("panicked"), "{}", content(5));
    assert!(
        answer_openai_message(&ALL, &ada, &json!({"role": "assistant", "content": "hi"})).await.is_empty()
    );

    let message = json!({"role": "assistant", "content": [
        {"type": "text", "text": "let me look"},
        {"type": "tool_use", "id": "t1", "name": "note", "input": {"id": 5}},
        {"type": "tool_use", "id": "t2", "name": "note", "input": {"id": 0}},
    ]});
    let blocks = answer_anthropic_message(&ALL, &ada, &message).await;
    assert_eq!(blocks.len(), 2, "text blocks are not calls");
    assert_eq!(
        blocks[0],
        json!({"type": "tool_result", "tool_use_id": "t1", "content": "\"note 5 of ada\""})
    );
    assert_eq!((&blocks[1]["tool_use_id"], &blocks[1]["is_error"]), (&json!("t2"), &json!(true)));
}
