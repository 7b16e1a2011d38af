//! Every emitted schema is a valid JSON Schema 2020-12 document, and the in-process
//! rendering this suite checks is byte for byte what the compiled crates ship.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use conformance::corpus::{self, variants};
use conformance::rules::{input_schema, tool_description};
use conformance::{definitions, validate};
use serde_json::json;
use toolcall_runtime::render::Format;

#[test]
fn schemas_match_the_compiled_toolsets() {
    let sources = [corpus::example_app(), corpus::fixtures()];
    let mut compared = 0;
    for (source, (name, infos, emit)) in sources.iter().zip(corpus::compiled()) {
        assert_eq!(source.name, name);
        assert_eq!(source.tools.len(), infos.len(), "{name}: tool count");
        for (format, strict) in variants() {
            let rendered = source.render(format, strict);
            assert_eq!(
                rendered,
                emit(format, strict),
                "{name}: the in-process {} strict={strict} rendering differs from the compiled toolset",
                format.as_str()
            );
            compared += 1;
        }
    }
    println!("schemas_match_the_compiled_toolsets: {compared} emitted arrays compared");
    assert_eq!(compared, 2 * 2 * Format::ALL.len());
}

#[test]
fn every_input_schema_is_valid_json_schema_2020_12() {
    let mut examined = 0;
    let mut failures = Vec::new();
    for source in corpus::sources() {
        for (format, strict) in variants() {
            let value = source.render_value(format, strict);
            for def in definitions(&value) {
                let schema = input_schema(def, format).expect("an input schema");
                for error in validate::meta_errors(schema) {
                    failures.push(format!(
                        "{} {} strict={strict} {def}: {error}",
                        source.name,
                        format.as_str()
                    ));
                }
                examined += 1;
            }
        }
    }
    println!("every_input_schema_is_valid_json_schema_2020_12: {examined} schemas examined");
    assert!(examined > 0);
    assert!(
        failures.is_empty(),
        "{} schemas fail the 2020-12 meta-schema:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_meta_schema_check_rejects_a_broken_schema() {
    let broken = json!({"type": "object", "properties": {"a": {"type": "text"}}, "required": ["a", "a"]});
    assert!(!validate::meta_errors(&broken).is_empty());
    assert!(validate::meta_errors(&json!({"type": "object", "required": ["a"]})).is_empty());
}

#[test]
fn output_is_deterministic_and_every_tool_is_described() {
    let mut examined = 0;
    let mut undescribed = Vec::new();
    for source in corpus::sources() {
        for (format, strict) in variants() {
            assert_eq!(source.render(format, strict), source.render(format, strict));
            let value = source.render_value(format, strict);
            for def in definitions(&value) {
                examined += 1;
                let description = tool_description(def, format).unwrap_or("");
                if description.is_empty() && format == Format::Mcp && !strict {
                    undescribed.push(format!("{}: {def}", source.name));
                }
                if description.chars().count() > 1024 {
                    println!("warning: {} {}: description over 1024 characters", source.name, def);
                }
            }
        }
    }
    println!("output_is_deterministic_and_every_tool_is_described: {examined} definitions examined");
    assert!(examined > 0);
    for tool in &undescribed {
        println!("warning (§8 common 5): a tool without a description: {tool}");
    }
}
