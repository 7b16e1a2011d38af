//! A `tools/call`'s arguments as they arrive: the object rmcp parsed, or the JSON text of
//! the request's body. A record, below the call path ([`crate::call`]) and the erased
//! context ([`crate::context`]) that both take it.

use bytes::Bytes;
use serde_json::Value;

use crate::inline::SMALL_ARGUMENTS;

/// A call's arguments: the object rmcp parsed, or the JSON text they came in, decoded by
/// the tool's decoder straight from the request's bytes (no `Value` built).
#[derive(Clone, Debug)]
pub(crate) enum Arguments {
    /// An object (a `Value::Object`, or whatever a caller passed).
    Value(Value),
    /// The JSON text of an object (a slice of the request's body; only the HTTP layer's
    /// hot path has one).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    Text(Bytes),
}

impl Arguments {
    /// The empty object.
    #[cfg(feature = "http")]
    pub(crate) fn empty() -> Self {
        Arguments::Text(Bytes::from_static(b"{}"))
    }

    /// The text, when the arguments are text.
    pub(crate) fn text(&self) -> Option<&str> {
        match self {
            Arguments::Value(_) => None,
            Arguments::Text(text) => std::str::from_utf8(text).ok(),
        }
    }

    /// The arguments as a value (text is parsed; text that is no JSON is `null`, which
    /// every decoder refuses as it refuses the text).
    pub(crate) fn to_value(&self) -> Value {
        match self {
            Arguments::Value(value) => value.clone(),
            Arguments::Text(_) => {
                self.text().and_then(|t| serde_json::from_str(t).ok()).unwrap_or(Value::Null)
            }
        }
    }

    /// About how many bytes of JSON they are: exact for text; for a value, counted up to
    /// just past [`SMALL_ARGUMENTS`] (past it, the size no longer matters).
    pub(crate) fn size(&self) -> usize {
        match self {
            Arguments::Text(text) => text.len(),
            Arguments::Value(value) => {
                let mut size = 0;
                approximate_size(value, &mut size);
                size
            }
        }
    }
}

/// Adds about `value`'s length as JSON text to `size`, stopping once past
/// [`SMALL_ARGUMENTS`].
fn approximate_size(value: &Value, size: &mut usize) {
    if *size > SMALL_ARGUMENTS {
        return;
    }
    match value {
        Value::String(text) => *size += text.len() + 3,
        Value::Array(items) => {
            *size += 2;
            for item in items {
                approximate_size(item, size);
            }
        }
        Value::Object(map) => {
            *size += 2;
            for (key, item) in map {
                *size += key.len() + 4;
                approximate_size(item, size);
            }
        }
        _ => *size += 8,
    }
}
