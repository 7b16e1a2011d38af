//! Slots: one parameter of a call or one field of an object, which may be absent.
//!
//! Generated code decodes every parameter and field through these functions, whatever
//! the decoding method (`FromArg`, serde, a type provider's function, the string-integer
//! wire), and turns a [`SlotError`] into the right error for where it happened:
//! [`SlotError::param`] at the top level, [`SlotError::field`] inside an object.

use std::fmt::Display;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::decode::{
    ArgError, FromArg, Integer, StringInteger, deserialize_arg, expect_object, object_and_unknown,
    tuple_items,
};
use crate::error::{Reason, ToolError, summarize};
pub use crate::validate::Bounds;

/// Why a slot could not be filled.
#[derive(Clone, Debug, PartialEq)]
pub enum SlotError {
    /// Absent, and required.
    Missing,
    /// Present, and invalid.
    Invalid(ArgError),
}

impl SlotError {
    /// The error for parameter `name` of a call.
    pub fn param(self, name: &str) -> ToolError {
        match self {
            SlotError::Missing => ToolError::MissingArgument(name.to_owned()),
            SlotError::Invalid(error) => error.into_tool_error(name),
        }
    }

    /// The error for field `key` of an object.
    pub fn field(self, key: &str) -> ArgError {
        match self {
            SlotError::Missing => ArgError::new(Reason::MissingField { field: key.to_owned() }),
            SlotError::Invalid(error) => error.at_key(key),
        }
    }

    /// The error for item `index` of an array.
    pub fn item(self, index: usize) -> ArgError {
        match self {
            SlotError::Missing => ArgError::new(Reason::MissingField { field: index.to_string() }),
            SlotError::Invalid(error) => error.at_index(index),
        }
    }
}

impl From<ArgError> for SlotError {
    fn from(error: ArgError) -> Self {
        SlotError::Invalid(error)
    }
}

/// Checks a present, non-null slot against `bounds`; absence and `null` are left to the
/// decoder.
pub fn bounded(value: Option<&Value>, bounds: Bounds) -> Result<(), SlotError> {
    match value {
        None | Some(Value::Null) => Ok(()),
        Some(value) => crate::validate::check_bounds(value, bounds).map_err(SlotError::Invalid),
    }
}

/// Decodes with `FromArg`; absence uses [`FromArg::absent`] (so `Option` slots are optional).
pub fn from_arg<'a, T: FromArg<'a>>(value: Option<&'a Value>, depth: usize) -> Result<T, SlotError> {
    match value {
        Some(value) => T::from_arg(value, depth).map_err(SlotError::Invalid),
        None => T::absent().ok_or(SlotError::Missing),
    }
}

/// `None` for an absent or `null` slot, else `Some(decode(value))`.
fn optional<'a, T>(
    value: Option<&'a Value>,
    decode: impl FnOnce(&'a Value) -> Result<T, ArgError>,
) -> Result<Option<T>, SlotError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(value) => decode(value).map(Some).map_err(SlotError::Invalid),
    }
}

fn required<'a, T>(
    value: Option<&'a Value>,
    decode: impl FnOnce(&'a Value) -> Result<T, ArgError>,
) -> Result<T, SlotError> {
    decode(value.ok_or(SlotError::Missing)?).map_err(SlotError::Invalid)
}

/// Decodes a required slot with `serde::Deserialize`.
pub fn serde<T: DeserializeOwned>(value: Option<&Value>, depth: usize) -> Result<T, SlotError> {
    required(value, |v| deserialize_arg(v, depth))
}

/// A whole value decoded by serde: a type whose absent field takes its default from a
/// function (`#[serde(default = "path")]`), which only serde can call. The generated
/// decoder has checked the keys first.
#[cold]
pub fn whole<T: DeserializeOwned>(value: &Value, depth: usize) -> Result<T, ArgError> {
    deserialize_arg(value, depth)
}

/// [`whole`], for a struct whose fields named `by_function` (their wire names and
/// aliases) take their defaults from functions: those given as `null` are left out first,
/// since an explicit `null` means absent and serde calls the function only for an absent
/// field.
#[cold]
pub fn whole_defaulted<T: DeserializeOwned>(
    value: &Value,
    by_function: &[&str],
    depth: usize,
) -> Result<T, ArgError> {
    let is_null_default = |key: &str, member: &Value| member.is_null() && by_function.contains(&key);
    match value {
        Value::Object(map) if map.iter().any(|(key, member)| is_null_default(key, member)) => {
            let mut map = map.clone();
            map.retain(|key, member| !is_null_default(key, member));
            deserialize_arg(&Value::Object(map), depth)
        }
        _ => deserialize_arg(value, depth),
    }
}

/// Decodes an `Option<T>` slot with `serde::Deserialize` (absent or `null` is `None`).
pub fn serde_opt<T: DeserializeOwned>(value: Option<&Value>, depth: usize) -> Result<Option<T>, SlotError> {
    optional(value, |v| deserialize_arg(v, depth))
}

fn provider_error(error: impl Display) -> ArgError {
    ArgError::invalid(error)
}

/// Decodes a required slot with a type provider's function.
pub fn provided<T, E: Display>(
    value: Option<&Value>,
    _depth: usize,
    decode: impl FnOnce(&Value) -> Result<T, E>,
) -> Result<T, SlotError> {
    required(value, |v| decode(v).map_err(provider_error))
}

/// Decodes an `Option<T>` slot with a type provider's function.
pub fn provided_opt<T, E: Display>(
    value: Option<&Value>,
    _depth: usize,
    decode: impl FnOnce(&Value) -> Result<T, E>,
) -> Result<Option<T>, SlotError> {
    optional(value, |v| decode(v).map_err(provider_error))
}

/// Decodes a required integer that travels as a decimal string.
pub fn string_integer<'a, T>(value: Option<&'a Value>, depth: usize) -> Result<T, SlotError>
where
    T: FromArg<'a> + Integer,
{
    required(value, |v| StringInteger::<T>::from_arg(v, depth).map(|s| s.0))
}

/// Decodes an `Option<integer>` that travels as a decimal string.
pub fn string_integer_opt<'a, T>(value: Option<&'a Value>, depth: usize) -> Result<Option<T>, SlotError>
where
    T: FromArg<'a> + Integer,
{
    optional(value, |v| StringInteger::<T>::from_arg(v, depth).map(|s| s.0))
}

/// `#[serde(default)]`: an absent slot is `T::default()`, a present one is decoded. An
/// explicit `null` means absent too, as strict schemas widen such fields to nullable (for
/// `Option` and `Value`, the default is what `null` would decode to anyway).
pub fn defaulted<'a, T: Default>(
    value: Option<&'a Value>,
    decode: impl FnOnce(Option<&'a Value>) -> Result<T, SlotError>,
) -> Result<T, SlotError> {
    match value {
        None => Ok(T::default()),
        Some(Value::Null) => Ok(T::default()),
        some => decode(some),
    }
}

/// The members of an object whose keys were checked: a call's arguments (in the exact
/// decoder) or a struct's fields, read one by name.
#[derive(Clone, Copy, Debug)]
pub struct Fields<'a>(&'a Map<String, Value>);

impl<'a> Fields<'a> {
    /// Wraps an object's members.
    pub fn new(map: &'a Map<String, Value>) -> Self {
        Fields(map)
    }

    /// The member named `name`, if present. Out of line: generated code reads every
    /// parameter and field of the exact decoder through this one copy of the map search.
    #[inline(never)]
    pub fn get(self, name: &str) -> Option<&'a Value> {
        self.0.get(name)
    }

    /// Field `key` of an object at `depth` decoded by its type's [`FromArg`] (one level
    /// deeper), its error naming it: a generated decoder's read of a plain field.
    #[inline]
    pub fn field<T: FromArg<'a>>(self, key: &str, depth: usize) -> Result<T, ArgError> {
        match from_arg(self.get(key), depth + 1) {
            Ok(value) => Ok(value),
            Err(error) => Err(error.field(key)),
        }
    }

    /// Parameter `name` decoded by its type's [`FromArg`], its error naming it: the exact
    /// decoder's read of a plain parameter.
    #[inline]
    pub fn arg<T: FromArg<'a>>(self, name: &str) -> Result<T, ToolError> {
        match from_arg(self.get(name), 0) {
            Ok(value) => Ok(value),
            Err(error) => Err(error.param(name)),
        }
    }

    /// The member named `name` or one of its `aliases` (`#[serde(alias = "..")]`), if
    /// present. Two of them at once is an error at the second: which value was meant
    /// cannot be known (serde says "duplicate field").
    #[inline(never)]
    pub fn get_aliased(self, name: &str, aliases: &[&str]) -> Result<Option<&'a Value>, ArgError> {
        let mut found = self.0.get(name);
        for alias in aliases {
            if let Some(value) = self.0.get(*alias) {
                if found.is_some() {
                    return Err(ArgError::new(crate::error::Reason::DuplicateKey {}).at_key(alias));
                }
                found = Some(value);
            }
        }
        Ok(found)
    }
}

/// The object of a struct (or struct variant) with exactly the `known` keys allowed.
pub fn object<'a>(value: &'a Value, known: &[&str], depth: usize) -> Result<Fields<'a>, ArgError> {
    expect_object(value, known, depth).map(Fields)
}

/// The members of a struct's object, and the error naming its keys not in `known`, if any:
/// a generated decoder reports it with its fields' errors (`crate::decode::all`). Not an
/// object (or too deep): the error.
pub fn members<'a>(
    value: &'a Value,
    known: &[&str],
    depth: usize,
) -> Result<(Fields<'a>, Option<ArgError>), ArgError> {
    object_and_unknown(value, known, depth).map(|(map, unknown)| (Fields(map), unknown))
}

/// [`members`] of a struct whose fields sit beside an internally tagged enum's `tag`.
#[inline(never)]
pub fn members_tagged<'a>(
    value: &'a Value,
    known: &[&str],
    tag: &str,
    depth: usize,
) -> Result<(Fields<'a>, Option<ArgError>), ArgError> {
    let mut keys = known.to_vec();
    keys.push(tag);
    members(value, &keys, depth)
}

/// A field whose default only serde can give (`#[serde(default = "path")]`): `None` when
/// absent or `null` (the generated decoder then hands the whole value to serde, through
/// [`whole_defaulted`]), else decoded.
pub fn if_present<'a, T>(
    value: Option<&'a Value>,
    decode: impl FnOnce(Option<&'a Value>) -> Result<T, SlotError>,
) -> Result<Option<T>, SlotError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        some => decode(some).map(Some),
    }
}

/// The items of a tuple struct or tuple variant.
pub fn tuple(value: &Value, len: usize, depth: usize) -> Result<&[Value], ArgError> {
    tuple_items(value, len, depth)
}

/// A unit struct or untagged unit variant: only `null`.
pub fn unit(value: &Value) -> Result<(), ArgError> {
    if value.is_null() {
        Ok(())
    } else {
        Err(ArgError::new(Reason::ExpectedNull { value: summarize(value) }))
    }
}

fn not_a_variant(value: &Value, names: &[&str]) -> ArgError {
    let allowed = names.iter().map(|n| (*n).to_owned()).collect();
    ArgError::new(Reason::not_in_enum(value, allowed))
}

/// serde's external tagging: `"Unit"` or `{"Variant": payload}`. Returns the variant
/// name and its payload (the string itself for unit variants).
pub fn external<'a>(
    value: &'a Value,
    units: &[&str],
    datas: &[&str],
    depth: usize,
) -> Result<(&'a str, &'a Value), ArgError> {
    crate::decode::check_depth(depth)?;
    let all: Vec<&str> = units.iter().chain(datas).copied().collect();
    match value {
        Value::String(name) if units.contains(&name.as_str()) => Ok((name, value)),
        Value::Object(map) if map.len() == 1 => match map.iter().next() {
            Some((name, payload)) if datas.contains(&name.as_str()) => Ok((name, payload)),
            Some((name, _)) => Err(not_a_variant(&Value::String(name.clone()), &all)),
            None => Err(not_a_variant(value, &all)),
        },
        _ => Err(not_a_variant(value, &all)),
    }
}

/// The exact decoder of an externally tagged enum whose variants are all units (`units`,
/// with their aliases): the name is checked as [`external`] checks it, with the same
/// errors, then picked by the type's own one-pass decoder, so the generated `FromArg`
/// impl holds no second `match` on the names.
pub fn unit_enum<'a, T: crate::fast::FastArg<'a>>(
    value: &'a Value,
    units: &[&str],
    depth: usize,
) -> Result<T, ArgError> {
    let (name, _) = external(value, units, &[], depth)?;
    let de = serde::de::value::BorrowedStrDeserializer::<serde::de::value::Error>::new(name);
    T::fast(de, depth).map_err(|_| ArgError::invalid("unknown variant"))
}

/// serde's internal tagging: `{"<tag>": "Variant", ..fields}`. Returns the variant name
/// and the object (fields are checked by the variant's own decoder).
pub fn internal<'a>(
    value: &'a Value,
    tag: &str,
    names: &[&str],
    depth: usize,
) -> Result<(&'a str, &'a Map<String, Value>), ArgError> {
    crate::decode::check_depth(depth)?;
    let map =
        value.as_object().ok_or_else(|| ArgError::new(Reason::ExpectedObject { value: summarize(value) }))?;
    let name = match map.get(tag) {
        Some(Value::String(name)) if names.contains(&name.as_str()) => name.as_str(),
        Some(other) => return Err(not_a_variant(other, names).at_key(tag)),
        None => return Err(ArgError::new(Reason::MissingField { field: tag.to_owned() })),
    };
    Ok((name, map))
}

/// serde's adjacent tagging: `{"<tag>": "Variant", "<content>": payload}`.
pub fn adjacent<'a>(
    value: &'a Value,
    tag: &str,
    content: &str,
    names: &[&str],
    depth: usize,
) -> Result<(&'a str, Option<&'a Value>), ArgError> {
    let (name, map) = internal(value, tag, names, depth)?;
    let extra = crate::error::UnknownName::all(map.keys(), &[tag, content]);
    if !extra.is_empty() {
        return Err(ArgError::new(Reason::UnknownFields { fields: extra }));
    }
    Ok((name, map.get(content)))
}

/// The error when no variant of an untagged enum matches.
pub fn no_variant(value: &Value, type_name: &str, first: Option<ArgError>) -> ArgError {
    let detail = first.map(|e| format!(" (first variant: {e})")).unwrap_or_default();
    ArgError::invalid(format!("{} matches no variant of {type_name}{detail}", summarize(value)))
}
