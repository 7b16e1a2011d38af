//! Tools built at run time: an IR [`Tool`] plus a closure, validated by an IR-driven
//! decoder and rendered on demand by the same renderer the build script uses.
//!
//! ```
//! use serde_json::json;
//! use toolcall_runtime::ir::{Param, Tool, Type};
//! use toolcall_runtime::DynTool;
//!
//! let add = DynTool::new(
//!     Tool::new("add")
//!         .param(Param::new("a", Type::integer()))
//!         .param(Param::new("b", Type::integer()).default(1)),
//!     |args| Ok(json!(args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0))),
//! );
//! assert_eq!(add.run(&json!({"a": 2.0})).unwrap(), json!(3));
//! ```

use std::fmt;

use serde_json::{Map, Value};

use crate::call::invoke;
use crate::error::ToolError;
use crate::ir::Tool;
use crate::render::{Format, render_tool};
use crate::validate::decode_arguments;

type Handler = dyn Fn(&Map<String, Value>) -> Result<Value, String> + Send + Sync;

/// A tool defined at run time: its IR and the function that serves it.
pub struct DynTool {
    tool: Tool,
    handler: Box<Handler>,
}

impl fmt::Debug for DynTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DynTool").field("tool", &self.tool).finish_non_exhaustive()
    }
}

impl DynTool {
    /// A tool served by `handler`. The handler receives the validated arguments, with
    /// integers normalised (`1.0` -> `1`), absent arguments that have a default filled in,
    /// and explicit `null` for a non-nullable optional argument removed. `Err(text)`
    /// becomes `ToolError::Failed(text)`.
    pub fn new(
        tool: Tool,
        handler: impl Fn(&Map<String, Value>) -> Result<Value, String> + Send + Sync + 'static,
    ) -> Self {
        DynTool { tool, handler: Box::new(handler) }
    }

    /// The tool's IR.
    pub fn tool(&self) -> &Tool {
        &self.tool
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.tool.name
    }

    /// Renders this tool's definition for `format` (done on each call).
    pub fn render(&self, format: Format, strict: bool) -> String {
        render_tool(&self.tool, format, strict)
    }

    /// Validates `args` against the IR, then calls the handler.
    pub fn run(&self, args: &Value) -> Result<Value, ToolError> {
        let args = decode_arguments(&self.tool, args)?;
        invoke(&self.tool.name, || (self.handler)(&args).map_err(ToolError::Failed))
    }
}
