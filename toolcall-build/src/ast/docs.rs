//! Doc comments -> tool description and per-parameter descriptions.
//!
//! Takes the `#[doc]` attributes of an item (what `///`, `/** */` and `#[doc = ".."]` lower to),
//! joins them into one text with [`doc_text`], and parses that text as CommonMark with
//! `pulldown-cmark` (the parser rustdoc uses, with rustdoc's tables, footnotes, strikethrough and
//! task lists) into a [`Docs`] with [`parse_docs`]:
//!
//! * the **description** is the first top-level paragraph as readable text: a leading title
//!   heading (ATX or setext) is skipped, a leading conventional section such as `# Arguments` or
//!   `# Examples` gives no description, a block quote that comes first gives its own first
//!   paragraph (as rustdoc's summary line does), and code blocks, HTML blocks, later block
//!   quotes, lists and tables are never taken for it;
//! * the **parameter docs** are the top-level list items (`*`, `-`, `+` or numbered) of every
//!   `Arguments` / `Parameters` section (any heading style and level, case-insensitive, optional
//!   trailing `:`), each item's first paragraph read as ``name [(Type)] [separator text]``, e.g.
//!   ``* `city` - city name``. Nested lists and later paragraphs of an item are ignored.
//!
//! Readable text keeps inline code in backticks and emphasis with its markers as written,
//! resolves escapes and entities, turns line breaks into spaces and drops HTML comments and
//! footnote references. Links keep what the author wrote for a reader (#62 item 13):
//!
//! * a rustdoc intra-doc link loses its brackets and keeps its text: ``[`Foo`]`` is `` `Foo` ``,
//!   `[Forecast]` is `Forecast`, `[the unit][crate::Unit]` and `[the unit](crate::Unit)` are
//!   `the unit`. A bracketed label is such a link when rustdoc could resolve it: a code span, a
//!   path (`a::B`, `fn@f`, `f()`, `m!`), or a name in the item's [`Scope`] (declared or imported
//!   in its module, the prelude, a primitive type);
//! * a link to a URL keeps it after its text in parentheses, the way a plain-text reader writes
//!   it: `[Configuring time tracking](https://x.org/t)` is `Configuring time tracking
//!   (https://x.org/t)` (an autolink `<https://x.org>` is the URL once), for inline links, reference
//!   links with a definition and images alike;
//! * brackets that are no link stay as written: `+[country code][number]`, `[NAME]`, `a[i]`.
//!
//! Other sections (`# Examples`, `# Errors`, `# Panics`, `# Safety`, ...) never leak into either
//! result. Parsing runs in time linear in the input and never panics.

use std::collections::BTreeSet;
use std::iter::Peekable;
use std::ops::Range;

use pulldown_cmark::{
    BrokenLink, BrokenLinkCallback, CowStr, Event, LinkType, OffsetIter, Options, Parser, Tag, TagEnd,
};
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, ExprLit, Lit, Meta, Token};

/// Docs of an item after parsing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Docs {
    /// First paragraph as readable text (line breaks become single spaces, link syntax removed),
    /// after a leading title heading. Empty when none.
    pub description: String,
    /// Items of the `# Arguments` / `# Parameters` sections, in order, including items that name
    /// something that is not a parameter.
    pub params: Vec<ParamDoc>,
}

/// One list item of an `# Arguments` / `# Parameters` section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamDoc {
    /// Parameter name as written in the item, backticks and a raw-identifier `r#` removed.
    pub name: String,
    /// Item text after the separator as readable text (continuation lines joined with single
    /// spaces, link syntax removed). Empty when the item has a name only.
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

/// Parses doc text (as produced by [`doc_text`]) as CommonMark into a description and parameter
/// docs, its bracketed names read in a scope that is not known ([`Scope::unknown`]).
#[cfg(test)]
pub fn parse_docs(text: &str) -> Docs {
    parse_docs_in(text, &Scope::unknown())
}

/// Parses doc text (as produced by [`doc_text`]) as CommonMark into a description and parameter
/// docs; a bracketed name is an intra-doc link when `scope` holds it.
pub fn parse_docs_in(text: &str, scope: &Scope) -> Docs {
    let blocks: Vec<Block> = BlockReader::new(text, scope).collect();
    Docs { description: description(&blocks), params: parameter_docs(&blocks) }
}

/// The names a bare intra-doc link (`[Forecast]`, `[get_weather]`) can name: what rustdoc
/// resolves it against. Those are the items and imports of the documented item's module, the
/// prelude and the primitive types; a name outside them (`[number]`, `[NAME]`) is text in
/// brackets, as rustdoc shows it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scope {
    /// The names the module declares or imports.
    names: BTreeSet<String>,
    /// The module imports with a glob (`use crate::models::*`), or is not known: a name written
    /// as a type is (`Recipe`) may be in it.
    open: bool,
}

impl Scope {
    /// The scope of a module with `items`: every item's name, every name a `use` brings in
    /// (renames applied), open when a `use` is a glob.
    pub fn of_items(items: &[syn::Item]) -> Scope {
        let mut scope = Scope::default();
        for item in items {
            let ident = match item {
                syn::Item::Const(i) => Some(&i.ident),
                syn::Item::Enum(i) => Some(&i.ident),
                syn::Item::ExternCrate(i) => Some(i.rename.as_ref().map_or(&i.ident, |(_, rename)| rename)),
                syn::Item::Fn(i) => Some(&i.sig.ident),
                syn::Item::Macro(i) => i.ident.as_ref(),
                syn::Item::Mod(i) => Some(&i.ident),
                syn::Item::Static(i) => Some(&i.ident),
                syn::Item::Struct(i) => Some(&i.ident),
                syn::Item::Trait(i) => Some(&i.ident),
                syn::Item::TraitAlias(i) => Some(&i.ident),
                syn::Item::Type(i) => Some(&i.ident),
                syn::Item::Union(i) => Some(&i.ident),
                syn::Item::Use(u) => {
                    scope.add_use(&u.tree);
                    None
                }
                _ => None,
            };
            if let Some(ident) = ident {
                scope.names.insert(crate::ast::unraw(ident));
            }
        }
        scope
    }

    /// A scope that is not known: a name written as a type is (`Forecast`) is taken as in it.
    #[cfg(test)]
    pub fn unknown() -> Scope {
        Scope { names: BTreeSet::new(), open: true }
    }

    /// Adds the names a `use` tree brings in.
    fn add_use(&mut self, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(path) => self.add_use(&path.tree),
            syn::UseTree::Name(name) => {
                self.names.insert(crate::ast::unraw(&name.ident));
            }
            syn::UseTree::Rename(rename) => {
                self.names.insert(crate::ast::unraw(&rename.rename));
            }
            syn::UseTree::Glob(_) => self.open = true,
            syn::UseTree::Group(group) => group.items.iter().for_each(|item| self.add_use(item)),
        }
    }

    /// Whether rustdoc would find the single name `name` here.
    fn resolves(&self, name: &str) -> bool {
        self.names.contains(name)
            || PRELUDE.contains(&name)
            || PRIMITIVES.contains(&name)
            || (self.open && is_type_name(name))
    }
}

/// The names of the standard prelude (and the crates every crate sees) a doc may link bare.
const PRELUDE: &[&str] = &[
    "std",
    "core",
    "alloc",
    "Option",
    "Some",
    "None",
    "Result",
    "Ok",
    "Err",
    "Vec",
    "String",
    "Box",
    "ToString",
    "ToOwned",
    "Clone",
    "Copy",
    "Send",
    "Sync",
    "Sized",
    "Unpin",
    "Drop",
    "Fn",
    "FnMut",
    "FnOnce",
    "Default",
    "Eq",
    "PartialEq",
    "Ord",
    "PartialOrd",
    "Hash",
    "Debug",
    "Iterator",
    "IntoIterator",
    "Extend",
    "DoubleEndedIterator",
    "ExactSizeIterator",
    "FromIterator",
    "AsRef",
    "AsMut",
    "Into",
    "From",
    "TryFrom",
    "TryInto",
    "drop",
    "Self",
];

/// The primitive types, which rustdoc links by name (`[u32]`).
const PRIMITIVES: &[&str] = &[
    "bool", "char", "str", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128",
    "isize", "f32", "f64",
];

/// Whether `name` is written as a type is: an uppercase letter first, a lowercase one later
/// (`Recipe`, `HashMap`; not `NAME`, not `number`).
fn is_type_name(name: &str) -> bool {
    name.starts_with(char::is_uppercase) && name.chars().any(char::is_lowercase)
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
// Blocks
// ---------------------------------------------------------------------------------------------

/// The CommonMark extensions rustdoc enables, less smart punctuation: descriptions keep the
/// quotes and dashes the author typed.
fn markdown_options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
}

/// A top-level block of the docs, reduced to what the description and the parameter sections need.
#[derive(Debug)]
enum Block {
    /// A heading (ATX or setext) and its title as readable text.
    Heading(String),
    /// A paragraph as readable text.
    Paragraph(String),
    /// A list (bullet or numbered) and the leading text of each of its items.
    List(Vec<Inline>),
    /// A block quote and its first paragraph (inside nested quotes too) as readable text.
    Quote(String),
    /// Anything else: code, HTML, a block quote, a table, a rule, a footnote definition.
    Other,
}

/// The parser's events with their source ranges, intra-doc links resolved.
type Events<'a> = Peekable<OffsetIter<'a, IntraDocLinks<'a>>>;

/// Reads the top-level blocks of a doc text, one [`Block`] per [`Iterator::next`].
struct BlockReader<'a> {
    source: &'a str,
    events: Events<'a>,
}

impl<'a> BlockReader<'a> {
    /// A reader over `source` parsed with [`markdown_options`], its bracketed names read in `scope`.
    fn new(source: &'a str, scope: &'a Scope) -> Self {
        let links = IntraDocLinks { source, scope };
        let parser = Parser::new_with_broken_link_callback(source, markdown_options(), Some(links));
        Self { source, events: parser.into_offset_iter().peekable() }
    }

    /// Renders the inline events at the cursor, up to the first block-level event.
    fn inline(&mut self) -> Inline {
        let mut writer = InlineWriter::new(self.source);
        while let Some((event, range)) = self.events.next_if(|(event, _)| is_inline(event)) {
            writer.write(&event, range);
        }
        writer.finish()
    }

    /// Renders the inline content of a block whose start was just read, then skips to its end.
    fn inline_block(&mut self) -> Inline {
        let inline = self.inline();
        self.skip_to_end();
        inline
    }

    /// Consumes events up to and including the end of the block whose start was just read.
    fn skip_to_end(&mut self) {
        let mut depth = 0usize;
        for (event, _) in self.events.by_ref() {
            match event {
                Event::Start(_) => depth += 1,
                Event::End(_) if depth == 0 => return,
                Event::End(_) => depth -= 1,
                _ => {}
            }
        }
    }

    /// The leading text of each item of a list whose start was just read; nested content skipped.
    fn list_items(&mut self) -> Vec<Inline> {
        let mut items = Vec::new();
        while let Some((event, _)) = self.events.next() {
            match event {
                Event::Start(Tag::Item) => items.push(self.item_lead()),
                Event::Start(_) => self.skip_to_end(),
                Event::End(_) => break,
                _ => {}
            }
        }
        items
    }

    /// The first paragraph of a block quote whose start was just read, looking into quotes
    /// nested in it; skips the rest of the quote.
    /// Iterative, so quotes nested thousands deep cost no stack.
    fn quote_lead(&mut self) -> String {
        let mut lead = None;
        let mut open = 1usize;
        while let Some((event, _)) = self.events.next() {
            match event {
                Event::Start(Tag::Paragraph) if lead.is_none() => lead = Some(self.inline_block().text),
                Event::Start(Tag::BlockQuote(_)) if lead.is_none() => open += 1,
                Event::Start(_) => self.skip_to_end(),
                Event::End(_) => {
                    open -= 1;
                    if open == 0 {
                        break;
                    }
                }
                _ => {}
            }
        }
        lead.unwrap_or_default()
    }

    /// The first paragraph of an item whose start was just read (a tight list's item has its text
    /// directly, a loose list's in a paragraph); skips the rest of the item.
    fn item_lead(&mut self) -> Inline {
        let in_paragraph =
            self.events.next_if(|(event, _)| matches!(event, Event::Start(Tag::Paragraph))).is_some();
        let lead = if in_paragraph { self.inline_block() } else { self.inline() };
        self.skip_to_end();
        lead
    }
}

impl Iterator for BlockReader<'_> {
    type Item = Block;

    fn next(&mut self) -> Option<Block> {
        let (event, _) = self.events.next()?;
        Some(match event {
            Event::Start(Tag::Heading { .. }) => Block::Heading(self.inline_block().text),
            Event::Start(Tag::Paragraph) => Block::Paragraph(self.inline_block().text),
            Event::Start(Tag::List(_)) => Block::List(self.list_items()),
            Event::Start(Tag::BlockQuote(_)) => Block::Quote(self.quote_lead()),
            Event::Start(_) => {
                self.skip_to_end();
                Block::Other
            }
            _ => Block::Other,
        })
    }
}

/// Whether an event belongs to inline content (text, code, breaks, links, emphasis, ...).
fn is_inline(event: &Event<'_>) -> bool {
    match event {
        Event::Start(tag) => is_inline_tag(tag.to_end()),
        Event::End(end) => is_inline_tag(*end),
        Event::Html(_) | Event::Rule => false,
        _ => true,
    }
}

/// Whether a tag is a span (emphasis, link, image, ...) rather than a block.
fn is_inline_tag(end: TagEnd) -> bool {
    matches!(
        end,
        TagEnd::Emphasis
            | TagEnd::Strong
            | TagEnd::Strikethrough
            | TagEnd::Superscript
            | TagEnd::Subscript
            | TagEnd::Link
            | TagEnd::Image
    )
}

// ---------------------------------------------------------------------------------------------
// Readable text
// ---------------------------------------------------------------------------------------------

/// Inline content as readable text.
#[derive(Debug, Default)]
struct Inline {
    /// The text, trimmed.
    text: String,
    /// Whether the content opens with plain text or a code span (not a link, emphasis, HTML or a
    /// task marker), the only openings a parameter item's name can have.
    opens_with_text: bool,
}

/// Builds the readable text of a run of inline events.
struct InlineWriter<'a> {
    source: &'a str,
    text: String,
    opens_with_text: Option<bool>,
    /// The links and images open at the cursor: where each one's text starts in `text`, and
    /// the URL it shows after that text (`None` for an intra-doc link).
    links: Vec<(usize, Option<String>)>,
}

impl<'a> InlineWriter<'a> {
    /// An empty writer for events of `source`.
    fn new(source: &'a str) -> Self {
        Self { source, text: String::new(), opens_with_text: None, links: Vec::new() }
    }

    /// Appends the readable text of one event found at `range` of the source.
    fn write(&mut self, event: &Event<'_>, range: Range<usize>) {
        self.opens_with_text.get_or_insert(matches!(event, Event::Text(_) | Event::Code(_)));
        match event {
            Event::Text(text) => self.push(text),
            Event::Code(code) => self.push(&code_span(span_of(self.source, range), code)),
            Event::InlineHtml(html) if !html.starts_with("<!--") => self.push(html),
            Event::SoftBreak | Event::HardBreak => self.push(" "),
            Event::TaskListMarker(checked) => self.push(if *checked { "[x] " } else { "[ ] " }),
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                self.links.push((self.text.len(), shown_destination(dest_url)));
            }
            Event::End(TagEnd::Link | TagEnd::Image) => self.close_link(),
            Event::Start(tag) => {
                self.push(emphasis_marker(span_of(self.source, range), tag.to_end(), Edge::Opening))
            }
            Event::End(end) => self.push(emphasis_marker(span_of(self.source, range), *end, Edge::Closing)),
            _ => {}
        }
    }

    /// Ends the innermost open link: its URL, when it shows one, follows its text in
    /// parentheses (`guide (https://x.org)`), or stands alone when the text is empty or is the
    /// URL itself (an autolink).
    fn close_link(&mut self) {
        let Some((start, Some(url))) = self.links.pop() else { return };
        let text = self.text.get(start..).unwrap_or("").trim();
        let is_url = text == url || url.strip_prefix("mailto:").is_some_and(|address| address == text);
        if is_url {
            return;
        }
        if text.is_empty() {
            self.push(&url);
        } else {
            self.push(&format!(" ({url})"));
        }
    }

    /// Appends a piece, without doubling a space where two pieces meet.
    fn push(&mut self, piece: &str) {
        let piece = if self.text.is_empty() || self.text.ends_with(' ') {
            piece.trim_start_matches(' ')
        } else {
            piece
        };
        self.text.push_str(piece);
    }

    /// The trimmed text.
    fn finish(mut self) -> Inline {
        self.text.truncate(self.text.trim_end().len());
        Inline { text: self.text, opens_with_text: self.opens_with_text.unwrap_or(false) }
    }
}

/// The source text an event covers, `""` if the range is not a valid slice.
fn span_of(source: &str, range: Range<usize>) -> &str {
    source.get(range).unwrap_or("")
}

/// A code span as written: its content between backtick runs as long as the opening one in the
/// source (so ``` ``[b](c)`` ``` stays as is), padded with a space when the content starts or
/// ends with a backtick.
fn code_span(span: &str, code: &str) -> String {
    let fence = "`".repeat((span.len() - span.trim_start_matches('`').len()).max(1));
    let pad = if code.starts_with('`') || code.ends_with('`') { " " } else { "" };
    format!("{fence}{pad}{code}{pad}{fence}")
}

/// Which end of a span a marker is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Edge {
    /// The run before the span's text.
    Opening,
    /// The run after the span's text.
    Closing,
}

/// The delimiter run of an emphasis, strong or strikethrough span as written (`*`, `__`, `~~`,
/// ...), `""` for other spans.
fn emphasis_marker(span: &str, end: TagEnd, edge: Edge) -> &str {
    let (len, fallback) = match end {
        TagEnd::Emphasis => (1, "*"),
        TagEnd::Strong => (2, "**"),
        TagEnd::Strikethrough => ((span.len() - span.trim_start_matches('~').len()).clamp(1, 2), "~~"),
        _ => return "",
    };
    let marker = match edge {
        Edge::Opening => span.get(..len),
        Edge::Closing => span.len().checked_sub(len).and_then(|start| span.get(start..)),
    };
    marker.filter(|marker| marker.chars().all(|c| matches!(c, '*' | '_' | '~'))).unwrap_or(fallback)
}

// ---------------------------------------------------------------------------------------------
// Intra-doc links
// ---------------------------------------------------------------------------------------------

/// Makes links of the broken references rustdoc would resolve as intra-doc links (with no URL,
/// so only their text shows); any other broken reference stays text, brackets and all.
struct IntraDocLinks<'a> {
    source: &'a str,
    scope: &'a Scope,
}

impl<'a> BrokenLinkCallback<'a> for IntraDocLinks<'a> {
    fn handle_broken_link(&mut self, link: BrokenLink<'a>) -> Option<(CowStr<'a>, CowStr<'a>)> {
        is_intra_doc_link(self.source, self.scope, &link)
            .then_some((CowStr::Borrowed(""), CowStr::Borrowed("")))
    }
}

/// Whether a reference with no definition is taken as an intra-doc link: its label names
/// something rustdoc would resolve ([`is_intra_doc_label`]), and a shortcut (`[Foo]`,
/// ``[`Foo`]``) does not follow a word (`a[i]`, `#[derive]`, `[a][b]`).
fn is_intra_doc_link(source: &str, scope: &Scope, link: &BrokenLink<'_>) -> bool {
    match link.link_type {
        LinkType::Reference
        | LinkType::ReferenceUnknown
        | LinkType::Collapsed
        | LinkType::CollapsedUnknown => is_intra_doc_label(&link.reference, scope),
        LinkType::Shortcut | LinkType::ShortcutUnknown => {
            !follows_word(source, link.span.start) && is_intra_doc_label(&link.reference, scope)
        }
        _ => false,
    }
}

/// Whether the character before byte `start` is part of a word, an attribute (`#[`) or another
/// bracket pair (`a[i][j]`), so a `[` there indexes rather than links.
fn follows_word(source: &str, start: usize) -> bool {
    let before = source.get(..start).and_then(|head| head.chars().next_back());
    before.is_some_and(|c| is_identifier_char(c) || "]!#".contains(c))
}

/// Whether a link label names what rustdoc resolves: a code span (``[`Vec::new()`]``), a path
/// (`crate::a::B`), one with a disambiguator or a call or macro suffix (`fn@f`, `f()`, `m!`),
/// or a single name (generics aside: `Vec<T>`) that `scope` holds.
fn is_intra_doc_label(label: &str, scope: &Scope) -> bool {
    if is_code_span_label(label) {
        return true;
    }
    if !is_path_like(label) {
        return false;
    }
    let (disambiguated, path) = match label.split_once('@') {
        Some((kind, path)) => (kind.chars().all(|c| c.is_ascii_lowercase()), path),
        None => (false, label),
    };
    let bare = path.strip_suffix("()").or_else(|| path.strip_suffix('!'));
    if disambiguated || bare.is_some() || path.contains("::") {
        return true;
    }
    let name = path.split('<').next().unwrap_or(path);
    !name.is_empty() && scope.resolves(name)
}

/// Whether a link label is one code span, as in ``[`Vec::new()`]``.
fn is_code_span_label(label: &str) -> bool {
    let inner = label.trim_matches('`');
    label.starts_with('`') && label.ends_with('`') && !inner.trim().is_empty() && !inner.contains('`')
}

/// Whether a link label looks like an intra-doc path (`Foo`, `crate::a::B`, `Vec::new()`, `fn@f`).
fn is_path_like(label: &str) -> bool {
    label.starts_with(|c: char| c.is_alphabetic() || c == '_')
        && label.chars().all(|c| is_identifier_char(c) || ":<>!()@".contains(c))
}

/// The URL a link shows after its text: its destination as written, or `None` when it has
/// none or it is an intra-doc path (`crate::Unit`, `` `Foo` ``, `Foo#method.bar`): what
/// rustdoc takes for one, a destination with no `/` whose characters all fit a path.
fn shown_destination(dest: &str) -> Option<String> {
    let path = dest.split('#').next().unwrap_or("").replace('`', "");
    let path = path.trim();
    let is_path =
        !path.is_empty() && path.chars().all(|c| c.is_alphanumeric() || ":_<>, !*&;@()".contains(c));
    (!dest.trim().is_empty() && !is_path).then(|| dest.to_owned())
}

// ---------------------------------------------------------------------------------------------
// Description
// ---------------------------------------------------------------------------------------------

/// The tool description: the first non-empty top-level paragraph, after leading title headings,
/// or the first paragraph of a block quote that comes before any other content (rustdoc's
/// summary line reads such a quote's text). Empty when the docs open with a conventional
/// section, or when a heading comes after other content but before any paragraph.
fn description(blocks: &[Block]) -> String {
    let mut after_content = false;
    for block in blocks {
        match block {
            Block::Heading(title) if after_content || is_conventional_section_title(title) => break,
            Block::Heading(_) => {}
            Block::Paragraph(text) if !text.is_empty() => return text.clone(),
            Block::Quote(text) if !after_content && !text.is_empty() => return text.clone(),
            Block::Paragraph(_) | Block::List(_) | Block::Quote(_) | Block::Other => after_content = true,
        }
    }
    String::new()
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
// Parameter sections
// ---------------------------------------------------------------------------------------------

/// The parameter items of every `# Arguments` / `# Parameters` section, in order. A section runs
/// to the next heading of any level; only its top-level lists count.
fn parameter_docs(blocks: &[Block]) -> Vec<ParamDoc> {
    let mut in_section = false;
    let mut params = Vec::new();
    for block in blocks {
        match block {
            Block::Heading(title) => in_section = is_parameter_section_title(title),
            Block::List(items) if in_section => params.extend(items.iter().filter_map(parse_param_item)),
            _ => {}
        }
    }
    params
}

/// Reads a list item's leading text `name [(Type)] [separator text]`, `None` for other shapes.
fn parse_param_item(item: &Inline) -> Option<ParamDoc> {
    if !item.opens_with_text {
        return None;
    }
    let (name, rest) = item_name(&item.text)?;
    let rest = skip_type_annotation(rest.trim_start()).trim_start();
    let text = text_after_separator(rest)?;
    Some(ParamDoc { name, text: text.to_owned() })
}

/// The parameter name at the start of an item (optionally in backticks) and the rest.
fn item_name(text: &str) -> Option<(String, &str)> {
    if !text.starts_with('`') {
        return identifier_prefix(text);
    }
    let inner_and_rest = text.trim_start_matches('`');
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

/// The item text after a separator (` - `, ` – `, ` — ` or `:`); `""` when nothing follows the
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
        // Four spaces of indentation make an indented code block, which is never the description.
        assert_eq!(description_of("    # indented four\n\nNext."), "Next.");
    }

    #[test]
    fn link_definitions_are_not_description_text() {
        assert_eq!(
            description_of("Uses [the docs].\n\n[the docs]: https://example.com\n\nMore."),
            "Uses the docs (https://example.com)."
        );
        assert_eq!(
            description_of("[the docs]: https://example.com\n\nUses [the docs]."),
            "Uses the docs (https://example.com)."
        );
        // A definition cannot interrupt a paragraph: rustdoc shows this line as text, and so do we.
        assert_eq!(
            description_of("Uses [the docs].\n[the docs]: https://example.com"),
            "Uses [the docs]. [the docs]: https://example.com"
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
        // Links never nest: the inner one wins and the outer brackets are text, as rustdoc shows them.
        assert_eq!(description_of("A [nested [link](a)](b) here."), "A [nested link](b) here.");
        assert_eq!(
            description_of("A [link](http://x.org/(a)[b]) here."),
            "A link (http://x.org/(a)[b]) here."
        );
    }

    #[test]
    fn non_link_brackets_are_kept() {
        assert_eq!(description_of("In `[a]` and ``[b](c)``."), "In `[a]` and ``[b](c)``.");
        assert_eq!(
            description_of("Range [0, 1], item a[i], [1] and \\[Foo]."),
            "Range [0, 1], item a[i], [1] and [Foo]."
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

    #[test]
    fn what_the_author_wrote_in_brackets_reaches_the_model() {
        // #62 item 13: two descriptions of a public function-calling benchmark lost words.
        assert_eq!(
            description_of("The phone number, as +[country code][number]."),
            "The phone number, as +[country code][number]."
        );
        assert_eq!(
            description_of("See [Configuring time tracking](https://example.com/docs/time-tracking)."),
            "See Configuring time tracking (https://example.com/docs/time-tracking)."
        );
        assert_eq!(
            params("# Arguments\n* `phone` - +[country code][number], e.g. +4712345678"),
            vec![param("phone", "+[country code][number], e.g. +4712345678")]
        );
        // Placeholders are no links: nothing in scope has these names.
        assert_eq!(
            description_of("Write it as [YEAR]-[MONTH], greet [name] or [first name][last name]."),
            "Write it as [YEAR]-[MONTH], greet [name] or [first name][last name]."
        );
        assert_eq!(description_of("A [text][] reference."), "A [text][] reference.");
    }

    #[test]
    fn links_to_urls_keep_their_urls() {
        assert_eq!(
            description_of(
                "Read [the guide](https://x.org/g \"Title\") and [the API][api].\n\n[api]: https://x.org/api"
            ),
            "Read the guide (https://x.org/g) and the API (https://x.org/api)."
        );
        assert_eq!(description_of("See [](https://x.org/empty)."), "See https://x.org/empty.");
        assert_eq!(description_of("See [https://x.org](https://x.org)."), "See https://x.org.");
        assert_eq!(
            description_of("Mail <mailto:a@b.org> or [us](mailto:a@b.org)."),
            "Mail mailto:a@b.org or us (mailto:a@b.org)."
        );
        assert_eq!(
            description_of("Relative [page](../guide/index.html)."),
            "Relative page (../guide/index.html)."
        );
        assert_eq!(description_of("Anchor [below](#errors)."), "Anchor below (#errors).");
        assert_eq!(
            description_of("A [**bold** `code` link](https://x.org) here."),
            "A **bold** `code` link (https://x.org) here."
        );
        assert_eq!(
            params("# Arguments\n* `tz` - a zone from [the tz database](https://www.iana.org/time-zones)"),
            vec![param("tz", "a zone from the tz database (https://www.iana.org/time-zones)")]
        );
    }

    #[test]
    fn intra_doc_destinations_and_paths_lose_their_syntax() {
        assert_eq!(
            description_of(
                "See [the unit](crate::Unit), [it](`Foo`), [a method](Foo#method.bar) and [m](Vec<String>)."
            ),
            "See the unit, it, a method and m."
        );
        assert_eq!(
            description_of(
                "Calls [f()], [vec!], [struct@Forecast], [`anything at all`] and [x][crate::y::Z]."
            ),
            "Calls f(), vec!, struct@Forecast, `anything at all` and x."
        );
        // Prelude names and primitives resolve anywhere.
        assert_eq!(description_of("An [Option] of [u32] in a [Vec<T>]."), "An Option of u32 in a Vec<T>.");
    }

    #[test]
    fn a_bare_name_links_when_the_items_module_holds_it() {
        let file: syn::File = syn::parse_quote! {
            use crate::models::{Recipe, units::Unit as Measure};
            pub struct Forecast;
            pub fn get_weather() {}
            const LIMIT: u32 = 3;
        };
        let scope = Scope::of_items(&file.items);
        let read = |text: &str| parse_docs_in(text, &scope).description;
        assert_eq!(
            read(
                "Like [get_weather], [Forecast], [Recipe], [Measure] and [LIMIT]: a [Unit], [Name] or [number]."
            ),
            "Like get_weather, Forecast, Recipe, Measure and LIMIT: a [Unit], [Name] or [number]."
        );
        assert_eq!(read("[text][get_weather] and [text][Name]."), "text and [text][Name].");
        // A glob import may bring in any type; an unknown scope is read the same way.
        let glob: syn::File = syn::parse_quote! { use crate::models::*; };
        let open = Scope::of_items(&glob.items);
        assert_eq!(
            parse_docs_in("A [Recipe], [number] or [NAME].", &open).description,
            "A Recipe, [number] or [NAME]."
        );
        assert_eq!(description_of("A [Recipe], [number] or [NAME]."), "A Recipe, [number] or [NAME].");
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
            // `-` without a space starts no item: the line continues `c` (a lazy continuation).
            vec![
                param("a", "one"),
                param("b", "two"),
                param("c", "three -`d` - no space"),
                param("е", "tab")
            ]
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
                 * * *\n* `ok` - kept"
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
    fn unindented_line_is_a_lazy_continuation() {
        // CommonMark continues a paragraph with an unindented line; rustdoc shows it in the item.
        assert_eq!(
            params("# Arguments\n* `city` - name\nstill the item\n  and this"),
            vec![param("city", "name still the item and this")]
        );
        assert_eq!(
            params("# Arguments\n* `city` - name\n\nnot part\n* `b` - x"),
            vec![param("city", "name"), param("b", "x")]
        );
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

    // --- CommonMark constructs -------------------------------------------------------------------

    #[test]
    fn setext_headings_are_headings() {
        assert_eq!(description_of("Weather\n=======\n\nGet the forecast."), "Get the forecast.");
        assert_eq!(
            parse_docs("Get it.\n\nArguments\n---------\n* `city` - name\n\nErrors\n------\n\n* `x` - no"),
            Docs { description: "Get it.".to_owned(), params: vec![param("city", "name")] }
        );
        assert_eq!(description_of("Examples\n--------\n\nText."), "");
    }

    #[test]
    fn numbered_lists_are_parameter_lists() {
        assert_eq!(
            params("# Arguments\n1. `a` - one\n2. `b` - two\n\n# Parameters\n1) c: three"),
            vec![param("a", "one"), param("b", "two"), param("c", "three")]
        );
    }

    #[test]
    fn loose_lists_use_each_items_first_paragraph() {
        assert_eq!(
            params(
                "# Arguments\n\n* `a` - one\n  line\n\n  More about a.\n\n* `b` - two\n\n  ```\n  code\n  ```"
            ),
            vec![param("a", "one line"), param("b", "two")]
        );
    }

    #[test]
    fn nested_lists_of_any_kind_are_ignored() {
        assert_eq!(
            params(
                "# Arguments\n1. `mode` - one of:\n   1. `fast` - quick\n   - `slow` - careful\n2. `days` - count"
            ),
            vec![param("mode", "one of:"), param("days", "count")]
        );
    }

    #[test]
    fn items_naming_no_parameter_are_still_returned() {
        assert_eq!(
            params("# Arguments\n* `city` - name\n* `citty` - a typo the caller warns about"),
            vec![param("city", "name"), param("citty", "a typo the caller warns about")]
        );
    }

    #[test]
    fn a_leading_block_quote_is_the_description_as_in_rustdocs_summary() {
        // #31 item 7: a doc whose first paragraph is a quote gave an empty description.
        assert_eq!(description_of("> Get the forecast.\n\n# Arguments\n* `a` - x"), "Get the forecast.");
        assert_eq!(description_of("> Get the\n> forecast.\n>\n> More."), "Get the forecast.");
        assert_eq!(description_of("> > Nested [`quote`].\n\nLater."), "Nested `quote`.");
        assert_eq!(description_of("# Title\n\n> **Quoted** title body."), "**Quoted** title body.");
        assert_eq!(description_of(">\n\nGet it."), "Get it.");
        // After other content a quote is not taken; a paragraph still is.
        assert_eq!(description_of("```\ncode\n```\n\n> quoted\n\nGet it."), "Get it.");
        assert_eq!(description_of("> ```\n> code\n> ```\n\nGet it."), "Get it.");
    }

    #[test]
    fn block_quotes_are_never_parameters() {
        assert_eq!(params("> # Arguments\n> * `a` - quoted\n\n# Arguments\n> * `b` - quoted"), vec![]);
        assert_eq!(
            params("# Arguments\n* `a` - x\n  > quoted note\n* `b` - y"),
            vec![param("a", "x"), param("b", "y")]
        );
    }

    #[test]
    fn html_comments_are_dropped_and_other_html_kept_as_written() {
        assert_eq!(description_of("<!-- internal -->\n\nGet the forecast."), "Get the forecast.");
        assert_eq!(description_of("<div>\nBlock\n</div>\n\nGet it."), "Get it.");
        assert_eq!(
            description_of("Get the <!-- secret --> <b>forecast</b> as a Vec<String>."),
            "Get the <b>forecast</b> as a Vec<String>."
        );
        assert_eq!(
            params("# Arguments\n* `a` - x <!-- not shown -->\n* <b>b</b> - tag"),
            vec![param("a", "x")]
        );
    }

    #[test]
    fn reference_links_keep_their_text() {
        let text = "See [the guide][guide], [Guide][] and [guide].\n\n[guide]: https://example.com \"Title\"\n\n\
                    # Arguments\n* `a` - see [guide] and [more][crate::More]";
        assert_eq!(
            parse_docs(text),
            Docs {
                description: "See the guide (https://example.com), Guide (https://example.com) and guide \
                              (https://example.com)."
                    .to_owned(),
                params: vec![param("a", "see guide (https://example.com) and more")]
            }
        );
        // An autolink is its URL once; a destination rustdoc reads as a path is an intra-doc link.
        assert_eq!(
            description_of("Visit <https://example.com>, <a@b.org> or [x](<a b> \"t\")."),
            "Visit https://example.com, a@b.org or x."
        );
        assert_eq!(description_of("A ![logo](logo.png) image."), "A logo (logo.png) image.");
    }

    #[test]
    fn escapes_and_entities_are_resolved() {
        assert_eq!(
            description_of(
                "Not \\*emphasis\\*, not \\[a link\\], \\`no code\\`, a &amp; b &lt;c&gt; &#169;."
            ),
            "Not *emphasis*, not [a link], `no code`, a & b <c> ©."
        );
        assert_eq!(params("# Arguments\n* `a` - 1 \\- 2 &mdash; ok"), vec![param("a", "1 - 2 — ok")]);
        assert_eq!(description_of("A backslash \\ and \\n stay."), "A backslash \\ and \\n stay.");
    }

    #[test]
    fn inline_code_and_emphasis_keep_their_markers() {
        assert_eq!(
            description_of(
                "Get *the* **current** _weather_ __now__ ~~soon~~ for `city`,\n`multi\nline` and `` `tick` ``."
            ),
            "Get *the* **current** _weather_ __now__ ~~soon~~ for `city`, `multi line` and `` `tick` ``."
        );
        assert_eq!(params("# Arguments\n* `a` - *very* `important`"), vec![param("a", "*very* `important`")]);
        assert_eq!(params("# Arguments\n* *a* - emphasised name\n* **b**: strong name"), vec![]);
    }

    #[test]
    fn tables_are_neither_description_nor_parameters() {
        let text = "| a | b |\n|---|---|\n| 1 | 2 |\n\nSummary.\n\n# Arguments\n\n| name | meaning |\n|---|---|\n| `a` | x |";
        assert_eq!(parse_docs(text), Docs { description: "Summary.".to_owned(), params: vec![] });
        assert_eq!(description_of("Summary.\n| a | b |\n|---|---|\n| 1 | 2 |"), "Summary.");
    }

    #[test]
    fn footnotes_task_markers_and_breaks() {
        assert_eq!(description_of("Get it[^1].\n\n[^1]: A footnote."), "Get it.");
        assert_eq!(description_of("Line one  \nline two\\\nline three"), "Line one line two line three");
        assert_eq!(params("# Arguments\n- [ ] `a` - task\n- `b` - plain"), vec![param("b", "plain")]);
    }

    #[test]
    fn rustdoc_sections_never_leak() {
        let text = "Get the forecast.\n\n# Errors\n\nWhen offline.\n\n* `e` - no\n\n# Panics\n\nNever.\n\n\
                    # Safety\n\n* `s` - no\n\n# Examples\n\n```\n# Arguments\n* `x` - no\n```\n\n\
                    ## Arguments\n\n* `city` - name\n\n### Notes\n\n* `n` - no";
        assert_eq!(
            parse_docs(text),
            Docs { description: "Get the forecast.".to_owned(), params: vec![param("city", "name")] }
        );
        for section in ["Errors", "Panics", "Safety", "Examples"] {
            assert_eq!(
                parse_docs(&format!("# {section}\n\nText.\n\n* `a` - x")),
                Docs::default(),
                "{section}"
            );
            assert_eq!(parse_docs(&format!("{section}\n===\n\nText.")), Docs::default(), "{section}");
        }
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
    fn pathological_markdown_does_not_panic() {
        // Inputs that make naive CommonMark parsers quadratic or recurse deeply.
        let n = 20_000;
        let cases = [
            "[".repeat(n),
            "[Foo] ".repeat(n),
            "*a _b ".repeat(n),
            "~~a ".repeat(n),
            "<a ".repeat(n),
            "<!-- ".repeat(n),
            "[^a]".repeat(n),
            format!("{} x", ">".repeat(n)),
            (0..n / 10).map(|i| format!("{}* `p{i}` - x\n", "  ".repeat(i % 50))).collect(),
            (1..n / 20).map(|i| format!("{} x ", "`".repeat(i % 100))).collect(),
            format!("{}\n{}\n", "|a".repeat(n), "|-".repeat(n)),
            format!("# Arguments\n{}", "* `a` - [x](y ".repeat(n)),
        ];
        for text in &cases {
            let _ = parse_docs(text);
        }
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
