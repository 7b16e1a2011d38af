//! The providers' rules over every emitted definition: OpenAI strict's subset (§2, §8),
//! Anthropic strict's lists (§3, §8), integer bounds within ±(2^53−1) in every format
//! (§7), and the tool-name rule of each format (§0).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use conformance::corpus::{self, Source, variants};
use conformance::rules::Violation;
use conformance::rules::{
    anthropic_counts, anthropic_strict_violations, common_violations, input_schema, openai_strict_violations,
};
use conformance::{definitions, known};
use toolcall_runtime::Format;

/// Splits OpenAI strict violations into unexpected ones and known issues (printed).
fn without_known(source: &Source, violations: Vec<Violation>) -> Vec<String> {
    let mut unexpected = Vec::new();
    for violation in violations {
        let tool = source.tools.iter().find(|t| t.name == violation.tool);
        match tool.and_then(|t| known::openai_strict(t, &violation)) {
            Some(issue) => println!("KNOWN ISSUE {}: {}: {violation}", issue.id, source.name),
            None => unexpected.push(format!("{}: {violation}", source.name)),
        }
    }
    unexpected
}

fn report(what: &str, examined: usize, failures: &[String]) {
    println!("{what}: {examined} definitions examined");
    assert!(examined > 0, "{what}: nothing examined");
    assert!(failures.is_empty(), "{what}: {} violations:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn openai_strict_output_stays_inside_the_strict_subset() {
    let (mut examined, mut failures) = (0, Vec::new());
    for source in corpus::sources() {
        let value = source.render_value(Format::OpenAi, true);
        let defs = definitions(&value);
        examined += defs.len();
        failures.extend(without_known(&source, openai_strict_violations(defs)));
    }
    report("openai_strict_output_stays_inside_the_strict_subset", examined, &failures);
}

#[test]
fn openai_non_strict_output_has_the_chat_completions_shape() {
    let (mut examined, mut failures) = (0, Vec::new());
    for source in corpus::sources() {
        let value = source.render_value(Format::OpenAi, false);
        for def in definitions(&value) {
            examined += 1;
            let function = def.get("function");
            let ok = def.get("type").and_then(|t| t.as_str()) == Some("function")
                && function.and_then(|f| f.get("parameters")).is_some_and(|p| p.is_object())
                && function.and_then(|f| f.get("strict")).is_none_or(|s| s == false);
            if !ok {
                failures.push(format!("{}: {def}", source.name));
            }
        }
    }
    report("openai_non_strict_output_has_the_chat_completions_shape", examined, &failures);
}

#[test]
fn anthropic_strict_output_follows_anthropics_lists() {
    let (mut examined, mut failures) = (0, Vec::new());
    for source in corpus::sources() {
        let value = source.render_value(Format::Anthropic, true);
        let defs = definitions(&value);
        examined += defs.len();
        failures
            .extend(anthropic_strict_violations(defs).into_iter().map(|v| format!("{}: {v}", source.name)));
        let (optional, unions) = defs
            .iter()
            .filter_map(|d| input_schema(d, Format::Anthropic))
            .map(anthropic_counts)
            .fold((0, 0), |(o, u), (o2, u2)| (o + o2, u + u2));
        println!(
            "{}: sending every tool strict to Anthropic in one request: {} tools, {optional} optional and {unions} union properties (limits 20, 24, 16)",
            source.name,
            defs.len()
        );
    }
    report("anthropic_strict_output_follows_anthropics_lists", examined, &failures);
}

#[test]
fn anthropic_non_strict_output_has_the_messages_shape() {
    let (mut examined, mut failures) = (0, Vec::new());
    for source in corpus::sources() {
        let value = source.render_value(Format::Anthropic, false);
        for def in definitions(&value) {
            examined += 1;
            let keys: Vec<&String> = def.as_object().into_iter().flat_map(|m| m.keys()).collect();
            let known = keys
                .iter()
                .all(|k| ["name", "description", "input_schema", "input_examples"].contains(&k.as_str()));
            let object = def.pointer("/input_schema/type").and_then(|t| t.as_str()) == Some("object");
            if !known || !object {
                failures.push(format!("{}: {def}", source.name));
            }
        }
    }
    report("anthropic_non_strict_output_has_the_messages_shape", examined, &failures);
}

#[test]
fn every_format_keeps_names_required_lists_formats_and_integer_bounds_sound() {
    let (mut examined, mut failures) = (0, Vec::new());
    for source in corpus::sources() {
        for (format, strict) in variants() {
            let value = source.render_value(format, strict);
            let defs = definitions(&value);
            examined += defs.len();
            failures.extend(
                common_violations(defs, format)
                    .into_iter()
                    .map(|v| format!("{} {} strict={strict}: {v}", source.name, format.as_str())),
            );
        }
    }
    report("every_format_keeps_names_required_lists_formats_and_integer_bounds_sound", examined, &failures);
}

#[test]
fn the_hand_built_tools_reach_the_clamped_integer_bounds() {
    // The `scalars` tool has i64::MIN..i64::MAX bounds in its IR: the output must carry the
    // clamped ±(2^53−1), which is what the check above relies on.
    let source = corpus::hand_built();
    for (format, strict) in variants() {
        let text = source.render(format, strict);
        assert!(!text.contains("9223372036854775807") && !text.contains("-9223372036854775808"), "{text}");
    }
    let lax = source.render(Format::Mcp, false);
    assert!(lax.contains("-9007199254740991") && lax.contains("9007199254740991"), "{lax}");
}

/// provider-rules §8, OpenAI Responses: the flat `{type, name, description, parameters,
/// strict}`, `parameters` always present, `strict` always written (omitted, the API would
/// make the schema strict), and the same checks as Chat on the same definitions — whose
/// parameters are exactly Chat's.
#[test]
fn responses_output_is_flat_says_strict_and_passes_the_chat_checks() {
    let (mut examined, mut failures) = (0, Vec::new());
    for source in corpus::sources() {
        for strict in [false, true] {
            let value = source.render_value(Format::OpenAiResponses, strict);
            let chat = source.render_value(Format::OpenAi, strict);
            let defs = definitions(&value);
            for (def, chat_def) in defs.iter().zip(definitions(&chat)) {
                examined += 1;
                let keys: Vec<&String> = def.as_object().map(|m| m.keys().collect()).unwrap_or_default();
                let ok = def["type"] == "function"
                    && def["name"].is_string()
                    && def["parameters"].is_object()
                    && def["strict"] == serde_json::Value::Bool(strict)
                    && keys.iter().all(|k| {
                        ["type", "name", "description", "parameters", "strict"].contains(&k.as_str())
                    })
                    && def["parameters"] == chat_def["function"]["parameters"];
                if !ok {
                    failures.push(format!("{} strict={strict}: {def}", source.name));
                }
            }
            if strict {
                let wrapped: Vec<serde_json::Value> = defs
                    .iter()
                    .map(|d| {
                        let mut function = d.clone();
                        if let Some(map) = function.as_object_mut() {
                            map.remove("type");
                        }
                        serde_json::json!({"type": "function", "function": function})
                    })
                    .collect();
                failures.extend(without_known(&source, openai_strict_violations(&wrapped)));
            }
        }
    }
    report("responses_output_is_flat_says_strict_and_passes_the_chat_checks", examined, &failures);
}

/// provider-rules §8, Gemini `functionDeclarations[].parameters` (OpenAPI-subset `Schema`):
/// declaration names, one `type` string (a null option is `nullable: true`), none of the
/// keywords the API rejects, string enums, and the strict variant equal to the lax one
/// (Gemini has no strict mode).
#[test]
fn gemini_output_stays_inside_the_openapi_subset() {
    fn walk(value: &serde_json::Value, at: &str, out: &mut Vec<String>) {
        // provider-rules §8 Gemini item 6: `$ref`/`$defs` inlined.
        const REJECTED: [&str; 17] = [
            "$ref",
            "$defs",
            "$schema",
            "additionalProperties",
            "const",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "propertyNames",
            "patternProperties",
            "oneOf",
            "allOf",
            "not",
            "if",
            "then",
            "else",
            "prefixItems",
            "uniqueItems",
        ];
        match value {
            serde_json::Value::Object(map) => {
                for (key, inner) in map {
                    let in_properties = at.ends_with(".properties");
                    if !in_properties && REJECTED.contains(&key.as_str()) {
                        out.push(format!("{at}.{key}: rejected by Gemini"));
                    }
                    if !in_properties && key == "type" && !inner.is_string() {
                        out.push(format!("{at}.type: not one string: {inner}"));
                    }
                    if !in_properties
                        && key == "enum"
                        && !inner.as_array().is_some_and(|v| v.iter().all(|e| e.is_string()))
                    {
                        out.push(format!("{at}.enum: not all strings: {inner}"));
                    }
                    walk(inner, &format!("{at}.{key}"), out);
                }
            }
            serde_json::Value::Array(items) => {
                items.iter().enumerate().for_each(|(i, v)| walk(v, &format!("{at}[{i}]"), out))
            }
            _ => {}
        }
    }
    let name_ok = |name: &str| {
        let mut chars = name.chars();
        chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.len() <= 64
            && chars.all(|c| c.is_ascii_alphanumeric() || "_.:-".contains(c))
    };
    let (mut examined, mut failures) = (0, Vec::new());
    for source in corpus::sources() {
        let lax = source.render_value(Format::Gemini, false);
        assert_eq!(lax, source.render_value(Format::Gemini, true), "{}: strict = lax", source.name);
        for def in definitions(&lax) {
            examined += 1;
            let name = def["name"].as_str().unwrap_or_default();
            if !name_ok(name) {
                failures.push(format!("{}: name {name:?}", source.name));
            }
            let keys: Vec<&String> = def.as_object().map(|m| m.keys().collect()).unwrap_or_default();
            if !keys.iter().all(|k| ["name", "description", "parameters"].contains(&k.as_str())) {
                failures.push(format!("{}: {name}: unexpected keys {keys:?}", source.name));
            }
            let mut found = Vec::new();
            walk(&def["parameters"], "parameters", &mut found);
            failures.extend(found.into_iter().map(|f| format!("{} {name}: {f}", source.name)));
        }
    }
    report("gemini_output_stays_inside_the_openapi_subset", examined, &failures);
}

/// Recursive types (tool definitions): `$defs` holding every definition, used through
/// `$ref`, in the formats that take references (OpenAI and MCP strict or not, Anthropic
/// without strict); written out with no `$ref` at all in Gemini and Anthropic strict
/// (provider-rules §3 "Recursive schemas" not supported, §8 Gemini item 6). That every
/// `$ref` resolves is a common rule, checked above for every format.
#[test]
fn recursive_types_are_defs_where_the_format_takes_refs_and_written_out_elsewhere() {
    let (mut examined, mut failures) = (0, Vec::new());
    for source in corpus::sources() {
        for (format, strict) in variants() {
            let value = source.render_value(format, strict);
            for (tool, def) in source.tools.iter().zip(definitions(&value)) {
                if tool.defs.is_empty() {
                    continue;
                }
                examined += 1;
                let schema = input_schema(def, format).expect("an input schema");
                let text = schema.to_string();
                let inlined = format == Format::Gemini || (format == Format::Anthropic && strict);
                let label = format!("{} {} {} strict={strict}", source.name, tool.name, format.as_str());
                if inlined && (text.contains("\"$ref\"") || text.contains("\"$defs\"")) {
                    failures.push(format!("{label}: a reference where the format takes none"));
                }
                for name in tool.defs.iter().map(|d| &d.name).filter(|_| !inlined) {
                    // The key: characters a `$ref` would need escaped are written `_`.
                    let key: String = name
                        .chars()
                        .map(|c| if c.is_ascii_alphanumeric() || "_.-".contains(c) { c } else { '_' })
                        .collect();
                    if schema.get("$defs").and_then(|d| d.get(&key)).is_none() {
                        failures.push(format!("{label}: no `$defs/{key}` for `{name}`"));
                    }
                }
            }
        }
    }
    report(
        "recursive_types_are_defs_where_the_format_takes_refs_and_written_out_elsewhere",
        examined,
        &failures,
    );
}
