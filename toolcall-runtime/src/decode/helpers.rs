//! The pieces [`FromArg`] impls are built from, generated ones
//! included: the depth bound, the checks of an object, a number, a string of a format,
//! and decoding items and entries one by one.

use std::fmt;

use serde_json::{Map, Value};

use crate::error::{Reason, UnknownName, summarize};

use super::arg::{ArgError, FromArg, MAX_DEPTH};

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

/// `value` as an object, and the error naming every key not in `known` (the object's
/// first mistake, reported with the others its fields make), if any; not an object (or too
/// deep): the error.
pub fn object_and_unknown<'a>(
    value: &'a Value,
    known: &[&str],
    depth: usize,
) -> Result<(&'a Map<String, Value>, Option<ArgError>), ArgError> {
    match expect_object(value, known, depth) {
        Ok(map) => Ok((map, None)),
        Err(error) if matches!(*error.reason, Reason::UnknownFields { .. }) => match value.as_object() {
            Some(map) => Ok((map, Some(error))),
            None => Err(error),
        },
        Err(error) => Err(error),
    }
}

pub(super) fn expected(reason: Reason) -> ArgError {
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

pub(super) fn out_of_range(value: &Value, min: impl fmt::Display, max: impl fmt::Display) -> ArgError {
    expected(Reason::OutOfRange { value: summarize(value), min: min.to_string(), max: max.to_string() })
}

/// A primitive integer type, with its bounds for error messages.
pub trait Integer: std::str::FromStr {
    /// The smallest value, written out.
    fn min_text() -> String;
    /// The largest value, written out.
    fn max_text() -> String;
}

/// Parses a string argument with `FromStr`, reporting `format` when it fails.
pub fn parse_formatted<T: std::str::FromStr>(value: &Value, format: &str) -> Result<T, ArgError> {
    let text = value.as_str().ok_or_else(|| expected(Reason::ExpectedString { value: summarize(value) }))?;
    text.parse()
        .map_err(|_| expected(Reason::InvalidFormat { value: summarize(value), format: format.to_owned() }))
}

/// Whether `text` is a decimal integer as the `string_integer` wire writes it: an optional
/// `-`, then one or more ASCII digits (the schema's `pattern`).
pub(crate) fn is_decimal_integer(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

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

/// Collects items into a set, failing on the first repeated item.
pub(super) fn decode_set<'a, T: FromArg<'a>, S: Default + Extend<T>>(
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
