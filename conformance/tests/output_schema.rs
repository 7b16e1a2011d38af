//! Output schemas (MCP `outputSchema`): every successful result of every tool that has one
//! validates against it, on the generated sample arguments of every tool of example-app
//! and the fixtures, and on random arguments for the fixture tool that reaches every
//! serde shape (renames, skipped and optional fields, flatten, tagged, untagged and
//! externally tagged enums, nested types, maps, vectors, NaN floats). The schemas are of
//! any shape (MCP 2026-07-28 takes any JSON Schema: lists, numbers, strings, unions);
//! the emitted MCP definitions carry only the object ones, which every revision takes.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use conformance::corpus;
use conformance::samples::{Target, samples};
use conformance::validate;
use proptest::prelude::*;
use serde_json::{Value, json};
use toolcall_runtime::render::render_output_schema;

const TARGETS: [Target; 3] = [Target::Lax, Target::StrictNullable, Target::StrictOptional];

#[test]
fn every_successful_result_validates_against_its_output_schema() {
    let (mut with_schema, mut objects, mut checked, mut failures) = (0, 0, 0, Vec::new());
    for source in [corpus::example_app(), corpus::fixtures()] {
        for tool in &source.tools {
            let Some(output) = &tool.output else { continue };
            with_schema += 1;
            let schema: Value = serde_json::from_str(&render_output_schema(output)).unwrap();
            // What revisions before 2026-07-28 take, and the emitted definitions carry.
            let object = schema["type"] == "object";
            assert_eq!(object, tool.object_output().is_some(), "{}: {schema}", tool.name);
            objects += usize::from(object);
            assert!(
                validate::meta_errors(&schema).is_empty(),
                "{}: {:?}",
                tool.name,
                validate::meta_errors(&schema)
            );
            let validator = validate::validator(&schema);
            for target in TARGETS {
                for (label, args) in samples(tool, target) {
                    let Ok(result) = source.dispatch.run(&tool.name, &args) else { continue };
                    checked += 1;
                    for error in validate::errors(&validator, &result) {
                        failures.push(format!(
                            "{} {} {label} {args} -> {result}: {error}",
                            source.name, tool.name
                        ));
                    }
                }
            }
        }
    }
    println!(
        "every_successful_result_validates_against_its_output_schema: {with_schema} tools ({objects} \
         object schemas), {checked} results"
    );
    assert!(with_schema >= 10 && checked >= 50, "{with_schema} tools, {checked} results");
    assert!(objects >= 10 && with_schema - objects >= 10, "{objects} of {with_schema} object schemas");
    assert!(failures.is_empty(), "{} results outside their schema:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn the_compiled_toolsets_carry_the_output_schemas() {
    let infos = toolcall_fixtures::toolset::ALL.describe();
    let info = |name: &str| infos.iter().find(|i| i.name == name).unwrap_or_else(|| panic!("no {name}"));
    let report = info("report").output_value().expect("report has an output schema");
    let properties: Vec<&String> = report["properties"].as_object().unwrap().keys().collect();
    for key in [
        "reportTitle",
        "comment",
        "owner",
        "origin",
        "page",
        "more",
        "finding",
        "measures",
        "counts",
        "trend",
        "mean",
    ] {
        assert!(properties.iter().any(|p| *p == key), "{key} missing: {properties:?}");
    }
    assert!(
        !properties.iter().any(|p| *p == "internalId" || *p == "internal_id" || *p == "paging"),
        "{properties:?}"
    );
    let required = report["required"].as_array().unwrap();
    assert!(required.contains(&json!("comment")) && !required.contains(&json!("owner")), "{required:?}");
    assert_eq!(report["properties"]["origin"]["properties"]["systemName"]["type"], "string");
    let total = info("total").output_value().expect("an integer result has an output schema");
    assert_eq!(total, json!({"type": "integer"}));
    assert_eq!(info("total").object_output(), None);
    assert_eq!(info("opaque").output, None, "a hand-written Serialize has no output schema");
    let mcp = toolcall_fixtures::toolset::ALL.emit_value(toolcall_runtime::Format::Mcp, false);
    let emitted = |name: &str| mcp.as_array().unwrap().iter().find(|t| t["name"] == name).unwrap();
    assert_eq!(emitted("report")["outputSchema"], report);
    assert_eq!(emitted("total").get("outputSchema"), None, "only 2026-07-28 takes an integer schema");
    let openai = toolcall_fixtures::toolset::ALL.emit(toolcall_runtime::Format::OpenAi, false);
    assert!(!openai.contains("outputSchema"), "only MCP has output schemas");
}

fn report_schema() -> jsonschema::Validator {
    let info = toolcall_fixtures::toolset::ALL.describe().iter().find(|i| i.name == "report").unwrap();
    validate::validator(&info.output_value().unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Random arguments reach every branch of `report`; every result fits its schema.
    #[test]
    fn random_reports_fit_their_output_schema(seed: u8, title in ".{0,12}", values in proptest::collection::vec(any::<i32>(), 0..6)) {
        let validator = report_schema();
        let args = json!({"seed": seed, "title": title, "values": values});
        let result = toolcall_fixtures::toolset::ALL.run("report", &args).unwrap();
        let errors = validate::errors(&validator, &result);
        prop_assert!(errors.is_empty(), "{result}: {errors:?}");
    }
}
