//! IR -> JSON schema text, for every provider format, from one renderer.
//!
//! A [`Format`] and a `strict` flag pick a [`Settings`] value: plain data saying which
//! keywords the target accepts and what happens to the rest (dropped, or moved into the
//! description so the model still sees the constraint). The renderer walks the IR once and
//! writes JSON text directly, so key order is fixed: properties in declaration order, every
//! other key in the order this module writes them. Same IR in, same bytes out.
//!
//! A tool's [`Definition`](crate::ir::Definition)s (recursive types) become `$defs` of its input schema, used
//! through `{"$ref": "#/$defs/<name>"}`, where the format takes references (OpenAI, MCP,
//! Anthropic without strict). Gemini's `parameters` and Anthropic strict take no recursive
//! schema: there each use is written out, [`INLINED_LEVELS`] levels deep per definition,
//! then `{}` with a note. OpenAI strict needs a `type` on every schema, so an untyped value
//! there is a reference to the definition [`JSON_VALUE`]: any JSON value whose objects are
//! empty (strict mode closes every object).
//!
//! ```
//! use toolcall_runtime::ir::{Param, Tool, Type};
//! use toolcall_runtime::render::{render_tool, Format};
//!
//! let tool = Tool::new("echo").param(Param::new("text", Type::string()));
//! let json = render_tool(&tool, Format::Anthropic, false);
//! assert!(json.starts_with(r#"{"name":"echo","input_schema":"#));
//! ```

mod envelope;
mod format;
mod schema;

pub use envelope::{
    render_annotations, render_examples, render_icons, render_infos, render_meta, render_tool, render_tools,
};
pub use format::{
    ANTHROPIC_STRICT_FORMATS, Format, GEMINI_FORMATS, INLINED_LEVELS, InputKind, JSON_VALUE,
    OPENAI_STRICT_FORMATS, Settings,
};
pub(crate) use schema::plural;
pub use schema::{every_node_typed, render_input, render_input_schema, render_output_schema, render_type};

#[cfg(test)]
mod tests {
    use super::{Format, InputKind, Settings};
    use crate::json::write::{write_int, write_str};

    /// Formats of one input kind render the input schema from the same settings: they may
    /// differ only in the envelope (its keys, the `strict` flag), which the schema never reads.
    #[test]
    fn formats_of_one_input_kind_differ_only_in_the_envelope() {
        for format in Format::ALL {
            for strict in [false, true] {
                let (rep_format, rep_strict) = InputKind::of(format, strict).representative();
                assert_eq!(InputKind::of(rep_format, rep_strict), InputKind::of(format, strict));
                let envelope_only = |s: Settings| Settings { format: Format::Mcp, strict_flag: false, ..s };
                assert_eq!(
                    envelope_only(Settings::new(format, strict)),
                    envelope_only(Settings::new(rep_format, rep_strict)),
                    "{format:?} strict={strict}"
                );
            }
        }
        let kinds: Vec<_> = InputKind::ALL.iter().map(|k| k.representative()).collect();
        assert_eq!(kinds.len(), 4, "every kind has its own representative");
        for (i, a) in kinds.iter().enumerate() {
            assert!(kinds[i + 1..].iter().all(|b| a != b));
        }
    }

    /// What `write_str` writes, one character at a time.
    fn reference(text: &str) -> String {
        let mut out = String::from("\"");
        for c in text.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }

    #[test]
    fn strings_are_escaped_wherever_the_special_byte_falls() {
        let specials =
            ['"', '\\', '\n', '\r', '\t', '\u{0}', '\u{7}', '\u{1f}', ' ', '!', '#', '[', ']', 'é', '\u{7f}'];
        for len in 0..20 {
            for at in 0..len {
                for special in specials {
                    for second in [None, Some(len / 2), Some(len - 1)] {
                        let mut chars: Vec<char> =
                            (0..len).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
                        if let Some(second) = second {
                            chars[second] = '"';
                        }
                        chars[at] = special;
                        let text: String = chars.into_iter().collect();
                        let mut out = String::new();
                        write_str(&mut out, &text);
                        assert_eq!(out, reference(&text), "{text:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn integers_are_written_in_decimal() {
        for value in [0, 1, -1, 9, 10, -10, 4_294_967_295, i64::MAX, i64::MIN, -9_007_199_254_740_991] {
            let mut out = String::new();
            write_int(&mut out, value);
            assert_eq!(out, value.to_string());
        }
    }
}
