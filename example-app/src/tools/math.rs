//! Arithmetic, and two tools that are broken on purpose to show what the model sees
//! when a tool has a bug: a panic, and a result that cannot be encoded as JSON.

use std::collections::HashMap;

/// Add two whole numbers.
///
/// # Arguments
///
/// * `a` - the first addend
/// * `b` - the second addend
pub fn add(a: i32, b: i32) -> i64 {
    i64::from(a) + i64::from(b)
}

/// Divide `a` by `b`.
///
/// # Arguments
///
/// * `a` - the dividend
/// * `b` - the divisor; must not be zero
///
/// # Errors
///
/// When `b` is zero, with a message the model can act on.
pub fn divide(a: f64, b: f64) -> Result<f64, String> {
    if is_zero(b) {
        return Err("b must not be zero".to_owned());
    }
    Ok(a / b)
}

/// A private helper: private functions are never tools.
fn is_zero(x: f64) -> bool {
    x == 0.0
}

/// Always panics: shows how a bug in a tool reaches the model.
///
/// # Panics
///
/// Every time it is called.
pub fn explode() -> u32 {
    panic!("explode always panics: this is the demo of a bug in a tool")
}

/// Count how often each point occurs.
///
/// A bug on purpose: JSON object keys are strings, so a map keyed by tuples cannot be
/// encoded and the call fails with an error instead of a result.
///
/// # Arguments
///
/// * `points` - `[x, y]` pairs
pub fn count_points(points: Vec<(i32, i32)>) -> HashMap<(i32, i32), u32> {
    let mut counts = HashMap::new();
    for point in points {
        *counts.entry(point).or_insert(0) += 1;
    }
    counts
}

/// Resets internal counters. Hidden from the model: `#[doc(hidden)]` keeps a public
/// function out of the tool list.
#[doc(hidden)]
pub fn reset_counters() -> bool {
    true
}
