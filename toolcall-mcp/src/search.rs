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

use rmcp::model::{ProtocolVersion, Tool};
use serde_json::{Value, json};
use toolcall_runtime::Format;
use toolcall_runtime::render::render_tool;
use toolcall_runtime::search::{Document, OwnedIndex};

/// The settings of [`McpServer::tool_search`](crate::McpServer::tool_search), shared with
/// toolcall-agent: the tools `tools/list` still shows, how many tools a search returns,
/// and the search tool's name.
pub use toolcall_runtime::search::{DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, ToolSearch};

/// The search tool's MCP definition: its IR ([`ToolSearch::tool`]) rendered by toolcall's
/// renderer, with an output schema (`{"tools": [..]}`).
pub(crate) fn definition(settings: &ToolSearch) -> Tool {
    let text = render_tool(&settings.tool(), Format::Mcp, false);
    let mut tool: Tool = serde_json::from_str(&text)
        .unwrap_or_else(|_| Tool::new(settings.tool_name().to_owned(), "", rmcp::model::JsonObject::new()));
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
    fn the_definition_is_rendered_from_the_ir_with_an_output_schema() {
        let tool = definition(&ToolSearch::new().named("find_tools"));
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
