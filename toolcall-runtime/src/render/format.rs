//! Provider policy as data: a [`Format`] and a `strict` flag pick a [`Settings`] value
//! saying which keywords the target accepts and what happens to the rest (dropped, or
//! moved into the description so the model still sees the constraint).

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
pub(super) const JSON_VALUE_SCHEMA: &str = concat!(
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
    /// `anyOf` of the type and `{"type":"null"}`. Only the strict schemas of OpenAI and MCP
    /// write type arrays (OpenAI's structured outputs ask for them); the lax schemas, which
    /// MCP clients read, write `anyOf`: several clients read `type` as one name and drop
    /// or refuse a tool with an array (the MCP Inspector warns of it), and Anthropic's SDK
    /// takes one type name only.
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
            type_arrays: false,
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
                type_arrays: true,
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
                // `transform_schema` refuses a `type` that is not one name (as lax).
                ref_siblings: false,
                ..lax
            },
        }
    }
}

/// A tool's stored input schemas, one per distinct rendering: formats whose settings differ
/// only in the envelope (the key the schema goes under, the `strict` flag) take the same
/// text. [`ToolInfo`](crate::ToolInfo) holds one of each, and [`render_infos`](super::render_infos) picks the
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
