//! The service's data model, kept apart from the tools the way a real service keeps it:
//! one file per concept, some modules private and re-exported (`task`, `page`), a folder
//! tree whose two types live in two files and hold each other (`folder`, `entry`).
//!
//! The build reaches these files by walking the module tree from `src/lib.rs`; the tools
//! in `src/tools/service/` name the types through imports, globs and re-exports.

pub mod entry;
pub mod folder;
mod page;
mod task;

pub use page::Page;
pub use task::{Priority, Task};
