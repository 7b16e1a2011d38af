//! [`Toolset`]: the `'static` value generated code defines per tool module and for the
//! whole crate. It holds the schema strings rendered at build time (each stored once, in
//! the crate's info table) and a `match` dispatcher: `emit` joins a format's array once and
//! then returns it, and a call is one integer switch plus the decoding.
//!
//! Every tool, sync or async, is called through [`Toolset::call`] with the crate's context
//! (`()` when the build script declares none). The sync entry points ([`Toolset::run`] and
//! friends, [`Toolset::run_with`]) never block: asked for an `async` tool, they return
//! [`ToolError::AsyncTool`] without running it.

use std::fmt;
use std::sync::OnceLock;

use serde_json::Value;

use crate::call::{CallFuture, Dispatched, Runner};
use crate::error::ToolError;
use crate::fast::Args;
use crate::info::{Names, ToolInfo, unknown_tool};
use crate::progress::Progress;
use crate::render::{Format, render_infos};
use crate::search::{SearchHit, SearchIndex};

/// What generated dispatchers look like: `None` when `name` is not one of theirs. The
/// context and the arguments outlive the call, so an async tool may borrow both.
pub type DispatchFn<C> = for<'a> fn(ctx: &'a C, name: &'a str, args: &'a Value) -> Option<Dispatched<'a>>;

/// What generated text dispatchers look like: the call decoded straight from argument
/// text by the one-pass fast path (`toolcall_runtime::__private::fast`), or `None` when
/// the fast path gave up (or `name` is unknown) and the `Value` path must answer. The
/// tool reports to `progress` when it takes a `&Progress`.
pub type TextDispatchFn<C> =
    for<'a> fn(ctx: &'a C, name: &'a str, text: Args<'a>, progress: &'a Progress) -> Option<Dispatched<'a>>;

/// Where a toolset keeps its definition arrays once [`Toolset::emit`] has assembled them:
/// one per format and strictness, each written once and then borrowed for the life of the
/// program. Generated code declares one per toolset (`static __EMITTED: Emitted = Emitted::new();`).
pub struct Emitted([[OnceLock<String>; 2]; 5]);

impl Emitted {
    /// Nothing assembled yet.
    pub const fn new() -> Emitted {
        Emitted([const { [const { OnceLock::new() }; 2] }; 5])
    }
}

impl Default for Emitted {
    fn default() -> Self {
        Emitted::new()
    }
}

impl fmt::Debug for Emitted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let assembled = self.0.iter().flatten().filter(|slot| slot.get().is_some()).count();
        f.debug_struct("Emitted").field("assembled", &assembled).finish()
    }
}

/// A fixed set of tools with their schemas rendered at build time, called with a
/// context of type `C` (declared with `toolcall_build::Builder::context`; `()` without).
///
/// Generated code builds these as statics (`toolset::weather::TOOLS`, `toolset::ALL`).
/// Each tool's schema texts are stored once ([`ToolInfo`]), shared by every toolset that
/// holds the tool; a definition array is put together from them the first time it is
/// emitted and kept.
pub struct Toolset<C: 'static = ()> {
    tools: &'static [ToolInfo],
    emitted: &'static Emitted,
    dispatch: Dispatch<C>,
    text: Option<TextDispatchFn<C>>,
    /// Whether the dispatcher serves more tools than this toolset holds (a module's
    /// toolset on the crate's dispatcher): a name not among `tools` is then unknown here.
    subset: bool,
    /// The compiled search index of the crate's tools and the row of `tools[0]` in it,
    /// when the build wrote one (`Builder::tool_search`).
    search: Option<(&'static SearchIndex, usize)>,
}

/// How a toolset reaches its tools from a `Value`.
enum Dispatch<C: 'static> {
    /// A dispatcher of values (hand-built toolsets).
    Value(DispatchFn<C>),
    /// The generated dispatcher, which reads values and text alike.
    Args(TextDispatchFn<C>),
}

impl<C> Clone for Dispatch<C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C> Copy for Dispatch<C> {}

impl<C> Dispatch<C> {
    #[inline(always)]
    fn call<'a>(
        self,
        ctx: &'a C,
        name: &'a str,
        args: &'a Value,
        progress: &'a Progress,
    ) -> Option<Dispatched<'a>> {
        match self {
            Dispatch::Value(dispatch) => dispatch(ctx, name, args),
            Dispatch::Args(dispatch) => dispatch(ctx, name, Args::Value(args), progress),
        }
    }
}

/// The rows `first..first + count` of an info table: a module's tools, as rows of the
/// crate's table (`ALL`'s), so each tool's texts are stored once. Generated code calls
/// this in statics.
pub const fn rows(table: &'static [ToolInfo], first: usize, count: usize) -> &'static [ToolInfo] {
    table.split_at(first).1.split_at(count).0
}

/// How many rows `parts` hold together: the length of the crate's info table, which
/// generated code assembles from each module's rows ([`concat_rows`]).
pub const fn total_rows(parts: &[&[ToolInfo]]) -> usize {
    start_of(parts, parts.len())
}

/// Where part `index` of `parts` starts in their concatenation: a module's first row in
/// the crate's table, computed from the modules' own row counts, so adding a tool changes
/// no other module's generated code.
pub const fn start_of(parts: &[&[ToolInfo]], index: usize) -> usize {
    let mut start = 0;
    let mut i = 0;
    while i < index && i < parts.len() {
        start += parts[i].len();
        i += 1;
    }
    start
}

/// The rows of `parts` one after the other, at compile time: the crate's info table, each
/// module's rows once. `N` must be [`total_rows`] of `parts` (generated code writes it
/// so); another `N` fails to compile.
pub const fn concat_rows<const N: usize>(parts: &[&[ToolInfo]]) -> [ToolInfo; N] {
    assert!(total_rows(parts) == N, "the table's length is not the sum of its parts");
    let mut out = [ToolInfo::EMPTY; N];
    let (mut at, mut i) = (0, 0);
    while i < parts.len() {
        let mut j = 0;
        while j < parts[i].len() {
            out[at] = parts[i][j];
            at += 1;
            j += 1;
        }
        i += 1;
    }
    out
}

impl<C> Clone for Toolset<C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C> Copy for Toolset<C> {}

impl<C> fmt::Debug for Toolset<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Toolset")
            .field("context", &std::any::type_name::<C>())
            .field("tools", &self.tools.iter().map(|t| t.name).collect::<Vec<_>>())
            .finish()
    }
}

impl<C> Toolset<C> {
    /// Builds a toolset from precomputed parts. Generated code calls this; `emitted` is
    /// this toolset's own (two toolsets sharing one would emit each other's arrays).
    ///
    /// ```
    /// use toolcall_runtime::{Emitted, Toolset};
    /// static EMITTED: Emitted = Emitted::new();
    /// static EMPTY: Toolset = Toolset::new(&[], &EMITTED, |_, _, _| None);
    /// assert_eq!(EMPTY.emit(toolcall_runtime::Format::OpenAi, true), "[]");
    /// ```
    pub const fn new(tools: &'static [ToolInfo], emitted: &'static Emitted, dispatch: DispatchFn<C>) -> Self {
        Toolset {
            tools,
            emitted,
            dispatch: Dispatch::Value(dispatch),
            text: None,
            subset: false,
            search: None,
        }
    }

    /// Builds a toolset around one generated dispatcher, which reads a call's arguments
    /// from a `Value` and from text alike ([`Args`]); for text it answers `None` when the
    /// fast path gives up, and the text is parsed and dispatched as a `Value`.
    pub const fn generated(
        tools: &'static [ToolInfo],
        emitted: &'static Emitted,
        dispatch: TextDispatchFn<C>,
    ) -> Self {
        Toolset {
            tools,
            emitted,
            dispatch: Dispatch::Args(dispatch),
            text: Some(dispatch),
            subset: false,
            search: None,
        }
    }

    /// Builds a toolset of some of the tools a generated dispatcher serves (`tools`, a
    /// module's rows of the crate's table): any other name is unknown to it, as if the
    /// dispatcher had no arm for it. (Generated module toolsets have dispatchers of their
    /// own.)
    pub const fn subset(
        tools: &'static [ToolInfo],
        emitted: &'static Emitted,
        dispatch: TextDispatchFn<C>,
    ) -> Self {
        Toolset { subset: true, ..Toolset::generated(tools, emitted, dispatch) }
    }

    /// Whether `name` reaches the dispatcher: always for a whole toolset, only for one of
    /// `tools` for a [`Toolset::subset`].
    #[inline(always)]
    fn serves(&self, name: &str) -> bool {
        !self.subset || self.tools.iter().any(|t| t.name == name)
    }

    /// The dispatcher's answer for arguments held as a value; `None` for a name it does
    /// not serve.
    #[inline(always)]
    fn dispatch_value<'a>(
        &self,
        ctx: &'a C,
        name: &'a str,
        args: &'a Value,
        progress: &'a Progress,
    ) -> Option<Dispatched<'a>> {
        if !self.serves(name) {
            return None;
        }
        self.dispatch.call(ctx, name, args, progress)
    }

    /// Adds the compiled search index of the crate's tools, in which this toolset's first
    /// tool is row `first` (0 for the crate's `ALL`; a module's first row for its `TOOLS`).
    /// Generated code calls this when the build script turned search on
    /// (`Builder::tool_search(true)`).
    pub const fn with_search(mut self, index: &'static SearchIndex, first: usize) -> Self {
        self.search = Some((index, first));
        self
    }

    /// Whether the build compiled a search index for these tools
    /// (`toolcall_build::Builder::tool_search(true)`): without one, [`Toolset::search`]
    /// finds nothing.
    pub fn is_searchable(&self) -> bool {
        self.search.is_some()
    }

    /// The tools best matching `query`, best first, at most `limit`: BM25 over the index
    /// the build compiled from every tool's name, title, description, module, parameter
    /// names and docs and enum values ([`crate::search`]). The query goes through the
    /// same tokenizer (words split at separators and case changes, folded, stop words
    /// dropped, stemmed); tools sharing no term with it are not returned. Nothing is built
    /// at start-up, and a search allocates its result and one score per tool. Empty when
    /// the build compiled no index ([`Toolset::is_searchable`]).
    ///
    /// ```
    /// // example-app's build.rs calls `toolcall_build::Builder::new().tool_search(true)`.
    /// use example_app::toolset;
    ///
    /// let hits = toolset::ALL.search("what will the weather be like in Paris tomorrow?", 3);
    /// assert_eq!(hits[0].tool.name, "get_weather");
    /// assert!(hits.windows(2).all(|pair| pair[0].score >= pair[1].score));
    /// // A module's toolset finds its own tools only.
    /// let notes = toolset::notes::TOOLS.search("remove a note", 5);
    /// assert_eq!(notes[0].tool.name, "remove_note"); // delete_note, under its wire name
    /// assert!(notes.iter().all(|hit| hit.tool.module == "notes"));
    /// ```
    pub fn search(&self, query: &str, limit: usize) -> Vec<SearchHit> {
        let Some((index, first)) = self.search else { return Vec::new() };
        let end = first + self.tools.len();
        index
            .rank(query, limit, |row| (first..end).contains(&(row as usize)))
            .into_iter()
            .filter_map(|(row, score)| {
                self.tools.get(row as usize - first).map(|tool| SearchHit { tool, score })
            })
            .collect()
    }

    /// Adds the dispatcher that decodes argument text without parsing it into a `Value`
    /// first (generated code); without one, text is parsed and dispatched as a `Value`.
    pub const fn with_text(mut self, text: TextDispatchFn<C>) -> Self {
        self.text = Some(text);
        self
    }

    /// The text dispatcher's answer for argument `text`: `None` without one, or when the
    /// fast path gave up (or `name` is unknown) and the `Value` path must answer.
    #[inline]
    fn dispatch_text<'a>(
        &self,
        ctx: &'a C,
        name: &'a str,
        text: &'a str,
        progress: &'a Progress,
    ) -> Option<Dispatched<'a>> {
        if !self.serves(name) {
            return None;
        }
        (self.text?)(ctx, name, Args::Str(text), progress)
    }

    /// The call decoded straight from argument text, when the fast path takes it.
    pub(crate) fn call_text<'a>(
        &self,
        ctx: &'a C,
        name: &'a str,
        text: &'a str,
        progress: &'a Progress,
    ) -> Option<CallFuture<'a>> {
        let dispatched = self.dispatch_text(ctx, name, text, progress)?;
        Some(CallFuture::new(name, dispatched))
    }

    /// [`Toolset::call`] on argument text: `text` for the fast path (`None` when the bytes
    /// are not UTF-8), `bytes` the same text for the parser when it gives up.
    async fn call_text_or_parsed(
        &self,
        ctx: &C,
        name: &str,
        text: Option<&str>,
        bytes: &[u8],
        progress: &Progress,
    ) -> Result<Value, ToolError> {
        if let Some(call) = text.and_then(|text| self.call_text(ctx, name, text, progress)) {
            return call.await;
        }
        let args = crate::call::parse_arguments(bytes)?;
        self.call_reporting(ctx, name, &args, progress).await
    }

    /// [`Toolset::run_with`] on argument text, `text` and `bytes` as above.
    fn run_text_with(
        &self,
        ctx: &C,
        name: &str,
        text: Option<&str>,
        bytes: &[u8],
    ) -> Result<Value, ToolError> {
        if let Some(dispatched) = text.and_then(|text| self.dispatch_text(ctx, name, text, Progress::none()))
        {
            return ready(name, dispatched);
        }
        let args = crate::call::parse_arguments(bytes)?;
        self.run_with(ctx, name, &args)
    }

    /// The tool definitions for `format` as a JSON array. The first call for a format and
    /// strictness puts the array together from the tools' stored texts (one allocation);
    /// every later call returns the same text.
    ///
    /// [`Format::Mcp`]'s definitions are valid in every MCP revision: a tool's
    /// `outputSchema` is there only when it is an object schema (a struct or map result),
    /// as revisions before 2026-07-28 require. A result of another shape (`Vec<T>`, `u64`,
    /// `String`, `Option<T>`, an enum) keeps its schema in [`Toolset::describe`]'s
    /// [`ToolInfo::output`], from which a server adds it for a client on 2026-07-28
    /// (toolcall-mcp does). OpenAI, Anthropic and Gemini definitions have no output schema.
    ///
    /// ```text
    /// let body = toolset::ALL.emit(Format::OpenAi, true); // &'static str
    /// ```
    #[inline]
    pub fn emit(&self, format: Format, strict: bool) -> &'static str {
        // Gemini has no strict mode: both flags are one array.
        let strict = strict && format != Format::Gemini;
        let emitted: &'static Emitted = self.emitted;
        let tools = self.tools;
        emitted.0[format.index()][usize::from(strict)].get_or_init(|| render_infos(tools, format, strict))
    }

    /// [`Toolset::emit`] parsed into a `serde_json::Value` (keys ordered by `serde_json`).
    pub fn emit_value(&self, format: Format, strict: bool) -> Value {
        serde_json::from_str(self.emit(format, strict)).unwrap_or(Value::Null)
    }

    /// The tool names, in definition order; prints as a list.
    ///
    /// ```
    /// # mod toolset { pub static ALL: toolcall_runtime::Toolset = toolcall_runtime::Toolset::new(&[], &E, |_, _, _| None); static E: toolcall_runtime::Emitted = toolcall_runtime::Emitted::new(); }
    /// println!("{:?}", toolset::ALL.names()); // ["get_weather", "add", ...]
    /// let names: Vec<&str> = toolset::ALL.names().collect();
    /// # assert!(names.is_empty());
    /// ```
    pub fn names(&self) -> Names<'static> {
        Names::of_infos(self.tools)
    }

    /// Module, name, description, input schemas and output schema (of any shape:
    /// [`ToolInfo::output`]) of every tool.
    pub fn describe(&self) -> &'static [ToolInfo] {
        self.tools
    }

    /// Whether a tool named `name` is in this set.
    pub fn contains(&self, name: &str) -> bool {
        self.tools.iter().any(|t| t.name == name)
    }

    /// Number of tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether the set has no tools.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Calls tool `name` with the context and the decoded arguments: the one entry point
    /// for every tool, sync or async.
    ///
    /// A sync tool runs before this returns and the future is ready at its first poll
    /// (nothing is allocated beyond what [`Toolset::run`] allocates); an async tool's body
    /// is boxed once and runs as the future is polled. The future is `Send`; a panic in
    /// any poll is [`ToolError::Panicked`]; dropping it cancels the tool at its next
    /// `.await`. A tool that never finishes is the caller's to time out, e.g. with
    /// `tokio::time::timeout(limit, toolset::ALL.call(&ctx, name, &args))`.
    ///
    /// The context is the caller's, never the model's: no argument can reach it.
    ///
    /// ```text
    /// let out = toolset::ALL.call(&app, "lookup", &json!({"id": 7})).await?;
    /// ```
    pub fn call<'a>(&self, ctx: &'a C, name: &'a str, args: &'a Value) -> CallFuture<'a> {
        self.call_reporting(ctx, name, args, Progress::none())
    }

    /// [`Toolset::call`], with a tool that takes `&Progress` reporting to `progress`
    /// (an MCP server's notifications, an agent's events); other tools ignore it.
    ///
    /// ```text
    /// let progress = Progress::new(my_sink);
    /// let out = toolset::ALL.call_reporting(&app, "export_notes", &json!({}), &progress).await?;
    /// ```
    pub fn call_reporting<'a>(
        &self,
        ctx: &'a C,
        name: &'a str,
        args: &'a Value,
        progress: &'a Progress,
    ) -> CallFuture<'a> {
        CallFuture::dispatched(name, self.tools, self.dispatch_value(ctx, name, args, progress))
    }

    /// Whether tool `name` returns [`Content`](crate::Content) blocks
    /// ([`ToolInfo::returns_content`]); `false` for an unknown name.
    pub fn returns_content(&self, name: &str) -> bool {
        self.tools.iter().any(|t| t.name == name && t.returns_content)
    }

    /// Like [`Toolset::call`], with the arguments as JSON text (as OpenAI sends them).
    /// Malformed text is [`ToolError::InvalidJson`].
    pub async fn call_json(&self, ctx: &C, name: &str, args: &str) -> Result<Value, ToolError> {
        self.call_text_or_parsed(ctx, name, Some(args), args.as_bytes(), Progress::none()).await
    }

    /// [`Toolset::call_json`], with a tool that takes `&Progress` reporting to `progress`.
    pub async fn call_json_reporting(
        &self,
        ctx: &C,
        name: &str,
        args: &str,
        progress: &Progress,
    ) -> Result<Value, ToolError> {
        self.call_text_or_parsed(ctx, name, Some(args), args.as_bytes(), progress).await
    }

    /// Like [`Toolset::call_json`], from raw bytes; invalid UTF-8 is `InvalidJson`.
    pub async fn call_bytes(&self, ctx: &C, name: &str, args: &[u8]) -> Result<Value, ToolError> {
        self.call_text_or_parsed(ctx, name, std::str::from_utf8(args).ok(), args, Progress::none()).await
    }

    /// Runs a sync tool with the context, without an executor. Never blocks: an async
    /// tool is answered with [`ToolError::AsyncTool`] and its body does not run (its
    /// arguments are still decoded first, so their errors come back as usual).
    #[inline]
    pub fn run_with(&self, ctx: &C, name: &str, args: &Value) -> Result<Value, ToolError> {
        match self.dispatch_value(ctx, name, args, Progress::none()) {
            Some(dispatched) => ready(name, dispatched),
            None => Err(unknown_tool(name, self.tools)),
        }
    }
}

/// The sync entry points of a crate without a context.
impl Toolset<()> {
    /// Decodes `args`, calls the tool and returns its result as JSON. An `async` tool is
    /// [`ToolError::AsyncTool`]: use [`Toolset::call`].
    #[inline]
    pub fn run(&self, name: &str, args: &Value) -> Result<Value, ToolError> {
        self.run_with(&(), name, args)
    }

    /// Like [`Toolset::run`], with the arguments as JSON text (as OpenAI sends them).
    pub fn run_json(&self, name: &str, args: &str) -> Result<Value, ToolError> {
        self.run_text_with(&(), name, Some(args), args.as_bytes())
    }

    /// Like [`Toolset::run_json`], from raw bytes; invalid UTF-8 is `InvalidJson`.
    pub fn run_bytes(&self, name: &str, args: &[u8]) -> Result<Value, ToolError> {
        self.run_text_with(&(), name, std::str::from_utf8(args).ok(), args)
    }
}

/// A sync run's result: an async tool is not run.
#[inline(always)]
fn ready(name: &str, dispatched: Dispatched<'_>) -> Result<Value, ToolError> {
    match dispatched {
        Dispatched::Ready(result) => result,
        Dispatched::Async(_) => Err(async_tool(name)),
    }
}

/// The error for a sync run of async tool `name`.
#[cold]
#[inline(never)]
fn async_tool(name: &str) -> ToolError {
    ToolError::AsyncTool(name.to_owned())
}

impl Runner for Toolset<()> {
    fn run(&self, name: &str, args: &Value) -> Result<Value, ToolError> {
        Toolset::run(self, name, args)
    }

    fn run_json(&self, name: &str, args: &str) -> Result<Value, ToolError> {
        Toolset::run_json(self, name, args)
    }
}
