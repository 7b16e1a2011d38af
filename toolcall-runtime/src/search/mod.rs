//! Tool search: finding the few tools a request needs among many, so a model is sent
//! those and not every definition.
//!
//! The index is compiled: with `toolcall_build::Builder::tool_search(true)` the build reads
//! every tool's name, title, description, module, parameter names and docs and enum values
//! ([`Document`], weighted by [`Weights`]), and writes an inverted index into `tools.rs`
//! as static data ([`SearchIndex`]); [`Toolset::search`](crate::Toolset::search) ranks
//! with BM25 over it, and nothing is built or allocated at start-up. Tools added at run
//! time ([`Registry`](crate::Registry)) are indexed once, as they are added
//! ([`OwnedIndex`]). A query goes through the same tokenizer as the tools' texts
//! ([`terms`]).

mod document;
mod index;
mod settings;
mod tokenize;

pub use document::{Document, Weights};
pub use index::{OwnedIndex, Posting, SearchIndex};
pub use settings::{DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, ToolSearch};
pub use tokenize::{is_stop_word, terms, terms_of};

use crate::info::ToolInfo;

/// One tool a search found: the tool, and how well it matched (BM25; higher is better,
/// comparable only within one search).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchHit {
    /// The tool found.
    pub tool: &'static ToolInfo,
    /// Its score for the query.
    pub score: f32,
}
