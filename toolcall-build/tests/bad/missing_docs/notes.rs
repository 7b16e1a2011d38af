// Tools whose docs leave the model guessing.

pub fn undocumented(limit: u32) -> u32 {
    limit
}

/// Search the notes.
pub fn search(query: String, limit: Option<u32>, tag: Option<String>) -> Vec<String> {
    let _ = (limit, tag);
    vec![query]
}

/// Archive a note.
///
/// # Arguments
///
/// * `id` - the note to archive
pub fn archive(id: u64, reason: String) -> bool {
    id > 0 && !reason.is_empty()
}

/// A tool that takes nothing needs no parameter docs.
pub fn count() -> usize {
    0
}
