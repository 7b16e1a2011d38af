//! [`ToolFailure`]: the error a tool returns to tell the model what to do next.
//!
//! A tool that returns `Result<T, E>` with any `E: Display` reports a failure: the
//! model reads `tool failed: <text>`. With `E = ToolFailure` the tool says more: either
//! "call again with changed arguments" ([`ToolFailure::retry`], what Pydantic AI calls
//! `ModelRetry`) or "this failed" ([`ToolFailure::fail`]), each with an optional
//! machine-readable code. The two reach the model differently (the error's `kind` is
//! `retry` or `failed`, its text says which), and the agent counts retries per tool.
//!
//! ```
//! use toolcall_runtime::{ToolError, ToolFailure};
//!
//! let retry = ToolError::from(ToolFailure::retry("no book has id 42; search first").with_code("not_found"));
//! assert_eq!(retry.kind(), "retry");
//! assert!(retry.is_call_error());
//! assert_eq!(retry.to_string(), "call again with changed arguments (not_found): no book has id 42; search first");
//!
//! let failed = ToolError::from(ToolFailure::fail("the catalogue is down"));
//! assert_eq!(failed.kind(), "failed");
//! assert!(!failed.is_call_error());
//! ```

use std::borrow::Cow;
use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::call::encode;
use crate::error::ToolError;

/// The error a tool returns to ask the model to retry with changed arguments, or to
/// report a failure it should not retry, with an optional code (`not_found`,
/// `unavailable`) a program can match on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolFailure {
    retry: bool,
    message: String,
    code: Option<Cow<'static, str>>,
}

impl ToolFailure {
    /// The arguments were the problem: the model should call again with changed ones
    /// (the message says what to change).
    pub fn retry(message: impl Into<String>) -> Self {
        ToolFailure { retry: true, message: message.into(), code: None }
    }

    /// The tool failed for a reason the model's arguments cannot fix.
    pub fn fail(message: impl Into<String>) -> Self {
        ToolFailure { retry: false, message: message.into(), code: None }
    }

    /// The same failure with a machine-readable code.
    pub fn with_code(mut self, code: impl Into<Cow<'static, str>>) -> Self {
        self.code = Some(code.into());
        self
    }

    /// Whether the model should retry with changed arguments.
    pub fn is_retry(&self) -> bool {
        self.retry
    }

    /// What went wrong, as the tool said it.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The machine-readable code, when the tool gave one.
    pub fn code(&self) -> Option<&str> {
        self.code.as_deref()
    }
}

impl fmt::Display for ToolFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ToolFailure {}

impl From<ToolFailure> for ToolError {
    fn from(failure: ToolFailure) -> Self {
        ToolError::Reported(failure)
    }
}

/// A tool's returned `Result`, as generated code encodes it:
/// `__rt::returned(tool(args)).encode()`. Which `encode` runs is chosen by method
/// resolution on the concrete error type: [`Returned`]'s own, for a [`ToolFailure`] (also
/// inside a boxed `dyn Error`), which keeps what it says; else, through `Deref`,
/// [`Fallback::encode`], for any `Display` error, which becomes [`ToolError::Failed`]
/// with its text.
#[doc(hidden)]
pub struct Returned<T, E>(Fallback<T, E>);

/// What [`Returned`] derefs to: the encoding of a `Result` with any `Display` error.
#[doc(hidden)]
pub struct Fallback<T, E>(Result<T, E>);

/// Wraps a tool's result for [`Returned`]'s `encode`.
#[doc(hidden)]
#[inline(always)]
pub fn returned<T, E>(result: Result<T, E>) -> Returned<T, E> {
    Returned(Fallback(result))
}

impl<T, E> std::ops::Deref for Returned<T, E> {
    type Target = Fallback<T, E>;

    fn deref(&self) -> &Fallback<T, E> {
        &self.0
    }
}

impl<T: Serialize, E: fmt::Display> Fallback<T, E> {
    /// `Ok` encoded as JSON; `Err` a failure with the error's text.
    #[inline]
    pub fn encode(&self) -> Result<Value, ToolError> {
        match &self.0 {
            Ok(value) => encode(value),
            Err(error) => Err(failed_with(error)),
        }
    }
}

impl<T: Serialize> Returned<T, ToolFailure> {
    /// `Ok` encoded as JSON; `Err` the failure as the tool said it.
    #[inline]
    pub fn encode(&self) -> Result<Value, ToolError> {
        match &self.0.0 {
            Ok(value) => encode(value),
            Err(failure) => Err(ToolError::Reported(failure.clone())),
        }
    }
}

/// `Returned::encode` for a boxed `dyn Error`: the [`ToolFailure`] inside it, or a
/// failure with its text.
macro_rules! encode_boxed {
    ($($error:ty),*) => {$(
        impl<T: Serialize> Returned<T, Box<$error>> {
            /// `Ok` encoded as JSON; `Err` the [`ToolFailure`] inside it, or a failure
            /// with its text.
            #[inline]
            pub fn encode(&self) -> Result<Value, ToolError> {
                match &self.0.0 {
                    Ok(value) => encode(value),
                    Err(error) => Err(from_dyn(error.as_ref())),
                }
            }
        }
    )*};
}

encode_boxed!(dyn std::error::Error, dyn std::error::Error + Send, dyn std::error::Error + Send + Sync);

/// A failure with `error`'s text (kept out of line: it is the rare case).
#[cold]
#[inline(never)]
fn failed_with<E: fmt::Display + ?Sized>(error: &E) -> ToolError {
    ToolError::Failed(error.to_string())
}

/// A boxed error: the [`ToolFailure`] inside it, or a failure with its text.
#[cold]
fn from_dyn(error: &(dyn std::error::Error + 'static)) -> ToolError {
    match error.downcast_ref::<ToolFailure>() {
        Some(failure) => ToolError::Reported(failure.clone()),
        None => ToolError::Failed(error.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::glue;

    #[test]
    fn each_provider_answer_tells_a_retry_from_a_failure() {
        let retry: Result<Value, ToolError> =
            Err(ToolFailure::retry("use a date in 2025").with_code("range").into());
        let failed: Result<Value, ToolError> = Err(ToolFailure::fail("the calendar is offline").into());
        // OpenAI, Responses and Gemini answers carry the JSON form; its kind differs.
        let content = |r: &Result<Value, ToolError>| {
            serde_json::from_str::<Value>(&glue::content(r)).unwrap_or_default()
        };
        assert_eq!(
            (content(&retry)["error"].as_str(), content(&retry)["code"].as_str()),
            (Some("retry"), Some("range"))
        );
        assert_eq!(content(&failed)["error"], "failed");
        // Anthropic's `tool_result` carries the text, flagged `is_error` either way.
        let anthropic = glue::anthropic_tool_result("t1", &retry);
        assert_eq!(anthropic["content"], "call again with changed arguments (range): use a date in 2025");
        assert_eq!(anthropic["is_error"], true);
        assert_eq!(
            glue::anthropic_tool_result("t2", &failed)["content"],
            "tool failed: the calendar is offline"
        );
    }

    #[test]
    fn returned_picks_the_conversion_by_the_error_type() {
        let plain: Result<u8, String> = Err("nope".into());
        assert_eq!(returned(plain).encode(), Err(ToolError::Failed("nope".into())));
        let typed: Result<u8, ToolFailure> = Err(ToolFailure::retry("again"));
        assert_eq!(returned(typed).encode(), Err(ToolError::Reported(ToolFailure::retry("again"))));
        let boxed: Result<u8, Box<dyn std::error::Error>> = Err(Box::new(ToolFailure::fail("down")));
        assert_eq!(returned(boxed).encode(), Err(ToolError::Reported(ToolFailure::fail("down"))));
        let ok: Result<u8, ToolFailure> = Ok(7);
        assert_eq!(returned(ok).encode(), Ok(serde_json::json!(7)));
    }
}
