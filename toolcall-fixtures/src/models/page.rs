//! One page of a listing: a generic type in a private module, re-exported by `models`.

use serde::Serialize;

/// One page of results.
#[derive(Debug, Serialize)]
pub struct Page<T> {
    /// The items on this page.
    pub items: Vec<T>,
    /// How many items there are in all.
    pub total: u32,
    /// The cursor of the next page, when there is one.
    pub next: Option<u32>,
}
