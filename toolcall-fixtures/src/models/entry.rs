//! One entry of a folder: a file, or a folder of `folder.rs` (named by its `crate::` path).

use serde::Serialize;

/// One entry of a folder.
#[derive(Debug, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Entry {
    /// A file.
    File {
        /// The file's name.
        name: String,
        /// Its size in bytes.
        size: u32,
    },
    /// A folder, holding more entries.
    Folder(crate::models::folder::Folder),
}
