//! Every std row of the Types table. Each tool returns what it decoded, so tests can see
//! the value at the type's boundaries.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::net::IpAddr;
use std::num::{NonZeroI32, NonZeroU8, NonZeroU64};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;

use serde_json::{Map, Value, json};

/// Signed integers.
pub fn signed(a: i8, b: i16, c: i32, d: i64, e: isize) -> Value {
    json!([a, b, c, d, e])
}

/// Unsigned integers.
pub fn unsigned(a: u8, b: u16, c: u32, d: u64, e: usize) -> Value {
    json!([a, b, c, d, e])
}

/// Non-zero integers.
pub fn non_zero(a: NonZeroU8, b: NonZeroU64, c: NonZeroI32) -> Value {
    json!([a.get(), b.get(), c.get()])
}

/// Floats and booleans.
pub fn numbers(a: f32, b: f64, flag: bool) -> Value {
    json!([a, b, flag])
}

/// Every string type.
pub fn strings(
    c: char,
    owned: String,
    borrowed: &str,
    cow: Cow<'_, str>,
    boxed: Box<str>,
    path: PathBuf,
) -> Value {
    let borrowed_cow = matches!(cow, Cow::Borrowed(_));
    json!({
        "char": c, "owned": owned, "borrowed": borrowed, "cow": cow,
        "cow_borrowed": borrowed_cow, "boxed": boxed, "path": path,
    })
}

/// Sequences.
pub fn sequences(list: Vec<u8>, deque: VecDeque<String>, boxed: Box<[i32]>, fixed: [u8; 3]) -> Value {
    json!({"list": list, "deque": deque, "boxed": boxed, "fixed": fixed})
}

/// Sets: items must be unique.
pub fn sets(hashed: HashSet<String>, ordered: BTreeSet<u8>) -> Value {
    let mut hashed: Vec<String> = hashed.into_iter().collect();
    hashed.sort();
    json!({"hashed": hashed, "ordered": ordered})
}

/// Tuples.
pub fn tuples(pair: (u8, String), triple: (bool, f64, char)) -> Value {
    json!({"pair": pair, "triple": triple})
}

/// Options: absent and null are `None`; `Option<Option<T>>` keeps null as `Some(None)`.
pub fn options(plain: Option<u8>, nullable: Option<Option<String>>, items: Vec<Option<u8>>) -> Value {
    let nullable = match nullable {
        None => json!("absent"),
        Some(None) => json!("null"),
        Some(Some(text)) => json!({"some": text}),
    };
    json!({"plain": plain, "nullable": nullable, "items": items})
}

/// Open objects.
pub fn maps(
    hashed: HashMap<String, u8>,
    ordered: BTreeMap<String, Vec<bool>>,
    raw: Map<String, Value>,
) -> Value {
    let hashed: BTreeMap<String, u8> = hashed.into_iter().collect();
    json!({"hashed": hashed, "ordered": ordered, "raw": raw})
}

/// Untyped values, owned and borrowed.
pub fn untyped(value: Value, borrowed: &Value) -> Value {
    json!({"value": value, "borrowed": borrowed})
}

/// Smart pointers are their contents.
#[allow(clippy::boxed_local)]
pub fn pointers(boxed: Box<u8>, counted: Rc<String>, shared: Arc<Vec<u8>>) -> Value {
    json!({"boxed": *boxed, "counted": counted.as_str(), "shared": shared.as_slice()})
}

/// IP addresses.
pub fn ip(address: IpAddr) -> Value {
    json!({"address": address.to_string(), "v4": address.is_ipv4()})
}

/// More parameters than one decoded tuple holds (the runtime's `MAX_DECODED`, 12): the
/// exact decoder groups them.
#[allow(clippy::too_many_arguments, reason = "the point of the fixture")]
pub fn fourteen(
    p1: u8,
    p2: u8,
    p3: u8,
    p4: u8,
    p5: u8,
    p6: u8,
    p7: u8,
    p8: u8,
    p9: u8,
    p10: u8,
    p11: u8,
    p12: u8,
    p13: u8,
    p14: Option<u8>,
) -> Value {
    json!([p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14])
}
