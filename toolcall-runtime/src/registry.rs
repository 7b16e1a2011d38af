//! [`Registry`]: static toolsets and runtime-built tools in one collection that routes
//! calls by name. Adding a tool whose name is already taken is an error, never a silent
//! overwrite.

use std::collections::HashMap;
use std::fmt;

use serde_json::Value;

use crate::call::Runner;
use crate::dynamic::DynTool;
use crate::error::ToolError;
use crate::render::Format;
use crate::search::{Document, OwnedIndex};
use crate::toolset::Toolset;

/// Adding a tool failed because its name is already in the registry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DuplicateTool {
    /// The name that appears twice.
    pub name: String,
}

impl fmt::Display for DuplicateTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a tool named `{}` is already registered", self.name)
    }
}

impl std::error::Error for DuplicateTool {}

/// Where a registered name is served.
#[derive(Clone, Copy, Debug)]
enum Route {
    Static(usize),
    Dynamic(usize),
}

/// A collection of static toolsets and runtime-built tools.
///
/// ```
/// use serde_json::json;
/// use toolcall_runtime::ir::{Param, Tool, Type};
/// use toolcall_runtime::{DynTool, Registry};
///
/// let mut registry = Registry::new();
/// let echo = Tool::new("echo").param(Param::new("text", Type::string()));
/// registry.add_tool(DynTool::new(echo.clone(), |a| Ok(a["text"].clone()))).unwrap();
/// assert!(registry.add_tool(DynTool::new(echo, |_| Ok(json!(null)))).is_err());
/// assert_eq!(registry.run("echo", &json!({"text": "hi"})).unwrap(), json!("hi"));
/// ```
#[derive(Debug, Default)]
pub struct Registry {
    sets: Vec<&'static Toolset>,
    tools: Vec<DynTool>,
    routes: HashMap<String, Route>,
    order: Vec<String>,
    /// Every tool's search document, indexed once as the tool is added: row `i` is
    /// `order[i]`.
    index: OwnedIndex,
}

/// One tool a [`Registry::search`] found: its name, and how well it matched (BM25;
/// higher is better, comparable only within one search).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RegistryHit<'a> {
    /// The tool's name.
    pub name: &'a str,
    /// Its score for the query.
    pub score: f32,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Self {
        Registry::default()
    }

    /// Adds every tool of a static toolset; fails, adding nothing, if any name is taken.
    pub fn add_toolset(&mut self, set: &'static Toolset) -> Result<&mut Self, DuplicateTool> {
        let mut names: Vec<&str> = Vec::with_capacity(set.len());
        for name in set.names() {
            if self.routes.contains_key(name) || names.contains(&name) {
                return Err(DuplicateTool { name: name.to_owned() });
            }
            names.push(name);
        }
        let index = self.sets.len();
        self.sets.push(set);
        for (name, info) in names.into_iter().zip(set.describe()) {
            self.insert(name, Route::Static(index), &Document::of_info(info));
        }
        Ok(self)
    }

    /// Adds a runtime-built tool; fails if its name is taken.
    pub fn add_tool(&mut self, tool: DynTool) -> Result<&mut Self, DuplicateTool> {
        if self.routes.contains_key(tool.name()) {
            return Err(DuplicateTool { name: tool.name().to_owned() });
        }
        let name = tool.name().to_owned();
        let document = Document::of_ir(tool.tool(), "");
        self.insert(&name, Route::Dynamic(self.tools.len()), &document);
        self.tools.push(tool);
        Ok(self)
    }

    fn insert(&mut self, name: &str, route: Route, document: &Document) {
        self.routes.insert(name.to_owned(), route);
        self.order.push(name.to_owned());
        self.index.add(document);
    }

    /// The tools best matching `query`, best first, at most `limit`: the same BM25 search
    /// as [`Toolset::search`] (one tokenizer, one set of weights), over an index of every
    /// tool added, static or built at run time, each read once as it was added.
    ///
    /// ```
    /// use toolcall_runtime::ir::{Param, Tool, Type};
    /// use toolcall_runtime::{DynTool, Registry};
    ///
    /// let mut registry = Registry::new();
    /// let rate = Tool::new("exchange_rate")
    ///     .description("The exchange rate between two currencies.")
    ///     .param(Param::new("from", Type::string()));
    /// registry.add_tool(DynTool::new(rate, |_| Ok(serde_json::json!(1.1)))).unwrap();
    /// let echo = Tool::new("echo").description("Repeats the text it is given.");
    /// registry.add_tool(DynTool::new(echo, |a| Ok(a["text"].clone()))).unwrap();
    /// let hits = registry.search("how many euros is a dollar? currency rate", 5);
    /// assert_eq!(hits.len(), 1);
    /// assert_eq!(hits[0].name, "exchange_rate");
    /// ```
    pub fn search(&self, query: &str, limit: usize) -> Vec<RegistryHit<'_>> {
        self.index
            .rank(query, limit, |_| true)
            .into_iter()
            .filter_map(|(row, score)| self.order.get(row as usize).map(|name| RegistryHit { name, score }))
            .collect()
    }

    /// Every tool name, in the order added; prints as a list.
    pub fn names(&self) -> crate::info::Names<'_> {
        crate::info::Names::of(&self.order)
    }

    /// The definitions of every tool as one JSON array: static parts are copied from
    /// their precomputed text, runtime-built tools are rendered now.
    pub fn emit(&self, format: Format, strict: bool) -> String {
        let mut parts: Vec<String> = Vec::with_capacity(self.sets.len() + self.tools.len());
        for set in &self.sets {
            let text = set.emit(format, strict);
            let inner = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')).unwrap_or("");
            if !inner.is_empty() {
                parts.push(inner.to_owned());
            }
        }
        parts.extend(self.tools.iter().map(|t| t.render(format, strict)));
        format!("[{}]", parts.join(","))
    }

    /// Routes a call to the toolset or runtime tool that serves `name`.
    pub fn run(&self, name: &str, args: &Value) -> Result<Value, ToolError> {
        match self.routes.get(name) {
            Some(Route::Static(i)) => self.sets[*i].run(name, args),
            Some(Route::Dynamic(i)) => self.tools[*i].run(args),
            None => Err(ToolError::UnknownTool { name: name.to_owned(), known: self.order.clone() }),
        }
    }
}

impl Runner for Registry {
    fn run(&self, name: &str, args: &Value) -> Result<Value, ToolError> {
        Registry::run(self, name, args)
    }
}
