//! "State and async"'s tools, with the context `crate::App`.
#[rustfmt::skip]
pub mod notes;
