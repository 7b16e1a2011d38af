//! Prompts (`src/prompts`) and resources (`src/resources`), read like tools: the code
//! generated beside the tools (`PROMPTS`, `RESOURCES`), and the located errors for a
//! resource the build cannot serve (no URI, a URI that does not fit its function) or a
//! prompt that gives no messages.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use common::{diagnostic_lines, snapshot_settings};
use toolcall_build::{Builder, Generated};

fn generate(files: &[(&str, &str)]) -> Generated {
    let mut all: BTreeMap<PathBuf, String> = BTreeMap::from([
        ("src/lib.rs".into(), "pub mod prompts;\npub mod resources;\npub mod tools;\n".into()),
        ("src/tools/mod.rs".into(), "pub mod notes;\n".into()),
        ("src/tools/notes.rs".into(), "/// Adds a note.\npub fn add(text: String) -> u64 { 1 }\n".into()),
    ]);
    for (path, text) in files {
        all.insert((*path).into(), (*text).to_owned());
    }
    Builder::new().generate_from_files(all).expect("generates")
}

const PROMPTS: &str = r#"
use toolcall_runtime::Message;

/// How a summary reads.
#[derive(serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Style { Short, Long }

/// Summarize the notes.
///
/// # Arguments
/// - `style`: how it reads.
/// - `limit`: at most this many notes.
pub fn summarize(style: Style, limit: Option<u32>) -> String { String::new() }

/// Review a note.
///
/// # Arguments
/// - `id`: the note.
pub async fn review(id: u64) -> Vec<Message> { Vec::new() }
"#;

const RESOURCES: &str = r#"
use toolcall_runtime::ResourceMeta;

pub(crate) const RESOURCES: &[ResourceMeta] = &[
    ResourceMeta::new("note", "notes://note/{id}").mime_type("text/markdown"),
    ResourceMeta::new("about", "info://about").title("About"),
    ResourceMeta::new("logo", "info://logo.png").mime_type("image/png"),
];

/// One note, by id.
///
/// # Arguments
/// - `id`: the note's id.
pub fn note(id: u64) -> Option<String> { None }

/// What this server is.
pub fn about() -> serde_json::Value { serde_json::Value::Null }

/// The logo.
pub fn logo() -> Vec<u8> { Vec::new() }
"#;

fn served() -> Generated {
    generate(&[
        ("src/prompts/mod.rs", "pub mod notes;\n"),
        ("src/prompts/notes.rs", PROMPTS),
        ("src/resources/mod.rs", "pub mod notes;\n"),
        ("src/resources/notes.rs", RESOURCES),
    ])
}

#[test]
fn prompts_and_resources_are_generated_beside_the_tools() {
    let generated = served();
    assert!(!generated.has_errors(), "{}", diagnostic_lines(&generated));
    let code = &generated.code;
    assert!(code.contains("pub static ALL: ::toolcall_runtime::Toolset<()>"), "{code}");
    assert!(code.contains("pub static PROMPTS: ::toolcall_runtime::Toolset<()>"), "{code}");
    assert!(code.contains("pub static RESOURCES: ::toolcall_runtime::ResourceSet<()>"), "{code}");
    assert!(code.contains("crate::prompts::notes::review(arg0).await"), "{code}");
    assert!(
        code.contains("const _: &[::toolcall_runtime::ResourceMeta] = crate::resources::notes::RESOURCES;")
    );
    // The export (`cargo toolcall export`) lists tools only.
    let names: Vec<&str> =
        generated.modules.iter().flat_map(|m| &m.tools).map(|t| t.ir.name.as_str()).collect();
    assert_eq!(names, ["add"]);
    snapshot_settings(|| insta::assert_snapshot!("code__served", code));
}

#[test]
fn each_resource_says_where_it_is_served_and_what_it_gives() {
    let code = served().code;
    for expected in [
        r#"uri: "notes://note/{id}","#,
        "template: true,",
        r#"mime_type: "text/markdown","#,
        "kind: ::toolcall_runtime::ResourceKind::Text,",
        r#"title: "About","#,
        r#"mime_type: "application/json","#,
        "kind: ::toolcall_runtime::ResourceKind::Json,",
        "kind: ::toolcall_runtime::ResourceKind::Bytes,",
    ] {
        assert!(code.contains(expected), "{expected}\n{code}");
    }
}

#[test]
fn a_crate_without_prompts_or_resources_gets_neither() {
    let code = generate(&[]).code;
    assert!(!code.contains("PROMPTS") && !code.contains("RESOURCES"), "{code}");
}

#[test]
fn a_resource_the_build_cannot_serve_is_an_error_at_its_place() {
    let resources = r#"
use toolcall_runtime::ResourceMeta;

pub(crate) const RESOURCES: &[ResourceMeta] = &[
    ResourceMeta::new("note", "notes://note/{id}"),
    ResourceMeta::new("export", "notes://user/{user}/export.md"),
    ResourceMeta::new("relative", "note/{id}"),
    ResourceMeta::new("broken", "x://{id"),
    ResourceMeta::new("ghost", "x://ghost"),
    ResourceMeta::new("first", "dup://x"),
    ResourceMeta::new("twin", "dup://x"),
];

/// No URI.
pub fn orphan() -> String { String::new() }

/// A parameter the URI lacks.
///
/// # Arguments
/// - `id`: the note.
/// - `format`: how.
pub fn note(id: u64, format: String) -> String { String::new() }

/// A variable the function lacks.
pub fn export() -> String { String::new() }

/// No scheme.
///
/// # Arguments
/// - `id`: the note.
pub fn relative(id: u64) -> String { String::new() }

/// A template that does not parse.
///
/// # Arguments
/// - `id`: the note.
pub fn broken(id: u64) -> String { String::new() }

/// At `dup://x`.
pub fn first() -> String { String::new() }

/// At `dup://x` too.
pub fn twin() -> String { String::new() }
"#;
    let prompts =
        "/// Gives a number.\npub fn count() -> u32 { 0 }\n/// Gives nothing.\npub fn nothing() {}\n";
    let generated = generate(&[
        ("src/prompts/mod.rs", "pub mod bad;\n"),
        ("src/prompts/bad.rs", prompts),
        ("src/resources/mod.rs", "pub mod bad;\n"),
        ("src/resources/bad.rs", resources),
    ]);
    assert!(generated.has_errors());
    let lines = diagnostic_lines(&generated);
    for expected in [
        "src/resources/bad.rs:15:8: error: resource function `orphan` has no URI: add `ResourceMeta::new(\"orphan\", \"scheme://...\")`",
        "src/resources/bad.rs:22:8: error: parameter `format` of resource `note` is not a variable of `notes://note/{id}`",
        "src/resources/bad.rs:6:5: error: `{user}` in `notes://user/{user}/export.md` is not a parameter of `export` (its parameters: none)",
        "src/resources/bad.rs:7:5: error: `note/{id}` is not a URI: it needs a scheme",
        "src/resources/bad.rs:8:5: error: URI template `x://{id`: a `{` is not closed",
        "src/resources/bad.rs:9:5: error: `RESOURCES` names `ghost`, which is not a function of this file",
        "error: a second resource at `dup://x` (the first is in src/resources/bad.rs)",
        "src/prompts/bad.rs:2:19: error: prompt `count` returns `u32`; a prompt returns its text",
        "src/prompts/bad.rs:4:8: error: prompt `nothing` returns nothing",
    ] {
        assert!(lines.contains(expected), "{expected}\n{lines}");
    }
    snapshot_settings(|| insta::assert_snapshot!("diagnostics__served_errors", lines));
}

#[test]
fn prompts_and_resources_may_live_elsewhere() {
    let files: BTreeMap<PathBuf, String> = BTreeMap::from([
        ("src/lib.rs".into(), "pub mod mcp;\npub mod tools;\n".into()),
        ("src/tools/mod.rs".into(), String::new()),
        ("src/mcp/mod.rs".into(), "pub mod asks;\n".into()),
        ("src/mcp/asks/mod.rs".into(), "pub mod hello;\n".into()),
        (
            "src/mcp/asks/hello.rs".into(),
            "/// Says hello.\npub fn hello() -> String { String::new() }\n".into(),
        ),
    ]);
    let generated =
        Builder::new().prompts_dir("src/mcp/asks", "crate::mcp::asks").generate_from_files(files).unwrap();
    assert!(!generated.has_errors(), "{}", diagnostic_lines(&generated));
    assert!(generated.code.contains("crate::mcp::asks::hello::hello()"), "{}", generated.code);
}
