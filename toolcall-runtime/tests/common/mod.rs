//! Test helpers shared by the integration tests of this crate.
//!
//! Written to be copied into other crates of the workspace as they are: they depend only on
//! `serde_json`, `insta` and `toolcall_runtime::render::Format`. Change [`SNAPSHOT_DIR`] to
//! the crate's own folder under the workspace's `snapshots/`.
//!
//! * [`snapshot`]: an insta text snapshot stored in the workspace's `snapshots/<crate>/`.
//! * [`pretty`]: pretty-prints JSON text **without reordering keys** (`serde_json` without
//!   `preserve_order` would sort them and hide the property order we promise).
//! * [`check_tool`]: parses one rendered tool definition and runs every provider check below
//!   that applies to its format and strictness. Call it on every schema a test renders.
//! * [`assert_closed_objects`]: the OpenAI/MCP strict rule: every object schema at every depth
//!   is closed and lists all its properties in `required`.
//! * [`dismantle`]: drops a deeply nested `Value` without recursion.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Map, Value};
use toolcall_runtime::render::{Format, every_node_typed};

/// Where this crate's snapshots live, relative to the workspace root.
pub const SNAPSHOT_DIR: &str = "snapshots/runtime";

/// Every (format, strict) pair a tool is rendered for.
pub const TARGETS: [(Format, bool); 6] = [
    (Format::OpenAi, false),
    (Format::OpenAi, true),
    (Format::Anthropic, false),
    (Format::Anthropic, true),
    (Format::Mcp, false),
    (Format::Mcp, true),
];

/// The largest integer every JSON client represents exactly.
pub const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// The `format` values OpenAI strict mode accepts (provider-rules.md §2).
pub const OPENAI_FORMATS: &[&str] =
    &["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];
/// The `format` values Anthropic strict mode accepts (provider-rules.md §3).
pub const ANTHROPIC_FORMATS: &[&str] =
    &["date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"];
/// Standard JSON Schema 2020-12 `format` values; anything else (`uint32`, `int64`) fails.
pub const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

// ---------------------------------------------------------------------------------------
// Snapshots

/// The insta settings every snapshot of this crate uses.
pub fn snapshot_settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(format!("{}/../{SNAPSHOT_DIR}", env!("CARGO_MANIFEST_DIR")));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings
}

/// Asserts `text` against snapshot `name` (names are global to [`SNAPSHOT_DIR`]; prefix
/// them with the test file's topic). `description` goes into the snapshot's header.
pub fn snapshot(name: &str, description: &str, text: &str) {
    let mut settings = snapshot_settings();
    settings.set_description(description);
    settings.bind(|| insta::assert_snapshot!(name, text));
}

/// Pretty-prints JSON text with two-space indents, keeping the key order of the input.
/// Panics if `json` is not valid JSON, or if the result does not parse back to the same value.
pub fn pretty(json: &str) -> String {
    let parsed: Value = serde_json::from_str(json).expect("pretty: input is not valid JSON");
    let out = toolcall_runtime::json::pretty(json);
    let back: Value = serde_json::from_str(&out).expect("pretty: output is not valid JSON");
    assert_eq!(back, parsed, "pretty printing changed the value");
    out
}

// ---------------------------------------------------------------------------------------
// Walking schemas

/// Calls `visit(schema, path)` for `schema` and every subschema below it: `properties`,
/// `items`, `prefixItems`, `anyOf`/`oneOf`/`allOf`, `additionalProperties` and `$defs`.
pub fn walk_schemas(schema: &Value, path: &str, visit: &mut dyn FnMut(&Value, &str)) {
    visit(schema, path);
    let Some(object) = schema.as_object() else { return };
    for key in ["properties", "$defs", "definitions", "patternProperties"] {
        if let Some(Value::Object(children)) = object.get(key) {
            for (name, child) in children {
                walk_schemas(child, &format!("{path}.{key}.{name}"), visit);
            }
        }
    }
    for key in ["items", "additionalProperties", "not", "contains", "if", "then", "else"] {
        match object.get(key) {
            Some(child @ Value::Object(_)) => walk_schemas(child, &format!("{path}.{key}"), visit),
            Some(Value::Array(children)) if key == "items" => walk_list(children, path, key, visit),
            _ => {}
        }
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(children)) = object.get(key) {
            walk_list(children, path, key, visit);
        }
    }
}

fn walk_list(children: &[Value], path: &str, key: &str, visit: &mut dyn FnMut(&Value, &str)) {
    for (i, child) in children.iter().enumerate() {
        walk_schemas(child, &format!("{path}.{key}[{i}]"), visit);
    }
}

/// The `type` keyword as a list of names (`"integer"` and `["integer","null"]` alike).
pub fn type_names(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(name)) => vec![name.as_str()],
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Whether `schema` describes objects (by `type`, or by having `properties`).
pub fn is_object_schema(schema: &Value) -> bool {
    type_names(schema).contains(&"object") || schema.get("properties").is_some()
}

/// The OpenAI/MCP strict rule (provider-rules.md §8, OpenAI 4): every object schema at every
/// depth has `additionalProperties: false`, a `properties` object (OpenAI rejects "object
/// schema missing properties") and a `required` array holding exactly its property names.
pub fn assert_closed_objects(schema: &Value) {
    walk_schemas(schema, "$", &mut |node, path| {
        if !is_object_schema(node) {
            return;
        }
        assert_eq!(
            node.get("additionalProperties"),
            Some(&Value::Bool(false)),
            "{path}: object schema is not closed: {node}"
        );
        let properties = node
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or_else(|| panic!("{path}: object schema has no `properties`: {node}"));
        let required = required_names(node, path)
            .unwrap_or_else(|| panic!("{path}: object schema has no `required` array: {node}"));
        let mut expected: Vec<&str> = properties.keys().map(String::as_str).collect();
        let mut listed = required.clone();
        expected.sort_unstable();
        listed.sort_unstable();
        assert_eq!(listed, expected, "{path}: `required` must list every property: {node}");
    });
}

/// The names in `required`, checked to be unique strings.
fn required_names<'v>(node: &'v Value, path: &str) -> Option<Vec<&'v str>> {
    let list = node.get("required")?.as_array()?;
    let names: Vec<&str> = list
        .iter()
        .map(|n| n.as_str().unwrap_or_else(|| panic!("{path}: non-string in `required`: {n}")))
        .collect();
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "{path}: duplicate entries in `required`: {node}");
    Some(names)
}

/// Checks every format needs (provider-rules.md §8 "Common"): `required` entries are
/// unique and each one is a property; integer bounds lie within ±(2^53−1); only standard
/// `format` values; arrays of the `array` type have `items` or `prefixItems`.
pub fn assert_schema_basics(schema: &Value) {
    walk_schemas(schema, "$", &mut |node, path| {
        if let Some(names) = required_names(node, path) {
            let properties = node.get("properties").and_then(Value::as_object);
            for name in names {
                assert!(
                    properties.is_some_and(|p| p.contains_key(name)),
                    "{path}: required `{name}` is not a property: {node}"
                );
            }
        }
        for key in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
            if let Some(bound) = node.get(key) {
                let ok = bound.as_i64().is_some_and(|b| (-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&b))
                    || (bound.is_f64() && !type_names(node).contains(&"integer"));
                assert!(ok, "{path}: `{key}` {bound} is outside ±(2^53−1) or not a number: {node}");
            }
        }
        if let Some(format) = node.get("format") {
            let format = format.as_str().unwrap_or_default();
            assert!(STANDARD_FORMATS.contains(&format), "{path}: non-standard format {format:?}");
        }
        if type_names(node).contains(&"integer") {
            assert!(node.get("format").is_none(), "{path}: integer with a `format`: {node}");
        }
    });
}

/// Keywords OpenAI strict accepts (provider-rules.md §8, OpenAI 6), `default` excluded.
const OPENAI_STRICT_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "enum",
    "const",
    "$ref",
    "$defs",
    "definitions",
    "description",
    "title",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
];

/// The OpenAI strict subset (also what our MCP strict output follows): closed objects,
/// allowed keywords only, the nine formats, every array has `items`.
pub fn assert_openai_strict_subset(schema: &Value) {
    assert_closed_objects(schema);
    walk_schemas(schema, "$", &mut |node, path| {
        let Some(object) = node.as_object() else { panic!("{path}: a schema must be an object") };
        for key in object.keys() {
            assert!(OPENAI_STRICT_KEYWORDS.contains(&key.as_str()), "{path}: keyword `{key}` in strict");
        }
        if let Some(format) = object.get("format").and_then(Value::as_str) {
            assert!(OPENAI_FORMATS.contains(&format), "{path}: format {format:?} in OpenAI strict");
        }
        if type_names(node).contains(&"array") {
            assert!(object.contains_key("items"), "{path}: array schema missing items: {node}");
        }
    });
}

/// Anthropic strict (provider-rules.md §8, Anthropic 4-6): closed objects, no numeric or
/// length limits, `minItems` only 0 or 1, its ten formats.
pub fn assert_anthropic_strict_subset(schema: &Value) {
    const DENIED: &[&str] = &[
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "maxItems",
        "uniqueItems",
        "prefixItems",
    ];
    walk_schemas(schema, "$", &mut |node, path| {
        let Some(object) = node.as_object() else { panic!("{path}: a schema must be an object") };
        for key in DENIED {
            assert!(!object.contains_key(*key), "{path}: `{key}` in Anthropic strict: {node}");
        }
        if let Some(min) = object.get("minItems") {
            assert!(matches!(min.as_u64(), Some(0 | 1)), "{path}: minItems {min} in Anthropic strict");
        }
        if let Some(extra) = object.get("additionalProperties") {
            assert_eq!(extra, &Value::Bool(false), "{path}: open additionalProperties in strict");
        }
        if is_object_schema(node) {
            assert_eq!(object.get("additionalProperties"), Some(&Value::Bool(false)), "{path}: not closed");
        }
        if let Some(format) = object.get("format").and_then(Value::as_str) {
            assert!(ANTHROPIC_FORMATS.contains(&format), "{path}: format {format:?} in Anthropic strict");
        }
    });
}

// ---------------------------------------------------------------------------------------
// Tool definitions

/// Whether `name` matches `^[a-zA-Z0-9_-]{1,64}$`.
pub fn is_portable_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The input schema inside one tool definition of `format`.
pub fn input_schema(format: Format, tool: &Value) -> &Value {
    let schema = match format {
        Format::OpenAi => &tool["function"]["parameters"],
        Format::OpenAiResponses | Format::Gemini => &tool["parameters"],
        Format::Anthropic => &tool["input_schema"],
        Format::Mcp => &tool["inputSchema"],
    };
    assert!(schema.is_object(), "no input schema in {tool}");
    schema
}

/// Checks the envelope of one tool definition: its shape, name and `strict` flag.
pub fn assert_envelope(format: Format, strict: bool, tool: &Value) {
    let fields: &Map<String, Value> = match format {
        Format::OpenAi => {
            assert_eq!(tool["type"], "function", "OpenAI tools are {{type: function}}: {tool}");
            assert_eq!(tool.as_object().map(Map::len), Some(2), "only type and function: {tool}");
            tool["function"].as_object().expect("`function` object")
        }
        Format::OpenAiResponses => {
            assert_eq!(tool["type"], "function", "Responses tools are flat {{type: function, ..}}: {tool}");
            tool.as_object().expect("tool object")
        }
        Format::Anthropic | Format::Mcp | Format::Gemini => tool.as_object().expect("tool object"),
    };
    let name = fields.get("name").and_then(Value::as_str).expect("tool name");
    assert!(is_portable_tool_name(name), "tool name {name:?} is not portable");
    if let Some(description) = fields.get("description") {
        assert!(description.as_str().is_some_and(|d| !d.is_empty()), "empty description");
    }
    let flag = fields.get("strict");
    // A strict definition whose schema holds an untyped node (an untyped value, a recursion
    // cut off where the format takes no `$ref`) goes out without `strict` (#31 item 5).
    let untyped = fields.get("input_schema").is_some_and(|schema| !every_node_typed(schema));
    match (format, strict) {
        (Format::Anthropic, true) if untyped => {
            assert_eq!(flag, None, "an untyped schema is not sent strict: {tool}")
        }
        (Format::Mcp | Format::Gemini, _) => assert_eq!(flag, None, "no strict flag in this format: {tool}"),
        (Format::OpenAiResponses, strict) => {
            assert_eq!(flag, Some(&Value::Bool(strict)), "Responses always writes strict: {tool}")
        }
        (_, true) => assert_eq!(flag, Some(&Value::Bool(true)), "strict tool without strict: true"),
        (_, false) => assert_eq!(flag, None, "lax tool with a strict flag: {tool}"),
    }
    if format == Format::Gemini && fields.get("parameters").is_none() {
        return; // a Gemini declaration without parameters
    }
    let schema = input_schema(format, tool);
    assert_eq!(schema["type"], "object", "input schema root must be an object: {schema}");
    assert!(schema.get("anyOf").is_none(), "input schema root must not be anyOf");
}

/// provider-rules §8 Gemini (OpenAPI-subset `Schema`): one `type` string, never an array;
/// none of the keywords the API rejects; string enums only.
pub fn assert_gemini_subset(schema: &Value) {
    for banned in [
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
    ] {
        let found = find_key(schema, banned);
        assert!(found.is_empty(), "Gemini rejects `{banned}`: {found:?}");
    }
    for (path, ty) in find_key(schema, "type") {
        assert!(ty.is_string(), "{path}: Gemini's `type` is one string, got {ty}");
    }
    for (path, values) in find_key(schema, "enum") {
        let all_strings = values.as_array().is_some_and(|v| v.iter().all(Value::is_string));
        assert!(all_strings, "{path}: Gemini enums are strings, got {values}");
    }
}

/// Parses one rendered tool definition and runs every check for `format`/`strict` on it:
/// the envelope, the common rules, and the strict subset of the provider (for OpenAI and
/// MCP strict, [`assert_closed_objects`] at every depth). Returns the parsed definition.
pub fn check_tool(format: Format, strict: bool, text: &str) -> Value {
    let tool: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("invalid JSON ({e}): {text}"));
    assert_envelope(format, strict, &tool);
    if format == Format::Gemini && tool.get("parameters").is_none() {
        return tool;
    }
    let schema = input_schema(format, &tool);
    assert_schema_basics(schema);
    match (format, strict) {
        (Format::Gemini, _) => assert_gemini_subset(schema),
        (Format::OpenAi | Format::OpenAiResponses | Format::Mcp, true) => assert_openai_strict_subset(schema),
        (Format::Anthropic, true) => assert_anthropic_strict_subset(schema),
        (_, false) => {}
    }
    tool
}

/// Like [`check_tool`] for a JSON array of tool definitions; also checks names are unique.
pub fn check_tools(format: Format, strict: bool, text: &str) -> Vec<Value> {
    let list: Vec<Value> =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("invalid JSON ({e}): {text}"));
    let checked: Vec<Value> = list.iter().map(|t| check_tool(format, strict, &t.to_string())).collect();
    let mut names: Vec<String> = checked.iter().map(|t| tool_name(format, t).to_owned()).collect();
    names.sort_unstable();
    let before = names.len();
    names.dedup();
    assert_eq!(before, names.len(), "duplicate tool names in {text}");
    checked
}

/// The name of one tool definition of `format`.
pub fn tool_name(format: Format, tool: &Value) -> &str {
    let name = match format {
        Format::OpenAi => &tool["function"]["name"],
        Format::Anthropic | Format::Mcp | Format::OpenAiResponses | Format::Gemini => &tool["name"],
    };
    name.as_str().expect("tool name")
}

/// Every key named `key` anywhere inside `value`, with its path.
pub fn find_key<'v>(value: &'v Value, key: &str) -> Vec<(String, &'v Value)> {
    let mut found = Vec::new();
    let mut stack = vec![(String::from("$"), value)];
    while let Some((path, node)) = stack.pop() {
        match node {
            Value::Object(map) => {
                for (k, v) in map {
                    if k == key {
                        found.push((format!("{path}.{k}"), v));
                    }
                    stack.push((format!("{path}.{k}"), v));
                }
            }
            Value::Array(items) => {
                stack.extend(items.iter().enumerate().map(|(i, v)| (format!("{path}[{i}]"), v)));
            }
            _ => {}
        }
    }
    found
}

// ---------------------------------------------------------------------------------------
// Deep values

/// `[[[...null...]]]` with `depth` arrays, built without recursion.
pub fn deep_array(depth: usize) -> Value {
    let mut value = Value::Null;
    for _ in 0..depth {
        value = Value::Array(vec![value]);
    }
    value
}

/// Drops `value` without recursion: `serde_json::Value`'s own drop recurses once per level
/// and overflows the stack on a 100,000-deep value.
pub fn dismantle(value: Value) {
    let mut stack = vec![value];
    while let Some(mut node) = stack.pop() {
        match &mut node {
            Value::Array(items) => stack.append(items),
            Value::Object(map) => stack.extend(std::mem::take(map).into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}
