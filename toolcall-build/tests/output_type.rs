//! `Builder::output_type`: a crate type a model answers with gets an `OutputType` impl
//! whose schemas are the ones a tool parameter of that type gets (one renderer, one type
//! mapper), decoded by the type's generated `FromArg`; a path that names no usable type
//! is an error at its string in `build.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use common::{diagnostic_lines, snapshot_settings};
use serde_json::Value;
use toolcall_build::{Builder, Generated};
use toolcall_runtime::render::{InputKind, render_input};

const MODELS: &str = r#"
use serde::Deserialize;

/// The weather in one city.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// Where.
    pub city: String,
    /// Degrees Celsius.
    pub temp_c: f64,
    /// What the sky does.
    pub sky: Option<Sky>,
    #[serde(default, alias = "notes")]
    pub remarks: Vec<String>,
}

/// The sky.
#[derive(Deserialize)]
pub enum Sky { Clear, Cloudy, Rain { mm: u32 } }

/// A tree of answers.
#[derive(Deserialize)]
pub struct Node { pub label: String, pub children: Vec<Node> }

pub type Alias = Report;

#[derive(Deserialize)]
pub struct Page<T> { pub items: Vec<T> }

mod hidden {
    /// Hidden.
    #[derive(serde::Deserialize)]
    pub struct Secret { pub x: u8 }
}
"#;

const TOOL: &str = "use crate::models::Report;\n/// Files a report.\npub fn file(report: Report) {}\n";

fn generate(build_rs: &str, extra_tool: bool) -> Generated {
    let mut files: BTreeMap<PathBuf, String> = BTreeMap::new();
    files.insert("src/lib.rs".into(), "pub mod models;\npub mod tools;\n".into());
    files.insert("src/models.rs".into(), MODELS.into());
    files.insert("src/tools/mod.rs".into(), "pub mod weather;\n".into());
    let tool = if extra_tool { TOOL } else { "/// Nothing.\npub fn noop() {}\n" };
    files.insert("src/tools/weather.rs".into(), tool.into());
    files.insert("build.rs".into(), build_rs.into());
    let mut builder = Builder::new();
    for path in output_paths(build_rs) {
        builder = builder.output_type(path);
    }
    builder.generate_from_files(files).unwrap()
}

/// The paths a test build script names (what its builder is given).
fn output_paths(build_rs: &str) -> Vec<String> {
    build_rs
        .split(".output_type(\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(str::to_owned)
        .collect()
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

const REPORT_BUILD: &str = "fn main() {\n    toolcall_build::Builder::new()\n        .output_type(\"crate::models::Report\")\n        .output_type(\"crate::models::Sky\")\n        .output_type(\"crate::models::Node\")\n        .compile();\n}\n";

#[test]
fn an_output_type_gets_an_output_type_impl_and_its_decoder() {
    let generated = generate(REPORT_BUILD, false);
    assert!(!generated.has_errors(), "{}", diagnostic_lines(&generated));
    let code = &generated.code;
    assert!(code.contains("impl ::toolcall_runtime::OutputType for crate::models::Report"), "{code}");
    // No tool takes `Report`: its decoder is generated for the output type alone.
    assert!(code.replace('\n', " ").contains("FromArg<'__t> for crate::models::Report"), "{code}");
    let names: Vec<(&str, &str, bool)> =
        generated.outputs.iter().map(|o| (o.path.as_str(), o.name.as_str(), o.wrapped)).collect();
    assert_eq!(
        names,
        [
            ("crate::models::Report", "Report", false),
            ("crate::models::Sky", "Sky", true),
            ("crate::models::Node", "Node", false)
        ]
    );
    assert_eq!(generated.outputs[0].description, "The weather in one city.");
    let impls = &code[code.find("// The typed answers").expect("the output impls are written")..];
    snapshot_settings(|| insta::assert_snapshot!("code__output_types", impls));
}

#[test]
fn the_schema_is_the_strict_schema_a_tool_parameter_of_the_type_gets() {
    let generated = generate(REPORT_BUILD, true);
    assert!(!generated.has_errors(), "{}", diagnostic_lines(&generated));
    let tool = &generated.modules.iter().flat_map(|m| &m.tools).find(|t| t.ir.name == "file").unwrap().ir;
    let strict = json(&render_input(tool, InputKind::Strict));
    let gemini = json(&render_input(tool, InputKind::Gemini));
    let report = &generated.outputs[0];
    // The parameter carries the type's doc as its description; the output spec carries it
    // beside the schema.
    let without_description = |mut schema: Value| {
        schema.as_object_mut().unwrap().remove("description");
        schema
    };
    assert_eq!(json(&report.schema), without_description(strict["properties"]["report"].clone()));
    assert_eq!(json(&report.gemini_schema), without_description(gemini["properties"]["report"].clone()));
    let schema = json(&report.schema);
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(schema["required"], serde_json::json!(["city", "tempC", "sky", "remarks"]));
    // Optional in Rust, nullable in strict form.
    assert!(schema["properties"]["sky"]["anyOf"].as_array().unwrap().iter().any(|b| b["type"] == "null"));
}

#[test]
fn an_enum_is_wrapped_and_a_recursive_struct_keeps_its_definitions() {
    let generated = generate(REPORT_BUILD, false);
    let sky = json(&generated.outputs[1].schema);
    assert_eq!(sky["type"], "object");
    assert_eq!(sky["required"], serde_json::json!(["response"]));
    assert_eq!(sky["properties"]["response"]["description"], "The sky.");
    let node = json(&generated.outputs[2].schema);
    assert_eq!(node["type"], "object");
    assert_eq!(node["properties"]["children"]["items"]["$ref"], "#/$defs/Node");
    assert!(node["$defs"]["Node"].is_object(), "{node}");
    let gemini = json(&generated.outputs[2].gemini_schema);
    assert_eq!(gemini["type"], "object", "{gemini}");
}

#[test]
fn a_type_named_twice_gets_one_impl() {
    let build =
        "fn main() { B.output_type(\"crate::models::Report\").output_type(\"crate::models::Report\"); }";
    let generated = generate(build, false);
    assert_eq!(generated.outputs.len(), 1);
    assert_eq!(generated.code.matches("::toolcall_runtime::OutputType for").count(), 1);
}

#[test]
fn what_cannot_be_an_output_type_is_an_error_at_its_path_in_the_build_script() {
    let build = "fn main() {\n    toolcall_build::Builder::new()\n        .output_type(\"crate::models::Reprt\")\n        .output_type(\"not a path\")\n        .output_type(\"crate::models::Alias\")\n        .output_type(\"crate::models::Page<u8>\")\n        .output_type(\"crate::models::Page\")\n        .output_type(\"crate::models::hidden::Secret\")\n        .output_type(\"serde_json::Value\")\n        .compile();\n}\n";
    let generated = generate(build, false);
    assert!(generated.has_errors());
    assert!(generated.outputs.is_empty(), "{:?}", generated.outputs);
    let lines = diagnostic_lines(&generated);
    snapshot_settings(|| insta::assert_snapshot!("diagnostics__output_types", lines));
    assert!(lines.contains("build.rs:3:22: error: output type `crate::models::Reprt`"), "{lines}");
    assert!(lines.contains("did you mean `crate::models::Report`?"), "{lines}");
}
