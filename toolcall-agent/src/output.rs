//! Typed output, the agent's side: what a final answer must look like ([`OutputSpec`]: a
//! name and a JSON Schema) and how it is decoded ([`OutputType`], or any closure given to
//! [`Agent::run_output_with`](crate::Agent::run_output_with)).
//!
//! Each provider asks for it its own way: Chat Completions' `response_format` json_schema
//! (strict), Responses' `text.format` json_schema (strict), Gemini's
//! `responseMimeType: application/json` with `responseJsonSchema` (or `responseSchema`
//! when [`OutputSpec::gemini_schema`] is given), and for Anthropic, which has no such
//! mechanism, a final-answer tool named [`OutputSpec::name`] whose input is the answer.
//!
//! toolcall-build is meant to generate `impl OutputType` for a type named with
//! `Builder::output_type("crate::Report")`, with the same decoder its tools use; until it
//! does, implement it by hand (e.g. with serde).

use serde_json::Value;

/// The shape of a typed final answer.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputSpec {
    /// The schema's name (`^[a-zA-Z0-9_-]{1,64}$`): OpenAI's `json_schema.name`, and the
    /// final-answer tool's name where there is no structured-output mechanism.
    pub name: String,
    /// What the answer is, for the model.
    pub description: String,
    /// The answer's JSON Schema, in OpenAI's strict form (every object closed, every
    /// property required).
    pub schema: Value,
    /// The same in Gemini's OpenAPI subset, sent as `responseSchema`; without it Gemini
    /// gets `schema` as `responseJsonSchema`.
    pub gemini_schema: Option<Value>,
}

/// A type an agent can answer with ([`Agent::run_output`](crate::Agent::run_output)).
pub trait OutputType: Sized {
    /// Its schema.
    fn spec() -> OutputSpec;
    /// Decodes and validates an answer (JSON text); the error goes back to the model,
    /// which is asked to fix its answer.
    fn decode(json: &str) -> Result<Self, String>;
}

/// The text asking the model to fix an answer `decode` refused.
pub(crate) fn retry_prompt(error: &str) -> String {
    format!("The answer does not match the output schema: {error}\nFix the errors and answer again.")
}
