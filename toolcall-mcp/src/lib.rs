//! # toolcall-mcp
//!
//! Serves a toolcall [`Toolset`] as a Model Context Protocol server, on
//! [rmcp](https://docs.rs/rmcp) (the official Rust SDK: its server handler, its stdio and
//! streamable-HTTP transports and its protocol-version negotiation). The tool definitions
//! are the toolset's precomputed MCP definitions, read once at start; every call goes
//! through [`Toolset::call_reporting`] with the server's context, or over HTTP the context
//! built for its request, and a [`Progress`] whose reports become the client's
//! notifications.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! # mod toolset { pub static ALL: toolcall_runtime::Toolset = toolcall_runtime::Toolset::new(&[], &E, |_, _, _| None); static E: toolcall_runtime::Emitted = toolcall_runtime::Emitted::new(); }
//! use toolcall_mcp::McpServer;
//!
//! let server = McpServer::new(&toolset::ALL, ()).name("my-tools").version("1.0.0");
//! server.serve_stdio().await?; // or: server.serve_http("127.0.0.1:8080".parse()?).await?
//! # Ok(()) }
//! ```
//!
//! - `tools/list` pages through the definitions ([`McpServer::page_size`], 100 by
//!   default); a client that negotiated a protocol version older than 2025-06-18 gets no
//!   `outputSchema`, which that version does not define.
//! - `tools/call`: a result is a text block holding its JSON, plus `structuredContent`
//!   when the tool has an output schema; a tool returning
//!   [`Content`] answers with its content blocks instead
//!   ([Tools that talk back](#tools-that-talk-back)). A [`ToolError`] (bad arguments, a failing or
//!   panicking tool) is a result with `isError: true` that says the error's message once,
//!   in one text block the model reads to correct itself. It has no `structuredContent`
//!   (clients check that against the tool's `outputSchema`, which an error does not
//!   meet); the error's JSON object rides in the result's `_meta` under
//!   [`ERROR_META_KEY`] for programs ([`error_json`] reads it). An unknown tool is the
//!   protocol error the specification asks for (invalid params).
//! - Each call has a time limit (the tool's own `ToolMeta::timeout_ms`, else
//!   [`McpServer::timeout`], 60 s by default), counted from the request's arrival: past
//!   it the call is dropped (the tool is cancelled at its `.await`) and the result says
//!   so, with a JSON object (in `_meta`) like every error result's. A
//!   `notifications/cancelled` from the client drops the call the same way.
//! - At most [`McpServer::max_concurrent_calls`] calls run at once (64 by default), across
//!   every session; [`McpServer::max_queued_calls`] more wait in line (256), and a call
//!   past both is refused at once with an `isError` result saying the server is busy.
//!
//! ## Tools that talk back
//!
//! - **Progress.** A tool taking `&toolcall_runtime::Progress` reports with
//!   `progress.report(done, total, message)`. When the `tools/call` request carried
//!   `_meta.progressToken`, each report becomes a `notifications/progress` with that
//!   token, `progress` = `done`, `total` when known and `message` when not empty, sent to
//!   that client before the call's result (over HTTP, on the request's own stream).
//!   Without a token, reports are dropped. A report whose `done` is not larger than the
//!   last one sent is dropped (MCP requires progress to increase).
//! - **Logging.** The server declares the `logging` capability. `progress.log(level,
//!   message)` becomes a `notifications/message` with that `level`, `logger` = the tool's
//!   name and `data` = the message, when the level is at or above the one in force: the
//!   request's own `_meta` `io.modelcontextprotocol/logLevel` if it has one, else the
//!   level the session set with `logging/setLevel`, else [`DEFAULT_LOG_LEVEL`] (`info`:
//!   before a client asks, `debug` messages are not sent; change it with
//!   [`McpServer::default_log_level`]). The level set is per session: each stdio
//!   connection and each HTTP session has its own, and a request of a 2026-07-28 client
//!   has only its `_meta` level: without one it gets no log message at all (that
//!   revision forbids logging for a request that set no level). Over HTTP with a session, rmcp sends log
//!   messages on the session's standalone GET stream, not the request's.
//! - **Never blocking the tool.** Reports are queued (at most [`MAX_QUEUED_REPORTS`] per
//!   call; past it they are dropped, and the number dropped is logged with `log::warn!`)
//!   and sent, in order, by the call's own task, the last ones before the result. A call
//!   that is cancelled or times out drops what is still queued.
//! - **Rich results.** A tool whose [`ToolInfo::returns_content`] is true returns
//!   `Content` or `Vec<Content>`: its result is those blocks (`text`, `image`, `audio`,
//!   `resource_link`, `resource` with `text` or base64 `blob`) in `content`, with no
//!   `structuredContent`, and its definition has no `outputSchema`.
//! - **Per-caller tool lists.** [`McpServer::tool_filter`] decides, for each request,
//!   which tools its caller sees and may call, from the request's context and each tool's
//!   [`ToolInfo`] (its annotations: hide destructive tools from viewers). A hidden tool is
//!   an unknown tool to that caller: `tools/list` leaves it out and pages count only the
//!   tools shown; `tools/call` answers exactly as for an unknown name (invalid params),
//!   listing only the tools shown as known and suggesting none of the hidden ones. Over
//!   stdio the context is the server's; over HTTP, the one
//!   [`McpServer::context_from_request`] built for the request.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! # mod toolset { pub static ALL: toolcall_runtime::Toolset<u64> = toolcall_runtime::Toolset::new(&[], &E, |_, _, _| None); static E: toolcall_runtime::Emitted = toolcall_runtime::Emitted::new(); }
//! use toolcall_mcp::{Caller, McpServer, Rejection, bearer_token};
//! use toolcall_runtime::ToolInfo;
//!
//! fn destructive(tool: &ToolInfo) -> bool {
//!     tool.hints.destructive == Some(true) // or tool.is_destructive()
//! }
//!
//! // The context is the user id; user 2 is a viewer, who neither sees nor runs
//! // destructive tools.
//! let server = McpServer::new(&toolset::ALL, 1)
//!     .context_from_request(|request| match bearer_token(request) {
//!         Some("t1") => Ok(Caller::new("user-1", 1)),
//!         Some("t2") => Ok(Caller::new("user-2", 2)),
//!         _ => Err(Rejection::unauthorized("unknown token")),
//!     })
//!     .tool_filter(|user: &u64, tool: &ToolInfo| *user != 2 || !destructive(tool));
//! server.serve_http("127.0.0.1:8080".parse()?).await?;
//! # Ok(()) }
//! ```
//!
//! ## Over HTTP
//!
//! [`McpServer::serve_http`] serves rmcp's streamable-HTTP transport at `/mcp`, with
//! rmcp's checks and safe defaults, hardened in front of it:
//!
//! - **Identity per request.** [`McpServer::context_from_request`] turns each request's
//!   head into a [`Caller`]: an identity and the tools' context for it (a bearer token ->
//!   the signed-in user), so every caller's tools act as that caller and no model can
//!   choose who it is. A request the function refuses gets its [`Rejection`] (401 or 403)
//!   and reaches no tool. Without it, every request gets the server's one context (stdio
//!   always does).
//! - **Sessions belong to their identity.** A legacy-protocol session is owned by the
//!   identity that initialized it; to anyone else it does not exist (404, for POST, GET,
//!   DELETE and notifications alike).
//! - **DNS rebinding.** `Host` must be a loopback name ([`McpServer::allowed_hosts`]);
//!   a browser `Origin` must be a loopback page ([`McpServer::allowed_origins`]); any
//!   other is refused with 403. Requests without `Origin` (not from a browser) pass.
//!   This is the first check of every request, before authentication: a foreign `Host`
//!   or `Origin` is 403 with or without a token, never 401.
//! - **Limits**, each with a builder method: bodies over 4 MiB are 413, at once when
//!   declared ([`McpServer::body_limit`]); a request head must arrive within 10 s of the
//!   connection or of its first byte ([`McpServer::header_timeout`]), a body within 30 s
//!   ([`McpServer::body_timeout`], else 408), and an idle keep-alive connection closes
//!   after 60 s ([`McpServer::idle_timeout`]), all before authentication; at most 512
//!   connections ([`McpServer::max_connections`], then 503), 1,000 sessions
//!   ([`McpServer::max_sessions`]: the least recently used idle one is closed to make
//!   room, 503 with `Retry-After` when all are busy), one standalone GET stream per
//!   session (a second is 409); error results are bounded (no reply over 64 KiB).
//! - **Fairness.** Decoding arguments and running sync tools happen on tokio's blocking
//!   pool, and a large body is parsed in `block_in_place`: a big request never stalls the
//!   async workers that answer everyone else.
//! - **Replicas.** Clients on protocol 2026-07-28 are served statelessly: any replica
//!   answers any request. Clients on older versions hold a session: send them back to
//!   the same replica (sticky sessions on `Mcp-Session-Id`), share a
//!   [`McpServer::session_store`] so another replica restores the session (its owner is
//!   stored with it), or serve without sessions ([`McpServer::legacy_sessions`]).
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! # mod toolset { pub static ALL: toolcall_runtime::Toolset<String> = toolcall_runtime::Toolset::new(&[], &E, |_, _, _| None); static E: toolcall_runtime::Emitted = toolcall_runtime::Emitted::new(); }
//! use toolcall_mcp::{Caller, McpServer, Rejection, bearer_token};
//!
//! // The context is the signed-in user's name here; stdio would serve as "local".
//! let server = McpServer::new(&toolset::ALL, "local".to_owned())
//!     .context_from_request(|request| match bearer_token(request) {
//!         Some("ada-token") => Ok(Caller::new("ada", "ada".to_owned())),
//!         Some(_) => Err(Rejection::unauthorized("unknown token")),
//!         None => Err(Rejection::unauthorized("send Authorization: Bearer TOKEN")),
//!     });
//! server.serve_http("127.0.0.1:8080".parse()?).await?;
//! # Ok(()) }
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData, Implementation,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ServerHandler, ServiceExt};
use serde_json::Value;
use toolcall_runtime::{Content, Format, LogLevel, Progress, ToolError, ToolInfo, Toolset};

mod conn;
mod limit;
mod rebinding;
mod sessions;
mod stdio;
mod streamable_http;
mod talk;

/// The `http` crate, whose request head ([`http::request::Parts`]) the request function
/// reads.
pub use axum::http;
pub use rmcp::transport::streamable_http_server::session::{SessionState, SessionStore, SessionStoreError};
pub use streamable_http::{
    Caller, DEFAULT_BODY_LIMIT, DEFAULT_BODY_TIMEOUT, DEFAULT_HEADER_TIMEOUT, DEFAULT_IDLE_TIMEOUT,
    DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_JSON_VALUES, DEFAULT_MAX_SESSIONS,
    DEFAULT_MAX_SESSIONS_PER_IDENTITY, DEFAULT_SESSION_IDLE_TIMEOUT, LOOPBACK_ORIGINS, Rejection, RequestFn,
    bearer_token,
};

use limit::CallLimit;
use streamable_http::{Arrived, CallerContext, HttpSettings};

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
/// The most progress and log reports of one call waiting to be sent; past it, a report
/// is dropped rather than held (the tool never waits on the client).
pub const MAX_QUEUED_REPORTS: usize = talk::QUEUE;
/// No error result is larger than this once encoded (the JSON-RPC reply around it adds
/// well under 4 KiB): past it, its text is cut and its JSON object reduced.
pub const MAX_ERROR_RESULT: usize = 60 * 1024;

/// The `_meta` key of a failed call's result that holds the error's JSON object
/// (`{"error": "invalid_arguments", ..}`): see [`error_json`]. Never `structuredContent`,
/// which clients check against the tool's output schema.
pub const ERROR_META_KEY: &str = "rs.toolcall/error";

/// Why the server could not start or stopped with an error.
#[derive(Debug)]
pub enum ServeError {
    /// The toolset's MCP definitions did not parse as rmcp tools (a toolcall bug).
    Definitions(String),
    /// The transport failed (binding the address, stdio closed mid-message, ...).
    Transport(String),
}

impl std::fmt::Display for ServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServeError::Definitions(why) => write!(f, "the toolset's MCP definitions do not parse: {why}"),
            ServeError::Transport(why) => write!(f, "MCP transport error: {why}"),
        }
    }
}

impl std::error::Error for ServeError {}

/// Which tools a caller sees and may call ([`McpServer::tool_filter`]).
pub type ToolFilter<C> = dyn Fn(&C, &ToolInfo) -> bool + Send + Sync;

/// An MCP server for one toolset and its context. Cheap to clone: the streamable-HTTP
/// transport makes one per session (and per stateless request); the clones share the
/// call limit.
pub struct McpServer<C: Send + Sync + 'static> {
    toolset: &'static Toolset<C>,
    context: Arc<C>,
    from_request: Option<Arc<RequestFn<C>>>,
    filter: Option<Arc<ToolFilter<C>>>,
    /// The description of each of `tools`, in the same order (`None` only if the
    /// definitions and the descriptions disagree, a toolcall bug: then hidden by a filter).
    infos: Arc<[Option<&'static ToolInfo>]>,
    /// Tools whose result is `Content` blocks.
    content: Arc<BTreeSet<String>>,
    /// The log level this session set (`logging/setLevel`); fresh for each session.
    log_level: talk::SessionLevel,
    default_log_level: LogLevel,
    http: HttpSettings,
    limit: Arc<CallLimit>,
    tools: Arc<[Tool]>,
    structured: Arc<BTreeSet<String>>,
    definitions_error: Option<String>,
    name: String,
    version: String,
    instructions: Option<String>,
    page_size: usize,
    /// How long a 2026-07-28 client may keep a `tools/list` answer.
    list_ttl: Duration,
    timeout: Duration,
    /// Tools with their own time limit (`ToolMeta::timeout_ms`), which replaces `timeout`.
    tool_timeouts: Arc<BTreeMap<&'static str, Duration>>,
    max_line: usize,
}

impl<C: Send + Sync + 'static> Clone for McpServer<C> {
    fn clone(&self) -> Self {
        McpServer {
            toolset: self.toolset,
            context: Arc::clone(&self.context),
            from_request: self.from_request.clone(),
            filter: self.filter.clone(),
            infos: Arc::clone(&self.infos),
            content: Arc::clone(&self.content),
            log_level: self.log_level.clone(),
            default_log_level: self.default_log_level,
            http: self.http.clone(),
            limit: Arc::clone(&self.limit),
            tools: Arc::clone(&self.tools),
            structured: Arc::clone(&self.structured),
            definitions_error: self.definitions_error.clone(),
            name: self.name.clone(),
            version: self.version.clone(),
            instructions: self.instructions.clone(),
            page_size: self.page_size,
            list_ttl: self.list_ttl,
            timeout: self.timeout,
            tool_timeouts: Arc::clone(&self.tool_timeouts),
            max_line: self.max_line,
        }
    }
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
        let structured =
            tools.iter().filter(|t| t.output_schema.is_some()).map(|t| t.name.to_string()).collect();
        let infos = tools.iter().map(|t| toolset.describe().iter().find(|i| i.name == t.name)).collect();
        McpServer {
            toolset,
            context,
            from_request: None,
            filter: None,
            infos,
            content: Arc::new(content),
            log_level: talk::SessionLevel::default(),
            default_log_level: DEFAULT_LOG_LEVEL,
            http: HttpSettings::default(),
            limit: Arc::new(CallLimit::new(DEFAULT_MAX_CONCURRENT_CALLS, DEFAULT_MAX_QUEUED_CALLS)),
            tools: tools.into(),
            structured: Arc::new(structured),
            definitions_error,
            name: "toolcall".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            instructions: None,
            page_size: DEFAULT_PAGE_SIZE,
            list_ttl: DEFAULT_LIST_TTL,
            timeout: DEFAULT_TIMEOUT,
            tool_timeouts: Arc::new(tool_timeouts(toolset)),
            max_line: DEFAULT_MAX_LINE,
        }
    }

    /// The server name sent in `initialize` (default `toolcall`).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The server version sent in `initialize` (default: this crate's version).
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = version.into();
        self
    }

    /// Instructions for the client's model, sent in `initialize`.
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.instructions = Some(text.into());
        self
    }

    /// Tools per `tools/list` page (at least 1; default [`DEFAULT_PAGE_SIZE`]).
    pub fn page_size(mut self, size: usize) -> Self {
        self.page_size = size.max(1);
        self
    }

    /// How long a client on protocol 2026-07-28 may keep a `tools/list` answer before
    /// asking again (its `ttlMs`; default [`DEFAULT_LIST_TTL`]). The list is compiled into
    /// the server, so it changes only with a new build. Its `cacheScope` is `public` (one
    /// list for every caller) unless a [`McpServer::tool_filter`] makes it per caller,
    /// then `private`.
    pub fn list_ttl(mut self, ttl: Duration) -> Self {
        self.list_ttl = ttl;
        self
    }

    /// The time limit of one `tools/call` (default [`DEFAULT_TIMEOUT`]), counted from the
    /// request's arrival (over HTTP, when its head was read), so time spent waiting for
    /// the body, for a call slot or in line counts.
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.timeout = limit;
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
        self.limit = Arc::new(CallLimit::new(limit, self.limit.waiting()));
        self
    }

    /// At most `limit` calls wait for a running one to finish (default
    /// [`DEFAULT_MAX_QUEUED_CALLS`]; 0 refuses every call past
    /// [`McpServer::max_concurrent_calls`]). A call past both is refused at once: an
    /// `isError` result saying the server is busy.
    pub fn max_queued_calls(mut self, limit: usize) -> Self {
        self.limit = Arc::new(CallLimit::new(self.limit.running(), limit));
        self
    }

    /// Over HTTP, builds the caller of each request from its head instead of using the
    /// server's one context: typically a bearer token ([`bearer_token`]) looked up to the
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
    pub fn context_from_request(
        mut self,
        function: impl Fn(&http::request::Parts) -> Result<Caller<C>, Rejection> + Send + Sync + 'static,
    ) -> Self {
        self.from_request = Some(Arc::new(function));
        self
    }

    /// The `Host` header values accepted over HTTP, as names or `name:port` (default: the
    /// loopback names `localhost`, `127.0.0.1` and `::1`, on any port). Any other `Host`
    /// is refused with 403: this is what stops DNS rebinding. A server reached by other
    /// names lists them; an empty list accepts any `Host` (put authentication in front).
    ///
    /// ```
    /// # let toolset: &'static toolcall_runtime::Toolset = Box::leak(Box::new(toolcall_runtime::Toolset::new(&[], Box::leak(Box::default()), |_, _, _| None)));
    /// let server = toolcall_mcp::McpServer::new(toolset, ()).allowed_hosts(["mcp.example.com"]);
    /// ```
    pub fn allowed_hosts(mut self, hosts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.http.hosts = hosts.into_iter().map(Into::into).collect();
        self
    }

    /// The browser origins whose pages may call the server over HTTP, as
    /// `scheme://host:port` (`:*` for any port; default [`LOOPBACK_ORIGINS`]). A request
    /// with any other `Origin` is refused with 403; an empty list refuses every request
    /// with an `Origin`. Requests without one (not from a browser) are not affected.
    ///
    /// ```
    /// # let toolset: &'static toolcall_runtime::Toolset = Box::leak(Box::new(toolcall_runtime::Toolset::new(&[], Box::leak(Box::default()), |_, _, _| None)));
    /// let server = toolcall_mcp::McpServer::new(toolset, ()).allowed_origins(["https://app.example.com:443"]);
    /// ```
    pub fn allowed_origins(mut self, origins: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.http.origins = origins.into_iter().map(Into::into).collect();
        self
    }

    /// The largest request body accepted over HTTP, in bytes (default
    /// [`DEFAULT_BODY_LIMIT`], 4 MiB); a larger one is refused with 413.
    pub fn body_limit(mut self, bytes: usize) -> Self {
        self.http.body_limit = bytes;
        self
    }

    /// A store of HTTP sessions shared by replicas: a session begun on one replica is
    /// restored on another when a request for it arrives there (rmcp replays the
    /// client's `initialize`). Only clients on protocol versions before 2026-07-28 have
    /// sessions.
    pub fn session_store(mut self, store: Arc<dyn SessionStore>) -> Self {
        self.http.session_store = Some(store);
        self
    }

    /// The most JSON values (scalars, arrays, objects) one request body may hold (default
    /// [`DEFAULT_MAX_JSON_VALUES`], 100,000); a body over 64 KiB holding more is refused
    /// with 413 before it is parsed. Parsing costs memory per value: rmcp's parse of a
    /// 4 MiB body of 300,000 one-digit members peaks near 100 MiB.
    pub fn max_json_values(mut self, limit: usize) -> Self {
        self.http.max_json_values = limit.max(1);
        self
    }

    /// The time a client has to send a request head over HTTP (default
    /// [`DEFAULT_HEADER_TIMEOUT`], 10 s): from the connection's opening, or from the first
    /// byte of the next request on a kept-alive connection. Past it the connection is
    /// closed, before any authentication. Only with [`McpServer::serve_http`] and
    /// [`McpServer::serve_http_on`], which own the connections.
    pub fn header_timeout(mut self, limit: Duration) -> Self {
        self.http.header_timeout = limit;
        self
    }

    /// The time a client has to send a request body over HTTP, from the end of its head
    /// (default [`DEFAULT_BODY_TIMEOUT`], 30 s); past it the answer is 408 and the
    /// connection is closed.
    pub fn body_timeout(mut self, limit: Duration) -> Self {
        self.http.body_timeout = limit;
        self
    }

    /// How long a kept-alive HTTP connection may wait for its next request (default
    /// [`DEFAULT_IDLE_TIMEOUT`], 60 s), and a response may wait on a client that does not
    /// read it; past it the connection is closed. Only with [`McpServer::serve_http`] and
    /// [`McpServer::serve_http_on`].
    pub fn idle_timeout(mut self, limit: Duration) -> Self {
        self.http.idle_timeout = limit;
        self
    }

    /// At most this many HTTP connections open at once (default
    /// [`DEFAULT_MAX_CONNECTIONS`], 512; keep it under the process's file-descriptor
    /// limit); a connection past it is answered 503 and closed. Only with
    /// [`McpServer::serve_http`] and [`McpServer::serve_http_on`].
    pub fn max_connections(mut self, limit: usize) -> Self {
        self.http.max_connections = limit.max(1);
        self
    }

    /// At most this many legacy-protocol sessions live at once (default
    /// [`DEFAULT_MAX_SESSIONS`], 1,000). A new session past it closes the least recently
    /// used one with no request in progress (its client gets 404 and initializes again, as
    /// after expiry); when every session is busy, the new one is refused with 503 and
    /// `Retry-After`.
    pub fn max_sessions(mut self, limit: usize) -> Self {
        self.http.max_sessions = limit.max(1);
        self
    }

    /// At most this many live sessions per identity, when requests carry identities
    /// ([`McpServer::context_from_request`]; default
    /// [`DEFAULT_MAX_SESSIONS_PER_IDENTITY`], 100, never more than
    /// [`McpServer::max_sessions`]). A new session past it closes that identity's least
    /// recently used idle session, so one caller's flood never closes another's sessions;
    /// when all of its sessions are busy, the new one is refused with 429 and
    /// `Retry-After`.
    pub fn max_sessions_per_identity(mut self, limit: usize) -> Self {
        self.http.max_sessions_per_identity = limit.max(1);
        self
    }

    /// How long a legacy-protocol session lives without a request (default
    /// [`DEFAULT_SESSION_IDLE_TIMEOUT`], 5 min, rmcp's).
    pub fn session_idle_timeout(mut self, limit: Duration) -> Self {
        self.http.session_idle_timeout = limit;
        self
    }

    /// The longest stdin line (one message) read over stdio, in bytes (default
    /// [`DEFAULT_MAX_LINE`], 16 MiB). A longer line is not kept: it is reported on stderr
    /// with the limit and, when its `id` can be read from its start, answered with a
    /// JSON-RPC error (-32600).
    pub fn max_line_length(mut self, bytes: usize) -> Self {
        self.max_line = bytes.max(1);
        self
    }

    /// Whether clients on protocol versions before 2026-07-28 get an HTTP session (default
    /// `true`). With `false`, each of their requests is served on its own, like every
    /// 2026-07-28 request, so any replica can answer it; the server can then send nothing
    /// outside a request's own response.
    pub fn legacy_sessions(mut self, sessions: bool) -> Self {
        self.http.legacy_sessions = sessions;
        self
    }

    /// Decides, for each request, which tools its caller sees and may call: `filter`
    /// gets the request's context (over HTTP the one [`McpServer::context_from_request`]
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
        self.filter = Some(Arc::new(filter));
        self
    }

    /// The least severe log level sent to a client that has chosen none (default
    /// [`DEFAULT_LOG_LEVEL`], `info`). A client chooses with `logging/setLevel` (for the
    /// rest of its session) or a request's `io.modelcontextprotocol/logLevel` (for that
    /// request, which wins).
    pub fn default_log_level(mut self, level: LogLevel) -> Self {
        self.default_log_level = level;
        self
    }

    /// The tool definitions served, as parsed at start (every tool: a
    /// [`McpServer::tool_filter`] applies per request).
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// A clone for a new session: it shares everything but the session's own state
    /// (the log level its client sets).
    fn for_session(&self) -> Self {
        McpServer { log_level: talk::SessionLevel::default(), ..self.clone() }
    }

    /// Whether `info` is shown to the caller whose context is `ctx`.
    fn shows(&self, ctx: &C, info: Option<&ToolInfo>) -> bool {
        match &self.filter {
            None => true,
            Some(filter) => info.is_some_and(|info| filter(ctx, info)),
        }
    }

    /// The tools the caller whose context is `ctx` sees, in order.
    fn visible(&self, ctx: &C) -> Vec<&Tool> {
        self.tools
            .iter()
            .zip(self.infos.iter())
            .filter(|(_, info)| self.shows(ctx, **info))
            .map(|(t, _)| t)
            .collect()
    }

    /// The answer to a call of a tool the caller does not see (or that does not exist):
    /// the unknown-tool error, naming only the tools the caller sees.
    fn unknown_tool(&self, ctx: &C, name: &str) -> ErrorData {
        let known = self.visible(ctx).iter().map(|t| t.name.to_string()).collect();
        let error = ToolError::UnknownTool { name: name.to_owned(), known };
        ErrorData::invalid_params(error.to_string(), Some(error.to_value()))
    }

    fn check_definitions(&self) -> Result<(), ServeError> {
        match &self.definitions_error {
            Some(why) => Err(ServeError::Definitions(why.clone())),
            None => Ok(()),
        }
    }

    /// Serves over stdin/stdout until the client disconnects. Nothing but protocol
    /// messages is written to stdout; log to stderr. A line over
    /// [`McpServer::max_line_length`] is reported on stderr and answered when it has an id.
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
        self.serve_lines(tokio::io::stdin(), tokio::io::stdout()).await
    }

    /// [`McpServer::serve_stdio`] over any reader and writer of lines (a pipe, a socket).
    pub async fn serve_lines(
        self,
        input: impl tokio::io::AsyncRead + Unpin + Send + 'static,
        output: impl tokio::io::AsyncWrite + Unpin + Send + 'static,
    ) -> Result<(), ServeError> {
        self.check_definitions()?;
        let transport = |e: std::io::Error| ServeError::Transport(e.to_string());
        let (to_rmcp, rmcp_in) = tokio::io::duplex(64 * 1024);
        let (rmcp_out, from_rmcp) = tokio::io::duplex(64 * 1024);
        let (replies, answered) = tokio::sync::mpsc::channel(16);
        let reader = tokio::spawn(stdio::read_lines(input, to_rmcp, self.max_line, replies));
        let writer = tokio::spawn(stdio::write_lines(from_rmcp, output, answered));
        let lines = rmcp::transport::async_rw::AsyncRwTransport::<RoleServer, _, _>::new(rmcp_in, rmcp_out)
            .with_max_line_length(usize::MAX);
        let running =
            self.for_session().serve(lines).await.map_err(|e| ServeError::Transport(e.to_string()))?;
        let served = running.waiting().await.map_err(|e| ServeError::Transport(e.to_string()));
        reader.abort();
        if let Ok(written) = writer.await {
            written.map_err(transport)?;
        }
        served.map(drop)
    }

    /// Serves streamable HTTP at `/mcp` on `addr` until the process ends. It binds what it
    /// is given; with the default allowed hosts, only requests to a loopback name are
    /// answered.
    pub async fn serve_http(self, addr: SocketAddr) -> Result<(), ServeError> {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| ServeError::Transport(format!("{addr}: {e}")))?;
        self.serve_http_on(listener).await
    }

    /// Serves streamable HTTP at `/mcp` on a bound listener (bind port 0 and read
    /// `local_addr` to let the OS pick a port), with the connection limits
    /// ([`McpServer::header_timeout`], [`McpServer::idle_timeout`],
    /// [`McpServer::max_connections`]). Bound to a loopback address other than the
    /// default names (`127.0.0.2`), that address is allowed as a `Host`.
    pub async fn serve_http_on(mut self, listener: tokio::net::TcpListener) -> Result<(), ServeError> {
        if let Ok(addr) = listener.local_addr() {
            self.http.allow_bound_loopback(addr.ip());
            if !addr.ip().is_loopback() && self.http.loopback_only() {
                log::warn!(
                    "serving on {addr}, but only loopback Host names are allowed: \
                     requests to other names get 403 (set allowed_hosts)"
                );
            }
        }
        let limits = conn::Limits::of(&self.http);
        let max_connections = self.http.max_connections;
        let router = self.router()?;
        conn::serve(listener, router, limits, max_connections).await
    }

    /// The streamable-HTTP service at `/mcp` as an axum router, with every check of
    /// [`McpServer::serve_http`] that lives in a request (identity, sessions, body limit
    /// and time limit, caps on sessions and streams, bounded errors), to serve with other
    /// routes (a health check), behind TLS or on a listener of your own. The limits on
    /// connections (head and idle time limits, their number) belong to whatever serves
    /// the connections: set them there.
    pub fn router(self) -> Result<axum::Router, ServeError> {
        self.check_definitions()?;
        Ok(streamable_http::router(self))
    }

    /// The context of one call: the one the request function built for its HTTP request,
    /// else the server's. A request over HTTP without one when the server has a request
    /// function is refused rather than served as the server's context.
    fn context_of(&self, request: &RequestContext<RoleServer>) -> Result<Arc<C>, ErrorData> {
        let Some(parts) = request.extensions.get::<http::request::Parts>() else {
            return Ok(Arc::clone(&self.context));
        };
        match (parts.extensions.get::<CallerContext<C>>(), &self.from_request) {
            (Some(caller), _) => Ok(Arc::clone(&caller.0)),
            (None, None) => Ok(Arc::clone(&self.context)),
            (None, Some(_)) => {
                Err(ErrorData::internal_error("this HTTP request carries no identity; it was refused", None))
            }
        }
    }

    /// One page of the definitions the caller whose context is `ctx` sees, for a client
    /// on `version`.
    fn page(
        &self,
        ctx: &C,
        cursor: Option<&str>,
        version: Option<&ProtocolVersion>,
    ) -> Result<ListToolsResult, ErrorData> {
        let visible = self.visible(ctx);
        let start = match cursor {
            None => 0,
            Some(text) => text
                .parse::<usize>()
                .ok()
                .filter(|start| *start <= visible.len())
                .ok_or_else(|| ErrorData::invalid_params(format!("invalid cursor {text:?}"), None))?,
        };
        let end = (start + self.page_size).min(visible.len());
        let old = version.filter(|v| !is_at_least(v, &ProtocolVersion::V_2025_06_18));
        let tools = visible[start..end]
            .iter()
            .copied()
            .map(|tool| match old {
                Some(version) => without_newer_fields(tool, version),
                None => tool.clone(),
            })
            .collect();
        let mut result = ListToolsResult::with_all_items(tools);
        result.next_cursor = (end < visible.len()).then(|| end.to_string());
        if version.is_some_and(|v| is_at_least(v, &ProtocolVersion::V_2026_07_28)) {
            // Fixed at build time: cacheable long, and by anyone unless filtered per caller.
            result.ttl_ms = Some(u64::try_from(self.list_ttl.as_millis()).unwrap_or(u64::MAX));
            result.cache_scope = Some(if self.filter.is_some() {
                rmcp::model::CacheScope::Private
            } else {
                rmcp::model::CacheScope::Public
            });
        }
        Ok(result)
    }

    /// Runs one call with `context`, in a slot of the call limit and within the time
    /// limit counted from `arrived` (the wait for a slot included); the call's future is
    /// dropped on timeout or when `cancelled` resolves. Decoding and a sync tool run on
    /// the blocking pool ([`off_worker`]). The tool reports to `progress`; `talk`, when
    /// given, forwards those reports to the client while the call runs.
    #[allow(clippy::too_many_arguments)]
    async fn run(
        &self,
        context: Arc<C>,
        name: &str,
        args: Value,
        arrived: Instant,
        cancelled: impl std::future::Future<Output = ()>,
        progress: Progress,
        talk: Option<talk::Talk>,
    ) -> Result<CallToolResult, ErrorData> {
        let started = std::sync::atomic::AtomicBool::new(false);
        let toolset = self.toolset;
        let call = async {
            let slot = self.limit.enter().await?;
            started.store(true, std::sync::atomic::Ordering::SeqCst);
            let work = off_worker(toolset, context, name.to_owned(), args, progress, slot);
            Ok::<_, limit::Busy>(match talk {
                Some(talk) => talk.around(work).await,
                None => work.await,
            })
        };
        let deadline = tokio::time::Instant::from_std(arrived + self.limit_of(name));
        let outcome = tokio::select! {
            outcome = call => outcome,
            () = tokio::time::sleep_until(deadline) => {
                let started = started.load(std::sync::atomic::Ordering::SeqCst);
                let message = self.timed_out(name, started);
                let json = serde_json::json!({
                    "error": "timeout",
                    "tool": cut(name, 120),
                    "limit_ms": u64::try_from(self.limit_of(name).as_millis()).unwrap_or(u64::MAX),
                    "started": started,
                    "message": message,
                });
                return Ok(error_result(&message, Some(json)));
            }
            () = cancelled => return Err(ErrorData::internal_error("the call was cancelled by the client", None)),
        };
        match outcome {
            Ok(Ok(value)) => Ok(self.success(name, value)),
            Ok(Err(error @ ToolError::UnknownTool { .. })) => {
                Err(ErrorData::invalid_params(error.to_string(), Some(error.to_value())))
            }
            Ok(Err(error)) => Ok(error_result(&error.to_string(), Some(error.to_value()))),
            Err(busy) => Ok(error_result(
                &format!(
                    "the server is busy: {} calls are running and {} are waiting, its limits; \
                     tool `{name}` was not run, try again later",
                    busy.running, busy.waiting
                ),
                Some(serde_json::json!({"error": "busy", "running": busy.running, "waiting": busy.waiting})),
            )),
        }
    }

    fn success(&self, name: &str, value: Value) -> CallToolResult {
        if self.content.contains(name)
            && let Some(blocks) = content_blocks(&value)
        {
            return CallToolResult::success(blocks);
        }
        let mut result = CallToolResult::success(vec![ContentBlock::text(value.to_string())]);
        if self.structured.contains(name) && value.is_object() {
            result.structured_content = Some(value);
        }
        result
    }

    /// The time limit of one call of `name`: its own, or the server's.
    fn limit_of(&self, name: &str) -> Duration {
        self.tool_timeouts.get(name).copied().unwrap_or(self.timeout)
    }

    fn timed_out(&self, name: &str, started: bool) -> String {
        let limit = human(self.limit_of(name));
        let whose = if self.tool_timeouts.contains_key(name) {
            "the tool's time limit"
        } else {
            "the server's time limit per call"
        };
        let name = cut(name, 120);
        if started {
            format!("tool `{name}` did not finish within {limit} ({whose}); it was cancelled")
        } else {
            format!(
                "tool `{name}` did not start within {limit} ({whose}): \
                 all {} call slots stayed busy; it was not run",
                self.limit.running()
            )
        }
    }
}

/// Whether `version` is revision `since` or a later one (revisions are dates, so their
/// text orders them).
pub(crate) fn is_at_least(version: &ProtocolVersion, since: &ProtocolVersion) -> bool {
    version.as_str() >= since.as_str()
}

/// The toolset's MCP definitions as rmcp tools.
fn parse_tools<C>(toolset: &Toolset<C>) -> Result<Vec<Tool>, String> {
    serde_json::from_str(toolset.emit(Format::Mcp, false)).map_err(|e| e.to_string())
}

/// A content tool's result (one block or an array, as [`Content`] serializes) as rmcp's
/// content blocks; `None` when it is not blocks.
fn content_blocks(value: &Value) -> Option<Vec<ContentBlock>> {
    Content::blocks(value)?
        .iter()
        .map(|block| serde_json::to_value(block).ok().and_then(|json| serde_json::from_value(json).ok()))
        .collect()
}

/// The per-tool time limits the toolset declares.
fn tool_timeouts<C>(toolset: &Toolset<C>) -> BTreeMap<&'static str, Duration> {
    toolset.describe().iter().filter_map(|t| Some((t.name, Duration::from_millis(t.timeout_ms?)))).collect()
}

/// A tool without the fields a protocol version before 2025-06-18 does not define
/// (`outputSchema`, `title`), nor, before 2025-03-26, `annotations`.
fn without_newer_fields(tool: &Tool, version: &ProtocolVersion) -> Tool {
    let mut tool = tool.clone();
    tool.output_schema = None;
    tool.title = None;
    if !is_at_least(version, &ProtocolVersion::V_2025_03_26) {
        tool.annotations = None;
    }
    tool
}

/// An `isError` result: the message, said once, in one text block (what a model reads),
/// and the error's JSON object under [`ERROR_META_KEY`] in the result's `_meta` when there
/// is one (what a program reads, with [`error_json`]). No `structuredContent`: a client
/// validates that against the tool's `outputSchema`, which an error never satisfies (the
/// TypeScript SDK throws on the mismatch instead of showing the model the error). At most
/// [`MAX_ERROR_RESULT`] bytes encoded (past it, the message is cut to 2,000 characters and
/// the JSON object reduced to its `error`, that message and `"truncated": true`).
fn error_result(message: &str, json: Option<Value>) -> CallToolResult {
    let build = |message: &str, json: Option<Value>| {
        let mut result = CallToolResult::error(vec![ContentBlock::text(message.to_owned())]);
        if let Some(json) = json {
            let mut meta = rmcp::model::MetaObject::new();
            meta.insert(ERROR_META_KEY.to_owned(), json);
            result.meta = Some(meta);
        }
        result
    };
    let kind = json.as_ref().and_then(|v| v.get("error").cloned());
    let result = build(message, json);
    let size = serde_json::to_vec(&result).map_or(usize::MAX, |bytes| bytes.len());
    if size <= MAX_ERROR_RESULT {
        return result;
    }
    let short = cut(message, 2000);
    let reduced = serde_json::json!({"error": kind, "message": short, "truncated": true});
    build(&short, Some(reduced))
}

/// The error's JSON object of an `isError` result this server sent (`{"error": kind, ..}`,
/// as [`ToolError::to_value`] gives it, or a `timeout` or `busy` object): the value under
/// [`ERROR_META_KEY`] in the result's `_meta`. `None` for a success, or a result from
/// another server.
pub fn error_json(result: &CallToolResult) -> Option<&Value> {
    result.meta.as_ref()?.get(ERROR_META_KEY)
}

/// `text`, or its first `max` characters and `…`.
fn cut(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(max) {
        None => std::borrow::Cow::Borrowed(text),
        Some((end, _)) => std::borrow::Cow::Owned(format!("{}…", &text[..end])),
    }
}

/// Calls tool `name` with the owned `context`, `args` and `progress`, its first poll (argument
/// decoding, and the whole of a sync tool) on tokio's blocking pool, holding `slot` until
/// that part is over even if the caller stops waiting (a sync tool cannot be stopped);
/// an async tool's later polls run on the caller's task, and dropping the future cancels
/// it.
async fn off_worker<C: Send + Sync + 'static>(
    toolset: &'static Toolset<C>,
    context: Arc<C>,
    name: String,
    args: Value,
    progress: Progress,
    slot: tokio::sync::OwnedSemaphorePermit,
) -> Result<Value, ToolError> {
    type Call = Pin<Box<dyn Future<Output = Result<Value, ToolError>> + Send>>;
    let call: Call = Box::pin(async move { toolset.call_reporting(&context, &name, &args, &progress).await });
    let first = tokio::task::spawn_blocking(move || {
        let mut call = call;
        // The waker of this poll is never used: the caller's task polls again at once,
        // which registers its own (a future wakes only the waker of its latest poll).
        match call.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(result) => Ok(result),
            Poll::Pending => Err((call, slot)),
        }
    })
    .await;
    match first {
        Ok(Ok(result)) => result,
        Ok(Err((call, _slot))) => call.await,
        Err(error) => Err(ToolError::Panicked(format!("the call's thread failed: {error}"))),
    }
}

/// When the request of `context` arrived: its HTTP head's arrival, else now.
fn arrival(context: &RequestContext<RoleServer>) -> Instant {
    context
        .extensions
        .get::<http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<Arrived>())
        .map_or_else(Instant::now, |arrived| arrived.0)
}

fn human(limit: Duration) -> String {
    if limit.subsec_millis() == 0 {
        format!("{} s", limit.as_secs())
    } else {
        format!("{} ms", limit.as_millis())
    }
}

impl<C: Send + Sync + 'static> ServerHandler for McpServer<C> {
    fn get_info(&self) -> ServerConfig {
        // rmcp marks MCP logging deprecated (SEP-2577, a future protocol); every version
        // up to 2025-11-25 has it.
        #[allow(deprecated)]
        let capabilities = ServerCapabilities::builder().enable_tools().enable_logging().build();
        let mut config = ServerConfig::new(capabilities)
            .with_server_info(Implementation::new(self.name.clone(), self.version.clone()));
        if let Some(text) = &self.instructions {
            config = config.with_instructions(text.clone());
        }
        config
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let caller = self.context_of(&context)?;
        let cursor = request.as_ref().and_then(|r| r.cursor.as_deref());
        self.page(&caller, cursor, context.protocol_version().as_ref())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let caller = self.context_of(&context)?;
        let arrived = arrival(&context);
        let shown = self.tools.iter().position(|t| t.name == request.name);
        if !shown.is_some_and(|i| self.shows(&caller, self.infos[i])) {
            return Err(self.unknown_tool(&caller, &request.name));
        }
        let args = Value::Object(request.arguments.unwrap_or_default());
        let (progress, talk) =
            talk::Talk::new(&context, &self.log_level, self.default_log_level, &request.name);
        let cancelled = context.ct.cancelled_owned();
        self.run(caller, &request.name, args, arrived, cancelled, progress, Some(talk)).await.map(Into::into)
    }

    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let level = talk::level_of(request.level)
            .ok_or_else(|| ErrorData::invalid_params("unknown log level", None))?;
        self.log_level.set(level);
        Ok(())
    }

    /// A tool's definition, for rmcp's checks of a request's `Mcp-Param-*` headers. With a
    /// [`McpServer::tool_filter`] this knows no caller, so it names no tool (the checks
    /// then read the headers alone): a hidden tool answers as an unknown one here too.
    fn get_tool(&self, name: &str) -> Option<Tool> {
        if self.filter.is_some() {
            return None;
        }
        self.tools.iter().find(|t| t.name == name).cloned()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    static EMPTY: Toolset = Toolset::new(&[], &EMPTY_EMITTED, |_, _, _| None);
    static EMPTY_EMITTED: toolcall_runtime::Emitted = toolcall_runtime::Emitted::new();

    fn text(result: &CallToolResult) -> String {
        result
            .content
            .iter()
            .filter_map(|c| c.as_text())
            .map(|t| t.text.clone())
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[tokio::test]
    async fn a_call_that_never_gets_a_slot_says_it_did_not_start() {
        let server = McpServer::new(&EMPTY, ()).max_concurrent_calls(1).timeout(Duration::from_millis(20));
        let _held = server.limit.enter().await.unwrap();
        let result = server
            .run(
                Arc::new(()),
                "anything",
                Value::Null,
                Instant::now(),
                std::future::pending(),
                Progress::default(),
                None,
            )
            .await
            .unwrap();
        assert_eq!(result.is_error, Some(true));
        let message = "tool `anything` did not start within 20 ms (the server's time limit per call): \
             all 1 call slots stayed busy; it was not run";
        assert_eq!(result.content[0].as_text().unwrap().text, message);
        assert_eq!(result.content.len(), 1, "the message is said once");
        assert_eq!(result.structured_content, None, "no client may check an error against an output schema");
        let json = error_json(&result).cloned().unwrap();
        assert_eq!(
            json,
            serde_json::json!({"error": "timeout", "tool": "anything", "limit_ms": 20, "started": false, "message": message})
        );
    }

    #[tokio::test]
    async fn the_time_limit_counts_from_the_arrival() {
        let server = McpServer::new(&EMPTY, ()).max_concurrent_calls(1).timeout(Duration::from_secs(3));
        let _held = server.limit.enter().await.unwrap();
        let arrived = Instant::now() - Duration::from_millis(2900);
        let begun = Instant::now();
        let result = server
            .run(
                Arc::new(()),
                "anything",
                Value::Null,
                arrived,
                std::future::pending(),
                Progress::default(),
                None,
            )
            .await
            .unwrap();
        assert_eq!(result.is_error, Some(true));
        assert!(begun.elapsed() < Duration::from_secs(2), "{:?}: 2.9 of the 3 s had passed", begun.elapsed());
    }

    #[test]
    fn error_results_are_bounded() {
        let small = error_result("short", Some(serde_json::json!({"error": "x"})));
        assert_eq!(text(&small), "short");
        assert_eq!(error_json(&small), Some(&serde_json::json!({"error": "x"})));
        assert_eq!(small.structured_content, None);
        let huge = "\u{1}".repeat(200_000);
        let result = error_result(&huge, Some(serde_json::json!({"error": "failed", "detail": huge})));
        let size = serde_json::to_vec(&result).unwrap().len();
        assert!(size <= MAX_ERROR_RESULT, "{size}");
        let json = error_json(&result).cloned().unwrap();
        assert_eq!(json["error"], "failed");
        assert_eq!(json["truncated"], true);
    }

    #[tokio::test]
    async fn a_call_past_the_line_is_refused_as_busy() {
        let server = McpServer::new(&EMPTY, ()).max_concurrent_calls(1).max_queued_calls(0);
        let held = server.limit.enter().await.unwrap();
        let result = server
            .run(
                Arc::new(()),
                "anything",
                Value::Null,
                Instant::now(),
                std::future::pending(),
                Progress::default(),
                None,
            )
            .await
            .unwrap();
        assert_eq!(result.is_error, Some(true));
        assert!(text(&result).starts_with("the server is busy: 1 calls are running and 0 are waiting"));
        assert_eq!(error_json(&result), Some(&serde_json::json!({"error":"busy","running":1,"waiting":0})));
        assert_eq!(result.structured_content, None);
        drop(held);
        // The slot is free: the call runs (and finds no such tool).
        let unknown = server
            .run(
                Arc::new(()),
                "anything",
                Value::Null,
                Instant::now(),
                std::future::pending(),
                Progress::default(),
                None,
            )
            .await;
        assert!(unknown.is_err());
    }
}
