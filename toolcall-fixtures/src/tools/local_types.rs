//! Local types of the same file: structs with field docs, serde attributes, generics,
//! recursion, alias chains, unit enums and each serde enum representation.

use serde::Serialize;
use serde_json::{Value, json};

/// A postal address.
#[derive(Debug, Serialize)]
pub struct Address {
    /// Street and number.
    pub street: String,
    /// Postal code.
    pub zip: u32,
}

/// A customer, renamed the serde way.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Customer {
    /// Full name.
    pub full_name: String,
    /// Contact address, renamed on the wire.
    #[serde(rename = "e-mail")]
    pub email: String,
    /// May be absent (`#[serde(default)]`).
    #[serde(default)]
    pub vip_level: u8,
    /// Never on the wire.
    #[serde(skip)]
    pub internal_id: u64,
    /// Where they live.
    pub home_address: Address,
    /// Optional nickname.
    pub nick_name: Option<String>,
}

/// Two values of one type.
#[derive(Debug, Serialize)]
pub struct Pair<T> {
    /// The left value.
    pub left: T,
    /// The right value.
    pub right: T,
}

/// A tree of labels.
#[derive(Debug, Serialize)]
pub struct Tree {
    /// This node's label.
    pub label: String,
    /// The subtrees.
    pub children: Vec<Tree>,
}

/// A temperature in degrees Celsius.
pub type Celsius = f64;
#[allow(missing_docs)]
pub type Reading = Celsius;
#[allow(missing_docs)]
pub type Measured = Reading;

/// A colour.
#[derive(Debug, Serialize)]
pub enum Colour {
    /// Like blood.
    Red,
    /// Like grass.
    Green,
    /// Renamed on the wire.
    #[serde(rename = "sky-blue")]
    Blue,
}

/// A shape, externally tagged (serde's default).
#[derive(Debug, Serialize)]
pub enum Shape {
    /// A circle.
    Circle {
        /// Its radius.
        radius: f64,
    },
    /// A square with this side.
    Square(f64),
    /// A rectangle (width, height).
    Rect(f64, f64),
    /// A point.
    Point,
}

/// An input event, internally tagged.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// A click.
    Click {
        /// Horizontal position.
        x: i32,
        /// Vertical position.
        y: i32,
    },
    /// A key press.
    KeyPress {
        /// The key code.
        code: String,
    },
    /// Nothing happened.
    Idle,
}

/// A message, adjacently tagged.
#[derive(Debug, Serialize)]
#[serde(tag = "t", content = "c")]
pub enum Message {
    /// Some text.
    Text(String),
    /// A move.
    Move {
        /// Steps.
        dx: i8,
    },
    /// A pair of bytes.
    Pair(u8, u8),
    /// A ping, no content.
    Ping,
}

/// An amount, untagged: the first variant that fits.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Amount {
    /// An exact number.
    Exact(u32),
    /// A range.
    Range {
        /// Lower bound.
        min: u32,
        /// Upper bound.
        max: u32,
    },
    /// A label.
    Label(String),
}

/// A struct argument with field docs and a nested struct.
pub fn ship(address: Address, express: bool) -> Value {
    json!({"address": address, "express": express})
}

/// serde renames, defaults and skips.
pub fn register(customer: Customer) -> Customer {
    customer
}

/// A generic struct, instantiated.
pub fn pair(pair: Pair<u32>, labels: Pair<String>) -> Value {
    json!({"pair": pair, "labels": labels})
}

/// A recursive type.
pub fn count_nodes(tree: Tree) -> usize {
    fn count(tree: &Tree) -> usize {
        1 + tree.children.iter().map(count).sum::<usize>()
    }
    count(&tree)
}

/// Alias chains: the doc of the nearest documented type is the fallback description.
pub fn record(reading: Measured, previous: Option<Reading>) -> Value {
    json!({"reading": reading, "previous": previous})
}

/// A unit enum.
///
/// # Arguments
///
/// * `colour` - the colour to paint
pub fn paint(colour: Colour, also: Vec<Colour>) -> Value {
    json!({"colour": colour, "also": also})
}

/// Each enum representation, round-tripped.
pub fn shapes(shape: Shape, event: Event, message: Message, amount: Amount) -> Value {
    json!({"shape": shape, "event": event, "message": message, "amount": amount})
}

/// A list of addresses: failures name `items[3].zip`.
pub fn ship_many(items: Vec<Address>) -> usize {
    items.len()
}
