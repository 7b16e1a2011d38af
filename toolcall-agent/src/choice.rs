//! [`ToolChoice`]: whether the model may, must or must not call a tool on a request, or
//! must call one named tool, and how each provider is told:
//!
//! | `ToolChoice` | Chat Completions, Responses | Anthropic `tool_choice` | Gemini `functionCallingConfig` |
//! |---|---|---|---|
//! | `Auto` | (not sent: the default) | (not sent) | (not sent) |
//! | `None` | `"none"` | `{"type":"none"}` | `{"mode":"NONE"}` |
//! | `Required` | `"required"` | `{"type":"any"}` | `{"mode":"ANY"}` |
//! | `Tool(name)` | `{"type":"function",..name}` | `{"type":"tool","name":..}` | `{"mode":"ANY","allowedFunctionNames":[name]}` |
//!
//! Parallel tool calls off ([`Agent::parallel_tool_calls`](crate::Agent::parallel_tool_calls))
//! is `parallel_tool_calls: false` on OpenAI's APIs and `disable_parallel_tool_use: true`
//! on Anthropic's; Gemini has no such switch (the setting is not sent). Neither is sent
//! to a request without tools, which the APIs refuse.

use serde::{Deserialize, Serialize};

/// Whether the model may, must or must not call a tool on a request.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolChoice {
    /// The model decides (every provider's default).
    #[default]
    Auto,
    /// No tool: the model answers with text.
    None,
    /// At least one tool call.
    Required,
    /// A call of this tool (its name as offered: a compiled tool's, or an MCP tool's with
    /// its prefix).
    Tool(String),
}

impl ToolChoice {
    /// A call of tool `name`.
    pub fn tool(name: impl Into<String>) -> Self {
        ToolChoice::Tool(name.into())
    }

    /// Whether this is the default, [`ToolChoice::Auto`] (then nothing is sent).
    pub fn is_auto(&self) -> bool {
        matches!(self, ToolChoice::Auto)
    }
}
