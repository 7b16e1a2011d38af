//! The data part of the generated file, written as text: the info table and the schema
//! strings. They are most of the file's bytes; going through tokens, `syn` and prettyplease
//! (as the code part does) made re-parsing them most of the generator's time.
//!
//! The layout is the one prettyplease and rustfmt give: one entry per line, four spaces per
//! level, trailing commas. Schema text is a raw string literal (`r#"..."#`, with the fewest
//! `#`s that close it), one tool per line, so a snapshot diff shows a schema change as the
//! one line of the tool that changed.

use toolcall_runtime::Format;
use toolcall_runtime::render::{render_input_schema, render_output_schema, render_tool};

use crate::model::ToolDef;

/// The generated text: lines indented four spaces per nesting level.
pub struct Out {
    text: String,
    depth: usize,
}

impl Out {
    /// Starts the text with `header`.
    pub fn new(header: &str) -> Out {
        Out { text: header.to_owned(), depth: 0 }
    }

    /// The current nesting level.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// One line at the current level (an empty line stays empty).
    pub fn line(&mut self, line: &str) {
        if !line.is_empty() {
            self.text.extend(std::iter::repeat_n("    ", self.depth));
            self.text.push_str(line);
        }
        self.text.push('\n');
    }

    /// Lines already indented for this file (prettyplease output), as they are.
    pub fn verbatim(&mut self, text: &str) {
        self.text.push_str(text);
    }

    /// `line`, then one level deeper until [`Out::close`].
    pub fn open(&mut self, line: &str) {
        self.line(line);
        self.depth += 1;
    }

    /// Back one level, then `line`.
    pub fn close(&mut self, line: &str) {
        self.depth = self.depth.saturating_sub(1);
        self.line(line);
    }

    /// The finished text.
    pub fn finish(self) -> String {
        self.text
    }
}

/// Every rendered definition of one tool: `[format.index()][strict]`, as `render_tools`
/// writes it inside its array. Rendered once, then joined into each toolset holding it.
pub struct Definitions([[String; 2]; 5]);

impl Definitions {
    /// Renders `tool` in every format, strict and not.
    pub fn render(tool: &ToolDef) -> Definitions {
        Definitions(
            Format::ALL.map(|format| [false, true].map(|strict| render_tool(&tool.ir, format, strict))),
        )
    }

    fn get(&self, format: Format, strict: bool) -> &str {
        &self.0[format.index()][usize::from(strict)]
    }
}

/// A Rust literal for `text`: raw (`r#"..."#`) when every character can stand in one as it
/// is, else a quoted literal with escapes (bidi controls and other invisible characters,
/// which rustc rejects unescaped).
pub fn literal(text: &str) -> String {
    // Printable ASCII (almost all schema text) is checked in one pass without early exit,
    // which the compiler vectorizes.
    let unprintable = text.bytes().filter(|&b| !(b' '..=b'~').contains(&b)).count();
    if unprintable > 0 && !text.chars().all(stands_raw) {
        return quoted(text);
    }
    let hashes = closing_hashes(text);
    let mut literal = String::with_capacity(text.len() + 2 * hashes + 3);
    literal.push('r');
    literal.extend(std::iter::repeat_n('#', hashes));
    literal.push('"');
    literal.push_str(text);
    literal.push('"');
    literal.extend(std::iter::repeat_n('#', hashes));
    literal
}

/// Whether `c` may stand unescaped in a raw literal: printable ASCII, or a character
/// `escape_debug` leaves alone.
fn stands_raw(c: char) -> bool {
    if c.is_ascii() { c == ' ' || c.is_ascii_graphic() } else { c.escape_debug().len() == 1 }
}

/// A quoted literal: `"..."` with Rust's escapes.
pub fn quoted(text: &str) -> String {
    format!("{text:?}")
}

/// The fewest `#`s that close a raw literal holding `text`: one more than the longest run
/// of `#` after a `"` in it.
fn closing_hashes(text: &str) -> usize {
    // `#` is rare in schema text: most texts have none, found by one `memchr`.
    if !text.contains('#') {
        return 1;
    }
    let longest = text.split('"').skip(1).map(|after| after.bytes().take_while(|&b| b == b'#').count()).max();
    longest.unwrap_or(0) + 1
}

/// `static <ident>: [ToolInfo; N] = [...]`: module, name, description, input and output
/// schema and time limit of every tool, in order.
pub fn info_table(out: &mut Out, ident: &str, tools: &[(String, &ToolDef)]) {
    let ty = "::toolcall_runtime::ToolInfo";
    if tools.is_empty() {
        out.line(&format!("static {ident}: [{ty}; 0] = [];"));
        return;
    }
    out.open(&format!("static {ident}: [{ty}; {}] = [", tools.len()));
    for (module, tool) in tools {
        info_row(out, module, tool);
    }
    out.close("];");
}

/// One `ToolInfo { .. },` entry.
fn info_row(out: &mut Out, module: &str, tool: &ToolDef) {
    let some = |value: String| format!("::core::option::Option::Some({value})");
    let none = || "::core::option::Option::None".to_owned();
    let output = tool.ir.output.as_ref().map_or_else(none, |ty| some(literal(&render_output_schema(ty))));
    let timeout = tool.timeout_ms.map_or_else(none, |ms| some(ms.to_string()));
    out.open("::toolcall_runtime::ToolInfo {");
    out.line(&format!("module: {},", quoted(module)));
    out.line(&format!("name: {},", quoted(&tool.ir.name)));
    out.line(&format!("description: {},", quoted(&tool.ir.description)));
    out.line(&format!("parameters: {},", literal(&render_input_schema(&tool.ir, Format::Mcp, false))));
    out.line(&format!("output: {output},"));
    out.line(&format!("timeout_ms: {timeout},"));
    out.close("},");
}

/// `const <table>: SchemaTable = [[lax, strict]; 5]` and one `&str` constant per distinct
/// variant: a strict variant with the same text as the lax one (MCP, Gemini, tools whose
/// schemas strict mode leaves alone) is the lax constant again, so it is stored once.
/// Constant names are `<prefix><FORMAT>` and `<prefix><FORMAT>_STRICT`; without tools,
/// every entry is `"[]"`.
pub fn schema_table(out: &mut Out, table: &str, prefix: &str, tools: &[&Definitions]) {
    let names = Format::ALL.map(|format| {
        let lax = format!("{prefix}{}", format.as_str().to_uppercase());
        let strict = if same_when_strict(format, tools) { lax.clone() } else { format!("{lax}_STRICT") };
        (format, lax, strict)
    });
    let declaration = format!("pub(crate) const {table}: ::toolcall_runtime::__private::SchemaTable =");
    if tools.is_empty() {
        out.line(&format!("{declaration} [[\"[]\"; 2]; 5];"));
        return;
    }
    out.open(&format!("{declaration} ["));
    for (_, lax, strict) in &names {
        out.line(&format!("[{lax}, {strict}],"));
    }
    out.close("];");
    for (format, lax, strict) in &names {
        schema_const(out, lax, tools.iter().map(|t| t.get(*format, false)));
        if strict != lax {
            schema_const(out, strict, tools.iter().map(|t| t.get(*format, true)));
        }
    }
}

/// Whether every tool's strict definition in `format` is its lax one.
fn same_when_strict(format: Format, tools: &[&Definitions]) -> bool {
    tools.iter().all(|t| t.get(format, false) == t.get(format, true))
}

/// `const <ident>: &str = concat!("[", r#"<tool>"#, ",", .., "]");`: the JSON array of the
/// definitions, one per line.
fn schema_const<'a>(out: &mut Out, ident: &str, definitions: impl Iterator<Item = &'a str>) {
    out.open(&format!("const {ident}: &str = concat!("));
    out.line("\"[\",");
    for (i, definition) in definitions.enumerate() {
        if i > 0 {
            out.line("\",\",");
        }
        let mut line = literal(definition);
        line.push(',');
        out.line(&line);
    }
    out.line("\"]\",");
    out.close(");");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_literals_take_the_fewest_hashes_that_close_them() {
        assert_eq!(literal(r#"{"a":1}"#), r##"r#"{"a":1}"#"##);
        assert_eq!(literal(r##"{"a":"#x"}"##), r###"r##"{"a":"#x"}"##"###);
        assert_eq!(literal("plain"), r##"r#"plain"#"##);
        assert_eq!(literal(r#"back\slash"#), r##"r#"back\slash"#"##);
    }

    #[test]
    fn invisible_characters_are_escaped_in_a_quoted_literal() {
        assert_eq!(literal("a\u{202e}\"b"), "\"a\\u{202e}\\\"b\"");
    }

    #[test]
    fn nesting_indents_and_empty_lines_stay_empty() {
        let mut out = Out::new("");
        out.open("mod a {");
        out.line("");
        out.line("x");
        out.close("}");
        assert_eq!(out.finish(), "mod a {\n\n    x\n}\n");
    }
}
