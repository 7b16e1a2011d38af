//! What example-app serves over MCP beside its tools: the signed-in user's notes as
//! resources. `notes://note/{id}` is one note and `notes://user/{user}/export.md` the
//! export `export_notes` embeds, so the links the tools give can be read back. Each read
//! runs with the caller's context: a user reads only their own notes, and any other URI
//! of the same shape is "not found", as a note that does not exist.

use std::sync::Arc;

use toolcall_mcp::Resources;
use toolcall_mcp::resources::{ReadResult, not_found, text};
use toolcall_mcp::rmcp::model::{ErrorData, Resource, ResourceTemplate};

use crate::App;
use crate::models::{markdown, note_uri};

/// The resources: the caller's notes one by one, and their export.
pub fn resources() -> Resources<App> {
    Resources::new()
        .template(
            ResourceTemplate::new("notes://note/{id}", "note")
                .with_description("One of your notes, by id")
                .with_mime_type("text/plain"),
            |app, request| {
                Box::pin(async move { read_note(&app, &request.uri, request.variables.get("id")).await })
            },
        )
        .template(
            ResourceTemplate::new("notes://user/{user}/export.md", "export")
                .with_description("All of your notes as one Markdown document")
                .with_mime_type("text/markdown"),
            |app, request| {
                Box::pin(async move { read_export(&app, &request.uri, request.variables.get("user")).await })
            },
        )
        .list_with(|app| Box::pin(async move { list(&app).await }))
}

/// The caller's note `id`, or not found.
async fn read_note(app: &App, uri: &str, id: Option<&String>) -> ReadResult {
    let id: u64 = id.and_then(|id| id.parse().ok()).ok_or_else(|| not_found(uri))?;
    let notes = app.store.notes_of(app.user.id, u32::MAX).await.map_err(unavailable)?;
    let note = notes.into_iter().find(|note| note.id == id).ok_or_else(|| not_found(uri))?;
    Ok(vec![text(uri, "text/plain", note.text)])
}

/// The caller's export when `user` is the caller, else not found.
async fn read_export(app: &App, uri: &str, user: Option<&String>) -> ReadResult {
    if user.and_then(|user| user.parse::<u64>().ok()) != Some(app.user.id) {
        return Err(not_found(uri));
    }
    let mut notes = app.store.notes_of(app.user.id, u32::MAX).await.map_err(unavailable)?;
    notes.sort_by_key(|note| note.id);
    Ok(vec![text(uri, "text/markdown", markdown(&app.user.name, &notes))])
}

/// One resource per note of the caller (none when the database does not answer).
async fn list(app: &Arc<App>) -> Vec<Resource> {
    let notes = app.store.notes_of(app.user.id, u32::MAX).await.unwrap_or_default();
    notes
        .iter()
        .map(|note| {
            Resource::new(note_uri(note.id), format!("note {}", note.id)).with_mime_type("text/plain")
        })
        .collect()
}

/// The error for a read the database could not answer (its own message goes to stderr).
fn unavailable(error: crate::app::StoreError) -> ErrorData {
    eprintln!("example-app: {error}: {}", error.cause());
    ErrorData::internal_error(error.to_string(), None)
}
