//! JSON text: the layout for people (indented, with key order under control) here, and
//! the writer the renderer and the error forms share in `write` (crate-internal).
//!
//! [`pretty`] indents JSON text keeping every key where it is, without parsing it (the
//! property order is the order models generate in). [`stable`] is the
//! layout of committed files: keys sorted except inside `properties`, a trailing newline.
//!
//! ```
//! use toolcall_runtime::json::{pretty, stable};
//!
//! let text = r#"{"type":"object","properties":{"b":{},"a":{}}}"#;
//! assert!(pretty(text).starts_with("{\n  \"type\": \"object\""));
//! let committed = stable(text).unwrap();
//! assert!(committed.starts_with("{\n  \"properties\""));
//! assert!(committed.find("\"b\"") < committed.find("\"a\""));
//! ```

pub(crate) mod write;

use std::fmt::{self, Write as _};
use std::iter::Peekable;
use std::str::Chars;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// Indents JSON text with two spaces per level (as `serde_json::to_string_pretty` does),
/// keeping every key where it was. Whitespace outside strings is dropped; strings are
/// copied unchanged. Text that is not JSON is reflowed the same way and stays invalid.
pub fn pretty(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    let mut depth = 0usize;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => copy_string(&mut chars, &mut out),
            '{' | '[' => {
                out.push(c);
                skip_whitespace(&mut chars);
                if let Some(close) = chars.next_if(|&next| next == '}' || next == ']') {
                    out.push(close); // `{}` and `[]` stay on one line
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c if c.is_whitespace() => {}
            c => out.push(c),
        }
    }
    out
}

/// Copies a string literal whose opening quote was just read, up to its closing quote.
fn copy_string(chars: &mut Peekable<Chars<'_>>, out: &mut String) {
    out.push('"');
    let mut escaped = false;
    for c in chars.by_ref() {
        out.push(c);
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => return,
            _ => {}
        }
    }
}

fn skip_whitespace(chars: &mut Peekable<Chars<'_>>) {
    while chars.next_if(|c| c.is_whitespace()).is_some() {}
}

fn newline(out: &mut String, depth: usize) {
    out.push('\n');
    for _ in 0..depth {
        out.push_str("  ");
    }
}

/// A JSON value that remembers the order of object keys.
#[derive(Clone, Debug, PartialEq)]
enum Ordered {
    Scalar(String),
    Array(Vec<Ordered>),
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

/// Lays out JSON text for a committed file: two-space indent, object keys sorted except
/// inside `properties` (declaration order is meaning there), a trailing newline.
pub fn stable(text: &str) -> Result<String, serde_json::Error> {
    let value: Ordered = serde_json::from_str(text)?;
    let mut out = String::with_capacity(text.len() * 2);
    write_value(&mut out, &value, 0, false);
    out.push('\n');
    Ok(out)
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
                newline(out, level + 1);
                write_value(out, item, level + 1, false);
            }
            newline(out, level);
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
                newline(out, level + 1);
                let _ = write!(out, "{}: ", serde_json::Value::from(key.as_str()));
                write_value(out, item, level + 1, key == "properties" && !keep_order);
            }
            newline(out, level);
            out.push('}');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use serde_json::{Value, json};

    #[test]
    fn matches_serde_json_pretty_when_keys_are_sorted() {
        let value = json!({"a": [1, {"b": null}], "c": {}, "d": [], "e": "x,{}:[]\"\\"});
        assert_eq!(pretty(&value.to_string()), serde_json::to_string_pretty(&value).unwrap());
    }

    #[test]
    fn keeps_key_order_and_content() {
        let text = r#"{"zeta":1, "alpha":{"y":[true,false],"x":"{\"q\":1}"}}"#;
        let out = pretty(text);
        assert!(out.find("zeta").unwrap() < out.find("alpha").unwrap());
        assert!(out.find("\"y\"").unwrap() < out.find("\"x\"").unwrap());
        let parsed: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(parsed, serde_json::from_str::<Value>(text).unwrap());
    }

    #[test]
    fn keys_sorted_except_inside_properties() {
        let text = r#"{"type":"object","properties":{"z":{"type":"string","description":"d"},"a":{}},"required":["z"]}"#;
        let out = stable(text).unwrap();
        let expected = "{\n  \"properties\": {\n    \"z\": {\n      \"description\": \"d\",\n      \"type\": \"string\"\n    },\n    \"a\": {}\n  },\n  \"required\": [\n    \"z\"\n  ],\n  \"type\": \"object\"\n}\n";
        assert_eq!(out, expected);
    }

    #[test]
    fn a_property_named_properties_keeps_its_schema_sorted() {
        let text = r#"{"properties":{"properties":{"type":"object","properties":{"b":{},"a":{}}}}}"#;
        let out = stable(text).unwrap();
        let b = out.find("\"b\"").unwrap();
        let a = out.find("\"a\"").unwrap();
        assert!(b < a, "{out}");
    }
}
