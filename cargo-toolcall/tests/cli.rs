//! `cargo toolcall export` end to end: golden output for example-app, `--check`, and the
//! messages for a missing path, a crate without src/tools, a syntax error and an unsafe
//! tool name.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn export(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-toolcall"))
        .arg("toolcall")
        .arg("export")
        .args(args)
        .current_dir(workspace())
        .output()
        .unwrap()
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

/// A scratch crate with the given tool files.
fn scratch_crate(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cargo-toolcall-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

#[test]
fn golden_output_for_example_app_in_every_format() {
    let settings = {
        let mut s = insta::Settings::clone_current();
        s.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/export"));
        s.set_prepend_module_to_snapshot(false);
        s
    };
    for format in ["openai", "responses", "anthropic", "mcp", "gemini"] {
        for strict in [false, true] {
            let mut args = vec!["--format", format, "--path", "example-app", "--context", "crate::App"];
            if strict {
                args.push("--strict");
            }
            let output = export(&args);
            assert!(output.status.success(), "{}", stderr(&output));
            let text = stdout(&output);
            assert!(text.ends_with("]\n"));
            assert!(text.starts_with("[\n  {\n"), "two-space indent");
            let name = format!("example_app_{format}{}", if strict { "_strict" } else { "" });
            settings.bind(|| insta::assert_snapshot!(name, text));
        }
    }
}

#[test]
fn the_same_command_twice_gives_identical_bytes() {
    let a = export(&["--format", "mcp", "--path", "example-app"]);
    let b = export(&["--format", "mcp", "--path", "example-app"]);
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
}

#[test]
fn keys_sorted_outside_properties_and_declaration_order_inside() {
    let output = export(&["--path", "example-app", "weather"]);
    let text = stdout(&output);
    assert!(output.status.success(), "{}", stderr(&output));
    let city = text.find("\"city\": {").unwrap();
    let days = text.find("\"days\": {").unwrap();
    assert!(city < days, "properties keep declaration order");
    let function = text.find("\"function\"").unwrap();
    let kind = text.find("\"type\": \"function\"").unwrap();
    assert!(function < kind, "other keys are sorted");
}

#[test]
fn check_passes_on_a_fresh_file_and_fails_with_a_diff() {
    let dir = scratch_crate("check", &[]);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("tools.json");
    let file_arg = file.to_str().unwrap();
    let written = export(&["--path", "example-app", "--out", file_arg]);
    assert!(written.status.success(), "{}", stderr(&written));
    let ok = export(&["--path", "example-app", "--check", file_arg]);
    assert!(ok.status.success(), "{}", stderr(&ok));
    let stale = std::fs::read_to_string(&file).unwrap().replacen("Get the forecast", "Get a forecast", 1);
    std::fs::write(&file, stale).unwrap();
    let failed = export(&["--path", "example-app", "--check", file_arg]);
    assert_eq!(failed.status.code(), Some(1));
    let diff = stdout(&failed);
    assert!(diff.lines().any(|l| l.starts_with('-') && l.contains("\"Get a forecast")), "{diff}");
    assert!(diff.lines().any(|l| l.starts_with('+') && l.contains("\"Get the forecast")), "{diff}");
    assert!(stderr(&failed).contains("out of date"));
}

#[test]
fn a_missing_path_says_so() {
    let output = export(&["--path", "no/such/crate"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("no/such/crate: no such directory"), "{}", stderr(&output));
}

#[test]
fn a_crate_without_src_tools_says_so() {
    let dir = scratch_crate("notools", &[("src/main.rs", "fn main() {}")]);
    let output = export(&["--path", dir.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("no src/tools directory"), "{}", stderr(&output));
}

#[test]
fn a_syntax_error_names_file_and_line() {
    let dir = scratch_crate(
        "syntax",
        &[("src/tools/broken.rs", "/// Fine.\npub fn ok() {}\n\npub fn broken( {\n")],
    );
    let output = export(&["--path", dir.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(err.contains("src/tools/broken.rs:4:"), "{err}");
    assert!(err.contains("cannot parse"), "{err}");
    assert!(stdout(&output).is_empty());
}

#[test]
fn an_unsafe_tool_name_is_refused_with_its_location() {
    let dir = scratch_crate("names", &[("src/tools/odd.rs", "/// Odd.\npub fn naïve() {}\n")]);
    let output = export(&["--path", dir.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(err.contains("refusing to export"), "{err}");
    assert!(err.contains("src/tools/odd.rs:2:8: tool name `naïve`"), "{err}");
    assert!(stdout(&output).is_empty());
}

#[test]
fn unknown_module_names_are_an_error() {
    let output = export(&["--path", "example-app", "nowhere"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("no tool module `nowhere`"));
}

#[test]
fn the_context_type_is_given_as_build_rs_declares_it() {
    let with = export(&["--format", "mcp", "--path", "example-app", "--context", "crate::App"]);
    assert!(with.status.success(), "{}", stderr(&with));
    assert!(stdout(&with).contains(r#""name": "list_notes""#), "{}", stdout(&with));
    assert!(!stdout(&with).contains(r#""app""#), "the context is never a parameter");
    // Without it, a `&App` parameter is a borrowed type like any other: skipped, and the
    // warning says how to declare the context.
    let without = export(&["--format", "mcp", "--path", "example-app"]);
    assert!(without.status.success(), "{}", stderr(&without));
    assert!(!stdout(&without).contains("list_notes"));
    assert!(stderr(&without).contains("`list_notes` is not a tool"), "{}", stderr(&without));
    assert!(stderr(&without).contains(r#".context("crate::App")"#), "{}", stderr(&without));
    let bad = export(&["--path", "example-app", "--context", "not a path"]);
    assert!(!bad.status.success());
    assert!(stderr(&bad).contains("context type `not a path`"), "{}", stderr(&bad));
}
