//! Defaults read from the body: `unwrap_or(literal)`, a same-file const,
//! `unwrap_or_default()`, and `unwrap_or_else(..)` (optional, no default); unit variants
//! of local enums, `Default::default()` of known types, negative literals and consts of
//! those, wherever the body applies them; chains that cannot change the default.

use serde::{Deserialize, Serialize};
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

/// Defaults the build cannot read stay optional with no default (and `count`'s is a
/// located warning: the body applies one).
pub fn opaque_defaults(count: Option<u8>, label: Option<String>) -> Value {
    let count = count.unwrap_or(u8::MAX / 2);
    let label = label.unwrap_or_else(|| "none".to_owned());
    json!({"count": count, "label": label})
}

/// The order of a listing.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// Newest first.
    #[default]
    NewestFirst,
    /// Oldest first.
    OldestFirst,
}

/// The coldest temperature a query accepts, in degrees.
const COLDEST: i32 = -40;
/// The order of archived listings.
const ARCHIVE_ORDER: Order = Order::OldestFirst;

/// Defaults the build reads beyond literals, wherever the body applies them.
///
/// # Arguments
///
/// * `order` - a local unit enum's variant
/// * `archived` - a const holding a variant
/// * `sort` - `unwrap_or_default()` of a local enum: its `#[default]` variant
/// * `limit` - `unwrap_or(10).min(50)`: the chain keeps 10
/// * `above` - a negative literal
/// * `below` - a const holding a negative literal
/// * `count` - `u32::default()`, applied after another statement
/// * `tags` - `Vec::new()`
/// * `label` - through `as_deref()`, in a macro
#[allow(
    clippy::too_many_arguments,
    clippy::unwrap_or_default,
    reason = "the fixture spells out each form of default the build reads"
)]
pub fn more_defaults(
    order: Option<Order>,
    archived: Option<Order>,
    sort: Option<Order>,
    limit: Option<u32>,
    above: Option<i32>,
    below: Option<i32>,
    count: Option<u32>,
    tags: Option<Vec<String>>,
    label: Option<String>,
) -> Value {
    let order = order.unwrap_or(Order::OldestFirst);
    let limit = limit.unwrap_or(10).min(50);
    let count = count.unwrap_or(u32::default());
    json!({
        "order": order,
        "archived": archived.unwrap_or(ARCHIVE_ORDER),
        "sort": sort.unwrap_or_default(),
        "limit": limit,
        "above": above.unwrap_or(-5),
        "below": below.unwrap_or(COLDEST),
        "count": count,
        "tags": tags.unwrap_or(Vec::new()),
        "label": label.as_deref().unwrap_or("all"),
    })
}
