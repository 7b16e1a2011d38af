//! [`McpServer`]: one toolset and its context, with the settings every transport reads,
//! built with a small builder. Which tools a caller sees is decided here; how a call runs
//! ([`crate::call`]), how MCP requests are answered ([`crate::handler`]) and the
//! transports ([`crate::stdio`], [`crate::streamable_http`]) sit above.
//!
//! The builder is typed ([`McpServer<C>`]); what it builds is a [`Server`], which knows
//! no `C` ([`crate::context`] erases it), so everything above compiles once, here, and a
//! user's crate instantiates only the builder's few lines and its own toolset.

use std::any::Any;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{ErrorData, JsonObject, Tool};
use rmcp::service::{RequestContext, RoleServer};
#[cfg(feature = "http")]
use rmcp::transport::streamable_http_server::session::SessionStore;
use serde_json::Value;
use toolcall_runtime::{Annotations, LogLevel, Progress, ToolError, ToolInfo, Toolset};

#[cfg(feature = "ask")]
use crate::ask::rounds::Sealer;
use crate::context::{ErasedContext, Tools};
use crate::error::ServeError;
use crate::limit::CallLimit;
#[cfg(feature = "resources")]
use crate::listen::Subscriptions;
#[cfg(feature = "prompts")]
use crate::prompts::{PromptTable, Prompts};
#[cfg(feature = "http")]
use crate::request::{Caller, CallerContext, CallerFn, Rejection};
#[cfg(feature = "resources")]
use crate::resources::{ResourceTable, Resources};
use crate::search::{Searching, ToolSearch};
#[cfg(feature = "http")]
use crate::settings::HttpSettings;
use crate::talk;

/// What the function of a tool added at run time ([`McpServer::tool`]) returns.
pub(crate) type AddedFuture =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<Value, ToolError>> + Send>>;

/// The function of a tool added at run time: the caller's context, the call's arguments
/// and its [`Progress`], to the tool's result.
pub(crate) type AddedFn = dyn Fn(ErasedContext, JsonObject, Progress) -> AddedFuture + Send + Sync;

/// A [`ToolFilter`], its context's type erased ([`crate::context`]).
pub(crate) type Filter = dyn Fn(&(dyn Any + Send + Sync), &ToolInfo) -> bool + Send + Sync;

/// A transport serving, boxed in this crate: its future (rmcp's service loop, the HTTP
/// connections, every handler under them) is then compiled here, once, rather than in each
/// crate that awaits it, which is where an `async fn`'s body would be compiled.
pub(crate) type Serving = std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), ServeError>> + Send>>;

/// The default number of tools per `tools/list` page.
pub const DEFAULT_PAGE_SIZE: usize = 100;

/// How long a 2026-07-28 client may keep a `tools/list` answer: one hour
/// ([`McpServer::list_ttl`]).
pub const DEFAULT_LIST_TTL: Duration = Duration::from_secs(3600);

/// The default time limit of one `tools/call`.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The default number of calls running at once.
pub const DEFAULT_MAX_CONCURRENT_CALLS: usize = 64;

/// The default number of calls waiting for one of the running calls to finish.
pub const DEFAULT_MAX_QUEUED_CALLS: usize = 256;

/// The default limit of one stdin line (one message) over stdio: 16 MiB (rmcp's).
pub const DEFAULT_MAX_LINE: usize = 16 * 1024 * 1024;

/// The least severe log level sent to a client that has not chosen one (with
/// `logging/setLevel`, or a request's `io.modelcontextprotocol/logLevel`): `info`, so
/// `debug` messages stay on the server unless asked for.
pub const DEFAULT_LOG_LEVEL: LogLevel = LogLevel::Info;

/// How long a 2026-07-28 client may take to answer a tool's question: the lifetime of the
/// `requestState` of an input-required result (15 minutes; [`McpServer::request_state_ttl`]).
#[cfg(feature = "ask")]
pub const DEFAULT_REQUEST_STATE_TTL: Duration = Duration::from_secs(15 * 60);

/// The most progress and log reports of one call waiting to be sent; past it, a report
/// is dropped rather than held (the tool never waits on the client).
pub const MAX_QUEUED_REPORTS: usize = talk::QUEUE;

/// Which tools a caller sees and may call ([`McpServer::tool_filter`]).
pub type ToolFilter<C> = dyn Fn(&C, &ToolInfo) -> bool + Send + Sync;

/// An MCP server for one toolset and its context. Cheap to clone; the clones share the
/// call limit.
///
/// `C` is checked here, where the toolset, the context and the functions that read it
/// (request function, tool filter, run-time tools, resources, prompts) are given; the
/// server behind it does not know `C`, so it is compiled once, in this crate, whatever
/// `C` is.
pub struct McpServer<C: Send + Sync + 'static> {
    pub(crate) server: Server,
    context: PhantomData<fn(Arc<C>) -> Arc<C>>,
}

impl<C: Send + Sync + 'static> Clone for McpServer<C> {
    fn clone(&self) -> Self {
        McpServer { server: self.server.clone(), context: PhantomData }
    }
}

/// The server behind [`McpServer`], its context's type erased ([`crate::context`]): what
/// the MCP handler, the call path and the transports run on. The streamable-HTTP
/// transport makes one per session (and per stateless request).
#[derive(Clone)]
pub(crate) struct Server {
    pub(crate) toolset: &'static dyn Tools,
    pub(crate) context: ErasedContext,
    #[cfg(feature = "http")]
    pub(crate) from_request: Option<Arc<CallerFn>>,
    pub(crate) filter: Option<Arc<Filter>>,
    /// The description of each of `tools`, in the same order (`None` only if the
    /// definitions and the descriptions disagree, a toolcall bug: then hidden by a filter).
    pub(crate) infos: Arc<[Option<&'static ToolInfo>]>,
    /// The log level this session set (`logging/setLevel`); fresh for each session.
    pub(crate) log_level: talk::SessionLevel,
    pub(crate) default_log_level: LogLevel,
    #[cfg(feature = "http")]
    pub(crate) http: HttpSettings,
    pub(crate) limit: Arc<CallLimit>,
    pub(crate) tools: Arc<[Tool]>,
    /// Where each of `tools` is, by name, once they are many ([`Server::place_of`]).
    pub(crate) places: Option<Arc<HashMap<String, usize>>>,
    pub(crate) definitions_error: Option<String>,
    pub(crate) name: String,
    pub(crate) version: String,
    pub(crate) instructions: Option<String>,
    pub(crate) page_size: usize,
    /// How long a 2026-07-28 client may keep a `tools/list` answer.
    pub(crate) list_ttl: Duration,
    pub(crate) timeout: Duration,
    /// Tools with their own time limit (`ToolMeta::timeout_ms`), which replaces `timeout`.
    pub(crate) tool_timeouts: Arc<BTreeMap<&'static str, Duration>>,
    pub(crate) max_line: usize,
    /// The resources served beside the tools, if any.
    #[cfg(feature = "resources")]
    pub(crate) resources: Option<Arc<ResourceTable>>,
    /// The prompts served beside the tools, if any.
    #[cfg(feature = "prompts")]
    pub(crate) prompts: Option<Arc<PromptTable>>,
    /// Who subscribed to which resource, across sessions.
    #[cfg(feature = "resources")]
    pub(crate) subscriptions: Arc<Subscriptions>,
    /// This session's number among the server's sessions (fresh for each session).
    #[cfg(feature = "resources")]
    pub(crate) session: u64,
    /// The functions of the tools added at run time ([`McpServer::tool`]), by name; their
    /// definitions follow the toolset's in `tools`.
    pub(crate) added: Arc<BTreeMap<String, Arc<AddedFn>>>,
    /// Seals and opens the `requestState` of 2026-07-28 calls whose tools ask.
    #[cfg(feature = "ask")]
    pub(crate) request_states: Arc<Sealer>,
    /// Which tools' calls run their first poll inline ([`crate::inline`]); shared by clones.
    pub(crate) inline: Arc<crate::inline::Inline>,
    /// oauth hook: the OAuth resource server guarding `/mcp` ([`McpServer::oauth`]).
    #[cfg(feature = "oauth")]
    pub(crate) oauth: Option<Arc<crate::oauth::ResourceServer>>,
    /// Tool search, when on ([`McpServer::tool_search`]).
    pub(crate) search: Option<Arc<Searching>>,
    /// The open `subscriptions/listen` streams; shared by clones.
    pub(crate) listeners: Arc<crate::listen::Listeners>,
    /// Where tasks are kept ([`McpServer::tasks`]); shared by clones.
    #[cfg(feature = "tasks")]
    pub(crate) tasks: crate::tasks::TaskSettings,
}

impl<C: Send + Sync + 'static> McpServer<C> {
    /// A server for `toolset`, calling every tool with `context`. The definitions are
    /// parsed into rmcp's types here, once.
    pub fn new(toolset: &'static Toolset<C>, context: C) -> Self {
        Self::with_shared_context(toolset, Arc::new(context))
    }

    /// Like [`McpServer::new`], with a context the caller keeps a handle to (shared with
    /// other servers, or read by the application while the server runs).
    pub fn with_shared_context(toolset: &'static Toolset<C>, context: Arc<C>) -> Self {
        McpServer { server: Server::new(toolset, context), context: PhantomData }
    }

    /// The server name sent in `initialize` (default `toolcall`).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.server.name = name.into();
        self
    }

    /// The server version sent in `initialize` (default: this crate's version).
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.server.version = version.into();
        self
    }

    /// Instructions for the client's model, sent in `initialize`.
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.server.instructions = Some(text.into());
        self
    }

    /// Tools per `tools/list` page (at least 1; default [`DEFAULT_PAGE_SIZE`]).
    pub fn page_size(mut self, size: usize) -> Self {
        self.server.page_size = size.max(1);
        self
    }

    /// How long a client on protocol 2026-07-28 may keep a `tools/list` answer before
    /// asking again (its `ttlMs`; default [`DEFAULT_LIST_TTL`]). The list is compiled into
    /// the server, so it changes only with a new build. Its `cacheScope` is `public` (one
    /// list for every caller) unless a [`McpServer::tool_filter`] makes it per caller,
    /// then `private`.
    pub fn list_ttl(mut self, ttl: Duration) -> Self {
        self.server.list_ttl = ttl;
        self
    }

    /// The time limit of one `tools/call` (default [`DEFAULT_TIMEOUT`]), counted from the
    /// request's arrival (over HTTP, when its head was read), so time spent waiting for
    /// the body, for a call slot or in line counts.
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.server.timeout = limit;
        self
    }

    /// The longest first poll of a call (argument decoding, and the whole of a sync tool)
    /// that lets its tool's calls run on the async worker that received them (default
    /// [`DEFAULT_INLINE_BUDGET`](crate::DEFAULT_INLINE_BUDGET), 100 µs) instead of on
    /// tokio's blocking pool. Whether a tool blocks is measured, not declared: a tool runs
    /// inline after a run of cheap first polls on the pool, and goes back to the pool for
    /// 10 s after one over the budget; arguments over 64 KiB always go to the pool.
    /// `Duration::ZERO` sends every call's first poll to the pool.
    ///
    /// ```
    /// # let toolset: &'static toolcall_runtime::Toolset = Box::leak(Box::new(toolcall_runtime::Toolset::new(&[], Box::leak(Box::default()), |_, _, _| None)));
    /// let server = toolcall_mcp::McpServer::new(toolset, ()).inline_budget(std::time::Duration::ZERO);
    /// ```
    pub fn inline_budget(mut self, budget: Duration) -> Self {
        self.server.inline = Arc::new(crate::inline::Inline::new(budget));
        self
    }

    /// At most `limit` tool calls run at once (at least 1; default
    /// [`DEFAULT_MAX_CONCURRENT_CALLS`]), across every session and request of this server
    /// and its clones. Calls past it wait in line ([`McpServer::max_queued_calls`]); the
    /// wait counts against the call's [`McpServer::timeout`].
    ///
    /// ```
    /// # let toolset: &'static toolcall_runtime::Toolset = Box::leak(Box::new(toolcall_runtime::Toolset::new(&[], Box::leak(Box::default()), |_, _, _| None)));
    /// let server = toolcall_mcp::McpServer::new(toolset, ()).max_concurrent_calls(8).max_queued_calls(32);
    /// ```
    pub fn max_concurrent_calls(mut self, limit: usize) -> Self {
        self.server.limit = Arc::new(CallLimit::new(limit, self.server.limit.waiting()));
        self
    }

    /// At most `limit` calls wait for a running one to finish (default
    /// [`DEFAULT_MAX_QUEUED_CALLS`]; 0 refuses every call past
    /// [`McpServer::max_concurrent_calls`]). A call past both is refused at once: an
    /// `isError` result saying the server is busy.
    pub fn max_queued_calls(mut self, limit: usize) -> Self {
        self.server.limit = Arc::new(CallLimit::new(self.server.limit.running(), limit));
        self
    }

    /// Over HTTP, builds the caller of each request from its head instead of using the
    /// server's one context: typically a bearer token ([`bearer_token`](crate::bearer_token)) looked up to the
    /// signed-in user, as a [`Caller`]: the user's identity and the tools' context for
    /// them. It runs once per HTTP request, before the request reaches rmcp or its body is
    /// read; a [`Rejection`] is sent as the response (401 or 403) and no tool runs.
    /// Transports without requests (stdio, an in-process pipe) keep the context given to
    /// [`McpServer::new`].
    ///
    /// The identity owns the legacy-protocol sessions its requests create: a request from
    /// another identity naming one gets 404, as if it did not exist.
    ///
    /// ```
    /// use toolcall_mcp::{Caller, McpServer, Rejection, bearer_token};
    /// # let toolset: &'static toolcall_runtime::Toolset<u64> = Box::leak(Box::new(toolcall_runtime::Toolset::new(&[], Box::leak(Box::default()), |_, _, _| None)));
    /// // The context is a user id; 0 is the local user of stdio.
    /// let server = McpServer::new(toolset, 0).context_from_request(|request| {
    ///     let token = bearer_token(request).ok_or_else(|| Rejection::unauthorized("no bearer token"))?;
    ///     let user = match token {
    ///         "token-of-1" => 1,
    ///         "token-of-2" => 2,
    ///         _ => return Err(Rejection::unauthorized("unknown token")),
    ///     };
    ///     Ok(Caller::new(format!("user-{user}"), user))
    /// });
    /// ```
    #[cfg(feature = "http")]
    pub fn context_from_request(
        mut self,
        function: impl Fn(&http::request::Parts) -> Result<Caller<C>, Rejection> + Send + Sync + 'static,
    ) -> Self {
        self.server.from_request = Some(Arc::new(move |parts: &http::request::Parts| {
            function(parts).map(|caller| Caller {
                identity: caller.identity,
                context: Arc::new(caller.context) as ErasedContext,
            })
        }));
        self
    }

    /// The HTTP transport's settings (allowed hosts and origins, limits, session store):
    /// see [`HttpSettings`], whose fields document each default. Transports without HTTP
    /// (stdio, an in-process pipe) ignore them.
    #[cfg(feature = "http")]
    pub fn http(mut self, settings: HttpSettings) -> Self {
        self.server.http = settings.at_least_one();
        self
    }

    /// The HTTP settings this server will serve with.
    #[cfg(feature = "http")]
    pub fn http_settings(&self) -> &HttpSettings {
        &self.server.http
    }

    /// The longest stdin line (one message) read over stdio, in bytes (default
    /// [`DEFAULT_MAX_LINE`], 16 MiB). A longer line is not kept: it is reported on stderr
    /// with the limit and, when its `id` can be read from its start, answered with a
    /// JSON-RPC error (-32600).
    pub fn max_line_length(mut self, bytes: usize) -> Self {
        self.server.max_line = bytes.max(1);
        self
    }

    /// Decides, for each request, which tools its caller sees and may call: `filter`
    /// gets the request's context (over HTTP the one `McpServer::context_from_request`
    /// built, else the server's) and a tool's description, and says whether the caller
    /// may use it. A hidden tool is an unknown tool to that caller everywhere: `tools/list`
    /// leaves it out (pages count only the tools shown), and `tools/call` of it gets
    /// exactly the answer an unknown name gets, whose list of known tools holds only the
    /// tools shown. The filter runs once per tool on each `tools/list` and on each call;
    /// keep it quick.
    ///
    /// ```
    /// use toolcall_mcp::McpServer;
    /// # let toolset: &'static toolcall_runtime::Toolset<u64> = Box::leak(Box::new(toolcall_runtime::Toolset::new(&[], Box::leak(Box::default()), |_, _, _| None)));
    /// // The context is a user id; user 2 is a viewer, who gets no destructive tool.
    /// let server = McpServer::new(toolset, 0).tool_filter(|user: &u64, tool| {
    ///     *user != 2 || !tool.is_destructive()
    /// });
    /// ```
    pub fn tool_filter(mut self, filter: impl Fn(&C, &ToolInfo) -> bool + Send + Sync + 'static) -> Self {
        self.server.filter = Some(Arc::new(move |context: &(dyn Any + Send + Sync), info: &ToolInfo| {
            context.downcast_ref::<C>().is_some_and(|context| filter(context, info))
        }));
        self
    }

    /// Puts an OAuth 2.1 resource server in front of `/mcp` (feature `oauth`): every
    /// request needs a bearer token the [`ResourceServer`] verifies (else 401 with
    /// `WWW-Authenticate: Bearer resource_metadata="...", scope="..."`), with the scopes
    /// every request needs (else 403); a `tools/call` of a tool with scopes of its own needs
    /// those too (403 `insufficient_scope`); and the protected-resource metadata is served
    /// at `/.well-known/oauth-protected-resource` (and its path-suffixed form).
    ///
    /// Each tool's scopes are those of its `TOOLS` entry (`ToolMeta::scopes`, in its
    /// [`ToolInfo::scopes`](toolcall_runtime::ToolInfo::scopes)) and those
    /// [`ResourceServer::tool_scopes`] gave it, together; the metadata's
    /// `scopes_supported` lists them all. The server keeps its own resource server knowing
    /// them: a clone of `server` sharing its caches when `server` is shared.
    ///
    /// The verified token reaches [`McpServer::context_from_request`] in the request's
    /// extensions ([`AccessToken::of`]); the token's principal is the request's identity
    /// (the owner of its sessions) unless the request function names another. Transports
    /// without HTTP (stdio) are not affected.
    ///
    /// [`ResourceServer`]: crate::oauth::ResourceServer
    /// [`ResourceServer::tool_scopes`]: crate::oauth::ResourceServer::tool_scopes
    /// [`AccessToken::of`]: crate::oauth::AccessToken::of
    #[cfg(feature = "oauth")]
    pub fn oauth(mut self, server: impl Into<Arc<crate::oauth::ResourceServer>>) -> Self {
        let server = Arc::unwrap_or_clone(server.into()).knowing_scopes_of(self.server.toolset.describe());
        self.server.oauth = Some(Arc::new(server));
        self
    }

    /// The least severe log level sent to a client that has chosen none (default
    /// [`DEFAULT_LOG_LEVEL`], `info`). A client chooses with `logging/setLevel` (for the
    /// rest of its session) or a request's `io.modelcontextprotocol/logLevel` (for that
    /// request, which wins).
    pub fn default_log_level(mut self, level: LogLevel) -> Self {
        self.server.default_log_level = level;
        self
    }

    /// The key that seals the `requestState` of a 2026-07-28 call whose tool asks the
    /// client something ([`Progress::elicit`], `ask`, `elicit_url`, `sample`): 32 secret
    /// bytes. (Feature `ask`, on by default.)
    ///
    /// Protocol 2026-07-28 has no requests from server to client: a question ends the call
    /// with an input-required result (the question and a sealed state holding the answers
    /// so far), and the client calls the tool again with its answer. The tool is then run
    /// again from its start, its questions answered in order from the state, so a tool
    /// must ask before it changes anything (example-app's `remove_note` does); earlier
    /// revisions ask over a request and the tool runs once.
    ///
    /// By default each server makes a random key when built, which its clones (its
    /// sessions) share; servers behind one address (replicas, or a restart while a client
    /// answers) need the same key, or a client's answer reaching another one is refused
    /// (`-32602`, the tool is not run) and it must call again from the start. Keep it out
    /// of clients' reach: with it, a client could forge the answers a tool reads.
    ///
    /// The state is rmcp's HMAC-SHA256 seal (`RequestStateCodec`), bound to the caller's
    /// identity (`McpServer::context_from_request`), the tool and its arguments. It is
    /// signed, not encrypted: it holds the client's own answers, readable by it.
    ///
    /// ```
    /// # let toolset: &'static toolcall_runtime::Toolset = Box::leak(Box::new(toolcall_runtime::Toolset::new(&[], Box::leak(Box::default()), |_, _, _| None)));
    /// // From the deployment's secrets, the same on every replica.
    /// let key: [u8; 32] = *b"an example key, 32 bytes long!!!";
    /// let server = toolcall_mcp::McpServer::new(toolset, ()).request_state_key(key);
    /// ```
    #[cfg(feature = "ask")]
    pub fn request_state_key(mut self, key: [u8; 32]) -> Self {
        self.server.request_states = Arc::new(Sealer::with_key(key, self.server.request_states.ttl));
        self
    }

    /// How long a 2026-07-28 client may take to answer a tool's question (default
    /// `DEFAULT_REQUEST_STATE_TTL`, 15 minutes): past it the answer is refused (`-32602`)
    /// and the client must call again from the start. Count the time a user takes to fill
    /// in a form or finish a sign-in on a page. (Feature `ask`, on by default.)
    #[cfg(feature = "ask")]
    pub fn request_state_ttl(mut self, ttl: Duration) -> Self {
        self.server.request_states = Arc::new(self.server.request_states.lasting(ttl));
        self
    }

    /// Serves `resources` beside the tools (`resources/list`, `resources/templates/list`,
    /// `resources/read`, subscriptions, completions of template variables): see
    /// [`Resources`]. Each read runs with the caller's context. (Feature `resources`, on
    /// by default.)
    #[cfg(feature = "resources")]
    pub fn resources(mut self, resources: Resources<C>) -> Self {
        self.server.resources = Some(Arc::new(resources.table));
        self
    }

    /// Serves `prompts` beside the tools (`prompts/list`, `prompts/get`, completions of
    /// their arguments): see [`Prompts`]. (Feature `prompts`, on by default.)
    #[cfg(feature = "prompts")]
    pub fn prompts(mut self, prompts: Prompts<C>) -> Self {
        self.server.prompts = Some(Arc::new(prompts.table));
        self
    }

    /// Serves a tool defined at run time beside the toolset's: `definition` is sent in
    /// `tools/list` as written (after the toolset's tools, in the order added, less the
    /// fields a client's revision does not define, as theirs are), so a hand-written
    /// JSON Schema keeps every keyword (`$schema`, `$defs`, `additionalProperties`) and
    /// its order; a call of it runs `function` with the caller's context, the arguments
    /// and the call's [`Progress`], under the same call limit, time limit, cancellation
    /// and panic handling as a generated tool, and its result is sent as theirs are (its
    /// JSON text, and `structuredContent` when `definition` has an `outputSchema`).
    ///
    /// The arguments reach `function` as the client sent them: nothing checks them
    /// against the hand-written schema, so `function` checks what it reads (a
    /// [`ToolError::Failed`] goes back to the model as its text). For a run-time tool
    /// whose arguments toolcall should check, describe it with a
    /// [`DynTool`](toolcall_runtime::DynTool) and serve that (the second example).
    ///
    /// A [`McpServer::tool_filter`] sees the tool as a [`ToolInfo`] made from
    /// `definition` (its name, title, description, input and output schemas, and
    /// annotations as `hints`), kept for the life of the program as the generated ones
    /// are. A name the server already serves, or an input schema whose root is not
    /// `"type": "object"` (MCP requires one), is a mistake the server reports when it
    /// starts serving ([`ServeError::Definitions`]).
    ///
    /// ```
    /// use serde_json::json;
    /// use toolcall_mcp::McpServer;
    /// use toolcall_mcp::rmcp::model::Tool;
    /// # let toolset: &'static toolcall_runtime::Toolset = Box::leak(Box::new(toolcall_runtime::Toolset::new(&[], Box::leak(Box::default()), |_, _, _| None)));
    /// let schema = json!({
    ///     "$schema": "https://json-schema.org/draft/2020-12/schema",
    ///     "type": "object",
    ///     "properties": {"word": {"type": "string"}},
    ///     "required": ["word"],
    ///     "additionalProperties": false
    /// });
    /// let schema = schema.as_object().cloned().unwrap_or_default();
    /// let server = McpServer::new(toolset, ()).tool(Tool::new("shout", "Say it loud.", schema), |_ctx, args, _progress| async move {
    ///     let word = args.get("word").and_then(|w| w.as_str()).ok_or_else(|| {
    ///         toolcall_runtime::ToolError::Failed("word: expected a string".to_owned())
    ///     })?;
    ///     Ok(json!(word.to_uppercase()))
    /// });
    /// assert_eq!(server.tools().last().map(|t| t.name.as_ref()), Some("shout"));
    /// ```
    ///
    /// A [`DynTool`](toolcall_runtime::DynTool): its definition rendered by toolcall's
    /// renderer, its arguments checked against its IR before its function runs.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use serde_json::{Value, json};
    /// use toolcall_mcp::McpServer;
    /// use toolcall_runtime::ir::{Param, Tool, Type};
    /// use toolcall_runtime::{DynTool, Format};
    /// # let toolset: &'static toolcall_runtime::Toolset = Box::leak(Box::new(toolcall_runtime::Toolset::new(&[], Box::leak(Box::default()), |_, _, _| None)));
    /// let add = Arc::new(DynTool::new(
    ///     Tool::new("add").param(Param::new("a", Type::integer())).param(Param::new("b", Type::integer())),
    ///     |args| Ok(json!(args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0))),
    /// ));
    /// let definition = serde_json::from_str(&add.render(Format::Mcp, false)).expect("toolcall renders MCP tools");
    /// let server = McpServer::new(toolset, ()).tool(definition, move |_, args, _| {
    ///     let add = Arc::clone(&add);
    ///     async move { add.run(&Value::Object(args)) }
    /// });
    /// ```
    pub fn tool<F, Fut>(mut self, definition: Tool, function: F) -> Self
    where
        F: Fn(Arc<C>, JsonObject, Progress) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, ToolError>> + Send + 'static,
    {
        let function: Arc<AddedFn> = Arc::new(move |context, args, progress| -> AddedFuture {
            match crate::context::typed::<C>(context) {
                Some(context) => Box::pin(function(context, args, progress)),
                None => Box::pin(std::future::ready(Err(crate::context::mismatch::<C>()))),
            }
        });
        self.server.add_tool(definition, function);
        self
    }

    /// Tool search: `tools/list` shows only the tools `search` names always visible and a
    /// `search_tools` tool, which takes a query (and an optional limit) and answers with
    /// the best matching tools' definitions, in `tools/list`'s form for the client's
    /// revision; every tool stays callable by its name, listed or not. For a server of
    /// many tools: a model is sent the few it needs instead of every definition.
    ///
    /// The ranking is the crate's compiled index (`toolcall_build::Builder::tool_search(true)`
    /// in build.rs; without it the tools are indexed at start, with a warning); tools
    /// added with [`McpServer::tool`] are indexed as they are added. A search returns only
    /// tools the caller sees ([`McpServer::tool_filter`]). Why there is no `call_tool`
    /// proxy: [`crate::search`].
    ///
    /// ```
    /// use toolcall_mcp::{McpServer, ToolSearch};
    /// # use example_app::{App, toolset};
    /// # let app = App::demo();
    /// let server = McpServer::new(&toolset::ALL, app).tool_search(ToolSearch::new().always_visible(["whoami"]));
    /// let listed: Vec<&str> = server.tools().iter().map(|t| t.name.as_ref()).collect();
    /// assert!(listed.contains(&"search_tools") && listed.contains(&"get_weather"));
    /// ```
    pub fn tool_search(mut self, search: ToolSearch) -> Self {
        self.server.start_search(search);
        self
    }

    /// Where the server keeps the tasks of its task tools (`ToolMeta::task`), and for how
    /// long: in this process's memory by default ([`TaskSettings::default`]); a
    #[cfg_attr(
        feature = "redis",
        doc = "[`RedisTaskStore`](crate::RedisTaskStore) (feature `redis`) lets any replica answer"
    )]
    #[cfg_attr(not(feature = "redis"), doc = "`RedisTaskStore` (feature `redis`) lets any replica answer")]
    /// for a task another started. (Feature `tasks`, on by default.)
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolcall_mcp::{McpServer, TaskSettings};
    /// # use example_app::{App, toolset};
    /// let mut tasks = TaskSettings::default();
    /// tasks.ttl = Duration::from_secs(600);
    /// let server = McpServer::new(&toolset::ALL, App::demo()).tasks(tasks);
    /// assert_eq!(server.task_settings().ttl, Duration::from_secs(600));
    /// ```
    ///
    /// [`TaskSettings::default`]: crate::TaskSettings
    #[cfg(feature = "tasks")]
    pub fn tasks(mut self, settings: crate::tasks::TaskSettings) -> Self {
        self.server.tasks = settings;
        self
    }

    /// Where and how long tasks are kept ([`McpServer::tasks`]).
    #[cfg(feature = "tasks")]
    pub fn task_settings(&self) -> &crate::tasks::TaskSettings {
        &self.server.tasks
    }

    /// A handle that tells listening clients the server's tools, prompts or resources
    /// changed ([`Notifier`](crate::Notifier)): 2026-07-28 `subscriptions/listen`
    /// streams, and the sessions of earlier revisions.
    pub fn notifier(&self) -> crate::Notifier {
        crate::Notifier {
            listeners: Arc::clone(&self.server.listeners),
            #[cfg(feature = "resources")]
            subscriptions: Arc::clone(&self.server.subscriptions),
        }
    }

    /// The old name of [`McpServer::notifier`]. (Feature `resources`.)
    #[cfg(feature = "resources")]
    #[deprecated(note = "use `McpServer::notifier`")]
    pub fn resource_notifier(&self) -> crate::Notifier {
        self.notifier()
    }

    /// The tool definitions served: the toolset's, as parsed at start (with every output
    /// schema, of any shape, as a client on 2026-07-28 gets them; an earlier revision's
    /// client gets only the object ones), then the ones [`McpServer::tool`] added (every
    /// tool: a [`McpServer::tool_filter`] applies per request).
    pub fn tools(&self) -> &[Tool] {
        &self.server.tools
    }
}

impl Server {
    /// The server for `toolset` with `context`, every setting at its default.
    fn new(toolset: &'static dyn Tools, context: ErasedContext) -> Self {
        let (mut tools, definitions_error) = match parse_tools(toolset) {
            Ok(tools) => (tools, None),
            Err(why) => (Vec::new(), Some(why)),
        };
        let content: BTreeSet<String> =
            toolset.describe().iter().filter(|t| t.returns_content).map(|t| t.name.to_owned()).collect();
        // A content tool claims no output schema, whatever the definitions say.
        for tool in &mut tools {
            if content.contains(tool.name.as_ref()) {
                tool.output_schema = None;
            }
        }
        let places = places_of(&tools);
        let infos = tools.iter().map(|t| toolset.describe().iter().find(|i| i.name == t.name)).collect();
        Server {
            toolset,
            context,
            #[cfg(feature = "http")]
            from_request: None,
            filter: None,
            infos,
            log_level: talk::SessionLevel::default(),
            default_log_level: DEFAULT_LOG_LEVEL,
            #[cfg(feature = "http")]
            http: HttpSettings::default(),
            limit: Arc::new(CallLimit::new(DEFAULT_MAX_CONCURRENT_CALLS, DEFAULT_MAX_QUEUED_CALLS)),
            tools: tools.into(),
            places,
            definitions_error,
            name: "toolcall".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            instructions: None,
            page_size: DEFAULT_PAGE_SIZE,
            list_ttl: DEFAULT_LIST_TTL,
            timeout: DEFAULT_TIMEOUT,
            tool_timeouts: Arc::new(tool_timeouts(toolset)),
            max_line: DEFAULT_MAX_LINE,
            #[cfg(feature = "resources")]
            resources: None,
            #[cfg(feature = "prompts")]
            prompts: None,
            #[cfg(feature = "resources")]
            subscriptions: Arc::default(),
            #[cfg(feature = "resources")]
            session: 0,
            added: Arc::default(),
            #[cfg(feature = "ask")]
            request_states: Arc::new(Sealer::random(DEFAULT_REQUEST_STATE_TTL)),
            inline: Arc::new(crate::inline::Inline::new(crate::inline::DEFAULT_INLINE_BUDGET)),
            #[cfg(feature = "oauth")] // oauth hook
            oauth: None,
            search: None,
            listeners: Arc::default(),
            #[cfg(feature = "tasks")]
            tasks: crate::tasks::TaskSettings::default(),
        }
    }

    /// Adds a tool defined at run time ([`McpServer::tool`]); a mistake in it is kept as
    /// the definitions' error, reported when the server starts serving.
    fn add_tool(&mut self, definition: Tool, function: Arc<AddedFn>) {
        let name = definition.name.to_string();
        let mistake = if self.tools.iter().any(|t| t.name == definition.name) {
            Some(format!("tool `{name}` is served twice (McpServer::tool)"))
        } else if definition.input_schema.get("type").and_then(Value::as_str) != Some("object") {
            Some(format!(
                "tool `{name}`: its input schema's root must be `\"type\": \"object\"` (McpServer::tool)"
            ))
        } else {
            None
        };
        if let Some(mistake) = mistake {
            self.definitions_error.get_or_insert(mistake);
            return;
        }
        Arc::make_mut(&mut self.added).insert(name, function);
        if let Some(searching) = &mut self.search {
            Arc::make_mut(searching).add(self.tools.len(), &definition);
        }
        self.push_definition(definition);
    }

    /// Appends a definition to the tools served, with the description filters see.
    fn push_definition(&mut self, definition: Tool) {
        let info: &'static ToolInfo = Box::leak(Box::new(info_of(&definition)));
        self.infos = self.infos.iter().copied().chain([Some(info)]).collect();
        self.tools = self.tools.iter().cloned().chain([definition]).collect();
        self.places = places_of(&self.tools);
    }

    /// Where the tool named `name` is among the server's tools: a scan of a few names,
    /// a hash map's lookup once they are many (a call of a toolset of thousands, as tool
    /// search serves, does not scan them all).
    pub(crate) fn place_of(&self, name: &str) -> Option<usize> {
        match &self.places {
            Some(places) => places.get(name).copied(),
            None => self.tools.iter().position(|tool| tool.name == name),
        }
    }

    /// Turns tool search on ([`McpServer::tool_search`]): the tools not yet in an index
    /// are indexed (all of them when the toolset has no compiled index), and the search
    /// tool is served beside them.
    fn start_search(&mut self, settings: ToolSearch) {
        let name = settings.tool_name().to_owned();
        let unknown: Vec<&str> =
            settings.always_visible_names().filter(|n| !self.tools.iter().any(|t| t.name == *n)).collect();
        let mistake = if self.search.is_some() {
            Some("tool search is turned on twice (McpServer::tool_search)".to_owned())
        } else if self.tools.iter().any(|t| t.name == name) {
            Some(format!(
                "tool search's tool `{name}` has the name of a tool; choose another with ToolSearch::named"
            ))
        } else if !unknown.is_empty() {
            Some(format!("ToolSearch::always_visible names no tool: {}", unknown.join(", ")))
        } else {
            None
        };
        if let Some(mistake) = mistake {
            self.definitions_error.get_or_insert(mistake);
            return;
        }
        let compiled = self.toolset.is_searchable();
        let mut searching = Searching::new(settings.clone(), compiled);
        let from_toolset = self.toolset.describe().len();
        for (at, tool) in self.tools.iter().enumerate() {
            if !compiled || at >= from_toolset {
                searching.add(at, tool);
            }
        }
        if !compiled {
            log::warn!(
                "tool search: the toolset has no compiled index (call `.tool_search(true)` on the Builder in build.rs); its {from_toolset} tools were indexed at start"
            );
        }
        self.push_definition(crate::search::definition(&settings));
        self.search = Some(Arc::new(searching));
    }

    /// Whether `tools/list` shows the tool at `at`: every tool without search; with it,
    /// the search tool and those named always visible.
    pub(crate) fn listed(&self, at: usize) -> bool {
        let Some(searching) = &self.search else { return true };
        self.tools.get(at).is_some_and(|tool| {
            tool.name == searching.settings.tool_name() || searching.settings.is_always_visible(&tool.name)
        })
    }

    /// A `search_tools` call: the definitions of the tools best matching the query among
    /// those the caller sees and `tools/list` does not show, as a client on `version`
    /// gets them.
    pub(crate) fn search_tools(
        &self,
        ctx: &ErasedContext,
        args: &Value,
        version: Option<&rmcp::model::ProtocolVersion>,
    ) -> Result<Value, ToolError> {
        let Some(searching) = &self.search else {
            return Err(ToolError::Failed("tool search is not on".to_owned()));
        };
        let (query, limit) = searching.settings.read_arguments(args)?;
        let wanted = limit.saturating_mul(4).max(limit);
        let compiled: Vec<(usize, f32)> = if searching.compiled {
            self.toolset
                .search(&query, wanted)
                .into_iter()
                .filter_map(|hit| self.place_of(hit.tool.name).map(|at| (at, hit.score)))
                .collect()
        } else {
            Vec::new()
        };
        let keep =
            |at: usize| !self.listed(at) && self.infos.get(at).is_some_and(|info| self.shows(ctx, *info));
        let found: Vec<&Tool> = searching
            .rank(&query, limit, compiled, keep)
            .into_iter()
            .filter_map(|at| self.tools.get(at))
            .collect();
        Ok(crate::search::found(&found, version))
    }

    /// A clone for a new session: it shares everything but the session's own state
    /// (the log level its client sets).
    pub(crate) fn for_session(&self) -> Self {
        Server {
            log_level: talk::SessionLevel::for_new_session(),
            #[cfg(feature = "resources")]
            session: self.subscriptions.new_session(),
            ..self.clone()
        }
    }

    /// Whether `info` is shown to the caller whose context is `ctx`.
    pub(crate) fn shows(&self, ctx: &ErasedContext, info: Option<&ToolInfo>) -> bool {
        match &self.filter {
            None => true,
            Some(filter) => info.is_some_and(|info| filter(&**ctx, info)),
        }
    }

    /// The tools the caller whose context is `ctx` sees listed, in order (with search on,
    /// only the search tool and those named always visible: [`Server::listed`]).
    pub(crate) fn visible(&self, ctx: &ErasedContext) -> Vec<&Tool> {
        self.tools
            .iter()
            .zip(self.infos.iter())
            .enumerate()
            .filter(|(at, (_, info))| self.listed(*at) && self.shows(ctx, **info))
            .map(|(_, (t, _))| t)
            .collect()
    }

    /// The answer to a call of a tool the caller does not see (or that does not exist):
    /// the unknown-tool error, naming only the tools the caller sees.
    pub(crate) fn unknown_tool(&self, ctx: &ErasedContext, name: &str) -> ErrorData {
        let known = self.visible(ctx).iter().map(|t| t.name.to_string()).collect();
        let error = ToolError::UnknownTool { name: name.to_owned(), known };
        ErrorData::invalid_params(error.to_string(), Some(error.to_value()))
    }

    pub(crate) fn check_definitions(&self) -> Result<(), ServeError> {
        match &self.definitions_error {
            Some(why) => Err(ServeError::Definitions(why.clone())),
            None => Ok(()),
        }
    }

    /// The context of one call without HTTP: the server's.
    #[cfg(not(feature = "http"))]
    pub(crate) fn context_of(&self, _: &RequestContext<RoleServer>) -> Result<ErasedContext, ErrorData> {
        Ok(Arc::clone(&self.context))
    }

    /// The context of one call: the one the request function built for its HTTP request,
    /// else the server's. A request over HTTP without one when the server has a request
    /// function is refused rather than served as the server's context.
    #[cfg(feature = "http")]
    pub(crate) fn context_of(
        &self,
        request: &RequestContext<RoleServer>,
    ) -> Result<ErasedContext, ErrorData> {
        let Some(parts) = request.extensions.get::<http::request::Parts>() else {
            return Ok(Arc::clone(&self.context));
        };
        match (parts.extensions.get::<CallerContext>(), &self.from_request) {
            (Some(caller), _) => Ok(Arc::clone(&caller.0)),
            (None, None) => Ok(Arc::clone(&self.context)),
            (None, Some(_)) => {
                Err(ErrorData::internal_error("this HTTP request carries no identity; it was refused", None))
            }
        }
    }
}

/// The setters of each HTTP setting, from before [`HttpSettings`] was public: kept for a
/// release. Set the fields of [`HttpSettings`] and pass it to [`McpServer::http`].
#[cfg(feature = "http")]
impl<C: Send + Sync + 'static> McpServer<C> {
    /// Sets [`HttpSettings::allowed_hosts`].
    #[deprecated(note = "set `HttpSettings::allowed_hosts` and pass the settings to `McpServer::http`")]
    pub fn allowed_hosts(mut self, hosts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.server.http.allowed_hosts = hosts.into_iter().map(Into::into).collect();
        self
    }

    /// Sets [`HttpSettings::allowed_origins`].
    #[deprecated(note = "set `HttpSettings::allowed_origins` and pass the settings to `McpServer::http`")]
    pub fn allowed_origins(mut self, origins: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.server.http.allowed_origins = origins.into_iter().map(Into::into).collect();
        self
    }

    /// Sets [`HttpSettings::body_limit`].
    #[deprecated(note = "set `HttpSettings::body_limit` and pass the settings to `McpServer::http`")]
    pub fn body_limit(mut self, bytes: usize) -> Self {
        self.server.http.body_limit = bytes;
        self
    }

    /// Sets [`HttpSettings::session_store`].
    #[deprecated(note = "set `HttpSettings::session_store` and pass the settings to `McpServer::http`")]
    pub fn session_store(mut self, store: Arc<dyn SessionStore>) -> Self {
        self.server.http.session_store = Some(store);
        self
    }

    /// Sets [`HttpSettings::max_json_values`].
    #[deprecated(note = "set `HttpSettings::max_json_values` and pass the settings to `McpServer::http`")]
    pub fn max_json_values(mut self, limit: usize) -> Self {
        self.server.http.max_json_values = limit.max(1);
        self
    }

    /// Sets [`HttpSettings::header_timeout`].
    #[deprecated(note = "set `HttpSettings::header_timeout` and pass the settings to `McpServer::http`")]
    pub fn header_timeout(mut self, limit: Duration) -> Self {
        self.server.http.header_timeout = limit;
        self
    }

    /// Sets [`HttpSettings::body_timeout`].
    #[deprecated(note = "set `HttpSettings::body_timeout` and pass the settings to `McpServer::http`")]
    pub fn body_timeout(mut self, limit: Duration) -> Self {
        self.server.http.body_timeout = limit;
        self
    }

    /// Sets [`HttpSettings::idle_timeout`].
    #[deprecated(note = "set `HttpSettings::idle_timeout` and pass the settings to `McpServer::http`")]
    pub fn idle_timeout(mut self, limit: Duration) -> Self {
        self.server.http.idle_timeout = limit;
        self
    }

    /// Sets [`HttpSettings::max_connections`].
    #[deprecated(note = "set `HttpSettings::max_connections` and pass the settings to `McpServer::http`")]
    pub fn max_connections(mut self, limit: usize) -> Self {
        self.server.http.max_connections = limit.max(1);
        self
    }

    /// Sets [`HttpSettings::max_sessions`].
    #[deprecated(note = "set `HttpSettings::max_sessions` and pass the settings to `McpServer::http`")]
    pub fn max_sessions(mut self, limit: usize) -> Self {
        self.server.http.max_sessions = limit.max(1);
        self
    }

    /// Sets [`HttpSettings::max_sessions_per_identity`].
    #[deprecated(
        note = "set `HttpSettings::max_sessions_per_identity` and pass the settings to `McpServer::http`"
    )]
    pub fn max_sessions_per_identity(mut self, limit: usize) -> Self {
        self.server.http.max_sessions_per_identity = limit.max(1);
        self
    }

    /// Sets [`HttpSettings::session_idle_timeout`].
    #[deprecated(
        note = "set `HttpSettings::session_idle_timeout` and pass the settings to `McpServer::http`"
    )]
    pub fn session_idle_timeout(mut self, limit: Duration) -> Self {
        self.server.http.session_idle_timeout = limit;
        self
    }

    /// Sets [`HttpSettings::legacy_sessions`].
    #[deprecated(note = "set `HttpSettings::legacy_sessions` and pass the settings to `McpServer::http`")]
    pub fn legacy_sessions(mut self, sessions: bool) -> Self {
        self.server.http.legacy_sessions = sessions;
        self
    }
}

/// The toolset's MCP definitions as rmcp tools, with every output schema of theirs, of
/// any shape ([`crate::revision::definitions`]).
fn parse_tools(toolset: &dyn Tools) -> Result<Vec<Tool>, String> {
    crate::revision::definitions(toolset)
}

/// The description a [`McpServer::tool_filter`] sees of a tool added at run time: its
/// texts and schemas from `definition`, kept for the life of the program (a `ToolInfo`
/// holds `'static` texts, as generated tables do). The formats' other schemas stay empty:
/// the tool has only its MCP definition.
fn info_of(definition: &Tool) -> ToolInfo {
    fn keep(text: String) -> &'static str {
        Box::leak(text.into_boxed_str())
    }
    fn json<T: toolcall_runtime::serde::Serialize>(value: &T) -> &'static str {
        keep(serde_json::to_string(value).unwrap_or_default())
    }
    let hints = definition.annotations.as_ref().map_or(Annotations::NONE, |a| {
        Annotations::new(a.read_only_hint, a.destructive_hint, a.idempotent_hint, a.open_world_hint)
    });
    ToolInfo {
        name: keep(definition.name.to_string()),
        title: keep(definition.title.clone().unwrap_or_default()),
        description: keep(definition.description.as_deref().unwrap_or_default().to_owned()),
        parameters: json(&*definition.input_schema),
        output: definition.output_schema.as_deref().map(json),
        annotations: definition.annotations.as_ref().map_or("", json),
        hints,
        icons: definition.icons.as_ref().map_or("", json),
        meta: definition.meta.as_ref().map_or("", json),
        ..ToolInfo::EMPTY
    }
}

/// Up to this many tools, [`Server::place_of`] scans their names (most comparisons stop
/// at the length); past it, a hash map answers, at the same cost whatever the number of
/// tools.
const SCANNED_TOOLS: usize = 32;

/// Where each of `tools` is, by name, when they are more than [`SCANNED_TOOLS`].
fn places_of(tools: &[Tool]) -> Option<Arc<HashMap<String, usize>>> {
    (tools.len() > SCANNED_TOOLS)
        .then(|| Arc::new(tools.iter().enumerate().map(|(at, tool)| (tool.name.to_string(), at)).collect()))
}

/// The per-tool time limits the toolset declares.
fn tool_timeouts(toolset: &dyn Tools) -> BTreeMap<&'static str, Duration> {
    toolset.describe().iter().filter_map(|t| Some((t.name, Duration::from_millis(t.timeout_ms?)))).collect()
}
