//! Any bytes as the lines a stdio client sends toolcall-mcp after a proper `initialize`
//! (so that `tools/list` and `tools/call` of example-app's tools are reached): the server
//! must answer and finish when the input ends, never panic or hang, and every line it
//! writes must be one JSON-RPC 2.0 message.
#![no_main]

use std::sync::LazyLock;
use std::time::Duration;

use example_app::App;
use libfuzzer_sys::fuzz_target;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use toolcall_mcp::McpServer;
use toolcall_runtime::serde_json::{self, Value};

#[path = "mcp_common.rs"]
mod common;
use common::{RUNTIME, STORE, app};

const HANDSHAKE: &str = concat!(
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    "\n",
);

/// The server of the run (its definitions parsed once); each input is a new session of
/// a clone, as each stdio connection is.
static SERVER: LazyLock<McpServer<App>> = LazyLock::new(|| {
    McpServer::new(&example_app::toolset::ALL, app(1, "fuzz", Default::default()))
        .timeout(Duration::from_millis(50))
});

fuzz_target!(|data: &[u8]| {
    RUNTIME.block_on(async {
        STORE.reset().await.expect("the store resets");
        let server = SERVER.clone();
        let (mut client_out, server_in) = tokio::io::duplex(1 << 20);
        let (server_out, mut client_in) = tokio::io::duplex(1 << 20);
        let served = tokio::spawn(server.serve_lines(server_in, server_out));
        let mut sent = HANDSHAKE.as_bytes().to_vec();
        sent.extend_from_slice(data);
        sent.push(b'\n');
        let write = async move {
            let _ = client_out.write_all(&sent).await;
            // Closing the input ends the session once the answers are out.
            drop(client_out);
        };
        let mut written = Vec::new();
        let read = client_in.read_to_end(&mut written);
        let ((), read) = tokio::time::timeout(Duration::from_secs(20), async { tokio::join!(write, read) })
            .await
            .expect("the server finishes when its input ends");
        read.expect("the output reads");
        let _ = tokio::time::timeout(Duration::from_secs(5), served).await.expect("serve_lines returns");
        for line in written.split(|&b| b == b'\n').filter(|line| !line.is_empty()) {
            let message: Value = serde_json::from_slice(line)
                .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(line)));
            assert_eq!(message["jsonrpc"], "2.0", "{message}");
        }
    });
});
