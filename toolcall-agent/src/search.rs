//! Tool search ([`Agent::tool_search`](crate::Agent::tool_search)): the model is sent the
//! tools named always visible and a search tool, finds the others by asking it, and calls
//! what it found by name.
//!
//! The ranking is the crate's compiled index (`toolcall_build::Builder::tool_search(true)`,
//! [`Toolset::search`](toolcall_runtime::Toolset::search)): nothing is built at start-up
//! for the compiled tools. A toolset built without an index is indexed once, at the first
//! search of the agent; an MCP server's tools once per listing, when they are listed.
//!
//! Each provider gets the deferral it has natively:
//!
//! - Anthropic: every tool goes out, each one not always visible with
//!   `"defer_loading": true`, plus the search tool (a plain client tool); its answer is a
//!   `tool_result` of `tool_reference` blocks naming the tools found, which the API expands
//!   into their definitions.
//! - OpenAI Responses: the always-visible tools as functions, the others as deferred
//!   functions (`"defer_loading": true`) in one `namespace` per tool module (per MCP
//!   server), and `{"type": "tool_search", "execution": "client"}`; the model's
//!   `tool_search_call` is answered with a `tool_search_output` item holding the found
//!   tools' definitions, in their namespaces.
//! - Chat Completions, Gemini and a [`Model`](crate::Model) of your own: the always-visible
//!   tools and a `search_tools` function; its answer is the found tools' definitions as
//!   JSON text, and from then on every request of the conversation carries them.
//!
//! In the conversation ([`Message`]) a search is a tool call of the search tool's name
//! and its answer `{"tools": [{"name", "description", "parameters"}, ..]}`, whatever the
//! provider: each provider writes it in its own shape, so a conversation goes on with
//! another provider as any other.

use std::collections::{BTreeSet, HashMap};
use std::sync::OnceLock;

use serde_json::{Map, Value, json};
use toolcall_runtime::render::{InputKind, render_infos, render_input, render_tool};
use toolcall_runtime::{Format, ToolError, ToolInfo};

use crate::error::AgentError;
use crate::external::{Catalog, ExternalTool};
use crate::message::Message;

/// The settings of [`Agent::tool_search`](crate::Agent::tool_search), shared with
/// toolcall-mcp: the tools every request still carries, how many tools a search returns,
/// and the search tool's name. On OpenAI Responses the search is the API's own
/// `tool_search` tool, which has no name; the conversation still records its calls under
/// [`ToolSearch::tool_name`].
pub use toolcall_runtime::search::{DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, ToolSearch};

/// The search tool's definition in `format`, rendered from its IR ([`ToolSearch::tool`]).
pub(crate) fn definition(settings: &ToolSearch, format: Format, strict: bool) -> String {
    render_tool(&settings.tool(), format, strict && format != Format::Gemini)
}

/// The search tool's description and parameters (OpenAI Responses' client `tool_search`
/// tool takes them).
pub(crate) fn description_and_parameters(settings: &ToolSearch) -> (String, Value) {
    let tool = settings.tool();
    let parameters = serde_json::from_str(&render_input(&tool, InputKind::Lax)).unwrap_or(Value::Null);
    (tool.description, parameters)
}

/// The query and limit of a search call (JSON text), checked as any tool's arguments are
/// (a missing query, a limit out of range, an unknown argument: the model's to fix).
pub(crate) fn read_arguments(settings: &ToolSearch, text: &str) -> Result<(String, usize), ToolError> {
    let value = if text.trim().is_empty() {
        Value::Object(Map::new())
    } else {
        serde_json::from_str(text).map_err(|e| ToolError::InvalidJson(e.to_string()))?
    };
    settings.read_arguments(&value)
}

/// One tool of a run: compiled, or an MCP server's.
#[derive(Clone, Copy)]
pub(crate) enum Entry<'a> {
    Compiled(&'static ToolInfo),
    External { tool: &'a ExternalTool, group: &'a str },
}

impl<'a> Entry<'a> {
    pub(crate) fn name(&self) -> &'a str {
        match self {
            Entry::Compiled(info) => info.name,
            Entry::External { tool, .. } => &tool.name,
        }
    }

    /// The module path of a compiled tool, the server's group of an MCP tool.
    fn group(&self) -> &'a str {
        match self {
            Entry::Compiled(info) => info.module,
            Entry::External { group, .. } => group,
        }
    }

    /// Its definition in `format`, as `Toolset::emit` (or the MCP catalog) writes it.
    fn definition(&self, format: Format, strict: bool) -> String {
        let strict = strict && format != Format::Gemini;
        match self {
            Entry::Compiled(info) => {
                let array = render_infos(std::slice::from_ref(*info), format, strict);
                let inner = array.strip_prefix('[').and_then(|rest| rest.strip_suffix(']'));
                inner.map(str::to_owned).unwrap_or(array)
            }
            Entry::External { tool, .. } => {
                render_tool(&tool.tool, format, strict && tool.not_strict.is_empty())
            }
        }
    }

    /// Its definition in `format` as a JSON object.
    fn definition_value(&self, format: Format, strict: bool) -> Result<Map<String, Value>, AgentError> {
        match serde_json::from_str(&self.definition(format, strict)) {
            Ok(Value::Object(object)) => Ok(object),
            Ok(other) => Err(AgentError::Definitions(format!("`{}` is not an object: {other}", self.name()))),
            Err(error) => Err(AgentError::Definitions(error.to_string())),
        }
    }

    /// What a search answers about it: name, description, input schema.
    pub(crate) fn found(&self) -> Value {
        let (description, parameters) = match self {
            Entry::Compiled(info) => {
                (info.description.to_owned(), serde_json::from_str(info.parameters).unwrap_or(Value::Null))
            }
            Entry::External { tool, .. } => (
                tool.tool.description.clone(),
                serde_json::from_str(&render_input(&tool.tool, InputKind::Lax)).unwrap_or(Value::Null),
            ),
        };
        json!({"name": self.name(), "description": description, "parameters": parameters})
    }
}

/// Every tool of a run, compiled first, then each MCP server's in order.
pub(crate) fn entries<'a>(
    compiled: &'static [ToolInfo],
    external: Option<&'a Catalog>,
) -> impl Iterator<Item = Entry<'a>> + 'a {
    let lists = external.map(Catalog::lists).unwrap_or_default();
    compiled.iter().map(Entry::Compiled).chain(lists.iter().flat_map(|list| {
        let group = list.namespace();
        list.iter().map(move |tool| Entry::External { tool, group })
    }))
}

/// A search's answer: `{"tools": [..]}`, each tool found as [`Entry::found`] gives it.
pub(crate) fn answer_text(found: &[Entry<'_>]) -> String {
    json!({"tools": found.iter().map(Entry::found).collect::<Vec<_>>()}).to_string()
}

/// The names of the tools a search's answer holds (none when it is not one).
pub(crate) fn found_names(content: &str) -> Vec<String> {
    let Ok(value) = serde_json::from_str::<Value>(content) else { return Vec::new() };
    let tools = value.get("tools").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    tools.iter().filter_map(|tool| tool.get("name")?.as_str().map(str::to_owned)).collect()
}

/// The name of a Responses namespace for tools of `group` (a module path, an MCP
/// server's group): characters other than letters, digits, `_` and `-` as `_`, at most 64;
/// `tools` for a tool of no module.
pub(crate) fn namespace_name(group: &str) -> String {
    let valid: String = group
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' })
        .take(64)
        .collect();
    if valid.is_empty() { "tools".to_owned() } else { valid }
}

/// How many tool names a namespace's description lists before it says how many more.
const NAMES_IN_DESCRIPTION: usize = 12;

/// A Responses namespace's description: what the model sees of its tools before it searches.
fn namespace_description(group: &str, names: &[&str]) -> String {
    let shown = names.iter().take(NAMES_IN_DESCRIPTION).copied().collect::<Vec<_>>().join(", ");
    let group = if group.is_empty() { "this application" } else { group };
    match names.len().saturating_sub(NAMES_IN_DESCRIPTION) {
        0 => format!("Tools of {group}: {shown}"),
        more => format!("Tools of {group}: {shown}, and {more} more"),
    }
}

/// What one request with search on offers, and how each provider writes it.
pub(crate) struct Searching<'a> {
    settings: &'a ToolSearch,
    compiled: &'static [ToolInfo],
    external: Option<&'a Catalog>,
    strict: bool,
    /// The tools the conversation's searches found, in the order found (the always-visible
    /// ones left out): sent as plain tools where deferral is not native.
    loaded: Vec<String>,
    /// The plain definitions (always visible, the search tool, the loaded), by format.
    plain: [OnceLock<String>; Format::ALL.len()],
}

impl<'a> Searching<'a> {
    /// The search view of a request sending `messages`.
    pub(crate) fn new(
        settings: &'a ToolSearch,
        compiled: &'static [ToolInfo],
        external: Option<&'a Catalog>,
        strict: bool,
        messages: &[Message],
    ) -> Self {
        let mut searching =
            Searching { settings, compiled, external, strict, loaded: Vec::new(), plain: Default::default() };
        let known: BTreeSet<&str> = searching.entries().map(|entry| entry.name()).collect();
        let mut loaded: Vec<String> = Vec::new();
        for message in messages {
            let Message::Tool { results } = message else { continue };
            for result in results.iter().filter(|r| r.name == settings.tool_name() && !r.is_error) {
                for name in found_names(&result.content) {
                    if known.contains(name.as_str())
                        && !settings.is_always_visible(&name)
                        && !loaded.contains(&name)
                    {
                        loaded.push(name);
                    }
                }
            }
        }
        searching.loaded = loaded;
        searching
    }

    fn entries(&self) -> impl Iterator<Item = Entry<'a>> + 'a {
        entries(self.compiled, self.external)
    }

    /// The search tool's name.
    pub(crate) fn tool_name(&self) -> &str {
        self.settings.tool_name()
    }

    /// Whether `name` is a tool of the run sent deferred (not always visible).
    pub(crate) fn is_deferred(&self, name: &str) -> bool {
        !self.settings.is_always_visible(name) && self.entries().any(|entry| entry.name() == name)
    }

    /// The tools a model without native deferral is sent, as names: the always-visible
    /// ones, the search tool, then the tools the conversation's searches found.
    pub(crate) fn plain_names(&self) -> Vec<&str> {
        let visible =
            self.entries().map(|entry| entry.name()).filter(|name| self.settings.is_always_visible(name));
        let mut names: Vec<&str> = visible.collect();
        names.push(self.settings.tool_name());
        names.extend(self.loaded.iter().map(String::as_str));
        names
    }

    /// [`Searching::plain_names`]' definitions in `format`, a JSON array.
    pub(crate) fn plain_definitions(&self, format: Format) -> &str {
        self.plain[format.index()].get_or_init(|| {
            let by_name: HashMap<&str, Entry<'a>> =
                self.entries().map(|entry| (entry.name(), entry)).collect();
            let definitions = self.plain_names().into_iter().map(|name| match by_name.get(name) {
                Some(entry) => entry.definition(format, self.strict),
                None => definition(self.settings, format, self.strict),
            });
            format!("[{}]", definitions.collect::<Vec<_>>().join(","))
        })
    }

    /// Anthropic's tools: every tool of the run, each one not always visible with
    /// `"defer_loading": true`, then the search tool.
    pub(crate) fn anthropic_tools(&self) -> Result<Vec<Value>, AgentError> {
        let mut tools = Vec::new();
        for entry in self.entries() {
            let mut definition = entry.definition_value(Format::Anthropic, self.strict)?;
            if !self.settings.is_always_visible(entry.name()) {
                definition.insert("defer_loading".to_owned(), Value::Bool(true));
            }
            tools.push(Value::Object(definition));
        }
        tools.push(parse(&definition(self.settings, Format::Anthropic, self.strict))?);
        Ok(tools)
    }

    /// OpenAI Responses' tools: the always-visible tools as functions, every other tool
    /// deferred in the namespace of its module (of its MCP server), then the client
    /// `tool_search` tool.
    pub(crate) fn responses_tools(&self) -> Result<Vec<Value>, AgentError> {
        let mut tools = Vec::new();
        let mut deferred = Vec::new();
        for entry in self.entries() {
            if self.settings.is_always_visible(entry.name()) {
                let definition = entry.definition_value(Format::OpenAiResponses, self.strict)?;
                tools.push(Value::Object(definition));
            } else {
                deferred.push(entry);
            }
        }
        tools.extend(self.namespaces(&deferred)?);
        let (description, parameters) = description_and_parameters(self.settings);
        tools.push(json!({
            "type": "tool_search",
            "execution": "client",
            "description": description,
            "parameters": parameters,
        }));
        Ok(tools)
    }

    /// The tools a Responses `tool_search_output` loads: the deferred tools among `names`,
    /// in their namespaces.
    pub(crate) fn responses_found(&self, names: &[String]) -> Result<Vec<Value>, AgentError> {
        let found: Vec<Entry<'a>> = names
            .iter()
            .filter_map(|name| self.entries().find(|entry| entry.name() == name))
            .filter(|entry| !self.settings.is_always_visible(entry.name()))
            .collect();
        self.namespaces(&found)
    }

    /// `entries` as Responses namespaces, one per group in order of first appearance, each
    /// function with `"defer_loading": true`; a namespace's description names every
    /// deferred tool of its group.
    fn namespaces(&self, entries: &[Entry<'a>]) -> Result<Vec<Value>, AgentError> {
        let mut groups: Vec<(String, Vec<Value>)> = Vec::new();
        for entry in entries {
            let name = namespace_name(entry.group());
            let mut definition = entry.definition_value(Format::OpenAiResponses, self.strict)?;
            definition.insert("defer_loading".to_owned(), Value::Bool(true));
            match groups.iter_mut().find(|(group, _)| *group == name) {
                Some((_, functions)) => functions.push(Value::Object(definition)),
                None => groups.push((name, vec![Value::Object(definition)])),
            }
        }
        let namespaces = groups.into_iter().map(|(name, functions)| {
            let members: Vec<Entry<'a>> = self
                .entries()
                .filter(|entry| {
                    namespace_name(entry.group()) == name && !self.settings.is_always_visible(entry.name())
                })
                .collect();
            let group = members.first().map_or("", |entry| entry.group());
            let names: Vec<&str> = members.iter().map(|entry| entry.name()).collect();
            json!({
                "type": "namespace",
                "name": name,
                "description": namespace_description(group, &names),
                "tools": functions,
            })
        });
        Ok(namespaces.collect())
    }

    /// The Responses namespace of tool `name` when it is sent deferred.
    pub(crate) fn namespace_of(&self, name: &str) -> Option<String> {
        if self.settings.is_always_visible(name) {
            return None;
        }
        self.entries().find(|entry| entry.name() == name).map(|entry| namespace_name(entry.group()))
    }
}

/// A definition's text as a JSON value; a toolcall bug when it does not parse.
fn parse(text: &str) -> Result<Value, AgentError> {
    serde_json::from_str(text).map_err(|e| AgentError::Definitions(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_checked_as_any_tools_are() {
        let search = ToolSearch::new();
        assert_eq!(read_arguments(&search, r#"{"query":"weather"}"#).ok(), Some(("weather".to_owned(), 5)));
        assert_eq!(read_arguments(&search, r#"{"query":"x","limit":2}"#).ok(), Some(("x".to_owned(), 2)));
        let error =
            |text: &str| read_arguments(&search, text).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(error("{}").contains("query"), "{}", error("{}"));
        assert!(error(r#"{"query":3}"#).contains("query"));
        assert!(error(r#"{"query":"x","limit":0}"#).contains("limit"));
        assert!(error(r#"{"query":"x","limit":51}"#).contains("limit"));
        assert!(error(r#"{"query":"x","why":1}"#).contains("why"));
        assert!(!error("not json").is_empty());
    }

    #[test]
    fn a_search_answer_gives_its_names_back() {
        assert_eq!(found_names(r#"{"tools":[{"name":"a"},{"name":"b"}]}"#), ["a", "b"]);
        assert!(found_names("not json").is_empty());
        assert!(found_names(r#"{"error":"x"}"#).is_empty());
    }

    #[test]
    fn namespaces_are_valid_names() {
        assert_eq!(namespace_name("notes"), "notes");
        assert_eq!(namespace_name("billing::invoices"), "billing__invoices");
        assert_eq!(namespace_name(""), "tools");
        assert_eq!(namespace_name(&"x".repeat(80)).len(), 64);
        let names: Vec<String> = (0..14).map(|i| format!("t{i}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        assert!(namespace_description("m", &names).ends_with("t11, and 2 more"));
    }
}
