//! Doc comments -> tool description and per-parameter descriptions.
//!
//! Takes the `#[doc]` attributes of an item (what `///`, `/** */` and `#[doc = ".."]` lower to),
//! joins them into one text with [`doc_text`], and parses that text with [`parse_docs`] into a
//! [`Docs`]:
//!
//! * the **description** is the first paragraph (a leading title heading is dropped and the
//!   paragraph after it used; a leading conventional section such as `# Arguments` or
//!   `# Examples` gives no description), its lines trimmed and joined with single spaces and its
//!   intra-doc link brackets removed;
//! * the **parameter docs** are the top-level bullets of every `# Arguments` / `# Parameters`
//!   section (any heading level, case-insensitive, optional trailing `:`), e.g.
//!   ``* `city` - city name``, with indented continuation lines joined.
//!
//! Other sections (`# Examples`, `# Errors`, `# Panics`, ...) and fenced code never leak into
//! either. Parsing is line based, runs in linear time and never panics on any input.

use std::collections::{HashMap, HashSet};

use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, ExprLit, Lit, Meta, Token};

/// Docs of an item after parsing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Docs {
    /// First paragraph (lines joined with single spaces), leading heading stripped, intra-doc link
    /// brackets removed. Empty when none.
    pub description: String,
    /// `# Arguments` / `# Parameters` bullets, in order.
    pub params: Vec<ParamDoc>,
}

/// One bullet of an `# Arguments` / `# Parameters` section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamDoc {
    /// Parameter name as written in the bullet, backticks and a raw-identifier `r#` removed.
    pub name: String,
    /// Bullet text after the separator, continuation lines joined with single spaces, intra-doc
    /// link brackets removed. Empty when the bullet has a name only.
    pub text: String,
}

/// Joins the `#[doc = "..."]` attributes (from `///`, `/** */` and `#[doc = ".."]`) into one text,
/// one line per attribute line.
///
/// A single-line attribute loses the one leading space rustdoc strips after `///` (`///  b` keeps
/// one space). A multi-line attribute (a `/** */` block) loses its `*` gutter and its common
/// indentation, the way rustdoc unindents block comments. Attributes whose value is not a string
/// literal (`#[doc = include_str!(..)]`) are skipped. Returns `""` when there are none.
pub fn doc_text(attrs: &[Attribute]) -> String {
    let mut lines: Vec<String> = Vec::new();
    for value in attrs.iter().filter_map(doc_attr_value) {
        if value.contains('\n') {
            lines.extend(block_doc_lines(&value));
        } else {
            lines.push(strip_one_leading_space(without_carriage_return(&value)).to_owned());
        }
    }
    lines.join("\n")
}

/// Whether the attributes contain `#[doc(hidden)]` (also inside a list such as
/// `#[doc(alias = "x", hidden)]`).
pub fn is_doc_hidden(attrs: &[Attribute]) -> bool {
    attrs.iter().any(attr_is_doc_hidden)
}

/// Parses doc text (as produced by [`doc_text`]) into a description and parameter docs.
pub fn parse_docs(text: &str) -> Docs {
    let lines = classify_lines(text);
    let labels = link_definition_labels(&lines);
    Docs { description: description(&lines, &labels), params: parameter_docs(&lines, &labels) }
}

// ---------------------------------------------------------------------------------------------
// Attributes
// ---------------------------------------------------------------------------------------------

/// The string value of a `#[doc = "..."]` attribute, `None` for anything else.
fn doc_attr_value(attr: &Attribute) -> Option<String> {
    let Meta::NameValue(name_value) = &attr.meta else {
        return None;
    };
    if !name_value.path.is_ident("doc") {
        return None;
    }
    match &name_value.value {
        Expr::Lit(ExprLit { lit: Lit::Str(value), .. }) => Some(value.value()),
        _ => None,
    }
}

/// Whether one attribute is `#[doc(..)]` with a bare `hidden` among its arguments.
fn attr_is_doc_hidden(attr: &Attribute) -> bool {
    let Meta::List(list) = &attr.meta else {
        return false;
    };
    if !list.path.is_ident("doc") {
        return false;
    }
    list.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
        .map(|metas| metas.iter().any(|meta| matches!(meta, Meta::Path(path) if path.is_ident("hidden"))))
        .unwrap_or(false)
}

/// Removes the single space rustdoc strips after `///`.
fn strip_one_leading_space(line: &str) -> &str {
    line.strip_prefix(' ').unwrap_or(line)
}

/// Removes a trailing `\r` left by CRLF line endings.
fn without_carriage_return(line: &str) -> &str {
    line.strip_suffix('\r').unwrap_or(line)
}

/// The lines of a multi-line doc attribute (a `/** */` block): the opening and closing decoration
/// lines dropped, the `*` gutter removed when every line has one, then the common indentation.
fn block_doc_lines(value: &str) -> Vec<String> {
    let mut lines: Vec<&str> = value.split('\n').map(without_carriage_return).collect();
    if lines.first().is_some_and(|line| is_decoration_only(line)) {
        lines.remove(0);
    }
    if lines.last().is_some_and(|line| is_decoration_only(line)) {
        lines.pop();
    }
    let lines = strip_star_gutter(lines);
    strip_common_indent(&lines)
}

/// Whether a block-comment line holds nothing but whitespace and `*`.
fn is_decoration_only(line: &str) -> bool {
    line.chars().all(|c| c == '*' || c.is_whitespace())
}

/// Removes the leading ` * ` gutter of a block comment when every non-blank line has one.
fn strip_star_gutter(lines: Vec<&str>) -> Vec<&str> {
    let non_blank = || lines.iter().filter(|line| !line.trim().is_empty());
    if non_blank().next().is_none() || !non_blank().all(|line| line.trim_start().starts_with('*')) {
        return lines;
    }
    lines.iter().map(|line| line.trim_start().strip_prefix('*').unwrap_or("")).collect()
}

/// Removes the indentation (spaces and tabs) shared by all non-blank lines; blank lines become empty.
fn strip_common_indent(lines: &[&str]) -> Vec<String> {
    let common = lines
        .iter()
        .filter(|line| !line.trim().is_empty())
        .map(|line| leading_blank_bytes(line))
        .min()
        .unwrap_or(0);
    lines
        .iter()
        .map(|line| if line.trim().is_empty() { String::new() } else { line[common..].to_owned() })
        .collect()
}

/// Number of leading ASCII spaces and tabs (bytes, always a char boundary).
fn leading_blank_bytes(line: &str) -> usize {
    line.len() - line.trim_start_matches([' ', '\t']).len()
}

// ---------------------------------------------------------------------------------------------
// Lines
// ---------------------------------------------------------------------------------------------

/// A doc line, classified once so no later pass looks inside code fences.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Line<'a> {
    /// Empty or whitespace only.
    Blank,
    /// An ATX heading (`#`..`######`, at most three spaces of indentation); the title, trimmed,
    /// closing `#`s removed.
    Heading(&'a str),
    /// A code fence opening or closing line.
    Fence,
    /// A line inside a code fence.
    Code,
    /// A link reference definition `[label]: destination`; the label.
    LinkDefinition(&'a str),
    /// Any other line: its indentation width and its content after the indentation.
    Text { indent: usize, content: &'a str },
}

/// An open code fence: its character (`` ` `` or `~`) and length.
#[derive(Clone, Copy, Debug)]
struct Fence {
    marker: char,
    len: usize,
}

impl Fence {
    /// The fence opened by a line's content, if it opens one.
    fn opened_by(content: &str) -> Option<Self> {
        let marker = content.chars().next().filter(|c| *c == '`' || *c == '~')?;
        let rest = content.trim_start_matches(marker);
        let len = content.len() - rest.len();
        // An info string with a backtick means inline code (```a```), not a fence.
        let is_fence = len >= 3 && !(marker == '`' && rest.contains('`'));
        is_fence.then_some(Self { marker, len })
    }

    /// Whether a line's content closes this fence.
    fn is_closed_by(self, content: &str) -> bool {
        let rest = content.trim_start_matches(self.marker);
        content.len() - rest.len() >= self.len && rest.trim().is_empty()
    }
}

/// Classifies every line of the text, tracking code fences.
fn classify_lines(text: &str) -> Vec<Line<'_>> {
    let mut open_fence: Option<Fence> = None;
    let mut lines = Vec::new();
    for raw in text.lines() {
        let (indent, content) = split_indent(raw);
        let line = match open_fence {
            Some(fence) if fence.is_closed_by(content) => {
                open_fence = None;
                Line::Fence
            }
            Some(_) => Line::Code,
            None => {
                open_fence = Fence::opened_by(content);
                if open_fence.is_some() { Line::Fence } else { classify_outside_fence(indent, content) }
            }
        };
        lines.push(line);
    }
    lines
}

/// Classifies a line that is not inside and does not open a code fence.
fn classify_outside_fence(indent: usize, content: &str) -> Line<'_> {
    if content.trim().is_empty() {
        return Line::Blank;
    }
    if indent <= 3 {
        if let Some(title) = heading_title(content) {
            return Line::Heading(title);
        }
        if let Some(label) = link_definition_label(content) {
            return Line::LinkDefinition(label);
        }
    }
    Line::Text { indent, content: content.trim_end() }
}

/// Splits a line into its indentation width (a tab advances to the next multiple of four) and
/// the content after it.
fn split_indent(line: &str) -> (usize, &str) {
    let line = without_carriage_return(line);
    let mut width = 0;
    for c in line.chars() {
        match c {
            ' ' => width += 1,
            '\t' => width += 4 - width % 4,
            _ => break,
        }
    }
    (width, line.trim_start_matches([' ', '\t']))
}

/// The title of an ATX heading line (content after indentation), `None` when not a heading.
fn heading_title(content: &str) -> Option<&str> {
    let rest = content.trim_start_matches('#');
    let level = content.len() - rest.len();
    if !(1..=6).contains(&level) || !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    let title = rest.trim();
    let without_closing = title.trim_end_matches('#');
    Some(if without_closing.is_empty() {
        without_closing
    } else if without_closing.ends_with([' ', '\t']) {
        without_closing.trim_end()
    } else {
        title
    })
}

/// The label of a link reference definition line `[label]: destination`.
fn link_definition_label(content: &str) -> Option<&str> {
    let after_open = content.strip_prefix('[')?;
    let close = after_open.find(']')?;
    let label = &after_open[..close];
    let destination = after_open[close + 1..].strip_prefix(':')?;
    (!label.trim().is_empty() && !destination.trim().is_empty()).then_some(label)
}

/// The normalized labels of all link reference definitions, for shortcut links like `[the docs]`.
fn link_definition_labels(lines: &[Line<'_>]) -> HashSet<String> {
    lines
        .iter()
        .filter_map(|line| match line {
            Line::LinkDefinition(label) => Some(normalize_label(label)),
            _ => None,
        })
        .collect()
}

/// Lowercases a link label and collapses its whitespace.
fn normalize_label(label: &str) -> String {
    label.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

/// A heading title without a trailing `:`, trimmed and lowercased.
fn normalize_title(title: &str) -> String {
    title.trim().trim_end_matches(':').trim_end().to_lowercase()
}

/// Whether a heading opens a parameters section (`Arguments` / `Parameters`).
fn is_parameter_section_title(title: &str) -> bool {
    matches!(normalize_title(title).as_str(), "arguments" | "parameters")
}

/// Whether a heading names a conventional rustdoc section rather than a title; a doc that starts
/// with one has no description.
fn is_conventional_section_title(title: &str) -> bool {
    const SECTIONS: &[&str] = &[
        "arguments",
        "parameters",
        "example",
        "examples",
        "errors",
        "panics",
        "safety",
        "returns",
        "return value",
        "note",
        "notes",
        "see also",
        "aborts",
        "undefined behavior",
        "implementation notes",
        "platform-specific behavior",
        "performance",
        "complexity",
    ];
    SECTIONS.contains(&normalize_title(title).as_str())
}

// ---------------------------------------------------------------------------------------------
// Description
// ---------------------------------------------------------------------------------------------

/// The tool description: the first paragraph, trimmed lines joined with one space, links removed.
fn description(lines: &[Line<'_>], labels: &HashSet<String>) -> String {
    let paragraph = first_paragraph(lines);
    remove_link_brackets(&paragraph.join(" "), labels)
}

/// The trimmed lines of the first paragraph, after leading title headings; empty when the docs
/// open with a conventional section or when a heading comes before any paragraph.
fn first_paragraph<'a>(lines: &[Line<'a>]) -> Vec<&'a str> {
    let mut rest = skip_blank_and_definitions(lines);
    while let Some((Line::Heading(title), tail)) = rest.split_first() {
        if is_conventional_section_title(title) {
            return Vec::new();
        }
        rest = skip_blank_and_definitions(tail);
    }
    let start = rest.iter().position(|line| matches!(line, Line::Text { .. } | Line::Heading(_)));
    let Some(start) = start else {
        return Vec::new();
    };
    rest[start..]
        .iter()
        .filter(|line| !matches!(line, Line::LinkDefinition(_)))
        .map_while(|line| match line {
            Line::Text { content, .. } => Some(content.trim()),
            _ => None,
        })
        .collect()
}

/// The lines after any leading blank lines and link reference definitions.
fn skip_blank_and_definitions<'l, 'a>(lines: &'l [Line<'a>]) -> &'l [Line<'a>] {
    let start = lines
        .iter()
        .position(|line| !matches!(line, Line::Blank | Line::LinkDefinition(_)))
        .unwrap_or(lines.len());
    &lines[start..]
}

// ---------------------------------------------------------------------------------------------
// Parameter sections
// ---------------------------------------------------------------------------------------------

/// The bullets of every `# Arguments` / `# Parameters` section, in order.
fn parameter_docs(lines: &[Line<'_>], labels: &HashSet<String>) -> Vec<ParamDoc> {
    let mut collector = BulletCollector::default();
    let mut in_section = false;
    for line in lines {
        match *line {
            Line::Heading(title) => {
                in_section = is_parameter_section_title(title);
                collector.start_section();
            }
            _ if !in_section => {}
            Line::Text { indent, content } => collector.text_line(indent, content),
            Line::Blank | Line::Fence | Line::Code | Line::LinkDefinition(_) => collector.end_bullet(),
        }
    }
    collector.finish(labels)
}

/// What the lines after a bullet continue.
#[derive(Clone, Copy, Debug, Default)]
enum Continuing {
    /// Nothing: indented lines are ignored.
    #[default]
    Nothing,
    /// The last parameter, whose bullet marker sits at `indent`.
    Param { indent: usize },
    /// A nested bullet or a bullet of another shape at `indent`, whose continuations are ignored.
    Ignored { indent: usize },
}

/// Collects parameter bullets line by line inside parameters sections.
#[derive(Debug, Default)]
struct BulletCollector {
    params: Vec<ParamDoc>,
    /// Marker indentation of the section's first bullet; bullets indented more are nested.
    top_indent: Option<usize>,
    continuing: Continuing,
}

impl BulletCollector {
    /// Resets the per-section state at a heading.
    fn start_section(&mut self) {
        self.top_indent = None;
        self.continuing = Continuing::Nothing;
    }

    /// Ends the current bullet's continuation (blank line, code fence, definition).
    fn end_bullet(&mut self) {
        self.continuing = Continuing::Nothing;
    }

    /// Handles a text line inside a parameters section.
    fn text_line(&mut self, indent: usize, content: &str) {
        match bullet_body(content) {
            Some(body) => self.bullet_line(indent, body),
            None => self.continuation_line(indent, content),
        }
    }

    /// Handles a bullet: a top-level parameter bullet, a nested bullet, or another shape.
    fn bullet_line(&mut self, indent: usize, body: &str) {
        let top_indent = *self.top_indent.get_or_insert(indent);
        let param = if indent > top_indent { None } else { parse_param_bullet(body) };
        self.continuing = match param {
            Some(param) => {
                self.params.push(param);
                Continuing::Param { indent }
            }
            None => Continuing::Ignored { indent },
        };
    }

    /// Handles a non-bullet line: appended when indented past the current parameter's marker.
    fn continuation_line(&mut self, indent: usize, content: &str) {
        match self.continuing {
            Continuing::Param { indent: marker } if indent > marker => self.append_to_last(content),
            Continuing::Ignored { indent: marker } if indent > marker => {}
            _ => self.continuing = Continuing::Nothing,
        }
    }

    /// Appends a continuation line to the last parameter's text with one space.
    fn append_to_last(&mut self, content: &str) {
        if let Some(param) = self.params.last_mut() {
            if !param.text.is_empty() {
                param.text.push(' ');
            }
            param.text.push_str(content.trim());
        }
    }

    /// The collected parameters with link brackets removed from their texts.
    fn finish(self, labels: &HashSet<String>) -> Vec<ParamDoc> {
        self.params
            .into_iter()
            .map(|param| ParamDoc { text: remove_link_brackets(&param.text, labels), ..param })
            .collect()
    }
}

/// The body of a bullet line (`*`, `+` or `-` followed by a space or tab), `None` otherwise.
fn bullet_body(content: &str) -> Option<&str> {
    let rest = content.strip_prefix(['*', '+', '-'])?;
    (rest.is_empty() || rest.starts_with([' ', '\t'])).then(|| rest.trim())
}

/// Parses a bullet body `name [(Type)] [separator text]`, `None` for other shapes.
fn parse_param_bullet(body: &str) -> Option<ParamDoc> {
    let (name, rest) = bullet_name(body)?;
    let rest = skip_type_annotation(rest.trim_start()).trim_start();
    let text = text_after_separator(rest)?;
    Some(ParamDoc { name, text: text.to_owned() })
}

/// The parameter name at the start of a bullet body (optionally in backticks) and the rest.
fn bullet_name(body: &str) -> Option<(String, &str)> {
    if !body.starts_with('`') {
        return identifier_prefix(body);
    }
    let inner_and_rest = body.trim_start_matches('`');
    let close = inner_and_rest.find('`')?;
    let (name, after_name) = identifier_prefix(inner_and_rest[..close].trim())?;
    let after_name = after_name.trim_start();
    if !(after_name.is_empty() || after_name.starts_with(':')) {
        return None;
    }
    Some((name, inner_and_rest[close..].trim_start_matches('`')))
}

/// A leading identifier (a raw identifier's `r#` removed) and the text after it.
fn identifier_prefix(text: &str) -> Option<(String, &str)> {
    let text = text.strip_prefix("r#").unwrap_or(text);
    let end = text.char_indices().find(|(_, c)| !is_identifier_char(*c)).map_or(text.len(), |(i, _)| i);
    (end > 0).then(|| (text[..end].to_owned(), &text[end..]))
}

/// Whether a character can appear in a Rust identifier (approximately).
fn is_identifier_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Skips a parenthesized type annotation such as `(String)` or ``(`Vec<(u8, u8)>`)``.
fn skip_type_annotation(text: &str) -> &str {
    if !text.starts_with('(') {
        return text;
    }
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return &text[i + 1..];
                }
            }
            _ => {}
        }
    }
    text
}

/// The bullet text after a separator (` - `, ` – `, ` — ` or `:`); `""` when nothing follows the
/// name, `None` when something other than a separator does.
fn text_after_separator(rest: &str) -> Option<&str> {
    if rest.is_empty() {
        return Some("");
    }
    if let Some(after) = rest.strip_prefix(['-', '–', '—']) {
        return (after.is_empty() || after.starts_with(char::is_whitespace)).then(|| after.trim());
    }
    let after = rest.strip_prefix(':')?;
    (!after.starts_with(':')).then(|| after.trim())
}

// ---------------------------------------------------------------------------------------------
// Intra-doc links
// ---------------------------------------------------------------------------------------------

/// Removes link brackets outside code spans: ``[`Foo`]`` -> `` `Foo` ``, `[Foo]` -> `Foo`,
/// `[text](Foo)` and `[text][Foo]` -> `text`. Brackets that do not look like a link (`[0, 1]`,
/// `a[i]`) are kept. Linear time, no recursion.
fn remove_link_brackets(text: &str, labels: &HashSet<String>) -> String {
    if !text.contains('[') {
        return text.to_owned();
    }
    let chars: Vec<char> = text.chars().collect();
    let in_code = code_span_mask(&chars);
    let literal = literal_mask(&chars, &in_code);
    let brackets = matching_pairs(&chars, &literal, '[', ']');
    let parens = matching_pairs(&chars, &literal, '(', ')');
    let links = LinkScan { chars: &chars, in_code: &in_code, brackets: &brackets, parens: &parens, labels };

    let mut out = String::with_capacity(text.len());
    let mut skip_from: HashMap<usize, usize> = HashMap::new();
    let mut i = 0;
    while i < chars.len() {
        if let Some(&next) = skip_from.get(&i) {
            i = next;
            continue;
        }
        if let Some(close) = links.link_close(i, &literal) {
            let end = links.destination_end(close).unwrap_or(close);
            let entry = skip_from.entry(close).or_insert(end + 1);
            *entry = (*entry).max(end + 1);
            i += 1;
            continue;
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

/// The matching data one link-removal pass needs.
struct LinkScan<'a> {
    chars: &'a [char],
    in_code: &'a [bool],
    brackets: &'a [Option<usize>],
    parens: &'a [Option<usize>],
    labels: &'a HashSet<String>,
}

impl LinkScan<'_> {
    /// The closing bracket of a link whose `[` is at `open`, `None` when it is not a link.
    fn link_close(&self, open: usize, literal: &[bool]) -> Option<usize> {
        if self.chars[open] != '[' || literal[open] {
            return None;
        }
        let close = self.brackets[open]?;
        let is_link = self.destination_end(close).is_some() || self.is_shortcut_link(open, close);
        is_link.then_some(close)
    }

    /// The end of an inline `(dest)` or reference `[label]` right after the closing bracket.
    fn destination_end(&self, close: usize) -> Option<usize> {
        let next = close + 1;
        match self.chars.get(next)? {
            '(' => self.parens[next],
            '[' => self.brackets[next],
            _ => None,
        }
    }

    /// Whether `[inner]` is a shortcut link: a code span, a Rust path, or a defined label.
    fn is_shortcut_link(&self, open: usize, close: usize) -> bool {
        let follows_word =
            open > 0 && matches!(self.chars[open - 1], c if is_identifier_char(c) || "]!#".contains(c));
        let inner = &self.chars[open + 1..close];
        if follows_word || inner.is_empty() {
            return false;
        }
        self.in_code[open + 1..close].iter().all(|code| *code)
            || is_path_like(inner)
            || self.labels.contains(&normalize_label(&inner.iter().collect::<String>()))
    }
}

/// Whether link text looks like an intra-doc path (`Foo`, `crate::a::B`, `Vec::new()`, `fn@f`).
fn is_path_like(inner: &[char]) -> bool {
    inner.first().is_some_and(|c| c.is_alphabetic() || *c == '_')
        && inner.iter().all(|c| is_identifier_char(*c) || ":<>!()@".contains(*c))
}

/// Marks the characters inside inline code spans (backticks included).
fn code_span_mask(chars: &[char]) -> Vec<bool> {
    let runs = backtick_runs(chars);
    let mut next_same_len: Vec<Option<usize>> = vec![None; runs.len()];
    let mut last_by_len: HashMap<usize, usize> = HashMap::new();
    for (index, (_, len)) in runs.iter().enumerate().rev() {
        next_same_len[index] = last_by_len.insert(*len, index);
    }
    let mut mask = vec![false; chars.len()];
    let mut index = 0;
    while index < runs.len() {
        match next_same_len[index] {
            Some(closing) => {
                let (start, _) = runs[index];
                let (closing_start, closing_len) = runs[closing];
                mask[start..closing_start + closing_len].iter_mut().for_each(|code| *code = true);
                index = closing + 1;
            }
            None => index += 1,
        }
    }
    mask
}

/// The runs of backticks as (start, length).
fn backtick_runs(chars: &[char]) -> Vec<(usize, usize)> {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for (i, c) in chars.iter().enumerate() {
        if *c != '`' {
            continue;
        }
        match runs.last_mut() {
            Some((start, len)) if *start + *len == i => *len += 1,
            _ => runs.push((i, 1)),
        }
    }
    runs
}

/// Marks characters that are literal: in a code span, or escaped by a backslash.
fn literal_mask(chars: &[char], in_code: &[bool]) -> Vec<bool> {
    let mut literal = in_code.to_vec();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '\\' && !in_code[i] && i + 1 < chars.len() {
            literal[i + 1] = true;
            i += 2;
        } else {
            i += 1;
        }
    }
    literal
}

/// For each non-literal `open` character, the index of its matching `close`.
fn matching_pairs(chars: &[char], literal: &[bool], open: char, close: char) -> Vec<Option<usize>> {
    let mut pairs = vec![None; chars.len()];
    let mut stack: Vec<usize> = Vec::new();
    for (i, c) in chars.iter().enumerate() {
        if literal[i] {
            continue;
        }
        if *c == open {
            stack.push(i);
        } else if *c == close
            && let Some(start) = stack.pop()
        {
            pairs[start] = Some(i);
        }
    }
    pairs
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn param(name: &str, text: &str) -> ParamDoc {
        ParamDoc { name: name.to_owned(), text: text.to_owned() }
    }

    fn params(text: &str) -> Vec<ParamDoc> {
        parse_docs(text).params
    }

    fn description_of(text: &str) -> String {
        parse_docs(text).description
    }

    // --- doc_text / is_doc_hidden -------------------------------------------------------------

    #[test]
    fn doc_text_joins_attributes_and_strips_one_space() {
        let item: syn::ItemFn = syn::parse_quote! {
            /// a
            ///  b
            #[doc = "c"]
            #[doc(hidden)]
            pub fn f() {}
        };
        assert_eq!(doc_text(&item.attrs), "a\n b\nc");
        assert!(is_doc_hidden(&item.attrs));
    }

    #[test]
    fn doc_text_is_empty_without_docs() {
        let item: syn::ItemFn = syn::parse_quote! {
            #[inline]
            pub fn f() {}
        };
        assert_eq!(doc_text(&item.attrs), "");
        assert!(!is_doc_hidden(&item.attrs));
    }

    #[test]
    fn doc_text_skips_non_literal_values() {
        let item: syn::ItemFn = syn::parse_quote! {
            #[doc = include_str!("x.md")]
            /// kept
            pub fn f() {}
        };
        assert_eq!(doc_text(&item.attrs), "kept");
    }

    #[test]
    fn doc_text_unindents_block_comments() {
        let source = "/**\n * Get the forecast.\n *\n * # Arguments\n * * `city` - name\n */\npub fn f() {}";
        let item: syn::ItemFn = syn::parse_str(source).unwrap();
        assert_eq!(doc_text(&item.attrs), "Get the forecast.\n\n# Arguments\n* `city` - name");

        let source = "/**\n    Get it.\n\n    # Arguments\n      * `city` - name\n*/\npub fn f() {}";
        let item: syn::ItemFn = syn::parse_str(source).unwrap();
        let text = doc_text(&item.attrs);
        assert_eq!(text, "Get it.\n\n# Arguments\n  * `city` - name");
        assert_eq!(parse_docs(&text).params, vec![param("city", "name")]);

        let item: syn::ItemFn = syn::parse_str("/** One line. */ pub fn f() {}").unwrap();
        assert_eq!(doc_text(&item.attrs), "One line. ");
    }

    #[test]
    fn is_doc_hidden_only_for_bare_hidden_in_doc_list() {
        let hidden: syn::ItemFn = syn::parse_quote! {
            #[doc(alias = "x", hidden)]
            pub fn f() {}
        };
        assert!(is_doc_hidden(&hidden.attrs));
        let not_hidden: syn::ItemFn = syn::parse_quote! {
            #[doc = "hidden"]
            #[doc(alias = "hidden")]
            #[allow(hidden)]
            pub fn f() {}
        };
        assert!(!is_doc_hidden(&not_hidden.attrs));
    }

    // --- description --------------------------------------------------------------------------

    #[test]
    fn weather_example_rust_style() {
        let docs = parse_docs(
            "Get the forecast for a city.\n\n# Arguments\n\n* `city` - city name, e.g. \"Oslo\"\n\
             * `days` - how many days ahead (1-7)",
        );
        assert_eq!(
            docs,
            Docs {
                description: "Get the forecast for a city.".to_owned(),
                params: vec![
                    param("city", "city name, e.g. \"Oslo\""),
                    param("days", "how many days ahead (1-7)"),
                ],
            }
        );
    }

    #[test]
    fn weather_example_through_attributes() {
        let item: syn::ItemFn = syn::parse_quote! {
            /// Get the forecast for a city.
            ///
            /// # Arguments
            ///
            /// * `city` - city name, e.g. "Oslo"
            /// * `days` - how many days ahead (1-7)
            pub fn get_weather(city: String, days: Option<u32>) {}
        };
        let docs = parse_docs(&doc_text(&item.attrs));
        assert_eq!(docs.description, "Get the forecast for a city.");
        assert_eq!(
            docs.params,
            vec![param("city", "city name, e.g. \"Oslo\""), param("days", "how many days ahead (1-7)")]
        );
    }

    #[test]
    fn weather_example_seed_style() {
        let docs = parse_docs(
            "Get the forecast for a city.\n\n## Parameters\n  * `city` - city name, e.g. \"Oslo\"\n  \
             * `days` - how many days ahead (1-7)\n",
        );
        assert_eq!(docs.description, "Get the forecast for a city.");
        assert_eq!(
            docs.params,
            vec![param("city", "city name, e.g. \"Oslo\""), param("days", "how many days ahead (1-7)")]
        );
    }

    #[test]
    fn leading_heading_is_stripped() {
        assert_eq!(description_of("# Weather\n\nGet the forecast."), "Get the forecast.");
        assert_eq!(description_of("## Summary\nGet the forecast.\n\nMore."), "Get the forecast.");
        assert_eq!(description_of("###### Deep ######\n\nBody."), "Body.");
        assert_eq!(description_of("\n\n# Title\n\n## Subtitle\n\nBody."), "Body.");
    }

    #[test]
    fn leading_conventional_section_gives_empty_description() {
        let docs = parse_docs("# Arguments\n\n* `city` - name\n\nLater text.");
        assert_eq!(docs.description, "");
        assert_eq!(docs.params, vec![param("city", "name")]);
        assert_eq!(description_of("# Examples\n\n```\nlet x = 1;\n```\n\nText."), "");
        assert_eq!(description_of("## Panics:\n\nWhen empty."), "");
        assert_eq!(description_of("# Title\n\n# Errors\n\nWhen offline."), "");
    }

    #[test]
    fn description_is_the_first_paragraph_joined_with_spaces() {
        assert_eq!(
            description_of("  Get the forecast   \n   for a city.\n\nSecond paragraph."),
            "Get the forecast for a city."
        );
    }

    #[test]
    fn description_ends_at_a_heading_or_fence_without_blank_line() {
        assert_eq!(description_of("Summary.\n# Arguments\n* `a` - x"), "Summary.");
        assert_eq!(description_of("Summary.\n```\ncode\n```"), "Summary.");
    }

    #[test]
    fn description_is_empty_without_paragraph() {
        assert_eq!(parse_docs(""), Docs::default());
        assert_eq!(parse_docs("   \n\t\n  "), Docs::default());
        assert_eq!(description_of("# Only a title"), "");
        assert_eq!(description_of("# Title\n\n```\ncode\n```\n\n## Next\n\nText."), "");
    }

    #[test]
    fn code_fences_never_become_description() {
        assert_eq!(description_of("```\nlet a = 1;\n```\n\nReal summary."), "Real summary.");
        assert_eq!(description_of("~~~rust\n# hidden\n~~~\nReal summary."), "Real summary.");
        // An unclosed fence swallows the rest.
        assert_eq!(parse_docs("```\nText.\n# Arguments\n* `a` - x"), Docs::default());
        // Triple backticks with a closing run on the same line are inline code, not a fence.
        assert_eq!(description_of("```inline``` code."), "```inline``` code.");
    }

    #[test]
    fn hash_without_space_is_not_a_heading() {
        assert_eq!(description_of("#[derive] and #tags\nstay."), "#[derive] and #tags stay.");
        assert_eq!(description_of("    # indented four\n\nNext."), "# indented four");
    }

    #[test]
    fn link_definitions_are_not_description_text() {
        assert_eq!(
            description_of("Uses [the docs].\n[the docs]: https://example.com\n\nMore."),
            "Uses the docs."
        );
    }

    // --- intra-doc links ------------------------------------------------------------------------

    #[test]
    fn intra_doc_link_brackets_are_removed() {
        assert_eq!(
            description_of("See [`Foo`], [Bar], [text](Baz), [more][crate::Qux] and [`Vec::new()`]."),
            "See `Foo`, Bar, text, more and `Vec::new()`."
        );
        assert_eq!(
            description_of("Calls [Vec::new()] and [fn@crate::f]."),
            "Calls Vec::new() and fn@crate::f."
        );
        assert_eq!(description_of("A [nested [link](a)](b) here."), "A nested link here.");
        assert_eq!(description_of("A [link](http://x.org/(a)[b]) here."), "A link here.");
    }

    #[test]
    fn non_link_brackets_are_kept() {
        assert_eq!(description_of("In `[a]` and ``[b](c)``."), "In `[a]` and ``[b](c)``.");
        assert_eq!(
            description_of("Range [0, 1], item a[i], [1] and \\[Foo]."),
            "Range [0, 1], item a[i], [1] and \\[Foo]."
        );
        assert_eq!(description_of("Unclosed [Foo and `tick."), "Unclosed [Foo and `tick.");
        assert_eq!(description_of("Empty [] brackets."), "Empty [] brackets.");
    }

    #[test]
    fn intra_doc_links_spanning_lines_are_removed() {
        assert_eq!(description_of("See [the\ntext](Foo) here."), "See the text here.");
    }

    #[test]
    fn intra_doc_links_are_removed_in_param_texts() {
        assert_eq!(
            params("# Arguments\n* `unit` - a [`Unit`], see [docs](Foo)"),
            vec![param("unit", "a `Unit`, see docs")]
        );
    }

    // --- parameter sections ---------------------------------------------------------------------

    #[test]
    fn parameters_heading_any_level_case_colon_and_indent() {
        let expected = vec![param("city", "name")];
        assert_eq!(params("Summary.\n\n   ## Parameters:\n* `city` - name"), expected);
        assert_eq!(params("# ARGUMENTS\n* city - name"), expected);
        assert_eq!(params("###### parameters\n* city - name"), expected);
        assert_eq!(params("## Arguments ##\n* city - name"), expected);
        assert_eq!(params("## Parameters :\n* city - name"), expected);
        // Four spaces of indentation is not a heading; the bare line `Arguments:` is not one either.
        assert_eq!(params("    # Arguments\n* city - name"), vec![]);
        assert_eq!(params("Arguments:\n* city - name"), vec![]);
        assert_eq!(params("####### Arguments\n* city - name"), vec![]);
        assert_eq!(params("# Args\n* city - name"), vec![]);
    }

    #[test]
    fn bullet_markers_star_plus_and_minus() {
        assert_eq!(
            params("# Arguments\n* `a` - one\n+ `b` - two\n- `c` - three\n-`d` - no space\n*\tе - tab"),
            vec![param("a", "one"), param("b", "two"), param("c", "three"), param("е", "tab")]
        );
    }

    #[test]
    fn separators() {
        assert_eq!(
            params(
                "# Arguments\n* a - dash\n* b: colon\n* `c` - backticked\n* `d`: backticked colon\n\
                 * e – en dash\n* f — em dash\n* g:tight\n* `h`- tight dash"
            ),
            vec![
                param("a", "dash"),
                param("b", "colon"),
                param("c", "backticked"),
                param("d", "backticked colon"),
                param("e", "en dash"),
                param("f", "em dash"),
                param("g", "tight"),
                param("h", "tight dash"),
            ]
        );
    }

    #[test]
    fn type_annotation_is_ignored() {
        assert_eq!(
            params(
                "# Arguments\n* `city` (String) - name\n* days (`u32`): count\n\
                 * `pairs` (`Vec<(u8, u8)>`) - pairs\n* `opt`(Option<T>)"
            ),
            vec![param("city", "name"), param("days", "count"), param("pairs", "pairs"), param("opt", "")]
        );
    }

    #[test]
    fn name_without_text_gives_empty_text() {
        assert_eq!(
            params("# Arguments\n* `city`\n* days -\n* `hours`:\n* minutes"),
            vec![param("city", ""), param("days", ""), param("hours", ""), param("minutes", "")]
        );
    }

    #[test]
    fn raw_identifiers_lose_their_prefix() {
        assert_eq!(
            params("# Arguments\n* `r#type` - kind\n* r#match - pattern\n* `ok: bool` - flag"),
            vec![param("type", "kind"), param("match", "pattern"), param("ok", "flag")]
        );
    }

    #[test]
    fn other_shapes_are_ignored() {
        assert_eq!(
            params(
                "# Arguments\nThe arguments are:\n* city is the name\n  with continuation\n\
                 * `a b` - spaced\n* `` - empty\n* a::b - path\n* x.y - field\n* [link](x) - no\n\
                 * * *\n1. `one` - numbered\n* `ok` - kept"
            ),
            vec![param("ok", "kept")]
        );
    }

    #[test]
    fn continuation_lines_are_joined() {
        assert_eq!(
            params(
                "# Arguments\n* `city` - city name,\n  e.g. \"Oslo\"\n      or \"Bergen\"\n\
                 * `days` -\n  how many days"
            ),
            vec![param("city", "city name, e.g. \"Oslo\" or \"Bergen\""), param("days", "how many days")]
        );
        assert_eq!(
            params("## Parameters\n  * `city` - city\n    name\n  * `days` - days"),
            vec![param("city", "city name"), param("days", "days")]
        );
    }

    #[test]
    fn unindented_line_ends_continuation() {
        assert_eq!(params("# Arguments\n* `city` - name\nnot part\n  nor this"), vec![param("city", "name")]);
    }

    #[test]
    fn blank_line_ends_continuation() {
        assert_eq!(
            params("# Arguments\n* `city` - name\n\n  A second paragraph.\n* `days` - count"),
            vec![param("city", "name"), param("days", "count")]
        );
    }

    #[test]
    fn nested_bullets_and_their_continuations_are_ignored() {
        assert_eq!(
            params(
                "# Arguments\n* `mode` - one of:\n  * `fast` - quick\n    still nested\n  - `slow`: careful\n\
                 * `days` - count\n    + `deep` - deeper"
            ),
            vec![param("mode", "one of:"), param("days", "count")]
        );
    }

    #[test]
    fn section_ends_at_next_heading_of_any_level() {
        assert_eq!(
            params("# Arguments\n* `a` - x\n### Notes\n* `b` - not a param\n# Errors\n* `c` - nor this"),
            vec![param("a", "x")]
        );
    }

    #[test]
    fn several_sections_are_collected_in_order() {
        assert_eq!(
            params("# Arguments\n* `a` - x\n\n# Examples\n\n# Parameters\n  * `b` - y"),
            vec![param("a", "x"), param("b", "y")]
        );
    }

    #[test]
    fn examples_with_fenced_comment_do_not_leak() {
        let docs = parse_docs(
            "Get the forecast.\n\n# Examples\n\n```\n# use weather::*;\n# Arguments\n* `fake` - no\n\
             let x = get(\"Oslo\");\n```\n\n# Arguments\n\n* `city` - name\n\n# Errors\n\nWhen offline.",
        );
        assert_eq!(docs.description, "Get the forecast.");
        assert_eq!(docs.params, vec![param("city", "name")]);
    }

    #[test]
    fn fence_inside_arguments_is_not_parsed() {
        assert_eq!(
            params("# Arguments\n* `a` - x\n  ```\n  * `b` - code\n  # Errors\n  ```\n* `c` - y"),
            vec![param("a", "x"), param("c", "y")]
        );
        assert_eq!(params("# Arguments\n````\n```\n* `b` - code\n````\n* `c` - y"), vec![param("c", "y")]);
    }

    #[test]
    fn non_ascii_and_crlf() {
        let docs = parse_docs("Prévision météo — 天気.\r\n\r\n# Arguments\r\n* `città` – nome, «Oslo»\r\n");
        assert_eq!(docs.description, "Prévision météo — 天気.");
        assert_eq!(docs.params, vec![param("città", "nome, «Oslo»")]);
    }

    #[test]
    fn duplicate_bullets_are_kept_in_order() {
        assert_eq!(params("# Arguments\n* a - one\n* a - two"), vec![param("a", "one"), param("a", "two")]);
    }

    // --- robustness -----------------------------------------------------------------------------

    #[test]
    fn hostile_text_does_not_panic() {
        let hostile = [
            "\"#",
            "*/",
            "}",
            "\u{202E}evil\u{202C} [\u{2066}x\u{2069}](y)",
            "# Arguments\n* `",
            "# Arguments\n* `é",
            "# Arguments\n* (",
            "# Arguments\n* `a` (é",
            "# Arguments\n* é:",
            "# Arguments\n- \u{202E}`x`\u{202C} - y",
            "[",
            "]",
            "[]()",
            "[`]`]",
            "``",
            "`",
            "\\",
            "[a]\\",
            "#",
            "#######",
            "```",
            "~~~~",
            "\t\t#\tArguments\n\t*\tx",
            "\u{0}\u{7f}\u{feff}",
            "r#",
            "# Arguments\n* r#",
            "# Arguments\n* r#é - x",
            "[x]:",
            "[é]: é\n[é]",
        ];
        for text in hostile {
            let _ = parse_docs(text);
        }
    }

    #[test]
    fn large_and_deep_text_does_not_panic() {
        let mut big = String::from("Summary.\n\n# Arguments\n");
        for i in 0..10_000 {
            big.push_str(&format!("* `p{i}` - text [`T{i}`]\n  more é {i}\n"));
        }
        let docs = parse_docs(&big);
        assert_eq!(docs.params.len(), 10_000);
        assert_eq!(docs.params[9_999], param("p9999", "text `T9999` more é 9999"));

        let deep = format!("{}x{}", "[".repeat(50_000), "](y)".repeat(50_000));
        let _ = parse_docs(&deep);
        let unmatched = "[`a ".repeat(50_000);
        let _ = parse_docs(&unmatched);
        let lines = "line\n".repeat(10_000);
        assert_eq!(parse_docs(&lines).description.len(), "line ".len() * 10_000 - 1);
    }

    #[test]
    fn generated_text_does_not_panic() {
        const PIECES: &[&str] = &[
            "#",
            " ",
            "\n",
            "*",
            "+",
            "-",
            "`",
            "[",
            "]",
            "(",
            ")",
            ":",
            "é",
            "—",
            "r#",
            "a",
            "\t",
            "~~~",
            "```",
            "\\",
            "\u{202E}",
            "# Arguments\n",
            "!",
            "<",
            ">",
            "\r",
        ];
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..2_000 {
            let mut text = String::new();
            for _ in 0..40 {
                state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                text.push_str(PIECES[(state >> 33) as usize % PIECES.len()]);
            }
            let _ = parse_docs(&text);
        }
    }
}
