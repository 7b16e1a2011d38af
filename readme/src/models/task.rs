//! A task and its priority (the README names them; their shape is this crate's).
use serde::{Deserialize, Serialize};

/// How urgent a task is.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    /// Some day.
    Low,
    /// Now.
    High,
}

/// One task.
#[derive(Debug, Serialize)]
pub struct Task {
    /// What to do.
    pub title: String,
    /// How urgent it is.
    pub priority: Priority,
}
