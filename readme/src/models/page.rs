//! One page of results.
use serde::Serialize;

/// A page of items and where the next one starts.
#[derive(Debug, Serialize)]
pub struct Page<T> {
    /// The items of this page.
    pub items: Vec<T>,
    /// The cursor of the next page, if there is one.
    pub next: Option<String>,
}
