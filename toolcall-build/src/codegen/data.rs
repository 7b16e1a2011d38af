//! The data part of the generated file, written as text: the info table, which holds every
//! tool's schema strings. They are most of the file's bytes; going through tokens, `syn`
//! and prettyplease (as the code part does) made re-parsing them most of the generator's
//! time.
//!
//! The layout is the one prettyplease and rustfmt give: one entry per line, four spaces per
//! level, trailing commas. Schema text is a raw string literal (`r#"..."#`, with the fewest
//! `#`s that close it), one schema per line, so a snapshot diff shows a schema change as
//! the line of the tool's schema that changed.

use super::memo::Memo;
use crate::model::ToolDef;

/// The generated text: lines indented four spaces per nesting level, and the memo of
/// formatted code it is written with.
pub struct Out {
    text: String,
    depth: usize,
    memo: Memo,
}

impl Out {
    /// Starts the text with `header`, taking formatted code from `memo` where it has it.
    pub fn with_memo(header: &str, memo: Memo) -> Out {
        Out { text: header.to_owned(), depth: 0, memo }
    }

    /// Code at the current level, as `format` lays it out at that depth or as an earlier run
    /// did for the same code (`tokens`, its tokens' text) at the same depth.
    pub fn formatted(&mut self, tokens: &str, format: impl FnOnce(usize) -> String) {
        let depth = self.depth;
        let text = self.memo.text(Memo::key(depth, tokens), || format(depth));
        self.text.push_str(text);
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

    /// The finished text, and the memo of what was formatted for it.
    pub fn finish_with_memo(self) -> (String, Memo) {
        (self.text, self.memo)
    }
}

/// A Rust literal for `text`: raw (`r#"..."#`) when every character can stand in one as it
/// is, else a quoted literal with escapes (bidi controls and other invisible characters,
/// which rustc rejects unescaped).
pub fn literal(text: &str) -> String {
    if text.is_empty() {
        return "\"\"".to_owned();
    }
    if !is_printable_ascii(text.as_bytes()) && !text.chars().all(stands_raw) {
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

/// Whether every byte is printable ASCII, as almost all schema text is. A plain indexed
/// loop: build scripts run unoptimized by default, where iterator adapters cost several
/// calls per byte of the file's largest texts.
fn is_printable_ascii(bytes: &[u8]) -> bool {
    let mut at = 0;
    while at < bytes.len() {
        if !matches!(bytes[at], b' '..=b'~') {
            return false;
        }
        at += 1;
    }
    true
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

/// `pub(crate) const <ident>: [ToolInfo; N] = [...]`: a module's rows of the crate's info
/// table (module, name, description, input and output schema, time limit of every tool,
/// in order). A `const`: the rows are stored once, in the table the root assembles.
pub fn info_table(out: &mut Out, ident: &str, tools: &[(String, &ToolDef)]) {
    let ty = "::toolcall_runtime::ToolInfo";
    if tools.is_empty() {
        out.line(&format!("pub(crate) const {ident}: [{ty}; 0] = [];"));
        return;
    }
    // Read only at compile time (the root copies the rows into `ALL`'s table once), so its
    // size costs nothing at run time; clippy cannot know that.
    out.line("#[allow(clippy::large_const_arrays)]");
    out.open(&format!("pub(crate) const {ident}: [{ty}; {}] = [", tools.len()));
    for (module, tool) in tools {
        info_row(out, module, tool);
    }
    out.close("];");
}

/// One `ToolInfo { .. },` entry: the tool's texts, each schema a raw literal on its line;
/// fields at their empty value (no title, output schema, annotations, examples, time
/// limit, scopes or content) come from `ToolInfo::EMPTY`.
fn info_row(out: &mut Out, module: &str, tool: &ToolDef) {
    let texts = &tool.texts;
    out.open("::toolcall_runtime::ToolInfo {");
    out.line(&format!("module: {},", quoted(module)));
    out.line(&format!("name: {},", quoted(&tool.ir.name)));
    out.line(&format!("description: {},", quoted(&tool.ir.description)));
    for (field, text) in texts.inputs() {
        out.line(&format!("{field}: {},", literal(text)));
    }
    let optional = [
        ("title", (!tool.ir.title.is_empty()).then(|| quoted(&tool.ir.title))),
        ("output", texts.output.as_deref().map(|text| format!("Some({})", literal(text)))),
        ("annotations", (!texts.annotations.is_empty()).then(|| literal(&texts.annotations))),
        ("hints", (!tool.ir.annotations.is_empty()).then(|| hints(&tool.ir.annotations))),
        ("examples", (!texts.examples.is_empty()).then(|| literal(&texts.examples))),
        ("icons", (!texts.icons.is_empty()).then(|| literal(&texts.icons))),
        ("meta", (!texts.meta.is_empty()).then(|| literal(&texts.meta))),
        ("timeout_ms", tool.timeout_ms.map(|ms| format!("Some({ms})"))),
        ("scopes", (!tool.scopes.is_empty()).then(|| scopes(&tool.scopes))),
        ("returns_content", tool.returns_content.then(|| "true".to_owned())),
        ("task", tool.task.map(task_policy)),
    ];
    let mut omitted = false;
    for (field, value) in optional {
        match value {
            Some(value) => out.line(&format!("{field}: {value},")),
            None => omitted = true,
        }
    }
    if omitted {
        out.line("..::toolcall_runtime::ToolInfo::EMPTY");
    }
    out.close("},");
}

/// A task policy as a constant expression: `Some(::toolcall_runtime::TaskPolicy { .. })`.
fn task_policy(policy: toolcall_runtime::TaskPolicy) -> String {
    let support = match policy.support {
        toolcall_runtime::TaskSupport::Optional => "Optional",
        toolcall_runtime::TaskSupport::Required => "Required",
    };
    format!(
        "Some(::toolcall_runtime::TaskPolicy {{ support: ::toolcall_runtime::TaskSupport::{support}, at_detach: {} }})",
        policy.at_detach
    )
}

/// The OAuth scopes as a constant expression: `&["notes:write", ..]`.
fn scopes(scopes: &[String]) -> String {
    let quoted: Vec<String> = scopes.iter().map(|scope| quoted(scope)).collect();
    format!("&[{}]", quoted.join(", "))
}

/// The typed hints as a constant expression: `::toolcall_runtime::Annotations::new(..)`.
fn hints(hints: &toolcall_runtime::Annotations) -> String {
    let hint = |value: Option<bool>| value.map_or_else(|| "None".to_owned(), |set| format!("Some({set})"));
    format!(
        "::toolcall_runtime::Annotations::new({}, {}, {}, {})",
        hint(hints.read_only),
        hint(hints.destructive),
        hint(hints.idempotent),
        hint(hints.open_world)
    )
}

/// `static <ident>: Emitted = Emitted::new();`: where a toolset keeps its arrays once emitted.
pub fn emitted(out: &mut Out, ident: &str) {
    out.line(&format!("static {ident}: ::toolcall_runtime::Emitted = ::toolcall_runtime::Emitted::new();"));
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
        let mut out = Out::with_memo("", Memo::default());
        out.open("mod a {");
        out.line("");
        out.line("x");
        out.close("}");
        assert_eq!(out.finish_with_memo().0, "mod a {\n\n    x\n}\n");
    }
}
