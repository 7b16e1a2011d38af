//! [`ToolSearch`]: the settings of tool search where a model is sent a search tool instead
//! of every definition (toolcall-mcp's `McpServer::tool_search`, toolcall-agent's
//! `Agent::tool_search`), and the search tool itself: its IR, which every format's
//! definition is rendered from, and the reading of its arguments, checked as any tool's.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::dynamic::DynTool;
use crate::error::ToolError;
use crate::ir;
use crate::meta::Annotations;

/// How many tools a search returns when the model does not say.
pub const DEFAULT_SEARCH_LIMIT: usize = 5;

/// The most tools one search returns, whatever the model asks.
pub const MAX_SEARCH_LIMIT: usize = 50;

/// The settings of tool search: the tools still sent (listed) up front, how many tools a
/// search returns, and the search tool's name.
///
/// ```
/// use toolcall_runtime::search::ToolSearch;
///
/// let search = ToolSearch::new().always_visible(["whoami"]).limit(8);
/// assert_eq!(search.tool_name(), "search_tools");
/// assert_eq!(search.default_limit(), 8);
/// assert!(search.is_always_visible("whoami"));
/// assert_eq!(search.read_arguments(&serde_json::json!({"query": "weather"})).ok(), Some(("weather".into(), 8)));
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
    /// Only the search tool up front; a search returns [`DEFAULT_SEARCH_LIMIT`] tools
    /// unless the model asks for more.
    pub fn new() -> Self {
        ToolSearch {
            always_visible: BTreeSet::new(),
            limit: DEFAULT_SEARCH_LIMIT,
            name: "search_tools".to_owned(),
        }
    }

    /// Tools sent (listed) beside the search tool, never deferred: the few every
    /// conversation needs. Searches do not return them. A name no tool has is refused
    /// where the settings are used (a server does not start, a run does not begin).
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

    /// The search tool's name instead of `search_tools` (when a tool has that name: the
    /// same name twice is refused where the settings are used).
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The search tool's name.
    pub fn tool_name(&self) -> &str {
        &self.name
    }

    /// How many tools a search returns when the model does not say.
    pub fn default_limit(&self) -> usize {
        self.limit
    }

    /// Whether `name` is sent beside the search tool.
    pub fn is_always_visible(&self, name: &str) -> bool {
        self.always_visible.contains(name)
    }

    /// The names given as always visible, in order.
    pub fn always_visible_names(&self) -> impl Iterator<Item = &str> {
        self.always_visible.iter().map(String::as_str)
    }

    /// The search tool as IR: a `query` string and an optional `limit`; every format's
    /// definition of it is rendered from this, and its arguments are checked against it.
    pub fn tool(&self) -> ir::Tool {
        let query = "What you need to do, in words (\"convert currencies\", \"weather forecast for a city\")";
        let limit = format!("How many tools to return; {} when not given", self.limit);
        ir::Tool::new(self.name.clone())
            .description(
                "Find the tools for a task among the tools available, which are too many to list at once. \
                 Returns the best matches, best first; call a tool found by its name.",
            )
            .param(ir::Param::new("query", ir::Type::string()).description(query))
            .param(
                ir::Param::new("limit", ir::Type::integer_between(1, MAX_SEARCH_LIMIT as i64))
                    .description(limit)
                    .optional(),
            )
            .annotations(Annotations::new(Some(true), None, None, Some(false)))
    }

    /// The query and limit of a search call, checked as any tool's arguments are (a
    /// missing query, a limit out of range, an unknown argument: the same messages).
    pub fn read_arguments(&self, args: &Value) -> Result<(String, usize), ToolError> {
        let checker = DynTool::new(self.tool(), |args| Ok(Value::Object(args.clone())));
        let args = checker.run(args)?;
        let query = args.get("query").and_then(Value::as_str).unwrap_or_default().to_owned();
        let limit = args.get("limit").and_then(Value::as_u64).map_or(self.limit, |n| n as usize);
        Ok((query, limit.clamp(1, MAX_SEARCH_LIMIT)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arguments_are_checked_as_any_tools_are() {
        let search = ToolSearch::new();
        assert_eq!(search.read_arguments(&json!({"query": "weather"})).ok(), Some(("weather".to_owned(), 5)));
        let two = search.read_arguments(&json!({"query": "weather", "limit": 2})).ok();
        assert_eq!(two, Some(("weather".to_owned(), 2)));
        let error =
            |args: Value| search.read_arguments(&args).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(error(json!({})).contains("query"), "{}", error(json!({})));
        assert!(error(json!({"query": 3})).contains("query"));
        assert!(error(json!({"query": "x", "limit": 0})).contains("limit"));
        assert!(error(json!({"query": "x", "limit": 51})).contains("limit"));
        assert!(error(json!({"query": "x", "why": 1})).contains("why"));
    }

    #[test]
    fn the_limit_is_kept_in_range() {
        assert_eq!(ToolSearch::new().limit(0).default_limit(), 1);
        assert_eq!(ToolSearch::new().limit(500).default_limit(), MAX_SEARCH_LIMIT);
    }
}
