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
mod provider;
mod tree;
mod types;

use std::path::{Path, PathBuf};

pub use check::{MAX_SCHEMA_DEPTH, OPENAI_STRICT_MAX_DEPTH, is_provider_safe};
pub use diagnostics::{Diagnostic, Level};
pub use expected::{Expected, declared_list};
pub use provider::{ProvidedType, TypeProvider};

use codegen::Memo;
use context::ContextType;
use diagnostics::Diagnostics;
use model::{Decode, ToolModule};

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
        parse::module_path(&self.relative)
    }
}

/// The result of [`Builder::generate`]: the code, every diagnostic, and what was generated.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The text of `tools.rs` (formatted, with an `@generated` header).
    pub code: String,
    /// Warnings and errors, sorted by file and line.
    pub diagnostics: Vec<Diagnostic>,
    /// The tool modules, in path order (for tools such as `cargo toolcall export`).
    pub modules: Vec<GeneratedModule>,
    /// The crate's other files the build read for their types (relative to the crate),
    /// which [`Builder::compile`] watches with `rerun-if-changed`.
    pub crate_files: Vec<PathBuf>,
    /// The output types ([`Builder::output_type`]), in the order named.
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
    fn from_model(module: &ToolModule) -> Self {
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
    /// The context type given to [`Builder::context`] is not a Rust type path.
    Context(String),
    /// The generator's thread (with [`GENERATOR_STACK`] bytes of stack) could not be
    /// started.
    Thread(std::io::Error),
}

/// The stack of the thread [`Builder::generate_from`] runs on. Reserved, not committed:
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

/// Configures and runs the generator. See the crate docs for the usual `build.rs`.
pub struct Builder {
    crate_dir: PathBuf,
    tools_dir: PathBuf,
    module_root: String,
    providers: Vec<Box<dyn TypeProvider + Send + Sync>>,
    context: Option<String>,
    output_types: Vec<String>,
    out_file: String,
    missing_docs: Level,
    expected_warnings: Option<PathBuf>,
    runtime_features: Option<std::collections::BTreeSet<String>>,
}

impl Default for Builder {
    fn default() -> Self {
        Builder::new()
    }
}

impl Builder {
    /// Defaults: tools in `src/tools`, declared as module `crate::tools`.
    pub fn new() -> Self {
        let crate_dir = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from).unwrap_or_default();
        Builder {
            crate_dir,
            tools_dir: PathBuf::from("src/tools"),
            module_root: "crate::tools".to_owned(),
            providers: Vec::new(),
            context: None,
            output_types: Vec::new(),
            out_file: "tools.rs".to_owned(),
            missing_docs: Level::Warning,
            expected_warnings: None,
            runtime_features: std::env::var(RUNTIME_FEATURES_VAR).ok().map(|list| feature_set(&list)),
        }
    }

    /// The features the crate's toolcall-runtime dependency has (`["chrono"]`): a
    /// parameter whose decoder needs one it lacks (`chrono::DateTime`, `uuid::Uuid`) is an
    /// error at the parameter naming the feature, instead of a trait error inside
    /// `tools.rs`. In a build script this is known without asking: toolcall-runtime
    /// publishes its features to the build scripts of the crates that depend on it
    /// (`DEP_TOOLCALL_RUNTIME_FEATURES`); outside one, nothing is checked unless this is
    /// called.
    #[must_use]
    pub fn runtime_features<S: Into<String>>(mut self, features: impl IntoIterator<Item = S>) -> Self {
        self.runtime_features = Some(features.into_iter().map(Into::into).collect());
        self
    }

    /// The crate directory the tools dir is relative to (default: `CARGO_MANIFEST_DIR`).
    pub fn crate_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.crate_dir = dir.into();
        self
    }

    /// The tools directory, relative to the crate (default `src/tools`).
    pub fn tools_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.tools_dir = dir.into();
        self
    }

    /// The Rust path of the module the tools directory declares (default `crate::tools`).
    pub fn module_root(mut self, root: impl Into<String>) -> Self {
        self.module_root = root.into();
        self
    }

    /// Declares the crate's context type, by its path from the crate root.
    ///
    /// A tool takes the context as `&App` in any parameter position (written as the path,
    /// its last segment, or through a `use`), or not at all. It is never in a schema and
    /// never read from a model's arguments: the caller passes it to every call, as
    /// `toolset::ALL.call(&app, name, &args).await`. Put in it what the model must not
    /// choose: database pools, HTTP clients, the signed-in user. Without a context it is
    /// `()`. The generated toolsets are `Toolset<App>`; the context is any `'static` type,
    /// `Sync` when calls are spawned on a multi-threaded executor.
    ///
    /// ```no_run
    /// // build.rs
    /// toolcall_build::Builder::new().context("crate::App").compile();
    /// ```
    pub fn context(mut self, path: impl Into<String>) -> Self {
        self.context = Some(path.into());
        self
    }

    /// Names a crate type a model may answer with, by its path from the crate root (call
    /// it once per type). The generated code implements `toolcall_runtime::OutputType`
    /// for it, which `toolcall-agent`'s `Agent::run_output::<Report>(prompt)` takes: the
    /// schema name is the type's name, the description its doc comment, the schemas
    /// those a tool parameter of the type gets (OpenAI strict, Gemini's subset; a type
    /// whose schema is not an object is wrapped as `{"response": ..}`), and answers are
    /// decoded by the type's generated `FromArg`, with the errors a tool's arguments get.
    ///
    /// The type is a struct or enum without type parameters, anywhere in the crate's
    /// module tree; one that cannot be found, decoded or named from the crate root is an
    /// error at the path in `build.rs`. A crate with two builders names each type in one
    /// of them (each would write the impl).
    ///
    /// ```no_run
    /// // build.rs
    /// toolcall_build::Builder::new().output_type("crate::Report").compile();
    /// ```
    pub fn output_type(mut self, path: impl Into<String>) -> Self {
        self.output_types.push(path.into());
        self
    }

    /// The name of the generated file in `OUT_DIR` (default `tools.rs`), for a crate that
    /// generates two toolsets from two tools directories.
    pub fn out_file(mut self, name: impl Into<String>) -> Self {
        self.out_file = name.into();
        self
    }

    /// Makes a tool without a description, and a parameter without any description (no
    /// `# Arguments` bullet, `TOOL_PARAMS` description or documented type), errors that
    /// fail the build instead of warnings: for crates that want every tool documented.
    ///
    /// ```no_run
    /// // build.rs
    /// toolcall_build::Builder::new().deny_missing_docs().compile();
    /// ```
    pub fn deny_missing_docs(mut self) -> Self {
        self.missing_docs = Level::Error;
        self
    }

    /// Names a file (relative to the crate) listing the warnings this crate expects, so
    /// [`Builder::compile`] does not print them; every other warning still prints, and so
    /// does every error. For crates whose warnings are known and reviewed (fixtures,
    /// examples), not for hiding new ones.
    ///
    /// Each line of the form `path:line:col: message` (as the build prints them) is an
    /// expected warning; other lines (blank, comments, a snapshot header) are ignored. A
    /// warning matches a line with the same file and message, wherever it is in the file,
    /// so moving code does not make it unexpected. A listed warning that no longer occurs
    /// is printed once, as a reminder to remove it.
    ///
    /// [`Builder::compile`] also writes every diagnostic, one line each, to
    /// `$OUT_DIR/<out_file>.diagnostics` (`tools.rs.diagnostics`), so a test can check that
    /// the list is still what the build says:
    ///
    /// ```no_run
    /// // build.rs
    /// toolcall_build::Builder::new().expect_warnings("toolcall-warnings.txt").compile();
    /// ```
    /// ```text
    /// // tests/warnings.rs
    /// #[test]
    /// fn the_expected_warnings_are_the_warnings() {
    ///     let given = include_str!(concat!(env!("OUT_DIR"), "/tools.rs.diagnostics"));
    ///     assert_eq!(given, include_str!("../toolcall-warnings.txt")); // a list of lines only
    /// }
    /// ```
    pub fn expect_warnings(mut self, list: impl Into<PathBuf>) -> Self {
        self.expected_warnings = Some(list.into());
        self
    }

    /// Adds a type provider, asked about types the built-in mappings do not know.
    pub fn type_provider(mut self, provider: impl TypeProvider + Send + Sync + 'static) -> Self {
        self.providers.push(Box::new(provider));
        self
    }

    /// Reads every `.rs` file under the tools directory, sorted by path.
    pub fn read_sources(&self) -> Result<Vec<SourceFile>, BuildError> {
        let dir = self.crate_dir.join(&self.tools_dir);
        let mut files = Vec::new();
        for entry in walkdir::WalkDir::new(&dir).sort_by_file_name() {
            let entry = entry.map_err(|e| BuildError::Io(dir.clone(), e.into()))?;
            if !entry.file_type().is_file() || entry.path().extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let relative = entry.path().strip_prefix(&dir).unwrap_or(entry.path()).to_owned();
            let text = std::fs::read_to_string(entry.path())
                .map_err(|e| BuildError::Io(entry.path().to_owned(), e))?;
            files.push(SourceFile { path: self.tools_dir.join(&relative), relative, text });
        }
        Ok(files)
    }

    /// Reads the tools directory and the crate's module tree (from `src/lib.rs` or
    /// `src/main.rs`, for the types tools use) and generates the code, touching nothing.
    /// A `build.rs` may `unwrap` this; [`Builder::compile`] reports errors itself.
    pub fn generate(&self) -> Result<Generated, BuildError> {
        let sources = self.read_sources()?;
        let loader = |path: &Path| std::fs::read_to_string(self.crate_dir.join(path)).ok();
        Ok(self.generate_with(sources, Some(&loader), Memo::default())?.0)
    }

    /// Generates from tool files given in any order (they are sorted first), without
    /// reading the rest of the crate: types of other modules are unknown to it.
    ///
    /// The work runs on a thread of its own with [`GENERATOR_STACK`] bytes of stack: syn
    /// parses recursively, and so do the passes over its tree, so a file whose types nest
    /// thousands deep, or whose expressions chain thousands of terms, ends in code or
    /// diagnostics rather than a stack overflow, whichever thread calls this.
    pub fn generate_from(&self, sources: Vec<SourceFile>) -> Result<Generated, BuildError> {
        Ok(self.generate_with(sources, None, Memo::default())?.0)
    }

    /// Generates from a whole crate held in memory: `files` by their paths relative to
    /// the crate (`src/lib.rs`, `src/models/task.rs`, `src/tools/weather.rs`). The tool
    /// files are those under the tools directory; the others are read as
    /// [`Builder::generate`] reads them from disk, following the module tree.
    ///
    /// ```
    /// let files = [
    ///     ("src/lib.rs", "pub mod models; pub mod tools;"),
    ///     ("src/models.rs", "#[derive(serde::Deserialize)] pub struct Task { pub title: String }"),
    ///     ("src/tools/mod.rs", "pub mod tasks;"),
    ///     ("src/tools/tasks.rs", "/// Adds a task.\npub fn add(task: crate::models::Task) {}"),
    /// ];
    /// let files = files.map(|(path, text)| (std::path::PathBuf::from(path), text.to_owned()));
    /// let generated = toolcall_build::Builder::new().generate_from_files(files.into()).unwrap();
    /// let tool = &generated.modules[0].tools[0].ir;
    /// assert_eq!(tool.params[0].name, "task");
    /// assert!(!generated.has_errors());
    /// ```
    pub fn generate_from_files(
        &self,
        files: std::collections::BTreeMap<PathBuf, String>,
    ) -> Result<Generated, BuildError> {
        let sources: Vec<SourceFile> = files
            .iter()
            .filter_map(|(path, text)| {
                let relative = path.strip_prefix(&self.tools_dir).ok()?;
                let is_rust = relative.extension().is_some_and(|e| e == "rs");
                is_rust.then(|| SourceFile {
                    path: path.clone(),
                    relative: relative.to_owned(),
                    text: text.clone(),
                })
            })
            .collect();
        let loader = |path: &Path| files.get(path).cloned();
        Ok(self.generate_with(sources, Some(&loader), Memo::default())?.0)
    }

    /// Runs the generator on its own thread (see [`Builder::generate_from`]); `loader`
    /// reads the crate's other files, when there is a crate to read. Code formatted by an
    /// earlier run is taken from `memo`; the memo given back is this run's.
    fn generate_with(
        &self,
        sources: Vec<SourceFile>,
        loader: Option<tree::Loader<'_>>,
        memo: Memo,
    ) -> Result<(Generated, Memo), BuildError> {
        std::thread::scope(|scope| {
            let worker = std::thread::Builder::new()
                .name("toolcall-build".to_owned())
                .stack_size(GENERATOR_STACK)
                .spawn_scoped(scope, || self.generate_here(sources, loader, memo))
                .map_err(BuildError::Thread)?;
            worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    }

    /// [`Builder::generate_with`]'s work, on the calling thread.
    fn generate_here(
        &self,
        mut sources: Vec<SourceFile>,
        loader: Option<tree::Loader<'_>>,
        memo: Memo,
    ) -> Result<(Generated, Memo), BuildError> {
        let root: syn::Path = syn::parse_str(&self.module_root)
            .map_err(|_| BuildError::ModuleRoot(self.module_root.clone()))?;
        let context = match &self.context {
            Some(path) => Some(ContextType::parse(path).ok_or_else(|| BuildError::Context(path.clone()))?),
            None => None,
        };
        sources.sort_by(|a, b| a.relative.cmp(&b.relative));
        let diags = Diagnostics::default();
        declared::check_declared(&sources, self.root_module_file(&sources).as_ref(), &diags);
        let parsed: Vec<parse::ParsedFile> = sources
            .iter()
            .filter_map(|source| {
                let module = parse::module_path(&source.relative);
                parse::parse_file(&source.path, module, &source.text, &diags)
            })
            .collect();
        let root_module: Vec<String> = root.segments.iter().skip(1).map(|s| s.ident.to_string()).collect();
        let tree = match loader {
            Some(loader) => tree::CrateTree::walk(loader, &parsed, &root_module, &diags),
            None => tree::CrateTree::tools_only(&parsed, &root_module, &diags),
        };
        let krate = lower::Crate {
            tree: &tree,
            root: &root_module,
            providers: &self.providers,
            runtime_features: self.runtime_features.as_ref(),
        };
        let mut impls = std::collections::BTreeMap::new();
        let mut modules: Vec<ToolModule> = Vec::with_capacity(sources.len());
        for parsed in &parsed {
            let module: Vec<String> = root_module.iter().chain(&parsed.module).cloned().collect();
            let names = tree::resolve::Lookup::new(&tree, &module);
            let read = ast::tool::read_tools(parsed, &names, context.as_ref(), &diags);
            let lowered = lower::lower_file(parsed, &read, &krate, &mut impls, self.missing_docs, &diags);
            // A `mod.rs` that only declares submodules is not a tool module.
            if !(lowered.tools.is_empty() && parsed.file.ends_with("mod.rs")) {
                modules.push(lowered);
            }
        }
        let script = loader.and_then(|load| load(Path::new("build.rs")));
        let outputs = output_type::lower(&self.output_types, &krate, script.as_deref(), &mut impls, &diags);
        check::check(&modules, &diags);
        if let Some(context) = &context {
            self.check_context_used(context, &modules, &diags);
        }
        let context_tokens = context.as_ref().map_or_else(|| quote::quote!(()), ContextType::tokens);
        let impls: Vec<model::LocalImpl> = impls.into_values().collect();
        let (code, memo) = codegen::generate_file(&modules, &impls, &outputs, &root, &context_tokens, memo);
        let modules = modules.iter().map(GeneratedModule::from_model).collect();
        let crate_files = tree.files().to_vec();
        let outputs = outputs.iter().map(output_type::OutputDef::generated).collect();
        Ok((Generated { code, diagnostics: diags.into_sorted(), modules, crate_files, outputs }, memo))
    }

    /// Generates `$OUT_DIR/tools.rs` (rewritten only when its content changed), prints
    /// `cargo:rerun-if-changed` for `build.rs`, the tools dir and every file in it, and
    /// every warning and error as `cargo:warning` (notes only go to the `.diagnostics`
    /// file). On errors, prints a summary and exits the
    /// build script with status 1 (no panic backtrace).
    ///
    /// Beside `tools.rs` it keeps `tools.rs.memo`: the formatted text of each piece of
    /// generated code, by its tokens, so the next run formats only what changed (the same
    /// bytes as formatting it all; an unreadable memo is ignored), and
    /// `tools.rs.export.json`: the [`export::Record`] `cargo toolcall export` reads, so
    /// that export shows exactly what this build generated.
    pub fn compile(&self) {
        // A panic in the generator becomes this error message, not a backtrace. (The
        // generator's deep stack is `generate_from`'s own thread.)
        let outcome = std::thread::scope(|scope| {
            std::thread::Builder::new()
                .spawn_scoped(scope, || self.try_compile())
                .map_err(|e| format!("cannot start the generator thread: {e}"))?
                .join()
                .unwrap_or_else(|_| {
                    Err("the generator panicked; please report this as a toolcall bug".to_owned())
                })
        });
        if let Err(message) = outcome {
            eprintln!("error: toolcall-build: {message}");
            std::process::exit(1);
        }
    }

    /// The module file of the tools root when it is not a `mod.rs` among the sources: the
    /// 2018-style `src/tools.rs` beside the directory, read from disk when it exists.
    fn root_module_file(&self, sources: &[SourceFile]) -> Option<declared::ModuleFile> {
        if sources.iter().any(|s| s.relative == Path::new("mod.rs")) {
            return None;
        }
        let path = self.tools_dir.with_extension("rs");
        let text = std::fs::read_to_string(self.crate_dir.join(&path)).ok()?;
        Some(declared::ModuleFile { path, text })
    }

    /// A declared context that no tool takes is worth one warning, at the `.context(..)`
    /// call in the build script when it can be found.
    fn check_context_used(&self, context: &ContextType, modules: &[ToolModule], diags: &Diagnostics) {
        if modules.iter().flat_map(|m| &m.tools).any(|t| !t.context_at.is_empty()) {
            return;
        }
        let script = Path::new("build.rs");
        let (line, column) = std::fs::read_to_string(self.crate_dir.join(script))
            .ok()
            .and_then(|text| {
                text.lines().enumerate().find_map(|(n, l)| l.find(".context(").map(|c| (n + 1, c + 1)))
            })
            .unwrap_or((1, 1));
        diags.at(
            Level::Warning,
            script,
            line,
            column,
            format!(
                "the context `{}` is declared, but no tool takes it; a tool receives it as a `&{}` parameter",
                context.display(),
                context.display().rsplit("::").next().unwrap_or_default()
            ),
        );
    }

    /// The lines to print as `cargo:warning`: every warning and error, less the warnings
    /// the crate's list expects (plus a line per listed warning that no longer occurs).
    fn printed_diagnostics(&self, diagnostics: &[Diagnostic]) -> Vec<String> {
        let Some(list) = &self.expected_warnings else {
            return expected::printed_lines(diagnostics, None);
        };
        println!("cargo:rerun-if-changed={}", list.display());
        let expected = match std::fs::read_to_string(self.crate_dir.join(list)) {
            Ok(text) => expected::Expected::parse(&text),
            Err(error) => {
                println!("cargo:warning={}: cannot read the expected warnings ({error})", list.display());
                expected::Expected::default()
            }
        };
        expected::printed_lines(diagnostics, Some((list, &expected)))
    }

    fn try_compile(&self) -> Result<(), String> {
        let out_dir = std::env::var_os("OUT_DIR")
            .map(PathBuf::from)
            .ok_or("OUT_DIR is not set; call compile() from build.rs")?;
        let sources = self.read_sources().map_err(|e| e.to_string())?;
        println!("cargo:rerun-if-changed=build.rs");
        println!("cargo:rerun-if-changed={}", self.tools_dir.display());
        for source in &sources {
            println!("cargo:rerun-if-changed={}", source.path.display());
        }
        let loader = |path: &Path| std::fs::read_to_string(self.crate_dir.join(path)).ok();
        let memo_file = out_dir.join(format!("{}.memo", self.out_file));
        let memo = std::fs::read_to_string(&memo_file).map(|text| Memo::from_text(&text)).unwrap_or_default();
        let (generated, memo) =
            self.generate_with(sources, Some(&loader), memo).map_err(|e| e.to_string())?;
        for file in &generated.crate_files {
            println!("cargo:rerun-if-changed={}", file.display());
        }
        let printed = self.printed_diagnostics(&generated.diagnostics);
        for line in &printed {
            println!("cargo:warning={line}");
        }
        let lines: String = generated.diagnostics.iter().map(|d| format!("{d}\n")).collect();
        let listing = out_dir.join(format!("{}.diagnostics", self.out_file));
        write_if_changed(&listing, &lines).map_err(|e| format!("cannot write {}: {e}", listing.display()))?;
        let errors: Vec<&Diagnostic> =
            generated.diagnostics.iter().filter(|d| d.level == Level::Error).collect();
        if !errors.is_empty() {
            let list: Vec<String> = errors.iter().map(|d| format!("  {d}")).collect();
            return Err(format!("{} error(s) in the crate's sources:\n{}", errors.len(), list.join("\n")));
        }
        write_if_changed(&out_dir.join(&self.out_file), &generated.code)
            .map_err(|e| format!("cannot write tools.rs: {e}"))?;
        let record = export::Record::of(&generated, &self.tools_dir, printed);
        let record_file = out_dir.join(export::record_file(&self.out_file));
        write_if_changed(&record_file, &record.to_text())
            .map_err(|e| format!("cannot write {}: {e}", record_file.display()))?;
        // Only a speed-up for the next run: one that cannot be kept is not an error.
        let _ = write_if_changed(&memo_file, &memo.to_text());
        Ok(())
    }
}

/// Where cargo gives a build script the features of its crate's toolcall-runtime (the
/// `features` metadata toolcall-runtime's build script publishes under `links`).
const RUNTIME_FEATURES_VAR: &str = "DEP_TOOLCALL_RUNTIME_FEATURES";

/// `chrono,uuid` as a set.
fn feature_set(list: &str) -> std::collections::BTreeSet<String> {
    list.split(',').map(str::trim).filter(|f| !f.is_empty()).map(str::to_owned).collect()
}

/// Writes `text` to `path` unless the file already holds exactly that.
fn write_if_changed(path: &Path, text: &str) -> std::io::Result<()> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    std::fs::write(path, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A crate of two tool files with local types, as `generate_from_files` takes it.
    fn crate_files(description: &str, constant: u32) -> std::collections::BTreeMap<PathBuf, String> {
        let weather = format!(
            "/// Which units.\npub enum Units {{ Metric, Imperial }}\n\
             /// Where.\npub struct Place {{ pub city: String, pub zip: Option<u32> }}\n\
             /// {description}\npub fn forecast(place: Place, units: Units, days: Option<u32>) -> String {{\n\
             let days = days.unwrap_or({constant});\n    format!(\"{{}} {{days}}\", place.city)\n}}\n"
        );
        let files = [
            ("src/lib.rs", "pub mod tools;".to_owned()),
            ("src/tools/mod.rs", "pub mod notes;\npub mod weather;".to_owned()),
            ("src/tools/notes.rs", "/// A note.\npub struct Note { pub text: String }\n/// Adds a note.\npub fn add(note: Note) -> usize { note.text.len() }\n".to_owned()),
            ("src/tools/weather.rs", weather),
        ];
        files.into_iter().map(|(path, text)| (PathBuf::from(path), text)).collect()
    }

    /// `files` generated with `memo`, as `compile` does between runs.
    fn generate_with_memo(
        files: &std::collections::BTreeMap<PathBuf, String>,
        memo: Memo,
    ) -> (Generated, Memo) {
        let builder = Builder::new();
        let sources = files
            .iter()
            .filter_map(|(path, text)| {
                let relative = path.strip_prefix(&builder.tools_dir).ok()?.to_owned();
                Some(SourceFile { path: path.clone(), relative, text: text.clone() })
            })
            .collect();
        let loader = |path: &Path| files.get(path).cloned();
        builder.generate_with(sources, Some(&loader), memo).unwrap()
    }

    #[test]
    fn code_from_the_memo_is_the_code_formatted_afresh() {
        let (first, memo) = generate_with_memo(&crate_files("Forecasts.", 3), Memo::default());
        assert!(!first.has_errors(), "{:?}", first.diagnostics);
        // Only pieces repeated within the run (the same call shape twice) are found.
        let first_hits = memo.hits();
        let mut memo = Memo::from_text(&memo.to_text());
        // A body edit, a doc edit, a new default, and the first crate again: each is the
        // code a fresh run gives, and most of it comes from the memo.
        for (description, constant) in [("Forecasts.", 4), ("Forecasts the weather.", 4), ("Forecasts.", 3)] {
            let files = crate_files(description, constant);
            let (fresh, _) = generate_with_memo(&files, Memo::default());
            let (remembered, next) = generate_with_memo(&files, memo);
            assert_eq!(remembered.code, fresh.code, "{description} {constant}");
            assert!(next.hits() >= first_hits + 4, "{} pieces remembered", next.hits());
            memo = Memo::from_text(&next.to_text());
        }
        let (again, _) = generate_with_memo(&crate_files("Forecasts.", 3), memo);
        assert_eq!(again.code, first.code);
    }
}
