//! A note, as the store keeps it and the notes tools return it.

use serde::{Deserialize, Serialize};

/// A note in the store.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Note {
    /// Its id, unique across users.
    pub id: u64,
    /// Who wrote it.
    pub owner: u64,
    /// The text.
    pub text: String,
}

/// What `remove_note` asks the user before a note goes (a form, over MCP).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
pub struct Confirm {
    /// Remove it for good.
    pub confirm: bool,
}

/// Where user `owner`'s export of their notes is read (`resources/read`), and what an
/// export says it comes from.
pub fn export_uri(owner: u64) -> String {
    format!("notes://user/{owner}/export.md")
}

/// Where one note is read.
pub fn note_uri(id: u64) -> String {
    format!("notes://note/{id}")
}

/// `notes` as one Markdown document titled with `name`, in the order given.
pub fn markdown(name: &str, notes: &[Note]) -> String {
    let mut markdown = format!("# {name}'s notes\n");
    if notes.is_empty() {
        markdown.push_str("\nNo notes yet.\n");
    }
    for note in notes {
        markdown.push_str(&format!("\n## Note {}\n\n{}\n", note.id, note.text));
    }
    markdown
}
