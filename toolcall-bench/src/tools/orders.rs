//! A tool whose one argument is a nested struct: an order with an address and line items.
//!
//! The types derive `Deserialize` only for the hand-written baseline; the generated
//! dispatcher decodes them with its own `FromArg` impls.

use serde::{Deserialize, Serialize};

/// Where an order is shipped.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Address {
    /// Street and house number.
    pub street: String,
    /// City.
    pub city: String,
    /// Postal code.
    pub zip: String,
    /// ISO 3166 country code; Norway when left out.
    pub country: Option<String>,
}

/// One line of an order.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LineItem {
    /// Stock-keeping unit.
    pub sku: String,
    /// How many.
    pub quantity: u32,
    /// Price of one unit, in cents.
    pub unit_cents: u64,
}

/// An order to place.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Order {
    /// Who orders.
    pub customer: String,
    /// Where to ship.
    pub address: Address,
    /// What to ship.
    pub items: Vec<LineItem>,
    /// A note for the packer.
    pub note: Option<String>,
}

/// What placing an order returns.
#[derive(Debug, Serialize)]
pub struct Receipt {
    /// Who ordered.
    pub customer: String,
    /// Number of lines.
    pub lines: usize,
    /// Units over all lines.
    pub units: u64,
    /// Total price in cents.
    pub total_cents: u64,
}

/// Place an order.
///
/// # Arguments
///
/// * `order` - the order to place
pub fn create_order(order: Order) -> Receipt {
    let units = order.items.iter().map(|item| u64::from(item.quantity)).sum();
    let total_cents = order.items.iter().map(|item| u64::from(item.quantity) * item.unit_cents).sum();
    Receipt { customer: order.customer, lines: order.items.len(), units, total_cents }
}
