//! The providers' rules as checks over emitted JSON (provider-rules.md §2, §3, §4, §7, §8).
//!
//! Every check returns the list of violations it found, each naming the tool and the
//! JSON path of the offending schema, so a test can print them all at once.

use std::collections::BTreeSet;
use std::fmt;

use serde_json::{Map, Value};
use toolcall_runtime::ir::MAX_SAFE_INTEGER;
use toolcall_runtime::render::Format;

/// One broken rule: which tool, where in its input schema (a JSON pointer, empty for the
/// definition itself), and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The tool's name.
    pub tool: String,
    /// JSON pointer into the input schema; empty for the tool definition itself.
    pub path: String,
    /// What is wrong.
    pub what: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}: {}", self.tool, self.path, self.what)
    }
}

fn violation(tool: &str, path: &str, what: String) -> Violation {
    Violation { tool: tool.to_owned(), path: path.to_owned(), what }
}

/// The `format` values OpenAI strict accepts (§2).
pub const OPENAI_FORMATS: [&str; 9] =
    ["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];
/// The `format` values Anthropic strict accepts (§3).
pub const ANTHROPIC_FORMATS: [&str; 10] =
    ["date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"];
/// The formats JSON Schema 2020-12 defines; anything else is non-standard.
pub const STANDARD_FORMATS: [&str; 19] = [
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
/// The keywords OpenAI strict accepts (§8, OpenAI checklist item 6). `minLength` and
/// `maxLength` are left out: they are unverified for base models and rejected for
/// fine-tuned ones, and the renderer moves them into the description.
pub const OPENAI_KEYWORDS: [&str; 22] = [
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
/// The keywords Anthropic strict accepts (§3 "Supported").
pub const ANTHROPIC_KEYWORDS: [&str; 18] = [
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "allOf",
    "enum",
    "const",
    "$ref",
    "$defs",
    "definitions",
    "description",
    "title",
    "default",
    "format",
    "pattern",
    "minItems",
];
/// JSON Schema's type names.
pub const TYPE_NAMES: [&str; 7] = ["string", "number", "integer", "boolean", "object", "array", "null"];

/// Every schema inside `schema` (itself included) with its JSON pointer, in document
/// order: `properties`, `items`, `prefixItems`, `anyOf`, `oneOf`, `allOf`, `not`,
/// `if`/`then`/`else`, `additionalProperties`, `patternProperties`, `contains`, `$defs`
/// and `definitions`.
pub fn subschemas(schema: &Value) -> Vec<(String, &Map<String, Value>)> {
    let mut out = Vec::new();
    collect(schema, String::new(), &mut out);
    out
}

fn collect<'v>(schema: &'v Value, path: String, out: &mut Vec<(String, &'v Map<String, Value>)>) {
    let Value::Object(map) = schema else { return };
    out.push((path.clone(), map));
    for (key, child) in map {
        let here = format!("{path}/{key}");
        match (key.as_str(), child) {
            ("properties" | "patternProperties" | "$defs" | "definitions", Value::Object(children)) => {
                for (name, child) in children {
                    collect(child, format!("{here}/{name}"), out);
                }
            }
            ("prefixItems" | "anyOf" | "oneOf" | "allOf", Value::Array(children)) => {
                for (i, child) in children.iter().enumerate() {
                    collect(child, format!("{here}/{i}"), out);
                }
            }
            ("items" | "additionalProperties" | "not" | "if" | "then" | "else" | "contains", _) => {
                collect(child, here, out)
            }
            _ => {}
        }
    }
}

/// The `type` names of a schema (`"string"` or `["string","null"]`).
pub fn type_names(schema: &Map<String, Value>) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(name)) => vec![name.as_str()],
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn is_object_schema(schema: &Map<String, Value>) -> bool {
    type_names(schema).contains(&"object") || schema.contains_key("properties")
}

/// The tool name in a definition of `format`.
pub fn tool_name(def: &Value, format: Format) -> Option<&str> {
    match format {
        Format::OpenAi => def.pointer("/function/name"),
        Format::Anthropic | Format::Mcp | Format::OpenAiResponses | Format::Gemini => def.get("name"),
    }
    .and_then(Value::as_str)
}

/// What a Gemini declaration without `parameters` takes: nothing.
static NO_PARAMETERS: std::sync::LazyLock<Value> =
    std::sync::LazyLock::new(|| serde_json::json!({"type": "object", "properties": {}}));

/// The input schema in a definition of `format` (for a Gemini declaration without
/// `parameters`, the empty object it stands for).
pub fn input_schema(def: &Value, format: Format) -> Option<&Value> {
    match format {
        Format::OpenAi => def.pointer("/function/parameters"),
        Format::OpenAiResponses => def.get("parameters"),
        Format::Gemini => def.get("parameters").or(Some(&NO_PARAMETERS)),
        Format::Anthropic => def.get("input_schema"),
        Format::Mcp => def.get("inputSchema"),
    }
}

/// The tool's description in a definition of `format`.
pub fn tool_description(def: &Value, format: Format) -> Option<&str> {
    match format {
        Format::OpenAi => def.pointer("/function/description"),
        Format::Anthropic | Format::Mcp | Format::OpenAiResponses | Format::Gemini => def.get("description"),
    }
    .and_then(Value::as_str)
}

/// Whether `name` is allowed as a tool name in `format`: `^[a-zA-Z0-9_-]{1,64}$` for
/// OpenAI and Anthropic; 1–128 of `[A-Za-z0-9_.-]` for MCP.
pub fn name_allowed(name: &str, format: Format) -> bool {
    let (max, dot) = match format {
        Format::OpenAi | Format::OpenAiResponses | Format::Anthropic | Format::Gemini => (64, false),
        Format::Mcp => (128, true),
    };
    (1..=max).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || (dot && b == b'.'))
}

/// Rules for every format, strict or not: the name rule, unique names, `required` entries
/// unique and declared, known `type` names, standard `format` values, integer bounds
/// within ±(2^53−1) (§7, §8 "Common"), and every `$ref` local and resolving inside the
/// input schema (§4 "MUST NOT auto-dereference network `$ref`", §8 MCP item 5).
pub fn common_violations(defs: &[Value], format: Format) -> Vec<Violation> {
    let mut out = Vec::new();
    let mut names = BTreeSet::new();
    for def in defs {
        let Some(name) = tool_name(def, format) else {
            out.push(violation("<unnamed>", "", format!("a definition without a name: {def}")));
            continue;
        };
        if !name_allowed(name, format) {
            out.push(violation(name, "", format!("the name breaks the {} name rule", format.as_str())));
        }
        if !names.insert(name) {
            out.push(violation(name, "", "the name is used twice".to_owned()));
        }
        match input_schema(def, format) {
            Some(schema) => {
                schema_violations(schema, &mut |path, what| out.push(violation(name, path, what)))
            }
            None => out.push(violation(name, "", "no input schema".to_owned())),
        }
    }
    out
}

fn schema_violations(schema: &Value, report: &mut dyn FnMut(&str, String)) {
    ref_violations(schema, report);
    for (path, node) in subschemas(schema) {
        for name in type_names(node) {
            if !TYPE_NAMES.contains(&name) {
                report(&path, format!("unknown type {name:?}"));
            }
        }
        if let Some(format) = node.get("format").and_then(Value::as_str)
            && !STANDARD_FORMATS.contains(&format)
        {
            report(&path, format!("non-standard format {format:?}"));
        }
        required_violations(node, &path, report);
        for key in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
            if let Some(bound) = node.get(key)
                && !safe_bound(bound)
            {
                report(&path, format!("{key} {bound} lies outside ±(2^53−1)"));
            }
        }
    }
}

/// The JSON pointer a local `$ref` names (`#/$defs/a%20b` -> `/$defs/a b`), if it is one:
/// a fragment, percent-decoded.
pub fn ref_pointer(target: &str) -> Option<String> {
    let fragment = target.strip_prefix('#')?;
    let bytes = fragment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Every `$ref` in `schema` with its path and target, in document order.
pub fn refs(schema: &Value) -> Vec<(String, &str)> {
    subschemas(schema)
        .into_iter()
        .filter_map(|(path, node)| node.get("$ref").and_then(Value::as_str).map(|t| (path, t)))
        .collect()
}

/// A `$ref` must be local and resolve: a JSON pointer to a schema inside the same input
/// schema (its root is the document: definitions are its `$defs`).
fn ref_violations(schema: &Value, report: &mut dyn FnMut(&str, String)) {
    for (path, target) in refs(schema) {
        match ref_pointer(target) {
            None => report(&path, format!("`$ref` {target:?} is not local")),
            Some(pointer) if !schema.pointer(&pointer).is_some_and(Value::is_object) => {
                report(&path, format!("`$ref` {target:?} does not resolve inside the schema"))
            }
            Some(_) => {}
        }
    }
}

/// Whether the schema at local `$ref` `target` reaches `target` again through the `$ref`s
/// inside it (directly or through other targets): a recursive schema.
pub fn is_recursive_ref(schema: &Value, target: &str) -> bool {
    let mut queue = vec![target.to_owned()];
    let mut seen: Vec<String> = Vec::new();
    while let Some(next) = queue.pop() {
        if seen.contains(&next) {
            continue;
        }
        let Some(node) = ref_pointer(&next).and_then(|p| schema.pointer(&p)) else { continue };
        for (_, inner) in refs(node) {
            if inner == target {
                return true;
            }
            queue.push(inner.to_owned());
        }
        seen.push(next);
    }
    false
}

/// Whether a numeric bound is a finite number within ±(2^53−1).
pub fn safe_bound(bound: &Value) -> bool {
    let limit = MAX_SAFE_INTEGER as f64;
    match bound {
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => i.unsigned_abs() <= MAX_SAFE_INTEGER.unsigned_abs(),
            (None, Some(_), _) => false,
            (None, None, Some(f)) => f.is_finite() && f.abs() <= limit,
            _ => false,
        },
        _ => false,
    }
}

fn required_violations(node: &Map<String, Value>, path: &str, report: &mut dyn FnMut(&str, String)) {
    let Some(required) = node.get("required") else { return };
    let Some(required) = required.as_array() else {
        report(path, "`required` is not an array".to_owned());
        return;
    };
    let properties = node.get("properties").and_then(Value::as_object);
    let mut seen = BTreeSet::new();
    for entry in required {
        let Some(key) = entry.as_str() else {
            report(path, format!("`required` holds {entry}"));
            continue;
        };
        if !seen.insert(key) {
            report(path, format!("`required` lists {key:?} twice"));
        }
        if !properties.is_some_and(|p| p.contains_key(key)) {
            report(path, format!("`required` lists {key:?}, which is not in `properties`"));
        }
    }
}

/// OpenAI Chat Completions strict (§2, §8 OpenAI checklist): shape, root, closed objects
/// with every property required, the keyword allow-list, the nine formats, lone local
/// `$ref`s and the budgets.
pub fn openai_strict_violations(defs: &[Value]) -> Vec<Violation> {
    let mut out = Vec::new();
    if defs.len() > 128 {
        out.push(violation("<all>", "", format!("{} tools; OpenAI accepts at most 128", defs.len())));
    }
    for def in defs {
        let name = tool_name(def, Format::OpenAi).unwrap_or("<unnamed>");
        let mut report = |path: &str, what: String| out.push(violation(name, path, what));
        openai_shape(def, &mut report);
        let Some(schema) = def.pointer("/function/parameters") else { continue };
        strict_root(schema, &mut report);
        for (path, node) in subschemas(schema) {
            closed_object(node, &path, true, &mut report);
            allowed_keywords(node, &path, &OPENAI_KEYWORDS, &mut report);
            allowed_format(node, &path, &OPENAI_FORMATS, &mut report);
            lone_local_ref(node, &path, &mut report);
            typed(node, &path, &mut report);
        }
        budgets(schema, &mut report);
    }
    out
}

fn openai_shape(def: &Value, report: &mut dyn FnMut(&str, String)) {
    if def.get("type") != Some(&Value::String("function".into())) {
        report("", "`type` is not \"function\"".to_owned());
    }
    let keys: BTreeSet<&str> =
        def.as_object().map(|m| m.keys().map(String::as_str).collect()).unwrap_or_default();
    if keys != BTreeSet::from(["type", "function"]) {
        report("", format!("the envelope has keys {keys:?}"));
    }
    let Some(function) = def.get("function").and_then(Value::as_object) else {
        report("", "no `function` object".to_owned());
        return;
    };
    for key in function.keys() {
        if !["name", "description", "parameters", "strict"].contains(&key.as_str()) {
            report("", format!("unknown key `function.{key}`"));
        }
    }
    if function.get("strict") != Some(&Value::Bool(true)) {
        report("", "`function.strict` is not true".to_owned());
    }
    if !function.get("parameters").is_some_and(Value::is_object) {
        report("", "`function.parameters` is not an object".to_owned());
    }
}

fn strict_root(schema: &Value, report: &mut dyn FnMut(&str, String)) {
    if schema.get("type") != Some(&Value::String("object".into())) {
        report("", "the root schema is not `type: object`".to_owned());
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if schema.get(key).is_some() {
            report("", format!("the root schema uses {key}"));
        }
    }
}

/// Every object: `additionalProperties: false`, and (`all_required`) `required` listing
/// exactly the keys of `properties`.
fn closed_object(
    node: &Map<String, Value>,
    path: &str,
    all_required: bool,
    report: &mut dyn FnMut(&str, String),
) {
    if !is_object_schema(node) {
        if node.contains_key("additionalProperties") {
            report(path, "`additionalProperties` on a schema that is not an object".to_owned());
        }
        return;
    }
    if node.get("additionalProperties") != Some(&Value::Bool(false)) {
        report(path, "an object without `additionalProperties: false`".to_owned());
    }
    if !all_required {
        return;
    }
    let properties: BTreeSet<&str> = node
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let required: BTreeSet<&str> = node
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if !node.contains_key("properties") || !node.contains_key("required") {
        report(path, "an object without both `properties` and `required`".to_owned());
    }
    if properties != required {
        let missing: Vec<&&str> = properties.difference(&required).collect();
        report(path, format!("`required` is not every property; missing {missing:?}"));
    }
}

fn allowed_keywords(
    node: &Map<String, Value>,
    path: &str,
    allowed: &[&str],
    report: &mut dyn FnMut(&str, String),
) {
    for key in node.keys() {
        if !allowed.contains(&key.as_str()) {
            report(path, format!("keyword `{key}` is not accepted"));
        }
    }
}

fn allowed_format(
    node: &Map<String, Value>,
    path: &str,
    allowed: &[&str],
    report: &mut dyn FnMut(&str, String),
) {
    if let Some(format) = node.get("format") {
        if !format.as_str().is_some_and(|f| allowed.contains(&f)) {
            report(path, format!("format {format} is not accepted"));
        }
        if !type_names(node).contains(&"string") {
            report(path, "`format` on a schema that is not a string".to_owned());
        }
    }
}

/// OpenAI strict rejects a schema with no `type` ("schema must have a 'type' key" [obs],
/// e.g. `{}` for an untyped value); `anyOf` and `$ref` nodes take their branches' types.
fn typed(node: &Map<String, Value>, path: &str, report: &mut dyn FnMut(&str, String)) {
    if !node.contains_key("type") && !node.contains_key("anyOf") && !node.contains_key("$ref") {
        report(path, "a schema without `type` (OpenAI: \"schema must have a 'type' key\")".to_owned());
    }
}

fn lone_local_ref(node: &Map<String, Value>, path: &str, report: &mut dyn FnMut(&str, String)) {
    if let Some(target) = node.get("$ref") {
        if node.len() > 1 {
            report(path, "`$ref` with sibling keywords".to_owned());
        }
        if !target.as_str().is_some_and(|t| t.starts_with('#')) {
            report(path, format!("non-local `$ref` {target}"));
        }
    }
}

/// Sizes of one schema, for OpenAI's budgets (§2 "Limits").
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Budget {
    /// Object properties, in total.
    pub properties: usize,
    /// Deepest nesting, counting objects and arrays (to fail closed, §8).
    pub nesting: usize,
    /// Enum values, in total.
    pub enum_values: usize,
    /// Characters of property names, enum values and consts.
    pub chars: usize,
    /// Per enum of more than 250 values, its characters.
    pub large_enum_chars: Vec<usize>,
}

/// Measures `schema` for OpenAI's budgets.
pub fn budget(schema: &Value) -> Budget {
    let mut b = Budget::default();
    measure(schema, 0, &mut b);
    b
}

fn measure(schema: &Value, depth: usize, b: &mut Budget) {
    let Value::Object(node) = schema else { return };
    let names = type_names(node);
    let level = usize::from(names.contains(&"object") || names.contains(&"array"));
    let depth = depth + level;
    b.nesting = b.nesting.max(depth);
    if let Some(Value::Object(properties)) = node.get("properties") {
        b.properties += properties.len();
        b.chars += properties.keys().map(|k| k.chars().count()).sum::<usize>();
    }
    if let Some(Value::Array(values)) = node.get("enum") {
        b.enum_values += values.len();
        let chars: usize = values.iter().filter_map(Value::as_str).map(|s| s.chars().count()).sum();
        b.chars += chars;
        if values.len() > 250 {
            b.large_enum_chars.push(chars);
        }
    }
    if let Some(Value::String(value)) = node.get("const") {
        b.chars += value.chars().count();
    }
    for (key, child) in node {
        match (key.as_str(), child) {
            ("properties" | "$defs" | "definitions", Value::Object(children)) => {
                children.values().for_each(|c| measure(c, depth, b))
            }
            ("anyOf" | "oneOf" | "allOf" | "prefixItems", Value::Array(children)) => {
                children.iter().for_each(|c| measure(c, depth, b))
            }
            ("items" | "additionalProperties", _) => measure(child, depth, b),
            _ => {}
        }
    }
}

fn budgets(schema: &Value, report: &mut dyn FnMut(&str, String)) {
    let b = budget(schema);
    if b.properties > 5000 {
        report("", format!("{} properties; OpenAI strict allows 5000", b.properties));
    }
    if b.nesting > 10 {
        report("", format!("{} levels of nesting; OpenAI strict allows 10", b.nesting));
    }
    if b.enum_values > 1000 {
        report("", format!("{} enum values; OpenAI strict allows 1000", b.enum_values));
    }
    if b.chars > 120_000 {
        report("", format!("{} characters of names and values; OpenAI strict allows 120000", b.chars));
    }
    for chars in b.large_enum_chars {
        if chars > 15_000 {
            report("", format!("an enum over 250 values holds {chars} characters; OpenAI allows 15000"));
        }
    }
}

/// Anthropic strict (§3, §8 Anthropic checklist): name and root, closed objects, the
/// keyword allow-list (no numeric or length limits, `minItems` only 0 or 1), the ten
/// formats, primitive enums, no recursion, local `$ref`s, pattern syntax, and the
/// per-tool share of the request limits.
pub fn anthropic_strict_violations(defs: &[Value]) -> Vec<Violation> {
    let mut out = Vec::new();
    for def in defs {
        let name = tool_name(def, Format::Anthropic).unwrap_or("<unnamed>");
        let mut report = |path: &str, what: String| out.push(violation(name, path, what));
        let Some(schema) = def.get("input_schema") else {
            report("", "no `input_schema`".to_owned());
            continue;
        };
        // A schema with a node that has no type (an untyped value, a recursion cut off)
        // goes out without `strict`: Anthropic's SDK refuses it strict (#31 item 5).
        let typed = toolcall_runtime::render::every_node_typed(schema);
        match def.get("strict") {
            Some(Value::Bool(true)) if !typed => {
                report("", "`strict` on a schema with an untyped node".to_owned())
            }
            Some(Value::Bool(true)) => {}
            None if !typed => {}
            _ => report("", "`strict` is not true".to_owned()),
        }
        if schema.get("type") != Some(&Value::String("object".into())) {
            report("", "`input_schema` is not `type: object`".to_owned());
        }
        for (path, node) in subschemas(schema) {
            closed_object(node, &path, false, &mut report);
            allowed_keywords(node, &path, &ANTHROPIC_KEYWORDS, &mut report);
            allowed_format(node, &path, &ANTHROPIC_FORMATS, &mut report);
            anthropic_node(node, &path, &mut report);
            if let Some(target) = node.get("$ref").and_then(Value::as_str)
                && is_recursive_ref(schema, target)
            {
                report(&path, format!("recursive `$ref` {target} (through the schemas it refers to)"));
            }
        }
        let (optional, unions) = anthropic_counts(schema);
        if optional > 24 || unions > 16 {
            report(
                "",
                format!("{optional} optional and {unions} union properties; one request allows 24 and 16"),
            );
        }
    }
    out
}

fn anthropic_node(node: &Map<String, Value>, path: &str, report: &mut dyn FnMut(&str, String)) {
    if let Some(min) = node.get("minItems")
        && !matches!(min.as_u64(), Some(0 | 1))
    {
        report(path, format!("minItems {min}; only 0 or 1 is accepted"));
    }
    if let Some(Value::Array(values)) = node.get("enum")
        && values.iter().any(|v| v.is_object() || v.is_array())
    {
        report(path, "an enum with non-primitive values".to_owned());
    }
    if let Some(target) = node.get("$ref") {
        let local = target.as_str().is_some_and(|t| t.starts_with('#'));
        if !local {
            report(path, format!("external `$ref` {target}"));
        } else if target.as_str().is_some_and(|t| path.starts_with(t.trim_start_matches('#')) || t == "#") {
            report(path, format!("recursive `$ref` {target}"));
        }
        if node.contains_key("allOf") {
            report(path, "`allOf` together with `$ref`".to_owned());
        }
    }
    if let Some(pattern) = node.get("pattern").and_then(Value::as_str)
        && let Some(problem) = pattern_problem(pattern)
    {
        report(path, format!("pattern {pattern:?}: {problem}"));
    }
}

/// Optional properties (not in `required`) and properties using `anyOf` or a type array,
/// over every object of `schema`: what Anthropic limits per request (24 and 16, §3).
pub fn anthropic_counts(schema: &Value) -> (usize, usize) {
    let (mut optional, mut unions) = (0, 0);
    for (_, node) in subschemas(schema) {
        let Some(Value::Object(properties)) = node.get("properties") else { continue };
        let required: BTreeSet<&str> = node
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for (key, property) in properties {
            optional += usize::from(!required.contains(key.as_str()));
            unions += usize::from(
                property.get("anyOf").is_some() || property.get("type").is_some_and(Value::is_array),
            );
        }
    }
    (optional, unions)
}

/// What Anthropic strict (and llguidance) reject in a `pattern`: backreferences,
/// lookarounds, `\b`/`\B`, and repetition counts above 100 (taken as "large").
pub fn pattern_problem(pattern: &str) -> Option<String> {
    for (needle, what) in
        [("(?=", "lookahead"), ("(?!", "lookahead"), ("(?<=", "lookbehind"), ("(?<!", "lookbehind")]
    {
        if pattern.contains(needle) {
            return Some(format!("{what} `{needle}`"));
        }
    }
    let bytes = pattern.as_bytes();
    for (i, pair) in bytes.windows(2).enumerate() {
        let escaped = pair[0] == b'\\' && (i == 0 || bytes[i - 1] != b'\\');
        if escaped && (pair[1] == b'b' || pair[1] == b'B') {
            return Some("word boundary".to_owned());
        }
        if escaped && pair[1].is_ascii_digit() && pair[1] != b'0' {
            return Some("backreference".to_owned());
        }
    }
    let counts = pattern.split('{').skip(1).filter_map(|rest| rest.split_once('}')).map(|(body, _)| body);
    for body in counts {
        let large = body.split(',').filter_map(|n| n.trim().parse::<u64>().ok()).any(|n| n > 100);
        if large {
            return Some(format!("large repetition {{{body}}}"));
        }
    }
    None
}

/// MCP `tools/list` entries (§4, §8 MCP checklist): `inputSchema` an object with
/// `type: "object"`, no network `$ref`, `$schema` absent or 2020-12.
pub fn mcp_violations(defs: &[Value]) -> Vec<Violation> {
    let mut out = Vec::new();
    for def in defs {
        let name = tool_name(def, Format::Mcp).unwrap_or("<unnamed>");
        let Some(schema) = def.get("inputSchema") else {
            out.push(violation(name, "", "no inputSchema".to_owned()));
            continue;
        };
        if schema.get("type") != Some(&Value::String("object".into())) {
            out.push(violation(name, "", "inputSchema is not `type: object`".to_owned()));
        }
        if let Some(dialect) = schema.get("$schema")
            && dialect != "https://json-schema.org/draft/2020-12/schema"
        {
            out.push(violation(name, "", format!("$schema {dialect}")));
        }
        for (path, node) in subschemas(schema) {
            if let Some(target) = node.get("$ref")
                && !target.as_str().is_some_and(|t| t.starts_with('#'))
            {
                out.push(violation(name, &path, format!("non-local $ref {target}")));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn openai(parameters: Value) -> Vec<String> {
        to_strings(openai_strict_violations(&[
            json!({"type":"function","function":{"name":"t","parameters":parameters,"strict":true}}),
        ]))
    }

    fn to_strings(violations: Vec<Violation>) -> Vec<String> {
        violations.iter().map(ToString::to_string).collect()
    }

    fn anthropic(schema: Value) -> Vec<String> {
        to_strings(anthropic_strict_violations(&[json!({"name":"t","input_schema":schema,"strict":true})]))
    }

    #[test]
    fn a_conforming_openai_strict_tool_passes() {
        let ok = openai(
            json!({"type":"object","properties":{"a":{"type":["string","null"],"format":"date"}},"required":["a"],"additionalProperties":false}),
        );
        assert!(ok.is_empty(), "{ok:?}");
    }

    #[test]
    fn openai_strict_catches_each_rule() {
        let cases = [
            (
                json!({"type":"object","properties":{"u":{"type":"string","format":"uri"}},"required":["u"],"additionalProperties":false}),
                "format \"uri\"",
            ),
            (
                json!({"type":"object","properties":{"a":{"type":"string"}},"required":[],"additionalProperties":false}),
                "missing [\"a\"]",
            ),
            (json!({"type":"object","properties":{},"required":[]}), "additionalProperties: false"),
            (
                json!({"type":"object","properties":{"s":{"type":"array","items":{},"uniqueItems":true}},"required":["s"],"additionalProperties":false}),
                "`uniqueItems`",
            ),
            (
                json!({"type":"object","properties":{"s":{"type":"string","minLength":1}},"required":["s"],"additionalProperties":false}),
                "`minLength`",
            ),
            (
                json!({"type":"object","properties":{"s":{"type":"integer","default":1}},"required":["s"],"additionalProperties":false}),
                "`default`",
            ),
            (json!({"anyOf":[{"type":"object"}]}), "root schema uses anyOf"),
            (
                json!({"type":"object","properties":{"v":{"description":"any"}},"required":["v"],"additionalProperties":false}),
                "without `type`",
            ),
            (
                json!({"type":"object","properties":{"r":{"$ref":"#/$defs/x","description":"d"}},"required":["r"],"additionalProperties":false}),
                "sibling",
            ),
        ];
        for (schema, expected) in cases {
            let found = openai(schema.clone());
            assert!(
                found.iter().any(|v| v.contains(expected)),
                "{expected} not caught in {schema}: {found:?}"
            );
        }
    }

    #[test]
    fn openai_budgets_count_nesting_and_enum_values() {
        let deep = (0..11).fold(json!({"type":"string"}), |inner, _| {
            json!({"type":"object","properties":{"x":inner},"required":["x"],"additionalProperties":false})
        });
        assert_eq!(budget(&deep).nesting, 11);
        assert!(openai(deep).iter().any(|v| v.contains("11 levels")));
        let values: Vec<String> = (0..1001).map(|i| format!("v{i}")).collect();
        let wide = json!({"type":"object","properties":{"e":{"type":"string","enum":values}},"required":["e"],"additionalProperties":false});
        assert!(openai(wide).iter().any(|v| v.contains("1001 enum values")));
    }

    #[test]
    fn anthropic_strict_catches_each_rule() {
        let cases = [
            (
                json!({"type":"object","properties":{"n":{"type":"integer","minimum":0}},"additionalProperties":false}),
                "`minimum`",
            ),
            (
                json!({"type":"object","properties":{"s":{"type":"string","maxLength":3}},"additionalProperties":false}),
                "`maxLength`",
            ),
            (
                json!({"type":"object","properties":{"a":{"type":"array","items":{},"minItems":2}},"additionalProperties":false}),
                "minItems 2",
            ),
            (
                json!({"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"integer"}}},"additionalProperties":false}),
                "additionalProperties: false",
            ),
            (
                json!({"type":"object","properties":{"d":{"type":"string","format":"uint32"}},"additionalProperties":false}),
                "format \"uint32\"",
            ),
            (
                json!({"type":"object","properties":{"p":{"type":"string","pattern":"^(?=a)"}},"additionalProperties":false}),
                "lookahead",
            ),
            (
                json!({"type":"object","properties":{"t":{"$ref":"#"}},"additionalProperties":false}),
                "recursive",
            ),
        ];
        for (schema, expected) in cases {
            let found = anthropic(schema.clone());
            assert!(
                found.iter().any(|v| v.contains(expected)),
                "{expected} not caught in {schema}: {found:?}"
            );
        }
        let ok = anthropic(
            json!({"type":"object","properties":{"u":{"type":"string","format":"uri"},"a":{"type":"array","items":{"type":"string"},"minItems":1}},"required":["u"],"additionalProperties":false}),
        );
        assert!(ok.is_empty(), "{ok:?}");
    }

    #[test]
    fn refs_must_resolve_and_anthropic_strict_refuses_recursion_through_defs() {
        let def = |schema: Value| json!({"name": "t", "inputSchema": schema});
        let dangling = def(json!({"type":"object","properties":{"a":{"$ref":"#/$defs/Missing"}}}));
        let remote = def(json!({"type":"object","properties":{"a":{"$ref":"https://x.test/s.json"}}}));
        // Escapes are decoded, as JSON Schema says (the renderer writes keys that need none).
        let escaped = def(
            json!({"type":"object","properties":{"a":{"$ref":"#/$defs/a%20b~1c"}},"$defs":{"a b/c":{"type":"string"}}}),
        );
        let found = to_strings(common_violations(&[dangling, remote], Format::Mcp));
        assert!(found.iter().any(|v| v.contains("does not resolve")), "{found:?}");
        assert!(found.iter().any(|v| v.contains("is not local")), "{found:?}");
        assert!(common_violations(&[escaped], Format::Mcp).is_empty());
        // A pair that refer to each other: no `$ref` sits inside its own target's path.
        let pair = json!({"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"additionalProperties":false,
            "$defs":{"A":{"type":"object","properties":{"b":{"$ref":"#/$defs/B"}},"additionalProperties":false},
                     "B":{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"additionalProperties":false}}});
        let found = anthropic(pair);
        assert!(found.iter().any(|v| v.contains("recursive `$ref` #/$defs/A")), "{found:?}");
        let flat = json!({"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"additionalProperties":false,
            "$defs":{"A":{"type":"string"}}});
        assert!(anthropic(flat).is_empty());
    }

    #[test]
    fn common_rules_catch_names_bounds_formats_and_required() {
        let def = |name: &str, schema: Value| json!({"name": name, "inputSchema": schema});
        let defs = [
            def("a.b", json!({"type":"object"})),
            def(
                "x",
                json!({"type":"object","properties":{"n":{"type":"integer","minimum":-9223372036854775808_i64}}}),
            ),
            def(
                "y",
                json!({"type":"object","properties":{"n":{"type":"integer","maximum":18446744073709551615_u64}}}),
            ),
            def(
                "z",
                json!({"type":"object","properties":{"n":{"type":"string","format":"uint32"}},"required":["n","n","m"]}),
            ),
            def("z", json!({"type":"object"})),
        ];
        let found = to_strings(common_violations(&defs, Format::Mcp));
        for expected in [
            "outside ±(2^53−1)",
            "non-standard format",
            "lists \"n\" twice",
            "\"m\", which is not",
            "used twice",
        ] {
            assert!(found.iter().any(|v| v.contains(expected)), "{expected}: {found:?}");
        }
        assert!(!found.iter().any(|v| v.starts_with("a.b")), "dots are allowed in MCP: {found:?}");
        let anthropic_defs = [json!({"name":"a.b","input_schema":{"type":"object"}})];
        assert!(common_violations(&anthropic_defs, Format::Anthropic)[0].what.contains("name rule"));
        assert!(name_allowed(&"x".repeat(128), Format::Mcp) && !name_allowed(&"x".repeat(129), Format::Mcp));
        assert!(
            name_allowed(&"x".repeat(64), Format::OpenAi) && !name_allowed(&"x".repeat(65), Format::OpenAi)
        );
    }
}
