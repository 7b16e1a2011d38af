//! OAuth scopes in a tool's `TOOLS` entry (`ToolMeta::scopes`): read into the tool's
//! `ToolInfo` row and nowhere else (its definitions are the same text with them or
//! without), and each scope the build cannot read or RFC 6749 §3.3 does not allow is an
//! error at its place.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{bad_sources, diagnostic_lines, generate_one, module_schemas, snapshot_settings, source};
use toolcall_build::{Builder, Generated, Level};

/// A notes tool file; `scopes` is the tail of `add_note`'s `TOOLS` entry.
fn notes(scopes: &str) -> String {
    format!(
        r#"use toolcall_runtime::ToolMeta;

pub(crate) const TOOLS: &[ToolMeta] = &[
    ToolMeta::new("add_note").title("Add a note"){scopes},
    ToolMeta::new("list_notes").read_only(),
];

/// Add a note.
///
/// # Arguments
///
/// * `text` - what it says
pub fn add_note(text: String) -> u64 {{
    text.len() as u64
}}

/// List the notes.
pub fn list_notes() -> Vec<String> {{
    Vec::new()
}}
"#
    )
}

fn generated(text: &str) -> Generated {
    let generated = generate_one(&source("notes.rs", text));
    assert!(!generated.has_errors(), "{}", diagnostic_lines(&generated));
    generated
}

#[test]
fn scopes_reach_the_info_row_and_no_definition() {
    let with = generated(&notes(r#".scopes(&["notes:write", "notes:admin"])"#));
    let without = generated(&notes(""));
    assert_eq!(diagnostic_lines(&with), "(no diagnostics)\n");
    let rows: Vec<&str> =
        with.code.lines().map(str::trim_start).filter(|l| l.starts_with("scopes:")).collect();
    assert_eq!(rows, [r#"scopes: &["notes:write", "notes:admin"],"#], "{}", with.code);
    // Everything else is the same text: the definitions of every format, strict or not,
    // and the rest of the generated file.
    assert_eq!(module_schemas(&with), module_schemas(&without));
    assert_eq!(with.modules, without.modules);
    let rest: Vec<&str> = with.code.lines().filter(|l| !l.trim_start().starts_with("scopes:")).collect();
    assert_eq!(rest, without.code.lines().collect::<Vec<_>>());
    assert!(!without.code.contains("scopes"), "a tool without scopes takes ToolInfo::EMPTY's");
}

#[test]
fn scopes_that_cannot_hold_are_located_errors() {
    let generated = Builder::new().generate_from(bad_sources("scopes")).expect("generates");
    let lines = diagnostic_lines(&generated);
    snapshot_settings(|| insta::assert_snapshot!("bad__scopes", lines));
    assert!(generated.has_errors());
    let expect = [
        ("scopes.rs:6:50: error: ", "`TOOLS`: a scope of `add` is empty"),
        (
            "scopes.rs:7:38: error: ",
            "scope `notes write` of `remove` has a space, which RFC 6749 §3.3 does not allow",
        ),
        ("scopes.rs:7:68: error: ", "scope `notes:write` of `remove` is listed twice"),
        ("scopes.rs:8:38: error: ", r#"scope `quote\"d` of `rename` has '"'"#),
        ("scopes.rs:8:50: error: ", r"scope `back\\slash` of `rename` has '\\'"),
        ("scopes.rs:8:65: error: ", "scope `naïve` of `rename` has 'ï'"),
        ("scopes.rs:8:74: error: ", r"scope `tab\there` of `rename` has '\t'"),
        ("scopes.rs:9:5: error: ", "`scopes` of `list` needs a list of string literals"),
        ("scopes.rs:10:50: error: ", "a scope of `show` must be a string literal"),
        ("scopes.rs:10:58: error: ", "`scopes` of `show` is given twice"),
    ];
    for (place, words) in expect {
        let found: Vec<&str> = lines.lines().filter(|l| l.contains(place) && l.contains(words)).collect();
        assert_eq!(found.len(), 1, "`{place}` `{words}`:\n{lines}");
    }
    assert_eq!(generated.diagnostics.len(), expect.len(), "{lines}");
    assert!(generated.diagnostics.iter().all(|d| d.level == Level::Error), "{lines}");
}
