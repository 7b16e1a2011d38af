//! An internally tagged newtype variant puts its struct's fields beside the tag. Where
//! the struct is a `$ref` (it contains the enum again), the emitted schema must say the
//! same: every rendering accepts what serde takes and refuses the `value` wrapper serde
//! refuses.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use conformance::build_fixture::generate;
use conformance::corpus;
use conformance::rules::input_schema;
use conformance::validate;
use serde::Deserialize;
use serde_json::{Value, json};
use toolcall_runtime::render::render_tool;

const TOOL_FILE: &str = r#"
use serde::{Deserialize, Serialize};

/// A folder.
#[derive(Serialize, Deserialize)]
pub struct Folder {
    pub entries: Vec<Entry>,
}

/// An entry of a folder.
#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Entry {
    File { size: u64 },
    Sub(Folder),
}

/// A flat record, not recursive.
#[derive(Serialize, Deserialize)]
pub struct Leaf {
    pub size: u64,
}

/// An event.
#[derive(Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Event {
    Leaf(Leaf),
    Again(Folder),
}

/// Returns the folder.
///
/// # Arguments
///
/// * `x` - the folder
pub fn folder(x: Folder) -> Folder {
    x
}

/// Returns the event.
///
/// # Arguments
///
/// * `event` - the event
/// * `other` - a second folder, so `Folder` is defined before the event uses it
pub fn event(other: Folder, event: Event) -> Event {
    let _ = other;
    event
}
"#;

/// The same types, for serde's own verdict.
#[derive(Deserialize)]
#[allow(dead_code)]
struct Folder {
    entries: Vec<Entry>,
}

#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
#[allow(dead_code)]
enum Entry {
    File { size: u64 },
    Sub(Folder),
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Leaf {
    size: u64,
}

#[derive(Deserialize)]
#[serde(tag = "type")]
#[allow(dead_code)]
enum Event {
    Leaf(Leaf),
    Again(Folder),
}

fn schemas(tool: &str) -> Vec<(String, Value)> {
    let generated = generate(&[("tagged.rs", TOOL_FILE)], None);
    assert!(!generated.has_errors(), "{:?}", generated.diagnostics);
    let ir = &generated.modules[0].tools.iter().find(|t| t.ir.name == tool).unwrap().ir;
    corpus::variants()
        .map(|(format, strict)| {
            let def: Value = serde_json::from_str(&render_tool(ir, format, strict)).unwrap();
            let schema = input_schema(&def, format).expect("an input schema").clone();
            (format!("{format:?} strict={strict}"), schema)
        })
        .collect()
}

fn verdicts(tool: &str, arguments: &Value) -> Vec<(String, bool)> {
    schemas(tool)
        .into_iter()
        .map(|(name, schema)| (name, validate::errors(&validate::validator(&schema), arguments).is_empty()))
        .collect()
}

#[test]
fn a_recursive_struct_in_a_tagged_newtype_variant_sits_beside_the_tag() {
    let taken = json!({"x": {"entries": [{"kind": "sub", "entries": [{"kind": "file", "size": 2}]}]}});
    assert!(serde_json::from_value::<Folder>(taken["x"].clone()).is_ok(), "serde takes it");
    for (name, valid) in verdicts("folder", &taken) {
        assert!(valid, "{name} refuses what serde takes: {taken}");
    }
    let wrapped = json!({"x": {"entries": [{"kind": "sub", "value": {"entries": []}}]}});
    assert!(serde_json::from_value::<Folder>(wrapped["x"].clone()).is_err(), "serde refuses it");
    for (name, valid) in verdicts("folder", &wrapped) {
        assert!(!valid, "{name} takes the `value` wrapper serde refuses: {wrapped}");
    }
}

#[test]
fn a_struct_defined_by_another_parameter_is_merged_with_the_tag_too() {
    let folder = json!({"entries": [{"kind": "file", "size": 1}]});
    for event in [json!({"type": "Again", "entries": []}), json!({"type": "Leaf", "size": 3})] {
        assert!(serde_json::from_value::<Event>(event.clone()).is_ok(), "serde takes {event}");
        let arguments = json!({"other": folder, "event": event});
        for (name, valid) in verdicts("event", &arguments) {
            assert!(valid, "{name} refuses what serde takes: {arguments}");
        }
    }
    let wrapped = json!({"other": folder, "event": {"type": "Again", "value": {"entries": []}}});
    for (name, valid) in verdicts("event", &wrapped) {
        assert!(!valid, "{name} takes the `value` wrapper serde refuses: {wrapped}");
    }
}
