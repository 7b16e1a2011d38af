//! IR -> JSON schema text, for every provider format, from one renderer.
//!
//! A [`Format`] and a `strict` flag pick a [`Settings`] value: plain data saying which
//! keywords the target accepts and what happens to the rest (dropped, or moved into the
//! description so the model still sees the constraint). The renderer walks the IR once and
//! writes JSON text directly, so key order is fixed: properties in declaration order, every
//! other key in the order this module writes them. Same IR in, same bytes out.
//!
//! A tool's [`Definition`]s (recursive types) become `$defs` of its input schema, used
//! through `{"$ref": "#/$defs/<name>"}`, where the format takes references (OpenAI, MCP,
//! Anthropic without strict). Gemini's `parameters` and Anthropic strict take no recursive
//! schema: there each use is written out, [`INLINED_LEVELS`] levels deep per definition,
//! then `{}` with a note. OpenAI strict needs a `type` on every schema, so an untyped value
//! there is a reference to the definition [`JSON_VALUE`]: any JSON value whose objects are
//! empty (strict mode closes every object).
//!
//! ```
//! use toolcall_runtime::ir::{Param, Tool, Type};
//! use toolcall_runtime::render::{render_tool, Format};
//!
//! let tool = Tool::new("echo").param(Param::new("text", Type::string()));
//! let json = render_tool(&tool, Format::Anthropic, false);
//! assert!(json.starts_with(r#"{"name":"echo","input_schema":"#));
//! ```

use std::cell::Cell;
use std::fmt::Write as _;

use serde_json::Value;

use crate::ir::{
    Definition, EnumVariant, MAX_SAFE_INTEGER, MIN_SAFE_INTEGER, Param, Tool, Type, Width, find_definition,
};

/// A provider's tool-definition format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    /// OpenAI Chat Completions: `{"type":"function","function":{..,"parameters":..}}`.
    OpenAi,
    /// Anthropic Messages: `{"name",..,"input_schema":..}`.
    Anthropic,
    /// Model Context Protocol: `{"name",..,"inputSchema":..}`.
    Mcp,
    /// OpenAI Responses: the flat `{"type":"function","name",..,"parameters":..,"strict":..}`,
    /// with `strict` always written (omitted, the API would make the schema strict).
    OpenAiResponses,
    /// Google Gemini: a `functionDeclarations` entry `{"name",..,"parameters":..}` with the
    /// OpenAPI-subset `Schema`: one `type` string, `nullable: true` for a null option, no
    /// `additionalProperties`, `anyOf` for unions. Gemini has no strict mode: the strict
    /// variant is the same text as the lax one.
    Gemini,
}

impl Format {
    /// Every format, in a fixed order.
    pub const ALL: [Format; 5] =
        [Format::OpenAi, Format::Anthropic, Format::Mcp, Format::OpenAiResponses, Format::Gemini];

    /// The lower-case name used on command lines (`openai`, `anthropic`, `mcp`, `responses`).
    pub fn as_str(self) -> &'static str {
        match self {
            Format::OpenAi => "openai",
            Format::Anthropic => "anthropic",
            Format::Mcp => "mcp",
            Format::OpenAiResponses => "responses",
            Format::Gemini => "gemini",
        }
    }

    /// Parses `openai`, `anthropic`, `mcp`, `responses` or `gemini`.
    pub fn parse(text: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.as_str() == text)
    }

    /// Index of this format in [`Format::ALL`]; used to lay out precomputed tables.
    pub const fn index(self) -> usize {
        match self {
            Format::OpenAi => 0,
            Format::Anthropic => 1,
            Format::Mcp => 2,
            Format::OpenAiResponses => 3,
            Format::Gemini => 4,
        }
    }
}

/// The `format` values OpenAI strict mode accepts.
pub const OPENAI_STRICT_FORMATS: &[&str] =
    &["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];
/// The `format` values Anthropic strict mode accepts.
pub const ANTHROPIC_STRICT_FORMATS: &[&str] =
    &["date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"];

/// The `format` values Gemini's OpenAPI-subset `Schema` accepts on strings.
pub const GEMINI_FORMATS: &[&str] = &["email", "byte", "date", "date-time", "password"];

/// Where a format takes no `$ref`, how many times one definition is written out on one
/// path before the rest of it is `{}` (with a note naming it).
pub const INLINED_LEVELS: usize = 2;

/// The name of the definition an untyped value refers to where the format needs a `type`
/// on every schema (OpenAI strict): not a Rust identifier, so no local type takes it.
pub const JSON_VALUE: &str = "json-value";

/// The schema of [`JSON_VALUE`]: any JSON value, with objects only empty (strict mode closes
/// every object, and a closed object without properties is `{}`).
const JSON_VALUE_SCHEMA: &str = concat!(
    r#"{"anyOf":[{"type":"string"},{"type":"number"},{"type":"boolean"},{"type":"null"},"#,
    r##"{"type":"array","items":{"$ref":"#/$defs/json-value"}},"##,
    r#"{"type":"object","properties":{},"required":[],"additionalProperties":false}]}"#
);

/// What a target accepts, as data. One renderer reads it; nothing is copied per provider.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The tool-definition envelope.
    pub format: Format,
    /// Write `"strict": true` on the tool.
    pub strict_flag: bool,
    /// Every property is listed in `required`; optional ones are widened to nullable.
    pub all_required: bool,
    /// Open objects (maps) are closed too (`additionalProperties: false`).
    pub close_maps: bool,
    /// `default` is written.
    pub defaults: bool,
    /// The `format` values kept in the schema; `None` keeps all.
    pub formats: Option<&'static [&'static str]>,
    /// `minimum`/`maximum` are kept (else moved into the description).
    pub numeric_limits: bool,
    /// `minLength`/`maxLength` are kept (else moved into the description).
    pub length_limits: bool,
    /// `minItems`/`maxItems` are kept; when false only `minItems` of 0 or 1 stays.
    pub item_limits: bool,
    /// `uniqueItems` is kept (else moved into the description).
    pub unique_items: bool,
    /// Tuples use `prefixItems` (else only their length is kept).
    pub prefix_items: bool,
    /// `oneOf` is kept (else written as `anyOf`).
    pub one_of: bool,
    /// Objects say `additionalProperties` (closed objects `false`, maps their value schema);
    /// else objects are written open and a map's value type goes into the description.
    pub additional_properties: bool,
    /// A null option is written `"nullable": true` (OpenAPI) rather than with a `null` type.
    pub nullable_keyword: bool,
    /// A plain type or null may be one `type` array (`["string","null"]`); else it is an
    /// `anyOf` of the type and `{"type":"null"}` (Anthropic's SDK takes one type name only).
    pub type_arrays: bool,
    /// Definitions are `$defs` used through `$ref`; else each use is written out
    /// ([`INLINED_LEVELS`] deep, then `{}`).
    pub refs: bool,
    /// A `$ref` may carry `description` and `default` beside it; else such a reference is
    /// a one-branch `anyOf` (OpenAI strict wants a `$ref` alone).
    pub ref_siblings: bool,
    /// An untyped value refers to [`JSON_VALUE`] instead of being `{}` (a schema without
    /// `type`, which OpenAI strict rejects).
    pub typed_any: bool,
}

impl Settings {
    /// The settings for `format`, strict or not.
    pub const fn new(format: Format, strict: bool) -> Settings {
        let lax = Settings {
            format,
            strict_flag: false,
            all_required: false,
            close_maps: false,
            defaults: true,
            formats: None,
            numeric_limits: true,
            length_limits: true,
            item_limits: true,
            unique_items: true,
            prefix_items: true,
            one_of: true,
            additional_properties: true,
            nullable_keyword: false,
            type_arrays: true,
            refs: true,
            ref_siblings: true,
            typed_any: false,
        };
        if matches!(format, Format::Gemini) {
            return Settings {
                formats: Some(GEMINI_FORMATS),
                unique_items: false,
                prefix_items: false,
                one_of: false,
                additional_properties: false,
                nullable_keyword: true,
                refs: false,
                ..lax
            };
        }
        if !strict {
            return lax;
        }
        match format {
            Format::OpenAi | Format::OpenAiResponses | Format::Mcp => Settings {
                strict_flag: !matches!(format, Format::Mcp),
                all_required: true,
                close_maps: true,
                defaults: false,
                formats: Some(OPENAI_STRICT_FORMATS),
                length_limits: false,
                unique_items: false,
                prefix_items: false,
                one_of: false,
                ref_siblings: false,
                typed_any: true,
                ..lax
            },
            // Handled above: Gemini has no strict mode.
            Format::Gemini => lax,
            Format::Anthropic => Settings {
                strict_flag: true,
                close_maps: true,
                formats: Some(ANTHROPIC_STRICT_FORMATS),
                numeric_limits: false,
                length_limits: false,
                item_limits: false,
                unique_items: false,
                prefix_items: false,
                one_of: false,
                // "Recursive schemas" are not supported (provider-rules §3).
                refs: false,
                // `transform_schema` refuses a `type` that is not one name.
                type_arrays: false,
                ref_siblings: false,
                ..lax
            },
        }
    }
}

/// Renders one tool definition in `format`.
pub fn render_tool(tool: &Tool, format: Format, strict: bool) -> String {
    let mut out = String::with_capacity(capacity_for(tool));
    write_tool(Settings::new(format, strict), tool, &mut out);
    out
}

/// Renders a JSON array of tool definitions in `format`.
pub fn render_tools<'a>(tools: impl IntoIterator<Item = &'a Tool>, format: Format, strict: bool) -> String {
    let settings = Settings::new(format, strict);
    let mut out = String::with_capacity(1024);
    write_array(&mut out, tools, |out, tool| write_tool(settings, tool, out));
    out
}

/// Renders only the input schema of `tool` (the `parameters` object, with its `$defs`).
pub fn render_input_schema(tool: &Tool, format: Format, strict: bool) -> String {
    let mut out = String::with_capacity(256);
    let cx = Context::new(&tool.defs);
    Renderer::new(Scope::new(Settings::new(format, strict), &cx), &mut out).root(&tool.params);
    out
}

/// Renders a result type as MCP's `outputSchema`: plain JSON Schema (never strict: it
/// describes what the tool returns, not what a model generates).
pub fn render_output_schema(ty: &Type) -> String {
    render_type(ty, Format::Mcp, false)
}

/// Renders a type alone as a schema (no tool envelope). It has no definitions to refer
/// to: a [`Type::Ref`] in it is a dangling `$ref` (or `{}` where the format inlines).
pub fn render_type(ty: &Type, format: Format, strict: bool) -> String {
    let mut out = String::with_capacity(64);
    let cx = Context::new(&[]);
    let mut renderer = Renderer::new(Scope::new(Settings::new(format, strict), &cx), &mut out);
    renderer.schema(ty, "", None);
    renderer.definitions();
    out
}

/// A tool's stored input schemas, one per distinct rendering: formats whose settings differ
/// only in the envelope (the key the schema goes under, the `strict` flag) take the same
/// text. [`ToolInfo`](crate::ToolInfo) holds one of each, and [`render_infos`] picks the
/// one a format takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// Every format but Gemini, not strict: plain JSON Schema.
    Lax,
    /// OpenAI Chat Completions, OpenAI Responses and MCP, strict.
    Strict,
    /// Anthropic, strict.
    AnthropicStrict,
    /// Gemini (which has no strict mode).
    Gemini,
}

impl InputKind {
    /// Every kind, in a fixed order.
    pub const ALL: [InputKind; 4] =
        [InputKind::Lax, InputKind::Strict, InputKind::AnthropicStrict, InputKind::Gemini];

    /// The kind `format` takes, strict or not.
    pub const fn of(format: Format, strict: bool) -> InputKind {
        match (format, strict) {
            (Format::Gemini, _) => InputKind::Gemini,
            (_, false) => InputKind::Lax,
            (Format::Anthropic, true) => InputKind::AnthropicStrict,
            (Format::OpenAi | Format::OpenAiResponses | Format::Mcp, true) => InputKind::Strict,
        }
    }

    /// A format and strictness of this kind, to render its schema with.
    pub const fn representative(self) -> (Format, bool) {
        match self {
            InputKind::Lax => (Format::Mcp, false),
            InputKind::Strict => (Format::OpenAi, true),
            InputKind::AnthropicStrict => (Format::Anthropic, true),
            InputKind::Gemini => (Format::Gemini, false),
        }
    }
}

/// Renders `tool`'s input schema of `kind` as [`ToolInfo`](crate::ToolInfo) stores it:
/// Gemini's is `""` for a tool without parameters (its declaration then has none).
pub fn render_input(tool: &Tool, kind: InputKind) -> String {
    if kind == InputKind::Gemini && tool.params.is_empty() {
        return String::new();
    }
    let (format, strict) = kind.representative();
    render_input_schema(tool, format, strict)
}

/// Renders a tool's hints as MCP's `annotations` object: the hints that are set, in the
/// specification's order; `""` when none is.
pub fn render_annotations(hints: &crate::meta::Annotations) -> String {
    let mut out = String::new();
    if !hints.is_empty() {
        write_annotations(&mut out, hints);
    }
    out
}

/// Renders argument examples as Anthropic's `input_examples` array; `""` when there are none.
pub fn render_examples(examples: &[Value]) -> String {
    let mut out = String::new();
    if !examples.is_empty() {
        write_array(&mut out, examples, |out, example| out.push_str(&example.to_string()));
    }
    out
}

/// Renders a JSON array of the definitions of `tools` in `format` from their stored parts
/// (what [`Toolset::emit`](crate::Toolset::emit) returns): the same text [`render_tools`]
/// writes from the tools' IR.
pub fn render_infos(tools: &[crate::ToolInfo], format: Format, strict: bool) -> String {
    let settings = Settings::new(format, strict);
    let kind = InputKind::of(format, strict);
    let capacity = tools.iter().map(|t| t.input(kind).len() + t.description.len() + 96).sum();
    let mut out = String::with_capacity(capacity);
    write_array(&mut out, tools, |out, tool| {
        let envelope = Envelope {
            name: tool.name,
            title: tool.title,
            description: tool.description,
            takes_parameters: !tool.gemini_parameters.is_empty(),
            output: tool.output.unwrap_or(""),
            annotations: tool.annotations,
            examples: tool.examples,
        };
        write_definition(settings, &envelope, out, |out| {
            let input = tool.input(kind);
            out.push_str(input);
            // Only a strict definition whose format can leave a value untyped (Anthropic's,
            // which takes no `$ref` and no typed stand-in) depends on it: read the text then.
            let may_be_untyped = settings.strict_flag && !(settings.typed_any && settings.refs);
            !may_be_untyped || serde_json::from_str(input).is_ok_and(|schema| every_node_typed(&schema))
        });
    });
    out
}

/// Whether every schema in `schema` says what it holds: a `type`, `$ref`, `anyOf`,
/// `oneOf`, `allOf`, a non-empty `enum` or a `const`, in the places Anthropic's SDK reads
/// (`properties`, `items`, the branches, `$defs`). Anthropic's `transform_schema` refuses
/// a strict schema with a node that has none ("Schema must have a 'type', 'anyOf',
/// 'oneOf', or 'allOf' field"), and a strict mode cannot constrain such a node anyway: a
/// definition whose strict schema is not typed throughout goes out without `strict`.
pub fn every_node_typed(schema: &Value) -> bool {
    let mut stack = vec![schema];
    while let Some(node) = stack.pop() {
        let Some(map) = node.as_object() else { return false };
        let says = ["type", "$ref", "anyOf", "oneOf", "allOf", "const"].iter().any(|k| map.contains_key(*k))
            || map.get("enum").and_then(Value::as_array).is_some_and(|values| !values.is_empty());
        if !says {
            return false;
        }
        if map.contains_key("$ref") {
            continue;
        }
        for key in ["properties", "$defs"] {
            if let Some(children) = map.get(key).and_then(Value::as_object) {
                stack.extend(children.values());
            }
        }
        for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
            if let Some(children) = map.get(key).and_then(Value::as_array) {
                stack.extend(children);
            }
        }
        if let Some(items) = map.get("items").filter(|items| items.is_object()) {
            stack.push(items);
        }
    }
    true
}

/// Everything of a tool definition but its input schema. The texts are JSON, `""` when
/// the tool has none; each is written only by the format that takes it.
struct Envelope<'a> {
    name: &'a str,
    title: &'a str,
    description: &'a str,
    /// Whether the tool has parameters (a Gemini declaration without them has no schema).
    takes_parameters: bool,
    output: &'a str,
    annotations: &'a str,
    examples: &'a str,
}

/// Writes one tool definition in `settings`' format, with `write_input` writing its input
/// schema in place and saying whether every schema in it is typed ([`every_node_typed`]):
/// a strict definition whose schema is not says no `"strict": true`, since a strict mode
/// cannot constrain an untyped value and Anthropic refuses one (the other tools keep it).
fn write_definition(
    settings: Settings,
    envelope: &Envelope<'_>,
    out: &mut String,
    write_input: impl FnOnce(&mut String) -> bool,
) {
    let format = settings.format;
    let (outer, schema_key) = match format {
        Format::OpenAi => {
            out.push_str(r#"{"type":"function","function":"#);
            (true, "parameters")
        }
        Format::Anthropic => (false, "input_schema"),
        Format::Mcp => (false, "inputSchema"),
        Format::OpenAiResponses | Format::Gemini => (false, "parameters"),
    };
    let mut obj = Obj::open(out);
    if format == Format::OpenAiResponses {
        obj.word("type", "function");
    }
    obj.str("name", envelope.name);
    if format == Format::Mcp && !envelope.title.is_empty() {
        obj.str("title", envelope.title);
    }
    if !envelope.description.is_empty() {
        obj.str("description", envelope.description);
    }
    // Gemini takes a declaration without parameters, and may refuse an empty object.
    let typed = (format == Format::Gemini && !envelope.takes_parameters) || write_input(obj.key(schema_key));
    // Each of these is written only where its format takes it: the texts are empty elsewhere.
    if format == Format::Mcp && !envelope.output.is_empty() {
        // What the server returns, not what a model writes: plain JSON Schema, strict or not.
        obj.raw("outputSchema", envelope.output);
    }
    if format == Format::Mcp && !envelope.annotations.is_empty() {
        obj.raw("annotations", envelope.annotations);
    }
    if format == Format::Anthropic && !envelope.examples.is_empty() {
        obj.raw("input_examples", envelope.examples);
    }
    if settings.strict_flag && typed {
        obj.raw("strict", "true");
    } else if format == Format::OpenAiResponses {
        // Omitted, the Responses API would make the schema strict.
        obj.raw("strict", "false");
    }
    obj.close();
    if outer {
        out.push('}');
    }
}

/// About the length of `tool`'s definition, so its text is written without growing the
/// buffer more than once: the envelope, the texts it copies, and a schema per parameter.
fn capacity_for(tool: &Tool) -> usize {
    let params: usize = tool.params.iter().map(|p| 2 * p.name.len() + p.description.len() + 112).sum();
    192 + tool.name.len() + tool.description.len() + params
}

fn write_tool(settings: Settings, tool: &Tool, out: &mut String) {
    let cx = Context::new(&tool.defs);
    Renderer::new(Scope::new(settings, &cx), out).tool(tool);
}

/// Writes the JSON string of a reference to definition `name`: `"#/$defs/<key>"`.
fn write_pointer(out: &mut String, name: &str) {
    out.push_str("\"#/$defs/");
    push_def_key(out, name);
    out.push('"');
}

/// Writes definition `name` as its `$defs` key: letters, digits, `_`, `.` and `-` as they
/// are, any other character as `_`. A key then needs no escaping in a JSON pointer or a
/// URI fragment, which not every consumer decodes (llguidance does not).
fn push_def_key(out: &mut String, name: &str) {
    out.extend(
        name.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') { c } else { '_' }),
    );
}

/// Writes a JSON object key by key, handling commas.
struct Obj<'o> {
    out: &'o mut String,
    first: bool,
}

impl<'o> Obj<'o> {
    fn open(out: &'o mut String) -> Self {
        out.push('{');
        Obj { out, first: true }
    }

    /// Starts the entry `key` (a keyword of this module: written as it is, not escaped).
    fn key(&mut self, key: &str) -> &mut String {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
        self.out.push('"');
        self.out.push_str(key);
        self.out.push_str("\":");
        self.out
    }

    fn str(&mut self, key: &str, value: &str) {
        write_str(self.key(key), value);
    }

    /// A string value of this module's own (a type name, a pattern): needs no escaping.
    fn word(&mut self, key: &str, value: &str) {
        let out = self.key(key);
        out.push('"');
        out.push_str(value);
        out.push('"');
    }

    fn raw(&mut self, key: &str, value: &str) {
        self.key(key).push_str(value);
    }

    fn int(&mut self, key: &str, value: i64) {
        write_int(self.key(key), value);
    }

    fn close(self) {
        self.out.push('}');
    }
}

/// Writes `items` as a JSON array, each item written by `write`.
fn write_array<T>(
    out: &mut String,
    items: impl IntoIterator<Item = T>,
    mut write: impl FnMut(&mut String, T),
) {
    out.push('[');
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write(out, item);
    }
    out.push(']');
}

/// Writes `text` as a JSON string literal.
pub(crate) fn write_str(out: &mut String, text: &str) {
    out.reserve(text.len() + 2);
    out.push('"');
    write_escaped(out, text);
    out.push('"');
}

/// Writes `text` escaped for the inside of a JSON string literal.
fn write_escaped(out: &mut String, text: &str) {
    // Fast path: most text (names, plain descriptions) needs no escaping.
    let Some(first) = first_escape(text.as_bytes()) else {
        out.push_str(text);
        return;
    };
    let mut start = 0;
    for (i, &byte) in text.as_bytes().iter().enumerate().skip(first) {
        let escape = match byte {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x00..=0x1f => "",
            _ => continue,
        };
        out.push_str(&text[start..i]);
        if escape.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0xf)]));
        } else {
            out.push_str(escape);
        }
        start = i + 1;
    }
    out.push_str(&text[start..]);
}

/// Whether `byte` must be escaped in a JSON string: `"`, `\` or a control character.
const fn needs_escape(byte: u8) -> bool {
    byte == b'"' || byte == b'\\' || byte < 0x20
}

/// The index of the first byte of `bytes` that must be escaped, if any. Eight bytes at a
/// time: a word has such a byte when one of its bytes is below 0x20, or equals `"` or
/// `\` (each found as a zero byte of the word xor that byte repeated).
fn first_escape(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut chunks = bytes.chunks_exact(8);
    let mut offset = 0;
    for chunk in &mut chunks {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        let quote = w ^ (ONES * u64::from(b'"'));
        let backslash = w ^ (ONES * u64::from(b'\\'));
        let found = (w.wrapping_sub(ONES * 0x20) & !w)
            | (quote.wrapping_sub(ONES) & !quote)
            | (backslash.wrapping_sub(ONES) & !backslash);
        if found & HIGH != 0 {
            return chunk.iter().position(|&b| needs_escape(b)).map(|i| offset + i);
        }
        offset += 8;
    }
    chunks.remainder().iter().position(|&b| needs_escape(b)).map(|i| offset + i)
}

/// Writes `value` in decimal.
fn write_int(out: &mut String, value: i64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = value.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    if value < 0 {
        out.push('-');
    }
    out.extend(digits[at..].iter().map(|&d| char::from(d)));
}

fn write_value(out: &mut String, value: &Value) {
    // Serializing a `Value` to a `String` cannot fail.
    out.push_str(&serde_json::to_string(value).unwrap_or_else(|_| "null".to_owned()));
}

fn write_f64(out: &mut String, value: f64) {
    match serde_json::Number::from_f64(value) {
        Some(n) => {
            let _ = write!(out, "{n}");
        }
        None => out.push_str("null"),
    }
}

/// Constraints a target cannot express, gathered for the description.
#[derive(Default)]
struct Notes {
    /// Constraints the format cannot state as keywords: always appended.
    notes: Vec<String>,
    /// What the wire looks like, for a parameter nobody described: used only when the
    /// description is empty (a description written by hand is emitted as written).
    hint: Option<&'static str>,
}

impl Notes {
    fn push(&mut self, note: String) {
        self.notes.push(note);
    }

    fn hint(&mut self, hint: &'static str) {
        self.hint = Some(hint);
    }

    /// Writes the `description` entry: `base` with the notes after it (see
    /// [`Notes::description`]), escaped piece by piece; nothing when both are empty.
    fn write_description(&self, obj: &mut Obj<'_>, base: &str) {
        let hint = self.hint.filter(|_| base.is_empty());
        if hint.is_none() && self.notes.is_empty() {
            if !base.is_empty() {
                obj.str("description", base);
            }
            return;
        }
        let out = obj.key("description");
        out.push('"');
        if !base.is_empty() {
            write_escaped(out, base);
            out.push_str(" (");
        }
        let notes = hint.into_iter().chain(self.notes.iter().map(String::as_str));
        for (i, note) in notes.enumerate() {
            if i > 0 {
                out.push_str("; ");
            }
            write_escaped(out, note);
        }
        if !base.is_empty() {
            out.push(')');
        }
        out.push('"');
    }

    fn description(&self, base: &str) -> Option<String> {
        let hint = self.hint.filter(|_| base.is_empty());
        let mut notes = hint.into_iter().chain(self.notes.iter().map(String::as_str));
        let Some(first) = notes.next() else { return (!base.is_empty()).then(|| base.to_owned()) };
        let mut out = String::with_capacity(base.len() + first.len() + 3);
        if !base.is_empty() {
            out.push_str(base);
            out.push_str(" (");
        }
        out.push_str(first);
        for note in notes {
            out.push_str("; ");
            out.push_str(note);
        }
        if !base.is_empty() {
            out.push(')');
        }
        Some(out)
    }
}

/// What every renderer of one schema shares: the definitions references resolve to, and
/// whether an untyped value referred to [`JSON_VALUE`] (which then joins the `$defs`).
struct Context<'d> {
    defs: &'d [Definition],
    json_value: Cell<bool>,
    /// Whether a schema without `type` was written (an untyped value, or a recursive
    /// definition cut off where the format takes no `$ref`).
    untyped: Cell<bool>,
}

impl<'d> Context<'d> {
    fn new(defs: &'d [Definition]) -> Self {
        Context { defs, json_value: Cell::new(false), untyped: Cell::new(false) }
    }
}

/// The definitions being written out on the current path, innermost first (formats
/// without `$ref`). A list on the stack: no allocation.
struct Chain<'c> {
    name: &'c str,
    parent: Option<&'c Chain<'c>>,
}

impl Chain<'_> {
    /// How many times `name` is on the path.
    fn count(chain: Option<&Chain<'_>>, name: &str) -> usize {
        std::iter::successors(chain, |link| link.parent).filter(|link| link.name == name).count()
    }
}

/// What a renderer knows besides where it writes: the settings, the schema's shared
/// context, and the definitions being written out on its path.
#[derive(Clone, Copy)]
struct Scope<'c> {
    settings: Settings,
    cx: &'c Context<'c>,
    chain: Option<&'c Chain<'c>>,
}

impl<'c> Scope<'c> {
    fn new(settings: Settings, cx: &'c Context<'c>) -> Self {
        Scope { settings, cx, chain: None }
    }
}

/// The one schema renderer.
struct Renderer<'o, 'c> {
    scope: Scope<'c>,
    out: &'o mut String,
}

impl<'o, 'c> Renderer<'o, 'c> {
    fn new(scope: Scope<'c>, out: &'o mut String) -> Self {
        Renderer { scope, out }
    }

    fn tool(&mut self, tool: &Tool) {
        let format = self.scope.settings.format;
        let output = match (format, &tool.output) {
            (Format::Mcp, Some(output)) => render_output_schema(output),
            _ => String::new(),
        };
        let annotations = match format {
            Format::Mcp => render_annotations(&tool.annotations),
            _ => String::new(),
        };
        let examples = match format {
            Format::Anthropic => render_examples(&tool.examples),
            _ => String::new(),
        };
        let envelope = Envelope {
            name: &tool.name,
            title: &tool.title,
            description: &tool.description,
            takes_parameters: !tool.params.is_empty(),
            output: &output,
            annotations: &annotations,
            examples: &examples,
        };
        let scope = self.scope;
        write_definition(scope.settings, &envelope, self.out, |out| {
            Renderer::new(scope, out).root(&tool.params);
            !scope.cx.untyped.get()
        });
    }

    /// Writes the schema of `ty`, with `description` (and any moved constraints) attached.
    fn schema(&mut self, ty: &Type, description: &str, default: Option<&Value>) {
        match ty {
            Type::Described(inner, text) => {
                let text = if description.is_empty() { text } else { description };
                self.schema(inner, text, default)
            }
            Type::Object(params) => self.object_with(params, description, default),
            Type::Nullable(inner) => self.nullable(inner, description, default),
            Type::Ref(name) => self.reference(name, description, default),
            Type::Any if self.scope.settings.typed_any => {
                self.scope.cx.json_value.set(true);
                self.reference(JSON_VALUE, description, default)
            }
            _ => self.simple(ty, None, description, default),
        }
    }

    /// A use of definition `name`: a `$ref` (alone, beside a description or default, or as
    /// a one-branch `anyOf` when it must stand alone), or the definition written out.
    fn reference(&mut self, name: &str, description: &str, default: Option<&Value>) {
        let s = self.scope.settings;
        if !s.refs {
            return self.inline(name, description, default);
        }
        let dropped = with_dropped_default(s, description, default);
        let description = dropped.as_deref().unwrap_or(description);
        let default = default.filter(|_| s.defaults);
        if description.is_empty() && default.is_none() {
            self.out.push_str(r#"{"$ref":"#);
            write_pointer(self.out, name);
            self.out.push('}');
            return;
        }
        let mut obj = Obj::open(self.out);
        if s.ref_siblings {
            write_pointer(obj.key("$ref"), name);
        }
        if !description.is_empty() {
            obj.str("description", description);
        }
        if !s.ref_siblings {
            let out = obj.key("anyOf");
            out.push_str(r#"[{"$ref":"#);
            write_pointer(out, name);
            out.push_str("}]");
        }
        write_default(s, &mut obj, default);
        obj.close();
    }

    /// Definition `name` written out where it is used, until it is [`INLINED_LEVELS`]
    /// deep on this path; past that (or when the tool has no such definition) `{}`, with
    /// a note saying what belongs there.
    fn inline(&mut self, name: &str, description: &str, default: Option<&Value>) {
        let found = find_definition(self.scope.cx.defs, name);
        match found {
            Some(def) if Chain::count(self.scope.chain, name) < INLINED_LEVELS => {
                let link = Chain { name, parent: self.scope.chain };
                let scope = Scope { chain: Some(&link), ..self.scope };
                Renderer::new(scope, self.out).schema(&def.ty, description, default);
            }
            _ => {
                let mut notes = Notes::default();
                if found.is_some() {
                    notes.push(format!("same shape as the enclosing {name}"));
                }
                let text = notes.description(description).unwrap_or_default();
                self.simple(&Type::Any, None, &text, default);
            }
        }
    }

    /// `inner` or null: a type array where `inner` is a single plain type, else `anyOf`;
    /// with the OpenAPI keyword, `inner` with `"nullable": true` first.
    fn nullable(&mut self, inner: &Type, description: &str, default: Option<&Value>) {
        if self.scope.settings.nullable_keyword {
            let mut schema = String::with_capacity(64);
            Renderer::new(self.scope, &mut schema).schema(inner, description, default);
            self.out.push_str(r#"{"nullable":true"#);
            if schema.len() > 2 {
                self.out.push(',');
            }
            self.out.push_str(schema.get(1..).unwrap_or("}"));
            return;
        }
        if let Some(name) = plain_type_name(inner.undescribed()).filter(|_| self.scope.settings.type_arrays) {
            let description = match inner {
                Type::Described(_, text) if description.is_empty() => text.as_str(),
                _ => description,
            };
            return self.simple(inner.undescribed(), Some(or_null(name)), description, default);
        }
        let dropped = with_dropped_default(self.scope.settings, description, default);
        let description = dropped.as_deref().unwrap_or(description);
        let mut obj = Obj::open(self.out);
        if !description.is_empty() {
            obj.str("description", description);
        }
        let out = obj.key("anyOf");
        out.push('[');
        match inner.undescribed() {
            // A union gains a null branch rather than nesting inside another `anyOf`.
            Type::AnyOf(branches) | Type::OneOf(branches) => {
                for (i, branch) in branches.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    Renderer::new(self.scope, out).schema(branch, "", None);
                }
            }
            _ => Renderer::new(self.scope, out).schema(inner, "", None),
        }
        out.push_str(r#",{"type":"null"}]"#);
        write_default(self.scope.settings, &mut obj, default);
        obj.close();
    }

    /// Every non-object, non-nullable type. `type_name` overrides the `type` keyword.
    /// Written in one pass: what goes into the description is gathered first, then the
    /// keywords are written after it.
    fn simple(&mut self, ty: &Type, type_name: Option<&str>, description: &str, default: Option<&Value>) {
        let scope = self.scope;
        let mut notes = Notes::default();
        let name = scope.notes(ty, &mut notes);
        if let Some(value) = default.filter(|_| !scope.settings.defaults) {
            notes.push(default_note(value));
        }
        let mut obj = Obj::open(self.out);
        match type_name.or(name) {
            Some(name) if name.starts_with('[') => obj.raw("type", name),
            Some(name) => obj.word("type", name),
            None if matches!(ty, Type::Any) => scope.cx.untyped.set(true),
            None => {}
        }
        notes.write_description(&mut obj, description);
        scope.keywords(ty, &mut obj);
        write_default(scope.settings, &mut obj, default);
        obj.close();
    }
}

impl<'c> Scope<'c> {
    /// The `type` name of `ty` (for [`Renderer::simple`]), and into `notes` what its
    /// keywords cannot say in this format.
    fn notes(&self, ty: &Type, notes: &mut Notes) -> Option<&'static str> {
        let s = self.settings;
        match ty {
            Type::Any => None,
            Type::Null => Some("null"),
            Type::Boolean => Some("boolean"),
            Type::Integer { as_string: true, minimum, maximum, width, .. } => {
                notes.hint("an integer written as a decimal string");
                // A pattern cannot bound a number: bounds narrower than the sign and the
                // Rust type's own range go in words.
                let (low, high) = width.map_or((i128::MIN, i128::MAX), Width::range);
                let min = minimum.filter(|m| *m > 0 && i128::from(*m) > low);
                let max = maximum.filter(|m| *m < i64::MAX && i128::from(*m) < high);
                limit_notes(notes, min.map(|m| m.to_string()), max.map(|m| m.to_string()));
                Some("string")
            }
            Type::Integer { minimum, maximum, non_zero, .. } => {
                if !s.numeric_limits {
                    let (min, max) = (minimum.map(clamp_safe), maximum.map(clamp_safe));
                    limit_notes(notes, min.map(|v| v.to_string()), max.map(|v| v.to_string()));
                }
                if *non_zero {
                    notes.push("must not be 0".to_owned());
                }
                Some("integer")
            }
            Type::Number { minimum, maximum } => {
                if !s.numeric_limits {
                    limit_notes(notes, minimum.map(|v| v.to_string()), maximum.map(|v| v.to_string()));
                }
                Some("number")
            }
            Type::String { format, min_length, max_length, .. } => {
                self.string_notes(notes, format, *min_length, *max_length);
                Some("string")
            }
            Type::Const(_) => Some("string"),
            Type::Enum(variants) => {
                enum_notes(variants, notes);
                Some("string")
            }
            Type::Array { min_items, max_items, unique, .. } => {
                self.item_limit_notes(notes, *min_items, *max_items);
                if *unique && !s.unique_items {
                    notes.push("items must be unique".to_owned());
                }
                Some("array")
            }
            Type::Tuple(items) => {
                if !s.prefix_items {
                    let len = items.len() as u64;
                    let shapes: Vec<&str> = items.iter().map(|t| shape_name(t.undescribed())).collect();
                    notes.push(format!(
                        "exactly {len} {}: [{}]",
                        plural(&len.to_string(), "item"),
                        shapes.join(", ")
                    ));
                }
                Some("array")
            }
            Type::Map(_) => {
                if !s.additional_properties {
                    notes.push("an object whose keys are free".to_owned());
                }
                Some("object")
            }
            // `AnyOf`, `OneOf`; the rest is handled by `schema` (kept total for safety).
            Type::AnyOf(_)
            | Type::OneOf(_)
            | Type::Object(_)
            | Type::Nullable(_)
            | Type::Described(..)
            | Type::Ref(_) => None,
        }
    }

    /// Writes the keywords of `ty` after `type` and `description` into `obj`: everything
    /// [`Scope::notes`] did not move into the description.
    fn keywords(&self, ty: &Type, obj: &mut Obj<'_>) {
        let s = self.settings;
        match ty {
            Type::Integer { as_string: true, minimum, .. } => {
                let pattern = if minimum.is_some_and(|m| m >= 0) { "^[0-9]+$" } else { "^-?[0-9]+$" };
                obj.word("pattern", pattern);
            }
            Type::Integer { minimum, maximum, .. } => {
                if s.numeric_limits {
                    if let Some(v) = *minimum {
                        obj.int("minimum", clamp_safe(v));
                    }
                    if let Some(v) = *maximum {
                        obj.int("maximum", clamp_safe(v));
                    }
                }
            }
            Type::Number { minimum, maximum } => {
                if s.numeric_limits {
                    if let Some(v) = minimum {
                        write_f64(obj.key("minimum"), *v);
                    }
                    if let Some(v) = maximum {
                        write_f64(obj.key("maximum"), *v);
                    }
                }
            }
            Type::String { format, pattern, min_length, max_length } => {
                if let Some(format) = format.as_deref().filter(|f| self.format_allowed(f)) {
                    obj.str("format", format);
                }
                if let Some(pattern) = pattern {
                    obj.str("pattern", pattern);
                }
                if s.length_limits {
                    if let Some(v) = *min_length {
                        obj.int("minLength", v as i64);
                    }
                    if let Some(v) = *max_length {
                        obj.int("maxLength", v as i64);
                    }
                }
            }
            Type::Const(value) => {
                let out = obj.key("enum");
                out.push('[');
                write_str(out, value);
                out.push(']');
            }
            Type::Enum(variants) => {
                write_array(obj.key("enum"), variants, |out, variant| write_str(out, &variant.value));
            }
            Type::Array { items, min_items, max_items, unique } => {
                Renderer::new(*self, obj.key("items")).schema(items, "", None);
                self.item_limits(obj, *min_items, *max_items);
                if *unique && s.unique_items {
                    obj.raw("uniqueItems", "true");
                }
            }
            Type::Tuple(items) => self.tuple(obj, items),
            Type::Map(values) => {
                if !s.additional_properties {
                    // Said in the description (`Scope::notes`).
                } else if s.close_maps {
                    // OpenAI strict rejects an object schema without `properties` and `required`.
                    obj.raw("properties", "{}");
                    obj.raw("required", "[]");
                    obj.raw("additionalProperties", "false");
                } else {
                    Renderer::new(*self, obj.key("additionalProperties")).schema(values, "", None);
                }
            }
            Type::AnyOf(branches) => self.branches(obj, "anyOf", branches),
            Type::OneOf(branches) => self.branches(obj, if s.one_of { "oneOf" } else { "anyOf" }, branches),
            Type::Any
            | Type::Null
            | Type::Boolean
            | Type::Object(_)
            | Type::Nullable(_)
            | Type::Described(..)
            | Type::Ref(_) => {}
        }
    }

    /// Whether the format keeps the string `format` value `format`.
    fn format_allowed(&self, format: &str) -> bool {
        self.settings.formats.is_none_or(|allowed| allowed.contains(&format))
    }

    fn string_notes(&self, notes: &mut Notes, format: &Option<String>, min: Option<u64>, max: Option<u64>) {
        if let Some(format) = format.as_deref().filter(|f| !self.format_allowed(f)) {
            notes.push(format!("format: {format}"));
        }
        if self.settings.length_limits {
            return;
        }
        match (min.map(|v| v.to_string()), max.map(|v| v.to_string())) {
            (Some(a), Some(b)) if a == b => notes.push(format!("exactly {a} {}", plural(&a, "character"))),
            (min, max) => {
                min.into_iter().for_each(|v| notes.push(format!("at least {v} {}", plural(&v, "character"))));
                max.into_iter().for_each(|v| notes.push(format!("at most {v} {}", plural(&v, "character"))));
            }
        }
    }

    /// `minItems`/`maxItems` where the format keeps them; else only a minimum of 0 or 1.
    fn item_limits(&self, obj: &mut Obj<'_>, min: Option<u64>, max: Option<u64>) {
        if self.settings.item_limits {
            min.into_iter().for_each(|v| obj.int("minItems", v as i64));
            max.into_iter().for_each(|v| obj.int("maxItems", v as i64));
        } else if let Some(v @ (0 | 1)) = min {
            obj.int("minItems", v as i64);
        }
    }

    /// The item limits [`Scope::item_limits`] does not write, in words.
    fn item_limit_notes(&self, notes: &mut Notes, min: Option<u64>, max: Option<u64>) {
        if self.settings.item_limits {
            return;
        }
        if let Some(v) = min.filter(|v| *v > 1) {
            notes.push(format!("at least {v} items"));
        }
        max.into_iter().for_each(|v| notes.push(format!("at most {v} {}", plural(&v.to_string(), "item"))));
    }

    fn tuple(&self, obj: &mut Obj<'_>, items: &[Type]) {
        let len = items.len() as u64;
        if self.settings.prefix_items {
            write_array(obj.key("prefixItems"), items, |out, item| {
                Renderer::new(*self, out).schema(item, "", None)
            });
        } else {
            // The length is in the description (`Scope::notes`). OpenAI strict rejects an
            // array schema without `items`: the items' one schema, or `anyOf` of their
            // distinct schemas.
            let mut schemas: Vec<String> = Vec::with_capacity(items.len());
            for item in items {
                let mut schema = String::with_capacity(32);
                Renderer::new(*self, &mut schema).schema(item, "", None);
                if !schemas.contains(&schema) {
                    schemas.push(schema);
                }
            }
            match schemas.as_slice() {
                [] => {}
                [one] => obj.raw("items", one),
                many => obj.raw("items", &format!(r#"{{"anyOf":[{}]}}"#, many.join(","))),
            }
        }
        if self.settings.item_limits {
            self.item_limits(obj, Some(len), Some(len));
        } else if len <= 1 {
            // The note says "exactly N items"; only a 0/1 minimum is kept.
            obj.int("minItems", len as i64);
        }
    }

    fn branches(&self, obj: &mut Obj<'_>, key: &str, branches: &[Type]) {
        write_array(obj.key(key), branches, |out, branch| Renderer::new(*self, out).schema(branch, "", None));
    }
}

impl Renderer<'_, '_> {
    /// The tool's root object (no description, no default), with the `$defs` its
    /// references need.
    fn root(&mut self, params: &[Param]) {
        self.object_with(params, "", None);
        self.definitions();
    }

    /// Reopens the root schema just written and adds `$defs`: the tool's definitions, and
    /// [`JSON_VALUE`] when an untyped value referred to it. Nothing when there are none or
    /// the format takes no references.
    fn definitions(&mut self) {
        let (s, cx) = (self.scope.settings, self.scope.cx);
        if !s.refs || (cx.defs.is_empty() && !cx.json_value.get()) || !self.out.ends_with('}') {
            return;
        }
        self.out.pop();
        if !self.out.ends_with('{') {
            self.out.push(',');
        }
        self.out.push_str(r#""$defs":{"#);
        for (i, def) in cx.defs.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            self.out.push('"');
            push_def_key(self.out, &def.name);
            self.out.push_str("\":");
            Renderer::new(Scope::new(s, cx), self.out).schema(&def.ty, "", None);
        }
        // Read after the definitions: an untyped value inside one refers to it too.
        if cx.json_value.get() {
            if !cx.defs.is_empty() {
                self.out.push(',');
            }
            write_str(self.out, JSON_VALUE);
            self.out.push(':');
            self.out.push_str(JSON_VALUE_SCHEMA);
        }
        self.out.push_str("}}");
    }

    /// A closed object: properties in order, `required`, `additionalProperties: false`.
    fn object_with(&mut self, params: &[Param], description: &str, default: Option<&Value>) {
        let s = self.scope.settings;
        let dropped = with_dropped_default(s, description, default);
        let description = dropped.as_deref().unwrap_or(description);
        let mut obj = Obj::open(self.out);
        obj.word("type", "object");
        if !description.is_empty() {
            obj.str("description", description);
        }
        let out = obj.key("properties");
        out.push('{');
        for (i, param) in params.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_str(out, &param.name);
            out.push(':');
            // Widened to nullable as `Type::nullable` would, without building that type.
            let widen = s.all_required && param.optional && !param.ty.accepts_null();
            let mut renderer = Renderer::new(self.scope, out);
            if widen {
                renderer.nullable(&param.ty, &param.description, param.default.as_ref());
            } else {
                renderer.schema(&param.ty, &param.description, param.default.as_ref());
            }
        }
        out.push('}');
        let required = params.iter().filter(|p| s.all_required || !p.optional);
        write_array(obj.key("required"), required, |out, param| write_str(out, &param.name));
        if s.additional_properties {
            obj.raw("additionalProperties", "false");
        }
        write_default(self.scope.settings, &mut obj, default);
        obj.close();
    }
}

/// The note that says a default the format cannot write as a keyword (strict modes make
/// every property required): `default: 20`, so the model still learns it.
fn default_note(value: &Value) -> String {
    format!("default: {value}")
}

/// `description` with the [`default_note`] of a default these settings drop; `None` when
/// nothing is dropped (the description stands as it is).
fn with_dropped_default(settings: Settings, description: &str, default: Option<&Value>) -> Option<String> {
    let value = default.filter(|_| !settings.defaults)?;
    let mut notes = Notes::default();
    notes.push(default_note(value));
    notes.description(description)
}

fn write_default(settings: Settings, obj: &mut Obj<'_>, default: Option<&Value>) {
    if let (true, Some(value)) = (settings.defaults, default) {
        write_value(obj.key("default"), value);
    }
}

/// The documented variants of an enum, as one note: `value: description; ...`.
fn enum_notes(variants: &[EnumVariant], notes: &mut Notes) {
    let documented: Vec<String> = variants
        .iter()
        .filter(|v| !v.description.is_empty())
        .map(|v| format!("{}: {}", v.value, v.description.trim_end_matches('.')))
        .collect();
    if !documented.is_empty() {
        notes.push(documented.join("; "));
    }
}

/// An integer bound as a JSON number a model can write exactly.
fn clamp_safe(value: i64) -> i64 {
    value.clamp(MIN_SAFE_INTEGER, MAX_SAFE_INTEGER)
}

/// `word` or `words` for the count written in `count`.
pub(crate) fn plural(count: &str, word: &str) -> String {
    if count == "1" { word.to_owned() } else { format!("{word}s") }
}

fn limit_notes(notes: &mut Notes, min: Option<String>, max: Option<String>) {
    match (min, max) {
        (Some(a), Some(b)) => notes.push(format!("between {a} and {b}")),
        (Some(a), None) => notes.push(format!("at least {a}")),
        (None, Some(b)) => notes.push(format!("at most {b}")),
        (None, None) => {}
    }
}

/// The JSON type name when `ty` renders as a single `"type"` with no `enum`, else `None`.
fn plain_type_name(ty: &Type) -> Option<&'static str> {
    match ty {
        Type::Boolean => Some("boolean"),
        Type::Integer { as_string: false, .. } => Some("integer"),
        Type::Integer { as_string: true, .. } | Type::String { .. } => Some("string"),
        Type::Number { .. } => Some("number"),
        Type::Array { .. } | Type::Tuple(_) => Some("array"),
        Type::Map(_) => Some("object"),
        _ => None,
    }
}

/// The `type` array of a [`plain_type_name`] or null.
fn or_null(name: &'static str) -> &'static str {
    match name {
        "boolean" => r#"["boolean","null"]"#,
        "integer" => r#"["integer","null"]"#,
        "string" => r#"["string","null"]"#,
        "number" => r#"["number","null"]"#,
        "array" => r#"["array","null"]"#,
        _ => r#"["object","null"]"#,
    }
}

/// A short human name for a type, used in descriptions.
fn shape_name(ty: &Type) -> &'static str {
    match ty {
        Type::Object(_) | Type::Map(_) => "object",
        Type::Enum(_) | Type::Const(_) => "string",
        Type::Nullable(_) => "nullable",
        Type::Any | Type::AnyOf(_) | Type::OneOf(_) | Type::Described(..) => "any",
        Type::Null => "null",
        other => plain_type_name(other).unwrap_or("any"),
    }
}

/// MCP's `annotations` object: the hints that are set, in the specification's order.
fn write_annotations(out: &mut String, hints: &crate::meta::Annotations) {
    let mut obj = Obj::open(out);
    let flags = [
        ("readOnlyHint", hints.read_only),
        ("destructiveHint", hints.destructive),
        ("idempotentHint", hints.idempotent),
        ("openWorldHint", hints.open_world),
    ];
    for (key, value) in flags {
        if let Some(value) = value {
            obj.raw(key, if value { "true" } else { "false" });
        }
    }
    obj.close();
}

#[cfg(test)]
mod tests {
    use super::{Format, InputKind, Settings, write_int, write_str};

    /// Formats of one input kind render the input schema from the same settings: they may
    /// differ only in the envelope (its keys, the `strict` flag), which the schema never reads.
    #[test]
    fn formats_of_one_input_kind_differ_only_in_the_envelope() {
        for format in Format::ALL {
            for strict in [false, true] {
                let (rep_format, rep_strict) = InputKind::of(format, strict).representative();
                assert_eq!(InputKind::of(rep_format, rep_strict), InputKind::of(format, strict));
                let envelope_only = |s: Settings| Settings { format: Format::Mcp, strict_flag: false, ..s };
                assert_eq!(
                    envelope_only(Settings::new(format, strict)),
                    envelope_only(Settings::new(rep_format, rep_strict)),
                    "{format:?} strict={strict}"
                );
            }
        }
        let kinds: Vec<_> = InputKind::ALL.iter().map(|k| k.representative()).collect();
        assert_eq!(kinds.len(), 4, "every kind has its own representative");
        for (i, a) in kinds.iter().enumerate() {
            assert!(kinds[i + 1..].iter().all(|b| a != b));
        }
    }

    /// What `write_str` writes, one character at a time.
    fn reference(text: &str) -> String {
        let mut out = String::from("\"");
        for c in text.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }

    #[test]
    fn strings_are_escaped_wherever_the_special_byte_falls() {
        let specials =
            ['"', '\\', '\n', '\r', '\t', '\u{0}', '\u{7}', '\u{1f}', ' ', '!', '#', '[', ']', 'é', '\u{7f}'];
        for len in 0..20 {
            for at in 0..len {
                for special in specials {
                    for second in [None, Some(len / 2), Some(len - 1)] {
                        let mut chars: Vec<char> =
                            (0..len).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
                        if let Some(second) = second {
                            chars[second] = '"';
                        }
                        chars[at] = special;
                        let text: String = chars.into_iter().collect();
                        let mut out = String::new();
                        write_str(&mut out, &text);
                        assert_eq!(out, reference(&text), "{text:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn integers_are_written_in_decimal() {
        for value in [0, 1, -1, 9, 10, -10, 4_294_967_295, i64::MAX, i64::MIN, -9_007_199_254_740_991] {
            let mut out = String::new();
            write_int(&mut out, value);
            assert_eq!(out, value.to_string());
        }
    }
}
