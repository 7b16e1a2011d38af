//! The workspace's `deploy/` configurations run by the real proxies: `deploy/nginx.conf`
//! or `deploy/haproxy.cfg`, its addresses filled in and nothing else changed, in front of
//! three replicas. Shared by `serve_http.rs` and `rolling_restart.rs`.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::process::Stdio;
use std::time::Duration;

/// A proxy of the workspace's `deploy/` folder, running until dropped (then stopped,
/// with its worker processes).
pub struct Proxy {
    child: tokio::process::Child,
    dir: std::path::PathBuf,
    /// `http://127.0.0.1:PORT/mcp`.
    pub uri: String,
    /// `nginx` or `haproxy`.
    pub program: &'static str,
}

impl Proxy {
    /// nginx's error log (a failed attempt at a replica, a replica set aside); empty for
    /// HAProxy, whose configuration logs nothing.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("error.log")).unwrap_or_default()
    }
}

impl Drop for Proxy {
    /// SIGTERM (nginx's master stops its workers; a SIGKILL would leave them serving),
    /// waited for up to 2 s, then SIGKILL.
    fn drop(&mut self) {
        if let Some(pid) = self.child.id() {
            let _ = std::process::Command::new("kill").args(["-TERM", &pid.to_string()]).status();
            for _ in 0..40 {
                if let Ok(Some(_)) = self.child.try_wait() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        let _ = self.child.start_kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The proxy's binary, or `None` when it is not installed (`CI` set: a failure there,
/// since CI installs both).
pub fn binary(program: &str) -> Option<std::path::PathBuf> {
    let found = ["/usr/sbin", "/usr/bin", "/usr/local/sbin"]
        .iter()
        .map(|dir| std::path::Path::new(dir).join(program))
        .find(|path| path.is_file());
    if found.is_none() {
        assert!(std::env::var_os("CI").is_none(), "{program} is not installed (.ci/run installs it)");
        eprintln!("SKIPPED: {program} is not installed");
    }
    found
}

/// `ADDR` of `http://ADDR/mcp`.
fn addr_of(uri: &str) -> String {
    uri.trim_start_matches("http://").trim_end_matches("/mcp").to_owned()
}

/// Starts `deploy/NAME` (nginx.conf or haproxy.cfg) in front of `replicas`
/// (`http://127.0.0.1:PORT/mcp` each), once one of them is ready through it; `None` when
/// the proxy is not installed (see [`binary`]).
pub async fn proxy(name: &str, replicas: [&str; 3]) -> Option<Proxy> {
    let program = if name.starts_with("nginx") { "nginx" } else { "haproxy" };
    let binary = binary(program)?;
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let dir = std::env::temp_dir().join(format!("toolcall-{program}-{}-{port}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let template =
        std::fs::read_to_string(format!("{}/../deploy/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let mut config = template
        .replace("{{LISTEN}}", &format!("127.0.0.1:{port}"))
        .replace("{{PREFIX}}", dir.to_str().unwrap());
    for (slot, uri) in ["{{REPLICA_A}}", "{{REPLICA_B}}", "{{REPLICA_C}}"].iter().zip(replicas) {
        assert!(config.contains(slot), "deploy/{name} names {slot}");
        config = config.replace(slot, &addr_of(uri));
    }
    assert!(!config.contains("{{"), "deploy/{name} has a placeholder this helper does not fill");
    let file = dir.join(name);
    std::fs::write(&file, config).unwrap();
    let mut command = tokio::process::Command::new(binary);
    match program {
        "nginx" => command.arg("-p").arg(&dir).arg("-c").arg(&file).args(["-g", "daemon off;"]),
        _ => command.arg("-f").arg(&file).arg("-db"),
    };
    let child = command.stdout(Stdio::null()).stderr(Stdio::null()).kill_on_drop(true).spawn().unwrap();
    let uri = format!("http://127.0.0.1:{port}/mcp");
    let proxy = Proxy { child, dir, uri, program };
    // Ready when the proxy answers and a replica behind it is ready (HAProxy checks first).
    for _ in 0..100 {
        let readyz = proxy.uri.replace("/mcp", "/readyz");
        if reqwest::get(readyz).await.is_ok_and(|r| r.status() == 200) {
            return Some(proxy);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{program} did not come up in front of {replicas:?}");
}
