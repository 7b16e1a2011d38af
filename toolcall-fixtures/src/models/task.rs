//! A task: declared in a private module, named by the tools through `models`' re-export.

use serde::Serialize;

/// Something to do.
#[derive(Clone, Debug, Serialize)]
pub struct Task {
    /// What to do.
    pub title: String,
    /// How urgent it is.
    pub priority: Priority,
    /// Free labels.
    #[serde(default)]
    pub tags: Vec<String>,
    /// What it costs, when it has a price (a type of a `#[path]` module).
    pub budget: Option<crate::money::Money>,
}

/// How urgent a task is.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    /// Whenever.
    Low,
    /// Soon.
    Normal,
    /// Now.
    Urgent,
}
