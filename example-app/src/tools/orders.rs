//! Orders: tools whose parameters are local types. The generator inlines each struct and
//! enum into the schema the way serde would (de)serialize it, and implements `FromArg`
//! for it, so the types are `pub` with `pub` fields and need no `Deserialize`.

use std::collections::HashMap;

use serde::Serialize;

/// Where an order is shipped.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Address {
    /// Street and house number.
    pub street: String,
    /// Postal code.
    pub zip: u32,
    /// ISO 3166 country code; Norway when left out.
    pub country: Option<String>,
}

/// How fast to ship.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Speed {
    /// Three to five days.
    Standard,
    /// Next day.
    Express,
    /// Today, before midnight.
    SameDay,
}

/// One line of an order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Item {
    /// Stock-keeping unit.
    pub sku: String,
    /// How many.
    pub quantity: u16,
}

// A data enum with serde's default (external) tagging: `"Pickup"`, `{"Courier": {..}}`,
// `{"Locker": 12}`.
/// How the parcel reaches the customer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Delivery {
    /// The customer picks it up at the shop.
    Pickup,
    /// A courier brings it to an address.
    Courier {
        /// Where to bring it.
        address: Address,
        /// Instructions for the courier.
        note: Option<String>,
    },
    /// It waits in a parcel locker.
    Locker(u32),
}

// Internally tagged: `{"kind": "percent", "percent": 10}`.
/// A price reduction.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Discount {
    /// A share of the total.
    Percent {
        /// Percent off, 1 to 100.
        percent: u8,
    },
    /// A fixed amount off.
    Fixed {
        /// Cents off.
        cents: u32,
    },
    /// No discount.
    Nothing,
}

/// An accepted order, echoed back.
#[derive(Debug, Serialize)]
pub struct Order {
    /// Number of units over all items.
    pub units: u32,
    /// The items, as given.
    pub items: Vec<Item>,
    /// The speed, as given.
    pub speed: Speed,
    /// The delivery, as given.
    pub delivery: Delivery,
    /// The discount, as given.
    pub discount: Option<Discount>,
}

/// Place an order for items, shipped at the chosen speed.
///
/// # Arguments
///
/// * `items` - what to ship; at least one item
/// * `speed` - how fast to ship
///
/// # Errors
///
/// When `items` is empty.
pub fn place_order(
    items: Vec<Item>,
    speed: Speed,
    delivery: Delivery,
    discount: Option<Discount>,
) -> Result<Order, String> {
    if items.is_empty() {
        return Err("an order needs at least one item".to_owned());
    }
    let units = items.iter().map(|item| u32::from(item.quantity)).sum();
    Ok(Order { units, items, speed, delivery, discount })
}

/// Check that an address can be shipped to.
///
/// # Arguments
///
/// * `address` - the address to check
pub fn check_address(address: Address) -> Address {
    address
}

/// The straight-line distance between two points on a plane.
///
/// # Arguments
///
/// * `from` - `[x, y]` of the start
/// * `to` - `[x, y]` of the end
pub fn distance(from: (f64, f64), to: (f64, f64)) -> f64 {
    (to.0 - from.0).hypot(to.1 - from.1)
}

/// Add stock for several products at once; returns the new total.
///
/// # Arguments
///
/// * `counts` - units to add, by SKU
pub fn restock(counts: HashMap<String, u32>) -> u64 {
    counts.values().map(|&n| u64::from(n)).sum()
}

/// What [`set_note`] did with the note.
#[derive(Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "action", content = "note", rename_all = "snake_case")]
pub enum NoteChange {
    /// The argument was left out: the note stays as it was.
    Kept,
    /// The argument was `null`: the note is removed.
    Cleared,
    /// The argument was a string: the note is replaced.
    Set(String),
}

/// The result of [`set_note`].
#[derive(Debug, PartialEq, Eq, Serialize)]
pub struct NoteUpdate {
    /// The order that was changed.
    pub order_id: u32,
    /// What happened to its note.
    pub change: NoteChange,
}

/// Change the note on an order: leave `note` out to keep it, send `null` to clear it,
/// or send the new text.
///
/// # Arguments
///
/// * `order_id` - the order to change
/// * `note` - the new note, `null` to clear it
pub fn set_note(order_id: u32, note: Option<Option<String>>) -> NoteUpdate {
    let change = match note {
        None => NoteChange::Kept,
        Some(None) => NoteChange::Cleared,
        Some(Some(text)) => NoteChange::Set(text),
    };
    NoteUpdate { order_id, change }
}
