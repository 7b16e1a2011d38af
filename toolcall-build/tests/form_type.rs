//! `Builder::form_type`: a crate type a tool asks the user to fill in gets a `Form` impl
//! whose schema is MCP elicitation's flat form (enums titled from their variants' docs,
//! SEP-1330; lists of enum values a multi-select) and whose decoder is the type's
//! generated `FromArg`; a type that is not flat is an error at its string in `build.rs`,
//! naming the field.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use common::{diagnostic_lines, snapshot_settings};
use serde_json::{Value, json};
use toolcall_build::{Builder, Generated};

const MODELS: &str = r#"
use serde::Deserialize;

/// Who is signing up.
#[derive(Deserialize)]
pub struct Signup {
    /// Your name.
    pub name: String,
    /// Your age in years.
    pub age: u8,
    /// Your plan.
    pub plan: Plan,
    /// Topics to hear about.
    pub topics: Vec<Topic>,
    /// Newsletter.
    pub newsletter: Option<bool>,
    /// How sure, from 0 to 1.
    pub confidence: f64,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Plan {
    /// The free plan.
    Free,
    /// The paid plan.
    Pro,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Topic { Rust, Mcp }

/// A nested one.
#[derive(Deserialize)]
pub struct Nested { pub inner: Signup }

/// A list of strings.
#[derive(Deserialize)]
pub struct Tags { pub tags: Vec<String> }
"#;

fn generate(paths: &[&str]) -> Generated {
    let calls: String = paths.iter().map(|p| format!("        .form_type(\"{p}\")\n")).collect();
    let build_rs =
        format!("fn main() {{\n    toolcall_build::Builder::new()\n{calls}        .compile();\n}}\n");
    let files: BTreeMap<PathBuf, String> = BTreeMap::from([
        ("src/lib.rs".into(), "pub mod models;\npub mod tools;\n".into()),
        ("src/models.rs".into(), MODELS.into()),
        ("src/tools/mod.rs".into(), String::new()),
        ("build.rs".into(), build_rs),
    ]);
    let mut builder = Builder::new();
    for path in paths {
        builder = builder.form_type(*path);
    }
    builder.generate_from_files(files).unwrap()
}

/// The schema text of the generated impl for `path`.
fn schema(code: &str, path: &str) -> Value {
    let start = code.find(&format!("impl ::toolcall_runtime::Form for {path}")).expect("the impl");
    let rest = &code[start..];
    let text = rest.split("r#\"").nth(1).and_then(|t| t.split("\"#").next()).expect("a raw string");
    serde_json::from_str(text).unwrap()
}

#[test]
fn a_form_type_gets_a_flat_schema_and_its_decoder() {
    let generated = generate(&["crate::models::Signup"]);
    assert!(!generated.has_errors(), "{}", diagnostic_lines(&generated));
    let code = &generated.code;
    assert!(code.replace('\n', " ").contains("FromArg<'__t> for crate::models::Signup"), "{code}");
    let schema = schema(code, "crate::models::Signup");
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["required"], json!(["name", "age", "plan", "topics", "confidence"]));
    let properties = &schema["properties"];
    assert_eq!(properties["name"], json!({"type": "string", "description": "Your name."}));
    assert_eq!(
        properties["age"],
        json!({"type": "integer", "minimum": 0, "maximum": 255, "description": "Your age in years."})
    );
    // Variants with docs: a titled choice (SEP-1330).
    assert_eq!(
        properties["plan"]["oneOf"],
        json!([{"const": "free", "title": "The free plan"}, {"const": "pro", "title": "The paid plan"}])
    );
    // A list of enum values: a multi-select.
    assert_eq!(properties["topics"]["type"], "array");
    assert_eq!(properties["topics"]["items"], json!({"type": "string", "enum": ["rust", "mcp"]}));
    assert_eq!(properties["newsletter"], json!({"type": "boolean", "description": "Newsletter."}));
    assert_eq!(properties["confidence"]["type"], "number");
    let impls = &code[code.find("// The forms named").expect("the form impls are written")..];
    snapshot_settings(|| insta::assert_snapshot!("code__form_types", impls));
}

#[test]
fn a_type_that_is_no_flat_form_is_an_error_at_its_string_naming_the_field() {
    let generated = generate(&["crate::models::Nested", "crate::models::Tags", "crate::models::Plan"]);
    let lines = diagnostic_lines(&generated);
    for expected in [
        "build.rs:3:20: error: form type `crate::models::Nested`: field `inner` is not a form field",
        "build.rs:4:20: error: form type `crate::models::Tags`: field `tags` is not a form field",
        "build.rs:5:20: error: form type `crate::models::Plan`: a form is a struct with named fields",
    ] {
        assert!(lines.contains(expected), "{expected}\n{lines}");
    }
}
