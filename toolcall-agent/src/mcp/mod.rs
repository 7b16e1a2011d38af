//! MCP servers as toolsets (the `mcp` feature): [`McpToolset`] says how to reach a server
//! (a command line run as a child process over stdio, or a streamable HTTP URL with
//! headers or a bearer token) and which of its tools to offer, under what prefix;
//! [`McpToolset::connect`] starts it through rmcp's client and lists its tools
//! ([`McpTools`]); [`Agent::mcp`](crate::Agent::mcp) offers them beside the compiled
//! toolset.
//!
//! - Listing follows every page (`nextCursor`); a `notifications/tools/list_changed` from
//!   the server has the tools listed again before the run's next request.
//! - Each tool's `inputSchema` is read into toolcall's IR (see `schema`) and rendered by
//!   the one renderer for the provider, under the rules compiled tools follow; a schema
//!   a strict mode cannot take faithfully goes non-strict, with a warning
//!   ([`McpTools::warnings`], and the `log` facade at warn level).
//! - The model's arguments are checked by the IR validator first (an error goes back to
//!   the model as a compiled tool's would, and counts against
//!   [`Agent::tool_retries`](crate::Agent::tool_retries)); the call's result goes back as
//!   a compiled tool's: its `structuredContent`'s JSON, else its text, images as image
//!   blocks where the provider takes them; `isError` as a failed call; a JSON-RPC
//!   `-32602` (invalid params) as a refusal the model should fix.
//! - A tool annotated `destructiveHint: true` goes through
//!   [`Agent::approve`](crate::Agent::approve); [`McpToolset::ask_unless_read_only`]
//!   asks about every tool not annotated `readOnlyHint: true` (the MCP specification's
//!   default reading of an unannotated tool).
//! - Progress the server reports for a call is [`Event::Progress`](crate::Event::Progress)
//!   of that call.

mod schema;

use std::collections::HashMap;
use std::fmt;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientCapabilities, ClientRequest, ErrorCode, Implementation,
    InitializeRequestParams, ProgressNotificationParam, ServerResult,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RoleClient, RunningService, ServiceError};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, ServiceExt};
use serde_json::Value;
use toolcall_runtime::{Content, DynTool, Progress, ToolError, ToolFailure};

use crate::error::AgentError;
use crate::external::{BoxFuture, ExternalTool, Returned, Source, ToolList};

/// The longest tool name every provider takes (`^[a-zA-Z0-9_-]{1,64}$`).
const MAX_NAME: usize = 64;

type Filter = Arc<dyn Fn(&McpToolInfo) -> bool + Send + Sync>;

/// How to reach an MCP server, and which of its tools to offer: build one, then
/// [`connect`](McpToolset::connect) it.
///
/// ```no_run
/// # async fn run() -> Result<(), toolcall_agent::AgentError> {
/// use toolcall_agent::McpToolset;
///
/// let files = McpToolset::stdio("npx -y @modelcontextprotocol/server-filesystem /tmp")?
///     .prefix("fs")
///     .filter(|tool| !tool.destructive)
///     .connect()
///     .await?;
/// let search = McpToolset::http("https://mcp.example.com/mcp").bearer("s3cret").connect().await?;
/// # let _ = (files, search);
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct McpToolset {
    transport: Transport,
    prefix: Option<String>,
    filter: Option<Filter>,
    timeout: Option<Duration>,
    ask_unless_read_only: bool,
}

#[derive(Clone)]
enum Transport {
    Stdio { program: String, args: Vec<String>, env: Vec<(String, String)>, stderr: bool },
    Http { url: String, headers: Vec<(String, String)>, token: Option<String> },
}

impl fmt::Debug for McpToolset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpToolset")
            .field("server", &self.label())
            .field("prefix", &self.prefix)
            .field("filter", &self.filter.is_some())
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl McpToolset {
    /// A server run as `program args..`, spoken to over its stdin and stdout. Its stderr
    /// is this process's unless [`McpToolset::quiet`].
    pub fn command<S: Into<String>>(program: impl Into<String>, args: impl IntoIterator<Item = S>) -> Self {
        let args = args.into_iter().map(Into::into).collect();
        McpToolset::with(Transport::Stdio { program: program.into(), args, env: Vec::new(), stderr: true })
    }

    /// A server run from a command line (`python server.py --flag 'two words'`): split on
    /// whitespace, with single quotes, double quotes and backslashes as a POSIX shell
    /// reads them (no variables, globs or pipes). An empty line or an open quote is
    /// [`AgentError::Config`].
    pub fn stdio(command_line: &str) -> Result<Self, AgentError> {
        let mut words = split_command_line(command_line)?.into_iter();
        let program =
            words.next().ok_or_else(|| AgentError::Config("the MCP command line is empty".to_owned()))?;
        Ok(McpToolset::command(program, words))
    }

    /// A server at a streamable HTTP endpoint (`http://127.0.0.1:8000/mcp`; https with
    /// the `rustls` feature).
    pub fn http(url: impl Into<String>) -> Self {
        McpToolset::with(Transport::Http { url: url.into(), headers: Vec::new(), token: None })
    }

    /// `http://` and `https://` as [`McpToolset::http`], anything else as a command line
    /// ([`McpToolset::stdio`]): what a command-line option takes.
    pub fn parse(server: &str) -> Result<Self, AgentError> {
        let lower = server.trim_start().to_ascii_lowercase();
        if lower.starts_with("http://") || lower.starts_with("https://") {
            Ok(McpToolset::http(server.trim()))
        } else {
            McpToolset::stdio(server)
        }
    }

    fn with(transport: Transport) -> Self {
        McpToolset { transport, prefix: None, filter: None, timeout: None, ask_unless_read_only: false }
    }

    /// Offers the server's tools as `{prefix}_{name}`, so two servers (or a server and the
    /// compiled toolset) may each have a `search`. Without one, a name taken twice ends
    /// the run with [`AgentError::Config`].
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = Some(prefix.into()).filter(|prefix| !prefix.is_empty());
        self
    }

    /// Offers only the tools `keep` returns `true` for (it sees each tool's name as
    /// offered and as the server has it, its description and annotations).
    pub fn filter(mut self, keep: impl Fn(&McpToolInfo) -> bool + Send + Sync + 'static) -> Self {
        self.filter = Some(Arc::new(keep));
        self
    }

    /// Offers only the tools named `names` (the server's names).
    pub fn only<S: Into<String>>(self, names: impl IntoIterator<Item = S>) -> Self {
        let names: Vec<String> = names.into_iter().map(Into::into).collect();
        self.filter(move |tool| names.contains(&tool.server_name))
    }

    /// How long one call may take; past it, the server is told the call is cancelled and
    /// the model that it did not finish. None by default.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Asks [`Agent::approve`](crate::Agent::approve) about every tool not annotated
    /// `readOnlyHint: true`, as the MCP specification reads a tool without annotations
    /// (it may be destructive), not only about tools annotated `destructiveHint: true`.
    pub fn ask_unless_read_only(mut self, ask: bool) -> Self {
        self.ask_unless_read_only = ask;
        self
    }

    /// Sets an environment variable of the server's process (stdio only).
    pub fn env(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        if let Transport::Stdio { env, .. } = &mut self.transport {
            env.push((name.into(), value.into()));
        }
        self
    }

    /// Discards what the server's process writes to its stderr (stdio only).
    pub fn quiet(mut self) -> Self {
        if let Transport::Stdio { stderr, .. } = &mut self.transport {
            *stderr = false;
        }
        self
    }

    /// Sends a header with every request (HTTP only).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        if let Transport::Http { headers, .. } = &mut self.transport {
            headers.push((name.into(), value.into()));
        }
        self
    }

    /// Sends `Authorization: Bearer {token}` with every request (HTTP only).
    pub fn bearer(mut self, token: impl Into<String>) -> Self {
        if let Transport::Http { token: slot, .. } = &mut self.transport {
            *slot = Some(token.into());
        }
        self
    }

    /// The command line or URL, for messages.
    fn label(&self) -> String {
        match &self.transport {
            Transport::Stdio { program, args, .. } => {
                std::iter::once(program).chain(args).map(String::as_str).collect::<Vec<_>>().join(" ")
            }
            Transport::Http { url, .. } => url.clone(),
        }
    }

    /// Starts the server (or opens the HTTP session), initializes it and lists its tools.
    /// A server that cannot be started, does not initialize or cannot list its tools is
    /// [`AgentError::Mcp`]; a header that cannot be sent is [`AgentError::Config`].
    pub async fn connect(self) -> Result<McpTools, AgentError> {
        let label = self.label();
        let fail = |message: String| AgentError::Mcp { server: label.clone(), message };
        let shared = Arc::new(Shared::default());
        let listener = Listener { shared: Arc::clone(&shared) };
        let service = match &self.transport {
            Transport::Stdio { program, args, env, stderr } => {
                let mut command = tokio::process::Command::new(program);
                command.args(args).envs(env.iter().map(|(k, v)| (k, v)));
                let stderr = if *stderr { Stdio::inherit() } else { Stdio::null() };
                let (transport, _) = TokioChildProcess::builder(command)
                    .stderr(stderr)
                    .spawn()
                    .map_err(|e| fail(format!("cannot start `{program}`: {e}")))?;
                listener.serve(transport).await.map_err(|e| fail(format!("cannot initialize: {e}")))?
            }
            Transport::Http { url, headers, token } => {
                check_url(url)?;
                let mut custom = HashMap::new();
                for (name, value) in headers {
                    let name = reqwest::header::HeaderName::from_bytes(name.as_bytes())
                        .map_err(|_| AgentError::Config(format!("`{name}` is not an HTTP header name")))?;
                    let mut value = reqwest::header::HeaderValue::from_str(value).map_err(|_| {
                        AgentError::Config(format!(
                            "the value of header `{name}` is not a valid HTTP header value"
                        ))
                    })?;
                    value.set_sensitive(true);
                    custom.insert(name, value);
                }
                let mut config =
                    StreamableHttpClientTransportConfig::with_uri(url.as_str()).custom_headers(custom);
                if let Some(token) = token {
                    config = config.auth_header(token.clone());
                }
                let transport = StreamableHttpClientTransport::with_client(reqwest::Client::new(), config);
                listener.serve(transport).await.map_err(|e| fail(format!("cannot initialize: {e}")))?
            }
        };
        let name = service.peer_info().and_then(|info| info.server_info.as_ref().map(|s| s.name.clone()));
        let connection = Connection {
            label,
            name: name.unwrap_or_default(),
            service,
            shared,
            settings: self,
            listed: Mutex::new(Listed::default()),
            listing: tokio::sync::Mutex::new(()),
        };
        connection.list().await?;
        Ok(McpTools { connection: Arc::new(connection) })
    }
}

/// One tool of a connected server, as [`McpTools::tools`] and [`McpToolset::filter`] see it.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct McpToolInfo {
    /// The name the model calls it by: the prefix and the server's name, made a valid
    /// tool name (`^[a-zA-Z0-9_-]{1,64}$`).
    pub name: String,
    /// The server's name for it.
    pub server_name: String,
    /// Its title, when the server gives one.
    pub title: Option<String>,
    /// Its description ("" when none).
    pub description: String,
    /// Its `inputSchema`, as the server sent it.
    pub input_schema: Value,
    /// Annotated `readOnlyHint: true`.
    pub read_only: bool,
    /// Annotated `destructiveHint: true`.
    pub destructive: bool,
    /// Why its schema cannot be sent strict (empty when it can): a strict agent sends
    /// this tool non-strict.
    pub not_strict: Vec<String>,
}

/// A connected MCP server's tools, ready for [`Agent::mcp`](crate::Agent::mcp). Clones
/// share the connection; it closes when the last clone (and the last agent holding one)
/// is dropped, or at [`McpTools::close`].
#[derive(Clone)]
pub struct McpTools {
    connection: Arc<Connection>,
}

impl fmt::Debug for McpTools {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpTools")
            .field("server", &self.connection.label)
            .field("name", &self.connection.name)
            .field("tools", &self.connection.lock().infos.iter().map(|t| t.name.clone()).collect::<Vec<_>>())
            .finish()
    }
}

impl McpTools {
    /// The server's name for itself (`serverInfo.name`; "" when it gave none).
    pub fn server_name(&self) -> &str {
        &self.connection.name
    }

    /// The command line or URL it was reached at.
    pub fn label(&self) -> &str {
        &self.connection.label
    }

    /// The tools offered, as last listed.
    pub fn tools(&self) -> Vec<McpToolInfo> {
        self.connection.lock().infos.clone()
    }

    /// What the last listing warned about: each tool sent non-strict and why, each tool
    /// left out (a name taken twice once made valid).
    pub fn warnings(&self) -> Vec<String> {
        self.connection.lock().warnings.clone()
    }

    /// Lists the tools again now.
    pub async fn refresh(&self) -> Result<(), AgentError> {
        self.connection.list().await
    }

    /// Whether the server said its tools changed since they were last listed.
    pub fn changed(&self) -> bool {
        self.connection.shared.changed.load(Ordering::SeqCst)
    }

    /// Ends the session (the child process is stopped), whatever other clones hold:
    /// their calls fail from then on.
    pub fn close(&self) {
        self.connection.service.cancellation_token().cancel();
    }

    pub(crate) fn source(&self) -> Arc<dyn Source> {
        Arc::clone(&self.connection) as Arc<dyn Source>
    }
}

/// What the client handler shares with the connection.
#[derive(Default)]
struct Shared {
    /// The server said its tools changed.
    changed: AtomicBool,
    /// The running calls' progress, by progress token (its JSON text).
    calls: Mutex<HashMap<String, Progress>>,
}

/// The client side of the session: notes list changes, passes progress on.
struct Listener {
    shared: Arc<Shared>,
}

impl ClientHandler for Listener {
    fn get_info(&self) -> InitializeRequestParams {
        InitializeRequestParams::new(
            ClientCapabilities::default(),
            Implementation::new("toolcall-agent", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn on_tool_list_changed(&self, _: NotificationContext<RoleClient>) {
        self.shared.changed.store(true, Ordering::SeqCst);
    }

    async fn on_progress(&self, params: ProgressNotificationParam, _: NotificationContext<RoleClient>) {
        let key = serde_json::to_string(&params.progress_token).unwrap_or_default();
        let progress = self.shared.calls.lock().unwrap_or_else(PoisonError::into_inner).get(&key).cloned();
        if let Some(progress) = progress {
            let whole = |n: f64| if n.is_finite() && n >= 0.0 { n as u64 } else { 0 };
            progress.report(
                whole(params.progress),
                params.total.map(whole),
                params.message.unwrap_or_default(),
            );
        }
    }
}

/// The last listing.
#[derive(Default)]
struct Listed {
    tools: Option<Arc<ToolList>>,
    infos: Vec<McpToolInfo>,
    warnings: Vec<String>,
}

/// A connected server.
struct Connection {
    label: String,
    name: String,
    service: RunningService<RoleClient, Listener>,
    shared: Arc<Shared>,
    settings: McpToolset,
    listed: Mutex<Listed>,
    /// One listing at a time.
    listing: tokio::sync::Mutex<()>,
}

impl Connection {
    fn lock(&self) -> std::sync::MutexGuard<'_, Listed> {
        self.listed.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn error(&self, message: String) -> AgentError {
        AgentError::Mcp { server: self.label.clone(), message }
    }

    /// Lists every page of tools, reads each one's schema, keeps the ones the filter
    /// keeps under their offered names.
    async fn list(&self) -> Result<(), AgentError> {
        let _one = self.listing.lock().await;
        self.shared.changed.store(false, Ordering::SeqCst);
        let listed = self
            .service
            .peer()
            .list_all_tools()
            .await
            .map_err(|e| self.error(format!("cannot list its tools: {e}")))?;
        let mut tools = Vec::new();
        let mut infos = Vec::new();
        let mut warnings = Vec::new();
        for tool in listed {
            let server_name = tool.name.to_string();
            let name = offered_name(self.settings.prefix.as_deref(), &server_name);
            let annotations = tool.annotations.as_ref();
            let read_only = annotations.and_then(|a| a.read_only_hint) == Some(true);
            let destructive = annotations.and_then(|a| a.destructive_hint) == Some(true);
            let title = tool.title.clone().or_else(|| annotations.and_then(|a| a.title.clone()));
            let description = tool.description.as_deref().unwrap_or_default().to_owned();
            let imported =
                schema::import(&name, title.as_deref().unwrap_or(""), &description, &tool.input_schema);
            let info = McpToolInfo {
                name: name.clone(),
                server_name: server_name.clone(),
                title,
                description,
                input_schema: Value::Object((*tool.input_schema).clone()),
                read_only,
                destructive,
                not_strict: imported.not_strict.clone(),
            };
            if self.settings.filter.as_ref().is_some_and(|keep| !keep(&info)) {
                continue;
            }
            if infos.iter().any(|other: &McpToolInfo| other.name == name) {
                warnings.push(format!(
                    "MCP server `{}`: tool `{server_name}` is left out: its name as offered, `{name}`, is another tool's",
                    self.label
                ));
                continue;
            }
            if !imported.not_strict.is_empty() {
                warnings.push(format!(
                    "MCP server `{}`: tool `{name}` is sent non-strict: {}",
                    self.label,
                    imported.not_strict.join("; ")
                ));
            }
            // The IR validator, returning the arguments it accepted, normalised.
            let checker = imported.checkable.then(|| {
                DynTool::new(imported.tool.clone(), |arguments| Ok(Value::Object(arguments.clone())))
            });
            let destructive = destructive || (self.settings.ask_unless_read_only && !read_only);
            tools.push(ExternalTool {
                name,
                remote: server_name,
                tool: imported.tool,
                checker,
                not_strict: imported.not_strict,
                destructive,
            });
            infos.push(info);
        }
        for warning in &warnings {
            log::warn!("{warning}");
        }
        let namespace = match (self.settings.prefix.as_deref(), self.name.as_str()) {
            (Some(prefix), _) => offered_name(None, prefix),
            (None, "") => "mcp".to_owned(),
            (None, name) => offered_name(None, name),
        };
        let tools = Arc::new(ToolList::new(tools, namespace));
        let mut listed = self.lock();
        *listed = Listed { tools: Some(tools), infos, warnings };
        Ok(())
    }
}

impl Source for Connection {
    fn label(&self) -> &str {
        &self.label
    }

    fn current(&self) -> Arc<ToolList> {
        self.lock().tools.clone().unwrap_or_else(|| Arc::new(ToolList::new(Vec::new(), "mcp")))
    }

    fn tools(&self) -> BoxFuture<'_, Result<Arc<ToolList>, AgentError>> {
        Box::pin(async move {
            if self.shared.changed.load(Ordering::SeqCst) || self.lock().tools.is_none() {
                self.list().await?;
            }
            Ok(self.current())
        })
    }

    fn call<'a>(
        &'a self,
        tool: &'a ExternalTool,
        arguments: Value,
        progress: Progress,
    ) -> BoxFuture<'a, Result<Returned, ToolError>> {
        Box::pin(async move {
            let mut params = CallToolRequestParams::new(tool.remote.clone());
            if let Value::Object(arguments) = arguments {
                params = params.with_arguments(arguments);
            }
            // Feature `otel`: the call's `execute_tool` span's trace context (SEP-414).
            #[cfg(feature = "otel")]
            for (key, value) in crate::trace_context::current() {
                params.meta.get_or_insert_with(Default::default).insert(key, Value::String(value));
            }
            let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
            let mut options = PeerRequestOptions::no_options();
            options.timeout = self.settings.timeout;
            let failed =
                |e: &dyn fmt::Display| ToolError::Failed(format!("MCP server `{}`: {e}", self.label));
            let handle = self
                .service
                .peer()
                .send_cancellable_request(request, options)
                .await
                .map_err(|e| failed(&e))?;
            let key = serde_json::to_string(&handle.progress_token).unwrap_or_default();
            if progress.is_reporting() {
                self.shared
                    .calls
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .insert(key.clone(), progress);
            }
            let response = handle.await_response().await;
            self.shared.calls.lock().unwrap_or_else(PoisonError::into_inner).remove(&key);
            match response {
                Ok(ServerResult::CallToolResult(result)) => {
                    returned(serde_json::to_value(&result).unwrap_or(Value::Null))
                }
                Ok(_) => Err(failed(&"the server answered the call with something other than a tool result")),
                Err(ServiceError::McpError(error)) if error.code == ErrorCode::INVALID_PARAMS => {
                    Err(ToolError::Reported(
                        ToolFailure::retry(error.message.into_owned()).with_code("invalid_params"),
                    ))
                }
                Err(ServiceError::Timeout { timeout }) => Err(ToolError::Failed(format!(
                    "tool `{}` did not finish within {} ms (the MCP server's time limit); it was cancelled",
                    tool.name,
                    timeout.as_millis()
                ))),
                Err(error) => Err(failed(&error)),
            }
        })
    }
}

/// A `CallToolResult` (as JSON) as the model reads it: `isError` a failure with its text;
/// else the `structuredContent`'s JSON, or the text blocks joined, or (with images,
/// audio, resources) every block, described for providers without a place for them.
fn returned(result: Value) -> Result<Returned, ToolError> {
    let blocks: Vec<Content> = result
        .get("content")
        .and_then(Value::as_array)
        .map(|blocks| blocks.iter().filter_map(|block| Content::from_value(block).ok()).collect())
        .unwrap_or_default();
    let text = || blocks.iter().map(Content::describe).collect::<Vec<_>>().join("\n");
    if result.get("isError") == Some(&Value::Bool(true)) {
        return Err(ToolError::Failed(text()));
    }
    if let Some(structured) = result.get("structuredContent").filter(|value| !value.is_null()) {
        // A string (2026-07-28 allows any JSON) is read as its text, as a text block is.
        let content = structured.as_str().map_or_else(|| structured.to_string(), str::to_owned);
        return Ok(Returned { content, blocks: Vec::new() });
    }
    let only_text = blocks.iter().all(|block| matches!(block, Content::Text(_)));
    let content = text();
    Ok(Returned { content, blocks: if only_text { Vec::new() } else { blocks } })
}

/// `{prefix}_{name}` with every character a provider refuses as `_`, cut to 64.
fn offered_name(prefix: Option<&str>, name: &str) -> String {
    let full = match prefix {
        Some(prefix) => format!("{prefix}_{name}"),
        None => name.to_owned(),
    };
    let valid: String = full
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' })
        .collect();
    let cut: String = valid.chars().take(MAX_NAME).collect();
    if cut.is_empty() { "_".to_owned() } else { cut }
}

/// An MCP URL must be http(s); https only with the `rustls` feature.
fn check_url(url: &str) -> Result<(), AgentError> {
    let parsed = reqwest::Url::parse(url)
        .map_err(|e| AgentError::Config(format!("MCP URL `{url}` is not a URL: {e}")))?;
    match parsed.scheme() {
        "http" => Ok(()),
        "https" if cfg!(feature = "rustls") => Ok(()),
        "https" => Err(AgentError::Config(format!(
            "MCP URL `{url}` is https, and this build has no TLS: enable toolcall-agent's `rustls` feature"
        ))),
        other => Err(AgentError::Config(format!("MCP URL `{url}` is {other}:, not http(s)"))),
    }
}

/// A command line split into words as a POSIX shell quotes them.
fn split_command_line(line: &str) -> Result<Vec<String>, AgentError> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(open_quote(line)),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some('\n') => {}
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err(open_quote(line)),
                        },
                        Some(c) => word.push(c),
                        None => return Err(open_quote(line)),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some('\n') | None => {}
                    Some(c) => word.push(c),
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

fn open_quote(line: &str) -> AgentError {
    AgentError::Config(format!("the MCP command line `{line}` has a quote that is not closed"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn command_lines_split_as_a_shell_quotes_them() {
        let words = split_command_line(r#"python3 -m 'my server' --name "a \"b\" c" x\ y  "#).unwrap();
        assert_eq!(words, ["python3", "-m", "my server", "--name", "a \"b\" c", "x y"]);
        assert_eq!(split_command_line("a ''").unwrap(), ["a", ""]);
        assert!(matches!(split_command_line("a 'b"), Err(AgentError::Config(_))));
        assert!(matches!(McpToolset::stdio("  "), Err(AgentError::Config(_))));
        assert!(matches!(
            McpToolset::parse("HTTPS://x/mcp").map(|t| t.transport),
            Ok(Transport::Http { .. })
        ));
        assert!(matches!(McpToolset::parse("node s.js").map(|t| t.transport), Ok(Transport::Stdio { .. })));
    }

    #[test]
    fn offered_names_are_prefixed_valid_and_short() {
        assert_eq!(offered_name(Some("fs"), "read_file"), "fs_read_file");
        assert_eq!(offered_name(None, "files/read.v2"), "files_read_v2");
        assert_eq!(offered_name(None, &"x".repeat(80)).len(), 64);
        assert_eq!(offered_name(None, ""), "_");
    }

    #[test]
    fn results_read_as_compiled_tools_answers() {
        let text =
            returned(json!({"content": [{"type": "text", "text": "5"}, {"type": "text", "text": "six"}]}));
        let text = text.map_err(|e| e.to_string()).unwrap();
        assert_eq!((text.content.as_str(), text.blocks.len()), ("5\nsix", 0));
        let structured = returned(
            json!({"content": [{"type": "text", "text": "{\"a\":1}"}], "structuredContent": {"a": 1}}),
        );
        assert_eq!(structured.map(|r| r.content).map_err(|e| e.to_string()).unwrap(), r#"{"a":1}"#);
        // A string's structured content (2026-07-28) is read as its text, not its JSON.
        let string = returned(
            json!({"content": [{"type": "text", "text": "removed \"Beef ramen\""}], "structuredContent": "removed \"Beef ramen\""}),
        );
        assert_eq!(string.map(|r| r.content).map_err(|e| e.to_string()).unwrap(), r#"removed "Beef ramen""#);
        let image =
            returned(json!({"content": [{"type": "image", "data": "AQID", "mimeType": "image/png"}]}));
        let image = image.map_err(|e| e.to_string()).unwrap();
        assert_eq!(image.blocks, [Content::image("image/png", vec![1, 2, 3])]);
        assert_eq!(image.content, "[image image/png, 3 bytes]");
        let failed =
            returned(json!({"content": [{"type": "text", "text": "no such city"}], "isError": true}));
        assert_eq!(failed.err(), Some(ToolError::Failed("no such city".to_owned())));
    }
}
