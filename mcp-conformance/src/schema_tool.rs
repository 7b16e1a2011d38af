//! The suite's `json-schema-2020-12` scenario (SEP-1613, SEP-2106): a tool whose input
//! schema is hand-written JSON Schema 2020-12 (`$schema`, `$defs` with an `$anchor` used
//! through `$ref`, `allOf`/`anyOf`, `if`/`then`/`else`, `additionalProperties: false`),
//! which the server must send as written.
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
                "$anchor": "addressDef",
                "type": "object",
                "properties": {
                    "street": { "type": "string" },
                    "city": { "type": "string" }
                }
            }
        },
        "properties": {
            "name": { "type": "string" },
            "address": { "$ref": "#/$defs/address" },
            "contactMethod": { "type": "string", "enum": ["phone", "email"] },
            "phone": { "type": "string" },
            "email": { "type": "string" }
        },
        "allOf": [{ "anyOf": [{ "required": ["phone"] }, { "required": ["email"] }] }],
        "if": { "properties": { "contactMethod": { "const": "phone" } }, "required": ["contactMethod"] },
        "then": { "required": ["phone"] },
        "else": { "required": ["email"] },
        "additionalProperties": false
    }) {
        Value::Object(schema) => schema,
        _ => Map::new(),
    };
    Tool::new(NAME, "Tool with JSON Schema 2020-12 features", schema)
}

/// Calls the tool: checks the arguments against the schema (no other key; `name`, `phone`
/// and `email` strings, `contactMethod` `phone` or `email`; `address` an object whose
/// `street` and `city` are strings; a `phone` when the contact method is the phone, else
/// an `email`) and answers what it received.
pub async fn run<C: Send + Sync>(
    _context: Arc<C>,
    arguments: Map<String, Value>,
    _progress: Progress,
) -> Result<Value, ToolError> {
    let mut mistakes = Vec::new();
    for (key, value) in &arguments {
        match (key.as_str(), value) {
            ("name" | "phone" | "email", Value::String(_)) => {}
            ("contactMethod", Value::String(method)) if method == "phone" || method == "email" => {}
            ("contactMethod", other) => mistakes.push(format!("contactMethod: expected \"phone\" or \"email\", got {other}")),
            ("address", Value::Object(address)) => {
                for (field, value) in address {
                    if matches!(field.as_str(), "street" | "city") && !value.is_string() {
                        mistakes.push(format!("address.{field}: expected a string, got {value}"));
                    }
                }
            }
            (field @ ("name" | "phone" | "email"), other) => {
                mistakes.push(format!("{field}: expected a string, got {other}"))
            }
            ("address", other) => mistakes.push(format!("address: expected an object, got {other}")),
            (other, _) => {
                mistakes.push(format!(
                    "unknown argument `{other}`: the tool takes `name`, `address`, `contactMethod`, `phone` and `email`"
                ))
            }
        }
    }
    let by_phone = arguments.get("contactMethod").and_then(Value::as_str) == Some("phone");
    let needed = if by_phone { "phone" } else { "email" };
    if !arguments.contains_key(needed) {
        let why = if by_phone { "contactMethod is \"phone\"" } else { "contactMethod is not \"phone\"" };
        mistakes.push(format!("missing `{needed}`: {why}"));
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
        assert_eq!(
            keys,
            ["$schema", "type", "$defs", "properties", "allOf", "if", "then", "else", "additionalProperties"]
        );
        assert_eq!(tool.input_schema["$defs"]["address"]["$anchor"], json!("addressDef"));
    }

    #[test]
    fn arguments_the_schema_refuses_are_refused() {
        let good =
            json!({"name": "Ada", "address": {"street": "1 Main St", "city": "London"}, "email": "a@b.c"});
        assert_eq!(call(good.clone()).ok(), Some(json!({"received": good})));
        let bad = call(json!({"name": 7, "address": {"city": 3}, "zip": "x", "contactMethod": "phone"}));
        let Err(ToolError::Failed(text)) = bad else { panic!("refused: {bad:?}") };
        assert_eq!(
            text,
            "name: expected a string, got 7; address.city: expected a string, got 3; \
             unknown argument `zip`: the tool takes `name`, `address`, `contactMethod`, `phone` and `email`; \
             missing `phone`: contactMethod is \"phone\""
        );
    }
}
