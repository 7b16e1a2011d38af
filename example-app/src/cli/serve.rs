//! `example-app serve [--http ADDR]`: every tool as an MCP server, as the demo's
//! signed-in user. Protocol messages only on stdout; everything else on stderr.

use std::net::SocketAddr;
use std::process::ExitCode;

use clap::Args;

use crate::{App, toolset};

/// `serve [--http ADDR]`.
#[derive(Clone, Debug, PartialEq, Eq, Args)]
pub struct ServeArgs {
    /// Serve streamable HTTP at ADDR/mcp (e.g. 127.0.0.1:8080) instead of stdio.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<SocketAddr>,
}

impl ServeArgs {
    /// Serves until the client disconnects (stdio) or the process ends (HTTP).
    pub fn run(self) -> ExitCode {
        let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
            Ok(runtime) => runtime,
            Err(error) => {
                eprintln!("error: cannot start the async runtime: {error}");
                return ExitCode::FAILURE;
            }
        };
        let server = toolcall_mcp::McpServer::new(&toolset::ALL, App::demo())
            .name("example-app")
            .version(env!("CARGO_PKG_VERSION"))
            .instructions("Weather, arithmetic, orders, money and the signed-in user's notes.");
        let served = runtime.block_on(async move {
            match self.http {
                None => server.serve_stdio().await,
                Some(addr) => {
                    let listener = tokio::net::TcpListener::bind(addr)
                        .await
                        .map_err(|e| toolcall_mcp::ServeError::Transport(format!("{addr}: {e}")))?;
                    if let Ok(bound) = listener.local_addr() {
                        eprintln!("listening on http://{bound}/mcp");
                    }
                    server.serve_http_on(listener).await
                }
            }
        });
        match served {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("error: {error}");
                ExitCode::FAILURE
            }
        }
    }
}
