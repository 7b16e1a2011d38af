//! Tools that talk back (#32) in the loop, on [`ScriptedModel`]: progress and log events
//! from a running tool, content blocks answered without their bytes, and the approval of
//! destructive calls both ways.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use toolcall_agent::{Agent, Event, Message, ModelResponse, ScriptedModel, ToolCall, ToolReturn};
use toolcall_fixtures::Ctx;
use toolcall_fixtures::context_toolset::ALL;
use toolcall_runtime::{Content, LogLevel};

fn ada() -> Ctx {
    Ctx { user: "ada".to_owned(), ..Ctx::default() }
}

fn agent(model: &ScriptedModel) -> Agent<Ctx> {
    Agent::with_model(&ALL, ada(), model.clone())
}

/// The answers the model was sent in its second request.
fn answers(model: &ScriptedModel) -> Vec<ToolReturn> {
    let requests = model.requests();
    match requests.get(1).and_then(|r| r.messages.last()) {
        Some(Message::Tool { results }) => results.clone(),
        other => panic!("no tool answers: {other:?}"),
    }
}

#[tokio::test]
async fn a_tools_progress_and_logs_are_events_of_its_call() {
    let model = ScriptedModel::new([
        ModelResponse::calls([
            ToolCall::new("c1", "export", r#"{"count":2}"#),
            ToolCall::new("c2", "count_up", r#"{"to":1}"#),
        ]),
        ModelResponse::text("done"),
    ]);
    let mut seen = Vec::new();
    let outcome = agent(&model)
        .run("export", |event| match event {
            Event::Progress { id, name, done, total, message } => {
                seen.push(format!("{id} {name} {done}/{total:?} {message}"))
            }
            Event::Log { id, name, level, message } => seen.push(format!("{id} {name} {level}: {message}")),
            Event::ToolResult { id, .. } => seen.push(format!("{id} answered")),
            _ => {}
        })
        .await;
    assert_eq!(outcome.map(|o| o.answer).ok().as_deref(), Some("done"));
    let export: Vec<&String> = seen.iter().filter(|line| line.starts_with("c1")).collect();
    assert_eq!(
        export,
        [
            "c1 export 1/Some(2) item 1",
            "c1 export 2/Some(2) item 2",
            "c1 export info: exported 2 items",
            "c1 answered"
        ]
    );
    assert!(seen.contains(&"c2 count_up 1/None ".to_owned()), "{seen:?}");
    // Every report comes before the answers.
    let first_answer = seen.iter().position(|line| line.ends_with("answered"));
    assert_eq!(first_answer, Some(seen.len() - 2), "{seen:?}");
}

#[tokio::test]
async fn content_blocks_are_answered_as_a_description_without_bytes() {
    let model = ScriptedModel::new([
        ModelResponse::calls([
            ToolCall::new("c1", "pixel", "{}"),
            ToolCall::new("c2", "export", r#"{"count":1}"#),
        ]),
        ModelResponse::text("ok"),
    ]);
    let mut logs = Vec::new();
    agent(&model)
        .run("draw", |event| {
            if let Event::Log { level, message, .. } = event {
                logs.push((level, message.to_owned()));
            }
        })
        .await
        .map_err(|e| e.to_string())
        .and_then(|o| if o.answer == "ok" { Ok(()) } else { Err(o.answer) })
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(logs.contains(&(LogLevel::Warning, "only one pixel".to_owned())), "{logs:?}");
    let answers = answers(&model);
    assert_eq!(answers[0].content, "[image image/png, 4 bytes]");
    assert_eq!(answers[0].blocks, [Content::image("image/png", vec![0x89, b'P', b'N', b'G'])]);
    assert!(!answers[0].is_error);
    assert_eq!(answers[1].content, "1 items\n[resource <items://ada>]\n# ada\n- item 1\n");
    assert_eq!(answers[1].blocks.len(), 2);
}

/// An agent whose approval callback answers `verdict` and records the calls it saw.
fn approving(model: &ScriptedModel, verdict: bool) -> (Agent<Ctx>, Arc<Mutex<Vec<String>>>) {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&asked);
    let agent = agent(model).approve(move |call: &ToolCall| {
        if let Ok(mut asked) = record.lock() {
            asked.push(format!("{} {} {}", call.id, call.name, call.arguments));
        }
        async move { verdict }
    });
    (agent, asked)
}

fn script() -> ScriptedModel {
    ScriptedModel::new([
        ModelResponse::calls([
            ToolCall::new("c1", "count_up", r#"{"to":1}"#),
            ToolCall::new("c2", "erase", r#"{"item":"notes"}"#),
        ]),
        ModelResponse::text("ok"),
    ])
}

#[tokio::test]
async fn a_declined_destructive_call_is_answered_as_declined_and_not_run() {
    let model = script();
    let (agent, asked) = approving(&model, false);
    assert!(agent.is_destructive("erase") && !agent.is_destructive("count_up"));
    let outcome = agent.run("erase my notes", |_| {}).await;
    assert!(outcome.is_ok(), "{outcome:?}");
    assert_eq!(agent.context().hits.load(Ordering::SeqCst), 0, "a declined call ran");
    assert_eq!(asked.lock().map(|a| a.clone()).unwrap_or_default(), [r#"c2 erase {"item":"notes"}"#]);
    let answers = answers(&model);
    assert_eq!(answers[0].content, "1", "a call that needs no approval runs");
    assert!(answers[1].is_error, "{:?}", answers[1]);
    assert!(
        answers[1].content.contains("declined") && answers[1].content.contains("`erase`"),
        "{:?}",
        answers[1]
    );
}

#[tokio::test]
async fn an_approved_destructive_call_runs() {
    let model = script();
    let (agent, asked) = approving(&model, true);
    let outcome = agent.run("erase my notes", |_| {}).await;
    assert!(outcome.is_ok(), "{outcome:?}");
    assert_eq!(agent.context().hits.load(Ordering::SeqCst), 1);
    assert_eq!(asked.lock().map(|a| a.len()).unwrap_or_default(), 1);
    let answers = answers(&model);
    assert_eq!((answers[1].content.as_str(), answers[1].is_error), ("erased notes", false));
}

#[tokio::test]
async fn without_a_callback_every_call_runs() {
    let model = script();
    let agent = agent(&model);
    let calls = AtomicUsize::new(0);
    let outcome = agent.run("erase", |_| {
        calls.fetch_add(1, Ordering::SeqCst);
    });
    assert!(outcome.await.is_ok());
    assert_eq!(agent.context().hits.load(Ordering::SeqCst), 1);
    assert!(calls.load(Ordering::SeqCst) >= 4, "two calls and two answers reported");
}
