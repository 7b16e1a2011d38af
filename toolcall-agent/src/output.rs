//! Typed output, the agent's side: what a final answer must look like ([`OutputSpec`]: a
//! name and a JSON Schema) and how it is decoded ([`OutputType`], or any closure given to
//! [`Agent::run_output_with`](crate::Agent::run_output_with)).
//!
//! Each provider asks for it its own way: Chat Completions' `response_format` json_schema
//! (strict), Responses' `text.format` json_schema (strict), Gemini's
//! `responseMimeType: application/json` with `responseSchema` (or `responseJsonSchema`
//! when [`OutputSpec::gemini_schema`] is `None`), and for Anthropic, which has no such
//! mechanism, a final-answer tool named [`OutputSpec::name`] whose input is the answer.
//!
//! [`OutputType`] and [`OutputSpec`] are `toolcall_runtime`'s, re-exported. toolcall-build
//! generates the impl for each crate type named in `build.rs`, so a crate type becomes an
//! answer type with one line and no hand-written code:
//!
//! ```text
//! // build.rs
//! toolcall_build::Builder::new().output_type("crate::Report").compile();
//! // anywhere
//! let (report, outcome) = agent.run_output::<Report>("How is Oslo?", |_| {}).await?;
//! ```
//!
//! The generated impl's schemas are the ones a tool parameter of that type gets (OpenAI
//! strict, Gemini's subset; a type whose schema is not an object is wrapped as
//! `{"response": ..}`), its name is the type's name and its description the type's doc
//! comment. It decodes with the type's generated `FromArg` decoder, the one its tools
//! use: serde renames, aliases and defaults agree, and a wrong answer is sent back with
//! the error a tool's wrong arguments get (`temp: expected a number, got "warm"`). For a
//! decoder of your own, implement [`OutputType`] by hand or call
//! [`Agent::run_output_with`](crate::Agent::run_output_with).

pub use toolcall_runtime::{OutputSpec, OutputType};

/// The text asking the model to fix an answer `decode` refused.
pub(crate) fn retry_prompt(error: &str) -> String {
    format!("The answer does not match the output schema: {error}\nFix the errors and answer again.")
}
