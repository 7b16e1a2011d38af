//! The reference files in `../shared/reference/` (beside the workspace): the MCP JSON
//! schemas and `provider-rules.md`.
//!
//! They live outside the repository. When one is missing a test says so and skips its
//! checks, unless `TOOLCALL_REQUIRE_REFERENCE=1` is set (CI sets it), in which case a
//! missing file is a failure.

use std::path::PathBuf;

use serde_json::Value;

/// The MCP protocol versions whose schema files the tests read, oldest first.
pub const MCP_VERSIONS: [&str; 3] = ["2025-06-18", "2025-11-25", "2026-07-28"];

/// Where the reference files are: `$TOOLCALL_REFERENCE_DIR` when set (`.ci/run` sets it
/// for a checkout that does not sit beside `shared/`), else `<workspace>/../shared/reference`.
pub fn reference_dir() -> PathBuf {
    match std::env::var_os("TOOLCALL_REFERENCE_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/reference")),
    }
}

/// Whether a missing reference file must fail the test (`TOOLCALL_REQUIRE_REFERENCE=1`).
pub fn reference_required() -> bool {
    std::env::var("TOOLCALL_REQUIRE_REFERENCE").is_ok_and(|v| v == "1")
}

/// The text of reference file `name`, or `None` (after saying so on stderr) when it is
/// missing.
///
/// # Panics
///
/// When the file is missing and [`reference_required`], or when it exists but cannot be
/// read.
pub fn reference_text(name: &str) -> Option<String> {
    let path = reference_dir().join(name);
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let message = format!(
                "reference file {} is missing; its checks are SKIPPED (set TOOLCALL_REQUIRE_REFERENCE=1 to fail instead)",
                path.display()
            );
            assert!(!reference_required(), "TOOLCALL_REQUIRE_REFERENCE=1: {message}");
            eprintln!("SKIPPED: {message}");
            None
        }
        Err(e) => panic!("cannot read reference file {}: {e}", path.display()),
    }
}

/// Reference file `name` parsed as JSON; `None` when missing (see [`reference_text`]).
///
/// # Panics
///
/// As [`reference_text`], and when the file is not valid JSON.
pub fn reference_json(name: &str) -> Option<Value> {
    let text = reference_text(name)?;
    match serde_json::from_str(&text) {
        Ok(value) => Some(value),
        Err(e) => panic!("reference file {name} is not valid JSON: {e}"),
    }
}

/// The MCP schema document of `version` (`mcp-schema-<version>.json`).
pub fn mcp_schema(version: &str) -> Option<Value> {
    reference_json(&format!("mcp-schema-{version}.json"))
}

/// A schema that validates an instance against definition `name` of an MCP schema
/// document: the whole document (so its internal `$ref`s resolve) with a top-level
/// `$ref` to `#/definitions/<name>` (draft-07 documents) or `#/$defs/<name>` (2020-12).
///
/// # Panics
///
/// When the document has no such definition.
pub fn mcp_definition_schema(document: &Value, name: &str) -> Value {
    let key = if document.get("$defs").is_some() { "$defs" } else { "definitions" };
    assert!(
        document.get(key).and_then(|d| d.get(name)).is_some(),
        "the MCP schema document has no {key}/{name}"
    );
    let mut schema = document.clone();
    if let Value::Object(map) = &mut schema {
        map.insert("$ref".to_owned(), Value::String(format!("#/{key}/{name}")));
    }
    schema
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_reference_file_skips_or_fails_as_configured() {
        let outcome = std::panic::catch_unwind(|| reference_text("no-such-reference-file.json"));
        if reference_required() {
            assert!(outcome.is_err(), "TOOLCALL_REQUIRE_REFERENCE=1 must fail on a missing file");
        } else {
            assert!(matches!(outcome, Ok(None)));
        }
    }

    #[test]
    fn the_mcp_schemas_resolve_their_tool_definition() {
        for version in MCP_VERSIONS {
            let Some(document) = mcp_schema(version) else { continue };
            let schema = mcp_definition_schema(&document, "Tool");
            let pointer = schema["$ref"].as_str().unwrap_or_default().trim_start_matches('#').to_owned();
            assert!(schema.pointer(&pointer).is_some(), "{version}: {pointer}");
        }
    }
}
