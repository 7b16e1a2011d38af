//! MCP's string arguments turned into the JSON the generated decoders read. A prompt's
//! arguments and a URI template's variables arrive as strings; each is handed to the
//! function's decoder as the JSON its parameter takes (a string parameter gets the string,
//! any other the value the text spells: `42`, `true`, `{"a": 1}`), so a prompt or a
//! resource decodes exactly as a tool does and a wrong value gets the tool's message,
//! naming the argument.

use std::collections::BTreeMap;

use rmcp::model::ErrorData;
use serde_json::{Map, Value};
use toolcall_runtime::{ToolError, ToolInfo};

/// What a server says about one parameter of a generated prompt or resource function,
/// read from its input schema once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Argument {
    /// The parameter's wire name.
    pub(crate) name: String,
    /// Its description ("" when none).
    pub(crate) description: String,
    /// Whether it must be given.
    pub(crate) required: bool,
    /// Whether its schema takes a string as it is.
    takes_string: bool,
    /// The values it takes when they are a fixed set of strings (an enum): what it
    /// completes to with no code.
    pub(crate) choices: Vec<String>,
}

/// The parameters of `info`, from its input schema, in order.
pub(crate) fn arguments_of(info: &ToolInfo) -> Vec<Argument> {
    let schema = info.parameters_value();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map_or_else(Vec::new, |names| names.iter().filter_map(Value::as_str).collect());
    let Some(properties) = schema["properties"].as_object() else { return Vec::new() };
    properties
        .iter()
        .map(|(name, property)| {
            let property = resolved(property, &schema);
            Argument {
                name: name.clone(),
                description: property["description"].as_str().unwrap_or_default().to_owned(),
                required: required.contains(&name.as_str()),
                takes_string: takes_string(property, &schema, 0),
                choices: choices(property, &schema),
            }
        })
        .collect()
}

/// The JSON object of arguments for `given` strings: each as the JSON its parameter
/// takes. A name no parameter has is passed as a string, for the decoder to refuse.
pub(crate) fn to_json(arguments: &[Argument], given: &BTreeMap<String, String>) -> Value {
    let mut object = Map::with_capacity(given.len());
    for (name, text) in given {
        let as_string = arguments.iter().find(|a| &a.name == name).is_none_or(|a| a.takes_string);
        let value = if as_string {
            Value::String(text.clone())
        } else {
            serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.clone()))
        };
        object.insert(name.clone(), value);
    }
    Value::Object(object)
}

/// The JSON-RPC error for a failed call of a prompt or resource function: the caller's
/// mistake (an argument that does not decode) is invalid params with the decoder's
/// message; anything else is an internal error with the function's message.
pub(crate) fn call_error(what: &str, error: &ToolError) -> ErrorData {
    let message = format!("{what}: {error}");
    if error.is_call_error() {
        ErrorData::invalid_params(message, None)
    } else {
        ErrorData::internal_error(message, None)
    }
}

/// `property` with a local `$ref` (`#/$defs/Units`) followed once.
fn resolved<'v>(property: &'v Value, root: &'v Value) -> &'v Value {
    property["$ref"]
        .as_str()
        .and_then(|reference| reference.strip_prefix("#/"))
        .and_then(|pointer| root.pointer(&format!("/{pointer}")))
        .unwrap_or(property)
}

/// Whether `schema` takes a JSON string: `type` is or includes `string`, its `enum` or
/// `const` is a string, a branch of `anyOf`/`oneOf` takes one, or it says nothing of its
/// type (any JSON).
fn takes_string(schema: &Value, root: &Value, depth: usize) -> bool {
    let schema = resolved(schema, root);
    if depth > 8 {
        return true;
    }
    match &schema["type"] {
        Value::String(kind) => return kind == "string",
        Value::Array(kinds) => return kinds.iter().any(|k| k == "string"),
        _ => {}
    }
    if let Some(values) = schema["enum"].as_array() {
        return values.iter().any(Value::is_string);
    }
    if let Some(value) = schema.get("const") {
        return value.is_string();
    }
    let branches = schema["anyOf"].as_array().or_else(|| schema["oneOf"].as_array());
    match branches {
        Some(branches) => branches.iter().any(|b| takes_string(b, root, depth + 1)),
        None => true,
    }
}

/// The string values of an enum schema (through `anyOf`/`oneOf` of `const`s), in order.
fn choices(schema: &Value, root: &Value) -> Vec<String> {
    if let Some(values) = schema["enum"].as_array() {
        return values.iter().filter_map(Value::as_str).map(str::to_owned).collect();
    }
    let branches = schema["anyOf"].as_array().or_else(|| schema["oneOf"].as_array());
    let Some(branches) = branches else { return Vec::new() };
    branches
        .iter()
        .flat_map(|branch| {
            let branch = resolved(branch, root);
            match branch["const"].as_str() {
                Some(value) => vec![value.to_owned()],
                None => choices(branch, root),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn argument(schema: Value) -> (bool, Vec<String>) {
        let root = json!({});
        (takes_string(&schema, &root, 0), choices(&schema, &root))
    }

    #[test]
    fn strings_stay_strings_and_the_rest_is_read_as_json() {
        let arguments = vec![
            Argument {
                name: "id".into(),
                description: String::new(),
                required: true,
                takes_string: false,
                choices: vec![],
            },
            Argument {
                name: "q".into(),
                description: String::new(),
                required: true,
                takes_string: true,
                choices: vec![],
            },
        ];
        let given = BTreeMap::from([
            ("id".to_owned(), "42".to_owned()),
            ("q".to_owned(), "42".to_owned()),
            ("extra".to_owned(), "x".to_owned()),
        ]);
        assert_eq!(to_json(&arguments, &given), json!({"extra": "x", "id": 42, "q": "42"}));
        let wrong = BTreeMap::from([("id".to_owned(), "forty".to_owned())]);
        assert_eq!(to_json(&arguments, &wrong), json!({"id": "forty"}), "left for the decoder to refuse");
    }

    #[test]
    fn schemas_say_whether_they_take_a_string_and_which() {
        assert_eq!(argument(json!({"type": "integer"})), (false, vec![]));
        assert_eq!(argument(json!({"type": ["string", "null"]})), (true, vec![]));
        assert_eq!(argument(json!({"enum": ["c", "f"]})), (true, vec!["c".to_owned(), "f".to_owned()]));
        let one_of = json!({"oneOf": [{"const": "asc", "description": "up"}, {"const": "desc"}]});
        assert_eq!(argument(one_of), (true, vec!["asc".to_owned(), "desc".to_owned()]));
        assert_eq!(argument(json!({})), (true, vec![]));
    }
}
