//! Pretty-printing JSON text without parsing it into a `serde_json::Value`, which would
//! sort object keys: a schema's properties must stay in declaration order, because models
//! generate arguments in schema order.

use std::iter::Peekable;
use std::str::Chars;

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
}
