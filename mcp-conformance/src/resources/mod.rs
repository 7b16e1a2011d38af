//! The suite's resources, one file per kind: fixed ones and a template.

pub mod fixed;
pub mod template;
