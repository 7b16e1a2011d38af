//! Argument decoding: JSON values into Rust parameter types, with precise reasons.
//!
//! [`FromArg`] is the trait generated dispatchers call for every parameter. It borrows
//! from the arguments where it can (`&str` and `Cow<str>` do not copy), reports the
//! offending value and its path (`address.zip`, `items[3]`) when it cannot, and bounds
//! nesting with [`MAX_DEPTH`] so hostile input ends in an error, not a stack overflow.
//!
//! ```
//! use serde_json::json;
//! use toolcall_runtime::FromArg;
//! use toolcall_runtime::__private::decode::decode_arg;
//!
//! let args = json!({"days": 1.0, "city": "Oslo"});
//! let days: u8 = decode_arg(&args["days"], "days").unwrap();
//! let city: &str = decode_arg(&args["city"], "city").unwrap();
//! assert_eq!((days, city), (1, "Oslo"));
//! let err = decode_arg::<u8>(&json!("5"), "days").unwrap_err();
//! assert_eq!(err.to_string(), r#"days: expected an integer, got "5""#);
//! ```

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::fmt;
use std::hash::Hash;
use std::num::{
    NonZeroI8, NonZeroI16, NonZeroI32, NonZeroI64, NonZeroIsize, NonZeroU8, NonZeroU16, NonZeroU32,
    NonZeroU64, NonZeroUsize,
};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::error::{Reason, ToolError, UnknownName, summarize};

/// How deep arrays and objects may nest inside one argument.
pub const MAX_DEPTH: usize = 128;

/// One step of a path into an argument.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Segment {
    /// An object key.
    Key(String),
    /// An array index.
    Index(usize),
}

/// A decoding failure: what was wrong, and where inside the argument.
#[derive(Clone, Debug, PartialEq)]
pub struct ArgError {
    /// Steps from the argument down to the failing value, innermost last.
    /// Built innermost first while unwinding, then reversed by [`ArgError::path`].
    rev_path: Vec<Segment>,
    /// What was wrong. Boxed, as in [`ToolError::InvalidArgument`], so a decoding
    /// `Result` stays small (the error is the rare case): read it as `&*error.reason`.
    pub reason: Box<Reason>,
}

impl ArgError {
    /// An error at the current position.
    pub fn new(reason: Reason) -> Self {
        ArgError { rev_path: Vec::new(), reason: Box::new(reason) }
    }

    /// An error at the end of a path already built innermost first.
    pub(crate) fn at_rev_path(rev_path: Vec<Segment>, reason: Reason) -> Self {
        ArgError { rev_path, reason: Box::new(reason) }
    }

    /// A type's own decoder rejected the value with `message`.
    pub fn invalid(message: impl fmt::Display) -> Self {
        ArgError::new(Reason::Invalid { message: message.to_string() })
    }

    /// Prefixes the path with an object key.
    pub fn at_key(mut self, key: &str) -> Self {
        self.rev_path.push(Segment::Key(key.to_owned()));
        self
    }

    /// Prefixes the path with an array index.
    pub fn at_index(mut self, index: usize) -> Self {
        self.rev_path.push(Segment::Index(index));
        self
    }

    /// The path below the argument, outermost first.
    pub fn path(&self) -> impl Iterator<Item = &Segment> {
        self.rev_path.iter().rev()
    }

    /// The full dotted path starting at argument `name` (`address.zip`, `items[3]`).
    pub fn path_from(&self, name: &str) -> String {
        let mut out = name.to_owned();
        for segment in self.path() {
            match segment {
                Segment::Key(key) => {
                    out.push('.');
                    out.push_str(key);
                }
                Segment::Index(i) => {
                    out.push('[');
                    out.push_str(&i.to_string());
                    out.push(']');
                }
            }
        }
        out
    }

    /// Turns this into the [`ToolError`] for argument `name`.
    pub fn into_tool_error(self, name: &str) -> ToolError {
        ToolError::InvalidArgument { name: self.path_from(name), reason: self.reason }
    }
}

impl fmt::Display for ArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path_from("$"), self.reason)
    }
}

/// A Rust type that can be decoded from one JSON argument value.
///
/// `'a` is the lifetime of the arguments, so `&'a str` can borrow instead of copying.
/// `depth` counts the containers already entered; implementations for containers pass
/// `depth + 1` to their items and fail with [`Reason::TooDeep`] past [`MAX_DEPTH`].
pub trait FromArg<'a>: Sized {
    /// Decodes `value`.
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError>;

    /// Whether `null` is a meaningful value of this type (so `Option<Self>` passes it
    /// through as `Some(..)` rather than treating it as absent).
    const ACCEPTS_NULL: bool = false;

    /// The value when the argument or field is absent; `None` means it is required.
    fn absent() -> Option<Self> {
        None
    }

    /// Decodes `value`, an object that also holds an internally tagged enum's tag under
    /// the key `tag` (serde puts a newtype variant's struct fields beside the tag). The
    /// generated decoders of structs with named fields read it; any other type refuses.
    #[doc(hidden)]
    fn from_tagged(value: &'a Value, depth: usize, tag: &str) -> Result<Self, ArgError> {
        let _ = (value, depth, tag);
        Err(ArgError::invalid("this type cannot be read beside a tag"))
    }
}

/// Decodes argument `name` from `value`, mapping failures to a [`ToolError`].
pub fn decode_arg<'a, T: FromArg<'a>>(value: &'a Value, name: &str) -> Result<T, ToolError> {
    T::from_arg(value, 0).map_err(|e| e.into_tool_error(name))
}

/// Decodes argument `name`, which may be absent (`None`) from the arguments object.
/// An absent argument uses [`FromArg::absent`], or is a `MissingArgument` error.
pub fn decode_slot<'a, T: FromArg<'a>>(value: Option<&'a Value>, name: &str) -> Result<T, ToolError> {
    match value {
        Some(value) => decode_arg(value, name),
        None => T::absent().ok_or_else(|| ToolError::MissingArgument(name.to_owned())),
    }
}

/// Decodes a nested field of a struct: absence and errors carry the field's path.
pub fn decode_field<'a, T: FromArg<'a>>(
    object: &'a Map<String, Value>,
    key: &str,
    depth: usize,
) -> Result<T, ArgError> {
    match object.get(key) {
        Some(value) => T::from_arg(value, depth).map_err(|e| e.at_key(key)),
        None => T::absent().ok_or_else(|| ArgError::new(Reason::MissingField { field: key.to_owned() })),
    }
}

/// Fails with [`Reason::TooDeep`] when `depth` is past the limit.
pub fn check_depth(depth: usize) -> Result<(), ArgError> {
    if depth >= MAX_DEPTH { Err(ArgError::new(Reason::TooDeep { limit: MAX_DEPTH })) } else { Ok(()) }
}

/// `value` as an object whose keys are all in `known`, or the error naming every
/// unknown key (or saying it is not an object).
pub fn expect_object<'a>(
    value: &'a Value,
    known: &[&str],
    depth: usize,
) -> Result<&'a Map<String, Value>, ArgError> {
    check_depth(depth)?;
    let map =
        value.as_object().ok_or_else(|| expected(Reason::ExpectedObject { value: summarize(value) }))?;
    // Common case first: every key known, nothing collected.
    if map.len() <= known.len() && map.keys().all(|k| known.contains(&k.as_str())) {
        return Ok(map);
    }
    let unknown = UnknownName::all(map.keys(), known);
    if unknown.is_empty() { Ok(map) } else { Err(ArgError::new(Reason::UnknownFields { fields: unknown })) }
}

fn expected(reason: Reason) -> ArgError {
    ArgError::new(reason)
}

/// The nesting depth of `value`, counted without recursion, stopping at `limit + 1`.
pub fn nesting_depth(value: &Value, limit: usize) -> usize {
    let mut deepest = 0;
    let mut stack: Vec<(&Value, usize)> = vec![(value, 0)];
    while let Some((value, depth)) = stack.pop() {
        deepest = deepest.max(depth);
        if deepest > limit {
            return deepest;
        }
        match value {
            Value::Array(items) => stack.extend(items.iter().map(|v| (v, depth + 1))),
            Value::Object(map) => stack.extend(map.values().map(|v| (v, depth + 1))),
            _ => {}
        }
    }
    deepest
}

/// Decodes `value` with `serde::Deserialize`, for types with no [`FromArg`] mapping.
/// The nesting is checked first, so a deep value fails cleanly before any recursion.
pub fn deserialize_arg<T: serde::de::DeserializeOwned>(value: &Value, depth: usize) -> Result<T, ArgError> {
    if depth + nesting_depth(value, MAX_DEPTH) >= MAX_DEPTH {
        return Err(ArgError::new(Reason::TooDeep { limit: MAX_DEPTH }));
    }
    T::deserialize(value).map_err(ArgError::invalid)
}

// ---------------------------------------------------------------------------------------
// Scalars

impl<'a> FromArg<'a> for bool {
    fn from_arg(value: &'a Value, _depth: usize) -> Result<Self, ArgError> {
        value.as_bool().ok_or_else(|| expected(Reason::ExpectedBoolean { value: summarize(value) }))
    }
}

/// The whole number in `value` as an `i128`: integers, and floats with no fraction
/// (`1.0` arrives as `1`); anything else is `ExpectedInteger`.
pub fn integer_value(value: &Value) -> Result<i128, ArgError> {
    let not_integer = || expected(Reason::ExpectedInteger { value: summarize(value) });
    let Value::Number(n) = value else { return Err(not_integer()) };
    if let Some(i) = n.as_i64() {
        return Ok(i128::from(i));
    }
    if let Some(u) = n.as_u64() {
        return Ok(i128::from(u));
    }
    match n.as_f64() {
        // Exact below 2^63 in magnitude; beyond that we refuse rather than guess.
        Some(f) if f.fract() == 0.0 && f.abs() < 9.2e18 => Ok(f as i128),
        Some(f) if f.fract() == 0.0 => Err(out_of_range(value, i128::MIN, i128::MAX)),
        _ => Err(not_integer()),
    }
}

fn out_of_range(value: &Value, min: impl fmt::Display, max: impl fmt::Display) -> ArgError {
    expected(Reason::OutOfRange { value: summarize(value), min: min.to_string(), max: max.to_string() })
}

/// A primitive integer type, with its bounds for error messages.
pub trait Integer: std::str::FromStr {
    /// The smallest value, written out.
    fn min_text() -> String;
    /// The largest value, written out.
    fn max_text() -> String;
}

macro_rules! integer_from_arg {
    ($($ty:ty),*) => {$(
        impl Integer for $ty {
            fn min_text() -> String {
                <$ty>::MIN.to_string()
            }

            fn max_text() -> String {
                <$ty>::MAX.to_string()
            }
        }

        impl<'a> FromArg<'a> for $ty {
            fn from_arg(value: &'a Value, _depth: usize) -> Result<Self, ArgError> {
                let range = || out_of_range(value, <$ty>::MIN, <$ty>::MAX);
                // Fast path: an integer that fits `i64` (almost every argument).
                if let Some(i) = value.as_i64() {
                    return <$ty>::try_from(i).map_err(|_| range());
                }
                let wide = integer_value(value).map_err(|e| match *e.reason {
                    // Name this type's range, not `integer_value`'s internal one.
                    Reason::OutOfRange { .. } => range(),
                    _ => e,
                })?;
                <$ty>::try_from(wide).map_err(|_| range())
            }
        }
    )*};
}
integer_from_arg!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

macro_rules! nonzero_from_arg {
    ($($ty:ty => $inner:ty),*) => {$(
        impl<'a> FromArg<'a> for $ty {
            fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
                let inner = <$inner as FromArg>::from_arg(value, depth)?;
                <$ty>::new(inner).ok_or_else(|| out_of_range(value, "non-zero", <$inner>::MAX))
            }
        }
    )*};
}
nonzero_from_arg!(
    NonZeroU8 => u8, NonZeroU16 => u16, NonZeroU32 => u32, NonZeroU64 => u64, NonZeroUsize => usize,
    NonZeroI8 => i8, NonZeroI16 => i16, NonZeroI32 => i32, NonZeroI64 => i64, NonZeroIsize => isize
);

impl<'a> FromArg<'a> for f64 {
    fn from_arg(value: &'a Value, _depth: usize) -> Result<Self, ArgError> {
        value.as_f64().ok_or_else(|| expected(Reason::ExpectedNumber { value: summarize(value) }))
    }
}

impl<'a> FromArg<'a> for f32 {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        let wide = f64::from_arg(value, depth)?;
        let narrow = wide as f32;
        if narrow.is_finite() { Ok(narrow) } else { Err(out_of_range(value, f32::MIN, f32::MAX)) }
    }
}

impl<'a> FromArg<'a> for &'a str {
    fn from_arg(value: &'a Value, _depth: usize) -> Result<Self, ArgError> {
        value.as_str().ok_or_else(|| expected(Reason::ExpectedString { value: summarize(value) }))
    }
}

impl<'a> FromArg<'a> for String {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        <&str>::from_arg(value, depth).map(str::to_owned)
    }
}

impl<'a> FromArg<'a> for Cow<'a, str> {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        <&str>::from_arg(value, depth).map(Cow::Borrowed)
    }
}

impl<'a> FromArg<'a> for Box<str> {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        <&str>::from_arg(value, depth).map(Box::from)
    }
}

impl<'a> FromArg<'a> for Rc<str> {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        <&str>::from_arg(value, depth).map(Rc::from)
    }
}

impl<'a> FromArg<'a> for Arc<str> {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        <&str>::from_arg(value, depth).map(Arc::from)
    }
}

impl<'a> FromArg<'a> for PathBuf {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        <&str>::from_arg(value, depth).map(PathBuf::from)
    }
}

impl<'a> FromArg<'a> for char {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        let text = <&str>::from_arg(value, depth)?;
        let mut chars = text.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => Ok(c),
            _ => Err(expected(Reason::WrongLength {
                value: summarize(value),
                expected: "exactly 1 character".to_owned(),
            })),
        }
    }
}

/// Parses a string argument with `FromStr`, reporting `format` when it fails.
pub fn parse_formatted<T: std::str::FromStr>(value: &Value, format: &str) -> Result<T, ArgError> {
    let text = value.as_str().ok_or_else(|| expected(Reason::ExpectedString { value: summarize(value) }))?;
    text.parse()
        .map_err(|_| expected(Reason::InvalidFormat { value: summarize(value), format: format.to_owned() }))
}

macro_rules! formatted_from_arg {
    ($($ty:ty => $format:literal),*) => {$(
        impl<'a> FromArg<'a> for $ty {
            fn from_arg(value: &'a Value, _depth: usize) -> Result<Self, ArgError> {
                parse_formatted(value, $format)
            }
        }
    )*};
}
formatted_from_arg!(
    std::net::IpAddr => "ip address",
    std::net::Ipv4Addr => "ipv4",
    std::net::Ipv6Addr => "ipv6"
);

/// Whether `text` is a decimal integer as the `string_integer` wire writes it: an optional
/// `-`, then one or more ASCII digits (the schema's `pattern`).
pub(crate) fn is_decimal_integer(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// A big integer that travels as a decimal string (the `string_integer` wire).
///
/// `StringInteger<u64>` accepts `"18446744073709551615"` and, leniently, a JSON number
/// that fits; it rejects `"1.5"`, `"abc"` and values outside the inner type's range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StringInteger<T>(pub T);

impl<'a, T> FromArg<'a> for StringInteger<T>
where
    T: FromArg<'a> + Integer,
{
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        match value {
            Value::String(text) => {
                if !is_decimal_integer(text) {
                    return Err(expected(Reason::ExpectedInteger { value: summarize(value) }));
                }
                text.parse::<T>().map(StringInteger).map_err(|_| {
                    expected(Reason::OutOfRange {
                        value: summarize(value),
                        min: T::min_text(),
                        max: T::max_text(),
                    })
                })
            }
            _ => T::from_arg(value, depth).map(StringInteger),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Wrappers

impl<'a, T: FromArg<'a>> FromArg<'a> for Option<T> {
    const ACCEPTS_NULL: bool = true;

    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        if value.is_null() && !T::ACCEPTS_NULL { Ok(None) } else { T::from_arg(value, depth).map(Some) }
    }

    fn absent() -> Option<Self> {
        Some(None)
    }
}

macro_rules! pointer_from_arg {
    ($($ptr:ident),*) => {$(
        impl<'a, T: FromArg<'a>> FromArg<'a> for $ptr<T> {
            const ACCEPTS_NULL: bool = T::ACCEPTS_NULL;

            fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
                T::from_arg(value, depth).map($ptr::new)
            }

            fn absent() -> Option<Self> {
                T::absent().map($ptr::new)
            }
        }
    )*};
}
pointer_from_arg!(Box, Rc, Arc);

impl<'a> FromArg<'a> for Value {
    const ACCEPTS_NULL: bool = true;

    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        if depth + nesting_depth(value, MAX_DEPTH) >= MAX_DEPTH {
            return Err(ArgError::new(Reason::TooDeep { limit: MAX_DEPTH }));
        }
        Ok(value.clone())
    }
}

impl<'a> FromArg<'a> for &'a Value {
    const ACCEPTS_NULL: bool = true;

    fn from_arg(value: &'a Value, _depth: usize) -> Result<Self, ArgError> {
        Ok(value)
    }
}

// ---------------------------------------------------------------------------------------
// Sequences

/// Decodes every item of an array argument, naming the index of a failing item.
pub fn decode_items<'a, T: FromArg<'a>>(value: &'a Value, depth: usize) -> Result<Vec<T>, ArgError> {
    check_depth(depth)?;
    let items =
        value.as_array().ok_or_else(|| expected(Reason::ExpectedArray { value: summarize(value) }))?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| T::from_arg(item, depth + 1).map_err(|e| e.at_index(i)))
        .collect()
}

impl<'a, T: FromArg<'a>> FromArg<'a> for Vec<T> {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        decode_items(value, depth)
    }
}

impl<'a, T: FromArg<'a>> FromArg<'a> for VecDeque<T> {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        decode_items(value, depth).map(VecDeque::from)
    }
}

impl<'a, T: FromArg<'a>> FromArg<'a> for Box<[T]> {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        decode_items(value, depth).map(Vec::into_boxed_slice)
    }
}

impl<'a, T: FromArg<'a>, const N: usize> FromArg<'a> for [T; N] {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        let items: Vec<T> = decode_items(value, depth)?;
        items.try_into().map_err(|_| {
            expected(Reason::WrongLength { value: summarize(value), expected: format!("exactly {N} items") })
        })
    }
}

/// Collects items into a set, failing on the first repeated item.
fn decode_set<'a, T: FromArg<'a>, S: Default + Extend<T>>(
    value: &'a Value,
    depth: usize,
    mut insert: impl FnMut(&mut S, T) -> bool,
) -> Result<S, ArgError> {
    let items: Vec<T> = decode_items(value, depth)?;
    let mut set = S::default();
    for (i, item) in items.into_iter().enumerate() {
        if !insert(&mut set, item) {
            let repeated = value.get(i).map(summarize).unwrap_or(Value::Null);
            return Err(ArgError::new(Reason::DuplicateItem { value: repeated }).at_index(i));
        }
    }
    Ok(set)
}

impl<'a, T: FromArg<'a> + Eq + Hash> FromArg<'a> for HashSet<T> {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        decode_set(value, depth, |set: &mut HashSet<T>, item| set.insert(item))
    }
}

impl<'a, T: FromArg<'a> + Ord> FromArg<'a> for BTreeSet<T> {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        decode_set(value, depth, |set: &mut BTreeSet<T>, item| set.insert(item))
    }
}

/// The items of a tuple argument: an array of exactly `len` items.
pub fn tuple_items(value: &Value, len: usize, depth: usize) -> Result<&[Value], ArgError> {
    check_depth(depth)?;
    let items =
        value.as_array().ok_or_else(|| expected(Reason::ExpectedArray { value: summarize(value) }))?;
    if items.len() != len {
        return Err(expected(Reason::WrongLength {
            value: summarize(value),
            expected: format!("exactly {len} items"),
        }));
    }
    Ok(items)
}

macro_rules! tuple_from_arg {
    ($len:literal => $($name:ident $index:tt),+) => {
        impl<'a, $($name: FromArg<'a>),+> FromArg<'a> for ($($name,)+) {
            fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
                let items = tuple_items(value, $len, depth)?;
                Ok(($(
                    $name::from_arg(&items[$index], depth + 1).map_err(|e| e.at_index($index))?,
                )+))
            }
        }
    };
}
tuple_from_arg!(1 => A 0);
tuple_from_arg!(2 => A 0, B 1);
tuple_from_arg!(3 => A 0, B 1, C 2);
tuple_from_arg!(4 => A 0, B 1, C 2, D 3);
tuple_from_arg!(5 => A 0, B 1, C 2, D 3, E 4);
tuple_from_arg!(6 => A 0, B 1, C 2, D 3, E 4, F 5);
tuple_from_arg!(7 => A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple_from_arg!(8 => A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);

// ---------------------------------------------------------------------------------------
// Maps

/// Decodes every value of an object argument, naming the key of a failing value.
pub fn decode_entries<'a, V: FromArg<'a>, M: FromIterator<(String, V)>>(
    value: &'a Value,
    depth: usize,
) -> Result<M, ArgError> {
    check_depth(depth)?;
    let map =
        value.as_object().ok_or_else(|| expected(Reason::ExpectedObject { value: summarize(value) }))?;
    map.iter()
        .map(|(k, v)| V::from_arg(v, depth + 1).map(|v| (k.clone(), v)).map_err(|e| e.at_key(k)))
        .collect()
}

impl<'a, V: FromArg<'a>, S: std::hash::BuildHasher + Default> FromArg<'a> for HashMap<String, V, S> {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        decode_entries(value, depth)
    }
}

impl<'a, V: FromArg<'a>> FromArg<'a> for BTreeMap<String, V> {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        decode_entries(value, depth)
    }
}

impl<'a> FromArg<'a> for Map<String, Value> {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        decode_entries(value, depth)
    }
}

// ---------------------------------------------------------------------------------------
// Dates, uuids (optional features)

/// Parses a date/time string argument with `parse`, reporting `InvalidDate` for `format`.
pub fn parse_date<T, E>(
    value: &Value,
    format: &str,
    parse: impl FnOnce(&str) -> Result<T, E>,
) -> Result<T, ArgError> {
    let text = value.as_str().ok_or_else(|| expected(Reason::ExpectedString { value: summarize(value) }))?;
    parse(text)
        .map_err(|_| expected(Reason::InvalidDate { value: summarize(value), format: format.to_owned() }))
}

#[cfg(feature = "chrono")]
mod chrono_impls {
    use super::*;
    use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, Utc};

    impl<'a> FromArg<'a> for NaiveDate {
        fn from_arg(value: &'a Value, _depth: usize) -> Result<Self, ArgError> {
            parse_date(value, "date", |s| s.parse::<NaiveDate>())
        }
    }

    impl<'a> FromArg<'a> for NaiveTime {
        fn from_arg(value: &'a Value, _depth: usize) -> Result<Self, ArgError> {
            parse_date(value, "time", |s| s.parse::<NaiveTime>())
        }
    }

    impl<'a> FromArg<'a> for NaiveDateTime {
        fn from_arg(value: &'a Value, _depth: usize) -> Result<Self, ArgError> {
            parse_date(value, "date-time", |s| {
                s.parse::<NaiveDateTime>().or_else(|_| DateTime::parse_from_rfc3339(s).map(|d| d.naive_utc()))
            })
        }
    }

    impl<'a> FromArg<'a> for DateTime<FixedOffset> {
        fn from_arg(value: &'a Value, _depth: usize) -> Result<Self, ArgError> {
            parse_date(value, "date-time", DateTime::parse_from_rfc3339)
        }
    }

    impl<'a> FromArg<'a> for DateTime<Utc> {
        fn from_arg(value: &'a Value, _depth: usize) -> Result<Self, ArgError> {
            parse_date(value, "date-time", |s| DateTime::parse_from_rfc3339(s).map(|d| d.with_timezone(&Utc)))
        }
    }
}

#[cfg(feature = "uuid")]
impl<'a> FromArg<'a> for uuid::Uuid {
    fn from_arg(value: &'a Value, _depth: usize) -> Result<Self, ArgError> {
        parse_formatted(value, "uuid")
    }
}
