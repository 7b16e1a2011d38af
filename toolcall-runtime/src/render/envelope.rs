//! One tool definition around its input schema: the envelope each format wraps it in
//! (the keys, the `strict` flag, the output schema, annotations and examples).
//!
//! An MCP definition carries a tool's output schema only when it is an object schema
//! (a struct or a map result): what every MCP revision takes, so the definitions stay
//! valid whatever revision a client speaks. A schema of another shape (an array, a
//! number, a string, a union), which only 2026-07-28 takes, stays in the tool's IR and
//! its [`ToolInfo::output`], where a server that knows its client's revision reads it.

use serde_json::Value;

use super::format::{Format, InputKind, Settings};
use super::schema::{every_node_typed, render_input, render_output_schema, write_input};
use crate::info::ToolInfo;
use crate::ir::Tool;
use crate::json::write::{Obj, write_array};

/// Renders one tool definition in `format` (in MCP's, with the output schema only when it
/// is an object schema: [`Tool::object_output`]).
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

/// Renders a tool's hints as MCP's `annotations` object: the hints that are set, in the
/// specification's order; `""` when none is.
pub fn render_annotations(hints: &crate::meta::Annotations) -> String {
    let mut out = String::new();
    if !hints.is_empty() {
        write_annotations(&mut out, hints);
    }
    out
}

/// Renders a tool's icons as MCP's `icons` array; `""` when there are none.
pub fn render_icons(icons: &[crate::ir::Icon]) -> String {
    let mut out = String::new();
    if !icons.is_empty() {
        write_array(&mut out, icons, |out, icon| {
            let mut obj = Obj::open(out);
            obj.str("src", &icon.src);
            obj.str("mimeType", &icon.mime_type);
            obj.close();
        });
    }
    out
}

/// Renders a tool's metadata as MCP's `_meta` object; `""` when there is none.
pub fn render_meta(meta: &serde_json::Map<String, Value>) -> String {
    if meta.is_empty() { String::new() } else { Value::Object(meta.clone()).to_string() }
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
/// writes from the tools' IR. An MCP definition carries the output schema only when it is
/// an object schema ([`ToolInfo::object_output`]).
pub fn render_infos(tools: &[ToolInfo], format: Format, strict: bool) -> String {
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
            output: if format == Format::Mcp { tool.object_output().unwrap_or("") } else { "" },
            annotations: tool.annotations,
            examples: tool.examples,
            icons: tool.icons,
            meta: tool.meta,
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

/// Everything of a tool definition but its input schema. The texts are JSON, `""` when
/// the tool has none; each is written only by the format that takes it.
pub(super) struct Envelope<'a> {
    pub(super) name: &'a str,
    pub(super) title: &'a str,
    pub(super) description: &'a str,
    /// Whether the tool has parameters (a Gemini declaration without them has no schema).
    pub(super) takes_parameters: bool,
    pub(super) output: &'a str,
    pub(super) annotations: &'a str,
    pub(super) examples: &'a str,
    pub(super) icons: &'a str,
    pub(super) meta: &'a str,
}

/// Writes one tool definition in `settings`' format, with `write_input` writing its input
/// schema in place and saying whether every schema in it is typed ([`every_node_typed`]):
/// a strict definition whose schema is not says no `"strict": true`, since a strict mode
/// cannot constrain an untyped value and Anthropic refuses one (the other tools keep it).
pub(super) fn write_definition(
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
    if format == Format::Mcp && !envelope.icons.is_empty() {
        obj.raw("icons", envelope.icons);
    }
    if format == Format::Mcp && !envelope.meta.is_empty() {
        obj.raw("_meta", envelope.meta);
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
pub(super) fn capacity_for(tool: &Tool) -> usize {
    let params: usize = tool.params.iter().map(|p| 2 * p.name.len() + p.description.len() + 112).sum();
    192 + tool.name.len() + tool.description.len() + params
}

/// Writes `tool`'s whole definition in `settings`' format: the envelope, its texts
/// rendered for the formats that take them, and the input schema walked in place.
pub(super) fn write_tool(settings: Settings, tool: &Tool, out: &mut String) {
    let format = settings.format;
    let output = match (format, tool.object_output()) {
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
    let (icons, meta) = match format {
        Format::Mcp => (render_icons(&tool.icons), render_meta(&tool.meta)),
        _ => (String::new(), String::new()),
    };
    let envelope = Envelope {
        name: &tool.name,
        title: &tool.title,
        description: &tool.description,
        takes_parameters: !tool.params.is_empty(),
        output: &output,
        annotations: &annotations,
        examples: &examples,
        icons: &icons,
        meta: &meta,
    };
    write_definition(settings, &envelope, out, |out| write_input(settings, tool, out));
}

/// MCP's `annotations` object: the hints that are set, in the specification's order.
pub(super) fn write_annotations(out: &mut String, hints: &crate::meta::Annotations) {
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

/// The texts of a [`ToolInfo`] that are rendered from a tool's IR.
impl ToolInfo {
    /// Renders every text of `tool` with the one renderer, for a toolset built at run time
    /// (tests, tools loaded from data). The texts are leaked: a [`Toolset`](crate::Toolset) holds `'static`
    /// data, and generated code stores the same texts as literals instead.
    pub fn leaked(module: &'static str, tool: &Tool) -> ToolInfo {
        fn leak(text: String) -> &'static str {
            Box::leak(text.into_boxed_str())
        }
        ToolInfo {
            module,
            name: leak(tool.name.clone()),
            title: leak(tool.title.clone()),
            description: leak(tool.description.clone()),
            parameters: leak(render_input(tool, InputKind::Lax)),
            strict_parameters: leak(render_input(tool, InputKind::Strict)),
            anthropic_strict_parameters: leak(render_input(tool, InputKind::AnthropicStrict)),
            gemini_parameters: leak(render_input(tool, InputKind::Gemini)),
            output: tool.output.as_ref().map(|ty| leak(render_output_schema(ty))),
            annotations: leak(render_annotations(&tool.annotations)),
            hints: tool.annotations,
            examples: leak(render_examples(&tool.examples)),
            icons: leak(render_icons(&tool.icons)),
            meta: leak(render_meta(&tool.meta)),
            timeout_ms: None,
            scopes: &[],
            returns_content: false,
            task: None,
        }
    }

    /// The input schema of `kind`, as JSON text.
    pub fn input(&self, kind: InputKind) -> &'static str {
        match kind {
            InputKind::Lax => self.parameters,
            InputKind::Strict => self.strict_parameters,
            InputKind::AnthropicStrict => self.anthropic_strict_parameters,
            InputKind::Gemini => self.gemini_parameters,
        }
    }
}
