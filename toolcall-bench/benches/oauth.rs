//! What OAuth costs (#45 item 8), against a token map, in the same run. Two servers of the
//! same three tools (`toolcall_bench::mcp::toolcall_server`), each requiring a bearer
//! token: **token map** = `context_from_request` looking the token up in a `HashMap`
//! (what `example-app serve --token` does, less its constant-time compare); **OAuth** =
//! `McpServer::oauth` with an ES256 JWT of an issuer the benchmark runs on 127.0.0.1
//! (discovery document and JWK set), every request needing `bench:read` and `add` needing
//! `bench:call` (so the tool-scope check reads each call's body), and a request function
//! building the caller from the verified token.
//!
//! - `oauth_auth/*`: the authentication step alone, per request: `token_map` (bearer
//!   token, map lookup, caller) against `jwt_cached` (bearer token, the resource server's
//!   `verify` answered from its cache of verified tokens, scope check, caller), and
//!   `jwt_uncached` (the same with the cache off: an ES256 signature check per request;
//!   the issuer's keys stay cached), for reference.
//! - `oauth_request/*`: one `tools/call` of `add` through each server's whole router in
//!   process (tower `oneshot`, no sockets; a legacy session made first), the response read
//!   to its end: every layer, rmcp and the tool.
//! - `oauth_http/*`: throughput over real HTTP on 127.0.0.1: 16 rmcp streamable-HTTP
//!   clients (one connection pool and session each), each making 4 calls of `add` one
//!   after another, all at once: one iteration is 64 calls (criterion's elements/s).
//!
//! After each of the last two groups, the same two servers are measured again in 24
//! alternating rounds (token map first in even rounds, OAuth first in odd ones), so that
//! both see the same load on a shared machine: the per-request difference (median of the
//! rounds' differences) and the throughput ratio (all calls over all time, each side), as
//! lines starting `paired`.
//!
//! `cargo bench -p toolcall-bench --bench oauth`

#![allow(missing_docs, reason = "criterion's macros generate undocumented items")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "benchmark setup should fail loudly")]

use std::collections::HashMap;
use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::body::Body;
use axum::http::{Request, StatusCode};
use criterion::{Criterion, Throughput, criterion_group};
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::json;
use toolcall_bench::mcp::toolcall_server;
use toolcall_mcp::oauth::{AccessToken, ResourceServer};
use toolcall_mcp::{Caller, McpServer, Rejection, bearer_token};
use tower::ServiceExt as _;

/// HTTP clients of the throughput benchmark, and calls each makes per iteration.
const CLIENTS: usize = 16;
const CALLS_PER_CLIENT: usize = 4;

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// An issuer on 127.0.0.1 publishing one ES256 key; its URL and the private key.
async fn issuer() -> (String, EncodingKey) {
    let rng = aws_lc_rs::rand::SystemRandom::new();
    let pkcs8 = aws_lc_rs::signature::EcdsaKeyPair::generate_pkcs8(
        &aws_lc_rs::signature::ECDSA_P256_SHA256_FIXED_SIGNING,
        &rng,
    )
    .unwrap();
    let key = EncodingKey::from_ec_der(pkcs8.as_ref());
    let mut jwk = Jwk::from_encoding_key(&key, Algorithm::ES256).unwrap();
    jwk.common.key_id = Some("bench".into());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let discovery = json!({"issuer": url, "jwks_uri": format!("{url}/jwks")}).to_string();
    let keys = json!({"keys": [jwk]}).to_string();
    let json = |text: String| move || async move { ([("content-type", "application/json")], text) };
    let router = axum::Router::new()
        .route("/.well-known/oauth-authorization-server", axum::routing::get(json(discovery)))
        .route("/jwks", axum::routing::get(json(keys)));
    tokio::spawn(async move { axum::serve(listener, router).await });
    (url, key)
}

/// A token of `issuer` for `resource`, good for an hour.
fn token(key: &EncodingKey, issuer: &str, resource: &str) -> String {
    let mut header = Header::new(Algorithm::ES256);
    header.kid = Some("bench".into());
    header.typ = Some("at+jwt".into());
    let claims = json!({
        "iss": issuer, "aud": resource, "sub": "user-7", "client_id": "bench-client",
        "scope": "bench:read bench:call", "iat": now(), "exp": now() + 3600,
    });
    jsonwebtoken::encode(&header, &claims, key).unwrap()
}

fn resource_server(issuer: &str, resource: &str) -> ResourceServer {
    ResourceServer::new(issuer, resource)
        .unwrap()
        .required_scopes(["bench:read"])
        .tool_scopes("add", ["bench:call"])
}

/// The token-map server: `TOKEN` is user 7's.
fn token_map_server(tokens: Arc<HashMap<String, String>>) -> McpServer<()> {
    toolcall_server().context_from_request(move |request| {
        let presented = bearer_token(request).ok_or_else(|| Rejection::unauthorized("no token"))?;
        let user = tokens.get(presented).ok_or_else(|| Rejection::unauthorized("unknown token"))?;
        Ok(Caller::new(user.clone(), ()))
    })
}

/// The OAuth server.
fn oauth_server(oauth: ResourceServer) -> McpServer<()> {
    toolcall_server().oauth(oauth).context_from_request(|request| {
        let token = AccessToken::of(request).ok_or_else(|| Rejection::unauthorized("no token"))?;
        Ok(Caller::new(token.principal(), ()))
    })
}

/// Polls `future` once: the cached paths finish without waiting.
fn ready<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("expected to finish at once"),
    }
}

fn parts_with(token: &str) -> axum::http::request::Parts {
    Request::post("/mcp").header("authorization", format!("Bearer {token}")).body(()).unwrap().into_parts().0
}

fn auth_step(c: &mut Criterion, runtime: &tokio::runtime::Runtime) {
    let (issuer, key) = runtime.block_on(issuer());
    let resource = "http://127.0.0.1:1/mcp";
    let jwt = token(&key, &issuer, resource);
    let cached = resource_server(&issuer, resource);
    let uncached = resource_server(&issuer, resource).token_cache_ttl(Duration::ZERO);
    runtime.block_on(async {
        cached.verify(&jwt).await.unwrap();
        uncached.verify(&jwt).await.unwrap();
    });
    let opaque = "a-static-token-of-32-characters!".to_owned();
    let tokens: HashMap<String, String> =
        (0..100).map(|i| (format!("{opaque}{i}"), format!("user-{i}"))).collect();
    let (map_parts, jwt_parts) = (parts_with(&format!("{opaque}7")), parts_with(&jwt));
    let required = ["bench:read"];

    let mut group = c.benchmark_group("oauth_auth");
    group.bench_function("token_map", |b| {
        b.iter(|| {
            let presented = bearer_token(black_box(&map_parts)).unwrap();
            let user = tokens.get(presented).unwrap();
            black_box(Caller::new(user.clone(), ()))
        })
    });
    for (name, server) in [("jwt_cached", &cached), ("jwt_uncached", &uncached)] {
        group.bench_function(name, |b| {
            b.iter(|| {
                let presented = bearer_token(black_box(&jwt_parts)).unwrap();
                let token = ready(server.verify(presented)).unwrap();
                assert!(required.iter().all(|scope| token.has_scope(scope)));
                black_box(Caller::new(token.principal(), ()))
            })
        });
    }
    group.finish();
}

/// Sends one request through `router`; the status, the session id, the body.
async fn send(
    router: &axum::Router,
    body: String,
    headers: &[(&str, &str)],
) -> (StatusCode, Option<String>, Vec<u8>) {
    let mut request = Request::post("/mcp")
        .header("host", "127.0.0.1")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = router.clone().oneshot(request.body(Body::from(body)).unwrap()).await.unwrap();
    let status = response.status();
    let session = response.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_owned);
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap();
    (status, session, bytes.to_vec())
}

/// A legacy session on `router` for `token`: its id.
async fn session(router: &axum::Router, token: &str) -> String {
    let bearer = format!("Bearer {token}");
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}});
    let (status, id, body) = send(router, initialize.to_string(), &[("authorization", &bearer)]).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    let id = id.expect("a session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let headers =
        [("authorization", bearer.as_str()), ("mcp-session-id", &id), ("mcp-protocol-version", "2025-06-18")];
    let (status, _, _) = send(router, initialized.to_string(), &headers).await;
    assert_eq!(status, 202);
    id
}

fn request(c: &mut Criterion, runtime: &tokio::runtime::Runtime) {
    let (issuer, key) = runtime.block_on(issuer());
    let resource = "http://127.0.0.1/mcp";
    let jwt = token(&key, &issuer, resource);
    let map_token = "a-static-token-of-32-characters!".to_owned();
    let tokens = Arc::new(HashMap::from([(map_token.clone(), "user-7".to_owned())]));
    let routers = [
        ("token_map", token_map_server(tokens).router().unwrap(), map_token),
        ("jwt_cached", oauth_server(resource_server(&issuer, resource)).router().unwrap(), jwt),
    ];
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 40}}})
        .to_string();
    let mut group = c.benchmark_group("oauth_request");
    for (name, router, token) in &routers {
        let id = runtime.block_on(session(router, token));
        let bearer = format!("Bearer {token}");
        let headers = [
            ("authorization", bearer.as_str()),
            ("mcp-session-id", id.as_str()),
            ("mcp-protocol-version", "2025-06-18"),
        ];
        let (status, _, body) = runtime.block_on(send(router, call.clone(), &headers));
        assert_eq!(status, 200);
        let text = String::from_utf8_lossy(&body);
        assert!(text.contains("42") && !text.contains("isError\":true"), "{name}: {text}");
        group.bench_function(*name, |b| b.iter(|| runtime.block_on(send(router, call.clone(), &headers))));
    }
    group.finish();
    // The same two, in alternating rounds (ABBA), so both see the same load.
    let prepared: Vec<(String, String)> = routers
        .iter()
        .map(|(_, router, token)| (format!("Bearer {token}"), runtime.block_on(session(router, token))))
        .collect();
    let round = |k: usize| {
        let (bearer, id) = &prepared[k];
        let headers = [
            ("authorization", bearer.as_str()),
            ("mcp-session-id", id.as_str()),
            ("mcp-protocol-version", "2025-06-18"),
        ];
        let started = Instant::now();
        for _ in 0..REQUESTS_PER_ROUND {
            black_box(runtime.block_on(send(&routers[k].1, call.clone(), &headers)));
        }
        started.elapsed().as_secs_f64() * 1e6 / REQUESTS_PER_ROUND as f64
    };
    let (mut map, mut jwt, mut delta) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..ROUNDS {
        let (a, b) = if i % 2 == 0 {
            let a = round(0);
            (a, round(1))
        } else {
            let b = round(1);
            (round(0), b)
        };
        map.push(a);
        jwt.push(b);
        delta.push(b - a);
    }
    println!(
        "paired oauth_request ({ROUNDS} rounds of {REQUESTS_PER_ROUND}, ABBA): token_map median {:.2} µs, \
         jwt_cached median {:.2} µs, per-round difference median {:.2} µs (quartiles {:.2} .. {:.2})",
        median(&mut map),
        median(&mut jwt),
        median(&mut delta),
        quantile(&mut delta, 0.25),
        quantile(&mut delta, 0.75),
    );
}

/// Rounds of the paired measurements, and requests (or batches) in each.
const ROUNDS: usize = 24;
const REQUESTS_PER_ROUND: usize = 300;
const BATCHES_PER_ROUND: usize = 20;

fn quantile(values: &mut [f64], q: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    let at = ((values.len() - 1) as f64 * q).round() as usize;
    values[at]
}

fn median(values: &mut [f64]) -> f64 {
    quantile(values, 0.5)
}

async fn connect(uri: &str, token: &str) -> RunningService<RoleClient, ()> {
    let config = StreamableHttpClientTransportConfig::with_uri(uri.to_owned()).auth_header(token.to_owned());
    ().serve(StreamableHttpClientTransport::from_config(config)).await.unwrap()
}

/// Every client makes its calls one after another, all clients at once.
async fn batch(clients: &[Arc<RunningService<RoleClient, ()>>]) {
    let calls = clients.iter().cloned().enumerate().map(|(i, client)| async move {
        for j in 0..CALLS_PER_CLIENT {
            let (a, b) = (i as i64, j as i64);
            let params = CallToolRequestParams::new("add")
                .with_arguments(json!({"a": a, "b": b}).as_object().cloned().unwrap_or_default());
            let result = client.call_tool(params).await.unwrap();
            let text =
                result.content.first().and_then(|c| c.as_text()).map(|t| t.text.clone()).unwrap_or_default();
            assert_eq!(text.parse::<i64>().ok(), Some(a + b), "{text}");
        }
    });
    let mut running = Vec::new();
    for call in calls {
        running.push(tokio::spawn(call));
    }
    for call in running {
        call.await.unwrap();
    }
}

fn http(c: &mut Criterion, runtime: &tokio::runtime::Runtime) {
    let (issuer, key) = runtime.block_on(issuer());
    let map_token = "a-static-token-of-32-characters!".to_owned();
    let tokens = Arc::new(HashMap::from([(map_token.clone(), "user-7".to_owned())]));
    let servers = runtime.block_on(async {
        let map_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let map_uri = format!("http://{}/mcp", map_listener.local_addr().unwrap());
        tokio::spawn(token_map_server(tokens).serve_http_on(map_listener));
        let oauth_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let oauth_uri = format!("http://{}/mcp", oauth_listener.local_addr().unwrap());
        let jwt = token(&key, &issuer, &oauth_uri);
        tokio::spawn(oauth_server(resource_server(&issuer, &oauth_uri)).serve_http_on(oauth_listener));
        let mut servers = Vec::new();
        for (name, uri, token) in [("token_map", map_uri, map_token), ("oauth", oauth_uri, jwt)] {
            let mut clients = Vec::new();
            for _ in 0..CLIENTS {
                clients.push(Arc::new(connect(&uri, &token).await));
            }
            batch(&clients).await; // warm: sessions, connections, the token cache
            servers.push((name, clients));
        }
        servers
    });
    let mut group = c.benchmark_group("oauth_http");
    group.throughput(Throughput::Elements((CLIENTS * CALLS_PER_CLIENT) as u64));
    for (name, clients) in &servers {
        group.bench_function(*name, |b| b.iter(|| runtime.block_on(batch(clients))));
    }
    group.finish();
    // The same two, in alternating rounds (ABBA): calls per second of each over all rounds.
    let round = |k: usize| {
        let started = Instant::now();
        for _ in 0..BATCHES_PER_ROUND {
            runtime.block_on(batch(&servers[k].1));
        }
        started.elapsed().as_secs_f64()
    };
    let (mut map, mut oauth, mut ratios) = (0.0, 0.0, Vec::new());
    for i in 0..ROUNDS {
        let (a, b) = if i % 2 == 0 {
            let a = round(0);
            (a, round(1))
        } else {
            let b = round(1);
            (round(0), b)
        };
        map += a;
        oauth += b;
        ratios.push(a / b);
    }
    let calls = (ROUNDS * BATCHES_PER_ROUND * CLIENTS * CALLS_PER_CLIENT) as f64;
    println!(
        "paired oauth_http ({ROUNDS} rounds of {} calls each, ABBA): token_map {:.0} calls/s, oauth {:.0} calls/s, \
         ratio {:.3} (per-round ratios: median {:.3}, quartiles {:.3} .. {:.3})",
        BATCHES_PER_ROUND * CLIENTS * CALLS_PER_CLIENT,
        calls / map,
        calls / oauth,
        map / oauth,
        median(&mut ratios),
        quantile(&mut ratios, 0.25),
        quantile(&mut ratios, 0.75),
    );
    runtime.block_on(async {
        for client in servers.into_iter().flat_map(|(_, clients)| clients) {
            if let Ok(client) = Arc::try_unwrap(client) {
                let _ = client.cancel().await;
            }
        }
    });
}

fn oauth(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    auth_step(c, &runtime);
    request(c, &runtime);
    http(c, &runtime);
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .sample_size(30)
        .nresamples(10_000)
}

criterion_group! {
    name = benches;
    config = config();
    targets = oauth
}

/// `OAUTH_CALLS=token_map:N` (or `jwt_cached:N`): only N in-process `tools/call`s through
/// that server's router on a current-thread runtime, for callgrind; the instructions of
/// two runs with different N, over the difference of N, are one request's.
fn calls_only(spec: &str) {
    let (which, n) = spec.split_once(':').expect("OAUTH_CALLS=token_map:N or jwt_cached:N");
    let n: usize = n.parse().expect("a number of calls");
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let (issuer, key) = runtime.block_on(issuer());
    let resource = "http://127.0.0.1/mcp";
    let (router, token) = match which {
        "token_map" => {
            let token = "a-static-token-of-32-characters!".to_owned();
            let tokens = Arc::new(HashMap::from([(token.clone(), "user-7".to_owned())]));
            (token_map_server(tokens).router().unwrap(), token)
        }
        "jwt_noscope" => {
            let oauth = ResourceServer::new(&issuer, resource).unwrap().required_scopes(["bench:read"]);
            (oauth_server(oauth).router().unwrap(), token(&key, &issuer, resource))
        }
        _ => (
            oauth_server(resource_server(&issuer, resource)).router().unwrap(),
            token(&key, &issuer, resource),
        ),
    };
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 40}}})
        .to_string();
    runtime.block_on(async {
        let id = session(&router, &token).await;
        let bearer = format!("Bearer {token}");
        let headers = [
            ("authorization", bearer.as_str()),
            ("mcp-session-id", id.as_str()),
            ("mcp-protocol-version", "2025-06-18"),
        ];
        for _ in 0..n {
            black_box(send(&router, call.clone(), &headers).await);
        }
    });
}

fn main() {
    if let Ok(spec) = std::env::var("OAUTH_CALLS") {
        calls_only(&spec);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
