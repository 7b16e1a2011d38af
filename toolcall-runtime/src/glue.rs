//! Provider glue: turn a model's tool call into the message that answers it.
//!
//! OpenAI sends `{"id", "function": {"name", "arguments": "<json text>"}}` and expects a
//! `{"role": "tool", "tool_call_id", "content"}` message; Anthropic sends a `tool_use`
//! block with `input` already decoded and expects a `tool_result` block, with
//! `"is_error": true` when the call failed. Errors go back as content the model can read.
//!
//! ```
//! use serde_json::json;
//! use toolcall_runtime::glue::openai_tool_message;
//! use toolcall_runtime::ToolError;
//!
//! let answer = openai_tool_message("call_1", &Err(ToolError::MissingArgument("city".into())));
//! assert_eq!(answer["role"], "tool");
//! assert!(answer["content"].as_str().unwrap().contains("city: missing"));
//! ```

use serde_json::{Value, json};

use crate::call::Runner;
use crate::error::ToolError;

/// The content string for a result: the value's JSON text, or the error's JSON object.
pub fn content(result: &Result<Value, ToolError>) -> String {
    match result {
        Ok(value) => value.to_string(),
        // Serialized directly, not through a `Value`, to keep the field order (`error` first).
        Err(error) => serde_json::to_string(error).unwrap_or_else(|_| error.to_value().to_string()),
    }
}

/// The OpenAI `role: tool` message answering call `id`.
pub fn openai_tool_message(id: &str, result: &Result<Value, ToolError>) -> Value {
    json!({"role": "tool", "tool_call_id": id, "content": content(result)})
}

/// The Anthropic `tool_result` block answering `tool_use` block `id`. Errors are sent as
/// their one-line message with `"is_error": true`.
pub fn anthropic_tool_result(id: &str, result: &Result<Value, ToolError>) -> Value {
    match result {
        Ok(value) => json!({"type": "tool_result", "tool_use_id": id, "content": value.to_string()}),
        Err(error) => json!({
            "type": "tool_result",
            "tool_use_id": id,
            "content": error.to_string(),
            "is_error": true,
        }),
    }
}

/// Runs one OpenAI tool call (an element of `message.tool_calls`) and answers it.
/// A malformed call object is answered with an `InvalidArguments` error, not a panic.
pub fn answer_openai(tools: &impl Runner, call: &Value) -> Value {
    let id = call["id"].as_str().unwrap_or_default();
    let name = call["function"]["name"].as_str();
    let result = match (name, &call["function"]["arguments"]) {
        (Some(name), Value::String(text)) => tools.run_json(name, text),
        // Some gateways send arguments already decoded.
        (Some(name), args @ Value::Object(_)) => tools.run(name, args),
        (Some(_), other) => Err(ToolError::InvalidArguments(crate::error::summarize(other))),
        (None, _) => Err(ToolError::InvalidArguments(crate::error::summarize(call))),
    };
    openai_tool_message(id, &result)
}

/// Runs one Anthropic `tool_use` block and answers it with a `tool_result` block.
pub fn answer_anthropic(tools: &impl Runner, block: &Value) -> Value {
    let id = block["id"].as_str().unwrap_or_default();
    let result = match block["name"].as_str() {
        Some(name) => tools.run(name, &block["input"]),
        None => Err(ToolError::InvalidArguments(crate::error::summarize(block))),
    };
    anthropic_tool_result(id, &result)
}
