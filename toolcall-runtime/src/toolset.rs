//! [`Toolset`]: the `'static` value generated code defines per tool module and for the
//! whole crate. It holds precomputed schema strings and a `match` dispatcher, so `emit`
//! is a table lookup and `run` is one string match plus the decoding.

use serde_json::Value;

use crate::call::Runner;
use crate::error::ToolError;
use crate::render::Format;

/// What generated dispatchers look like: `None` when `name` is not one of theirs.
pub type DispatchFn = fn(name: &str, args: &Value) -> Option<Result<Value, ToolError>>;

/// The provider-neutral description of one tool, as [`Toolset::describe`] returns it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToolInfo {
    /// The module path the tool was defined in, relative to the tools root (`weather`).
    pub module: &'static str,
    /// The tool name.
    pub name: &'static str,
    /// The tool description ("" when none).
    pub description: &'static str,
    /// The input schema as JSON text (plain JSON Schema 2020-12, non-strict).
    pub parameters: &'static str,
}

impl ToolInfo {
    /// The input schema parsed into a `serde_json::Value`.
    pub fn parameters_value(&self) -> Value {
        serde_json::from_str(self.parameters).unwrap_or(Value::Null)
    }
}

/// Precomputed definitions for each format, strict or not: `[format.index()][strict]`.
pub type SchemaTable = [[&'static str; 2]; 3];

/// A fixed set of tools with their schemas rendered at build time.
///
/// Generated code builds these as statics (`toolset::weather::TOOLS`, `toolset::ALL`);
/// nothing is rendered or allocated when they are read.
#[derive(Clone, Copy, Debug)]
pub struct Toolset {
    tools: &'static [ToolInfo],
    schemas: &'static SchemaTable,
    dispatch: DispatchFn,
}

impl Toolset {
    /// Builds a toolset from precomputed parts. Generated code calls this; the `schemas`
    /// arrays must list the same tools as `tools`, in the same order.
    pub const fn new(
        tools: &'static [ToolInfo],
        schemas: &'static SchemaTable,
        dispatch: DispatchFn,
    ) -> Self {
        Toolset { tools, schemas, dispatch }
    }

    /// The tool definitions for `format` as a JSON array, precomputed.
    ///
    /// ```text
    /// let body = toolset::ALL.emit(Format::OpenAi, true); // &'static str
    /// ```
    pub fn emit(&self, format: Format, strict: bool) -> &'static str {
        self.schemas[format.index()][usize::from(strict)]
    }

    /// [`Toolset::emit`] parsed into a `serde_json::Value` (keys ordered by `serde_json`).
    pub fn emit_value(&self, format: Format, strict: bool) -> Value {
        serde_json::from_str(self.emit(format, strict)).unwrap_or(Value::Null)
    }

    /// The tool names, in definition order.
    pub fn names(&self) -> impl ExactSizeIterator<Item = &'static str> + '_ {
        self.tools.iter().map(|t| t.name)
    }

    /// Module, name, description and input schema of every tool.
    pub fn describe(&self) -> &'static [ToolInfo] {
        self.tools
    }

    /// Whether a tool named `name` is in this set.
    pub fn contains(&self, name: &str) -> bool {
        self.tools.iter().any(|t| t.name == name)
    }

    /// Number of tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether the set has no tools.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Decodes `args`, calls the tool and returns its result as JSON.
    pub fn run(&self, name: &str, args: &Value) -> Result<Value, ToolError> {
        match (self.dispatch)(name, args) {
            Some(result) => result,
            None => Err(ToolError::UnknownTool {
                name: name.to_owned(),
                known: self.names().map(str::to_owned).collect(),
            }),
        }
    }

    /// Like [`Toolset::run`], with the arguments as JSON text (as OpenAI sends them).
    pub fn run_json(&self, name: &str, args: &str) -> Result<Value, ToolError> {
        let args = crate::call::parse_arguments(args.as_bytes())?;
        self.run(name, &args)
    }

    /// Like [`Toolset::run_json`], from raw bytes; invalid UTF-8 is `InvalidJson`.
    pub fn run_bytes(&self, name: &str, args: &[u8]) -> Result<Value, ToolError> {
        let args = crate::call::parse_arguments(args)?;
        self.run(name, &args)
    }
}

impl Runner for Toolset {
    fn run(&self, name: &str, args: &Value) -> Result<Value, ToolError> {
        Toolset::run(self, name, args)
    }
}
