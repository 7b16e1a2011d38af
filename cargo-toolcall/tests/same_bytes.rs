//! `cargo toolcall export` gives what the built crate's `emit()` gives, byte for byte,
//! for every toolset of every crate of the workspace that has one (example-app, the
//! fixtures with their service layout of crate-wide types and their context toolset, the
//! benchmark crate), in every format, strict and not; and prints no warning the build does
//! not print (#49).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use toolcall_runtime::Format;

/// A built toolset: its crate, the file build.rs writes it to, and its `emit`.
struct Built {
    dir: &'static str,
    toolset: &'static str,
    emit: fn(Format, bool) -> &'static str,
}

fn built() -> Vec<Built> {
    vec![
        Built { dir: "example-app", toolset: "tools.rs", emit: |f, s| example_app::toolset::ALL.emit(f, s) },
        Built {
            dir: "toolcall-fixtures",
            toolset: "tools.rs",
            emit: |f, s| toolcall_fixtures::toolset::ALL.emit(f, s),
        },
        Built {
            dir: "toolcall-fixtures",
            toolset: "context_tools.rs",
            emit: |f, s| toolcall_fixtures::context_toolset::ALL.emit(f, s),
        },
        Built {
            dir: "toolcall-bench",
            toolset: "tools.rs",
            emit: |f, s| toolcall_bench::toolset::ALL.emit(f, s),
        },
    ]
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `cargo toolcall export ARGS` on the crate at `dir`: (stdout, stderr without cargo's
/// progress lines, which export passes on while cargo has work to do).
fn export(dir: &str, args: &[&str]) -> (String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_cargo-toolcall"))
        .args(["toolcall", "export", "--path", dir])
        .args(args)
        .current_dir(workspace())
        .env_remove("CARGO_TERM_COLOR")
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(output.status.success(), "{dir} {args:?}: {stderr}");
    let progress = |line: &str| line.starts_with("   Compiling ") || line.starts_with("    Blocking ");
    let said: String =
        stderr.lines().filter(|line| !progress(line)).map(|line| format!("{line}\n")).collect();
    (String::from_utf8(output.stdout).unwrap(), said)
}

#[test]
fn export_gives_the_built_crates_bytes_in_every_format() {
    for built in built() {
        for format in Format::ALL {
            for strict in [false, true] {
                let mut args = vec!["--toolset", built.toolset, "--format", format.as_str()];
                if strict {
                    args.push("--strict");
                }
                let (text, warnings) = export(built.dir, &args);
                let what = format!("{} {} {format:?} strict={strict}", built.dir, built.toolset);
                let emitted = (built.emit)(format, strict);
                assert!(emitted.len() > 2, "{what}: the toolset has tools");
                assert!(text == format!("{emitted}\n"), "{what}: export differs from emit()");
                // The build prints no warning for any of these crates (their expected lists
                // hold them): neither does export, and no type the build resolved is unmapped.
                assert_eq!(warnings, "", "{what}");
            }
        }
    }
}

#[test]
fn pretty_only_indents() {
    let (text, _) = export("toolcall-fixtures", &["--format", "mcp", "--pretty"]);
    let emitted = toolcall_fixtures::toolset::ALL.emit(Format::Mcp, false);
    assert_eq!(text, format!("{}\n", toolcall_runtime::json::pretty(emitted)));
    let squeezed: String = {
        let mut in_string = false;
        let mut escaped = false;
        text.chars()
            .filter(|&c| {
                let keep = in_string || !c.is_whitespace();
                if in_string && !escaped && c == '"' {
                    in_string = false;
                } else if !in_string && c == '"' {
                    in_string = true;
                }
                escaped = in_string && !escaped && c == '\\';
                keep
            })
            .collect()
    };
    assert_eq!(squeezed, emitted, "whitespace aside, the same bytes");
}
