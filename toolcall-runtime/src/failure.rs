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
