//! The records the build gives back: the tool files it read ([`SourceFile`]), what it
//! generated ([`Generated`], per module and per tool), and why it could not start
//! ([`BuildError`]). Plain data; the stages that fill them sit above.

use std::path::PathBuf;

use crate::diagnostics::{Diagnostic, Level};
use crate::model::{Decode, ToolModule};

/// One tool file handed to the generator: its path relative to the crate, its module
/// path relative to the tools dir, and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    /// The file as diagnostics name it (`src/tools/weather.rs`).
    pub path: PathBuf,
    /// Its path relative to the tools directory (`weather.rs`).
    pub relative: PathBuf,
    /// Its contents.
    pub text: String,
}

impl SourceFile {
    /// The module path below the tools root: `billing/invoices.rs` is
    /// `["billing", "invoices"]`, `billing/mod.rs` is `["billing"]`.
    pub fn module_path(&self) -> Vec<String> {
        crate::parse::module_path(&self.relative)
    }
}

/// The result of [`Builder::generate`](crate::Builder::generate): the code, every diagnostic, and what was generated.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The text of `tools.rs` (formatted, with an `@generated` header).
    pub code: String,
    /// Warnings and errors, sorted by file and line.
    pub diagnostics: Vec<Diagnostic>,
    /// The tool modules, in path order (for tools such as `cargo toolcall export`).
    pub modules: Vec<GeneratedModule>,
    /// The crate's other files the build read for their types (relative to the crate),
    /// which [`Builder::compile`](crate::Builder::compile) watches with `rerun-if-changed`.
    pub crate_files: Vec<PathBuf>,
    /// The output types ([`Builder::output_type`](crate::Builder::output_type)), in the order named.
    pub outputs: Vec<GeneratedOutput>,
}

/// One output type of the generated code: what its `OutputType::spec()` returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedOutput {
    /// The path generated code names it by (`crate::models::Report`).
    pub path: String,
    /// The schema's name (the type's name).
    pub name: String,
    /// The type's doc ("" when none).
    pub description: String,
    /// Its JSON Schema in OpenAI's strict form.
    pub schema: String,
    /// Its schema in Gemini's subset.
    pub gemini_schema: String,
    /// Its schema is not an object, so answers are wrapped as `{"response": ..}`.
    pub wrapped: bool,
}

/// One tool file of the generated code.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneratedModule {
    /// Module path below the tools root (`["billing", "invoices"]`; empty for `mod.rs`).
    pub path: Vec<String>,
    /// The file, as diagnostics name it.
    pub file: PathBuf,
    /// Its tools, in declaration order.
    pub tools: Vec<GeneratedTool>,
    /// Whether generated code references the file's `TOOL_PARAMS` const (so the compiler
    /// checks it): it exists and is visible.
    pub overrides_checked: bool,
}

/// One generated tool.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneratedTool {
    /// What its schemas are rendered from.
    pub ir: toolcall_runtime::ir::Tool,
    /// The 1-based line of the function's name in its file.
    pub line: usize,
    /// The 1-based column of the function's name.
    pub column: usize,
    /// An `async fn`.
    pub is_async: bool,
    /// It takes the crate's context.
    pub takes_context: bool,
    /// Wire names of the parameters decoded through `serde::Deserialize` (foreign types
    /// without a decoder of their own), whose schema may not be the whole contract.
    pub serde_params: Vec<String>,
}

impl GeneratedModule {
    pub(crate) fn from_model(module: &ToolModule) -> Self {
        let tools = module
            .tools
            .iter()
            .map(|tool| GeneratedTool {
                ir: tool.ir.clone(),
                line: tool.span.start().line,
                column: tool.span.start().column + 1,
                is_async: tool.is_async,
                takes_context: !tool.context_at.is_empty(),
                serde_params: tool
                    .params
                    .iter()
                    .filter(|p| matches!(p.decode, Decode::Deserialize { .. }))
                    .map(|p| p.name.clone())
                    .collect(),
            })
            .collect();
        GeneratedModule {
            path: module.path.clone(),
            file: module.file.clone(),
            tools,
            overrides_checked: module.overrides_const,
        }
    }
}

impl Generated {
    /// Whether any diagnostic is an error (the build must fail).
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.level == Level::Error)
    }
}

/// Why generation could not even start.
#[derive(Debug)]
pub enum BuildError {
    /// The tools directory or a file in it could not be read.
    Io(PathBuf, std::io::Error),
    /// The module root is not a Rust path.
    ModuleRoot(String),
    /// The context type given to [`Builder::context`](crate::Builder::context) is not a Rust type path.
    Context(String),
    /// The generator's thread (with [`GENERATOR_STACK`] bytes of stack) could not be
    /// started.
    Thread(std::io::Error),
}

/// The stack of the thread [`Builder::generate_from`](crate::Builder::generate_from) runs on. Reserved, not committed:
/// a file only uses the pages its nesting reaches (a few KiB per level).
pub const GENERATOR_STACK: usize = 1 << 30;

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildError::Io(path, error) => write!(f, "cannot read {}: {error}", path.display()),
            BuildError::ModuleRoot(root) => write!(f, "module root `{root}` is not a Rust path"),
            BuildError::Context(path) => write!(
                f,
                "context type `{path}` given to `Builder::context` is not a Rust type path; \
                 write it from the crate root, e.g. `crate::App`"
            ),
            BuildError::Thread(error) => write!(
                f,
                "cannot start the generator's thread ({} MiB of stack, reserved): {error}",
                GENERATOR_STACK >> 20
            ),
        }
    }
}

impl std::error::Error for BuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BuildError::Io(_, error) | BuildError::Thread(error) => Some(error),
            BuildError::ModuleRoot(_) | BuildError::Context(_) => None,
        }
    }
}
