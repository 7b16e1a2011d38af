//! The suite's `json-schema-2020-12` scenario (SEP-1613): a tool whose input schema is
//! hand-written JSON Schema 2020-12 (`$schema`, `$defs` used through `$ref`,
//! `additionalProperties: false`), which the server must send as written.
//!
//! toolcall derives a tool's schema from its Rust signature, and its renderer never writes
//! `$schema` (MCP's default dialect is 2020-12 already) nor a `$defs` entry for a type
//! that is not recursive; so this tool is not a function in `src/tools`. It is a tool added
//! at run time with [`McpServer::tool`](toolcall_mcp::McpServer::tool), whose definition is
//! served verbatim. Its arguments reach [`run`] unchecked, so [`run`] checks them against
//! the same schema.

use std::sync::Arc;

use serde_json::{Map, Value, json};
use toolcall_mcp::rmcp::model::Tool;
use toolcall_runtime::{Progress, ToolError};

/// The tool's name, as the suite asks for it.
pub const NAME: &str = "json_schema_2020_12_tool";

/// The dialect the schema names.
pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The tool's definition, with the input schema the suite describes, key for key.
pub fn definition() -> Tool {
    let schema = match json!({
        "$schema": DIALECT,
        "type": "object",
        "$defs": {
            "address": {
                "type": "object",
                "properties": {
                    "street": { "type": "string" },
                    "city": { "type": "string" }
                }
            }
        },
        "properties": {
            "name": { "type": "string" },
            "address": { "$ref": "#/$defs/address" }
        },
        "additionalProperties": false
    }) {
        Value::Object(schema) => schema,
        _ => Map::new(),
    };
    Tool::new(NAME, "Tool with JSON Schema 2020-12 features", schema)
}

/// Calls the tool: checks the arguments against the schema (no other key; `name` a
/// string; `address` an object whose `street` and `city` are strings) and answers what it
/// received.
pub async fn run<C: Send + Sync>(
    _context: Arc<C>,
    arguments: Map<String, Value>,
    _progress: Progress,
) -> Result<Value, ToolError> {
    let mut mistakes = Vec::new();
    for (key, value) in &arguments {
        match (key.as_str(), value) {
            ("name", Value::String(_)) => {}
            ("address", Value::Object(address)) => {
                for (field, value) in address {
                    if matches!(field.as_str(), "street" | "city") && !value.is_string() {
                        mistakes.push(format!("address.{field}: expected a string, got {value}"));
                    }
                }
            }
            ("name", other) => mistakes.push(format!("name: expected a string, got {other}")),
            ("address", other) => mistakes.push(format!("address: expected an object, got {other}")),
            (other, _) => {
                mistakes.push(format!("unknown argument `{other}`: the tool takes `name` and `address`"))
            }
        }
    }
    if !mistakes.is_empty() {
        return Err(ToolError::Failed(mistakes.join("; ")));
    }
    Ok(json!({ "received": arguments }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(arguments: Value) -> Result<Value, ToolError> {
        let Value::Object(arguments) = arguments else {
            return Err(ToolError::Failed("not an object".into()));
        };
        let future = run(Arc::new(()), arguments, Progress::default());
        tokio::runtime::Builder::new_current_thread()
            .build()
            .map_err(|e| ToolError::Failed(e.to_string()))?
            .block_on(future)
    }

    #[test]
    fn the_schema_keeps_the_keywords_the_suite_checks() {
        let tool = definition();
        assert_eq!(tool.input_schema.get("$schema"), Some(&json!(DIALECT)));
        assert!(tool.input_schema.get("$defs").and_then(|defs| defs.get("address")).is_some());
        assert_eq!(tool.input_schema.get("additionalProperties"), Some(&json!(false)));
        let keys: Vec<&str> = tool.input_schema.keys().map(String::as_str).collect();
        assert_eq!(keys, ["$schema", "type", "$defs", "properties", "additionalProperties"]);
    }

    #[test]
    fn arguments_the_schema_refuses_are_refused() {
        let good = json!({"name": "Ada", "address": {"street": "1 Main St", "city": "London"}});
        assert_eq!(call(good.clone()).ok(), Some(json!({"received": good})));
        let bad = call(json!({"name": 7, "address": {"city": 3}, "zip": "x"}));
        let Err(ToolError::Failed(text)) = bad else { panic!("refused: {bad:?}") };
        assert_eq!(
            text,
            "name: expected a string, got 7; address.city: expected a string, got 3; \
             unknown argument `zip`: the tool takes `name` and `address`"
        );
    }
}
