//! Compiling schemas with llguidance, through the `llguidance-check` helper binary.
//!
//! llguidance turns on serde_json's `preserve_order` feature unconditionally; as a
//! dependency of this crate it would be unified into every crate `cargo test --workspace`
//! builds. So it lives in `conformance/llguidance-check/`, a workspace of its own, which
//! [`compile`] builds (once; cargo caches it) and runs as a child process with its own
//! target directory, feeding it the schemas on stdin.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::Value;

/// What llguidance said about one schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The grammar compiled.
    Valid,
    /// The grammar compiled, with warnings.
    Warnings(Vec<String>),
    /// The grammar did not compile (or llguidance panicked).
    Error(String),
}

/// The helper's manifest.
fn manifest() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/llguidance-check/Cargo.toml"))
}

/// The helper's target directory: `$CARGO_TARGET_DIR/llguidance-check`, else
/// `<workspace>/target/llguidance-check`.
fn target_dir() -> PathBuf {
    let base = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../target")));
    base.join("llguidance-check")
}

/// Compiles every schema with llguidance; one verdict per schema, in order.
///
/// # Panics
///
/// When the helper cannot be built or run, or answers with something unexpected.
pub fn compile(schemas: &[Value]) -> Vec<Verdict> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut child = Command::new(cargo)
        .args(["run", "--quiet", "--manifest-path"])
        .arg(manifest())
        .arg("--target-dir")
        .arg(target_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start `cargo run` for llguidance-check: {e}"));
    let input = Value::Array(schemas.to_vec()).to_string();
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(input.as_bytes()).unwrap_or_else(|e| panic!("cannot feed llguidance-check: {e}"));
    }
    let output = child.wait_with_output().unwrap_or_else(|e| panic!("llguidance-check did not finish: {e}"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "llguidance-check failed ({}):\n{stderr}", output.status);
    let verdicts: Vec<Value> = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("llguidance-check wrote no JSON array ({e}):\n{stderr}"));
    assert_eq!(verdicts.len(), schemas.len(), "llguidance-check answered for a different number of schemas");
    verdicts.iter().map(parse).collect()
}

fn parse(verdict: &Value) -> Verdict {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    match verdict.get("verdict").and_then(Value::as_str) {
        Some("valid") => Verdict::Valid,
        Some("warnings") => Verdict::Warnings(
            verdict
                .get("messages")
                .and_then(Value::as_array)
                .map(|m| m.iter().map(text).collect())
                .unwrap_or_default(),
        ),
        Some("error") => Verdict::Error(verdict.get("message").map(text).unwrap_or_default()),
        _ => panic!("llguidance-check wrote an unknown verdict: {verdict}"),
    }
}
