//! The build-side model: what the parse stage found, in the shape codegen needs.
//!
//! Each tool carries its provider-neutral [`ir::Tool`] (what the renderer reads) next to
//! the Rust facts the dispatcher needs: the function path, how each parameter is decoded,
//! and whether the function returns a `Result`.

use std::path::PathBuf;

use proc_macro2::Span;
use toolcall_runtime::ir;

/// What the functions of a source directory are served as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// Tools (`src/tools`): the crate's `ALL`.
    Tool,
    /// Prompts (`src/prompts`): the crate's `PROMPTS`.
    Prompt,
    /// Resources (`src/resources`): the crate's `RESOURCES`.
    Resource,
}

/// One tool file: `src/tools/billing/invoices.rs` is module `["billing", "invoices"]`.
/// Prompt and resource files are modules of the same shape, below their own roots.
#[derive(Clone, Debug)]
pub struct ToolModule {
    /// What its functions are.
    pub kind: Kind,
    /// Module path below its directory's root; empty for the root `mod.rs`.
    pub path: Vec<String>,
    /// The file, relative to the crate.
    pub file: PathBuf,
    /// The tools, in declaration order.
    pub tools: Vec<ToolDef>,
    /// Whether the file declares a visible `TOOL_PARAMS` const for generated code to check.
    pub overrides_const: bool,
    /// Whether the file declares a visible `TOOLS` const (tool metadata) to check.
    pub tools_const: bool,
    /// Where each resource function is served, in the order of `tools` (resource
    /// modules only; one entry per tool).
    pub resources: Vec<Resource>,
    /// Whether the file declares a visible `RESOURCES` const to check.
    pub resources_const: bool,
}

/// Where one resource function is served, checked against the function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resource {
    /// The URI or URI template.
    pub uri: String,
    /// Whether `uri` has `{variables}`.
    pub template: bool,
    /// The name clients list it by.
    pub name: String,
    /// Its title ("" when none).
    pub title: String,
    /// The contents' MIME type.
    pub mime_type: String,
    /// How the function's value becomes contents.
    pub kind: toolcall_runtime::ResourceKind,
}

/// One tool function.
#[derive(Clone, Debug)]
pub struct ToolDef {
    /// What the schemas are rendered from.
    pub ir: ir::Tool,
    /// The function's identifier.
    pub ident: syn::Ident,
    /// Where the function is declared.
    pub span: Span,
    /// How each parameter is decoded, in the order of `ir.params`.
    pub params: Vec<Param>,
    /// What the function returns.
    pub returns: Returns,
    /// An `async fn`: called through a boxed future.
    pub is_async: bool,
    /// Positions among the function's inputs where the context (`&App`) is passed; the
    /// other positions take `params`, in order.
    pub context_at: Vec<usize>,
    /// Positions among the function's inputs where `&Progress` is passed.
    pub progress_at: Vec<usize>,
    /// Whether the success type is `toolcall_runtime::Content` or `Vec<Content>`: the
    /// result is content blocks, with no output schema.
    pub returns_content: bool,
    /// The time limit of one call (`ToolMeta::timeout_ms`), for servers and agents.
    pub timeout_ms: Option<u64>,
    /// How it runs as a task (`ToolMeta::task`, `task_required`, `task_from_detach`), for
    /// servers.
    pub task: Option<toolcall_runtime::TaskPolicy>,
    /// The OAuth scopes a caller's token must carry to call it (`ToolMeta::scopes`): for
    /// `ToolInfo` only, never in a definition.
    pub scopes: Vec<String>,
    /// What the success type is, for a resource's contents.
    pub value_kind: toolcall_runtime::ResourceKind,
    /// Its schema texts, rendered once when it is lowered: what the checks measure and
    /// codegen writes.
    pub texts: Texts,
    /// Its parameters mirrored into HTTP headers (`ToolParam::header`), checked, in
    /// parameter order.
    pub headers: Vec<ParamHeader>,
}

/// A parameter mirrored into the HTTP header `Mcp-Param-<name>` (SEP-2243): its plain
/// input schema carries `"x-mcp-header": "<name>"` on the parameter's property.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamHeader {
    /// The parameter's wire name.
    pub param: String,
    /// The header's name after `Mcp-Param-`.
    pub name: String,
}

/// A tool's schema texts, rendered once by the runtime's renderer: each kind of input
/// schema (under the names `ToolInfo` gives them), the output schema, and the annotations
/// and examples as JSON text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Texts {
    /// The plain input schema (every format but Gemini, not strict), with `x-mcp-header`
    /// on the properties of parameters mirrored into headers (`crate::header`).
    pub parameters: String,
    /// The input schema OpenAI (Chat Completions and Responses) and MCP take strict.
    pub strict_parameters: String,
    /// The input schema Anthropic takes strict.
    pub anthropic_strict_parameters: String,
    /// Gemini's input schema ("" for a tool without parameters).
    pub gemini_parameters: String,
    /// The output schema, when the tool has one.
    pub output: Option<String>,
    /// MCP's `annotations` object ("" when no hint is set).
    pub annotations: String,
    /// Anthropic's `input_examples` array ("" when there are none).
    pub examples: String,
    /// MCP's `icons` array ("" when there are none).
    pub icons: String,
    /// MCP's `_meta` object ("" when there is none).
    pub meta: String,
}

impl Texts {
    /// Renders every text of `tool`.
    pub fn of(tool: &ir::Tool) -> Texts {
        use toolcall_runtime::render::{
            InputKind, render_annotations, render_examples, render_icons, render_input, render_meta,
            render_output_schema,
        };
        Texts {
            parameters: render_input(tool, InputKind::Lax),
            strict_parameters: render_input(tool, InputKind::Strict),
            anthropic_strict_parameters: render_input(tool, InputKind::AnthropicStrict),
            gemini_parameters: render_input(tool, InputKind::Gemini),
            output: tool.output.as_ref().map(render_output_schema),
            annotations: render_annotations(&tool.annotations),
            examples: render_examples(&tool.examples),
            icons: render_icons(&tool.icons),
            meta: render_meta(&tool.meta),
        }
    }

    /// The input schema of `kind`.
    pub fn input(&self, kind: toolcall_runtime::render::InputKind) -> &str {
        use toolcall_runtime::render::InputKind;
        match kind {
            InputKind::Lax => &self.parameters,
            InputKind::Strict => &self.strict_parameters,
            InputKind::AnthropicStrict => &self.anthropic_strict_parameters,
            InputKind::Gemini => &self.gemini_parameters,
        }
    }

    /// Each input schema under its `ToolInfo` field name, in that order.
    pub fn inputs(&self) -> [(&'static str, &str); 4] {
        [
            ("parameters", &self.parameters),
            ("strict_parameters", &self.strict_parameters),
            ("anthropic_strict_parameters", &self.anthropic_strict_parameters),
            ("gemini_parameters", &self.gemini_parameters),
        ]
    }
}

/// How a tool function's return value becomes JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Returns {
    /// Nothing (`()`): the result is `null`.
    Unit,
    /// A plain `T: Serialize`.
    Value,
    /// `Result<T, E>`: `Err(e)` becomes `ToolError::Failed(e.to_string())`.
    Result,
}

/// How one parameter (or struct field) is decoded from JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decode {
    /// Through `FromArg` (std types and local types with generated impls).
    FromArg,
    /// An integer that travels as a decimal string; `optional` when the type is `Option<_>`.
    StringInteger {
        /// The Rust type is `Option<integer>`.
        optional: bool,
    },
    /// Through `serde::Deserialize` (foreign types); `optional` when the type is `Option<_>`.
    Deserialize {
        /// The Rust type is `Option<_>`.
        optional: bool,
    },
    /// Through a type provider's decode function (a path), `optional` as above.
    Provider {
        /// Path of `fn(&Value) -> Result<T, E: Display>`.
        function: String,
        /// The Rust type is `Option<_>`.
        optional: bool,
    },
}

/// A tool parameter as the dispatcher decodes it: its wire name and decoding (the
/// schema side of the same parameter is [`ir::Param`]).
#[derive(Clone, Debug)]
pub struct Param {
    /// The name on the wire.
    pub name: String,
    /// Where the parameter is declared.
    pub span: Span,
    /// How it is decoded.
    pub decode: Decode,
    /// The parameter's IR type, when an override's range narrows it: checked before
    /// decoding.
    pub bounds: Option<ir::Type>,
    /// Whether the one-pass fast decoder reads it: its type has one (`FastArg`) and no
    /// range is checked on it.
    pub fast: bool,
}

/// A local struct or enum that needs `impl FromArg`.
#[derive(Clone, Debug)]
pub struct LocalImpl {
    /// The path generated code names it by (`crate::models::Task`).
    pub path: syn::Path,
    /// The type's identifier.
    pub ident: syn::Ident,
    /// Its generics (type parameters get a `FromArg` bound).
    pub generics: syn::Generics,
    /// Its shape on the wire.
    pub shape: Shape,
    /// Whether it also gets the one-pass fast decoder (`FastArg`).
    pub fast: bool,
    /// Whether an internally tagged enum reads it beside its tag (`from_tagged`).
    pub merged: bool,
}

/// The wire shape of a local type, as serde (de)serializes it.
#[derive(Clone, Debug)]
pub enum Shape {
    /// A struct with named fields: a closed JSON object.
    Struct(Vec<Field>),
    /// A tuple struct with one field: the field's value (serde's newtype).
    Newtype(Decode),
    /// A tuple struct with several fields: a JSON array.
    TupleStruct(Vec<Decode>),
    /// A unit struct: `null`.
    Unit,
    /// An enum.
    Enum {
        /// How the variant is told apart.
        tagging: Tagging,
        /// The variants, in declaration order (skipped ones removed).
        variants: Vec<Variant>,
    },
}

/// One struct field (or struct-variant field).
#[derive(Clone, Debug)]
pub struct Field {
    /// The Rust identifier.
    pub ident: syn::Ident,
    /// The name on the wire.
    pub wire: String,
    /// Other names it is read under (`#[serde(alias)]`), in order.
    pub aliases: Vec<String>,
    /// How it is decoded; `None` for `#[serde(skip)]` fields (`Default::default()`).
    pub decode: Option<Decode>,
    /// `#[serde(default)]`: absent means `Default::default()`.
    pub default: bool,
    /// `#[serde(default = "path")]` (on it or its container): absent, only serde can fill
    /// it, so the whole value is handed to serde.
    pub default_fn: bool,
}

/// serde's enum representations, as the ast read them.
/// How an enum is represented (serde's `TagType`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Tagging {
    /// `{"Variant": payload}`, or `"Variant"` for unit variants (serde's default).
    #[default]
    External,
    /// `#[serde(tag = "type")]`.
    Internal(String),
    /// `#[serde(tag = "t", content = "c")]`.
    Adjacent(String, String),
    /// `#[serde(untagged)]`.
    Untagged,
}

/// One enum variant.
#[derive(Clone, Debug)]
pub struct Variant {
    /// The Rust identifier.
    pub ident: syn::Ident,
    /// The name on the wire.
    pub wire: String,
    /// Other names it is read under (`#[serde(alias)]`), in order.
    pub aliases: Vec<String>,
    /// Its payload.
    pub payload: Payload,
}

/// An enum variant's payload.
#[derive(Clone, Debug)]
pub enum Payload {
    /// No data.
    Unit,
    /// One unnamed field.
    Newtype(Decode),
    /// Several unnamed fields (a JSON array).
    Tuple(Vec<Decode>),
    /// Named fields (a JSON object).
    Struct(Vec<Field>),
    /// An internally tagged newtype variant over a struct with named fields: the struct
    /// read from the same object, beside the tag (its `FromArg::from_tagged`).
    Merged,
}
