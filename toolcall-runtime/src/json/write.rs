//! The JSON text writer the renderer and the error forms share: objects written key by
//! key in the order given, strings escaped as JSON requires, numbers as serde_json writes
//! them. Writing text directly (never through a `serde_json::Value`) is what makes the
//! rendered definitions byte-stable.

use std::fmt::Write as _;

use serde_json::Value;

/// Writes a JSON object key by key, handling commas.
pub(crate) struct Obj<'o> {
    pub(crate) out: &'o mut String,
    pub(crate) first: bool,
}

impl<'o> Obj<'o> {
    pub(crate) fn open(out: &'o mut String) -> Self {
        out.push('{');
        Obj { out, first: true }
    }

    /// Starts the entry `key` (a keyword of this module: written as it is, not escaped).
    pub(crate) fn key(&mut self, key: &str) -> &mut String {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
        self.out.push('"');
        self.out.push_str(key);
        self.out.push_str("\":");
        self.out
    }

    pub(crate) fn str(&mut self, key: &str, value: &str) {
        write_str(self.key(key), value);
    }

    /// A string value of this module's own (a type name, a pattern): needs no escaping.
    pub(crate) fn word(&mut self, key: &str, value: &str) {
        let out = self.key(key);
        out.push('"');
        out.push_str(value);
        out.push('"');
    }

    pub(crate) fn raw(&mut self, key: &str, value: &str) {
        self.key(key).push_str(value);
    }

    pub(crate) fn int(&mut self, key: &str, value: i64) {
        write_int(self.key(key), value);
    }

    pub(crate) fn close(self) {
        self.out.push('}');
    }
}

/// Writes `items` as a JSON array, each item written by `write`.
pub(crate) fn write_array<T>(
    out: &mut String,
    items: impl IntoIterator<Item = T>,
    mut write: impl FnMut(&mut String, T),
) {
    out.push('[');
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write(out, item);
    }
    out.push(']');
}

/// Writes `text` as a JSON string literal.
pub(crate) fn write_str(out: &mut String, text: &str) {
    out.reserve(text.len() + 2);
    out.push('"');
    write_escaped(out, text);
    out.push('"');
}

/// Writes `text` escaped for the inside of a JSON string literal.
pub(crate) fn write_escaped(out: &mut String, text: &str) {
    // Fast path: most text (names, plain descriptions) needs no escaping.
    let Some(first) = first_escape(text.as_bytes()) else {
        out.push_str(text);
        return;
    };
    let mut start = 0;
    for (i, &byte) in text.as_bytes().iter().enumerate().skip(first) {
        let escape = match byte {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x00..=0x1f => "",
            _ => continue,
        };
        out.push_str(&text[start..i]);
        if escape.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0xf)]));
        } else {
            out.push_str(escape);
        }
        start = i + 1;
    }
    out.push_str(&text[start..]);
}

/// Whether `byte` must be escaped in a JSON string: `"`, `\` or a control character.
pub(crate) const fn needs_escape(byte: u8) -> bool {
    byte == b'"' || byte == b'\\' || byte < 0x20
}

/// The index of the first byte of `bytes` that must be escaped, if any. Eight bytes at a
/// time: a word has such a byte when one of its bytes is below 0x20, or equals `"` or
/// `\` (each found as a zero byte of the word xor that byte repeated).
pub(crate) fn first_escape(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut chunks = bytes.chunks_exact(8);
    let mut offset = 0;
    for chunk in &mut chunks {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        let quote = w ^ (ONES * u64::from(b'"'));
        let backslash = w ^ (ONES * u64::from(b'\\'));
        let found = (w.wrapping_sub(ONES * 0x20) & !w)
            | (quote.wrapping_sub(ONES) & !quote)
            | (backslash.wrapping_sub(ONES) & !backslash);
        if found & HIGH != 0 {
            return chunk.iter().position(|&b| needs_escape(b)).map(|i| offset + i);
        }
        offset += 8;
    }
    chunks.remainder().iter().position(|&b| needs_escape(b)).map(|i| offset + i)
}

/// Writes `value` in decimal.
pub(crate) fn write_int(out: &mut String, value: i64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = value.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    if value < 0 {
        out.push('-');
    }
    out.extend(digits[at..].iter().map(|&d| char::from(d)));
}

pub(crate) fn write_value(out: &mut String, value: &Value) {
    // Serializing a `Value` to a `String` cannot fail.
    out.push_str(&serde_json::to_string(value).unwrap_or_else(|_| "null".to_owned()));
}

pub(crate) fn write_f64(out: &mut String, value: f64) {
    match serde_json::Number::from_f64(value) {
        Some(n) => {
            let _ = write!(out, "{n}");
        }
        None => out.push_str("null"),
    }
}
