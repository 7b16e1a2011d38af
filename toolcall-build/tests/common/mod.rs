//! Helpers shared by the generator's integration tests: reading fixture files, rendering
//! schemas and diagnostics as reviewable text.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use toolcall_build::{Builder, Generated, SourceFile};
use toolcall_runtime::Format;
use toolcall_runtime::render::render_tools;

/// The fixture crate, compiled for real by its own build script.
pub const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../toolcall-fixtures");
/// Where this crate's snapshots live.
pub const SNAPSHOTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/generator");
/// The bad fixtures, one folder per rule.
pub const BAD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/bad");

/// Runs `f` with the workspace's snapshot settings.
pub fn snapshot_settings<R>(f: impl FnOnce() -> R) -> R {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(SNAPSHOTS);
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(f)
}

/// Every tool file of the fixture crate, sorted by path.
pub fn fixture_sources() -> Vec<SourceFile> {
    Builder::new().crate_dir(FIXTURES).read_sources().expect("fixture sources are readable")
}

/// The whole fixture crate, generated.
pub fn generate_fixtures() -> Generated {
    Builder::new().crate_dir(FIXTURES).generate().expect("fixtures generate")
}

/// Generates from one file alone.
pub fn generate_one(source: &SourceFile) -> Generated {
    Builder::new().generate_from(vec![source.clone()]).expect("one file generates")
}

/// A source file `relative` under `src/tools/` with `text`.
pub fn source(relative: &str, text: &str) -> SourceFile {
    let relative = PathBuf::from(relative);
    SourceFile { path: Path::new("src/tools").join(&relative), relative, text: text.to_owned() }
}

/// The `.rs` files of one bad-fixture folder (and its subfolders), as tool files.
pub fn bad_sources(rule: &str) -> Vec<SourceFile> {
    let dir = Path::new(BAD).join(rule);
    assert!(dir.is_dir(), "bad fixture folder {} exists", dir.display());
    walkdir::WalkDir::new(&dir)
        .sort_by_file_name()
        .into_iter()
        .map(|entry| entry.expect("readable entry"))
        .filter(|entry| entry.file_type().is_file() && entry.path().extension().is_some_and(|e| e == "rs"))
        .map(|entry| {
            let relative = entry.path().strip_prefix(&dir).expect("inside the folder");
            let text = std::fs::read_to_string(entry.path()).expect("readable fixture");
            source(&relative.to_string_lossy().replace('\\', "/"), &text)
        })
        .collect()
}

/// Every diagnostic's `Display` line.
pub fn diagnostic_lines(generated: &Generated) -> String {
    let lines: Vec<String> = generated.diagnostics.iter().map(ToString::to_string).collect();
    if lines.is_empty() { "(no diagnostics)\n".to_owned() } else { lines.join("\n") + "\n" }
}

/// A snapshot name for a module path (`billing::invoices` -> `billing__invoices`).
pub fn module_name(path: &[String]) -> String {
    if path.is_empty() { "root".to_owned() } else { path.join("__") }
}

/// Every schema the generator emits for each module: 3 formats x strict/not, pretty
/// printed with key order kept, as one reviewable text per module.
pub fn module_schemas(generated: &Generated) -> Vec<(String, String)> {
    generated
        .modules
        .iter()
        .map(|module| {
            let mut text = String::new();
            for format in Format::ALL {
                for strict in [false, true] {
                    let rendered = render_tools(module.tools.iter().map(|t| &t.ir), format, strict);
                    let mode = if strict { "strict" } else { "lax" };
                    text.push_str(&format!("=== {} {mode}\n{}\n", format.as_str(), pretty(&rendered)));
                }
            }
            (module_name(&module.path), text)
        })
        .collect()
}

/// Re-indents JSON text without reordering keys (serde_json's `Value` would sort them).
pub fn pretty(json: &str) -> String {
    toolcall_runtime::json::pretty(json)
}
