//! Parameters mirrored into HTTP headers (`ToolParam::header`, MCP SEP-2243): the plain
//! input schema, the one MCP servers list, carries `"x-mcp-header"` on their properties,
//! and no strict or Gemini schema does (those providers refuse unknown keywords); what
//! MCP clients would refuse is an error at the override.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{bad_sources, diagnostic_lines, generate_one, module_schemas, snapshot_settings, source};
use serde_json::Value;
use toolcall_build::{Builder, Generated, Level};
use toolcall_runtime::render::render_infos;
use toolcall_runtime::{Format, ToolInfo};

/// A forecast tool file; `headers` are the `.header(..)` calls of its overrides, in the
/// order of its parameters (`""` for none).
fn forecast(headers: [&str; 7]) -> String {
    let [region, days, metric, station, wind, sky, letter] = headers;
    format!(
        r#"use toolcall_runtime::ToolParam;

pub(crate) const TOOL_PARAMS: &[ToolParam] = &[
    ToolParam::new("get_forecast", "region").description("where"){region},
    ToolParam::new("get_forecast", "days"){days},
    ToolParam::new("get_forecast", "metric"){metric},
    ToolParam::new("get_forecast", "station").string_integer(){station},
    ToolParam::new("get_forecast", "wind").range(-100, 100){wind},
    ToolParam::new("get_forecast", "sky"){sky},
    ToolParam::new("get_forecast", "letter"){letter},
];

/// The sky's look.
#[derive(serde::Deserialize)]
pub enum Sky {{
    /// Clear.
    Clear,
    /// Cloudy.
    Cloudy,
}}

/// Get the forecast of a region.
///
/// # Arguments
///
/// * `days` - how many days ahead
/// * `metric` - in metric units
/// * `station` - the weather station's number
/// * `wind` - the wind speed to expect
/// * `sky` - the sky to expect
/// * `letter` - a letter
/// * `query` - free text, never mirrored
pub fn get_forecast(
    region: String,
    days: Option<u8>,
    metric: bool,
    station: u64,
    wind: i64,
    sky: Sky,
    letter: char,
    query: Option<String>,
) -> String {{
    let _ = (sky, letter, query);
    format!("{{region}} {{days:?}} {{metric}} {{station}} {{wind}}")
}}
"#
    )
}

const HEADERS: [&str; 7] = [
    r#".header("Region")"#,
    r#".header("Days")"#,
    r#".header("Metric")"#,
    r#".header("Station")"#,
    r#".header("Wind-Speed")"#,
    r#".header("Sky")"#,
    r#".header("X-Letter")"#,
];

fn generated(text: &str) -> Generated {
    let generated = generate_one(&source("forecast.rs", text));
    assert_eq!(diagnostic_lines(&generated), "(no diagnostics)\n");
    generated
}

/// The string literal a field of the `ToolInfo` row of `tool` holds in generated `code`.
fn row_field(code: &str, tool: &str, field: &str) -> &'static str {
    let row = code.split(&format!("name: \"{tool}\",")).nth(1).expect("the tool's row");
    let line = row.lines().map(str::trim).find(|l| l.starts_with(&format!("{field}: "))).expect("the field");
    let literal = line.trim_start_matches(&format!("{field}: ")).trim_end_matches(',');
    let text = syn::parse_str::<syn::LitStr>(literal).expect("a string literal").value();
    Box::leak(text.into_boxed_str())
}

/// The `ToolInfo` row of `tool`, as generated code holds it (its schemas only).
fn info(code: &str, tool: &str) -> ToolInfo {
    ToolInfo {
        module: "forecast",
        name: Box::leak(tool.to_owned().into_boxed_str()),
        description: "",
        parameters: row_field(code, tool, "parameters"),
        strict_parameters: row_field(code, tool, "strict_parameters"),
        anthropic_strict_parameters: row_field(code, tool, "anthropic_strict_parameters"),
        gemini_parameters: row_field(code, tool, "gemini_parameters"),
        ..ToolInfo::EMPTY
    }
}

/// Every definition `emit(format, strict)` writes of `info`, by format and strictness.
fn definitions(info: &ToolInfo) -> Vec<(Format, bool, String)> {
    let mut all = Vec::new();
    for format in Format::ALL {
        for strict in [false, true] {
            all.push((format, strict, render_infos(std::slice::from_ref(info), format, strict)));
        }
    }
    all
}

#[test]
fn only_the_plain_schema_carries_the_headers() {
    let with = generated(&forecast(HEADERS));
    let without = generated(&forecast([""; 7]));
    // The IR, and so every schema rendered from it, is the same; in the generated code only
    // the plain schema of the tool differs.
    assert_eq!(module_schemas(&with), module_schemas(&without));
    assert_eq!(with.modules, without.modules);
    let changed: Vec<(&str, &str)> =
        with.code.lines().zip(without.code.lines()).filter(|(a, b)| a != b).collect();
    assert_eq!(changed.len(), 1, "{changed:#?}");
    assert!(changed[0].0.trim_start().starts_with("parameters: "), "{}", changed[0].0);
    assert_eq!(with.code.lines().count(), without.code.lines().count());

    let info = info(&with.code, "get_forecast");
    for (format, strict, text) in definitions(&info) {
        let plain = !strict && format != Format::Gemini;
        // Gemini's and every strict schema: the providers refuse unknown keywords. The plain
        // one is MCP's, which the non-strict OpenAI, Responses and Anthropic definitions share.
        assert_eq!(text.contains("x-mcp-header"), plain, "{format:?} strict={strict}: {text}");
    }
    let mcp: Value = serde_json::from_str(&render_infos(&[info], Format::Mcp, false)).unwrap();
    let properties = &mcp[0]["inputSchema"]["properties"];
    assert_eq!(
        properties["region"],
        serde_json::json!({"type": "string", "description": "where", "x-mcp-header": "Region"})
    );
    assert_eq!(properties["wind"]["x-mcp-header"], "Wind-Speed");
    assert!(properties["query"].get("x-mcp-header").is_none());
}

/// The rules rmcp checks a listed tool's input schema against before a client calls it
/// (`validate_param_header_annotations`, private to rmcp), restated: every annotation on a
/// property reached through `properties` alone, a non-empty token, unique whatever its
/// case, on a property whose `type` is `string`, `integer` or `boolean`.
#[test]
fn the_listed_schema_passes_rmcps_rules() {
    let with = generated(&forecast(HEADERS));
    let listed = render_infos(&[info(&with.code, "get_forecast")], Format::Mcp, false);
    let listed: Value = serde_json::from_str(&listed).unwrap();
    let schema = &listed[0]["inputSchema"];
    assert!(schema.get("x-mcp-header").is_none());
    let mut seen: Vec<String> = Vec::new();
    for (name, property) in schema["properties"].as_object().unwrap() {
        let Some(header) = property.get("x-mcp-header") else { continue };
        let header = header.as_str().expect("a string");
        let tchar = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
        assert!(!header.is_empty() && header.chars().all(tchar), "{name}: {header}");
        assert!(!seen.contains(&header.to_ascii_lowercase()), "{name}: {header} repeats");
        seen.push(header.to_ascii_lowercase());
        let kind = property["type"].as_str();
        assert!(matches!(kind, Some("string" | "integer" | "boolean")), "{name}: {property}");
        // Nothing else in it is annotated: a property is primitive, with no subschemas.
        assert_eq!(property.to_string().matches("x-mcp-header").count(), 1, "{name}: {property}");
    }
    assert_eq!(seen.len(), 7);
    assert_eq!(listed.to_string().matches("x-mcp-header").count(), 7, "no annotation off the properties");
    // An `Option<u8>` is its type, only not required: absent or null, no header is sent.
    assert_eq!(schema["properties"]["days"]["type"], "integer");
    assert!(!schema["required"].as_array().unwrap().iter().any(|r| r == "days"));
}

#[test]
fn header_mistakes_are_located_errors() {
    let generated = Builder::new().generate_from(bad_sources("headers")).expect("generates");
    let lines = diagnostic_lines(&generated);
    snapshot_settings(|| insta::assert_snapshot!("bad__headers", lines));
    assert!(generated.has_errors());
    let expect = [
        (
            "forecast.rs:5:51: error: ",
            "header `region` of `zone` of `get_forecast` is already the header of `region` (`Region`); header names \
             are case-insensitive",
        ),
        (
            "forecast.rs:6:51: error: ",
            r#"header name of `city` of `get_forecast` is empty; name the header after `Mcp-Param-`, e.g. `.header("City")`"#,
        ),
        (
            "forecast.rs:7:54: error: ",
            r#"header name `Country Code` of `country` of `get_forecast` has ' ', which an HTTP header name cannot hold (an RFC 9110 token"#,
        ),
        ("forecast.rs:7:54: error: ", r#"e.g. `.header("CountryCode")`"#),
        ("forecast.rs:8:51: error: ", r#"header name `Région` of `town` of `get_forecast` has 'é'"#),
        ("forecast.rs:8:51: error: ", r#"e.g. `.header("Town")`"#),
        (
            "forecast.rs:9:52: error: ",
            "`score` of `get_forecast` is a number, so it cannot be mirrored into `Mcp-Param-Score`: MCP clients \
             drop a tool whose `x-mcp-header` is not on a string, integer or boolean",
        ),
        (
            "forecast.rs:10:66: error: ",
            "`days` of `get_forecast` has a second `.header(..)` (`Span` after `Days`)",
        ),
        ("forecast.rs:11:51: error: ", "`note` of `get_forecast` is nullable"),
        ("forecast.rs:11:51: error: ", "make it `Option<T>`: absent or null, it sends no header"),
        ("forecast.rs:12:51: error: ", "`tags` of `get_forecast` is an array"),
        (
            "forecast.rs:13:54: ",
            "`station` of `get_forecast` is an integer that may reach past ±9007199254740991 (2^53 - 1)",
        ),
    ];
    for (place, words) in expect {
        let found: Vec<&str> = lines.lines().filter(|l| l.contains(place) && l.contains(words)).collect();
        assert_eq!(found.len(), 1, "`{place}` `{words}`:\n{lines}");
        assert!(found[0].starts_with(&format!("src/tools/{place}")), "{}", found[0]);
    }
    let warning = generated.diagnostics.iter().find(|d| d.message.contains("`station`")).unwrap();
    assert_eq!(warning.level, Level::Warning, "a call's values, not the schema, break the range");
    // `label` is an `Option<String>`: mirrored, nothing to say.
    assert!(!lines.contains("`label`"), "{lines}");
    assert_eq!(generated.diagnostics.len(), 9, "{lines}");
    // Only the headers that hold reach the schema; the tool is still generated.
    assert_eq!(generated.modules[0].tools.len(), 1);
}

#[test]
fn a_prompt_argument_takes_no_header() {
    let text = r#"use toolcall_runtime::ToolParam;

pub(crate) const TOOL_PARAMS: &[ToolParam] = &[ToolParam::new("greet", "name").header("Name")];

/// Greet someone.
///
/// # Arguments
///
/// * `name` - who
pub fn greet(name: String) -> String {
    format!("Say hello to {name}")
}
"#;
    let prompt = toolcall_build::SourceFile {
        path: "src/prompts/greet.rs".into(),
        relative: "greet.rs".into(),
        text: text.to_owned(),
    };
    let generated = Builder::new().generate_from(vec![prompt]).expect("generates");
    let lines = diagnostic_lines(&generated);
    assert!(!generated.has_errors(), "{lines}");
    let expected = "src/prompts/greet.rs:3:87: `TOOL_PARAMS`: `.header(..)` on `name` of `greet` is ignored: only a \
                    tool's parameters travel in `Mcp-Param-*` headers\n";
    assert_eq!(lines, expected);
    assert!(!generated.code.contains("x-mcp-header"), "{}", generated.code);
}
