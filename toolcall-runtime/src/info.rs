//! [`ToolInfo`]: one tool as the build rendered it (its name, texts and every stored
//! schema), the row generated tables hold and [`Toolset::describe`](crate::Toolset::describe)
//! returns; and [`Names`], the tool names of a toolset or registry. Plain records: the
//! code that renders, emits and dispatches them sits above.

use std::fmt;

use serde_json::Value;

use crate::error::ToolError;
use crate::meta::Annotations;

/// The provider-neutral description of one tool, as [`Toolset::describe`](crate::Toolset::describe) returns it, and
/// the parts its definitions are assembled from ([`render_infos`](crate::render::render_infos)):
/// each text is stored once, shared by every format that writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToolInfo {
    /// The module path the tool was defined in, relative to the tools root (`weather`).
    pub module: &'static str,
    /// The tool name.
    pub name: &'static str,
    /// A human-readable title (MCP `title`); "" when none.
    pub title: &'static str,
    /// The tool description ("" when none).
    pub description: &'static str,
    /// The input schema as JSON text (plain JSON Schema 2020-12, non-strict): what every
    /// format but Gemini takes when not strict.
    pub parameters: &'static str,
    /// The input schema OpenAI (Chat Completions and Responses) and MCP take in strict mode.
    pub strict_parameters: &'static str,
    /// The input schema Anthropic takes in strict mode.
    pub anthropic_strict_parameters: &'static str,
    /// The input schema Gemini takes (OpenAPI subset); "" when the tool has no parameters
    /// (its declaration then has none).
    pub gemini_parameters: &'static str,
    /// The output schema as JSON text (MCP's `outputSchema`), of any shape: an object
    /// schema for a struct or map result, else an array, integer, string or union schema
    /// (`Vec<T>`, `u64`, `String`, `Option<T>`, an enum). `None` for a result the build
    /// cannot describe, one that says nothing (`serde_json::Value`, `()`) and `Content`.
    /// MCP revisions before 2026-07-28 take only an object schema
    /// ([`ToolInfo::object_output`]), and that is all
    /// [`Toolset::emit`](crate::Toolset::emit)'s MCP definitions carry; a server adds a
    /// schema of another shape for a client on 2026-07-28 or later from here.
    pub output: Option<&'static str>,
    /// MCP's `annotations` object as JSON text; "" when no hint is set.
    pub annotations: &'static str,
    /// The same hints, typed, for filters and approval (`tool.hints.destructive ==
    /// Some(true)`, or [`ToolInfo::is_destructive`]); [`Annotations::NONE`] when none is set.
    pub hints: Annotations,
    /// Anthropic's `input_examples` array as JSON text; "" when there are none.
    pub examples: &'static str,
    /// MCP's `icons` array as JSON text; "" when there are none.
    pub icons: &'static str,
    /// MCP's `_meta` object as JSON text; "" when there is none.
    pub meta: &'static str,
    /// The time limit of one call in milliseconds, from the tool's `ToolMeta::timeout_ms`;
    /// servers and agent loops use it instead of their default.
    pub timeout_ms: Option<u64>,
    /// The OAuth scopes a caller's token must carry to call the tool, from its
    /// `ToolMeta::scopes` (empty when none; [`ToolInfo::scopes`] reads it). Not part of
    /// any definition: no format and no MCP message carries them.
    pub scopes: &'static [&'static str],
    /// Whether the tool returns [`Content`](crate::Content) blocks (`Content`,
    /// `Vec<Content>` or a `Result` of them): its result is the blocks as MCP writes them,
    /// and it has no output schema.
    pub returns_content: bool,
    /// How the tool runs as a task (MCP Tasks extension), from its `ToolMeta::task`,
    /// `task_required` or `task_from_detach`; `None` when it never does.
    pub task: Option<crate::meta::TaskPolicy>,
}

impl ToolInfo {
    /// A row with every text empty and nothing set: generated tables fill in what a tool
    /// has and take the rest from here (`..ToolInfo::EMPTY`).
    pub const EMPTY: ToolInfo = ToolInfo {
        module: "",
        name: "",
        title: "",
        description: "",
        parameters: "",
        strict_parameters: "",
        anthropic_strict_parameters: "",
        gemini_parameters: "",
        output: None,
        annotations: "",
        hints: Annotations::NONE,
        examples: "",
        icons: "",
        meta: "",
        timeout_ms: None,
        scopes: &[],
        returns_content: false,
        task: None,
    };

    /// Whether the tool says it may destroy or overwrite data (`destructiveHint: true`,
    /// from `ToolMeta::destructive`): what an agent asks a person about, and a viewer's
    /// tool list leaves out.
    pub const fn is_destructive(&self) -> bool {
        matches!(self.hints.destructive, Some(true))
    }

    /// The OAuth scopes a caller's token must carry to call the tool (its
    /// `ToolMeta::scopes`, checked by the build); empty when it needs none beyond what
    /// every request needs. toolcall-mcp's resource server requires them for a
    /// `tools/call` of the tool, and a `tool_filter` can hide the tool from a caller
    /// without them.
    ///
    /// ```
    /// use toolcall_runtime::ToolInfo;
    ///
    /// let add = ToolInfo { name: "add_note", scopes: &["notes:write"], ..ToolInfo::EMPTY };
    /// assert_eq!(add.scopes(), ["notes:write"]);
    /// assert!(ToolInfo::EMPTY.scopes().is_empty());
    /// ```
    pub const fn scopes(&self) -> &'static [&'static str] {
        self.scopes
    }

    /// Whether the tool says it only reads (`readOnlyHint: true`).
    pub const fn is_read_only(&self) -> bool {
        matches!(self.hints.read_only, Some(true))
    }

    /// The input schema parsed into a `serde_json::Value`.
    pub fn parameters_value(&self) -> Value {
        serde_json::from_str(self.parameters).unwrap_or(Value::Null)
    }

    /// The output schema parsed into a `serde_json::Value`, when the tool has one.
    pub fn output_value(&self) -> Option<Value> {
        self.output.and_then(|text| serde_json::from_str(text).ok())
    }

    /// The output schema when it is an object schema (its root says `"type": "object"`:
    /// the result is a struct or a map), the one every MCP revision takes and
    /// [`Toolset::emit`](crate::Toolset::emit)'s MCP definitions carry; `None` when the
    /// tool has none or one of another shape (only MCP 2026-07-28 takes those).
    pub fn object_output(&self) -> Option<&'static str> {
        self.output.filter(|text| is_object_schema(text))
    }
}

/// Whether JSON text `schema` is an object whose `type` is `"object"` (not a list of
/// types, not a union): what MCP revisions before 2026-07-28 require of an `outputSchema`.
fn is_object_schema(schema: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct Root {
        #[serde(rename = "type", default)]
        ty: Option<String>,
    }
    serde_json::from_str::<Root>(schema).is_ok_and(|root| root.ty.as_deref() == Some("object"))
}

/// The error for a call of `name`, which none of `tools` is.
#[cold]
#[inline(never)]
pub(crate) fn unknown_tool(name: &str, tools: &[ToolInfo]) -> ToolError {
    ToolError::UnknownTool { name: name.to_owned(), known: tools.iter().map(|t| t.name.to_owned()).collect() }
}

/// The names of the tools of a [`Toolset`](crate::Toolset) or [`Registry`](crate::Registry), in order: an
/// iterator of `&str` that also prints as a list with `{:?}`.
#[derive(Clone)]
pub struct Names<'a> {
    inner: NamesInner<'a>,
}

#[derive(Clone)]
enum NamesInner<'a> {
    Static(std::slice::Iter<'static, ToolInfo>),
    Owned(std::slice::Iter<'a, String>),
}

impl<'a> Names<'a> {
    /// The names held in `names`.
    pub(crate) fn of(names: &'a [String]) -> Self {
        Names { inner: NamesInner::Owned(names.iter()) }
    }

    /// The names of the rows of `tools`.
    pub(crate) fn of_infos(tools: &'static [ToolInfo]) -> Self {
        Names { inner: NamesInner::Static(tools.iter()) }
    }
}

impl<'a> Iterator for Names<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        match &mut self.inner {
            NamesInner::Static(tools) => tools.next().map(|t| t.name),
            NamesInner::Owned(names) => names.next().map(String::as_str),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.inner {
            NamesInner::Static(tools) => tools.size_hint(),
            NamesInner::Owned(names) => names.size_hint(),
        }
    }
}

impl ExactSizeIterator for Names<'_> {}

impl fmt::Debug for Names<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.clone()).finish()
    }
}
