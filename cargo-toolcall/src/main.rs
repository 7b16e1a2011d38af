//! `cargo toolcall export`: writes a crate's tool definitions from its source, without
//! compiling it, with the same parser and renderer as the build script.
//!
//! The output is stable enough to commit: one JSON array, two-space indent, object keys
//! sorted except inside `properties`, modules sorted, declaration order within a module,
//! a trailing newline.

mod args;
mod term;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use toolcall_build::{Builder, Diagnostic, Expected, Level, declared_list, is_provider_safe};
use toolcall_runtime::render::render_tools;

use args::{Cargo, Command, ExportArgs, Toolcall};

fn main() -> ExitCode {
    let args = args::normalize(std::env::args_os());
    term::init_color(&args);
    match args::parse(args) {
        Ok(Cargo::Toolcall(Toolcall { command: Some(Command::Export(export)), .. })) => run_export(&export),
        Ok(Cargo::Toolcall(Toolcall { command: None, .. })) => clap_exit(&args::help()),
        Err(error) => clap_exit(&error),
    }
}

/// Prints clap's help, version or usage error; exit 0 for the first two, 2 for an error.
fn clap_exit(error: &clap::Error) -> ExitCode {
    let _ = error.print();
    ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2))
}

fn run_export(args: &ExportArgs) -> ExitCode {
    match export(args) {
        Ok(code) => code,
        Err(message) => {
            term::error(&message);
            ExitCode::FAILURE
        }
    }
}

/// Runs the export; `Err` is a message for stderr (exit 1).
fn export(args: &ExportArgs) -> Result<ExitCode, String> {
    let text = exported_text(args)?;
    if let Some(path) = &args.check {
        return check_file(path, &text);
    }
    match &args.out {
        Some(path) => {
            std::fs::write(path, &text).map_err(|e| format!("cannot write {}: {e}", path.display()))?
        }
        None => term::print(&text)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// The crate directory from `--manifest-path` or `--path` (default: the current one).
fn crate_dir(args: &ExportArgs) -> Result<PathBuf, String> {
    let dir = match (&args.manifest_path, &args.path) {
        (Some(manifest), _) => manifest.parent().map(Path::to_owned).unwrap_or_default(),
        (None, Some(path)) => path.clone(),
        (None, None) => PathBuf::from("."),
    };
    let dir = if dir.as_os_str().is_empty() { PathBuf::from(".") } else { dir };
    if !dir.is_dir() {
        return Err(format!("{}: no such directory", dir.display()));
    }
    if !dir.join("src/tools").is_dir() {
        return Err(format!(
            "{}: no src/tools directory; toolcall reads tools from src/tools/**/*.rs",
            dir.display()
        ));
    }
    Ok(dir)
}

/// Generates, reports diagnostics, refuses unsafe names, and lays the array out.
fn exported_text(args: &ExportArgs) -> Result<String, String> {
    let dir = crate_dir(args)?;
    // Diagnostics name files as the user typed the crate path (`example-app/src/tools/..`).
    let mut builder = Builder::new().crate_dir("").tools_dir(dir.join("src/tools"));
    if let Some(context) = &args.context {
        builder = builder.context(context);
    }
    let generated = builder.generate().map_err(|e| e.to_string())?;
    report(&generated.diagnostics, &dir, args);
    if generated.has_errors() {
        return Err("the tool files have errors (listed above); nothing was written".to_owned());
    }
    let mut modules: Vec<&toolcall_build::GeneratedModule> = generated
        .modules
        .iter()
        .filter(|m| args.modules.is_empty() || args.modules.contains(&m.path.join("::")))
        .collect();
    modules.sort_by_key(|m| m.path.join("::"));
    unknown_modules(args, &generated.modules)?;
    refuse_unsafe_names(&modules)?;
    let tools = modules.iter().flat_map(|m| m.tools.iter().map(|t| &t.ir));
    let rendered = render_tools(tools, args.format, args.strict);
    toolcall_runtime::json::stable(&rendered)
        .map_err(|e| format!("internal error: rendered JSON does not parse: {e}"))
}

fn unknown_modules(args: &ExportArgs, modules: &[toolcall_build::GeneratedModule]) -> Result<(), String> {
    let known: Vec<String> = modules.iter().map(|m| m.path.join("::")).collect();
    match args.modules.iter().find(|m| !known.contains(m)) {
        Some(missing) => Err(format!("no tool module `{missing}`; modules: {}", known.join(", "))),
        None => Ok(()),
    }
}

/// Prints the build's diagnostics on stderr as the build does: errors, and the warnings
/// the crate's expected-warnings list (`--expect-warnings`, else the one build.rs names
/// with `Builder::expect_warnings`) does not hold; notes only with `--notes`. Then a note
/// when a type may be one that the crate's type providers know: they run only in
/// build.rs, never here.
fn report(diagnostics: &[Diagnostic], dir: &Path, args: &ExportArgs) {
    let script = build_script(dir);
    let expected = expected_warnings(dir, args, script.as_deref());
    for diagnostic in diagnostics {
        match diagnostic.level {
            Level::Error => term::message(&diagnostic.to_string()),
            Level::Note if args.notes => term::message(&diagnostic.to_string()),
            Level::Note => {}
            Level::Warning if listed(expected.as_ref(), diagnostic, dir) => {}
            Level::Warning => term::warning(&diagnostic.to_string()),
        }
    }
    let unmapped = diagnostics.iter().any(|d| d.message.contains("has no schema mapping"));
    if unmapped && script.is_some_and(|text| text.contains("type_provider")) {
        term::note("type providers run only in build.rs; export writes their types as {} (see --help)");
    }
}

/// The expected-warnings list: `--expect-warnings FILE`, else the file build.rs passes to
/// `Builder::expect_warnings` (both relative to the crate); `None` without one. A list
/// that cannot be read is said once.
fn expected_warnings(dir: &Path, args: &ExportArgs, script: Option<&str>) -> Option<Expected> {
    let list = match &args.expect_warnings {
        Some(path) => path.clone(),
        None => PathBuf::from(declared_list(script?)?),
    };
    match std::fs::read_to_string(dir.join(&list)) {
        Ok(text) => Some(Expected::parse(&text)),
        Err(error) => {
            term::warning(&format!("{}: cannot read the expected warnings ({error})", list.display()));
            None
        }
    }
}

/// Whether the list expects `diagnostic`, matched as the build matches it: by the file
/// relative to the crate (export names files under the crate path as typed) and message.
fn listed(expected: Option<&Expected>, diagnostic: &Diagnostic, dir: &Path) -> bool {
    let Some(expected) = expected else { return false };
    let relative = diagnostic.file.strip_prefix(dir).map(Path::to_owned).unwrap_or(diagnostic.file.clone());
    let as_built = Diagnostic { file: relative, ..diagnostic.clone() };
    expected.unexpected(std::slice::from_ref(&as_built)).next().is_none()
}

/// The text of the crate's build script: `build.rs`, or the script `build = ".."` in
/// Cargo.toml names; `None` when there is none.
fn build_script(dir: &Path) -> Option<String> {
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default();
    let script = manifest
        .lines()
        .filter_map(|line| line.trim().strip_prefix("build"))
        .filter_map(|rest| rest.trim_start().strip_prefix('='))
        .find_map(|value| value.trim().strip_prefix('"')?.split('"').next())
        .unwrap_or("build.rs");
    std::fs::read_to_string(dir.join(script)).ok()
}

fn refuse_unsafe_names(modules: &[&toolcall_build::GeneratedModule]) -> Result<(), String> {
    let bad: Vec<String> = modules
        .iter()
        .flat_map(|m| m.tools.iter().map(move |t| (m, t)))
        .filter(|(_, t)| !is_provider_safe(&t.ir.name))
        .map(|(m, t)| {
            format!(
                "{}:{}:{}: tool name `{}` does not match ^[a-zA-Z0-9_-]{{1,64}}$",
                m.file.display(),
                t.line,
                t.column,
                t.ir.name
            )
        })
        .collect();
    if bad.is_empty() { Ok(()) } else { Err(format!("refusing to export:\n{}", bad.join("\n"))) }
}

/// `--check FILE`: exit 1 with a unified diff when FILE differs from `text`.
fn check_file(path: &Path, text: &str) -> Result<ExitCode, String> {
    let current =
        std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if current == text {
        return Ok(ExitCode::SUCCESS);
    }
    let diff = similar::TextDiff::from_lines(current.as_str(), text);
    let name = path.display().to_string();
    let header = format!("{name} (export now)");
    term::print(&diff.unified_diff().context_radius(3).header(&name, &header).to_string())?;
    term::message(&format!("{name} is out of date: run `cargo toolcall export` to regenerate it"));
    Ok(ExitCode::FAILURE)
}
