//! The spans and the request log, as a `tracing` subscriber sees them (no OpenTelemetry):
//! a server span per MCP request named and attributed as OpenTelemetry's MCP conventions
//! say, an `execute_tool` span under each call, errors typed, tool arguments and results
//! only when content capture is on, and one request-log event per HTTP request with no
//! arguments in it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use example_app::App;
use example_app::app::Store;
use example_app::models::{Role, User};
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};
use toolcall_mcp::{Caller, McpServer, telemetry};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context, SubscriberExt as _};
use tracing_subscriber::registry::LookupSpan;

mod common;
use common::connect;
use common::net::post;

/// One span as the subscriber saw it.
#[derive(Clone, Debug, Default)]
struct SpanSeen {
    name: String,
    target: String,
    fields: BTreeMap<String, String>,
    /// The index of its parent among the spans seen.
    parent: Option<usize>,
}

/// One event.
#[derive(Clone, Debug, Default)]
struct EventSeen {
    target: String,
    fields: BTreeMap<String, String>,
}

#[derive(Default)]
struct Seen {
    spans: Vec<SpanSeen>,
    events: Vec<EventSeen>,
}

/// The span's index among those seen, in its extensions.
struct Index(usize);

/// A layer that keeps every span (with its fields as recorded so far) and every event.
#[derive(Clone, Default)]
struct Keep(Arc<Mutex<Seen>>);

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl<S: tracing::Subscriber + for<'a> LookupSpan<'a>> tracing_subscriber::Layer<S> for Keep {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let span = ctx.span(id).unwrap();
        let parent = span.parent().and_then(|parent| parent.extensions().get::<Index>().map(|i| i.0));
        let mut seen = SpanSeen {
            name: attrs.metadata().name().to_owned(),
            target: attrs.metadata().target().to_owned(),
            parent,
            ..SpanSeen::default()
        };
        attrs.record(&mut Fields(&mut seen.fields));
        let mut all = self.0.lock().unwrap();
        all.spans.push(seen);
        span.extensions_mut().insert(Index(all.spans.len() - 1));
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        let span = ctx.span(id).unwrap();
        let Some(index) = span.extensions().get::<Index>().map(|i| i.0) else { return };
        values.record(&mut Fields(&mut self.0.lock().unwrap().spans[index].fields));
    }

    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        let mut seen = EventSeen { target: event.metadata().target().to_owned(), ..EventSeen::default() };
        event.record(&mut Fields(&mut seen.fields));
        self.0.lock().unwrap().events.push(seen);
    }
}

impl Keep {
    fn spans(&self) -> Vec<SpanSeen> {
        self.0.lock().unwrap().spans.clone()
    }

    fn events(&self, target: &str) -> Vec<EventSeen> {
        self.0.lock().unwrap().events.iter().filter(|e| e.target == target).cloned().collect()
    }

    /// The server spans (`otel.name` is their OpenTelemetry name).
    fn served(&self) -> Vec<SpanSeen> {
        self.spans().into_iter().filter(|s| s.target == telemetry::SERVER_SPAN_TARGET).collect()
    }
}

/// Runs `test` on a current-thread runtime with `keep` as this thread's subscriber, so
/// every task of the test (server and client) reports to it.
fn with_subscriber<F: Future<Output = ()>>(keep: &Keep, test: impl FnOnce() -> F) {
    let subscriber = tracing_subscriber::registry().with(keep.clone());
    let _guard = tracing::subscriber::set_default(subscriber);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(test());
}

fn app(user: u64) -> App {
    let store = Arc::new(Store::seeded(Duration::ZERO));
    App::for_user(&store, User { id: user, name: "Ada".into(), role: Role::Editor })
}

fn call(name: &str, args: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name.to_owned()).with_arguments(args.as_object().cloned().unwrap_or_default())
}

fn field<'a>(span: &'a SpanSeen, name: &str) -> Option<&'a str> {
    span.fields.get(name).map(String::as_str)
}

/// Calls, a tool error, an unknown tool and a list over the in-process pipe: each request
/// is one server span, each call an `execute_tool` span under its request's; then the
/// same call with content capture on records its arguments and result. (One test: the
/// capture switch is process-wide.)
#[test]
fn server_and_tool_spans_follow_the_conventions() {
    let keep = Keep::default();
    with_subscriber(&keep, || async {
        let client = connect(McpServer::new(&example_app::toolset::ALL, app(1))).await;
        let ok = client.call_tool(call("add", json!({"a": 2, "b": 40}))).await.unwrap();
        assert_eq!(ok.is_error, Some(false));
        let failed = client.call_tool(call("add", json!({"a": 2}))).await.unwrap();
        assert_eq!(failed.is_error, Some(true));
        assert!(client.call_tool(call("no_such_tool", json!({}))).await.is_err());
        client.list_all_tools().await.unwrap();

        let served = keep.served();
        let names: Vec<&str> = served.iter().filter_map(|s| field(s, "otel.name")).collect();
        assert_eq!(
            names,
            ["initialize", "tools/call add", "tools/call add", "tools/call", "tools/list"],
            "{served:#?}"
        );
        for span in &served {
            assert_eq!(span.name, "mcp.server");
            assert_eq!(field(span, "otel.kind"), Some("server"));
            assert_eq!(span.parent, None, "a server span without a remote parent is a root");
            assert_eq!(field(span, "network.transport"), Some("pipe"));
            assert!(field(span, "jsonrpc.request.id").is_some(), "{span:?}");
        }
        let initialize = &served[0];
        assert_eq!(field(initialize, "mcp.method.name"), Some("initialize"));
        assert!(
            field(initialize, "mcp.protocol.version").is_some_and(|v| v.starts_with("20")),
            "{initialize:?}"
        );

        let (ok_call, failed_call, unknown) = (&served[1], &served[2], &served[3]);
        assert_eq!(field(ok_call, "mcp.method.name"), Some("tools/call"));
        assert_eq!(field(ok_call, "gen_ai.tool.name"), Some("add"));
        assert_eq!(field(ok_call, "gen_ai.operation.name"), Some("execute_tool"));
        assert_eq!(field(ok_call, "error.type"), None);
        assert!(field(ok_call, "mcp.protocol.version").is_some());
        assert_eq!(field(failed_call, "error.type"), Some("tool_error"));
        assert_eq!(
            field(failed_call, "otel.status_description"),
            Some("tool_error"),
            "no text without capture"
        );
        assert_eq!(field(unknown, "gen_ai.tool.name"), Some("no_such_tool"));
        assert_eq!(field(unknown, "error.type"), Some("-32602"));
        assert_eq!(field(unknown, "rpc.response.status_code"), Some("-32602"));
        assert!(field(unknown, "otel.status_description").is_some_and(|d| d.contains("unknown tool")));

        let spans = keep.spans();
        let index_of = |wanted: &SpanSeen| {
            spans.iter().position(|s| s.fields == wanted.fields && s.target == wanted.target).unwrap()
        };
        let tools: Vec<&SpanSeen> =
            spans.iter().filter(|s| s.target == telemetry::TOOL_SPAN_TARGET).collect();
        assert_eq!(tools.len(), 2, "no execute_tool span for an unknown tool: {tools:#?}");
        for (tool, request) in tools.iter().zip([ok_call, failed_call]) {
            assert_eq!(tool.name, "execute_tool");
            assert_eq!(tool.parent, Some(index_of(request)), "under its request's span");
            assert_eq!(field(tool, "otel.name"), Some("execute_tool add"));
            assert_eq!(field(tool, "otel.kind"), Some("internal"));
            assert_eq!(field(tool, "gen_ai.operation.name"), Some("execute_tool"));
            assert_eq!(field(tool, "gen_ai.tool.name"), Some("add"));
            assert_eq!(field(tool, "gen_ai.tool.type"), Some("function"));
            assert!(field(tool, "gen_ai.tool.description").is_some_and(|d| !d.is_empty()));
            assert_eq!(field(tool, "gen_ai.tool.call.arguments"), None, "arguments only on opt-in");
            assert_eq!(field(tool, "gen_ai.tool.call.result"), None, "results only on opt-in");
        }
        assert_eq!(field(tools[0], "error.type"), None);
        assert_eq!(field(tools[1], "error.type"), Some("missing_argument"));
        assert_eq!(field(tools[1], "otel.status_description"), Some("missing_argument"));

        telemetry::capture_content(true);
        assert!(telemetry::captures_content());
        client.call_tool(call("add", json!({"a": 1, "b": 2}))).await.unwrap();
        client.call_tool(call("add", json!({"b": 2}))).await.unwrap();
        telemetry::capture_content(false);
        let spans = keep.spans();
        let tools: Vec<&SpanSeen> =
            spans.iter().filter(|s| s.target == telemetry::TOOL_SPAN_TARGET).collect();
        let (captured, captured_error) = (tools[2], tools[3]);
        assert_eq!(field(captured, "gen_ai.tool.call.arguments"), Some(r#"{"a":1,"b":2}"#));
        assert_eq!(field(captured, "gen_ai.tool.call.result"), Some("3"));
        assert!(
            field(captured_error, "otel.status_description").is_some_and(|d| d.contains("missing")),
            "{captured_error:?}"
        );
        let served = keep.served();
        let captured_request = served.last().unwrap();
        assert!(field(captured_request, "otel.status_description").is_some_and(|d| d.contains("missing")));
        client.cancel().await.unwrap();
    });
}

/// Over HTTP: the server span's transport attributes and hashed session id, and one
/// request-log event per request, with its method, path, status, MCP method, tool,
/// caller and duration, and never its arguments or token.
#[test]
fn http_requests_are_logged_once_each_without_arguments() {
    let keep = Keep::default();
    with_subscriber(&keep, || async {
        let server = McpServer::new(&example_app::toolset::ALL, app(7))
            .context_from_request(|_| Ok(Caller::new("user:7", app(7))));
        let uri = common::net::serve(server).await;
        let secret = "SECRET-CITY-ARGUMENT";
        let body = json!({
            "jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "get_weather", "arguments": {"city": secret}, "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}}}
        });
        let headers = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "get_weather"),
            ("authorization", "Bearer TOKEN-NEVER-LOGGED"),
        ];
        let (status, _, text) = post(&uri, body.to_string(), &headers).await;
        assert_eq!(status, 200, "{text}");
        let (status, headers, text) = post(&uri, common::net::initialize_body(), &[]).await;
        assert_eq!(status, 200, "{text}");
        assert!(headers.get("mcp-session-id").is_some());

        // The line goes when the response's body is dropped, just after the client read it.
        let mut lines = Vec::new();
        for _ in 0..100 {
            lines = keep.events(telemetry::REQUEST_LOG_TARGET);
            if lines.len() >= 2 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(lines.len(), 2, "one line per request: {lines:#?}");
        let call = &lines[0].fields;
        assert_eq!(call["message"], "request");
        assert_eq!(call["http.request.method"], "POST");
        assert_eq!(call["url.path"], "/mcp");
        assert_eq!(call["http.response.status_code"], "200");
        assert_eq!(call["mcp.method.name"], "tools/call");
        assert_eq!(call["gen_ai.tool.name"], "get_weather");
        assert_eq!(call["error.type"], "-");
        assert_eq!(call["user.id"], "user:7");
        assert_eq!(call["client.address"], "127.0.0.1");
        assert!(call["duration_ms"].parse::<f64>().is_ok_and(|ms| ms >= 0.0), "{call:?}");
        assert_eq!(lines[1].fields["mcp.method.name"], "initialize");
        // (rmcp's own debug events quote whole messages: an application filters them out.)
        let ours = |target: &str| target.starts_with("toolcall_mcp");
        let spans: Vec<SpanSeen> = keep.spans().into_iter().filter(|s| ours(&s.target)).collect();
        let events: Vec<EventSeen> =
            keep.0.lock().unwrap().events.iter().filter(|e| ours(&e.target)).cloned().collect();
        let everything = format!("{spans:?}{events:?}");
        assert!(!everything.contains(secret), "no argument is recorded without opt-in");
        assert!(!everything.contains("TOKEN-NEVER-LOGGED"), "no token is recorded");

        let served = keep.served();
        let call_span = served.iter().find(|s| field(s, "mcp.method.name") == Some("tools/call")).unwrap();
        assert_eq!(field(call_span, "otel.name"), Some("tools/call get_weather"));
        assert_eq!(field(call_span, "network.transport"), Some("tcp"));
        assert_eq!(field(call_span, "network.protocol.name"), Some("http"));
        assert_eq!(field(call_span, "network.protocol.version"), Some("1.1"));
        assert_eq!(field(call_span, "mcp.protocol.version"), Some("2026-07-28"));
        assert_eq!(field(call_span, "jsonrpc.request.id"), Some("3"));
        assert_eq!(field(call_span, "client.address"), Some("127.0.0.1"));
        assert_eq!(field(call_span, "mcp.session.id"), None, "a stateless request has no session");
    });
}

/// A request in a session records the session as a digest of its id, never the id.
#[test]
fn the_session_id_is_recorded_as_a_digest() {
    let keep = Keep::default();
    with_subscriber(&keep, || async {
        let uri = common::net::serve(McpServer::new(&example_app::toolset::ALL, app(1))).await;
        let (status, headers, _) = post(&uri, common::net::initialize_body(), &[]).await;
        assert_eq!(status, 200);
        let session = headers["mcp-session-id"].to_str().unwrap().to_owned();
        let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}).to_string();
        let extra = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", "2025-06-18")];
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
        post(&uri, initialized, &extra).await;
        let (status, _, text) = post(&uri, list, &extra).await;
        assert_eq!(status, 200, "{text}");
        let served = keep.served();
        let list = served.iter().find(|s| field(s, "mcp.method.name") == Some("tools/list")).unwrap();
        let digest = field(list, "mcp.session.id").unwrap();
        assert_eq!(digest.len(), 32, "{digest}");
        assert!(digest.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(digest, session);
        assert!(!format!("{served:?}").contains(&session), "the raw id is never recorded");
    });
}

/// Behind a trusted proxy, the request log and the server span name the client the proxy
/// named (`client.address`), and the span the proxy itself (`network.peer.address`); a
/// request from an untrusted peer names the peer whatever its headers say (#65 item 5).
#[test]
fn behind_a_trusted_proxy_the_logs_name_the_forwarded_client() {
    let keep = Keep::default();
    with_subscriber(&keep, || async {
        let server = |proxies: &str| {
            let mut http = toolcall_mcp::HttpSettings::default();
            http.trusted_proxies = vec![proxies.parse().unwrap()];
            McpServer::new(&example_app::toolset::ALL, app(1)).http(http)
        };
        let forwarded = [("x-forwarded-for", "198.51.100.4, 203.0.113.7")];
        let behind = common::net::serve(server("127.0.0.1")).await;
        let (status, _, text) = post(&behind, common::net::initialize_body(), &forwarded).await;
        assert_eq!(status, 200, "{text}");
        let direct = common::net::serve(server("10.0.0.0/8")).await;
        assert_eq!(post(&direct, common::net::initialize_body(), &forwarded).await.0, 200);
        let mut lines = Vec::new();
        for _ in 0..100 {
            lines = keep.events(telemetry::REQUEST_LOG_TARGET);
            if lines.len() >= 2 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let clients: Vec<&str> = lines.iter().map(|line| line.fields["client.address"].as_str()).collect();
        assert_eq!(clients, ["203.0.113.7", "127.0.0.1"], "{lines:#?}");
        let served = keep.served();
        assert_eq!(served.len(), 2, "{served:#?}");
        assert_eq!(field(&served[0], "client.address"), Some("203.0.113.7"));
        assert_eq!(field(&served[0], "network.peer.address"), Some("127.0.0.1"));
        assert_eq!(field(&served[0], "client.port"), None, "the proxy's port is not the client's");
        assert_eq!(field(&served[1], "client.address"), Some("127.0.0.1"));
        assert!(
            field(&served[1], "client.port").is_some() && field(&served[1], "network.peer.address").is_none()
        );
    });
}
