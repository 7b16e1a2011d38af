#![doc = include_str!("../README.md")]

mod ast;
mod builder;
mod check;
mod codegen;
mod context;
mod declared;
mod diagnostics;
mod expected;
pub mod export;
mod form_type;
mod header;
mod lower;
mod metadata;
mod model;
mod output_type;
mod parse;
mod pipeline;
mod provider;
mod records;
mod served;
mod tree;
mod types;

pub use check::{MAX_SCHEMA_DEPTH, OPENAI_STRICT_MAX_DEPTH, is_provider_safe};
pub use diagnostics::{Diagnostic, Level};
pub use expected::{Expected, declared_list};
pub use provider::{ProvidedType, TypeProvider};

pub use builder::Builder;
pub use records::{
    BuildError, GENERATOR_STACK, Generated, GeneratedModule, GeneratedOutput, GeneratedTool, SourceFile,
};
