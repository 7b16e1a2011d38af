//! A throwaway Postgres cluster for the store's tests: `initdb` into a temporary folder, a
//! `postgres` on a free loopback port, trust authentication, stopped and deleted on drop.
//! Found on PATH or in Debian's /usr/lib/postgresql/*/bin; when it is not there the
//! tests say so and run on SQLite only.
//!
//! Postgres refuses to run as root: as root, the cluster runs as the `postgres` user when
//! there is one, else as `nobody`.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::Write as _;
use std::os::unix::fs::MetadataExt as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use sqlx::Connection as _;

/// A folder under the system's temporary folder, deleted on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        use std::sync::atomic::{AtomicU32, Ordering};
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!("example-app-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes straight to stderr, past the test harness's capture, so that the test output
/// says whether Postgres ran.
pub fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// A running cluster; stopped and deleted on drop.
pub struct Cluster {
    dir: TempDir,
    bin: PathBuf,
    child: Child,
    user: Option<(u32, u32)>,
    pub port: u16,
}

/// `initdb` and `postgres` from one folder: PATH first, then Debian's versioned folders,
/// newest first.
fn binaries() -> Option<PathBuf> {
    let on_path =
        std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect::<Vec<_>>()).unwrap_or_default();
    let mut debian: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|dirs| dirs.filter_map(Result::ok).map(|d| d.path().join("bin")).collect())
        .unwrap_or_default();
    debian.sort_by_key(|dir| {
        let version =
            dir.parent().and_then(Path::file_name).and_then(|v| v.to_str()).and_then(|v| v.parse().ok());
        std::cmp::Reverse(version.unwrap_or(0u32))
    });
    on_path
        .into_iter()
        .chain(debian)
        .find(|dir| dir.join("initdb").is_file() && dir.join("postgres").is_file())
}

/// The user to run as when this process is root: `postgres`, else `nobody`.
fn unprivileged() -> (u32, u32) {
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    let entry = |name: &str| {
        passwd.lines().find_map(|line| {
            let fields: Vec<&str> = line.split(':').collect();
            (fields.len() > 3 && fields[0] == name).then(|| (fields[2].parse().ok(), fields[3].parse().ok()))
        })
    };
    match entry("postgres").or_else(|| entry("nobody")) {
        Some((Some(uid), Some(gid))) => (uid, gid),
        _ => (65534, 65534),
    }
}

impl Cluster {
    /// Starts a cluster, or says why there is none: `Err` when `initdb` and `postgres`
    /// are not installed. A cluster that is installed but does not start panics with its
    /// log: that is a failure to look at, not a reason to skip.
    pub async fn start() -> Result<Cluster, String> {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        Cluster::start_on(port).await
    }

    /// [`Cluster::start`] on `port` (a server told to use it before it was up).
    pub async fn start_on(port: u16) -> Result<Cluster, String> {
        let Some(bin) = binaries() else {
            return Err("initdb and postgres are not on PATH nor in /usr/lib/postgresql/*/bin".to_owned());
        };
        let dir = TempDir::new("pg");
        let root = std::fs::metadata(&dir.0).map(|m| m.uid() == 0).unwrap_or(false);
        let user = root.then(unprivileged);
        if let Some((uid, gid)) = user {
            std::os::unix::fs::chown(&dir.0, Some(uid), Some(gid)).unwrap();
        }
        let data = dir.path("data");
        let initdb = Self::command(&bin, "initdb", user)
            .arg("-D")
            .arg(&data)
            .args(["-U", "notes", "--auth=trust", "--no-sync", "-E", "UTF8"])
            .output()
            .unwrap();
        assert!(initdb.status.success(), "initdb failed: {}", String::from_utf8_lossy(&initdb.stderr));
        let child = Self::postgres(&bin, &dir, user, port);
        let mut cluster = Cluster { dir, bin, child, user, port };
        cluster.wait_until_ready().await;
        Ok(cluster)
    }

    /// `postgres` on the cluster's data, listening on `port`, its log appended to
    /// `postgres.log`.
    fn postgres(bin: &Path, dir: &TempDir, user: Option<(u32, u32)>, port: u16) -> Child {
        let log =
            std::fs::OpenOptions::new().create(true).append(true).open(dir.path("postgres.log")).unwrap();
        Self::command(bin, "postgres", user)
            .arg("-D")
            .arg(dir.path("data"))
            .args(["-p", &port.to_string(), "-h", "127.0.0.1", "-k"])
            .arg(&dir.0)
            .args(["-c", "fsync=off", "-c", "full_page_writes=off", "-c", "synchronous_commit=off"])
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap()
    }

    /// Stops the server (a fast shutdown: connections are closed), keeping its data; see
    /// [`Cluster::restart`].
    pub fn stop(&mut self) {
        let pg_ctl = self.bin.join("pg_ctl");
        let stopped = if pg_ctl.is_file() {
            Self::command(&self.bin, "pg_ctl", self.user)
                .arg("-D")
                .arg(self.dir.path("data"))
                .args(["stop", "-m", "fast", "-w"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        } else {
            Command::new("kill")
                .args(["-INT", &self.child.id().to_string()])
                .status()
                .is_ok_and(|s| s.success())
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while stopped && Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Starts the stopped server again on its data and port, and waits until it answers.
    pub async fn restart(&mut self) {
        self.child = Self::postgres(&self.bin, &self.dir, self.user, self.port);
        self.wait_until_ready().await;
    }

    fn command(bin: &Path, name: &str, user: Option<(u32, u32)>) -> Command {
        let mut command = Command::new(bin.join(name));
        command.stdin(Stdio::null()).env_remove("PGDATA");
        if let Some((uid, gid)) = user {
            command.uid(uid).gid(gid);
        }
        command
    }

    async fn wait_until_ready(&mut self) {
        let started = Instant::now();
        loop {
            if sqlx::PgConnection::connect(&self.url("postgres")).await.is_ok() {
                return;
            }
            let exited = self.child.try_wait().unwrap();
            if exited.is_some() || started.elapsed() > Duration::from_secs(30) {
                let log = std::fs::read_to_string(self.dir.path("postgres.log")).unwrap_or_default();
                panic!("postgres did not start ({exited:?}):\n{log}");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The URL of database `name` on this cluster.
    pub fn url(&self, name: &str) -> String {
        format!("postgres://notes@127.0.0.1:{}/{name}", self.port)
    }

    /// Creates database `name` and returns its URL.
    pub async fn database(&self, name: &str) -> String {
        let mut admin = sqlx::PgConnection::connect(&self.url("postgres")).await.unwrap();
        sqlx::query(&format!("CREATE DATABASE {name}")).execute(&mut admin).await.unwrap();
        let _ = admin.close().await;
        self.url(name)
    }

    /// The folder `initdb` and `postgres` were found in.
    pub fn bin(&self) -> &Path {
        &self.bin
    }
}

impl Drop for Cluster {
    /// A fast shutdown (`pg_ctl stop -m fast`, else SIGINT), waited for; SIGKILL if it
    /// hangs.
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.stop();
        }
    }
}
