//! README "Writing tools": `src/tools/tasks.rs`, a tool whose types live in `src/models/`.
#[rustfmt::skip]
// src/tools/tasks.rs
use crate::models::{Priority, Task, page::Page};

/// Lists the tasks of one priority.
///
/// # Arguments
///
/// * `priority` - only tasks this urgent
pub fn list_tasks(priority: Priority) -> Page<Task> {
    let items = vec![Task { title: "write the README".to_owned(), priority }];
    Page { items, next: None }
}
