//! A tool that computes and a tool that asks the user.

use toolcall_runtime::{Answer, AskError, Progress};

/// Add two integers.
///
/// # Arguments
///
/// * `a` - the first
/// * `b` - the second
pub fn add(a: i64, b: i64) -> i64 {
    a.saturating_add(b)
}

/// Ask the user whether to go on, and say what came of asking.
pub async fn confirm(progress: &Progress) -> String {
    let form = serde_json::json!({
        "type": "object",
        "properties": {"go": {"type": "boolean"}},
        "required": ["go"]
    });
    match progress.elicit("Go on?", &form).await {
        Ok(Answer::Accept(answer)) => format!("accepted: {}", serde_json::Value::Object(answer)),
        Ok(Answer::Decline | Answer::Cancel) => "declined".to_owned(),
        Err(AskError::Unsupported(why)) => format!("unsupported: {why}"),
        Err(AskError::Failed(why)) => format!("failed: {why}"),
    }
}
