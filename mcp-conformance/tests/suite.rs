//! The official MCP conformance suite against this crate's server (#44 item 5, #64 item 5):
//! starts `mcp-conformance --http 127.0.0.1:0`, runs each line of the suite that
//! `scripts/install-clients` pins (`conformance server --url URL --suite all`, on Node 22),
//! and holds every scenario's outcome: all pass but the ones listed as known failures,
//! each with the reason. A scenario that starts passing must leave the list; one that
//! starts failing fails this test. In CI the suite must be installed; elsewhere a missing
//! install is reported and the test ends.
//!
//! Two lines run: 0.1.16 (the revisions up to 2025-11-25, what clients of that era are
//! tested with) and 0.2.0-alpha.12 (also 2026-07-28's requirement set and the tasks and
//! skills extensions). The newer line re-runs most of the older one's scenarios, but not
//! at the same revisions or with the same checks, so both are kept while the older line's
//! clients exist.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// One line of the suite: where `scripts/install-clients` puts it, how many scenarios
/// `--suite all` runs, and the scenarios expected to fail with why.
struct Line {
    dir: &'static str,
    scenarios: usize,
    known_failing: &'static [(&'static str, &'static str)],
}

/// 0.1.16: every scenario passes. (`json-schema-2020-12`, a tool listed with a
/// hand-written `$schema` and `$defs` key `address`, passes through the run-time tool of
/// `src/schema_tool.rs`, served as written.)
const OLDER: Line = Line { dir: "conformance", scenarios: 32, known_failing: &[] };

/// 0.2.0-alpha.12: every scenario passes, the tasks and skills extensions' included.
const NEWER: Line = Line { dir: "conformance-0.2", scenarios: 65, known_failing: &[] };

/// Node 22 and the command-line entry of the suite installed in `dir`, where
/// `scripts/install-clients` put them.
fn suite(dir: &str) -> Option<(PathBuf, PathBuf)> {
    let clients = std::env::var_os("TOOLCALL_CLIENTS_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache/toolcall-ci")))?;
    let node = clients.join("node22/node_modules/node/bin/node");
    let cli = clients.join(dir).join("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    if node.is_file() && cli.is_file() {
        return Some((node, cli));
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "the MCP conformance suite is not in {}: run scripts/install-clients",
        clients.join(dir).display()
    );
    eprintln!(
        "SKIPPED: the MCP conformance suite is not in {}: run scripts/install-clients",
        clients.display()
    );
    None
}

/// Each scenario's outcome from the suite's summary lines (`✓ name: 1 passed, 0 failed`).
fn outcomes(summary: &str) -> BTreeMap<String, bool> {
    summary
        .lines()
        .filter_map(|line| {
            let (passed, rest) = match line.trim_start() {
                l if l.starts_with('✓') => (true, &l['✓'.len_utf8()..]),
                l if l.starts_with('✗') => (false, &l['✗'.len_utf8()..]),
                _ => return None,
            };
            let (name, counts) = rest.trim().split_once(':')?;
            counts.contains("passed").then(|| (name.trim().to_owned(), passed))
        })
        .collect()
}

/// One suite run at a time: each starts tasks that sleep and polls them within the
/// suite's own time limits, which three runs at once on two cores can miss.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Runs the suite installed in `dir` with `args` against a fresh server; its standard
/// output and whether it exited 0.
fn run_suite(dir: &str, args: &[&str]) -> Option<(String, bool)> {
    let (node, cli) = suite(dir)?;
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut server = Command::new(env!("CARGO_BIN_EXE_mcp-conformance"))
        .args(["--http", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the server starts");
    let mut first = String::new();
    BufReader::new(server.stdout.take().unwrap()).read_line(&mut first).unwrap();
    let url = first.trim().strip_prefix("listening on ").expect("its first line says where").to_owned();
    assert!(url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"), "{first}");
    let results = tempfile_dir(dir);
    let run = Command::new(&node)
        .arg(&cli)
        .args(["server", "--url", &url])
        .args(args)
        .arg("--output-dir")
        .arg(&results)
        .output();
    let _ = server.kill();
    let _ = server.wait();
    let _ = std::fs::remove_dir_all(&results);
    let run = run.expect("the suite runs");
    Some((String::from_utf8_lossy(&run.stdout).into_owned(), run.status.success()))
}

/// Runs `line` of the suite (`--suite all`) and holds its outcomes.
fn run(line: &Line) {
    let Some((summary, success)) = run_suite(line.dir, &["--suite", "all"]) else { return };
    let outcomes = outcomes(&summary);
    assert_eq!(outcomes.len(), line.scenarios, "scenarios in the summary of {}:\n{summary}", line.dir);
    let failing: Vec<&str> =
        outcomes.iter().filter(|(_, passed)| !**passed).map(|(n, _)| n.as_str()).collect();
    let known: Vec<&str> = line.known_failing.iter().map(|(name, _)| *name).collect();
    assert_eq!(failing, known, "failing scenarios (the known ones: {:?}):\n{summary}", line.known_failing);
    assert_eq!(success, known.is_empty(), "the suite's exit code");
}

/// A directory of its own for the suite's result files (it writes some per scenario).
fn tempfile_dir(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("toolcall-{name}-{}", std::process::id()))
}

#[test]
fn the_official_suite_0_1_passes_every_scenario() {
    run(&OLDER);
}

#[test]
fn the_official_suite_0_2_passes_every_scenario() {
    run(&NEWER);
}

/// 2026-07-28's requirement set (`--requirements 2026-07-28`: every scenario on the
/// stateless wire, the scored ones and the extensions' and pending ones it runs beside
/// them): every one passes.
#[test]
fn the_2026_07_28_requirement_set_passes_whole() {
    let Some((summary, success)) = run_suite(NEWER.dir, &["--requirements", "2026-07-28"]) else { return };
    let outcomes = outcomes(&summary);
    assert!(outcomes.len() >= 50, "scenarios in the summary:\n{summary}");
    let failing: Vec<&String> = outcomes.iter().filter(|(_, passed)| !**passed).map(|(n, _)| n).collect();
    assert!(failing.is_empty(), "failing: {failing:?}\n{summary}");
    assert!(success, "the suite's exit code:\n{summary}");
}

#[test]
fn the_summary_is_read_line_by_line() {
    let summary = "=== SUMMARY ===\n✓ ping: 1 passed, 0 failed\n✗ tools-call-sampling: 0 passed, 1 failed\nTotal: 1 passed, 1 failed\n";
    let read = outcomes(summary);
    assert_eq!(read, BTreeMap::from([("ping".to_owned(), true), ("tools-call-sampling".to_owned(), false)]));
}
