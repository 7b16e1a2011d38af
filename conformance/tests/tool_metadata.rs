//! Tool metadata (`TOOLS`) against the providers' rules: every Anthropic `input_examples`
//! element validates against its `input_schema`, strict and not (§3 "Invalid examples
//! return a 400 error", §8 Anthropic item 3), with a real JSON Schema validator; MCP
//! titles and annotations are checked in `mcp_schema.rs`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use conformance::{corpus, definitions, validate};
use toolcall_runtime::render::Format;

#[test]
fn every_anthropic_input_example_validates_against_its_input_schema() {
    let mut examples = 0;
    let mut failures = Vec::new();
    for source in corpus::sources() {
        for strict in [false, true] {
            let value = source.render_value(Format::Anthropic, strict);
            for def in definitions(&value) {
                let Some(list) = def.get("input_examples") else { continue };
                let list = list.as_array().expect("input_examples is an array");
                assert!(!list.is_empty(), "an empty input_examples is written as none: {def}");
                let validator = validate::validator(&def["input_schema"]);
                for example in list {
                    examples += 1;
                    assert!(example.is_object(), "an example is an object of arguments: {example}");
                    if let Err(error) = validator.validate(example) {
                        failures.push(format!(
                            "{} strict={strict} {}: {example}: {error}",
                            source.name, def["name"]
                        ));
                    }
                }
            }
        }
    }
    println!("every_anthropic_input_example_validates_against_its_input_schema: {examples} examples");
    assert!(examples >= 4, "the example app and the fixtures carry examples");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn no_other_format_carries_examples_titles_or_annotations() {
    for source in corpus::sources() {
        for format in [Format::OpenAi, Format::OpenAiResponses, Format::Gemini] {
            for strict in [false, true] {
                let value = source.render_value(format, strict);
                for def in definitions(&value) {
                    let outer = def.get("function").unwrap_or(def);
                    for key in ["input_examples", "title", "annotations"] {
                        assert!(outer.get(key).is_none(), "{} {format:?}: `{key}` in {def}", source.name);
                    }
                }
            }
        }
    }
}
