//! A folder, holding entries of `entry.rs`, which hold folders: recursion across two files.

use serde::Serialize;

use super::entry::Entry;

/// A folder and what it holds.
#[derive(Debug, Serialize)]
pub struct Folder {
    /// The folder's name.
    pub name: String,
    /// Files and folders inside it.
    pub entries: Vec<Entry>,
}
