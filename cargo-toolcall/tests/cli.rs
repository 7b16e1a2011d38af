//! `cargo toolcall export` end to end: the build's settings and warnings, `--check`, the
//! messages for a missing path, a crate whose build generates no toolset, a syntax error
//! and an unsafe tool name (on scratch crates outside the workspace, built for real), and
//! the command line as cargo's: `--help`, `--version`, usage errors (exit 2), `--color`,
//! a closed pipe. `same_bytes.rs` checks the output against the built crates' `emit()`.
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

/// What export printed to stderr beside cargo's progress lines (`   Compiling ..`), which
/// it passes on while cargo has work to do.
fn stderr_beside_progress(output: &Output) -> String {
    stderr(output)
        .lines()
        .filter(|line| !line.starts_with("   Compiling ") && !line.starts_with("    Blocking "))
        .map(|line| format!("{line}\n"))
        .collect()
}

/// A scratch crate: a real crate outside the workspace, depending on this checkout's
/// toolcall crates, with `files` (tool files under `src/tools/`, and `build.rs`,
/// `Cargo.toml`, `src/lib.rs` or `src/tools/mod.rs` when given; otherwise a build.rs that
/// compiles, and module files declaring every tool file). `None` for `build.rs` leaves it
/// out.
fn scratch_crate(name: &str, files: &[(&str, Option<&str>)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cargo-toolcall-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let workspace = workspace().canonicalize().unwrap();
    let manifest = format!(
        "[package]\nname = \"scratch-{name}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [dependencies]\ntoolcall-runtime = {{ path = \"{ws}/toolcall-runtime\" }}\n\n\
         [build-dependencies]\ntoolcall-build = {{ path = \"{ws}/toolcall-build\" }}\n\n[workspace]\n",
        ws = workspace.display()
    );
    let tool_modules: Vec<String> = files
        .iter()
        .filter_map(|(path, _)| path.strip_prefix("src/tools/")?.strip_suffix(".rs"))
        .filter(|module| *module != "mod")
        .map(|module| format!("pub mod {module};\n"))
        .collect();
    let defaults = [
        ("Cargo.toml", manifest),
        ("build.rs", "fn main() { toolcall_build::Builder::new().compile(); }\n".to_owned()),
        ("src/lib.rs", "pub mod tools;\n".to_owned()),
        ("src/tools/mod.rs", tool_modules.concat()),
    ];
    let mut all: Vec<(&str, Option<String>)> = defaults
        .iter()
        .filter(|(path, _)| !files.iter().any(|(given, _)| given == path))
        .map(|(path, text)| (*path, Some(text.clone())))
        .collect();
    all.extend(files.iter().map(|(path, text)| (*path, text.map(str::to_owned))));
    for (path, text) in all {
        let Some(text) = text else { continue };
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    // The workspace's versions, so nothing is resolved anew (and no network is needed).
    std::fs::copy(workspace.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    dir
}

/// Export on a scratch crate, its build in one target directory that every scratch crate
/// shares (the toolcall crates compile once), offline.
fn export_scratch(dir: &Path, args: &[&str]) -> Output {
    let mut command = command();
    command.args(["toolcall", "export", "--path"]).arg(dir).args(args);
    command
        .env("CARGO_TARGET_DIR", workspace().join("target/scratch-crates"))
        .env("CARGO_NET_OFFLINE", "true");
    command.output().unwrap()
}

#[test]
fn the_same_command_twice_gives_identical_bytes() {
    let a = export(&["--format", "mcp", "--path", "example-app"]);
    let b = export(&["--format", "mcp", "--path", "example-app"]);
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
}

#[test]
fn a_module_keeps_the_builds_order_of_keys_and_properties() {
    let output = export(&["--path", "example-app", "--pretty", "weather"]);
    let text = stdout(&output);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(text.starts_with("[\n  {\n    \"type\": \"function\",\n    \"function\": {\n"), "{text}");
    let city = text.find("\"city\": {").unwrap();
    let days = text.find("\"days\": {").unwrap();
    assert!(city < days, "properties keep declaration order");
    assert!(!text.contains("\"name\": \"add\""), "only the module named");
}

#[test]
fn check_passes_on_a_fresh_file_and_fails_with_a_diff() {
    let dir = std::env::temp_dir().join(format!("cargo-toolcall-test-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("tools.json");
    let file_arg = file.to_str().unwrap();
    let written = export(&["--path", "example-app", "--pretty", "--out", file_arg]);
    assert!(written.status.success(), "{}", stderr(&written));
    let ok = export(&["--path", "example-app", "--pretty", "--check", file_arg]);
    assert!(ok.status.success(), "{}", stderr(&ok));
    let stale = std::fs::read_to_string(&file).unwrap().replacen("Get the forecast", "Get a forecast", 1);
    std::fs::write(&file, stale).unwrap();
    let failed = export(&["--path", "example-app", "--pretty", "--check", file_arg]);
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
fn a_crate_whose_build_generates_no_toolset_says_so() {
    let dir = scratch_crate(
        "nobuild",
        &[("src/tools/ok.rs", Some("/// Fine.\npub fn ok() {}\n")), ("build.rs", None)],
    );
    let output = export_scratch(&dir, &[]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("the crate has no build script"), "{}", stderr(&output));

    let other = "fn main() { println!(\"cargo:rerun-if-changed=build.rs\"); }\n";
    let dir = scratch_crate(
        "otherbuild",
        &[("src/tools/ok.rs", Some("/// Fine.\npub fn ok() {}\n")), ("build.rs", Some(other))],
    );
    let output = export_scratch(&dir, &[]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("generates no toolset: call toolcall_build::Builder"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn an_unknown_toolset_names_the_ones_the_build_generates() {
    let output = export(&["--path", "toolcall-fixtures", "--toolset", "nope.rs"]);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(err.contains("no toolset `nope.rs`; it generates: context_tools.rs, tools.rs"), "{err}");
}

#[test]
fn a_syntax_error_names_file_and_line() {
    let dir = scratch_crate(
        "syntax",
        &[("src/tools/broken.rs", Some("/// Fine.\npub fn ok() {}\n\npub fn broken( {\n"))],
    );
    let output = export_scratch(&dir, &[]);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(err.contains("src/tools/broken.rs:4:"), "{err}");
    assert!(err.contains("cannot parse"), "{err}");
    assert!(stdout(&output).is_empty());
}

#[test]
fn an_unsafe_tool_name_is_refused_with_its_location() {
    let dir = scratch_crate("names", &[("src/tools/odd.rs", Some("/// Odd.\npub fn naïve() {}\n"))]);
    let output = export_scratch(&dir, &[]);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(err.contains("refusing to export"), "{err}");
    assert!(err.contains("src/tools/odd.rs:2:8: tool name `naïve`"), "{err}");
    assert!(stdout(&output).is_empty());
}

/// A date parameter in a crate whose toolcall-runtime lacks the `chrono` feature: the build
/// says so at the parameter (toolcall-runtime publishes its features to the crate's build
/// script), instead of a trait error inside `tools.rs` (#42 item 4).
#[test]
fn a_missing_runtime_feature_is_named_at_the_parameter() {
    let tool = "/// When.\n///\n/// # Arguments\n///\n/// * `at` - the time\npub fn when(at: chrono::NaiveDate) -> bool { true }\n";
    let dir = scratch_crate("nochrono", &[("src/tools/dates.rs", Some(tool))]);
    let output = export_scratch(&dir, &[]);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(err.contains("src/tools/dates.rs:6:"), "{err}");
    assert!(err.contains("toolcall-runtime's `chrono` feature"), "{err}");
    assert!(!err.contains("FromArg"), "no trait error: {err}");
}

#[test]
fn unknown_module_names_are_an_error() {
    let output = export(&["--path", "example-app", "nowhere"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("no tool module `nowhere`"));
}

/// The build's own settings: its context (the tools that take it are exported, without
/// `--context`), its type provider (`Money`'s pattern), its expected warnings (none
/// printed); the retired flags are ignored with a warning.
#[test]
fn export_uses_the_builds_settings() {
    let output = export(&["--format", "mcp", "--path", "example-app", "--pretty"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains(r#""name": "list_notes""#), "{text}");
    assert!(!text.contains(r#""app""#), "the context is never a parameter");
    assert!(text.contains(r#""pattern": "^-?\\d+\\.\\d{2}$""#), "the type provider ran: {text}");
    assert_eq!(stderr_beside_progress(&output), "", "the expected warnings are not printed");
    let retired = export(&["--format", "mcp", "--path", "example-app", "--context", "crate::App"]);
    assert!(retired.status.success());
    assert_eq!(retired.stdout, output_compact_mcp());
    assert!(stderr(&retired).contains("--context is ignored"), "{}", stderr(&retired));
}

fn output_compact_mcp() -> Vec<u8> {
    export(&["--format", "mcp", "--path", "example-app"]).stdout
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
            "--pretty",
            "--toolset <FILE>",
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
    assert!(long.contains("Export runs the crate's own build script"), "{long}");
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
    let output = export_into_closed_pipe(&["--path", "example-app", "--pretty"]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    assert!(!err.contains("panicked") && !err.contains("Broken pipe") && !err.contains("error:"), "{err}");
}

#[test]
fn a_closed_pipe_ends_check_quietly_with_its_status() {
    let dir = std::env::temp_dir().join(format!("cargo-toolcall-test-pipe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("tools.json");
    std::fs::write(&file, "[]\n").unwrap();
    let output = export_into_closed_pipe(&["--path", "example-app", "--check", file.to_str().unwrap()]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "stale is still stale: {err}");
    assert!(!err.contains("panicked") && !err.contains("Broken pipe"), "{err}");
    assert!(err.contains("out of date"), "{err}");
}

/// #62 point 7: export right after the user's `cargo build` compiles nothing (cargo's
/// progress lines, which export passes on, name none), where `cargo check` re-checked
/// every dependency; on a crate with work to do the lines say what is compiled.
#[test]
fn export_right_after_cargo_build_compiles_nothing() {
    let dir =
        scratch_crate("fresh", &[("src/tools/ok.rs", Some("/// Says that all is well.\npub fn ok() {}\n"))]);
    let first = export_scratch(&dir, &[]);
    assert!(first.status.success(), "{}", stderr(&first));
    assert!(stderr(&first).contains("Compiling scratch-fresh v0.0.0"), "{}", stderr(&first));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let built = Command::new(cargo)
        .args(["build", "--quiet", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", workspace().join("target/scratch-crates"))
        .env("CARGO_NET_OFFLINE", "true")
        .output()
        .unwrap();
    assert!(built.status.success(), "{}", stderr(&built));
    let again = export_scratch(&dir, &[]);
    assert!(again.status.success(), "{}", stderr(&again));
    let err = stderr(&again);
    assert!(!err.contains("Compiling") && !err.contains("Checking"), "nothing compiles again: {err}");
    assert_eq!(stdout(&again), stdout(&first));
}

const RECURSIVE_TOOL: &str = "/// A tree.\npub struct Tree {\n    /// Below.\n    pub children: Vec<Tree>,\n}\n\n\
     /// Count.\n///\n/// # Arguments\n///\n/// * `tree` - the tree\npub fn count(tree: Tree, pair: (u8, u8)) {}\n";

/// #31 item 8, #49 item 3: export prints the build's warnings, once, after the
/// expected-warnings list build.rs names, and notes only with `--notes`.
#[test]
fn export_prints_the_builds_warnings_and_keeps_notes_quiet() {
    let build = "const LIST: &str = \"toolcall-warnings.txt\";\n\
                 fn main() { toolcall_build::Builder::new().expect_warnings(LIST).compile(); }\n";
    let listed = "src/tools/tree.rs:12:30: `count` parameter `pair`: tuple: strict mode drops prefixItems, so item order is only in the description\n";
    let dir = scratch_crate(
        "expected",
        &[
            ("src/tools/tree.rs", Some(RECURSIVE_TOOL)),
            ("build.rs", Some(build)),
            ("toolcall-warnings.txt", Some(listed)),
        ],
    );
    let quiet = export_scratch(&dir, &[]);
    assert!(quiet.status.success(), "{}", stderr(&quiet));
    let err = stderr(&quiet);
    assert!(!err.contains("tuple: strict mode"), "a listed warning is not printed: {err}");
    assert!(!err.contains("`$defs` and `$ref`"), "a note is not printed: {err}");
    // What Anthropic strict loses is a warning, not a note.
    assert!(err.contains("`count`: its Anthropic strict schema has a node without a type"), "{err}");
    // The parameter without a bullet is not listed: it is printed, once.
    assert_eq!(err.matches("parameter `pair` of `count` has no description").count(), 1, "{err}");
    let noted = stderr(&export_scratch(&dir, &["--notes"]));
    assert!(
        noted.contains("tree.rs:12:14: note: `count` parameter `tree`: recursive type `Tree`"),
        "{noted}"
    );
    // Without the list, every warning prints.
    std::fs::write(dir.join("build.rs"), "fn main() { toolcall_build::Builder::new().compile(); }\n")
        .unwrap();
    let unlisted = stderr(&export_scratch(&dir, &[]));
    assert!(unlisted.contains("tuple: strict mode"), "{unlisted}");
}

/// `search` prints what the built crate's own compiled index finds: example-app's
/// `toolset::ALL.search`, in the same order.
#[test]
fn search_prints_what_the_built_crates_index_finds() {
    let query = "what will the weather be like in Oslo this week";
    let output = cargo_toolcall(["toolcall", "search", "--path", "example-app", "--limit", "3", query]);
    assert!(output.status.success(), "{}", stderr(&output));
    let printed: Vec<String> = stdout(&output)
        .lines()
        .filter(|line| !line.starts_with("    "))
        .filter_map(|line| line.split_whitespace().nth(1).map(str::to_owned))
        .collect();
    let built: Vec<&str> =
        example_app::toolset::ALL.search(query, 3).iter().map(|hit| hit.tool.name).collect();
    assert_eq!(printed, built);
    assert_eq!(built.first(), Some(&"get_weather"));
    assert!(!stderr(&output).contains("compiles no search index"), "{}", stderr(&output));

    let nothing = cargo_toolcall(["toolcall", "search", "--path", "example-app", "zebra", "husbandry"]);
    assert_eq!(nothing.status.code(), Some(1));
    assert!(stdout(&nothing).starts_with("no tool of the "), "{}", stdout(&nothing));
}
