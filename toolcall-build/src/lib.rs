//! # toolcall-build
//!
//! Reads the plain Rust functions in `src/tools/**/*.rs` with syn and writes
//! `$OUT_DIR/tools.rs`: JSON schema constants for OpenAI, Anthropic and MCP (strict and
//! not) and a `match` dispatcher that decodes a model's arguments and calls the function.
//!
//! ```no_run
//! // build.rs: `fn main() { .. }`
//! toolcall_build::Builder::new().compile();
//! ```
//! ```text
//! // src/main.rs
//! mod tools;
//! mod toolset {
//!     include!(concat!(env!("OUT_DIR"), "/tools.rs"));
//! }
//! ```
//!
//! The stages, one module each, data flowing one way:
//!
//! - `parse`: the tool files' syn trees, with their consts and imports.
//! - `tree`: the crate's module tree, walked from `src/lib.rs` or `src/main.rs`, and path
//!   resolution as rustc does it; every type of the crate read once (by `ast`) with its
//!   paths made absolute.
//! - `ast`: tool functions read once, with their doc comments, defaults, `TOOL_PARAMS`
//!   and `TOOLS` entries; the crate's types with their serde attributes and spans.
//! - `lower`: the ast -> IR and decoding facts. `types` resolves each Rust type once into
//!   a tree (`types::ty`) and folds it into the input schema, the decoder, fast-path
//!   eligibility and the output schema; a new built-in type is one row of
//!   `types::builtin::SCALARS`.
//! - `check`: rules across tools.
//! - `codegen`: syn trees -> prettyplease text; schema data written as text.
//!
//! One `Diagnostics` context is shared by every stage and reported at the end with
//! file:line:col.
//!
//! The public surface is [`Builder`], what it returns ([`Generated`]), the inputs
//! ([`SourceFile`]), the diagnostics ([`Diagnostic`], [`Level`]) and type providers
//! ([`TypeProvider`], [`ProvidedType`]).

mod ast;
mod builder;
mod check;
mod codegen;
mod context;
mod declared;
mod diagnostics;
mod expected;
pub mod export;
mod lower;
mod metadata;
mod model;
mod output_type;
mod parse;
mod pipeline;
mod provider;
mod records;
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
