//! Prototypes of the dispatcher changes `BENCHMARKS.md` proposes, written by hand against
//! toolcall-runtime's public API so their effect is measured in the same run as the
//! generated code they would replace. They are what the generator could emit for the three
//! real tools; they are not used anywhere else.
//!
//! 1. **One pass over each object** ([`run`]): iterate the arguments object (and every
//!    nested struct's object) once, `match` each key to its slot, and collect unknown keys
//!    on the way; instead of `call::arguments`/`slot::object` (a `known.contains` scan and a
//!    `Vec` collect per object) followed by one `Map::get` B-tree search per slot. Decoding
//!    of each slot is unchanged (`slot::from_arg`), and so are the errors.
//! 2. **Stream the top-level object from text** ([`run_json`]): deserialize the argument
//!    text straight into one `Option<Value>` per parameter, with borrowed keys, instead of
//!    building a `Map<String, Value>` (a B-tree node and a `String` per key) first. On any
//!    failure it falls back to the existing path, so error values stay exactly the same.

use std::borrow::Cow;
use std::fmt;

use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde_json::{Map, Value};
use toolcall_runtime::__private as call;
use toolcall_runtime::__private::decode::check_depth;
use toolcall_runtime::__private::slot::{self, SlotError};
use toolcall_runtime::__private::summarize;
use toolcall_runtime::{ArgError, Reason, ToolError};

use crate::tools::orders::{Address, LineItem, Order};
use crate::tools::{math, orders, weather};
use crate::toolset;

fn unknown_tool(name: &str) -> ToolError {
    ToolError::UnknownTool { name: name.to_owned(), known: toolset::ALL.names().map(str::to_owned).collect() }
}

/// Fix 1: [`toolset::ALL`]`.run`, with one pass over every object.
pub fn run(name: &str, args: &Value) -> Result<Value, ToolError> {
    let map = || args.as_object().ok_or_else(|| ToolError::InvalidArguments(summarize(args)));
    match name {
        "add" => call_add(top_slots(map()?, add_slot)?),
        "get_weather" => call_get_weather(top_slots(map()?, get_weather_slot)?),
        "create_order" => call_create_order(top_slots(map()?, create_order_slot)?),
        _ => Err(unknown_tool(name)),
    }
}

/// Fix 1 + 2: [`toolset::ALL`]`.run_json`, streaming the top-level object into slots.
pub fn run_json(name: &str, text: &str) -> Result<Value, ToolError> {
    let fast = match name {
        "add" => stream(text, add_slot).map(|s| call_add(s.each_ref().map(Option::as_ref))),
        "get_weather" => {
            stream(text, get_weather_slot).map(|s| call_get_weather(s.each_ref().map(Option::as_ref)))
        }
        "create_order" => {
            stream(text, create_order_slot).map(|s| call_create_order(s.each_ref().map(Option::as_ref)))
        }
        _ => return Err(unknown_tool(name)),
    };
    // Malformed text, a non-object or unknown keys: the existing path builds the error.
    fast.unwrap_or_else(|| toolset::ALL.run_json(name, text))
}

// The generator would write these `match`es: a compiled string switch, no `memcmp` loop.

fn add_slot(key: &str) -> Option<usize> {
    match key {
        "a" => Some(0),
        "b" => Some(1),
        _ => None,
    }
}

fn get_weather_slot(key: &str) -> Option<usize> {
    match key {
        "city" => Some(0),
        "days" => Some(1),
        _ => None,
    }
}

fn create_order_slot(key: &str) -> Option<usize> {
    match key {
        "order" => Some(0),
        _ => None,
    }
}

fn call_add([a, b]: [Option<&Value>; 2]) -> Result<Value, ToolError> {
    let a = slot::from_arg(a, 0).map_err(|e| e.param("a"))?;
    let b = slot::from_arg(b, 0).map_err(|e| e.param("b"))?;
    call::invoke("add", move || call::encode(math::add(a, b)))
}

fn call_get_weather([city, days]: [Option<&Value>; 2]) -> Result<Value, ToolError> {
    let city = slot::from_arg(city, 0).map_err(|e| e.param("city"))?;
    let days = slot::from_arg(days, 0).map_err(|e| e.param("days"))?;
    call::invoke("get_weather", move || call::encode(weather::get_weather(city, days)))
}

fn call_create_order([order]: [Option<&Value>; 1]) -> Result<Value, ToolError> {
    let order = with(order, 0, decode_order).map_err(|e| e.param("order"))?;
    call::invoke("create_order", move || call::encode(orders::create_order(order)))
}

/// The top-level slots of `map`, placed by `slot_of`; every unknown key is an error.
fn top_slots<const N: usize>(
    map: &Map<String, Value>,
    slot_of: fn(&str) -> Option<usize>,
) -> Result<[Option<&Value>; N], ToolError> {
    let mut slots = [None; N];
    let mut unknown = Vec::new();
    for (key, value) in map {
        match slot_of(key) {
            Some(i) => slots[i] = Some(value),
            None => unknown.push(key.as_str().into()),
        }
    }
    if unknown.is_empty() { Ok(slots) } else { Err(ToolError::UnknownArguments(unknown)) }
}

/// A struct's object: depth-checked, every unknown key an error.
fn object(value: &Value, depth: usize) -> Result<&Map<String, Value>, ArgError> {
    check_depth(depth)?;
    value.as_object().ok_or_else(|| ArgError::new(Reason::ExpectedObject { value: summarize(value) }))
}

fn no_unknown(unknown: Vec<String>) -> Result<(), ArgError> {
    let unknown: Vec<toolcall_runtime::UnknownName> = unknown.into_iter().map(Into::into).collect();
    if unknown.is_empty() { Ok(()) } else { Err(ArgError::new(Reason::UnknownFields { fields: unknown })) }
}

/// A required slot decoded with `decode`.
fn with<'a, T>(
    value: Option<&'a Value>,
    depth: usize,
    decode: fn(&'a Value, usize) -> Result<T, ArgError>,
) -> Result<T, SlotError> {
    decode(value.ok_or(SlotError::Missing)?, depth).map_err(SlotError::Invalid)
}

fn decode_order(value: &Value, depth: usize) -> Result<Order, ArgError> {
    let (mut customer, mut address, mut items, mut note) = (None, None, None, None);
    let mut unknown = Vec::new();
    for (key, v) in object(value, depth)? {
        match key.as_str() {
            "customer" => customer = Some(v),
            "address" => address = Some(v),
            "items" => items = Some(v),
            "note" => note = Some(v),
            _ => unknown.push(key.clone()),
        }
    }
    no_unknown(unknown)?;
    Ok(Order {
        customer: slot::from_arg(customer, depth + 1).map_err(|e| e.field("customer"))?,
        address: with(address, depth + 1, decode_address).map_err(|e| e.field("address"))?,
        items: with(items, depth + 1, decode_items).map_err(|e| e.field("items"))?,
        note: slot::from_arg(note, depth + 1).map_err(|e| e.field("note"))?,
    })
}

fn decode_address(value: &Value, depth: usize) -> Result<Address, ArgError> {
    let (mut street, mut city, mut zip, mut country) = (None, None, None, None);
    let mut unknown = Vec::new();
    for (key, v) in object(value, depth)? {
        match key.as_str() {
            "street" => street = Some(v),
            "city" => city = Some(v),
            "zip" => zip = Some(v),
            "country" => country = Some(v),
            _ => unknown.push(key.clone()),
        }
    }
    no_unknown(unknown)?;
    Ok(Address {
        street: slot::from_arg(street, depth + 1).map_err(|e| e.field("street"))?,
        city: slot::from_arg(city, depth + 1).map_err(|e| e.field("city"))?,
        zip: slot::from_arg(zip, depth + 1).map_err(|e| e.field("zip"))?,
        country: slot::from_arg(country, depth + 1).map_err(|e| e.field("country"))?,
    })
}

fn decode_items(value: &Value, depth: usize) -> Result<Vec<LineItem>, ArgError> {
    check_depth(depth)?;
    let items =
        value.as_array().ok_or_else(|| ArgError::new(Reason::ExpectedArray { value: summarize(value) }))?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| decode_line_item(item, depth + 1).map_err(|e| e.at_index(i)))
        .collect()
}

fn decode_line_item(value: &Value, depth: usize) -> Result<LineItem, ArgError> {
    let (mut sku, mut quantity, mut unit_cents) = (None, None, None);
    let mut unknown = Vec::new();
    for (key, v) in object(value, depth)? {
        match key.as_str() {
            "sku" => sku = Some(v),
            "quantity" => quantity = Some(v),
            "unit_cents" => unit_cents = Some(v),
            _ => unknown.push(key.clone()),
        }
    }
    no_unknown(unknown)?;
    Ok(LineItem {
        sku: slot::from_arg(sku, depth + 1).map_err(|e| e.field("sku"))?,
        quantity: slot::from_arg(quantity, depth + 1).map_err(|e| e.field("quantity"))?,
        unit_cents: slot::from_arg(unit_cents, depth + 1).map_err(|e| e.field("unit_cents"))?,
    })
}

/// Fix 2: the top-level object of `text` as one `Option<Value>` per name, or `None` when
/// the text is malformed, not an object, or has an unknown key (the caller falls back).
fn stream<const N: usize>(text: &str, slot_of: fn(&str) -> Option<usize>) -> Option<[Option<Value>; N]> {
    let mut de = serde_json::Deserializer::from_str(text);
    let slots = Slots::<N> { slot_of }.deserialize(&mut de).ok()??;
    de.end().ok()?;
    Some(slots)
}

struct Slots<const N: usize> {
    slot_of: fn(&str) -> Option<usize>,
}

impl<'de, const N: usize> DeserializeSeed<'de> for Slots<N> {
    type Value = Option<[Option<Value>; N]>;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de, const N: usize> Visitor<'de> for Slots<N> {
    type Value = Option<[Option<Value>; N]>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an arguments object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut slots = [const { None }; N];
        let mut known = true;
        while let Some(Key(key)) = map.next_key()? {
            match (self.slot_of)(&key).and_then(|i| slots.get_mut(i)) {
                Some(slot) => *slot = Some(map.next_value::<Value>()?),
                None => {
                    known = false;
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(known.then_some(slots))
    }
}

/// An object key, borrowed from the text when it has no escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Key(Cow::Borrowed(v)))
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Key(Cow::Owned(v.to_owned())))
    }
}
