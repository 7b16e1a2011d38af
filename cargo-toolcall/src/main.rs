//! `cargo toolcall export`: writes a crate's tool definitions as its build generates
//! them.
//!
//! One pipeline: export runs the crate's own build script ([`build`]), which leaves the
//! record of what `Builder::compile` generated beside `tools.rs`
//! ([`toolcall_build::export`]), and renders it with the renderer the built toolset's
//! `emit()` uses. The output is that text byte for byte and a newline (or indented with
//! `--pretty`, every key where it was): stable enough to commit and `--check`.

mod args;
mod build;
mod search;
mod term;

use std::path::Path;
use std::process::ExitCode;

use toolcall_build::export::{self, Record, RecordModule};
use toolcall_build::{Level, is_provider_safe};
use toolcall_runtime::Format;
use toolcall_runtime::render::render_tools;

use args::{Cargo, Command, ExportArgs, Toolcall};

fn main() -> ExitCode {
    let args = args::normalize(std::env::args_os());
    term::init_color(&args);
    match args::parse(args) {
        Ok(Cargo::Toolcall(Toolcall { command: Some(Command::Export(export)), .. })) => run_export(&export),
        Ok(Cargo::Toolcall(Toolcall { command: Some(Command::Search(args)), .. })) => search::run(&args),
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

/// Runs the crate's build script, reads the record of the chosen toolset, reports its
/// diagnostics, refuses unsafe names, and renders the definitions as `emit()` does.
fn exported_text(args: &ExportArgs) -> Result<String, String> {
    for (flag, given) in
        [("--context", args.context.is_some()), ("--expect-warnings", args.expect_warnings.is_some())]
    {
        if given {
            term::warning(&format!(
                "{flag} is ignored: export runs the crate's build script and uses its settings"
            ));
        }
    }
    let dir = args.krate.dir()?;
    let out_dir = build::out_dir_of(&dir)?;
    let record = read_record(&out_dir, &args.krate.toolset)?;
    report(&record, args);
    let modules: Vec<&RecordModule> = record
        .modules
        .iter()
        .filter(|m| args.modules.is_empty() || args.modules.contains(&m.path.join("::")))
        .collect();
    unknown_modules(args, &record.modules)?;
    refuse_unsafe_names(&modules)?;
    let tools = modules.iter().flat_map(|m| m.tools.iter().map(|(_, _, ir)| ir));
    // As `Toolset::emit`: Gemini has no strict mode, both flags are one array.
    let strict = args.strict && args.format != Format::Gemini;
    let rendered = render_tools(tools, args.format, strict);
    let mut text = if args.pretty { toolcall_runtime::json::pretty(&rendered) } else { rendered };
    text.push('\n');
    Ok(text)
}

/// The record the build left for `toolset` in `out_dir`; `Err` names the toolsets it did
/// leave.
pub(crate) fn read_record(out_dir: &Path, toolset: &str) -> Result<Record, String> {
    let path = out_dir.join(export::record_file(toolset));
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            Record::from_text(&text).map_err(|e| format!("{}: {e}; rebuild the crate", path.display()))
        }
        Err(_) => {
            let suffix = export::record_file("");
            let mut found: Vec<String> = std::fs::read_dir(out_dir)
                .into_iter()
                .flatten()
                .filter_map(|entry| {
                    entry.ok()?.file_name().to_str()?.strip_suffix(&suffix).map(str::to_owned)
                })
                .collect();
            found.sort();
            Err(if found.is_empty() {
                "the crate's build script generates no toolset: call toolcall_build::Builder::new().compile() in build.rs"
                    .to_owned()
            } else {
                format!(
                    "the build generates no toolset `{toolset}`; it generates: {} (choose with --toolset)",
                    found.join(", ")
                )
            })
        }
    }
}

fn unknown_modules(args: &ExportArgs, modules: &[RecordModule]) -> Result<(), String> {
    let known: Vec<String> = modules.iter().map(|m| m.path.join("::")).collect();
    match args.modules.iter().find(|m| !known.contains(m)) {
        Some(missing) => Err(format!("no tool module `{missing}`; modules: {}", known.join(", "))),
        None => Ok(()),
    }
}

/// Prints the build's diagnostics on stderr as the build printed them: its warning lines
/// (the expected-warnings list already applied), and notes only with `--notes`.
fn report(record: &Record, args: &ExportArgs) {
    for line in &record.printed {
        term::warning(line);
    }
    if args.notes {
        for (level, text) in &record.diagnostics {
            if *level == Level::Note {
                term::message(text);
            }
        }
    }
}

fn refuse_unsafe_names(modules: &[&RecordModule]) -> Result<(), String> {
    let bad: Vec<String> = modules
        .iter()
        .flat_map(|m| m.tools.iter().map(move |t| (m, t)))
        .filter(|(_, (_, _, ir))| !is_provider_safe(&ir.name))
        .map(|(m, (line, column, ir))| {
            format!(
                "{}:{line}:{column}: tool name `{}` does not match ^[a-zA-Z0-9_-]{{1,64}}$",
                m.file.display(),
                ir.name
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
    term::message(&format!(
        "{name} is out of date: run the same command with `--out {name}` instead of `--check` to regenerate it"
    ));
    Ok(ExitCode::FAILURE)
}
