//! Sample arguments generated from the IR (never written per tool) validate against the
//! emitted schemas, and the dispatchers accept them: `run` returns `Ok`, or `Failed` /
//! `Panicked` for tools that fail on purpose, never an argument error. A disagreement
//! between a schema and its dispatcher fails with the exact tool, sample and error.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;

use conformance::corpus::{self, Source};
use conformance::rules::input_schema;
use conformance::samples::{Extreme, Mode, Target, samples, value};
use conformance::{definitions, known, validate};
use serde_json::Value;
use toolcall_runtime::ir::{Tool, Type};
use toolcall_runtime::render::render_type;
use toolcall_runtime::{Format, FromArg, ToolError};

/// The formats and strictness a target's samples are valid for.
fn schemas_for(target: Target) -> &'static [(Format, bool)] {
    match target {
        Target::Lax => &[(Format::OpenAi, false), (Format::Anthropic, false), (Format::Mcp, false)],
        Target::StrictNullable => &[(Format::OpenAi, true), (Format::Mcp, true)],
        Target::StrictOptional => &[(Format::Anthropic, true)],
    }
}

const TARGETS: [Target; 3] = [Target::Lax, Target::StrictNullable, Target::StrictOptional];

/// Input schemas of `source` by format, strictness and tool name.
fn schemas(source: &Source) -> BTreeMap<(Format, bool, String), Value> {
    let mut out = BTreeMap::new();
    for (format, strict) in corpus::variants() {
        let value = source.render_value(format, strict);
        for (tool, def) in source.tools.iter().zip(definitions(&value)) {
            out.insert(
                (format, strict, tool.name.clone()),
                input_schema(def, format).expect("schema").clone(),
            );
        }
    }
    out
}

#[test]
fn generated_samples_validate_against_the_emitted_schemas() {
    let (mut schemas_examined, mut checked, mut failures) = (0, 0, Vec::new());
    for source in corpus::sources() {
        let schemas = schemas(&source);
        for tool in &source.tools {
            for target in TARGETS {
                let samples = samples(tool, target);
                for (format, strict) in schemas_for(target) {
                    let schema = &schemas[&(*format, *strict, tool.name.clone())];
                    let validator = validate::validator(schema);
                    schemas_examined += 1;
                    for (label, args) in &samples {
                        checked += 1;
                        for error in validate::errors(&validator, args) {
                            failures.push(format!(
                                "{} {} {} strict={strict} sample {label} {args}: {error}",
                                source.name,
                                tool.name,
                                format.as_str()
                            ));
                        }
                    }
                }
            }
        }
    }
    println!(
        "generated_samples_validate_against_the_emitted_schemas: {schemas_examined} schemas examined, {checked} sample validations"
    );
    assert!(schemas_examined > 0 && checked > 0);
    assert!(failures.is_empty(), "{} sample validations failed:\n{}", failures.len(), failures.join("\n"));
}

/// Why a call error is tolerated, if it is: the tool's schema cannot describe a
/// parameter (foreign type without provider), or the error is about an untyped slot
/// (`{}`), where the schema promises nothing the dispatcher can check.
fn tolerated(source: &Source, tool: &Tool, error: &ToolError) -> Option<String> {
    if source.opaque.contains(&tool.name) {
        return Some("a parameter is a foreign type without a provider: `{}` in the schema".to_owned());
    }
    match error {
        ToolError::InvalidArgument { name, .. } => {
            let ty = known::type_at_argument(tool, name)?;
            known::is_untyped(ty).then(|| format!("`{name}` is untyped (`{{}}`) in the schema"))
        }
        _ => None,
    }
}

#[test]
fn the_dispatchers_accept_every_generated_sample() {
    let (mut calls, mut ok, mut failed_on_purpose, mut failures) = (0, 0, 0, Vec::new());
    let mut by_tool: BTreeMap<String, usize> = BTreeMap::new();
    for source in corpus::sources() {
        for tool in &source.tools {
            for target in TARGETS {
                for (label, args) in samples(tool, target) {
                    calls += 1;
                    match source.dispatch.run(&tool.name, &args) {
                        Ok(_) => ok += 1,
                        Err(error @ (ToolError::Failed(_) | ToolError::Reported(_) | ToolError::Panicked(_))) => {
                            failed_on_purpose += 1;
                            *by_tool.entry(format!("{} {}: {}", source.name, tool.name, error.kind())).or_insert(0) += 1;
                        }
                        Err(error) => match tolerated(&source, tool, &error) {
                            Some(why) => println!(
                                "tolerated: {} {} sample {label} {args}: {error} ({why})",
                                source.name, tool.name
                            ),
                            None => failures.push(format!(
                                "{} {} sample {label} ({target:?}) {args}: the schema accepts it, the dispatcher says: {error}",
                                source.name, tool.name
                            )),
                        },
                    }
                }
            }
        }
    }
    println!(
        "the_dispatchers_accept_every_generated_sample: {calls} calls, {ok} Ok, {failed_on_purpose} Failed/Panicked by the tool"
    );
    for (tool, count) in &by_tool {
        println!("  failed by the tool itself: {tool} x{count}");
    }
    assert!(calls > 0 && ok > 0);
    assert!(
        failures.is_empty(),
        "{} schema/dispatcher disagreements:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_tools_that_fail_on_purpose_do() {
    // A guard on the test above: `Failed`/`Panicked` are accepted there, so check they
    // are what the failing tools return, not a blanket pass.
    let app = corpus::example_app();
    let explode = app.dispatch.run("explode", &serde_json::json!({}));
    assert!(matches!(explode, Err(ToolError::Panicked(_))), "{explode:?}");
    let divide = app.dispatch.run("divide", &serde_json::json!({"a": 1, "b": 0}));
    assert!(matches!(divide, Err(ToolError::Failed(_))), "{divide:?}");
    let ok = app.dispatch.run("divide", &serde_json::json!({"a": 1, "b": 2}));
    assert!(ok.is_ok(), "{ok:?}");
}

/// Decodes `value` as `T` the way generated dispatchers do.
fn decodes<T: for<'a> FromArg<'a>>(value: &Value) -> Result<(), String> {
    T::from_arg(value, 0).map(|_| ()).map_err(|e| format!("{:?}", e.reason))
}

#[test]
fn every_value_a_format_schema_accepts_decodes_into_the_mapped_rust_type() {
    // The built-in mappings of DESIGN.md's Types table: a Rust type, the `format` it is
    // rendered with, and its decoder. Every generated example the schema accepts (with
    // format validation on) must decode; otherwise a strict model's valid answer fails.
    type Decoder = fn(&Value) -> Result<(), String>;
    // `NaiveTime` has no offset, so it is a pattern, not `format: time` (build_checks.rs).
    let cases: [(&str, &str, Decoder); 9] = [
        ("NaiveDate", "date", decodes::<chrono::NaiveDate>),
        ("NaiveDateTime", "date-time", decodes::<chrono::NaiveDateTime>),
        ("DateTime<Utc>", "date-time", decodes::<chrono::DateTime<chrono::Utc>>),
        ("DateTime<FixedOffset>", "date-time", decodes::<chrono::DateTime<chrono::FixedOffset>>),
        ("Uuid", "uuid", decodes::<uuid::Uuid>),
        ("Ipv4Addr", "ipv4", decodes::<std::net::Ipv4Addr>),
        ("Ipv6Addr", "ipv6", decodes::<std::net::Ipv6Addr>),
        ("IpAddr", "ipv4", decodes::<std::net::IpAddr>),
        ("IpAddr", "ipv6", decodes::<std::net::IpAddr>),
    ];
    let (mut checked, mut failures) = (0, Vec::new());
    for (rust, format, decode) in cases {
        let ty = Type::string_format(format);
        let validator =
            validate::validator(&serde_json::from_str(&render_type(&ty, Format::Mcp, false)).unwrap());
        for extreme in [Extreme::Low, Extreme::High] {
            let mode = Mode { extreme, ..Mode::MAXIMAL };
            let example = value(&ty, mode, 0);
            assert!(
                validate::errors(&validator, &example).is_empty(),
                "the generator's {format} example {example}"
            );
            checked += 1;
            if let Err(reason) = decode(&example) {
                let message = format!(
                    "{rust} (format {format}): the schema accepts {example}, the decoder says {reason}"
                );
                failures.push(message);
            }
        }
    }
    println!(
        "every_value_a_format_schema_accepts_decodes_into_the_mapped_rust_type: {checked} examples decoded"
    );
    assert!(checked > 0);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
