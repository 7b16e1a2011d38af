//! Functions that are not tools: private helpers silently, the rest with a warning.

/// A private helper: silently not a tool.
fn helper() -> u8 {
    1
}

/// Only visible to the parent module: not a tool.
pub(super) fn parent_only() -> u8 {
    helper()
}

/// Hidden from docs: not a tool.
#[doc(hidden)]
pub fn hidden_tool() -> u8 {
    helper()
}

/// Generic: skipped with a warning.
pub fn generic_tool<T: Into<String>>(value: T) -> String {
    value.into()
}

/// `impl Trait`: skipped with a warning.
pub fn impl_trait_tool(value: impl Into<String>) -> String {
    value.into()
}

/// Shared state the crate has not declared as its context.
pub struct Db {
    /// The rows.
    pub rows: Vec<String>,
}

/// A borrowed non-context type: skipped with a warning pointing at `Builder::context`.
pub fn borrowed_state(db: &Db) -> usize {
    db.rows.len()
}

/// A mutable borrow cannot be served: skipped with a warning.
#[allow(clippy::ptr_arg)]
pub fn borrowed_tool(text: &mut String) -> usize {
    text.len()
}

/// The one real tool of this file.
pub fn visible_tool(n: u8) -> u8 {
    helper() + n + parent_only()
}
