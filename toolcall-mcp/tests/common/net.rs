//! Real HTTP on 127.0.0.1: a server on an OS-assigned port, rmcp's streamable-HTTP client
//! in either lifecycle, and a round-robin TCP balancer in front of replicas.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::Value;
use toolcall_mcp::McpServer;

/// Serves `server` on 127.0.0.1 at a port the OS picks; returns `http://ADDR/mcp`.
pub async fn serve<C: Send + Sync + 'static>(server: McpServer<C>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("local address");
    tokio::spawn(server.serve_http_on(listener));
    format!("http://{addr}/mcp")
}

/// Which lifecycle the client speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Era {
    /// `initialize` and an HTTP session (protocol versions before 2026-07-28).
    Legacy,
    /// `server/discover` and self-contained requests (2026-07-28): no session.
    Stateless,
}

/// A client's connection settings.
#[derive(Clone, Debug)]
pub struct Client {
    /// `http://ADDR/mcp`.
    pub uri: String,
    /// The lifecycle.
    pub era: Era,
    /// Sent as `Authorization: Bearer TOKEN`.
    pub token: Option<String>,
    /// Open a new connection for every request (so a balancer may pick another replica).
    pub fresh_connections: bool,
    /// Re-initialize transparently when the server forgot the session (rmcp's default).
    pub reinit: bool,
}

impl Client {
    /// A legacy-session client of `uri` reusing connections, without a token.
    pub fn new(uri: &str, era: Era) -> Self {
        Client { uri: uri.to_owned(), era, token: None, fresh_connections: false, reinit: true }
    }

    /// The same, with a bearer token.
    pub fn token(mut self, token: &str) -> Self {
        self.token = Some(token.to_owned());
        self
    }

    /// Connects: `initialize` or `server/discover`.
    pub async fn connect(
        &self,
    ) -> Result<RunningService<RoleClient, ()>, rmcp::service::ClientInitializeError> {
        let mut config = StreamableHttpClientTransportConfig::with_uri(self.uri.clone())
            .reinit_on_expired_session(self.reinit);
        if let Some(token) = &self.token {
            config = config.auth_header(token.clone());
        }
        let mut http = reqwest::Client::builder();
        if self.fresh_connections {
            http = http.pool_max_idle_per_host(0);
        }
        let transport =
            StreamableHttpClientTransport::with_client(http.build().expect("reqwest client"), config);
        match self.era {
            Era::Legacy => ().serve(transport).await,
            Era::Stateless => {
                let lifecycle =
                    ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
                ().serve_with_lifecycle(transport, lifecycle).await
            }
        }
    }
}

/// Calls `name` with `args`; the first text block, or the error's text.
pub async fn call(
    client: &RunningService<RoleClient, ()>,
    name: &str,
    args: Value,
) -> Result<String, String> {
    let params = CallToolRequestParams::new(name.to_owned())
        .with_arguments(args.as_object().cloned().unwrap_or_default());
    let result = client.call_tool(params).await.map_err(|e| e.to_string())?;
    let text = result.content.first().and_then(|c| c.as_text()).map(|t| t.text.clone()).unwrap_or_default();
    if result.is_error == Some(true) { Err(text) } else { Ok(text) }
}

/// A TCP balancer on 127.0.0.1 handing each new connection to the next backend in turn.
pub struct RoundRobin {
    /// `http://ADDR/mcp` of the balancer.
    pub uri: String,
    /// Connections handed to each backend.
    pub counts: Arc<Vec<AtomicUsize>>,
}

impl RoundRobin {
    /// Starts a balancer in front of `backends` (`http://ADDR/mcp` each).
    pub async fn start(backends: &[String]) -> RoundRobin {
        let addrs: Vec<SocketAddr> = backends
            .iter()
            .map(|uri| {
                uri.trim_start_matches("http://").trim_end_matches("/mcp").parse().expect("backend address")
            })
            .collect();
        let counts: Arc<Vec<AtomicUsize>> = Arc::new(addrs.iter().map(|_| AtomicUsize::new(0)).collect());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let uri = format!("http://{}/mcp", listener.local_addr().expect("local address"));
        let shared = Arc::clone(&counts);
        tokio::spawn(async move {
            let mut next = 0usize;
            while let Ok((mut inbound, _)) = listener.accept().await {
                let i = next % addrs.len();
                next += 1;
                shared[i].fetch_add(1, Ordering::SeqCst);
                let backend = addrs[i];
                tokio::spawn(async move {
                    if let Ok(mut outbound) = tokio::net::TcpStream::connect(backend).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
            }
        });
        RoundRobin { uri, counts }
    }

    /// Connections handed to each backend so far.
    pub fn counts(&self) -> Vec<usize> {
        self.counts.iter().map(|c| c.load(Ordering::SeqCst)).collect()
    }
}

/// A raw POST of `body` to `uri` with the headers MCP asks for plus `extra`; the status,
/// the response headers and the body.
pub async fn post(
    uri: &str,
    body: impl Into<reqwest::Body>,
    extra: &[(&str, &str)],
) -> (u16, reqwest::header::HeaderMap, String) {
    post_with(&reqwest::Client::new(), uri, body, extra).await
}

/// [`post`] through `http`, a client kept from request to request.
pub async fn post_with(
    http: &reqwest::Client,
    uri: &str,
    body: impl Into<reqwest::Body>,
    extra: &[(&str, &str)],
) -> (u16, reqwest::header::HeaderMap, String) {
    let mut request = http
        .post(uri)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body);
    for (name, value) in extra {
        request = request.header(*name, *value);
    }
    let response = request.send().await.expect("HTTP round trip");
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    (status, headers, response.text().await.unwrap_or_default())
}

/// An `initialize` request body for a legacy client.
pub fn initialize_body() -> String {
    serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}
    })
    .to_string()
}

/// `ADDR` of `http://ADDR/mcp`.
pub fn addr_of(uri: &str) -> String {
    uri.trim_start_matches("http://").trim_end_matches("/mcp").to_owned()
}

/// A raw TCP connection to the server of `uri`, for what an HTTP client would not send
/// (a head cut short, two `Host` headers, a body that never ends).
pub async fn raw(uri: &str) -> tokio::net::TcpStream {
    tokio::net::TcpStream::connect(addr_of(uri)).await.expect("connect")
}

/// What a raw connection received within `within`, and whether the server closed it
/// (end of stream or reset) in that time.
pub async fn read_for(stream: &mut tokio::net::TcpStream, within: std::time::Duration) -> (String, bool) {
    use tokio::io::AsyncReadExt;
    let mut received = Vec::new();
    let deadline = tokio::time::Instant::now() + within;
    let mut buf = [0u8; 8192];
    loop {
        match tokio::time::timeout_at(deadline, stream.read(&mut buf)).await {
            Err(_) => return (String::from_utf8_lossy(&received).into_owned(), false),
            Ok(Ok(0)) | Ok(Err(_)) => return (String::from_utf8_lossy(&received).into_owned(), true),
            Ok(Ok(n)) => received.extend_from_slice(&buf[..n]),
        }
    }
}

/// Reads from a raw connection until `text` has arrived (or `within` passes); all that
/// was read.
pub async fn read_until(
    stream: &mut tokio::net::TcpStream,
    text: &str,
    within: std::time::Duration,
) -> String {
    use tokio::io::AsyncReadExt;
    let mut received = Vec::new();
    let deadline = tokio::time::Instant::now() + within;
    let mut buf = [0u8; 8192];
    while !String::from_utf8_lossy(&received).contains(text) {
        match tokio::time::timeout_at(deadline, stream.read(&mut buf)).await {
            Ok(Ok(n)) if n > 0 => received.extend_from_slice(&buf[..n]),
            _ => break,
        }
    }
    String::from_utf8_lossy(&received).into_owned()
}

/// The head of a raw HTTP/1.1 POST to `/mcp` with a JSON body of `length` bytes and the
/// headers MCP asks for, plus `extra` lines (`Name: value`).
pub fn post_head(length: usize, extra: &[&str]) -> String {
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {length}\r\n"
    );
    for line in extra {
        head.push_str(line);
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    head
}
