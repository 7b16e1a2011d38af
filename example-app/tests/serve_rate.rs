//! `example-app serve --rate-limit N --rate-limit-store redis://.. --trusted-proxy CIDR`
//! as an operator runs it (#65 item 5): two replicas on one `redis-server` share each
//! caller's count, tokenless callers behind the trusted proxy are the clients it names
//! (in the count and in the request log), and a Redis outage fails open, one line on
//! stderr for the outage and one for the recovery.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use serde_json::json;

#[path = "../../toolcall-mcp/tests/common/redis.rs"]
mod local_redis;
use local_redis::{redis_binary, redis_server, redis_server_on};
mod served;
use served::Served;

/// A replica of this test: `serve ARGS`, its MCP URI, and the lines of its stderr.
struct Replica {
    served: Served,
    /// `http://127.0.0.1:PORT/mcp`.
    uri: String,
}

impl Replica {
    /// The lines of its stderr after `listening on` that contain `part`.
    fn lines(&self, part: &str) -> Vec<String> {
        self.served.lines().into_iter().filter(|line| line.contains(part)).collect()
    }
}

/// Starts `serve ARGS` (through [`served::serve`]).
async fn start(args: &[&str]) -> Replica {
    let served = served::serve(&[&["serve"], args].concat()).await;
    let uri = format!("http://{}/mcp", served.addr);
    Replica { served, uri }
}

/// A 2026-07-28 call of `whoami` through `uri` as sent by a proxy with `forwarded_for` in
/// `X-Forwarded-For`: the status and the body. One HTTP client serves the whole test
/// (making one per call can take most of a second on a busy machine, and the test times
/// calls a third of a second apart).
async fn whoami(uri: &str, forwarded_for: &str) -> (u16, String) {
    static CLIENT: std::sync::OnceLock<reqwest::Client> = std::sync::OnceLock::new();
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "whoami", "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}
    });
    let response = CLIENT
        .get_or_init(reqwest::Client::new)
        .post(uri)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "whoami")
        .header("x-forwarded-for", forwarded_for)
        .body(body.to_string())
        .send()
        .await
        .expect("answered");
    let status = response.status().as_u16();
    (status, response.text().await.unwrap_or_default())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_share_a_callers_count_in_redis_and_fail_open_when_it_stops() {
    let Some((mut redis, url)) = redis_server().await else { return };
    let port: u16 = url.rsplit(':').next().and_then(|p| p.parse().ok()).expect("a port");
    let args = [
        "--http",
        "127.0.0.1:0",
        "--rate-limit",
        "3",
        "--rate-limit-store",
        &url,
        "--trusted-proxy",
        "127.0.0.1",
    ];
    let replicas = [start(&args).await, start(&args).await];
    // Each replica connects to Redis and loads its script at its first count.
    for (replica, client) in replicas.iter().zip(["203.0.113.1", "203.0.113.2"]) {
        assert_eq!(whoami(&replica.uri, client).await.0, 200);
    }

    // One client through both replicas in turn: three calls in all, not three each.
    let mut statuses = Vec::new();
    for turn in 0..6 {
        statuses.push(whoami(&replicas[turn % 2].uri, "192.0.2.1").await.0);
    }
    assert_eq!(statuses, [200, 200, 200, 429, 429, 429]);
    let (status, text) = whoami(&replicas[0].uri, "192.0.2.1").await;
    assert_eq!(status, 429);
    assert!(
        text.contains("calls from this caller are over the rate of 3 per second; retry after 1 s"),
        "{text}"
    );
    // Another client behind the same proxy has a count of its own.
    assert_eq!(whoami(&replicas[1].uri, "198.51.100.1, 192.0.2.2").await.0, 200);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let logged = replicas[1].lines("client.address=192.0.2.2");
    assert_eq!(
        logged.len(),
        1,
        "the request log names the forwarded client: {:?}",
        replicas[1].lines("request")
    );

    // Redis stops: calls go on, each replica counting its own; one line each says so.
    redis.kill().await.expect("redis-server stops");
    for replica in &replicas {
        let mut statuses = Vec::new();
        for _ in 0..4 {
            statuses.push(whoami(&replica.uri, "192.0.2.3").await.0);
        }
        assert_eq!(statuses, [200, 200, 200, 429], "the replica's own count");
        let warned = replica.lines("rate-limit store failed");
        assert_eq!(warned.len(), 1, "{:?}", replica.served.lines());
    }

    // Redis is back: counted there again, and one line says so.
    let _redis = redis_server_on(&redis_binary().expect("installed"), port).await;
    let mut recovered = false;
    for _ in 0..100 {
        whoami(&replicas[0].uri, "192.0.2.4").await;
        if replicas[0].lines("rate-limit store answers again").len() == 1 {
            recovered = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(recovered, "{:?}", replicas[0].served.lines());
    assert_eq!(replicas[0].lines("rate-limit store failed").len(), 1, "the outage was said once");
}
