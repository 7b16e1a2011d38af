// src/tools/notes.rs
use crate::{App, Note};

/// List the signed-in user's notes.
///
/// # Arguments
///
/// * `limit` - at most this many
pub async fn list_notes(app: &App, limit: Option<u32>) -> Result<Vec<Note>, String> {
    let limit = limit.unwrap_or(10);
    app.db.notes_of(app.user.id, limit).await.map_err(|e| e.to_string())
}

/// Who the assistant acts for.
pub fn whoami(app: &App) -> String {
    app.user.name.clone()
}

/// Delete one of the signed-in user's notes.
///
/// # Arguments
///
/// * `id` - which note
pub fn delete_note(app: &App, id: u64) -> bool {
    app.user.id == id
}

/// Add two numbers (the agent snippet's scripted call).
///
/// # Arguments
///
/// * `a` - one
/// * `b` - the other
pub fn add(a: i64, b: i64) -> i64 {
    a + b
}

use toolcall_runtime::ToolMeta;

pub(crate) const TOOLS: &[ToolMeta] = &[
    ToolMeta::new("delete_note")
        .name("remove_note")        // the wire name, everywhere (dispatch, names(), export)
        .title("Remove a note")     // MCP `title`
        .destructive()              // MCP annotations: .read_only(), .idempotent(),
        .idempotent()               //   .non_destructive(), .open_world(), .closed_world()
        .timeout_ms(2_000)          // the MCP server's and the agent's limit for this tool
        .example(r#"{"id": 2}"#),   // Anthropic `input_examples` (repeatable)
];
