//! Tool search over MCP ([`McpServer::tool_search`](crate::McpServer::tool_search)):
//! `tools/list` shows the tools named always visible and one `search_tools` tool; the
//! model asks `search_tools` for what it needs and gets the matching tools' definitions,
//! in `tools/list`'s form for its client's revision, and calls them by name as ever.
//!
//! The ranking is the crate's compiled index (`Builder::tool_search(true)`): nothing is
//! built at start-up for the generated tools. Tools added at run time
//! ([`McpServer::tool`](crate::McpServer::tool)), and a toolset built without an index,
//! are indexed once, as they are added.
//!
//! Why no `call_tool` proxy (FastMCP's transform adds one beside its search tool): a call
//! through a proxy names the proxy, not the tool, to everything that reads a call's name
//! on the way: the OAuth scope check, the tool filter, per-tool time limits, the routing
//! headers of 2026-07-28, telemetry and the host's approval prompt. A found tool is called
//! by its own name and served as any call is: every tool stays callable, whether listed or
//! not, and a caller the filter hides a tool from neither finds nor calls it.

use std::collections::BTreeSet;

use rmcp::model::{ProtocolVersion, Tool};
use serde_json::{Value, json};
use toolcall_runtime::__private::decode_arguments;
use toolcall_runtime::render::render_tool;
use toolcall_runtime::search::{Document, OwnedIndex};
use toolcall_runtime::{Annotations, Format, ToolError, ir};

/// How many tools `search_tools` returns when the model does not say.
pub const DEFAULT_SEARCH_LIMIT: usize = 5;

/// The most tools one search returns, whatever the model asks.
pub const MAX_SEARCH_LIMIT: usize = 50;

/// The settings of tool search: the tools `tools/list` still shows, how many tools a
/// search returns, and the search tool's name.
///
/// ```
/// use toolcall_mcp::ToolSearch;
///
/// let search = ToolSearch::new().always_visible(["whoami"]).limit(8);
/// assert_eq!(search.tool_name(), "search_tools");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolSearch {
    always_visible: BTreeSet<String>,
    limit: usize,
    name: String,
}

impl Default for ToolSearch {
    fn default() -> Self {
        ToolSearch::new()
    }
}

impl ToolSearch {
    /// `tools/list` shows `search_tools` alone; a search returns
    /// [`DEFAULT_SEARCH_LIMIT`] tools unless the model asks for more.
    pub fn new() -> Self {
        ToolSearch {
            always_visible: BTreeSet::new(),
            limit: DEFAULT_SEARCH_LIMIT,
            name: "search_tools".to_owned(),
        }
    }

    /// Tools `tools/list` shows beside the search tool (the few every conversation needs);
    /// searches do not return them again. A name no tool has is an error when the server
    /// starts serving.
    pub fn always_visible(mut self, names: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.always_visible.extend(names.into_iter().map(Into::into));
        self
    }

    /// How many tools a search returns when the model does not say (1 to
    /// [`MAX_SEARCH_LIMIT`]).
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = limit.clamp(1, MAX_SEARCH_LIMIT);
        self
    }

    /// The search tool's name instead of `search_tools` (when a tool of that name exists).
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The search tool's name.
    pub fn tool_name(&self) -> &str {
        &self.name
    }

    /// Whether `name` is listed beside the search tool.
    pub(crate) fn is_always_visible(&self, name: &str) -> bool {
        self.always_visible.contains(name)
    }

    /// The names given as always visible.
    pub(crate) fn always_visible_names(&self) -> impl Iterator<Item = &str> {
        self.always_visible.iter().map(String::as_str)
    }

    /// The search tool as IR: what its definition is rendered from and its arguments
    /// are checked against, as any tool's are.
    fn ir(&self) -> ir::Tool {
        let query = "What you need to do, in words (\"convert currencies\", \"weather forecast for a city\")";
        let limit = format!("How many tools to return; {} when not given", self.limit);
        ir::Tool::new(self.name.clone())
            .description(
                "Find the tools for a task among this server's tools, which are too many to list. \
                 Returns the definitions of the best matches, best first; call a tool found by its name.",
            )
            .param(ir::Param::new("query", ir::Type::string()).description(query))
            .param(
                ir::Param::new("limit", ir::Type::integer_between(1, MAX_SEARCH_LIMIT as i64))
                    .description(limit)
                    .optional(),
            )
            .annotations(Annotations::new(Some(true), None, None, Some(false)))
    }

    /// The search tool's MCP definition: its IR rendered by toolcall's renderer, with an
    /// output schema (`{"tools": [..]}`).
    pub(crate) fn definition(&self) -> Tool {
        let text = render_tool(&self.ir(), Format::Mcp, false);
        let mut tool: Tool = serde_json::from_str(&text)
            .unwrap_or_else(|_| Tool::new(self.name.clone(), "", rmcp::model::JsonObject::new()));
        let output = json!({
            "type": "object",
            "properties": {
                "tools": {
                    "type": "array",
                    "description": "The tools found, best first, as tools/list gives them",
                    "items": {"type": "object"}
                }
            },
            "required": ["tools"]
        });
        if let Value::Object(output) = output {
            tool.output_schema = Some(std::sync::Arc::new(output));
        }
        tool
    }

    /// The query and limit of a `search_tools` call, checked as any tool's arguments are
    /// (the same messages: a missing query, a limit out of range, an unknown argument).
    pub(crate) fn read_arguments(&self, args: &Value) -> Result<(String, usize), ToolError> {
        let args = decode_arguments(&self.ir(), args)?;
        let query = args.get("query").and_then(Value::as_str).unwrap_or_default().to_owned();
        let limit = args.get("limit").and_then(Value::as_u64).map_or(self.limit, |n| n as usize);
        Ok((query, limit.clamp(1, MAX_SEARCH_LIMIT)))
    }
}

/// What a server with search on holds: the settings, and the index of the tools the
/// compiled index does not cover (each a position among the server's tools).
#[derive(Clone, Debug)]
pub(crate) struct Searching {
    pub(crate) settings: ToolSearch,
    /// Whether the toolset's tools are in a compiled index (else they are in `owned`).
    pub(crate) compiled: bool,
    owned: OwnedIndex,
    owned_rows: Vec<usize>,
}

impl Searching {
    /// Search over a toolset whose tools are in a compiled index or not (`compiled`).
    pub(crate) fn new(settings: ToolSearch, compiled: bool) -> Self {
        Searching { settings, compiled, owned: OwnedIndex::new(), owned_rows: Vec::new() }
    }

    /// Indexes the tool at `position` among the server's tools, from its definition.
    pub(crate) fn add(&mut self, position: usize, tool: &Tool) {
        let parameters = Value::Object(tool.input_schema.as_ref().clone());
        let description = tool.description.as_deref().unwrap_or("");
        let title = tool.title.as_deref().unwrap_or("");
        self.owned.add(&Document::of_tool(&tool.name, title, description, "", &parameters));
        self.owned_rows.push(position);
    }

    /// The positions among the server's tools best matching `query`, best first, with
    /// their scores: the compiled index's hits (`compiled`, positions of the toolset's
    /// rows) merged with the run-time index's, all passing `keep`, at most `limit`.
    pub(crate) fn rank(
        &self,
        query: &str,
        limit: usize,
        compiled: Vec<(usize, f32)>,
        keep: impl Fn(usize) -> bool,
    ) -> Vec<usize> {
        let owned = self
            .owned
            .rank(query, limit.saturating_mul(4).max(limit), |row| {
                self.owned_rows.get(row as usize).is_some_and(|at| keep(*at))
            })
            .into_iter()
            .filter_map(|(row, score)| self.owned_rows.get(row as usize).map(|at| (*at, score)));
        let mut hits: Vec<(usize, f32)> =
            compiled.into_iter().filter(|(at, _)| keep(*at)).chain(owned).collect();
        hits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        hits.dedup_by_key(|hit| hit.0);
        hits.into_iter().take(limit).map(|(at, _)| at).collect()
    }
}

/// The result of a search: `{"tools": [...]}`, each the definition a client on `version`
/// gets from `tools/list`.
pub(crate) fn found(tools: &[&Tool], version: Option<&ProtocolVersion>) -> Value {
    let definitions: Vec<Value> = tools
        .iter()
        .map(|tool| {
            let shaped = version.and_then(|v| crate::revision::without_newer_fields(tool, v));
            serde_json::to_value(shaped.as_ref().unwrap_or(tool)).unwrap_or(Value::Null)
        })
        .collect();
    json!({ "tools": definitions })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_checked_as_any_tools_are() {
        let search = ToolSearch::new();
        assert_eq!(search.read_arguments(&json!({"query": "weather"})).ok(), Some(("weather".to_owned(), 5)));
        let two = search.read_arguments(&json!({"query": "weather", "limit": 2})).ok();
        assert_eq!(two, Some(("weather".to_owned(), 2)));
        let error =
            |args: Value| search.read_arguments(&args).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(error(json!({})).contains("query"), "{}", error(json!({})));
        assert!(error(json!({"query": 3})).contains("query"), "{}", error(json!({"query": 3})));
        assert!(error(json!({"query": "x", "limit": 0})).contains("limit"));
        assert!(error(json!({"query": "x", "limit": 51})).contains("limit"));
        assert!(error(json!({"query": "x", "why": 1})).contains("why"));
    }

    #[test]
    fn the_definition_is_rendered_from_the_ir_with_an_output_schema() {
        let tool = ToolSearch::new().named("find_tools").definition();
        assert_eq!(tool.name, "find_tools");
        assert_eq!(tool.input_schema["required"], json!(["query"]));
        assert_eq!(tool.input_schema["properties"]["limit"]["maximum"], json!(MAX_SEARCH_LIMIT));
        assert!(tool.output_schema.is_some_and(|schema| schema["required"] == json!(["tools"])));
        assert_eq!(tool.annotations.and_then(|a| a.read_only_hint), Some(true));
    }

    #[test]
    fn compiled_and_run_time_hits_are_merged_best_first() {
        let mut searching = Searching::new(ToolSearch::new(), true);
        let tool = |name: &str, description: &str| {
            Tool::new(name.to_owned(), description.to_owned(), rmcp::model::JsonObject::new())
        };
        searching.add(7, &tool("shout", "Repeat a word loudly."));
        searching.add(8, &tool("whisper", "Repeat a word quietly."));
        let hits = searching.rank("repeat a word loudly", 5, vec![(2, 0.5)], |_| true);
        assert_eq!(hits, [7, 8, 2]);
        assert_eq!(searching.rank("repeat a word loudly", 5, vec![(2, 0.5)], |at| at != 7), [8, 2]);
        assert_eq!(searching.rank("repeat loudly", 1, Vec::new(), |_| true), [7]);
    }
}
