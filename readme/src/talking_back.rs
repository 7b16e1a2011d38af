//! README "Talking back": a tool list per caller, and approval in the agent loop (the
//! tool itself is `app_tools/export.rs`).

use crate::App;
use crate::with_context::toolset;

/// Asks a person whether the call may run (a terminal, a chat button, ...).
async fn ask_a_person(name: &str, arguments: &str) -> bool {
    false
}

/// README "Talking back": per-user tool lists.
#[rustfmt::skip]
fn filtered() -> toolcall_mcp::McpServer<App> {
use toolcall_mcp::McpServer;
use toolcall_runtime::ToolInfo;

// Each request's caller sees, and may call, the tools the filter lets through: here user 1
// every tool, everyone else none annotated destructive (`ToolMeta::destructive()`).
let server = McpServer::new(&toolset::ALL, App::local())
    .tool_filter(|app: &App, tool: &ToolInfo| {
        app.user.id == 1 || !tool.is_destructive()
    });
    server
}

/// README "Talking back": approval and reports in the agent loop.
#[rustfmt::skip]
async fn approved(app: App) -> Result<(), Box<dyn std::error::Error>> {
use toolcall_agent::{Agent, Event};

let agent = Agent::new(&toolset::ALL, app, "http://127.0.0.1:11434/v1").approve(|call| {
    // Only calls of tools annotated destructive are asked about.
    let (name, arguments) = (call.name.clone(), call.arguments.clone());
    async move { ask_a_person(&name, &arguments).await } // false: the model is told it was declined
});
let outcome = agent
    .run("Export my notes, then delete the old ones", |event| match event {
        Event::Progress { name, done, total, message, .. } => eprintln!("{name} {done}/{total:?} {message}"),
        Event::Log { name, level, message, .. } => eprintln!("{name} {level}: {message}"),
        _ => {}
    })
    .await?;
    Ok(())
}

/// README "Talking back": a test reading what a tool reported.
#[rustfmt::skip]
async fn recorded(app: App) -> Result<(), Box<dyn std::error::Error>> {
use std::sync::{Arc, Mutex};
use toolcall_runtime::{LogLevel, Progress, ProgressSink};

/// Keeps every report, for a test to read.
#[derive(Default)]
struct Recorder(Mutex<Vec<String>>);

impl ProgressSink for Recorder {
    fn progress(&self, done: u64, total: Option<u64>, message: &str) {
        if let Ok(mut reports) = self.0.lock() {
            reports.push(format!("{done}/{total:?} {message}"));
        }
    }
    fn log(&self, level: LogLevel, message: &str) {
        if let Ok(mut reports) = self.0.lock() {
            reports.push(format!("{level}: {message}"));
        }
    }
}

let recorder = Arc::new(Recorder::default());
let progress = Progress::new(Arc::clone(&recorder)); // the test keeps the Arc
let args = serde_json::json!({});
let export = toolset::ALL.call_reporting(&app, "export_notes", &args, &progress).await?;
if let Ok(reports) = recorder.0.lock() {
    println!("{reports:?}"); // ["1/Some(2) note 1", "2/Some(2) note 2", "info: exported 2 notes"]
}
    Ok(())
}
