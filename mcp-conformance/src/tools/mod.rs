//! The suite's test tools, one file per kind.

pub mod asking;
pub mod content;
pub mod headers;
pub mod rounds;
pub mod stateless;
pub mod talking;
pub mod tasks;
