//! `example-app serve --http` as a child process, and a 2026-07-28 `tools/call` sent to
//! it: shared by the tests that run replicas (`db_cli.rs`, `idempotent_writes.rs`,
//! `rolling_restart.rs`, `serve_rate.rs`).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::process::Stdio;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

/// A running `example-app ARGS..` that said where it listens, killed when dropped.
pub struct Served {
    pub child: tokio::process::Child,
    /// `127.0.0.1:PORT`.
    pub addr: String,
    /// What it wrote on stderr before `listening on`.
    pub before: Vec<String>,
    /// Its stderr after that line (the request log and the operator's log), as it comes.
    pub log: Arc<Mutex<Vec<String>>>,
}

/// Starts `example-app ARGS..` (a `serve --http` command line) and waits for its
/// `listening on http://ADDR/mcp` line; panics with what it wrote when it ends before.
pub async fn serve(args: &[&str]) -> Served {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_example-app"))
        .args(args)
        .env_remove("TOOLCALL_MCP_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn example-app");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut before = Vec::new();
    let addr = loop {
        match lines.next_line().await.unwrap() {
            Some(line) => {
                match line.strip_prefix("listening on http://").and_then(|l| l.strip_suffix("/mcp")) {
                    Some(addr) => break addr.to_owned(),
                    None => before.push(line),
                }
            }
            None => panic!("example-app {args:?} stopped before listening: {before:#?}"),
        }
    };
    let log = Arc::new(Mutex::new(Vec::new()));
    let kept = Arc::clone(&log);
    tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            kept.lock().unwrap().push(line);
        }
    });
    Served { child, addr, before, log }
}

impl Served {
    /// The stderr lines after `listening on`, so far.
    pub fn lines(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }
}

/// A stateless (2026-07-28) `tools/call` of `name` with `arguments` on the server at
/// `addr`, with `headers` besides the protocol's: the tool's result (`isError` either
/// way), or why there is none (no answer, a status other than 200, a body that is not a
/// JSON-RPC result).
pub async fn call(
    http: &reqwest::Client,
    addr: &str,
    name: &str,
    arguments: Value,
    headers: &[(&str, &str)],
) -> Result<Value, String> {
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments, "_meta": meta}});
    let mut request = http
        .post(format!("http://{addr}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", name);
    for (header, value) in headers {
        request = request.header(*header, *value);
    }
    let response = request.body(body.to_string()).send().await.map_err(|e| format!("no answer: {e}"))?;
    let status = response.status();
    let text = response.text().await.map_err(|e| format!("answer cut: {e}"))?;
    if status != 200 {
        return Err(format!("{status}: {text}"));
    }
    let json = text.lines().find_map(|line| line.strip_prefix("data: ")).unwrap_or(&text);
    let reply: Value = serde_json::from_str(json).map_err(|e| format!("{e}: {text}"))?;
    match reply.get("result") {
        Some(result) => Ok(result.clone()),
        None => Err(format!("not a result: {reply}")),
    }
}

/// The text a tool's result says.
pub fn said(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}
