//! The service's data model, kept apart from the tools the way a real service keeps it:
//! one file per concept, some modules private and re-exported (`task`, `page`), a folder
//! tree whose two types live in two files and hold each other (`folder`, `entry`).
//!
//! `Forecast` is no tool's type: it is the fixtures' typed answer (`Builder::output_type`);
//! nor is `Confirm`, the fixtures' form (`Builder::form_type`).
//!
//! The build reaches these files by walking the module tree from `src/lib.rs`; the tools
//! in `src/tools/service/` name the types through imports, globs and re-exports.

mod confirm;
pub mod entry;
pub mod folder;
mod forecast;
mod page;
mod task;

pub use confirm::Confirm;
pub use forecast::Forecast;
pub use page::Page;
pub use task::{Priority, Task};
