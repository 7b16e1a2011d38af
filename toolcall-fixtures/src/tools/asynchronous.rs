//! `async fn` tools in a crate without a context: called through `Toolset::call` with
//! `&()`; the sync `run` answers them with `ToolError::AsyncTool` and never blocks.

use crate::yield_now;

/// Echo the text back after giving the executor a turn.
///
/// # Arguments
///
/// * `text` - what to echo
pub async fn echo_later(text: &str) -> String {
    yield_now().await;
    text.to_owned()
}

/// Divide after a turn, failing on zero.
///
/// # Arguments
///
/// * `a` - the dividend
/// * `b` - the divisor
pub async fn divide_later(a: f64, b: f64) -> Result<f64, String> {
    yield_now().await;
    if b == 0.0 { Err("division by zero".to_owned()) } else { Ok(a / b) }
}

/// Panics on its second poll, after a turn.
///
/// # Arguments
///
/// * `message` - the panic message
pub async fn panic_later(message: String) -> u8 {
    yield_now().await;
    panic!("{message}")
}

/// Does nothing, asynchronously.
pub async fn nothing_later() {
    yield_now().await;
}
