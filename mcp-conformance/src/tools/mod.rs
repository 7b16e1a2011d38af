//! The suite's test tools, one file per kind.

pub mod asking;
pub mod content;
pub mod talking;
pub mod tasks;
