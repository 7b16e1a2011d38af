//! The example's tools: each file is a tool module.
pub mod weather;
