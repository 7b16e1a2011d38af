//! `mcp-conformance --http ADDR` serves the suite's test server over streamable HTTP and
//! prints `listening on http://ADDR/mcp` as its first line (port 0 picks a free port);
//! without `--http` it serves stdio.

use std::io::Write as _;
use std::net::SocketAddr;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let http = match args.as_slice() {
        [] => None,
        [flag, addr] if flag == "--http" => match addr.parse::<SocketAddr>() {
            Ok(addr) => Some(addr),
            Err(error) => {
                return fail(&format!("--http {addr}: {error}; give an address such as 127.0.0.1:0"));
            }
        },
        _ => return fail("usage: mcp-conformance [--http ADDR]"),
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => return fail(&format!("cannot start the runtime: {error}")),
    };
    let served = runtime.block_on(async move {
        let server = mcp_conformance::server();
        match http {
            None => server.serve_stdio().await,
            Some(addr) => {
                let listener = tokio::net::TcpListener::bind(addr)
                    .await
                    .map_err(|source| toolcall_mcp::ServeError::Bind { addr, source })?;
                if let Ok(bound) = listener.local_addr() {
                    println!("listening on http://{bound}/mcp");
                    let _ = std::io::stdout().flush();
                }
                server.serve_http_on(listener).await
            }
        }
    });
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => fail(&error.to_string()),
    }
}

/// Prints `message` on stderr; the exit code for a failure.
fn fail(message: &str) -> ExitCode {
    eprintln!("mcp-conformance: {message}");
    ExitCode::FAILURE
}
