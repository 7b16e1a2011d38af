//! Stable JSON layout for committed files: two-space indent, object keys sorted except
//! inside `properties` (declaration order is meaning there: models generate in schema
//! order), a trailing newline.

use std::fmt::{self, Write as _};

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// A JSON value that remembers the order of object keys.
#[derive(Clone, Debug, PartialEq)]
pub enum Ordered {
    /// Any scalar, kept as its JSON text.
    Scalar(String),
    /// An array.
    Array(Vec<Ordered>),
    /// An object, keys in source order.
    Object(Vec<(String, Ordered)>),
}

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(OrderedVisitor)
    }
}

struct OrderedVisitor;

impl<'de> Visitor<'de> for OrderedVisitor {
    type Value = Ordered;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Ordered, E> {
        Ok(Ordered::Scalar(v.to_string()))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Ordered, E> {
        Ok(Ordered::Scalar(v.to_string()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Ordered, E> {
        Ok(Ordered::Scalar(v.to_string()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Ordered, E> {
        Ok(Ordered::Scalar(serde_json::Value::from(v).to_string()))
    }

    fn visit_str<E>(self, v: &str) -> Result<Ordered, E> {
        Ok(Ordered::Scalar(serde_json::Value::from(v).to_string()))
    }

    fn visit_unit<E>(self) -> Result<Ordered, E> {
        Ok(Ordered::Scalar("null".to_owned()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Ordered, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Ordered::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered, A::Error> {
        let mut entries = Vec::new();
        while let Some((key, value)) = map.next_entry::<String, Ordered>()? {
            entries.push((key, value));
        }
        Ok(Ordered::Object(entries))
    }
}

/// Parses JSON text keeping key order.
pub fn parse(text: &str) -> Result<Ordered, serde_json::Error> {
    serde_json::from_str(text)
}

/// Writes `value` in the stable layout, with a trailing newline.
pub fn to_stable_string(value: &Ordered) -> String {
    let mut out = String::new();
    write_value(&mut out, value, 0, false);
    out.push('\n');
    out
}

fn indent(out: &mut String, level: usize) {
    out.push('\n');
    out.extend(std::iter::repeat_n("  ", level));
}

/// `keep_order` is true for the children of a `properties` object.
fn write_value(out: &mut String, value: &Ordered, level: usize, keep_order: bool) {
    match value {
        Ordered::Scalar(text) => out.push_str(text),
        Ordered::Array(items) if items.is_empty() => out.push_str("[]"),
        Ordered::Object(entries) if entries.is_empty() => out.push_str("{}"),
        Ordered::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                indent(out, level + 1);
                write_value(out, item, level + 1, false);
            }
            indent(out, level);
            out.push(']');
        }
        Ordered::Object(entries) => {
            let mut entries: Vec<&(String, Ordered)> = entries.iter().collect();
            if !keep_order {
                entries.sort_by(|a, b| a.0.cmp(&b.0));
            }
            out.push('{');
            for (i, (key, item)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                indent(out, level + 1);
                let _ = write!(out, "{}: ", serde_json::Value::from(key.as_str()));
                write_value(out, item, level + 1, key == "properties" && !keep_order);
            }
            indent(out, level);
            out.push('}');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_sorted_except_inside_properties() {
        let text = r#"{"type":"object","properties":{"z":{"type":"string","description":"d"},"a":{}},"required":["z"]}"#;
        let out = to_stable_string(&parse(text).unwrap());
        let expected = "{\n  \"properties\": {\n    \"z\": {\n      \"description\": \"d\",\n      \"type\": \"string\"\n    },\n    \"a\": {}\n  },\n  \"required\": [\n    \"z\"\n  ],\n  \"type\": \"object\"\n}\n";
        assert_eq!(out, expected);
    }

    #[test]
    fn a_property_named_properties_keeps_its_schema_sorted() {
        let text = r#"{"properties":{"properties":{"type":"object","properties":{"b":{},"a":{}}}}}"#;
        let out = to_stable_string(&parse(text).unwrap());
        let b = out.find("\"b\"").unwrap();
        let a = out.find("\"a\"").unwrap();
        assert!(b < a, "{out}");
    }
}
