//! The arguments of a call: text parsed to a `serde_json::Value`, refusing what a plain
//! parse would hide, and the object checked against the names a tool declares.
//!
//! `serde_json::from_slice::<Value>` keeps the last of two equal keys: `{"a":1,"a":2}`
//! would quietly call the tool with `a = 2`, although the model contradicted itself.
//! [`parse_arguments`] builds the same value with its own visitor, which notices a key
//! met twice in one object (after unescaping, so `"a"` and `"\u0061"` are one key) and
//! reports every such key with its path. The check costs one map entry per key; paths
//! are only built when a duplicate is found.

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::map::Entry;
use serde_json::{Map, Number, Value};

use crate::decode::{ArgError, Segment};
use crate::error::{Reason, ToolError, UnknownName, summarize};

/// The arguments object, and the error naming every key `known` does not declare (in
/// the order the object holds them, each with the closest declared name), if any: the
/// caller reports it together with the arguments' own errors. Not an object: the error.
pub fn arguments<'a>(
    args: &'a Value,
    known: &[&str],
) -> Result<(&'a Map<String, Value>, Option<ToolError>), ToolError> {
    let map = args.as_object().ok_or_else(|| ToolError::InvalidArguments(summarize(args)))?;
    if map.len() <= known.len() && map.keys().all(|k| known.contains(&k.as_str())) {
        return Ok((map, None));
    }
    let unknown = UnknownName::all(map.keys(), known);
    Ok((map, (!unknown.is_empty()).then_some(ToolError::UnknownArguments(unknown))))
}

/// Parses argument text (or bytes): malformed JSON, invalid UTF-8 and lone surrogate
/// escapes are all `InvalidJson`; a key repeated in one object is `InvalidArgument` with
/// [`Reason::DuplicateKey`] at its path (all of them, as [`ToolError::Several`] when
/// there are more). Nesting is bounded by `serde_json`'s recursion limit.
///
/// Empty or blank text (only whitespace) is `{}`: several local model servers send `""`
/// for a tool without parameters. The usual rules then apply, so a required parameter is
/// still missing. Every text entry point (`run_json`, `run_bytes`, `call_json`,
/// `call_bytes`, the glue) reaches this when its fast path gives up, which it does on
/// blank text.
pub fn parse_arguments(bytes: &[u8]) -> Result<Value, ToolError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Object(Map::new()));
    }
    let invalid = |e: serde_json::Error| ToolError::InvalidJson(e.to_string());
    let mut duplicates = Vec::new();
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let value = Strict { duplicates: &mut duplicates }.deserialize(&mut deserializer).map_err(invalid)?;
    deserializer.end().map_err(invalid)?;
    // Arguments that are not an object are refused whole by the dispatcher.
    if duplicates.is_empty() || !value.is_object() {
        return Ok(value);
    }
    let mut seen = std::collections::HashSet::new();
    let errors = duplicates.into_iter().filter(|path| seen.insert(path.clone())).filter_map(duplicate_error);
    Err(ToolError::all(errors).unwrap_or(ToolError::Several(Vec::new())))
}

/// The error for a duplicate at `rev_path` (innermost first; the last step is the
/// argument's own key).
fn duplicate_error(mut rev_path: Vec<Segment>) -> Option<ToolError> {
    let Some(Segment::Key(argument)) = rev_path.pop() else { return None };
    Some(ArgError::at_rev_path(rev_path, Reason::DuplicateKey {}).into_tool_error(&argument))
}

/// A `Value` seed that records the reversed path of every repeated key it meets.
struct Strict<'d> {
    duplicates: &'d mut Vec<Vec<Segment>>,
}

impl<'de> DeserializeSeed<'de> for Strict<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Strict<'_> {
    /// Prepends `step` to the paths of the duplicates recorded since `before`.
    fn prefix(&mut self, before: usize, step: impl FnOnce() -> Segment) {
        if self.duplicates.len() > before {
            let step = step();
            for path in &mut self.duplicates[before..] {
                path.push(step.clone());
            }
        }
    }
}

impl<'de> Visitor<'de> for Strict<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        loop {
            let before = self.duplicates.len();
            let Some(item) = seq.next_element_seed(Strict { duplicates: self.duplicates })? else { break };
            let index = items.len();
            self.prefix(before, || Segment::Index(index));
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut access: A) -> Result<Value, A::Error> {
        let mut map = Map::new();
        while let Some(key) = access.next_key::<String>()? {
            let before = self.duplicates.len();
            let value = access.next_value_seed(Strict { duplicates: self.duplicates })?;
            match map.entry(key) {
                Entry::Vacant(slot) => {
                    self.prefix(before, || Segment::Key(slot.key().clone()));
                    slot.insert(value);
                }
                Entry::Occupied(slot) => {
                    self.prefix(before, || Segment::Key(slot.key().clone()));
                    self.duplicates.push(vec![Segment::Key(slot.key().clone())]);
                }
            }
        }
        Ok(Value::Object(map))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn values_are_what_serde_json_builds() {
        let text = r#"{"a":[1,-2,3.5,"x",null,true,{"b":{}}],"c":"\u00e9"}"#;
        assert_eq!(parse_arguments(text.as_bytes()), Ok(serde_json::from_str::<Value>(text).unwrap()));
    }

    #[test]
    fn a_repeated_key_is_refused_at_its_path() {
        let error = parse_arguments(br#"{"a":1,"a":2,"b":3}"#).unwrap_err();
        assert_eq!(error.to_string(), "a: given more than once in one object; send each key once");
        let error = parse_arguments(br#"{"a":1,"b":2,"\u0061":5}"#).unwrap_err();
        assert!(matches!(error, ToolError::InvalidArgument { ref name, .. } if name == "a"), "{error:?}");
        let error = parse_arguments(br#"{"o":{"x":[{"k":1},{"k":1,"k":2}]}}"#).unwrap_err();
        assert!(
            matches!(error, ToolError::InvalidArgument { ref name, .. } if name == "o.x[1].k"),
            "{error:?}"
        );
    }

    #[test]
    fn every_repeated_key_is_listed() {
        let error = parse_arguments(br#"{"a":1,"a":2,"o":{"b":1,"b":1},"a":3}"#).unwrap_err();
        let ToolError::Several(errors) = error else { panic!("{error:?}") };
        let names: Vec<String> = errors
            .iter()
            .map(|e| match e {
                ToolError::InvalidArgument { name, .. } => name.clone(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(names, ["a", "o.b"]);
    }

    #[test]
    fn not_an_object_is_left_to_the_dispatcher() {
        assert!(parse_arguments(br#"[{"a":1,"a":2}]"#).is_ok_and(|v| v.is_array()));
        assert_eq!(parse_arguments(br#""x""#), Ok(json!("x")));
        assert_eq!(parse_arguments(b""), Ok(json!({})));
        assert_eq!(parse_arguments(b" \n\t\r "), Ok(json!({})));
        assert!(matches!(parse_arguments(b" x "), Err(ToolError::InvalidJson(_))));
        assert!(matches!(parse_arguments(b"{\"a\":1"), Err(ToolError::InvalidJson(_))));
        assert!(matches!(parse_arguments(b"{} x"), Err(ToolError::InvalidJson(_))));
    }
}
