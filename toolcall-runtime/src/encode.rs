//! A tool's return value as the call's result: `T` encoded as JSON, a `Result`'s `Err`
//! as a [`ToolError`]. Generated dispatchers call these (through `__private`), and so do
//! runtime-built tools.
//!
//! A `Result` goes through [`returned`]: which `encode` applies is chosen on the concrete
//! error type, so a [`ToolFailure`] keeps what it says while any other `Display` error
//! becomes [`ToolError::Failed`] with its text.

use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::error::ToolError;
use crate::failure::ToolFailure;

/// Encodes a tool's plain return value. Inlined into each tool's call function, where
/// serde_json's `to_value` for the result's type is then inlined too (out of line, a call
/// returning a 3-field struct cost 160 more instructions: `toolcall-bench/budgets/by_commit.py`).
#[inline]
pub fn encode<T: Serialize>(value: T) -> Result<Value, ToolError> {
    serde_json::to_value(value).map_err(unencodable)
}

/// Encodes a tool's `Result`: `Err(e)` becomes `Failed(e.to_string())`.
pub fn encode_result<T: Serialize, E: fmt::Display>(result: Result<T, E>) -> Result<Value, ToolError> {
    match result {
        Ok(value) => encode(value),
        Err(error) => Err(failed(&error)),
    }
}

// The error paths below are shared by every tool: out of line, so that each tool's
// `encode`/`invoke` instance holds only its happy path and a call.

/// The error of a result serde_json could not encode.
#[cold]
#[inline(never)]
fn unencodable(error: serde_json::Error) -> ToolError {
    ToolError::Failed(format!("result could not be encoded as JSON: {error}"))
}

/// The error of a tool that returned `Err(error)`.
#[cold]
#[inline(never)]
fn failed(error: &dyn fmt::Display) -> ToolError {
    ToolError::Failed(error.to_string())
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
