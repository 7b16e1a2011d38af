//! A note, as the store keeps it and the notes tools return it.

use serde::Serialize;

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
