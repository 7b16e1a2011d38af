//! What the rate-limit tests share (#65 item 5): 2026-07-28 tool calls sent raw (no
//! session: any replica answers them), a replica of the gauge tools, and what Redis holds.
//! Included by `tests/rate_limits.rs` and `tests/rate_replicas.rs` through `#[path]`.
#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use toolcall_mcp::{HttpSettings, McpServer};

use crate::common::WithHttp;
use crate::common::gauge::{GAUGE, Gauge, Stats};
use crate::common::net::serve;

/// The deadline of a count in Redis in these tests: a debug build on a machine busy
/// compiling can take longer than the default's 200 ms for the first (connecting) one,
/// and a count that misses it is counted in process, which is not what they measure.
pub const STORE_TIMEOUT: Duration = Duration::from_secs(1);

/// A 2026-07-28 `tools/call` of `tool` (no session needed: any replica answers it).
pub fn call_body(id: u64, tool: &str) -> String {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": {"ms": 0}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}
    })
    .to_string()
}

/// The headers a 2026-07-28 call of `tool` carries, and `extra`.
pub fn call_headers<'a>(tool: &'a str, extra: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut headers =
        vec![("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/call"), ("mcp-name", tool)];
    headers.extend_from_slice(extra);
    headers
}

/// Sends tool calls with one HTTP client for a whole test (its connections kept): making a
/// client per call can take most of a second on a busy machine, and these tests time
/// calls a second apart.
#[derive(Clone, Default)]
pub struct Calls(reqwest::Client);

impl Calls {
    /// Calls `tool` once through `uri` with `extra` headers: the status, `Retry-After`
    /// and the body.
    pub async fn call(&self, uri: &str, tool: &str, extra: &[(&str, &str)]) -> (u16, Option<String>, String) {
        let mut request = self
            .0
            .post(uri)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(call_body(1, tool));
        for (name, value) in call_headers(tool, extra) {
            request = request.header(name, value);
        }
        let response = request.send().await.expect("HTTP round trip");
        let status = response.status().as_u16();
        let retry_after =
            response.headers().get("retry-after").map(|value| value.to_str().unwrap().to_owned());
        (status, retry_after, response.text().await.unwrap_or_default())
    }
}

/// A server of the gauge tools with `edit` applied to its HTTP settings, served.
pub async fn replica(edit: impl FnOnce(&mut HttpSettings)) -> String {
    let stats = Arc::new(Stats::default());
    serve(McpServer::new(&GAUGE, Gauge::new("replica", &stats)).with_http(edit)).await
}

/// Every key in the Redis at `url`, with its time to live in milliseconds.
#[cfg(feature = "redis")]
pub async fn redis_keys(url: &str) -> Vec<(String, i64)> {
    let client = redis::Client::open(url).unwrap();
    let mut connection = client.get_multiplexed_async_connection().await.unwrap();
    let keys: Vec<String> = redis::cmd("KEYS").arg("*").query_async(&mut connection).await.unwrap();
    let mut out = Vec::new();
    for key in keys {
        let ttl: i64 = redis::cmd("PTTL").arg(&key).query_async(&mut connection).await.unwrap();
        out.push((key, ttl));
    }
    out
}
