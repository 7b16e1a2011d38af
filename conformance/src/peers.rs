//! The peers' own checks on strict schemas, ported to Rust so CI runs them without Python
//! or a network (`tests/peer_checks.rs`); `scripts/peer_sdks.py` runs the originals (see
//! RELIABILITY.md).
//!
//! * [`anthropic_transform_schema`]: Anthropic's Python SDK, `transform_schema` in
//!   `anthropic/lib/_parse/_transform.py` (anthropic 2.15), which rewrites a strict schema
//!   the way the API takes it and raises on a node that says nothing of what it holds.
//! * [`openai_agents_depth`]: OpenAI's Agents SDK, `_validate_json_schema_depth` in
//!   `agents/strict_schema.py` (openai-agents 0.x), which refuses a strict schema whose
//!   objects and arrays nest past `_MAX_SCHEMA_DEPTH` = 100.

use serde_json::{Map, Value};

/// `_MAX_SCHEMA_DEPTH` of openai-agents' `strict_schema.py`.
pub const OPENAI_AGENTS_MAX_DEPTH: usize = 100;

/// The string formats `transform_schema` keeps (`SupportedStringFormats`); others go into
/// the description.
const SUPPORTED_STRING_FORMATS: &[&str] =
    &["date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"];

/// The error `transform_schema` raises on a node without a type.
pub const UNTYPED_NODE: &str = "Schema must have a 'type', 'anyOf', 'oneOf', or 'allOf' field, or a \
     'const' or non-empty 'enum' of strings, numbers, booleans, or null.";

/// Anthropic's `transform_schema`, step for step: the schema as the SDK would send it, or
/// the error it raises. Recursion is bounded by the schema's own depth (emitted schemas
/// nest at most 120 levels).
pub fn anthropic_transform_schema(schema: &Value) -> Result<Value, String> {
    let Some(input) = schema.as_object() else {
        return Err(format!("not a schema object: {schema}"));
    };
    let mut json_schema: Map<String, Value> = input.clone();
    let mut strict = Map::new();
    if let Some(defs) = json_schema.remove("$defs") {
        let mut strict_defs = Map::new();
        for (name, def) in defs.as_object().into_iter().flatten() {
            strict_defs.insert(name.clone(), anthropic_transform_schema(def)?);
        }
        strict.insert("$defs".to_owned(), Value::Object(strict_defs));
    }
    if let Some(reference) = json_schema.remove("$ref") {
        strict.insert("$ref".to_owned(), reference);
        return Ok(Value::Object(strict));
    }
    let mut type_ = json_schema.remove("type");
    let any_of = json_schema.remove("anyOf");
    let one_of = json_schema.remove("oneOf");
    let all_of = json_schema.remove("allOf");
    let primitive_enum = json_schema
        .get("enum")
        .and_then(Value::as_array)
        .is_some_and(|values| !values.is_empty() && values.iter().all(is_primitive));
    if primitive_enum && let Some(values) = json_schema.remove("enum") {
        strict.insert("enum".to_owned(), values);
    }
    if json_schema.get("const").is_some_and(is_primitive)
        && let Some(value) = json_schema.remove("const")
    {
        strict.insert("const".to_owned(), value);
    }
    let has_literals = strict.contains_key("enum") || strict.contains_key("const");
    if has_literals {
        type_ = None;
    }
    let branches = |list: &Value| -> Result<Value, String> {
        let items = list.as_array().ok_or_else(|| format!("branches are not a list: {list}"))?;
        items.iter().map(anthropic_transform_schema).collect::<Result<Vec<_>, _>>().map(Value::Array)
    };
    if let Some(list) = any_of.as_ref().filter(|l| l.is_array()) {
        strict.insert("anyOf".to_owned(), branches(list)?);
    } else if let Some(list) = one_of.as_ref().filter(|l| l.is_array()) {
        strict.insert("anyOf".to_owned(), branches(list)?);
    } else if let Some(list) = all_of.as_ref().filter(|l| l.is_array()) {
        strict.insert("allOf".to_owned(), branches(list)?);
    } else if !has_literals {
        match &type_ {
            Some(name) => {
                strict.insert("type".to_owned(), name.clone());
            }
            None => return Err(format!("{UNTYPED_NODE} ({schema})")),
        }
    }
    for key in ["description", "title"] {
        if let Some(value) = json_schema.remove(key) {
            strict.insert(key.to_owned(), value);
        }
    }
    match type_.as_ref().and_then(Value::as_str) {
        Some("object") => {
            let mut properties = Map::new();
            if let Some(Value::Object(given)) = json_schema.remove("properties") {
                for (key, property) in &given {
                    properties.insert(key.clone(), anthropic_transform_schema(property)?);
                }
            }
            strict.insert("properties".to_owned(), Value::Object(properties));
            json_schema.remove("additionalProperties");
            strict.insert("additionalProperties".to_owned(), Value::Bool(false));
            if let Some(required) = json_schema.remove("required") {
                strict.insert("required".to_owned(), required);
            }
        }
        Some("string") => {
            if let Some(format) = json_schema.remove("format") {
                if format.as_str().is_some_and(|f| SUPPORTED_STRING_FORMATS.contains(&f)) {
                    strict.insert("format".to_owned(), format);
                } else {
                    json_schema.insert("format".to_owned(), format);
                }
            }
        }
        Some("array") => {
            if let Some(items) = json_schema.remove("items") {
                strict.insert("items".to_owned(), anthropic_transform_schema(&items)?);
            }
            if let Some(min) = json_schema.remove("minItems") {
                if matches!(min.as_u64(), Some(0 | 1)) {
                    strict.insert("minItems".to_owned(), min);
                } else {
                    json_schema.insert("minItems".to_owned(), min);
                }
            }
        }
        Some("boolean" | "integer" | "number" | "null") => {}
        None if type_.is_none() => {}
        // `assert_never(type_)`: a type array (`["string","null"]`) or an unknown name.
        _ => return Err(format!("Expected code to be unreachable, but got: {type_:?}")),
    }
    // What is left is appended to the description, which the SDK does; the text differs
    // from Python's repr, and no check here reads it.
    if !json_schema.is_empty() {
        let rest: Vec<String> = json_schema.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        let before = strict.get("description").and_then(Value::as_str).map(|d| format!("{d}\n\n"));
        let text = format!("{}{{{}}}", before.unwrap_or_default(), rest.join(", "));
        strict.insert("description".to_owned(), Value::String(text));
    }
    Ok(Value::Object(strict))
}

fn is_primitive(value: &Value) -> bool {
    matches!(value, Value::Null | Value::String(_) | Value::Number(_) | Value::Bool(_))
}

/// How deep the objects and arrays of `schema` nest, counted as openai-agents'
/// `_validate_json_schema_depth` counts them (the schema itself is 1).
pub fn openai_agents_depth(schema: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(schema, 1usize)];
    while let Some((value, depth)) = stack.pop() {
        deepest = deepest.max(depth);
        let children: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Object(map) => Box::new(map.values()),
            Value::Array(items) => Box::new(items.iter()),
            _ => continue,
        };
        stack.extend(children.filter(|c| c.is_object() || c.is_array()).map(|c| (c, depth + 1)));
    }
    deepest
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_port_does_what_the_sdk_does() {
        // The SDK's own docstring example.
        let got = anthropic_transform_schema(
            &json!({"type": "integer", "minimum": 1, "maximum": 10, "description": "A number"}),
        );
        let Ok(Value::Object(map)) = got else { panic!("{got:?}") };
        assert_eq!(map.get("type"), Some(&json!("integer")));
        assert!(
            map.get("description").and_then(Value::as_str).is_some_and(|d| d.starts_with("A number\n\n{"))
        );
        let closed =
            anthropic_transform_schema(&json!({"type": "object", "properties": {"a": {"type": "string"}}}));
        assert_eq!(
            closed,
            Ok(
                json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false})
            )
        );
        for refused in
            [json!({}), json!({"description": "same shape as the enclosing Tree"}), json!({"enum": []})]
        {
            let error = anthropic_transform_schema(&refused);
            assert!(error.as_ref().is_err_and(|e| e.starts_with("Schema must have a 'type'")), "{error:?}");
        }
        let nested = json!({"type": "object", "properties": {"a": {"type": "array", "items": {}}}});
        assert!(anthropic_transform_schema(&nested).is_err());
        // One type name only: a type array is refused (the SDK's `assert_never`).
        let array = anthropic_transform_schema(&json!({"type": ["string", "null"]}));
        assert!(array.as_ref().is_err_and(|e| e.contains("unreachable")), "{array:?}");
        assert!(
            anthropic_transform_schema(&json!({"anyOf": [{"type": "string"}, {"type": "null"}]})).is_ok()
        );
        assert_eq!(
            anthropic_transform_schema(&json!({"$ref": "#/$defs/A", "x": 1})),
            Ok(json!({"$ref": "#/$defs/A"}))
        );
    }

    #[test]
    fn depth_counts_every_object_and_array() {
        assert_eq!(openai_agents_depth(&json!({})), 1);
        assert_eq!(openai_agents_depth(&json!({"a": [{"b": []}], "c": {}})), 4);
        assert_eq!(openai_agents_depth(&json!({"a": "x"})), 1);
    }
}
