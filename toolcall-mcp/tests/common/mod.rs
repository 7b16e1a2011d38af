//! What the MCP tests share: a server and rmcp's client joined by an in-process pipe.
#![allow(dead_code, clippy::expect_used)]

use rmcp::service::{RoleClient, RunningService};
use rmcp::{ClientHandler, ServerHandler, ServiceExt};

/// `client` connected to `server` over a duplex pipe; the server runs on its own task
/// until the client goes away.
pub async fn connect_as<S: ServerHandler, C: ClientHandler>(
    server: S,
    client: C,
) -> RunningService<RoleClient, C> {
    let (server_side, client_side) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_side).await {
            let _ = running.waiting().await;
        }
    });
    client.serve(client_side).await.expect("the client initializes")
}

/// rmcp's default client connected to `server`.
pub async fn connect<S: ServerHandler>(server: S) -> RunningService<RoleClient, ()> {
    connect_as(server, ()).await
}

/// Waits (up to 5 s) until the fixture context's `live` count is `want`: the tool `hold`
/// keeps a guard alive in it until its future is dropped.
pub async fn live_becomes(ctx: &toolcall_fixtures::Ctx, want: usize) -> bool {
    for _ in 0..500 {
        if ctx.live.load(std::sync::atomic::Ordering::SeqCst) == want {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    false
}

pub mod gauge;
pub mod net;

/// Changes a server's HTTP settings in place (tests set one or two at a time).
pub trait WithHttp {
    /// The server with `edit` applied to its HTTP settings.
    fn with_http(self, edit: impl FnOnce(&mut toolcall_mcp::HttpSettings)) -> Self;
}

impl<C: Send + Sync + 'static> WithHttp for toolcall_mcp::McpServer<C> {
    fn with_http(self, edit: impl FnOnce(&mut toolcall_mcp::HttpSettings)) -> Self {
        let mut http = self.http_settings().clone();
        edit(&mut http);
        self.http(http)
    }
}
