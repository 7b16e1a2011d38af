//! [`Builder`]: the generator's front, as prost-build's `Config` is: settings, then
//! `compile()` in a build script (which reads the crate, runs the pipeline, writes
//! `tools.rs` and reports diagnostics), or `generate*` for the code in memory.

use std::path::{Path, PathBuf};

use crate::codegen::Memo;
use crate::diagnostics::{Diagnostic, Level};
use crate::pipeline::{Loader, Options};
use crate::provider::TypeProvider;
use crate::records::{BuildError, Generated, SourceFile};
use crate::{expected, export};

/// Configures and runs the generator. See the crate docs for the usual `build.rs`.
pub struct Builder {
    crate_dir: PathBuf,
    tools_dir: PathBuf,
    module_root: String,
    prompts_dir: PathBuf,
    prompts_root: String,
    resources_dir: PathBuf,
    resources_root: String,
    providers: Vec<Box<dyn TypeProvider + Send + Sync>>,
    context: Option<String>,
    output_types: Vec<String>,
    form_types: Vec<String>,
    out_file: String,
    missing_docs: Level,
    expected_warnings: Option<PathBuf>,
    runtime_features: Option<std::collections::BTreeSet<String>>,
    tool_search: bool,
}

impl Default for Builder {
    fn default() -> Self {
        Builder::new()
    }
}

impl Builder {
    /// Defaults: tools in `src/tools`, declared as module `crate::tools`; prompts in
    /// `src/prompts` (`crate::prompts`) and resources in `src/resources`
    /// (`crate::resources`), each read when the directory exists.
    pub fn new() -> Self {
        let crate_dir = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from).unwrap_or_default();
        Builder {
            crate_dir,
            tools_dir: PathBuf::from("src/tools"),
            module_root: "crate::tools".to_owned(),
            prompts_dir: PathBuf::from("src/prompts"),
            prompts_root: "crate::prompts".to_owned(),
            resources_dir: PathBuf::from("src/resources"),
            resources_root: "crate::resources".to_owned(),
            providers: Vec::new(),
            context: None,
            output_types: Vec::new(),
            form_types: Vec::new(),
            out_file: "tools.rs".to_owned(),
            missing_docs: Level::Warning,
            expected_warnings: None,
            runtime_features: std::env::var(RUNTIME_FEATURES_VAR).ok().map(|list| feature_set(&list)),
            tool_search: false,
        }
    }

    /// Compiles a search index of the tools into `tools.rs` (off by default; off, the file
    /// is what it was without this call): every tool's name, title, description, module,
    /// parameter names and docs and enum values, split into words, folded, stemmed and
    /// weighted ([`toolcall_runtime::search`]), written as static data. `toolset::ALL.search(query, limit)`
    /// and each module's `TOOLS.search(..)` rank with BM25 over it with nothing built at
    /// start-up; toolcall-mcp's and toolcall-agent's tool search use it. A tool whose
    /// description is missing or only a few words gets a warning: search finds a tool by
    /// what its texts say.
    ///
    /// ```no_run
    /// // build.rs
    /// toolcall_build::Builder::new().tool_search(true).compile();
    /// ```
    pub fn tool_search(mut self, on: bool) -> Self {
        self.tool_search = on;
        self
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

    /// The prompts directory, relative to the crate (default `src/prompts`), and its
    /// module path (default `crate::prompts`). Each `pub fn` there is a prompt: its name,
    /// its doc comment and its parameters are the prompt's name, description and
    /// arguments; it returns its text, a `toolcall_runtime::Message`, or a list of them.
    #[must_use]
    pub fn prompts_dir(mut self, dir: impl Into<PathBuf>, module_root: impl Into<String>) -> Self {
        self.prompts_dir = dir.into();
        self.prompts_root = module_root.into();
        self
    }

    /// The resources directory, relative to the crate (default `src/resources`), and its
    /// module path (default `crate::resources`). Each `pub fn` there is a resource,
    /// served at the URI its file's `RESOURCES` const gives it
    /// (`toolcall_runtime::ResourceMeta`); its parameters are the URI template's
    /// variables.
    #[must_use]
    pub fn resources_dir(mut self, dir: impl Into<PathBuf>, module_root: impl Into<String>) -> Self {
        self.resources_dir = dir.into();
        self.resources_root = module_root.into();
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

    /// Names a crate type a tool asks the user to fill in mid-call
    /// (`progress.ask::<Confirm>("Remove it?")`), written from the crate root
    /// (`"crate::models::Confirm"`). Generates its `toolcall_runtime::Form` impl: MCP
    /// elicitation's flat schema from its fields and docs (strings, numbers, integers,
    /// booleans, enums of unit variants, and lists of such enums; an enum whose variants
    /// have docs is a titled choice), and its generated decoder. A type that is no flat
    /// form is an error at this string, naming the field.
    #[must_use]
    pub fn form_type(mut self, path: impl Into<String>) -> Self {
        self.form_types.push(path.into());
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

    /// Reads every `.rs` file under the tools directory, then under the prompts and
    /// resources directories when they exist, each sorted by path.
    pub fn read_sources(&self) -> Result<Vec<SourceFile>, BuildError> {
        let mut files = read_dir(&self.crate_dir, &self.tools_dir)?;
        for dir in [&self.prompts_dir, &self.resources_dir] {
            if self.crate_dir.join(dir).is_dir() {
                files.extend(read_dir(&self.crate_dir, dir)?);
            }
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
    /// The work runs on a thread of its own with [`GENERATOR_STACK`](crate::GENERATOR_STACK) bytes of stack: syn
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
                let relative = [&self.tools_dir, &self.prompts_dir, &self.resources_dir]
                    .into_iter()
                    .find_map(|dir| path.strip_prefix(dir).ok())?;
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
        // A directory that does not exist is not watched: cargo would run the script at
        // every build.
        for dir in [&self.prompts_dir, &self.resources_dir] {
            if self.crate_dir.join(dir).is_dir() {
                println!("cargo:rerun-if-changed={}", dir.display());
            }
        }
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

    /// The settings the pipeline reads.
    fn options(&self) -> Options<'_> {
        use crate::model::Kind;
        use crate::pipeline::Dir;
        Options {
            dirs: [
                Dir { kind: Kind::Tool, path: &self.tools_dir, module_root: &self.module_root },
                Dir { kind: Kind::Prompt, path: &self.prompts_dir, module_root: &self.prompts_root },
                Dir { kind: Kind::Resource, path: &self.resources_dir, module_root: &self.resources_root },
            ],
            providers: &self.providers,
            context: self.context.as_deref(),
            output_types: &self.output_types,
            form_types: &self.form_types,
            missing_docs: self.missing_docs,
            runtime_features: self.runtime_features.as_ref(),
            tool_search: self.tool_search,
        }
    }

    /// Runs the pipeline ([`crate::pipeline::run`]) with these settings.
    fn generate_with(
        &self,
        sources: Vec<SourceFile>,
        loader: Option<Loader<'_>>,
        memo: Memo,
    ) -> Result<(Generated, Memo), BuildError> {
        crate::pipeline::run(&self.options(), sources, loader, memo)
    }
}

/// Every `.rs` file under `dir` (relative to `crate_dir`), sorted by path, each with its
/// path relative to the crate and to `dir`.
fn read_dir(crate_dir: &Path, dir: &Path) -> Result<Vec<SourceFile>, BuildError> {
    let root = crate_dir.join(dir);
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(&root).sort_by_file_name() {
        let entry = entry.map_err(|e| BuildError::Io(root.clone(), e.into()))?;
        if !entry.file_type().is_file() || entry.path().extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let relative = entry.path().strip_prefix(&root).unwrap_or(entry.path()).to_owned();
        let text =
            std::fs::read_to_string(entry.path()).map_err(|e| BuildError::Io(entry.path().to_owned(), e))?;
        files.push(SourceFile { path: dir.join(&relative), relative, text });
    }
    Ok(files)
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
