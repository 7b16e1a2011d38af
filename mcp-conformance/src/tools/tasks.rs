//! The suite's task tools (the Tasks extension, SEP-2663): a quick tool that is never a
//! task, and long, failing, panicking and asking ones that run as tasks for clients that
//! declared the extension. Each opts in through `TOOLS`; nothing in a signature says so.

use std::time::Duration;

use serde_json::json;
use toolcall_runtime::{Answer, Progress, ToolMeta};

/// The task tools, and how each runs as a task.
pub(crate) const TOOLS: &[ToolMeta] = &[
    ToolMeta::new("slow_compute").task(),
    ToolMeta::new("failing_job").task_required(),
    ToolMeta::new("protocol_error_job").task(),
    ToolMeta::new("confirm_delete").task(),
    ToolMeta::new("multi_input").task(),
    ToolMeta::new("test_tool_with_task").task_required().task_from_detach(),
];

/// Greets someone, at once (never a task).
///
/// # Arguments
///
/// * `name` - who to greet
pub fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

/// Works for `seconds` seconds, then says what it computed.
///
/// # Arguments
///
/// * `seconds` - how long to work (0 for at once)
/// * `label` - a name for the run, echoed back
pub async fn slow_compute(seconds: u64, label: Option<String>, progress: &Progress) -> String {
    let label = label.unwrap_or_else(|| "compute".to_owned());
    for second in 0..seconds {
        progress.report(second, Some(seconds), format!("{label}: {second} of {seconds} seconds"));
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    format!("{label}: computed after {seconds} seconds")
}

/// Works for a second, then fails as a tool does.
///
/// # Errors
///
/// Always: the job fails.
pub async fn failing_job() -> Result<String, String> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err("the job failed: its input could not be processed".to_owned())
}

/// Panics: a failure of the server's, not a tool's answer.
#[allow(clippy::panic)]
pub async fn protocol_error_job() -> String {
    tokio::time::sleep(Duration::from_millis(200)).await;
    panic!("protocol_error_job always panics")
}

/// Deletes a file once the user confirms.
///
/// # Arguments
///
/// * `filename` - the file to delete
///
/// # Errors
///
/// When the user does not confirm.
pub async fn confirm_delete(filename: String, progress: &Progress) -> Result<String, String> {
    let schema = json!({
        "type": "object",
        "properties": {"confirm": {"type": "boolean", "description": "Delete it?"}},
        "required": ["confirm"],
    });
    let answer = progress.elicit(&format!("Delete {filename}?"), &schema).await.map_err(|e| e.to_string())?;
    match answer {
        Answer::Accept(values) if values.get("confirm") == Some(&json!(true)) => {
            Ok(format!("deleted {filename}"))
        }
        _ => Err(format!("{filename} was not deleted: not confirmed")),
    }
}

/// Asks two questions at once and reports both answers.
///
/// # Errors
///
/// When the client cannot be asked.
pub async fn multi_input(progress: &Progress) -> Result<String, String> {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "A name"},
            "confirm": {"type": "boolean", "description": "Go on?"},
        },
    });
    let (first, second) =
        tokio::join!(progress.elicit("First input", &schema), progress.elicit("Second input", &schema));
    let name = |answer: Result<Answer, toolcall_runtime::AskError>| match answer {
        Ok(Answer::Accept(values)) => {
            Ok(values.get("name").and_then(|n| n.as_str()).unwrap_or("").to_owned())
        }
        Ok(other) => Ok(format!("{other:?}")),
        Err(error) => Err(error.to_string()),
    };
    Ok(format!("inputs: {}, {}", name(first)?, name(second)?))
}

/// Asks the user's name, then greets them from a task.
///
/// # Errors
///
/// When the client cannot be asked.
pub async fn test_tool_with_task(progress: &Progress) -> Result<String, String> {
    let schema = json!({
        "type": "object",
        "properties": {"name": {"type": "string", "description": "Your name"}},
        "required": ["name"],
    });
    let answer = progress.elicit("What is your name?", &schema).await.map_err(|e| e.to_string())?;
    let name = match answer {
        Answer::Accept(values) => {
            values.get("name").and_then(|n| n.as_str()).unwrap_or("stranger").to_owned()
        }
        _ => "stranger".to_owned(),
    };
    progress.detach().await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    Ok(format!("Hello, {name}, from a task"))
}
