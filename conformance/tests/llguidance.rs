//! Every strict schema (OpenAI strict, MCP strict, Anthropic strict) compiles to an
//! llguidance grammar (provider-rules §6, §8 "llguidance"). Warnings are printed; an
//! error or a panic fails. llguidance runs in the `llguidance-check` helper process (see
//! `conformance::grammar` for why).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use conformance::corpus;
use conformance::definitions;
use conformance::grammar::{Verdict, compile};
use conformance::rules::{input_schema, tool_name};
use serde_json::{Value, json};
use toolcall_runtime::Format;

/// `(label, schema)` of every tool of every source in `format`.
fn schemas(format: Format, strict: bool) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for source in corpus::sources() {
        let value = source.render_value(format, strict);
        for def in definitions(&value) {
            let label =
                format!("{} {} {}", source.name, format.as_str(), tool_name(def, format).unwrap_or("?"));
            out.push((label, input_schema(def, format).expect("an input schema").clone()));
        }
    }
    out
}

#[test]
fn every_strict_schema_compiles_with_llguidance() {
    let all: Vec<(String, Value)> =
        Format::ALL.into_iter().flat_map(|format| schemas(format, true)).collect();
    let verdicts = compile(&all.iter().map(|(_, s)| s.clone()).collect::<Vec<_>>());
    let mut failures = Vec::new();
    for ((label, schema), verdict) in all.iter().zip(&verdicts) {
        match verdict {
            Verdict::Valid => {}
            Verdict::Warnings(warnings) => println!("llguidance warning: {label}: {warnings:?}"),
            Verdict::Error(error) => failures.push(format!("{label}: {error}\n  {schema}")),
        }
    }
    println!("every_strict_schema_compiles_with_llguidance: {} strict schemas compiled", all.len());
    assert!(!all.is_empty());
    assert!(
        failures.is_empty(),
        "llguidance rejects {} strict schemas:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn non_strict_schemas_are_compiled_too_and_failures_listed() {
    // Not a provider requirement (providers do not constrain-decode non-strict schemas),
    // but self-hosted stacks (llama.cpp, vLLM) compile them: list what fails.
    let all = schemas(Format::Mcp, false);
    let verdicts = compile(&all.iter().map(|(_, s)| s.clone()).collect::<Vec<_>>());
    for ((label, _), verdict) in all.iter().zip(&verdicts) {
        if let Verdict::Error(error) = verdict {
            println!("llguidance (non-strict, informational): {label}: {error}");
        }
    }
    println!(
        "non_strict_schemas_are_compiled_too_and_failures_listed: {} non-strict schemas compiled",
        all.len()
    );
    assert!(!all.is_empty());
    // `uniqueItems` is the one keyword llguidance does not implement that non-strict
    // schemas carry; anything else failing would be news.
    let unexpected: Vec<&Verdict> =
        verdicts.iter().filter(|v| matches!(v, Verdict::Error(e) if !e.contains("uniqueItems"))).collect();
    assert!(unexpected.is_empty(), "{unexpected:?}");
}

#[test]
fn llguidance_reports_the_failures_this_check_relies_on() {
    let bad = [
        json!({"type": "object", "properties": {"a": {"type": "string", "format": "foo-bar"}}}),
        json!({"type": "object", "properties": {"a": {"type": "array", "uniqueItems": true}}}),
        json!({"type": "object", "properties": {"a": {"type": "integer", "minimum": 5, "maximum": 1}}, "required": ["a"]}),
        json!({"type": "object", "properties": {"a": {"type": "integer", "minimum": i64::MIN}}, "required": ["a"]}),
    ];
    let good = json!({"type": "object", "properties": {"a": {"type": ["string", "null"], "format": "uri"}},
        "required": ["a"], "additionalProperties": false});
    let mut schemas = bad.to_vec();
    schemas.push(good);
    let verdicts = compile(&schemas);
    for (schema, verdict) in schemas.iter().zip(&verdicts).take(bad.len()) {
        assert!(matches!(verdict, Verdict::Error(_)), "accepted {schema}: {verdict:?}");
    }
    assert!(!matches!(verdicts.last(), Some(Verdict::Error(_))), "{verdicts:?}");
}
