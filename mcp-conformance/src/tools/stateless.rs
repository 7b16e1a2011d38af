//! The diagnostic tools of the suite's 2026-07-28 scenario (`server-stateless`): one that
//! needs a capability the client may not have declared, one that asks on the request's
//! own stream, one that logs, and two that change what the server lists.

use toolcall_runtime::{Content, LogLevel, Progress};

/// Asks the client's model; a client that did not declare sampling gets error -32021.
///
/// # Errors
///
/// When the client cannot be asked.
pub async fn test_missing_capability(progress: &Progress) -> Result<Content, String> {
    let answer = progress.sample("Say hello", 20).await.map_err(|e| e.to_string())?;
    Ok(Content::text(format!("The model said: {answer}")))
}

/// Asks the user a question: on 2026-07-28 an input-required result, never a request of
/// its own on the response stream.
///
/// # Errors
///
/// When the client cannot ask the user.
pub async fn test_streaming_elicitation(progress: &Progress) -> Result<Content, String> {
    let schema = serde_json::json!({
        "type": "object",
        "properties": {"name": {"type": "string", "description": "Your name"}},
    });
    let answer = progress.elicit("What is your name?", &schema).await.map_err(|e| e.to_string())?;
    Ok(Content::text(format!("answered: {answer:?}")))
}

/// Logs a message: sent only to a request that asked for logs with its own level.
pub fn test_logging_tool(progress: &Progress) -> Content {
    progress.log(LogLevel::Info, "test_logging_tool ran");
    Content::text("logged one message")
}

/// Tells listening clients that the list of tools changed.
pub async fn test_trigger_tool_change() -> Content {
    let told = match crate::notifier() {
        Some(notifier) => notifier.tools_list_changed().await,
        None => 0,
    };
    Content::text(format!("told {told} listeners that the tools changed"))
}

/// Tells listening clients that the list of prompts changed.
pub async fn test_trigger_prompt_change() -> Content {
    let told = match crate::notifier() {
        Some(notifier) => notifier.prompts_list_changed().await,
        None => 0,
    };
    Content::text(format!("told {told} listeners that the prompts changed"))
}
