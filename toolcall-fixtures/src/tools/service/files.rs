//! File tools. `Folder` and `Entry` live in two files of `crate::models` and hold each
//! other; `Assignee` is a type of the other tool file (`super::tasks`).

use super::tasks::Assignee;
use crate::models::{Page, entry::Entry, folder::Folder as Dir};

/// Adds up the sizes of every file in a folder tree.
///
/// # Arguments
///
/// * `root` - the top folder
pub fn tree_size(root: Dir) -> u64 {
    root.entries
        .into_iter()
        .map(|entry| match entry {
            Entry::File { size, .. } => u64::from(size),
            Entry::Folder(folder) => tree_size(folder),
        })
        .sum()
}

/// Lists a folder's entries, a page at a time.
///
/// # Arguments
///
/// * `root` - the folder
/// * `cursor` - where the page starts
pub fn list_entries(root: Dir, cursor: Option<u32>) -> Page<Entry> {
    let cursor = cursor.unwrap_or(0);
    let total = root.entries.len() as u32;
    let items: Vec<Entry> = root.entries.into_iter().skip(cursor as usize).collect();
    Page { items, total, next: None }
}

/// Builds a folder tree of the given depth, one file per level.
///
/// # Arguments
///
/// * `depth` - how many folders deep
pub fn sample_tree(depth: u8) -> Dir {
    let mut folder =
        Dir { name: "leaf".into(), entries: vec![Entry::File { name: "a.txt".into(), size: 1 }] };
    for level in 0..depth {
        folder = Dir {
            name: format!("level{level}"),
            entries: vec![Entry::File { name: "b.txt".into(), size: 2 }, Entry::Folder(folder)],
        };
    }
    folder
}

/// Shares a folder with someone.
///
/// # Arguments
///
/// * `folder` - the folder's name
/// * `with` - who gets access
pub fn share_folder(folder: String, with: Assignee) -> String {
    match with.email {
        Some(email) => format!("{folder} shared with {} <{email}>", with.name),
        None => format!("{folder} shared with {}", with.name),
    }
}
