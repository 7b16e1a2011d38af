//! The HTTP server's defences, over real HTTP on 127.0.0.1: the tools' context built per
//! request from a bearer token (each caller's tools act as that caller; a refused request
//! is 401/403 and runs no tool), `Host` and `Origin` checks against DNS rebinding, and the
//! body limit (413). rmcp's client where a well-behaved client is enough; raw requests for
//! what it never sends.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::Ordering;

use rmcp::model::ProtocolVersion;
use serde_json::json;
use toolcall_mcp::{Caller, McpServer, Rejection, bearer_token};

mod common;

use common::WithHttp;
use common::gauge::{GAUGE, Gauge, Stats};
use common::net::{Client, Era, call, initialize_body, post, serve};

/// A server whose context is the token's user: `ada-token` and `grace-token` sign in,
/// `mallory-token` is known and forbidden, anything else is unauthorized. stdio would
/// serve as "local".
fn multi_user(stats: &Arc<Stats>) -> McpServer<Gauge> {
    let shared = Arc::clone(stats);
    McpServer::new(&GAUGE, Gauge::new("local", stats)).context_from_request(
        move |request| match bearer_token(request) {
            Some("ada-token") => Ok(Caller::new("ada", Gauge::new("ada", &shared))),
            Some("grace-token") => Ok(Caller::new("grace", Gauge::new("grace", &shared))),
            Some("mallory-token") => Err(Rejection::forbidden("mallory may not use these tools")),
            Some(_) => Err(Rejection::unauthorized("unknown token")),
            None => Err(Rejection::unauthorized("send Authorization: Bearer TOKEN")),
        },
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_caller_gets_their_own_identity_in_either_lifecycle() {
    let stats = Arc::new(Stats::default());
    let uri = serve(multi_user(&stats)).await;
    for era in [Era::Legacy, Era::Stateless] {
        let ada = Client::new(&uri, era).token("ada-token").connect().await.expect("ada connects");
        let grace = Client::new(&uri, era).token("grace-token").connect().await.expect("grace connects");
        let version = ada.peer_info().map(|info| info.protocol_version.clone());
        assert_eq!(version == Some(ProtocolVersion::V_2026_07_28), era == Era::Stateless, "{version:?}");
        for _ in 0..3 {
            assert_eq!(call(&ada, "whoami", json!({})).await, Ok("ada".into()), "{era:?}");
            assert_eq!(call(&grace, "whoami", json!({})).await, Ok("grace".into()), "{era:?}");
            // Arguments cannot change who is calling.
            let answer = call(&grace, "work", json!({"ms": 0, "user": "ada"})).await;
            assert_eq!(answer, Ok("grace".into()), "{era:?}");
        }
    }
    assert_eq!(stats.calls.load(Ordering::SeqCst), 2 * 9);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_requests_get_401_or_403_and_run_no_tool() {
    let stats = Arc::new(Stats::default());
    let uri = serve(multi_user(&stats)).await;
    let call_body =
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "whoami"}}).to_string();
    for body in [initialize_body(), call_body] {
        let (status, headers, text) = post(&uri, body.clone(), &[]).await;
        assert_eq!(status, 401, "{text}");
        assert_eq!(headers.get("www-authenticate").unwrap(), "Bearer");
        assert_eq!(text, "send Authorization: Bearer TOKEN");
        let (status, _, text) = post(&uri, body.clone(), &[("authorization", "Bearer guess")]).await;
        assert_eq!((status, text.as_str()), (401, "unknown token"));
        let (status, headers, text) =
            post(&uri, body.clone(), &[("authorization", "Bearer mallory-token")]).await;
        assert_eq!((status, text.as_str()), (403, "mallory may not use these tools"));
        assert!(headers.get("www-authenticate").is_none());
    }
    // rmcp's client without a token, or with a wrong one, cannot even initialize.
    for era in [Era::Legacy, Era::Stateless] {
        assert!(Client::new(&uri, era).connect().await.is_err(), "{era:?}");
        assert!(Client::new(&uri, era).token("guess").connect().await.is_err(), "{era:?}");
    }
    assert_eq!(stats.calls.load(Ordering::SeqCst), 0, "no tool ran");
}

/// `Host` and `Origin` are the first gate: a foreign one is 403 with a valid token, a
/// wrong one or none (never 401, which would tell a rebound page the server
/// authenticates); only a request that passes them meets authentication.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn host_and_origin_are_checked_before_authentication() {
    let stats = Arc::new(Stats::default());
    let uri = serve(multi_user(&stats)).await;
    let tokens: [&[(&str, &str)]; 3] =
        [&[], &[("authorization", "Bearer guess")], &[("authorization", "Bearer ada-token")]];
    for foreign in [("host", "evil.example"), ("origin", "https://evil.example")] {
        for token in tokens {
            let mut headers = token.to_vec();
            headers.push(foreign);
            let (status, headers, text) = post(&uri, initialize_body(), &headers).await;
            assert_eq!(status, 403, "{foreign:?} {token:?}: {text}");
            assert!(headers.get("www-authenticate").is_none(), "{foreign:?} {token:?}");
        }
    }
    // A local Host and a local page pass the first gate, and then authentication decides.
    let local = [("host", "localhost"), ("origin", "http://localhost:3000")];
    let (status, _, text) = post(&uri, initialize_body(), &local).await;
    assert_eq!((status, text.as_str()), (401, "send Authorization: Bearer TOKEN"));
    let mut signed_in = local.to_vec();
    signed_in.push(("authorization", "Bearer ada-token"));
    let (status, _, text) = post(&uri, initialize_body(), &signed_in).await;
    assert_eq!(status, 200, "{text}");
    assert_eq!(stats.calls.load(Ordering::SeqCst), 0, "no tool ran");
}

/// A session is not a credential, and it belongs to its creator: a request carrying
/// Ada's session id and Grace's token is answered as if the session did not exist, and
/// reaches nothing of it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_borrowed_session_id_is_a_session_that_does_not_exist() {
    let stats = Arc::new(Stats::default());
    let uri = serve(multi_user(&stats)).await;
    let ada = [("authorization", "Bearer ada-token")];
    let (status, headers, _) = post(&uri, initialize_body(), &ada).await;
    assert_eq!(status, 200);
    let session = headers.get("mcp-session-id").expect("a session").to_str().unwrap().to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    let in_session = |token: &'static str| {
        [
            ("authorization", token),
            ("mcp-session-id", session.as_str()),
            ("mcp-protocol-version", "2025-06-18"),
        ]
    };
    let (status, _, _) = post(&uri, initialized, &in_session("Bearer ada-token")).await;
    assert_eq!(status, 202);
    let whoami =
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "whoami"}}).to_string();
    let (status, _, text) = post(&uri, whoami.clone(), &in_session("Bearer grace-token")).await;
    assert_eq!((status, text.as_str()), (404, "Not Found: Session not found"));
    let (status, _, text) = post(&uri, whoami, &in_session("Bearer ada-token")).await;
    assert_eq!(status, 200);
    assert!(text.contains(r#""text":"ada""#), "{text}");
    let (status, _, _) = post(&uri, initialize_body(), &[("mcp-session-id", session.as_str())]).await;
    assert_eq!(status, 401, "the session id alone is no credential");
    assert_eq!(stats.calls.load(Ordering::SeqCst), 1, "only Ada's call ran");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn browser_origins_other_than_loopback_pages_are_refused() {
    let stats = Arc::new(Stats::default());
    let uri = serve(McpServer::new(&GAUGE, Gauge::new("local", &stats))).await;
    let port = uri.trim_start_matches("http://127.0.0.1:").trim_end_matches("/mcp").to_owned();
    let local_page = format!("http://localhost:{port}");
    for origin in
        ["http://localhost:3000", "http://127.0.0.1:5173", "https://[::1]:8443", local_page.as_str()]
    {
        let (status, _, text) = post(&uri, initialize_body(), &[("origin", origin)]).await;
        assert_eq!(status, 200, "{origin}: {text}");
    }
    for origin in
        ["https://evil.example", "http://localhost.evil.example", "null", "http://10.0.0.7:8080", "not a url"]
    {
        let (status, _, text) = post(&uri, initialize_body(), &[("origin", origin)]).await;
        assert_eq!(status, 403, "{origin}: {text}");
    }
    let (status, _, _) = post(&uri, initialize_body(), &[]).await;
    assert_eq!(status, 200, "no Origin: not a browser");

    // A configured list replaces the loopback pages.
    let uri = serve(McpServer::new(&GAUGE, Gauge::new("local", &stats)).with_http(|http| {
        http.allowed_origins = ["https://app.example:443"].into_iter().map(Into::into).collect()
    }))
    .await;
    for (origin, want) in
        [("https://app.example", 200), ("https://app.example:8443", 403), ("http://localhost:3000", 403)]
    {
        let (status, _, text) = post(&uri, initialize_body(), &[("origin", origin)]).await;
        assert_eq!(status, want, "{origin}: {text}");
    }
    assert_eq!(stats.calls.load(Ordering::SeqCst), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn host_names_other_than_loopback_are_refused_unless_allowed() {
    let stats = Arc::new(Stats::default());
    let uri = serve(McpServer::new(&GAUGE, Gauge::new("local", &stats))).await;
    for (host, want) in [
        ("localhost", 200),
        ("127.0.0.1:1234", 200),
        ("[::1]", 200),
        ("evil.example", 403),
        ("10.0.0.7", 403),
    ] {
        let (status, _, text) = post(&uri, initialize_body(), &[("host", host)]).await;
        assert_eq!(status, want, "{host}: {text}");
    }
    let uri = serve(
        McpServer::new(&GAUGE, Gauge::new("local", &stats))
            .with_http(|http| http.allowed_hosts = ["mcp.example"].into_iter().map(Into::into).collect()),
    )
    .await;
    for (host, want) in [("mcp.example", 200), ("mcp.example:8080", 200), ("localhost", 403)] {
        let (status, _, text) = post(&uri, initialize_body(), &[("host", host)]).await;
        assert_eq!(status, want, "{host}: {text}");
    }
    let uri = serve(
        McpServer::new(&GAUGE, Gauge::new("local", &stats)).with_http(|http| http.allowed_hosts = Vec::new()),
    )
    .await;
    let (status, _, _) = post(&uri, initialize_body(), &[("host", "anything.example")]).await;
    assert_eq!(status, 200, "an empty list accepts any Host");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bodies_past_the_limit_get_413() {
    let stats = Arc::new(Stats::default());
    // The default: 4 MiB.
    let uri = serve(McpServer::new(&GAUGE, Gauge::new("local", &stats))).await;
    let padded = |size: usize| {
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "whoami", "arguments": {"pad": ""}}});
        let text = call.to_string();
        let pad = "x".repeat(size - text.len());
        text.replace(r#""pad":"""#, &format!(r#""pad":"{pad}""#))
    };
    let (status, _, _) = post(&uri, padded(4 * 1024 * 1024 + 1), &[]).await;
    assert_eq!(status, 413);
    let client = Client::new(&uri, Era::Legacy).connect().await.unwrap();
    let big = "y".repeat(3 * 1024 * 1024);
    assert_eq!(call(&client, "work", json!({"ms": 0, "pad": big})).await, Ok("local".into()), "3 MiB passes");
    // Configured: 1 KiB.
    let uri =
        serve(McpServer::new(&GAUGE, Gauge::new("local", &stats)).with_http(|http| http.body_limit = 1024))
            .await;
    let (status, _, text) = post(&uri, padded(1025), &[]).await;
    assert_eq!(status, 413, "{text}");
    let (status, _, _) = post(&uri, initialize_body(), &[]).await;
    assert_eq!(status, 200);
    let client = Client::new(&uri, Era::Legacy).connect().await.unwrap();
    let refused = call(&client, "work", json!({"ms": 0, "pad": "z".repeat(2000)})).await;
    assert!(refused.is_err(), "{refused:?}");
    assert_eq!(call(&client, "whoami", json!({})).await, Ok("local".into()), "the session goes on");
}

/// A 2026-07-28 client may cache `tools/list`: an hour by default, `public` when every
/// caller sees the same list, `private` when a filter makes it per caller; a legacy
/// client gets no caching fields, which its protocol does not define (#44 item 4).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tool_list_carries_caching_hints_that_fit() {
    use rmcp::model::CacheScope;
    let stats = Arc::new(Stats::default());
    let fixed = serve(McpServer::new(&GAUGE, Gauge::new("local", &stats))).await;
    let filtered = serve(
        McpServer::new(&GAUGE, Gauge::new("local", &stats))
            .tool_filter(|_, _| true)
            .list_ttl(std::time::Duration::from_secs(60)),
    )
    .await;
    let list = |uri: String, era: Era| async move {
        let client = Client::new(&uri, era).connect().await.expect("connects");
        client.list_tools(None).await.expect("tools/list")
    };
    let modern = list(fixed.clone(), Era::Stateless).await;
    assert_eq!((modern.ttl_ms, modern.cache_scope), (Some(3_600_000), Some(CacheScope::Public)));
    let per_caller = list(filtered, Era::Stateless).await;
    assert_eq!((per_caller.ttl_ms, per_caller.cache_scope), (Some(60_000), Some(CacheScope::Private)));
    let legacy = list(fixed, Era::Legacy).await;
    assert_eq!((legacy.ttl_ms, legacy.cache_scope), (None, None));
}

/// A 2026-07-28 client discovers what `initialize` would say, instructions included, and
/// may cache it as long as the tool list (#44 item 4).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_carries_the_instructions_and_caching_hints() {
    let stats = Arc::new(Stats::default());
    let uri = serve(McpServer::new(&GAUGE, Gauge::new("local", &stats)).instructions("Measure twice.")).await;
    let client = Client::new(&uri, Era::Stateless).connect().await.expect("discovers");
    let info = client.peer_info().expect("the discovery result");
    assert_eq!(info.instructions.as_deref(), Some("Measure twice."));
    let (status, _, body) = post(
        &uri,
        r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{
            "io.modelcontextprotocol/protocolVersion":"2026-07-28",
            "io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        &[("mcp-protocol-version", "2026-07-28"), ("mcp-method", "server/discover")],
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(r#""ttlMs":3600000"#) && body.contains(r#""cacheScope":"public""#), "{body}");
    assert!(body.contains("Measure twice."), "{body}");
}
