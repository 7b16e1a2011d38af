//! The quick start's tools.
#[rustfmt::skip]
pub mod alarm;
#[rustfmt::skip]
pub mod tasks;
#[rustfmt::skip]
pub mod weather;
