//! Money: a module declared with `#[path = "common/money.rs"]` in `lib.rs` (the build
//! follows `#[path]` as rustc does).

use serde::Serialize;

/// An amount of money.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub struct Money {
    /// The amount in cents.
    pub cents: i64,
    /// The currency.
    pub currency: Currency,
}

/// A currency, as its ISO 4217 code.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "UPPERCASE")]
pub enum Currency {
    /// Euro.
    Eur,
    /// Norwegian krone.
    Nok,
}
