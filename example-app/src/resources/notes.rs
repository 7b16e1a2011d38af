//! The signed-in user's notes as resources: `notes://note/{id}` is one note and
//! `notes://user/{user}/export.md` the export `export_notes` embeds, so the links the
//! tools give can be read back. Each read runs with the caller's context: a user reads
//! only their own notes, and any other URI of the same shape is "not found" (`None`), as
//! a note that does not exist.

use toolcall_runtime::ResourceMeta;

use crate::App;
use crate::app::StoreError;
use crate::models::markdown;

pub(crate) const RESOURCES: &[ResourceMeta] = &[
    ResourceMeta::new("note", "notes://note/{id}").mime_type("text/plain"),
    ResourceMeta::new("export", "notes://user/{user}/export.md").mime_type("text/markdown"),
];

/// One of your notes, by id.
///
/// # Arguments
/// - `id`: the note's id.
pub async fn note(app: &App, id: u64) -> Result<Option<String>, StoreError> {
    let notes = app.store.notes_of(app.user.id, u32::MAX).await?;
    Ok(notes.into_iter().find(|note| note.id == id).map(|note| note.text))
}

/// All of your notes as one Markdown document.
///
/// # Arguments
/// - `user`: your user id (anyone else's export is not found).
pub async fn export(app: &App, user: u64) -> Result<Option<String>, StoreError> {
    if user != app.user.id {
        return Ok(None);
    }
    let mut notes = app.store.notes_of(app.user.id, u32::MAX).await?;
    notes.sort_by_key(|note| note.id);
    Ok(Some(markdown(&app.user.name, &notes)))
}
