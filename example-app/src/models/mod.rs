//! The app's domain types: who is signed in ([`User`], [`Role`]) and what the store holds
//! ([`Note`]).
//!
//! They sit below everything else in the crate: the database ([`crate::db`]) reads and
//! writes them, the context ([`crate::App`]) carries them, and the tools in
//! [`crate::tools`] take and return them. A tool's result type that lives here is still
//! described to the model (MCP `outputSchema`, with its doc comments): `toolcall-build`
//! walks the crate's module tree from `src/lib.rs` and finds it as `crate::models::Note`.
//! This module imports nothing of the crate.

mod note;
mod user;

pub use note::{Confirm, Note, export_uri, markdown, note_uri};
pub use user::{Role, User};
