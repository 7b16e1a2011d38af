//! `llguidance-check`: reads a JSON array of JSON schemas on stdin and writes a JSON array
//! with one verdict per schema on stdout, compiling each with llguidance's whole grammar
//! pipeline (provider-rules §6):
//!
//! ```text
//! GrammarInit::Serialized(TopLevelGrammar::from_json_schema(schema))
//!     .validate(None, ParserLimits::default())
//! ```
//!
//! A verdict is `{"verdict":"valid"}`, `{"verdict":"warnings","messages":[..]}` or
//! `{"verdict":"error","message":".."}`; a panic inside llguidance (it panics on integer
//! bounds near i64::MIN in debug builds) is an error verdict.

use std::io::{Read, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::process::ExitCode;

use llguidance::api::{GrammarInit, ParserLimits, TopLevelGrammar};
use llguidance::earley::ValidationResult;
use serde_json::{Value, json};

fn verdict(schema: Value) -> Value {
    let outcome = catch_unwind(AssertUnwindSafe(move || {
        GrammarInit::Serialized(TopLevelGrammar::from_json_schema(schema))
            .validate(None, ParserLimits::default())
    }));
    match outcome {
        Ok(ValidationResult::Valid) => json!({"verdict": "valid"}),
        Ok(ValidationResult::Warnings(messages)) => json!({"verdict": "warnings", "messages": messages}),
        Ok(ValidationResult::Error(message)) => json!({"verdict": "error", "message": message}),
        Err(payload) => {
            let text = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            json!({"verdict": "error", "message": format!("llguidance panicked: {text}")})
        }
    }
}

fn main() -> ExitCode {
    // Panics are reported as verdicts; keep stderr for real failures.
    std::panic::set_hook(Box::new(|_| {}));
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        eprintln!("llguidance-check: cannot read stdin: {e}");
        return ExitCode::FAILURE;
    }
    let schemas: Vec<Value> = match serde_json::from_str(&input) {
        Ok(schemas) => schemas,
        Err(e) => {
            eprintln!("llguidance-check: stdin is not a JSON array of schemas: {e}");
            return ExitCode::FAILURE;
        }
    };
    let verdicts: Vec<Value> = schemas.into_iter().map(verdict).collect();
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{}", Value::Array(verdicts)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("llguidance-check: cannot write stdout: {e}");
            ExitCode::FAILURE
        }
    }
}
