//! Defaults read from the body: `unwrap_or(literal)`, a same-file const,
//! `unwrap_or_default()`, and `unwrap_or_else(..)` (optional, no default).

use serde_json::{Value, json};

/// The default page size.
const DEFAULT_LIMIT: u32 = 25;
/// The default unit.
const DEFAULT_UNIT: &str = "celsius";

fn seven() -> i64 {
    7
}

/// Every kind of default the build reads.
///
/// # Arguments
///
/// * `days` - days ahead
/// * `limit` - page size, from a const
/// * `unit` - unit, a string default from a const
/// * `verbose` - `unwrap_or_default()`
/// * `offset` - `unwrap_or_else(..)`: optional, no default
/// * `scale` - a negative float
/// * `greeting` - a `&str` default
pub fn with_defaults(
    days: Option<u32>,
    limit: Option<u32>,
    unit: Option<String>,
    verbose: Option<bool>,
    offset: Option<i64>,
    scale: Option<f64>,
    greeting: Option<&str>,
) -> Value {
    let days = days.unwrap_or(3);
    let limit = limit.unwrap_or(DEFAULT_LIMIT);
    let unit = unit.unwrap_or(DEFAULT_UNIT.to_owned());
    let verbose = verbose.unwrap_or_default();
    let offset = offset.unwrap_or_else(seven);
    let scale = scale.unwrap_or(-1.5);
    let greeting = greeting.unwrap_or("hello");
    json!({
        "days": days, "limit": limit, "unit": unit, "verbose": verbose,
        "offset": offset, "scale": scale, "greeting": greeting,
    })
}

/// Defaults that are not JSON literals stay optional with no default.
pub fn opaque_defaults(count: Option<u8>, label: Option<String>) -> Value {
    let count = count.unwrap_or(u8::MAX / 2);
    let label = label.unwrap_or_else(|| "none".to_owned());
    json!({"count": count, "label": label})
}
