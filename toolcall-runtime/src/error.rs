//! Errors a tool call can end in, written for the model to read and act on.
//!
//! [`ToolError`] is what [`Toolset::run`](crate::Toolset::run) returns. Its `Display` is one
//! line naming what was wrong and where (`days: expected an integer, got "5"`); its
//! `Serialize` form is a stable JSON object to send back as the tool result.

use std::borrow::Cow;
use std::fmt;

use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::Value;

use crate::capture::cut;
use crate::failure::ToolFailure;

/// Why a call did not produce a result.
#[derive(Clone, Debug, PartialEq)]
pub enum ToolError {
    /// No tool has this name.
    UnknownTool {
        /// The name that was asked for.
        name: String,
        /// The names that exist.
        known: Vec<String>,
    },
    /// Keys the schema does not declare, all of them, each with the closest declared
    /// name when one is close.
    UnknownArguments(Vec<UnknownName>),
    /// The arguments were not a JSON object (a summary of what arrived).
    InvalidArguments(Value),
    /// A required argument is absent (the first one, in declaration order).
    MissingArgument(String),
    /// An argument has the wrong shape or value.
    InvalidArgument {
        /// Path of the argument: `days`, `address.zip`, `items[3]`.
        name: String,
        /// What was wrong. Boxed, so every call's `Result` stays small (the error is
        /// the rare case): read it as `&*reason` or `*reason`.
        reason: Box<Reason>,
    },
    /// The arguments were not valid JSON text.
    InvalidJson(String),
    /// The tool returned an error (its `Display` text), or its result could not be encoded.
    Failed(String),
    /// The tool returned a [`ToolFailure`]: a request to call again with changed
    /// arguments (kind `retry`) or a failure (kind `failed`), with its optional code.
    Reported(ToolFailure),
    /// The tool panicked; the message of the panic.
    Panicked(String),
    /// The tool is `async` and was asked for through a sync entry point (`run`,
    /// `run_json`, `run_bytes`, `run_with`), which never blocks: call it with
    /// `Toolset::call(..).await`. Its body did not run.
    AsyncTool(String),
    /// Several mistakes in one call, every one of them, so the model fixes them in one
    /// round trip: the unknown arguments first, then each argument's errors in declaration
    /// order. Inside an argument, an object (a struct) gives all of its own: its unknown
    /// fields, then each field's, nested objects' at their paths (`recipe.cuisine`); an
    /// array its first bad item's, an enum one of the variant it read. A single mistake is
    /// never wrapped: it is its own variant.
    Several(Vec<ToolError>),
}

impl ToolError {
    /// The stable snake_case name of the variant, the `error` field of the JSON form.
    pub fn kind(&self) -> &'static str {
        match self {
            ToolError::UnknownTool { .. } => "unknown_tool",
            ToolError::UnknownArguments(_) => "unknown_arguments",
            ToolError::InvalidArguments(_) => "invalid_arguments",
            ToolError::MissingArgument(_) => "missing_argument",
            ToolError::InvalidArgument { .. } => "invalid_argument",
            ToolError::InvalidJson(_) => "invalid_json",
            ToolError::Failed(_) => "failed",
            ToolError::Reported(failure) if failure.is_retry() => "retry",
            ToolError::Reported(_) => "failed",
            ToolError::Panicked(_) => "panicked",
            ToolError::AsyncTool(_) => "async_tool",
            ToolError::Several(_) => "several",
        }
    }

    /// Whether the model can fix this by changing its call (every variant except
    /// `Failed`, a [`ToolFailure::fail`], `Panicked` and `AsyncTool`, which are about
    /// the tool or its caller; a [`ToolFailure::retry`] is one).
    pub fn is_call_error(&self) -> bool {
        match self {
            ToolError::Reported(failure) => failure.is_retry(),
            _ => !matches!(self, ToolError::Failed(_) | ToolError::Panicked(_) | ToolError::AsyncTool(_)),
        }
    }

    /// One error for all of `errors`: `None` when there are none, the error itself when
    /// there is one, [`ToolError::Several`] otherwise (nested lists are flattened).
    pub fn all(errors: impl IntoIterator<Item = ToolError>) -> Option<ToolError> {
        let mut all = Vec::new();
        for error in errors {
            match error {
                ToolError::Several(inner) => all.extend(inner),
                error => all.push(error),
            }
        }
        match all.len() {
            0 => None,
            1 => all.pop(),
            _ => Some(ToolError::Several(all)),
        }
    }

    /// The known tool name closest to the one asked for, for [`ToolError::UnknownTool`].
    pub fn did_you_mean(&self) -> Option<&str> {
        match self {
            ToolError::UnknownTool { name, known } => {
                crate::suggest::closest_name(name, known.iter().map(String::as_str))
            }
            _ => None,
        }
    }

    /// The error as a JSON value (same as its `Serialize` form).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolError::UnknownTool { name, known } => {
                write!(f, "unknown tool {}", quote(&cut(name, MAX_NAME)))?;
                if let Some(closest) = self.did_you_mean() {
                    write!(f, " (did you mean {}?)", quote(closest))?;
                }
                write!(f, "; known tools: {}", known.join(", "))
            }
            ToolError::UnknownArguments(names) => write_unknown(f, "argument", names),
            ToolError::InvalidArguments(value) => {
                write!(f, "arguments must be a JSON object, got {}", preview(value))
            }
            ToolError::MissingArgument(name) => {
                write!(f, "{}: missing required argument", cut(name, MAX_NAME))
            }
            ToolError::InvalidArgument { name, reason } => write!(f, "{}: {reason}", cut(name, MAX_NAME)),
            ToolError::InvalidJson(message) => {
                write!(f, "arguments are not valid JSON: {}", cut(message, MAX_MESSAGE))
            }
            ToolError::Failed(message) => write!(f, "tool failed: {}", cut(message, MAX_MESSAGE)),
            ToolError::Reported(failure) => {
                f.write_str(if failure.is_retry() {
                    "call again with changed arguments"
                } else {
                    "tool failed"
                })?;
                if let Some(code) = failure.code() {
                    write!(f, " ({})", cut(code, MAX_NAME))?;
                }
                write!(f, ": {}", cut(failure.message(), MAX_MESSAGE))
            }
            ToolError::Panicked(message) => write!(f, "tool panicked: {}", cut(message, MAX_MESSAGE)),
            ToolError::AsyncTool(name) => write!(
                f,
                "tool {} is async: the caller must use `Toolset::call(..).await`, not a sync `run`",
                quote(&cut(name, MAX_NAME))
            ),
            ToolError::Several(errors) => {
                write!(f, "{} mistakes in the arguments:", errors.len())?;
                errors.iter().take(MAX_LISTED).try_for_each(|error| write!(f, "\n- {error}"))?;
                match errors.len().saturating_sub(MAX_LISTED) {
                    0 => Ok(()),
                    more => write!(f, "\n- and {more} more"),
                }
            }
        }
    }
}

/// `unknown argument "A" (did you mean "a"?)`, or `unknown arguments: "x", "y"`; past
/// `MAX_LISTED` (20) names, `and N more`.
fn write_unknown(f: &mut fmt::Formatter<'_>, what: &str, names: &[UnknownName]) -> fmt::Result {
    match names {
        [one] => write!(f, "unknown {what} {one}"),
        _ => {
            write!(f, "unknown {what}s: ")?;
            for (i, name) in names.iter().take(MAX_LISTED).enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{name}")?;
            }
            match names.len().saturating_sub(MAX_LISTED) {
                0 => Ok(()),
                more => write!(f, ", and {more} more"),
            }
        }
    }
}

impl std::error::Error for ToolError {}

impl From<ToolFailure> for ToolError {
    fn from(failure: ToolFailure) -> Self {
        ToolError::Reported(failure)
    }
}

/// A name the tool does not declare (an argument, a field), with the closest name it
/// does declare when one is close (differs in case, or by a typo).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct UnknownName {
    /// The name as it arrived (in an error's text and JSON, its first 120 characters).
    #[serde(serialize_with = "serialize_cut_name")]
    pub name: String,
    /// The closest declared name, if one is close.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub did_you_mean: Option<String>,
}

impl UnknownName {
    /// `name`, with its closest match among `known`.
    pub fn new(name: &str, known: &[&str]) -> Self {
        let did_you_mean = crate::suggest::closest_name(name, known.iter().copied()).map(str::to_owned);
        UnknownName { name: name.to_owned(), did_you_mean }
    }

    /// Every key of `keys` that is not in `known`, in order; the first `MAX_LISTED` (20),
    /// the ones an error shows, with suggestions (the rest are only counted, so a call
    /// with 300,000 unknown keys costs no 300,000 edit-distance searches).
    pub fn all<'k>(keys: impl IntoIterator<Item = &'k String>, known: &[&str]) -> Vec<UnknownName> {
        keys.into_iter()
            .filter(|k| !known.contains(&k.as_str()))
            .enumerate()
            .map(
                |(i, k)| {
                    if i < MAX_LISTED { UnknownName::new(k, known) } else { UnknownName::from(k.as_str()) }
                },
            )
            .collect()
    }
}

fn serialize_cut_name<S: serde::Serializer>(name: &str, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&cut(name, MAX_NAME))
}

/// An unknown name with no suggestion.
impl From<&str> for UnknownName {
    fn from(name: &str) -> Self {
        UnknownName { name: name.to_owned(), did_you_mean: None }
    }
}

/// An unknown name with no suggestion.
impl From<String> for UnknownName {
    fn from(name: String) -> Self {
        UnknownName { name, did_you_mean: None }
    }
}

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&quote(&cut(&self.name, MAX_NAME)))?;
        match &self.did_you_mean {
            Some(closest) => write!(f, " (did you mean {}?)", quote(closest)),
            None => Ok(()),
        }
    }
}

impl Serialize for ToolError {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("error", self.kind())?;
        match self {
            ToolError::UnknownTool { name, known } => {
                map.serialize_entry("name", &cut(name, MAX_NAME))?;
                map.serialize_entry("known", known)?;
                if let Some(closest) = self.did_you_mean() {
                    map.serialize_entry("did_you_mean", closest)?;
                }
            }
            ToolError::UnknownArguments(names) => {
                let listed = &names[..names.len().min(MAX_LISTED)];
                let plain: Vec<Cow<'_, str>> = listed.iter().map(|n| cut(&n.name, MAX_NAME)).collect();
                map.serialize_entry("names", &plain)?;
                map.serialize_entry("unknown", listed)?;
                omitted(&mut map, names.len())?;
            }
            ToolError::InvalidArguments(value) => map.serialize_entry("value", value)?,
            ToolError::MissingArgument(name) => map.serialize_entry("name", &cut(name, MAX_NAME))?,
            ToolError::InvalidArgument { name, reason } => {
                map.serialize_entry("name", &cut(name, MAX_NAME))?;
                map.serialize_entry("reason", reason)?;
            }
            ToolError::InvalidJson(message) | ToolError::Failed(message) | ToolError::Panicked(message) => {
                map.serialize_entry("detail", &cut(message, MAX_MESSAGE))?
            }
            ToolError::Reported(failure) => {
                map.serialize_entry("detail", &cut(failure.message(), MAX_MESSAGE))?;
                if let Some(code) = failure.code() {
                    map.serialize_entry("code", &cut(code, MAX_NAME))?;
                }
            }
            ToolError::AsyncTool(name) => map.serialize_entry("name", &cut(name, MAX_NAME))?,
            ToolError::Several(errors) => {
                map.serialize_entry("errors", &errors[..errors.len().min(MAX_LISTED)])?;
                omitted(&mut map, errors.len())?;
            }
        }
        map.serialize_entry("message", &self.to_string())?;
        map.end()
    }
}

/// `"omitted": N` when a list of `len` entries was cut at `MAX_LISTED` (20).
fn omitted<M: SerializeMap>(map: &mut M, len: usize) -> Result<(), M::Error> {
    match len.saturating_sub(MAX_LISTED) {
        0 => Ok(()),
        more => map.serialize_entry("omitted", &more),
    }
}

/// Why one argument value was rejected. Each carries a summary of the offending value.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Reason {
    /// Not a whole number (`1.5`, `"5"`).
    ExpectedInteger {
        /// What arrived.
        value: Value,
    },
    /// Not a number.
    ExpectedNumber {
        /// What arrived.
        value: Value,
    },
    /// Not a string.
    ExpectedString {
        /// What arrived.
        value: Value,
    },
    /// Not `true`/`false`.
    ExpectedBoolean {
        /// What arrived.
        value: Value,
    },
    /// Not an array.
    ExpectedArray {
        /// What arrived.
        value: Value,
    },
    /// Not an object.
    ExpectedObject {
        /// What arrived.
        value: Value,
    },
    /// Not `null` (for a value that can only be null).
    ExpectedNull {
        /// What arrived.
        value: Value,
    },
    /// A number outside the type's range.
    OutOfRange {
        /// What arrived.
        value: Value,
        /// Inclusive lower bound.
        min: String,
        /// Inclusive upper bound.
        max: String,
    },
    /// A string that is not one of the allowed values.
    NotInEnum {
        /// What arrived.
        value: Value,
        /// The allowed values.
        allowed: Vec<String>,
        /// The allowed value closest to what arrived, if one is close.
        #[serde(skip_serializing_if = "Option::is_none")]
        did_you_mean: Option<String>,
    },
    /// A string that does not parse as the date/time it should be.
    InvalidDate {
        /// What arrived.
        value: Value,
        /// The expected format (`date`, `date-time`, `time`).
        format: String,
    },
    /// A string that does not parse as the given format (uuid, uri, ip address, ...).
    InvalidFormat {
        /// What arrived.
        value: Value,
        /// The expected format.
        format: String,
    },
    /// A string or array with the wrong length.
    WrongLength {
        /// What arrived.
        value: Value,
        /// What the length must be, e.g. `exactly 1 character`, `exactly 3 items`.
        expected: String,
    },
    /// An item that appears twice in a set.
    DuplicateItem {
        /// The repeated item.
        value: Value,
    },
    /// A nested object lacks a required field.
    MissingField {
        /// The field's name.
        field: String,
    },
    /// A nested object has fields its type does not declare.
    UnknownFields {
        /// Every unknown field, the first 20 with the closest declared one (an error shows
        /// those, and counts the rest).
        #[serde(serialize_with = "serialize_listed")]
        fields: Vec<UnknownName>,
    },
    /// A key that an object of the arguments holds more than once (after unescaping:
    /// `"a"` and `"\u0061"` are one key). Which value was meant cannot be known, so none
    /// is picked; the error's path ends at the key.
    DuplicateKey {},
    /// The value nests deeper than the decoder allows.
    TooDeep {
        /// The nesting limit.
        limit: usize,
    },
    /// A type's own decoder (serde or a type provider) rejected the value.
    Invalid {
        /// The decoder's message (in an error's text and JSON, its first 300 characters:
        /// serde's messages may quote the value).
        #[serde(serialize_with = "serialize_cut_reason")]
        message: String,
    },
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let expected = |f: &mut fmt::Formatter<'_>, what: &str, value: &Value| {
            write!(f, "expected {what}, got {}", preview(value))
        };
        match self {
            Reason::ExpectedInteger { value } => expected(f, "an integer", value),
            Reason::ExpectedNumber { value } => expected(f, "a number", value),
            Reason::ExpectedString { value } => expected(f, "a string", value),
            Reason::ExpectedBoolean { value } => expected(f, "a boolean", value),
            Reason::ExpectedArray { value } => expected(f, "an array", value),
            Reason::ExpectedObject { value } => expected(f, "an object", value),
            Reason::ExpectedNull { value } => expected(f, "null", value),
            Reason::OutOfRange { value, min, max } => {
                write!(f, "{} is out of range ({min} to {max})", preview(value))
            }
            Reason::NotInEnum { value, allowed, did_you_mean } => {
                let allowed: Vec<String> = allowed.iter().map(|a| quote(a)).collect();
                write!(f, "{} is not one of {}", preview(value), allowed.join(", "))?;
                match did_you_mean {
                    Some(closest) => write!(f, " (did you mean {}?)", quote(closest)),
                    None => Ok(()),
                }
            }
            Reason::InvalidDate { value, format } | Reason::InvalidFormat { value, format } => {
                write!(f, "{} is not a valid {format}", preview(value))?;
                match expected_form(format) {
                    Some(form) => write!(f, " ({form})"),
                    None => Ok(()),
                }
            }
            Reason::WrongLength { value, expected } => {
                write!(f, "expected {expected}, got {}", preview(value))
            }
            Reason::DuplicateItem { value } => write!(f, "duplicate item {}", preview(value)),
            Reason::MissingField { field } => write!(f, "missing required field {}", quote(field)),
            Reason::UnknownFields { fields } => write_unknown(f, "field", fields),
            Reason::DuplicateKey {} => f.write_str("given more than once in one object; send each key once"),
            Reason::TooDeep { limit } => write!(f, "value nests deeper than {limit} levels"),
            Reason::Invalid { message } => f.write_str(&cut(message, MAX_REASON)),
        }
    }
}

/// How a formatted string is written, with an example, for the formats the decoders
/// parse: what a model needs to send it right the next time.
fn expected_form(format: &str) -> Option<&'static str> {
    Some(match format {
        "date-time" => r#"RFC 3339 with a time zone, e.g. "2025-06-01T10:00:00Z""#,
        "date" => r#"YYYY-MM-DD, e.g. "2025-06-01""#,
        "time" => r#"HH:MM:SS, e.g. "10:00:00""#,
        "uuid" => r#"e.g. "67e55044-10b1-426f-9247-bb680e5fe0c8""#,
        "ip address" => r#"IPv4 or IPv6, e.g. "192.0.2.1" or "2001:db8::1""#,
        "ipv4 address" | "ipv4" => r#"e.g. "192.0.2.1""#,
        "ipv6 address" | "ipv6" => r#"e.g. "2001:db8::1""#,
        _ => return None,
    })
}

impl Reason {
    /// `value` is not one of `allowed`: the error, with the closest allowed value when
    /// `value` is a string near one.
    pub fn not_in_enum(value: &Value, allowed: Vec<String>) -> Reason {
        let did_you_mean = value
            .as_str()
            .and_then(|text| crate::suggest::closest_name(text, allowed.iter().map(String::as_str)))
            .map(str::to_owned);
        Reason::NotInEnum { value: summarize(value), allowed, did_you_mean }
    }
}

fn serialize_cut_reason<S: serde::Serializer>(message: &str, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&cut(message, MAX_REASON))
}

/// The first `MAX_LISTED` (20) names (the count of the rest is in the message).
fn serialize_listed<S: serde::Serializer>(names: &[UnknownName], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(names.iter().take(MAX_LISTED))
}

/// At most this many names (unknown arguments or fields) or mistakes (of
/// [`ToolError::Several`]) are listed in an error's text and JSON; the rest are counted
/// (`and N more`, `"omitted": N`). An error's size never grows with its input's.
pub const MAX_LISTED: usize = 20;
/// Names from the input (argument paths, unknown keys, tool names) are cut to this many
/// characters in an error.
const MAX_NAME: usize = 120;
/// A decoder's message about one value is cut to this many characters.
const MAX_REASON: usize = 300;
/// A tool's or parser's message is cut to this many characters.
const MAX_MESSAGE: usize = 1000;

/// A JSON string literal for `text`.
fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    crate::json::write::write_str(&mut out, text);
    out
}

/// At most this many characters of a string are kept in an error.
const MAX_STRING: usize = 120;
/// At most this many items or entries of a container are kept in an error.
const MAX_ITEMS: usize = 8;
/// Containers nested deeper than this are cut in an error.
const MAX_NESTING: usize = 3;

/// At most this many characters of strings and keys, all together, are kept in one
/// summary: eight items of eight entries of long strings would otherwise still be 60 KB.
const MAX_SUMMARY: usize = 600;

/// A bounded copy of `value` to carry in an error: long strings are cut, big or deep
/// containers summarised, and the whole kept under a budget of characters, so an error
/// never copies (or recurses through) a huge input.
pub fn summarize(value: &Value) -> Value {
    let mut budget = MAX_SUMMARY;
    summarize_at(value, 0, &mut budget)
}

/// `text` cut to `MAX_STRING` characters and to what is left of `budget`, which it uses.
fn summarize_text(text: &str, budget: &mut usize) -> String {
    let max = MAX_STRING.min(*budget);
    let kept: String = text.chars().take(max).collect();
    let count = kept.chars().count();
    *budget -= count;
    if text.len() > kept.len() { format!("{kept}…") } else { kept }
}

fn summarize_at(value: &Value, depth: usize, budget: &mut usize) -> Value {
    match value {
        Value::String(s) => Value::String(summarize_text(s, budget)),
        Value::Array(items) if depth >= MAX_NESTING => {
            Value::String(format!("[array of {} items]", items.len()))
        }
        Value::Object(map) if depth >= MAX_NESTING => {
            Value::String(format!("{{object with {} keys}}", map.len()))
        }
        Value::Array(items) => {
            let mut kept = Vec::new();
            for item in items.iter().take(MAX_ITEMS) {
                if *budget == 0 {
                    break;
                }
                kept.push(summarize_at(item, depth + 1, budget));
            }
            if items.len() > kept.len() {
                kept.push(Value::String(format!("… {} more", items.len() - kept.len())));
            }
            Value::Array(kept)
        }
        Value::Object(map) => {
            let mut kept = serde_json::Map::new();
            for (k, v) in map.iter().take(MAX_ITEMS) {
                if *budget == 0 {
                    break;
                }
                let key = summarize_text(k, budget);
                let value = summarize_at(v, depth + 1, budget);
                kept.insert(key, value);
            }
            if map.len() > kept.len() {
                kept.insert("…".to_owned(), Value::String(format!("{} more keys", map.len() - kept.len())));
            }
            Value::Object(kept)
        }
        scalar => scalar.clone(),
    }
}

/// One-line text for a value in a message.
fn preview(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "?".to_owned())
}
