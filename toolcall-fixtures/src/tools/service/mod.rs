//! A service laid out like a real one: tools in two files that take and return the types
//! of `crate::models` (and of each other), not types of their own file.

pub mod files;
pub mod tasks;
