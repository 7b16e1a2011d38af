//! What example-app serves over MCP beside its tools: the resources and prompts the build
//! generated from `src/resources` and `src/prompts`, and the one thing only known at run
//! time, the list of the caller's notes (one resource per row).

use std::sync::Arc;

use toolcall_mcp::rmcp::model::Resource;
use toolcall_mcp::{Prompts, Resources};

use crate::models::note_uri;
use crate::{App, toolset};

/// The resources: the caller's notes one by one, and their export; `resources/list`
/// lists each of the caller's notes.
pub fn resources() -> Resources<App> {
    Resources::from_set(&toolset::RESOURCES).list_with(|app| Box::pin(async move { notes(&app).await }))
}

/// The prompts.
pub fn prompts() -> Prompts<App> {
    Prompts::from_set(&toolset::PROMPTS)
}

/// One resource per note of the caller (none when the database does not answer).
async fn notes(app: &Arc<App>) -> Vec<Resource> {
    let notes = app.store.notes_of(app.user.id, u32::MAX).await.unwrap_or_default();
    notes
        .iter()
        .map(|note| {
            Resource::new(note_uri(note.id), format!("note {}", note.id)).with_mime_type("text/plain")
        })
        .collect()
}
