//! Tools from outside the compiled toolset (an MCP server's, with the `mcp` feature),
//! offered beside the compiled ones: each one's IR (read from the server's JSON Schema),
//! rendered by toolcall-runtime's one renderer in the provider's format, its arguments
//! checked by the IR validator before they are sent, its call answered as a compiled
//! tool's.
//!
//! A run gathers the tools of every [`Source`] into a [`Catalog`] (names checked against
//! the compiled tools' and each other's), and gathers them again before a request when a
//! source's list changed.

use std::collections::HashMap;
use std::future::Future;
use std::ops::Deref;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};

use serde_json::Value;
use toolcall_runtime::ir::Tool;
use toolcall_runtime::render::render_tool;
use toolcall_runtime::search::{Document, OwnedIndex};
use toolcall_runtime::{Content, DynTool, Format, Progress, ToolError};

use crate::error::AgentError;

/// A future that is `Send`, boxed.
pub(crate) type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Where external tools come from (a connected MCP server).
pub(crate) trait Source: Send + Sync {
    /// The source's name in messages (the command line or URL).
    fn label(&self) -> &str;
    /// Its tools as last listed, without asking the source.
    fn current(&self) -> Arc<ToolList>;
    /// Its tools now: listed again first when the source said they changed.
    fn tools(&self) -> BoxFuture<'_, Result<Arc<ToolList>, AgentError>>;
    /// Calls `tool` with arguments the IR validator accepted.
    fn call<'a>(
        &'a self,
        tool: &'a ExternalTool,
        arguments: Value,
        progress: Progress,
    ) -> BoxFuture<'a, Result<Returned, ToolError>>;
}

/// One external tool, as the run offers it.
pub(crate) struct ExternalTool {
    /// The name the model calls it by (the source's prefix, made a valid tool name).
    pub(crate) name: String,
    /// The source's own name for it.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) remote: String,
    /// Its IR, named [`ExternalTool::name`].
    pub(crate) tool: Tool,
    /// The IR validator for its arguments (`None`: the source checks them alone).
    pub(crate) checker: Option<DynTool>,
    /// Why a strict mode cannot take its schema (empty: it can).
    pub(crate) not_strict: Vec<String>,
    /// Whether a call is asked about first ([`Agent::approve`](crate::Agent::approve)).
    pub(crate) destructive: bool,
}

impl ExternalTool {
    /// The model's arguments (JSON text), checked and normalised by the IR validator
    /// (defaults filled in, a `null` for an optional parameter dropped) as a compiled
    /// tool's are: an error is the model's to fix.
    pub(crate) fn arguments(&self, text: &str) -> Result<Value, ToolError> {
        let value = if text.trim().is_empty() {
            Value::Object(serde_json::Map::new())
        } else {
            serde_json::from_str(text).map_err(|e| ToolError::InvalidJson(e.to_string()))?
        };
        match &self.checker {
            Some(checker) => checker.run(&value),
            None if value.is_object() => Ok(value),
            None => Err(ToolError::InvalidArguments(value)),
        }
    }
}

/// One listing of a source's tools, with its search index: each tool is indexed once, when
/// the list is made (that is, when the source is connected, and again only when its list
/// changes), for [`Agent::tool_search`](crate::Agent::tool_search).
pub(crate) struct ToolList {
    tools: Vec<ExternalTool>,
    /// The group the tools are searched and (on OpenAI Responses) namespaced under.
    namespace: String,
    /// Row `i` is `tools[i]`.
    index: OwnedIndex,
}

impl ToolList {
    /// The list of `tools`, grouped under `namespace`, indexed.
    pub(crate) fn new(tools: Vec<ExternalTool>, namespace: impl Into<String>) -> Self {
        let namespace = namespace.into();
        let mut index = OwnedIndex::new();
        for tool in &tools {
            index.add(&Document::of_ir(&tool.tool, &namespace));
        }
        ToolList { tools, namespace, index }
    }

    /// The group the tools belong to (the server's prefix, else its name).
    pub(crate) fn namespace(&self) -> &str {
        &self.namespace
    }

    /// The search index of the tools: row `i` is the `i`th tool.
    pub(crate) fn index(&self) -> &OwnedIndex {
        &self.index
    }
}

impl Deref for ToolList {
    type Target = [ExternalTool];

    fn deref(&self) -> &[ExternalTool] {
        &self.tools
    }
}

/// A call's successful answer.
pub(crate) struct Returned {
    /// What the model reads: the text, or the structured result's JSON text.
    pub(crate) content: String,
    /// The result's blocks when it has more than text (images); else empty.
    pub(crate) blocks: Vec<Content>,
}

/// The external tools of a run: every source's list, by the name the model calls.
#[derive(Default)]
pub(crate) struct Catalog {
    sources: Vec<Arc<dyn Source>>,
    lists: Vec<Arc<ToolList>>,
    by_name: HashMap<String, (usize, usize)>,
    names: Vec<String>,
    /// The definitions of every tool, compiled then external, by format.
    rendered: [OnceLock<String>; Format::ALL.len()],
}

impl Catalog {
    /// Every source's current tools; a name taken twice (by a compiled tool or another
    /// source) is [`AgentError::Config`].
    pub(crate) async fn gather(
        sources: &[Arc<dyn Source>],
        compiled: &[&str],
    ) -> Result<Catalog, AgentError> {
        let mut lists = Vec::with_capacity(sources.len());
        for source in sources {
            lists.push(source.tools().await?);
        }
        Catalog::of(sources.to_vec(), lists, compiled)
    }

    fn of(
        sources: Vec<Arc<dyn Source>>,
        lists: Vec<Arc<ToolList>>,
        compiled: &[&str],
    ) -> Result<Catalog, AgentError> {
        let mut by_name = HashMap::new();
        let mut names = Vec::new();
        for (s, list) in lists.iter().enumerate() {
            for (t, tool) in list.iter().enumerate() {
                let label = sources.get(s).map_or("", |source| source.label());
                if compiled.contains(&tool.name.as_str()) {
                    return Err(AgentError::Config(format!(
                        "tool `{}` of MCP server `{label}` has the name of a compiled tool: give the server a prefix (McpToolset::prefix)",
                        tool.name
                    )));
                }
                if let Some((other, _)) = by_name.insert(tool.name.clone(), (s, t)) {
                    let other = sources.get(other).map_or("", |source| source.label());
                    return Err(AgentError::Config(format!(
                        "tool `{}` of MCP server `{label}` has the name of a tool of MCP server `{other}`: give one of them a prefix (McpToolset::prefix)",
                        tool.name
                    )));
                }
                names.push(tool.name.clone());
            }
        }
        Ok(Catalog { sources, lists, by_name, names, rendered: Default::default() })
    }

    /// The same catalog, or a new one when a source's list changed since.
    pub(crate) async fn refreshed(self, compiled: &[&str]) -> Result<Catalog, AgentError> {
        let mut lists = Vec::with_capacity(self.sources.len());
        let mut changed = false;
        for (source, old) in self.sources.iter().zip(&self.lists) {
            let list = source.tools().await?;
            changed |= !Arc::ptr_eq(&list, old);
            lists.push(list);
        }
        if !changed {
            return Ok(self);
        }
        Catalog::of(self.sources, lists, compiled)
    }

    /// Whether there are no external tools.
    pub(crate) fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The external tools' names, in order.
    pub(crate) fn names(&self) -> &[String] {
        &self.names
    }

    /// Every source's tools as listed, in the order the sources were given.
    pub(crate) fn lists(&self) -> &[Arc<ToolList>] {
        &self.lists
    }

    /// The tool the model calls `name`, and its source.
    pub(crate) fn find(&self, name: &str) -> Option<(&dyn Source, &ExternalTool)> {
        let (s, t) = *self.by_name.get(name)?;
        Some((self.sources.get(s)?.as_ref(), self.lists.get(s)?.get(t)?))
    }

    /// The definitions in `format`: the compiled ones (`compiled`, as `emit` gives them,
    /// byte for byte) followed by each external tool's, strict when `strict` and its
    /// schema can be.
    pub(crate) fn definitions(&self, compiled: &'static str, format: Format, strict: bool) -> &str {
        self.rendered[format.index()].get_or_init(|| {
            let mut out = compiled.trim_end().strip_suffix(']').unwrap_or("[").to_owned();
            let mut first = out.trim_end() == "[";
            for tool in self.lists.iter().flat_map(|list| list.iter()) {
                if !first {
                    out.push(',');
                }
                first = false;
                out.push_str(&render_tool(&tool.tool, format, strict && tool.not_strict.is_empty()));
            }
            out.push(']');
            out
        })
    }
}
