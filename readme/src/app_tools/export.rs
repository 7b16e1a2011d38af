// src/tools/export.rs
use toolcall_runtime::{Content, LogLevel, Progress};

use crate::App;

/// Export the signed-in user's notes as one Markdown document.
pub async fn export_notes(app: &App, progress: &Progress) -> Result<Content, String> {
    let notes = app.db.notes_of(app.user.id, u32::MAX).await.map_err(|e| e.to_string())?;
    let total = notes.len() as u64;
    let mut markdown = format!("# {}'s notes\n", app.user.name);
    for (done, note) in (1..).zip(&notes) {
        markdown.push_str(&format!("\n- {}\n", note.text));
        progress.report(done, Some(total), format!("note {}", note.id)); // done, total, message
    }
    progress.log(LogLevel::Info, format!("exported {total} notes"));
    let uri = format!("notes://user/{}/export.md", app.user.id);
    Ok(Content::resource_text(uri, "text/markdown", markdown)) // an embedded resource
}
