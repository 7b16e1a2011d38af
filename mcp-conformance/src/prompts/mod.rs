//! The suite's prompts: plain, with arguments, with an embedded resource, with an image.

pub mod suite;
