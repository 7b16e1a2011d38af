//! The peers' own checks on what toolcall sends strict, ported to Rust
//! (`conformance::peers`): every Anthropic strict definition that says `"strict": true`
//! passes Anthropic's `transform_schema`, and exactly those (a tool whose schema it would
//! refuse goes out without `strict`, #31 item 5); every OpenAI strict schema stays within
//! the 100 levels OpenAI's Agents SDK reads (#31 item 6). The Python originals run with
//! `scripts/peer_sdks.py` (RELIABILITY.md).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use conformance::corpus;
use conformance::definitions;
use conformance::peers::{OPENAI_AGENTS_MAX_DEPTH, anthropic_transform_schema, openai_agents_depth};
use conformance::rules::input_schema;
use serde_json::Value;
use toolcall_runtime::Format;

fn report(what: &str, examined: usize, failures: &[String]) {
    println!("{what}: {examined} definitions examined");
    assert!(examined > 0, "{what}: nothing examined");
    assert!(failures.is_empty(), "{what}: {} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn anthropic_strict_definitions_pass_transform_schema() {
    let (mut examined, mut strict, mut failures) = (0, 0, Vec::new());
    for source in corpus::sources() {
        let value = source.render_value(Format::Anthropic, true);
        for def in definitions(&value) {
            examined += 1;
            let name = def["name"].as_str().unwrap_or("?");
            let schema = input_schema(def, Format::Anthropic).expect("an input schema");
            let flagged = def.get("strict") == Some(&Value::Bool(true));
            strict += usize::from(flagged);
            match (flagged, anthropic_transform_schema(schema)) {
                (true, Err(error)) => failures.push(format!(
                    "{} `{name}` is sent strict, and the SDK refuses it: {error}",
                    source.name
                )),
                (false, Ok(_)) => failures.push(format!(
                    "{} `{name}` goes out without strict although the SDK takes its schema",
                    source.name
                )),
                _ => {}
            }
        }
    }
    println!("{strict} of them strict");
    assert!(strict > 0 && strict < examined, "both kinds are examined: {strict} of {examined}");
    report("anthropic_strict_definitions_pass_transform_schema", examined, &failures);
}

#[test]
fn openai_strict_schemas_nest_within_what_openai_agents_reads() {
    let (mut examined, mut failures) = (0, Vec::new());
    for source in corpus::sources() {
        for format in [Format::OpenAi, Format::OpenAiResponses, Format::Mcp] {
            let value = source.render_value(format, true);
            for def in definitions(&value) {
                examined += 1;
                let schema = input_schema(def, format).expect("an input schema");
                let depth = openai_agents_depth(schema);
                if depth > OPENAI_AGENTS_MAX_DEPTH {
                    failures.push(format!(
                        "{} {}: nests {depth} levels: {def}",
                        source.name,
                        format.as_str()
                    ));
                }
            }
        }
    }
    report("openai_strict_schemas_nest_within_what_openai_agents_reads", examined, &failures);
}

/// The build's limit is the Agents SDK's: a tool one level past it is warned about, and
/// its strict schema is what the SDK refuses.
#[test]
fn the_builds_openai_strict_limit_is_the_agents_sdks() {
    assert_eq!(toolcall_build::OPENAI_STRICT_MAX_DEPTH, OPENAI_AGENTS_MAX_DEPTH);
    let levels = OPENAI_AGENTS_MAX_DEPTH - 2;
    let text = format!("/// Deep.\npub fn deep(x: {}u8{}) {{}}\n", "Vec<".repeat(levels), ">".repeat(levels));
    let generated = conformance::build_fixture::generate(&[("deep.rs", &text)], None);
    let warned = generated.diagnostics.iter().any(|d| d.message.contains("OpenAI's Agents SDK refuses"));
    assert!(warned, "{:?}", generated.diagnostics);
    let tool = &generated.modules[0].tools[0].ir;
    let schema: Value =
        serde_json::from_str(&toolcall_runtime::render::render_input_schema(tool, Format::OpenAi, true))
            .unwrap();
    assert_eq!(openai_agents_depth(&schema), OPENAI_AGENTS_MAX_DEPTH + 1);
}
