//! README "Writing tools", types from anywhere in the crate: `src/models/mod.rs`.
#[rustfmt::skip]
// src/models/mod.rs
mod task; // a private module...
pub mod page;
pub use task::{Priority, Task}; // ...whose types are re-exported

// README "Run an agent loop": the typed answer, `src/models/report.rs`.
mod report;
pub use report::Report;
