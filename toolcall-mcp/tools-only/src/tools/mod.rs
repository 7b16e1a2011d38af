//! The server's tools.

pub mod sums;
