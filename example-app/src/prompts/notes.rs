//! Prompts over the signed-in user's notes.

use serde::Deserialize;

use crate::App;
use crate::app::StoreError;

/// How long a summary may be.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Length {
    /// One sentence.
    Brief,
    /// A paragraph per theme.
    Detailed,
}

/// Ask the model to summarize your notes.
///
/// # Arguments
/// - `length`: how long the summary may be.
/// - `newest`: how many of the newest notes to include.
pub async fn summarize_notes(app: &App, length: Length, newest: Option<u32>) -> Result<String, StoreError> {
    let notes = app.store.notes_of(app.user.id, newest.unwrap_or(20)).await?;
    let how = match length {
        Length::Brief => "in one sentence",
        Length::Detailed => "in a paragraph per theme",
    };
    let mut text = format!("Summarize {}'s notes {how}:\n", app.user.name);
    for note in &notes {
        text.push_str(&format!("- {}\n", note.text));
    }
    Ok(text)
}
