//! A real `redis-server` on a free loopback port for one test, killed when dropped; shared
//! by toolcall-mcp's replica tests and example-app's (through `#[path]`).

/// Starts `redis-server` (no persistence) on 127.0.0.1 and waits until it listens; returns
/// the child (killed when dropped) and its `redis://` URL. `None` when the binary is not
/// installed, which fails the test instead under `CI` (`.ci/run` installs it).
pub async fn redis_server() -> Option<(tokio::process::Child, String)> {
    let Some(binary) = redis_binary() else {
        assert!(std::env::var_os("CI").is_none(), "redis-server is not installed (.ci/run installs it)");
        eprintln!("SKIPPED: redis-server is not installed");
        return None;
    };
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    Some((redis_server_on(&binary, port).await, format!("redis://127.0.0.1:{port}")))
}

/// A `redis-server` (`binary`) on `port`, once it listens: for a test that stops one and
/// starts it again where it was.
#[allow(dead_code)] // Public for the tests that restart a server; the others include it too.
pub async fn redis_server_on(binary: &std::path::Path, port: u16) -> tokio::process::Child {
    redis_server_with(binary, port, &["--save", "", "--appendonly", "no"]).await
}

/// A `redis-server` on `port` that keeps every acknowledged write in `dir` (an append-only
/// file synced on each write): killed and started again on the same `dir`, it holds what
/// it held.
#[allow(dead_code)] // Public for the tests that restart a server; the others include it too.
pub async fn durable_redis_server_on(
    binary: &std::path::Path,
    port: u16,
    dir: &std::path::Path,
) -> tokio::process::Child {
    let dir = dir.to_str().expect("a UTF-8 folder");
    let options = ["--save", "", "--appendonly", "yes", "--appendfsync", "always", "--dir", dir];
    redis_server_with(binary, port, &options).await
}

/// `redis-server` on 127.0.0.1:`port` with `options`, once it listens.
async fn redis_server_with(binary: &std::path::Path, port: u16, options: &[&str]) -> tokio::process::Child {
    let child = tokio::process::Command::new(binary)
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(options)
        .stdout(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("redis-server starts");
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            return child;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("redis-server did not listen on {port}");
}

/// Debian's `redis-server`, a local install's, or the first on `PATH`.
#[allow(dead_code)] // Public for the tests that restart a server; the others include it too.
pub fn redis_binary() -> Option<std::path::PathBuf> {
    let known = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"].map(std::path::PathBuf::from);
    if let Some(found) = known.into_iter().find(|path| path.is_file()) {
        return Some(found);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join("redis-server")).find(|p| p.is_file())
}
