//! Typed answers: a crate type a model answers with, instead of calling a tool.
//!
//! [`OutputType`] is what an agent needs of such a type: its [`OutputSpec`] (a name, a
//! description, the JSON Schema the answer must match) and a decoder from the answer's
//! JSON text. toolcall-build generates the impl for every type named in `build.rs` with
//! `Builder::output_type("crate::Report")`: the schemas are the ones a tool parameter of
//! that type gets (OpenAI strict, and Gemini's subset), and the decoder is the type's
//! generated `FromArg`, so a wrong answer gets the same model-readable error a tool's
//! wrong arguments get (`temp: expected a number, got "warm"`). `toolcall-agent`'s
//! `Agent::run_output::<Report>(prompt)` takes any such type; a crate that only emits
//! schemas needs nothing but this crate.
//!
//! ```
//! use toolcall_runtime::{OutputSpec, OutputType};
//!
//! /// A hand-written impl (the build writes these for you).
//! struct Yes;
//! impl OutputType for Yes {
//!     fn spec() -> OutputSpec {
//!         let schema = r#"{"type":"object","properties":{},"required":[],"additionalProperties":false}"#;
//!         OutputSpec::from_texts("Yes", "Agreement.", schema, None)
//!     }
//!     fn decode(json: &str) -> Result<Self, String> {
//!         if json.trim() == "{}" { Ok(Yes) } else { Err("expected {}".to_owned()) }
//!     }
//! }
//! assert_eq!(Yes::spec().name, "Yes");
//! assert!(Yes::decode("{}").is_ok());
//! ```

use serde_json::Value;

use crate::decode::ArgError;
use crate::error::{Reason, ToolError};

/// The shape of a typed final answer.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputSpec {
    /// The schema's name (`^[a-zA-Z0-9_-]{1,64}$`): OpenAI's `json_schema.name`, and the
    /// final-answer tool's name where a provider has no structured-output mechanism.
    pub name: String,
    /// What the answer is, for the model ("" when none).
    pub description: String,
    /// The answer's JSON Schema, in OpenAI's strict form (every object closed, every
    /// property required, optional ones nullable). Its root is an object.
    pub schema: Value,
    /// The same in Gemini's OpenAPI subset (`responseSchema`); `None` when there is none,
    /// and Gemini gets `schema` as `responseJsonSchema`.
    pub gemini_schema: Option<Value>,
}

impl OutputSpec {
    /// A spec from schema texts (what generated impls hold). A text that is not JSON
    /// becomes `null` (the build only writes texts its renderer made).
    pub fn from_texts(name: &str, description: &str, schema: &str, gemini_schema: Option<&str>) -> Self {
        let parse = |text: &str| serde_json::from_str(text).unwrap_or(Value::Null);
        OutputSpec {
            name: name.to_owned(),
            description: description.to_owned(),
            schema: parse(schema),
            gemini_schema: gemini_schema.filter(|text| !text.is_empty()).map(parse),
        }
    }
}

/// A type a model can answer with: toolcall-build generates the impl for each type named
/// with `Builder::output_type`; write one by hand for a decoder of your own.
pub trait OutputType: Sized {
    /// Its schema.
    fn spec() -> OutputSpec;
    /// Decodes and validates an answer (JSON text); the error goes back to the model,
    /// which is asked to fix its answer.
    fn decode(json: &str) -> Result<Self, String>;
}

/// The property a type whose schema is not an object is wrapped in (`{"response": ..}`):
/// providers take only an object at the root of a structured answer.
pub const WRAPPER: &str = "response";

/// Decodes an answer as generated [`OutputType::decode`] impls do: the text parsed as
/// tool arguments are, then `read` (the type's decoder) on the whole value, or on its
/// `wrapper` property. Errors read as a tool's: `temp: missing required argument`,
/// `address.zip: expected a string, got 7`, `unknown argument "tmp" (did you mean
/// "temp"?)`.
pub fn decode_answer<T>(
    json: &str,
    wrapper: Option<&str>,
    read: impl for<'v> FnOnce(&'v Value) -> Result<T, ArgError>,
) -> Result<T, String> {
    let value = crate::arguments::parse_arguments(json.as_bytes()).map_err(|e| e.to_string())?;
    let Some(wrapper) = wrapper else {
        return read(&value).map_err(|e| root_error(e).to_string());
    };
    let (object, unknown) = crate::call::arguments(&value, &[wrapper]).map_err(|e| e.to_string())?;
    if let Some(unknown) = unknown {
        return Err(unknown.to_string());
    }
    match object.get(wrapper) {
        Some(inner) => read(inner).map_err(|e| e.into_tool_error(wrapper).to_string()),
        None => Err(ToolError::MissingArgument(wrapper.to_owned()).to_string()),
    }
}

/// A decoding error of the whole answer, as the tool error of the same mistakes in a
/// tool's arguments: the answer's properties are what a tool's parameters are.
pub(crate) fn root_error(error: ArgError) -> ToolError {
    let all = error.into_problems().into_iter().map(root_problem);
    ToolError::all(all).unwrap_or(ToolError::Several(Vec::new()))
}

/// One problem of the whole answer as a tool error.
fn root_problem(error: ArgError) -> ToolError {
    if error.path().next().is_some() {
        let path = error.path_from("");
        let name = path.strip_prefix('.').unwrap_or(&path).to_owned();
        return ToolError::InvalidArgument { name, reason: error.reason };
    }
    match *error.reason {
        Reason::MissingField { field } => ToolError::MissingArgument(field),
        Reason::UnknownFields { fields } => ToolError::UnknownArguments(fields),
        Reason::ExpectedObject { value } => ToolError::InvalidArguments(value),
        reason => ToolError::InvalidArgument { name: "$".to_owned(), reason: Box::new(reason) },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::FromArg;

    fn read_pair(value: &Value) -> Result<(String, u8), ArgError> {
        let object = crate::decode::expect_object(value, &["name", "age"], 0)?;
        let name = crate::decode::decode_field(object, "name", 1)?;
        let age = crate::decode::decode_field(object, "age", 1)?;
        Ok((name, age))
    }

    #[test]
    fn answers_decode_and_their_mistakes_read_as_tool_errors() {
        assert_eq!(decode_answer(r#"{"name":"Ada","age":36}"#, None, read_pair), Ok(("Ada".into(), 36)));
        let error = |json: &str| decode_answer(json, None, read_pair).unwrap_err();
        assert_eq!(error(r#"{"name":"Ada"}"#), "age: missing required argument");
        assert_eq!(error(r#"{"name":"Ada","age":"x"}"#), r#"age: expected an integer, got "x""#);
        assert!(error(r#"{"name":"Ada","age":3,"agee":4}"#).starts_with("unknown argument \"agee\""));
        assert!(error("[1]").starts_with("arguments must be a JSON object"), "{}", error("[1]"));
        assert!(error("{").starts_with("arguments are not valid JSON"), "{}", error("{"));
    }

    #[test]
    fn a_wrapped_answer_is_read_from_its_property() {
        let read = |value: &Value| <Vec<u8>>::from_arg(value, 0);
        assert_eq!(decode_answer(r#"{"response":[1,2]}"#, Some(WRAPPER), read), Ok(vec![1, 2]));
        let error = decode_answer(r#"{"response":[1,"x"]}"#, Some(WRAPPER), read).unwrap_err();
        assert_eq!(error, r#"response[1]: expected an integer, got "x""#);
        let error = decode_answer("{}", Some(WRAPPER), read).unwrap_err();
        assert_eq!(error, "response: missing required argument");
        let error = decode_answer(r#"{"response":[],"x":1}"#, Some(WRAPPER), read).unwrap_err();
        assert!(error.starts_with("unknown argument \"x\""), "{error}");
    }

    #[test]
    fn a_spec_parses_its_texts() {
        let spec = OutputSpec::from_texts("R", "d", r#"{"type":"object"}"#, Some(""));
        assert_eq!(spec.schema, serde_json::json!({"type": "object"}));
        assert_eq!(spec.gemini_schema, None);
        let spec = OutputSpec::from_texts("R", "d", "{}", Some(r#"{"type":"OBJECT"}"#));
        assert_eq!(spec.gemini_schema, Some(serde_json::json!({"type": "OBJECT"})));
    }
}
