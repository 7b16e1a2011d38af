//! `cargo toolcall export` end to end: golden output for example-app, `--check`, the
//! messages for a missing path, a crate without src/tools, a syntax error and an unsafe
//! tool name, and the command line as cargo's: `--help`, `--version`, usage errors (exit
//! 2), `--color`, a closed pipe, and the type-provider note only for crates with providers.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn export(args: &[&str]) -> Output {
    let export = ["toolcall", "export"].iter().chain(args);
    cargo_toolcall(export)
}

/// Runs the binary as cargo does (the first word `toolcall`) or directly, in the
/// workspace, with `CARGO_TERM_COLOR` unset.
fn cargo_toolcall<S: AsRef<std::ffi::OsStr>>(args: impl IntoIterator<Item = S>) -> Output {
    command().args(args).output().unwrap()
}

fn command() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cargo-toolcall"));
    command.current_dir(workspace()).env_remove("CARGO_TERM_COLOR");
    command
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

#[test]
fn help_lists_every_option_of_export() {
    for flag in ["--help", "-h"] {
        let output = export(&[flag]);
        assert_eq!(output.status.code(), Some(0));
        let help = stdout(&output);
        assert!(help.contains("Usage: cargo toolcall export [OPTIONS] [MODULE]..."), "{help}");
        let options = ["--format <FORMAT>", "--strict", "--out <FILE>", "--check <FILE>", "--path <DIR>"];
        let more = [
            "--manifest-path <PATH>",
            "--context <TYPE>",
            "--expect-warnings <FILE>",
            "--notes",
            "--color <WHEN>",
            "--help",
            "--version",
        ];
        for option in options.iter().chain(&more) {
            assert!(help.contains(option), "{flag} lacks {option}:\n{help}");
        }
        assert!(help.contains("openai, anthropic, mcp, responses, gemini"), "{help}");
    }
    let long = stdout(&export(&["--help"]));
    assert!(long.contains("Type providers are Rust code registered in build.rs"), "{long}");
    assert!(long.contains("Exit status: 0"), "{long}");
}

#[test]
fn help_of_cargo_toolcall_lists_export() {
    for args in [&["toolcall", "--help"][..], &["toolcall"], &["toolcall", "help"], &[]] {
        let output = cargo_toolcall(args);
        assert_eq!(output.status.code(), Some(0), "{args:?}");
        let help = stdout(&output);
        assert!(help.contains("Usage: cargo toolcall [OPTIONS] [COMMAND]"), "{args:?}: {help}");
        assert!(help.contains("export"), "{help}");
        assert!(help.contains("--color <WHEN>") && help.contains("--version"), "{help}");
    }
}

#[test]
fn version_is_the_package_version() {
    let expected = format!("cargo-toolcall {}\n", env!("CARGO_PKG_VERSION"));
    for args in [&["toolcall", "--version"][..], &["toolcall", "-V"], &["toolcall", "export", "--version"]] {
        let output = cargo_toolcall(args);
        assert_eq!(output.status.code(), Some(0), "{args:?}");
        assert_eq!(stdout(&output), expected, "{args:?}");
    }
}

#[test]
fn usage_errors_exit_2_in_cargos_style() {
    let cases: [(&[&str], &str); 5] = [
        (&["export", "--frobnicate"], "error: unexpected argument '--frobnicate' found"),
        (&["export", "--format", "xml"], "error: invalid value 'xml' for '--format <FORMAT>'"),
        (&["export", "--out"], "error: a value is required for '--out <FILE>'"),
        (&["export", "--color", "sometimes"], "error: invalid value 'sometimes' for '--color <WHEN>'"),
        (&["import"], "error: unrecognized subcommand 'import'"),
    ];
    for (args, message) in cases {
        let output = cargo_toolcall(["toolcall"].iter().chain(args));
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(output.stdout.is_empty(), "{args:?}");
        let err = stderr(&output);
        assert!(err.starts_with(message), "{args:?}: {err}");
        assert!(err.contains("For more information, try '--help'."), "{err}");
        assert!(!err.contains('\x1b'), "no color when stderr is not a terminal: {err:?}");
    }
    let unknown = stderr(&export(&["--frobnicate"]));
    assert!(unknown.contains("\n\nUsage: cargo toolcall export [OPTIONS] [MODULE]...\n"), "{unknown}");
}

#[test]
fn the_binary_runs_directly_too() {
    let direct = cargo_toolcall(["export", "--format", "mcp", "--path", "example-app"]);
    let via_cargo = export(&["--format", "mcp", "--path", "example-app"]);
    assert!(direct.status.success(), "{}", stderr(&direct));
    assert_eq!(direct.stdout, via_cargo.stdout);
}

#[test]
fn color_follows_the_flag_then_cargo_term_color() {
    let colored = |output: &Output| stderr(output).contains("\x1b[");
    assert!(colored(&export(&["--color", "always", "--frobnicate"])));
    assert!(colored(&export(&["--color=always", "--path", "no/such/crate"])), "our errors too");
    assert!(!colored(&export(&["--color", "never", "--frobnicate"])));
    let env = |value: &str, args: &[&str]| {
        let mut command = command();
        command.env("CARGO_TERM_COLOR", value).args(["toolcall", "export"]).args(args);
        command.output().unwrap()
    };
    assert!(colored(&env("always", &["--frobnicate"])));
    assert!(!colored(&env("always", &["--color", "never", "--frobnicate"])), "the flag wins");
    assert!(!colored(&env("never", &["--frobnicate"])));
}

/// Runs export with stdout a pipe whose reading end is already closed, as `| head` leaves
/// it once it has read enough.
fn export_into_closed_pipe(args: &[&str]) -> Output {
    let mut child = command()
        .args(["toolcall", "export"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    child.wait_with_output().unwrap()
}

#[test]
fn a_closed_pipe_ends_export_quietly() {
    let output = export_into_closed_pipe(&["--path", "example-app", "--context", "crate::App"]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    assert!(!err.contains("panicked") && !err.contains("Broken pipe") && !err.contains("error:"), "{err}");
}

#[test]
fn a_closed_pipe_ends_check_quietly_with_its_status() {
    let dir = scratch_crate("pipe", &[]);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("tools.json");
    std::fs::write(&file, "[]\n").unwrap();
    let output = export_into_closed_pipe(&["--path", "example-app", "--check", file.to_str().unwrap()]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "stale is still stale: {err}");
    assert!(!err.contains("panicked") && !err.contains("Broken pipe"), "{err}");
    assert!(err.contains("out of date"), "{err}");
}

const FOREIGN_TYPE_TOOL: &str =
    "/// Takes a type only a provider could describe.\npub fn ship(parcel: other::Parcel) {}\n";

#[test]
fn the_provider_note_only_for_a_crate_with_providers() {
    let without = scratch_crate("noproviders", &[("src/tools/ship.rs", FOREIGN_TYPE_TOOL)]);
    let output = export(&["--path", without.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let err = stderr(&output);
    assert!(err.contains("type `other::Parcel` has no schema mapping"), "{err}");
    assert!(!err.contains("note:"), "no providers, no note: {err}");

    let build = "fn main() { toolcall_build::Builder::new().type_provider(Parcels).compile(); }\n";
    let with = scratch_crate("providers", &[("src/tools/ship.rs", FOREIGN_TYPE_TOOL), ("build.rs", build)]);
    let err = stderr(&export(&["--path", with.to_str().unwrap()]));
    assert!(err.contains("note: type providers run only in build.rs"), "{err}");

    let manifest = "[package]\nname = \"p\"\nbuild = \"gen/build.rs\"\n";
    let named = scratch_crate(
        "namedbuild",
        &[("src/tools/ship.rs", FOREIGN_TYPE_TOOL), ("Cargo.toml", manifest), ("gen/build.rs", build)],
    );
    let err = stderr(&export(&["--manifest-path", named.join("Cargo.toml").to_str().unwrap()]));
    assert!(err.contains("note: type providers run only in build.rs"), "{err}");

    let mapped = scratch_crate(
        "mapped",
        &[("src/tools/ok.rs", "/// Fine.\npub fn ok(n: u8) {}\n"), ("build.rs", build)],
    );
    let err = stderr(&export(&["--path", mapped.to_str().unwrap()]));
    assert!(!err.contains("note:"), "every type mapped, no note: {err}");
}

const RECURSIVE_TOOL: &str = "/// A tree.\npub struct Tree {\n    /// Below.\n    pub children: Vec<Tree>,\n}\n\n\
     /// Count.\n///\n/// # Arguments\n///\n/// * `tree` - the tree\npub fn count(tree: Tree, pair: (u8, u8)) {}\n";

/// #31 item 8: export honours the expected-warnings list build.rs names (or
/// `--expect-warnings`), as the build does, and prints notes only with `--notes`.
#[test]
fn export_honours_the_expected_warnings_and_keeps_notes_quiet() {
    let build = "const LIST: &str = \"toolcall-warnings.txt\";\n\
                 fn main() { toolcall_build::Builder::new().expect_warnings(LIST).compile(); }\n";
    let listed = "src/tools/tree.rs:12:30: `count` parameter `pair`: tuple: strict mode drops prefixItems, so item order is only in the description\n";
    let dir = scratch_crate(
        "expected",
        &[("src/tools/tree.rs", RECURSIVE_TOOL), ("build.rs", build), ("toolcall-warnings.txt", listed)],
    );
    let path = dir.to_str().unwrap();
    let quiet = export(&["--path", path]);
    assert!(quiet.status.success(), "{}", stderr(&quiet));
    let err = stderr(&quiet);
    assert!(!err.contains("tuple: strict mode"), "a listed warning is not printed: {err}");
    assert!(!err.contains("`$defs` and `$ref`"), "a note is not printed: {err}");
    // What Anthropic strict loses is a warning, not a note.
    assert!(err.contains("`count`: its Anthropic strict schema has a node without a type"), "{err}");
    // The parameter without a bullet is not listed: it is printed.
    assert!(err.contains("parameter `pair` of `count` has no description"), "{err}");
    let noted = stderr(&export(&["--path", path, "--notes"]));
    assert!(
        noted.contains("tree.rs:12:14: note: `count` parameter `tree`: recursive type `Tree`"),
        "{noted}"
    );
    // Another list on the command line wins; without one, every warning prints.
    std::fs::write(dir.join("none.txt"), "").unwrap();
    let all = stderr(&export(&["--path", path, "--expect-warnings", "none.txt"]));
    assert!(all.contains("tuple: strict mode"), "{all}");
    std::fs::remove_file(dir.join("build.rs")).unwrap();
    let unlisted = stderr(&export(&["--path", path]));
    assert!(unlisted.contains("tuple: strict mode"), "{unlisted}");
    let missing = stderr(&export(&["--path", path, "--expect-warnings", "nowhere.txt"]));
    assert!(missing.contains("nowhere.txt: cannot read the expected warnings"), "{missing}");
}
