//! Build-time checks and generator fixes found by this suite: each test states the
//! diagnostic (or output) `toolcall-build` gives for a rule a provider would enforce at
//! request time (lookarounds, unknown formats, unsatisfiable bounds, duplicate wire
//! names, untyped values in OpenAI strict, NaiveTime, `#[serde(default)]` with null).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use conformance::build_fixture::{FnProvider, find, generate, line_of};
use serde_json::{Value, json};
use toolcall_build::{Generated, Level, ProvidedType};
use toolcall_runtime::ir::Type;
use toolcall_runtime::render::render_tool;
use toolcall_runtime::{Format, FromArg};

fn caught(result: Result<&toolcall_build::Diagnostic, String>) {
    match result {
        Ok(diagnostic) => println!("caught: {diagnostic}"),
        Err(message) => panic!("{message}"),
    }
}

/// A provider for the fixtures below: `Lookahead`, `Backref`, `U32`, `Backwards`,
/// `ShortLong`.
fn provider() -> FnProvider {
    FnProvider(|path, _| {
        let ty = match path {
            "Lookahead" => Type::string_pattern("^(?=.*[0-9])[a-z0-9]+$"),
            "Backref" => Type::string_pattern(r"^(a+)-\1$"),
            "U32" => Type::string_format("uint32"),
            "Backwards" => Type::integer_between(5, 1),
            "ShortLong" => {
                Type::String { format: None, pattern: None, min_length: Some(10), max_length: Some(2) }
            }
            _ => return None,
        };
        Some(ProvidedType::new(ty))
    })
}

fn fixture(text: &str) -> Generated {
    generate(&[("fixture.rs", text)], Some(provider()))
}

// --- Checks to add to check.rs -------------------------------------------------------

/// Anthropic strict and llguidance reject lookarounds and backreferences in `pattern`
/// (provider-rules §3 "pattern", §6); a type provider can return one.
#[test]
fn a_pattern_with_a_lookaround_or_backreference_is_caught() {
    let text =
        "/// Set a password.\npub fn set_password(secret: Lookahead, echo: Backref) -> bool {\n    true\n}\n";
    let generated = fixture(text);
    caught(find(
        &generated,
        Level::Warning,
        "src/tools/fixture.rs",
        2,
        &["`secret`", "lookahead", "Anthropic"],
    ));
    caught(find(
        &generated,
        Level::Warning,
        "src/tools/fixture.rs",
        2,
        &["`echo`", "backreference", "Anthropic"],
    ));
}

/// DESIGN.md: "no non-standard `format` values such as `uint32`". Non-strict schemas
/// keep every format, and llguidance fails on an unknown one ("Unknown format"). Today
/// only the OpenAI-strict message appears, which says nothing about the other outputs.
#[test]
fn a_non_standard_format_is_caught() {
    let text = "/// Count.\npub fn count(n: U32) -> bool {\n    true\n}\n";
    let generated = fixture(text);
    caught(find(
        &generated,
        Level::Warning,
        "src/tools/fixture.rs",
        2,
        &["`uint32`", "not a JSON Schema format"],
    ));
}

/// minimum > maximum (or minLength > maxLength) makes a schema no value satisfies;
/// llguidance reports "Unsatisfiable schema" and a model cannot call the tool.
#[test]
fn unsatisfiable_bounds_are_caught() {
    let text = "/// Pick.\npub fn pick(n: Backwards, s: ShortLong) -> bool {\n    true\n}\n";
    let generated = fixture(text);
    caught(find(&generated, Level::Error, "src/tools/fixture.rs", 2, &["`n`", "minimum 5", "maximum 1"]));
    caught(find(
        &generated,
        Level::Error,
        "src/tools/fixture.rs",
        2,
        &["`s`", "minLength 10", "maxLength 2"],
    ));
}

/// Two fields renamed to one wire name give duplicate keys in `properties` and
/// `required: ["a","a"]`, which fails the 2020-12 meta-schema (Anthropic rejects it even
/// non-strict); today there is no diagnostic at all.
#[test]
fn two_fields_with_one_wire_name_are_an_error() {
    let text = "/// Two names.\npub struct Dup {\n    /// First.\n    #[serde(rename = \"a\")]\n    pub x: u8,\n    /// Second.\n    pub a: u8,\n}\n\n/// Use it.\npub fn dup(d: Dup) -> u8 {\n    0\n}\n";
    let generated = fixture(text);
    let line = line_of(text, "pub struct Dup");
    caught(find(&generated, Level::Error, "src/tools/fixture.rs", line, &["`Dup`", "`a`", "twice"]));
}

/// Two enum variants renamed to one wire value give `enum: ["r","r"]`: the decoder can
/// never produce the second variant.
#[test]
fn two_variants_with_one_wire_value_are_an_error() {
    let text = "/// Colours.\npub enum Col {\n    /// Red.\n    #[serde(rename = \"r\")]\n    Red,\n    /// Rose.\n    #[serde(rename = \"r\")]\n    Rose,\n}\n\n/// Paint.\npub fn paint(c: Col) -> u8 {\n    0\n}\n";
    let generated = fixture(text);
    let line = line_of(text, "pub enum Col");
    caught(find(&generated, Level::Error, "src/tools/fixture.rs", line, &["`Col`", "`r`", "twice"]));
}

/// OpenAI strict rejects a schema without `type` ("schema must have a 'type' key"). The
/// renderer gives an untyped value one there: a reference to the `json-value` definition,
/// any JSON value whose objects are empty (strict mode closes every object). The check
/// says so, and the schema accepts what it promises and nothing with a key in an object.
#[test]
fn an_untyped_value_is_typed_for_openai_strict_and_flagged() {
    let text = "/// Store.\npub fn store(value: serde_json::Value) -> bool {\n    true\n}\n";
    let generated = fixture(text);
    let tool = &generated.modules[0].tools[0].ir;
    let emitted: Value = serde_json::from_str(&render_tool(tool, Format::OpenAi, true)).unwrap();
    let parameters = &emitted["function"]["parameters"];
    let target = parameters.pointer("/properties/value/$ref").and_then(Value::as_str).unwrap();
    let definition = parameters.pointer(&conformance::rules::ref_pointer(target).unwrap()).unwrap();
    assert!(definition.get("type").is_some() || definition.get("anyOf").is_some(), "{definition}");
    let validator = conformance::validate::validator(parameters);
    for ok in [json!(1), json!("x"), json!(null), json!([[true], {}, 2.5]), json!({})] {
        let errors = conformance::validate::errors(&validator, &json!({ "value": ok }));
        assert!(errors.is_empty(), "{ok}: {errors:?}");
    }
    assert!(!conformance::validate::errors(&validator, &json!({"value": {"k": 1}})).is_empty());
    caught(find(
        &generated,
        Level::Warning,
        "src/tools/fixture.rs",
        2,
        &["`value`", "OpenAI strict", "objects are empty"],
    ));
}

// --- Generator and decoder findings (toolcall-build / toolcall-runtime) --------------

/// `chrono::NaiveTime` renders `format: "time"` (RFC 3339 full-time, offset required:
/// `09:30:00Z`), but its decoder rejects every offset (known issue `naive-time-format`).
/// Either the decoder accepts the schema's values, or the schema describes what the
/// decoder accepts (e.g. a pattern for `HH:MM:SS[.fff]`).
#[test]
fn naive_time_schema_and_decoder_agree() {
    let text = "/// At.\npub fn at(t: chrono::NaiveTime) -> bool {\n    true\n}\n";
    let generated = fixture(text);
    let tool = &generated.modules[0].tools[0].ir;
    let emitted: Value = serde_json::from_str(&render_tool(tool, Format::Mcp, false)).unwrap();
    let says_time = emitted.pointer("/inputSchema/properties/t/format") == Some(&json!("time"));
    let decodes_offset = chrono::NaiveTime::from_arg(&json!("09:30:00Z"), 0).is_ok();
    assert!(
        !says_time || decodes_offset,
        "schema says format time, decoder rejects \"09:30:00Z\": {emitted}"
    );
}

/// A `#[serde(default)]` field is optional, so strict schemas widen it to `["T","null"]`
/// and a strict model sends `null` for "absent"; the generated decoder rejects that null
/// (known issue `default-field-null`). DESIGN.md: "An explicit `null` for an optional
/// parameter means 'absent'".
#[test]
fn a_serde_default_field_accepts_null_as_absent() {
    let args = json!({"customer": {"fullName": "Ada", "e-mail": "ada@example.com", "vipLevel": null,
        "homeAddress": {"street": "Main 1", "zip": 1}, "nickName": null}});
    let result = toolcall_fixtures::toolset::ALL.run("register", &args);
    assert!(result.is_ok(), "{result:?}");
}
