//! # toolcall-mcp
//!
//! Serves a toolcall [`Toolset`] as a Model Context Protocol server, on
//! [rmcp](https://docs.rs/rmcp) (the official Rust SDK: its server handler, its stdio and
//! streamable-HTTP transports and its protocol-version negotiation). The tool definitions
//! are the toolset's precomputed MCP definitions, read once at start; every call goes
//! through [`Toolset::call`] with the server's context.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! # mod toolset { pub static ALL: toolcall_runtime::Toolset = toolcall_runtime::Toolset::new(&[], &[[""; 2]; 5], |_, _, _| None); }
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
//!   when the tool has an output schema. A [`ToolError`] (bad arguments, a failing or
//!   panicking tool) is a result with `isError: true`, the error's one-line message and
//!   its JSON object, so the model can correct itself. An unknown tool is the protocol
//!   error the specification asks for (invalid params).
//! - Each call has a time limit ([`McpServer::timeout`], 60 s by default): past it the
//!   call is dropped (the tool is cancelled at its `.await`) and the result says so. A
//!   `notifications/cancelled` from the client drops the call the same way.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData, Implementation,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ServerHandler, ServiceExt};
use serde_json::Value;
use toolcall_runtime::{Format, ToolError, Toolset};

/// The default number of tools per `tools/list` page.
pub const DEFAULT_PAGE_SIZE: usize = 100;
/// The default time limit of one `tools/call`.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

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

/// An MCP server for one toolset and its context. Cheap to clone: the streamable-HTTP
/// transport makes one per session.
pub struct McpServer<C: Send + Sync + 'static> {
    toolset: &'static Toolset<C>,
    context: Arc<C>,
    tools: Arc<[Tool]>,
    structured: Arc<BTreeSet<String>>,
    definitions_error: Option<String>,
    name: String,
    version: String,
    instructions: Option<String>,
    page_size: usize,
    timeout: Duration,
}

impl<C: Send + Sync + 'static> Clone for McpServer<C> {
    fn clone(&self) -> Self {
        McpServer {
            toolset: self.toolset,
            context: Arc::clone(&self.context),
            tools: Arc::clone(&self.tools),
            structured: Arc::clone(&self.structured),
            definitions_error: self.definitions_error.clone(),
            name: self.name.clone(),
            version: self.version.clone(),
            instructions: self.instructions.clone(),
            page_size: self.page_size,
            timeout: self.timeout,
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
        let (tools, definitions_error) = match parse_tools(toolset) {
            Ok(tools) => (tools, None),
            Err(why) => (Vec::new(), Some(why)),
        };
        let structured =
            tools.iter().filter(|t| t.output_schema.is_some()).map(|t| t.name.to_string()).collect();
        McpServer {
            toolset,
            context,
            tools: tools.into(),
            structured: Arc::new(structured),
            definitions_error,
            name: "toolcall".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            instructions: None,
            page_size: DEFAULT_PAGE_SIZE,
            timeout: DEFAULT_TIMEOUT,
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

    /// The time limit of one `tools/call` (default [`DEFAULT_TIMEOUT`]).
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.timeout = limit;
        self
    }

    /// The tool definitions served, as parsed at start.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    fn check_definitions(&self) -> Result<(), ServeError> {
        match &self.definitions_error {
            Some(why) => Err(ServeError::Definitions(why.clone())),
            None => Ok(()),
        }
    }

    /// Serves over stdin/stdout until the client disconnects. Nothing but protocol
    /// messages is written to stdout; log to stderr.
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
        self.check_definitions()?;
        let running =
            self.serve(rmcp::transport::stdio()).await.map_err(|e| ServeError::Transport(e.to_string()))?;
        running.waiting().await.map_err(|e| ServeError::Transport(e.to_string()))?;
        Ok(())
    }

    /// Serves streamable HTTP at `/mcp` on `addr` until the process ends.
    pub async fn serve_http(self, addr: SocketAddr) -> Result<(), ServeError> {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| ServeError::Transport(format!("{addr}: {e}")))?;
        self.serve_http_on(listener).await
    }

    /// Serves streamable HTTP at `/mcp` on a bound listener (bind port 0 and read
    /// `local_addr` to let the OS pick a port).
    pub async fn serve_http_on(self, listener: tokio::net::TcpListener) -> Result<(), ServeError> {
        self.check_definitions()?;
        use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
        use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
        let factory = self.clone();
        let service = StreamableHttpService::new(
            move || Ok(factory.clone()),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default(),
        );
        let router = axum::Router::new().nest_service("/mcp", service);
        axum::serve(listener, router).await.map_err(|e| ServeError::Transport(e.to_string()))
    }

    /// One page of the definitions, for a client on `version`.
    fn page(
        &self,
        cursor: Option<&str>,
        version: Option<&ProtocolVersion>,
    ) -> Result<ListToolsResult, ErrorData> {
        let start = match cursor {
            None => 0,
            Some(text) => text
                .parse::<usize>()
                .ok()
                .filter(|start| *start <= self.tools.len())
                .ok_or_else(|| ErrorData::invalid_params(format!("invalid cursor {text:?}"), None))?,
        };
        let end = (start + self.page_size).min(self.tools.len());
        let old = version.is_some_and(|v| v.as_str() < ProtocolVersion::V_2025_06_18.as_str());
        let tools = self.tools[start..end]
            .iter()
            .map(|tool| if old { without_newer_fields(tool) } else { tool.clone() })
            .collect();
        let mut result = ListToolsResult::with_all_items(tools);
        result.next_cursor = (end < self.tools.len()).then(|| end.to_string());
        Ok(result)
    }

    /// Runs one call with the time limit; the call's future is dropped on timeout or when
    /// `cancelled` resolves.
    async fn run(
        &self,
        name: &str,
        args: &Value,
        cancelled: impl std::future::Future<Output = ()>,
    ) -> Result<CallToolResult, ErrorData> {
        let outcome = tokio::select! {
            result = self.toolset.call(&self.context, name, args) => result,
            () = tokio::time::sleep(self.timeout) => {
                return Ok(error_result(&format!(
                    "tool `{name}` did not finish within {} (the server's time limit per call); it was cancelled",
                    human(self.timeout)
                ), None));
            }
            () = cancelled => return Err(ErrorData::internal_error("the call was cancelled by the client", None)),
        };
        match outcome {
            Ok(value) => {
                let mut result = CallToolResult::success(vec![ContentBlock::text(value.to_string())]);
                if self.structured.contains(name) && value.is_object() {
                    result.structured_content = Some(value);
                }
                Ok(result)
            }
            Err(error @ ToolError::UnknownTool { .. }) => {
                Err(ErrorData::invalid_params(error.to_string(), Some(error.to_value())))
            }
            Err(error) => Ok(error_result(&error.to_string(), Some(error.to_value()))),
        }
    }
}

/// The toolset's MCP definitions as rmcp tools.
fn parse_tools<C>(toolset: &Toolset<C>) -> Result<Vec<Tool>, String> {
    serde_json::from_str(toolset.emit(Format::Mcp, false)).map_err(|e| e.to_string())
}

/// A tool without the fields protocol versions before 2025-06-18 do not define.
fn without_newer_fields(tool: &Tool) -> Tool {
    let mut tool = tool.clone();
    tool.output_schema = None;
    tool.title = None;
    tool
}

/// An `isError` result: the message, then the error's JSON object when there is one.
fn error_result(message: &str, json: Option<Value>) -> CallToolResult {
    let mut content = vec![ContentBlock::text(message.to_owned())];
    content.extend(json.map(|value| ContentBlock::text(value.to_string())));
    CallToolResult::error(content)
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
        let mut config = ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
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
        let cursor = request.as_ref().and_then(|r| r.cursor.as_deref());
        self.page(cursor, context.protocol_version().as_ref())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = Value::Object(request.arguments.unwrap_or_default());
        let cancelled = context.ct.cancelled_owned();
        self.run(&request.name, &args, cancelled).await.map(Into::into)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }
}
