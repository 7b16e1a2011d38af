//! The pipeline, stage after stage: parse the tool files, walk the crate's module tree
//! for the types they use, read each tool, lower it to the model, check the whole, and
//! generate the code. Pure: it reads nothing but its sources and what its loader gives
//! (the crate's other files, when there is a crate), and writes nothing.

use std::path::{Path, PathBuf};

use crate::codegen::{self, Memo};
use crate::context::ContextType;
use crate::diagnostics::{Diagnostics, Level};
use crate::model::{self, Kind, ToolModule};
use crate::provider::TypeProvider;
use crate::records::{BuildError, GENERATOR_STACK, Generated, GeneratedModule, SourceFile};
use crate::{ast, check, declared, form_type, lower, output_type, parse, served, tree};

/// Reads one file of the crate by its path relative to the crate (`src/lib.rs`).
pub(crate) type Loader<'l> = tree::Loader<'l>;

/// One source directory: what its functions are, where it is, and its module path.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Dir<'b> {
    /// What its functions are served as.
    pub(crate) kind: Kind,
    /// The directory, relative to the crate (`src/tools`).
    pub(crate) path: &'b PathBuf,
    /// Its module path (`crate::tools`).
    pub(crate) module_root: &'b str,
}

/// What the pipeline needs of the [`Builder`](crate::Builder)'s settings.
pub(crate) struct Options<'b> {
    /// The tools directory, then the prompts and resources directories. A source belongs
    /// to the prompts or resources directory its path is under, else to the tools.
    pub(crate) dirs: [Dir<'b>; 3],
    /// The type providers, asked about types the built-in mappings do not know.
    pub(crate) providers: &'b [Box<dyn TypeProvider + Send + Sync>],
    /// The context type's path, when one is declared.
    pub(crate) context: Option<&'b str>,
    /// The types named with `Builder::output_type`.
    pub(crate) output_types: &'b [String],
    /// The types named with `Builder::form_type`.
    pub(crate) form_types: &'b [String],
    /// How a missing parameter description is reported.
    pub(crate) missing_docs: Level,
    /// The features of the crate's toolcall-runtime, when known.
    pub(crate) runtime_features: Option<&'b std::collections::BTreeSet<String>>,
    /// Whether `tools.rs` gets a search index of the tools (`Builder::tool_search`).
    pub(crate) tool_search: bool,
}

/// Runs the generator on its own thread (see [`Builder::generate_from`](crate::Builder::generate_from)); `loader`
/// reads the crate's other files, when there is a crate to read. Code formatted by an
/// earlier run is taken from `memo`; the memo given back is this run's.
pub(crate) fn run(
    options: &Options<'_>,
    sources: Vec<SourceFile>,
    loader: Option<Loader<'_>>,
    memo: Memo,
) -> Result<(Generated, Memo), BuildError> {
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("toolcall-build".to_owned())
            .stack_size(GENERATOR_STACK)
            .spawn_scoped(scope, || generate_here(options, sources, loader, memo))
            .map_err(BuildError::Thread)?;
        worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// [`run`]'s work, on the calling thread.
fn generate_here(
    options: &Options<'_>,
    mut sources: Vec<SourceFile>,
    loader: Option<Loader<'_>>,
    memo: Memo,
) -> Result<(Generated, Memo), BuildError> {
    let context = match options.context {
        Some(path) => Some(ContextType::parse(path).ok_or_else(|| BuildError::Context(path.to_owned()))?),
        None => None,
    };
    sources.sort_by(|a, b| a.relative.cmp(&b.relative));
    let diags = Diagnostics::default();
    let mut groups: Vec<Group<'_>> = Vec::with_capacity(3);
    for dir in options.dirs {
        let root: syn::Path = syn::parse_str(dir.module_root)
            .map_err(|_| BuildError::ModuleRoot(dir.module_root.to_owned()))?;
        let mine: Vec<SourceFile> =
            sources.iter().filter(|source| kind_of(options, source) == dir.kind).cloned().collect();
        declared::check_declared(&mine, root_module_file(dir, &mine, loader).as_ref(), &diags);
        let parsed = mine
            .iter()
            .filter_map(|source| {
                let module = parse::module_path(&source.relative);
                parse::parse_file(&source.path, module, &source.text, &diags)
            })
            .collect();
        let module = root.segments.iter().skip(1).map(|s| s.ident.to_string()).collect();
        groups.push(Group { dir, root, module, parsed });
    }
    let roots: Vec<(&[String], &[parse::ParsedFile])> =
        groups.iter().map(|g| (g.module.as_slice(), g.parsed.as_slice())).collect();
    let tree = match loader {
        Some(loader) => tree::CrateTree::walk(loader, &roots, &diags),
        None => tree::CrateTree::tools_only(&roots, &diags),
    };
    let mut impls = std::collections::BTreeMap::new();
    let mut modules: Vec<ToolModule> = Vec::with_capacity(sources.len());
    for group in &groups {
        let krate = lower::Crate {
            tree: &tree,
            root: &group.module,
            kind: group.dir.kind,
            providers: options.providers,
            runtime_features: options.runtime_features,
        };
        for parsed in &group.parsed {
            let module: Vec<String> = group.module.iter().chain(&parsed.module).cloned().collect();
            let names = tree::resolve::Lookup::new(&tree, &module);
            let read = ast::tool::read_tools(parsed, &names, context.as_ref(), &diags);
            let mut lowered =
                lower::lower_file(parsed, &read, &krate, &mut impls, options.missing_docs, &diags);
            if group.dir.kind == Kind::Resource {
                served::apply_resources(parsed, &mut lowered, &diags);
            }
            // A `mod.rs` that only declares submodules is not a tool module.
            if !(lowered.tools.is_empty() && parsed.file.ends_with("mod.rs")) {
                modules.push(lowered);
            }
        }
    }
    let krate = lower::Crate {
        tree: &tree,
        root: &groups[0].module,
        kind: Kind::Tool,
        providers: options.providers,
        runtime_features: options.runtime_features,
    };
    let script = loader.and_then(|load| load(Path::new("build.rs")));
    let outputs = output_type::lower(options.output_types, &krate, script.as_deref(), &mut impls, &diags);
    let forms = form_type::lower(options.form_types, &krate, script.as_deref(), &mut impls, &diags);
    let tools: Vec<ToolModule> = modules.iter().filter(|m| m.kind == Kind::Tool).cloned().collect();
    check::check(&tools, &diags);
    if options.tool_search {
        check::check_searchable(&tools, &diags);
    }
    served::check_served(&modules, &diags);
    if let Some(context) = &context {
        check_context_used(context, &modules, script.as_deref(), &diags);
    }
    let context_tokens = context.as_ref().map_or_else(|| quote::quote!(()), ContextType::tokens);
    let impls: Vec<model::LocalImpl> = impls.into_values().collect();
    let roots =
        codegen::Roots { tools: &groups[0].root, prompts: &groups[1].root, resources: &groups[2].root };
    let settings =
        codegen::Settings { roots: &roots, context: &context_tokens, tool_search: options.tool_search };
    let (code, memo) = codegen::generate_file(&modules, &impls, &outputs, &forms, &settings, memo);
    let modules = tools.iter().map(GeneratedModule::from_model).collect();
    let crate_files = tree.files().to_vec();
    let outputs = outputs.iter().map(output_type::OutputDef::generated).collect();
    Ok((Generated { code, diagnostics: diags.into_sorted(), modules, crate_files, outputs }, memo))
}

/// One source directory as the pipeline reads it: its settings, its module path parsed,
/// and its files parsed.
struct Group<'b> {
    dir: Dir<'b>,
    root: syn::Path,
    module: Vec<String>,
    parsed: Vec<parse::ParsedFile>,
}

/// Which directory `source` belongs to: the prompts or resources directory its path is
/// under, else the tools'.
fn kind_of(options: &Options<'_>, source: &SourceFile) -> Kind {
    options.dirs[1..].iter().find(|dir| source.path.starts_with(dir.path)).map_or(Kind::Tool, |dir| dir.kind)
}

/// The module file of a directory's root when it is not a `mod.rs` among its sources:
/// the 2018-style `src/tools.rs` beside the directory, read from disk when it exists.
fn root_module_file(
    dir: Dir<'_>,
    sources: &[SourceFile],
    loader: Option<Loader<'_>>,
) -> Option<declared::ModuleFile> {
    if sources.is_empty() || sources.iter().any(|s| s.relative == Path::new("mod.rs")) {
        return None;
    }
    let path = dir.path.with_extension("rs");
    let text = loader?(&path)?;
    Some(declared::ModuleFile { path, text })
}

/// A declared context that no tool takes is worth one warning, at the `.context(..)`
/// call in the build script (`script`, its text, when there is a crate to read).
fn check_context_used(
    context: &ContextType,
    modules: &[ToolModule],
    script: Option<&str>,
    diags: &Diagnostics,
) {
    if modules.iter().flat_map(|m| &m.tools).any(|t| !t.context_at.is_empty()) {
        return;
    }
    let (line, column) = script
        .and_then(|text| {
            text.lines().enumerate().find_map(|(n, l)| l.find(".context(").map(|c| (n + 1, c + 1)))
        })
        .unwrap_or((1, 1));
    let script = Path::new("build.rs");
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
