//! "State and async"'s tools, with the context `crate::App`.
#[rustfmt::skip]
pub mod notes;
// README "Talking back": a tool taking `&Progress` and returning `Content`.
#[rustfmt::skip]
pub mod export;
