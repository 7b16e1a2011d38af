//! A load test of MCP over streamable HTTP, on 127.0.0.1 only, against up to five servers
//! of the same tool in the same run, in both ways a client may speak:
//!
//! - **stateless**: protocol 2026-07-28, no session: every `tools/call` carries its
//!   revision and capabilities in `_meta` and the SEP-2243 headers;
//! - **legacy**: protocol 2025-06-18, a session per client (`initialize`,
//!   `notifications/initialized`, then calls with `Mcp-Session-Id`), ended with DELETE.
//!
//! The servers, each a child process:
//!
//! - **toolcall-mcp**: [`toolcall_bench::mcp::toolcall_server`], toolcall-mcp serving the
//!   bench crate's three generated tools with its defaults (per-call time limit, cap on
//!   concurrent calls, session guard and the rest of its HTTP layer): this example's own
//!   binary re-executed with `--serve-toolcall ADDR`;
//! - **toolcall-redis**: the same server with its sessions in Redis
//!   (`HttpSettings::session_store` a `RedisSessionStore`, as `example-app serve
//!   --session-store` has it), on a `redis-server` this driver starts on a free loopback
//!   port without persistence and kills at the end: `--serve-toolcall ADDR CAP URL`;
//! - **example-app**: the real `example-app serve --http 127.0.0.1:0` binary (every
//!   example-app tool, a tool filter, resources, prompts, and its request log: a line per
//!   request on stderr);
//! - **rmcp macros**: [`toolcall_bench::mcp::MacroServer`], the same three tools written
//!   with rmcp's `#[tool_router]`/`#[tool]`, served by rmcp's `StreamableHttpService` on
//!   axum with rmcp's default HTTP settings: this binary with `--serve-macro ADDR`;
//! - **bare**: the floor, hyper's HTTP/1 server reading each body with serde_json and
//!   writing the answer toolcall-mcp writes for `add`, with no MCP library and no checks:
//!   this binary with `--serve-bare ADDR` (it serves `add` only: leave it out of
//!   `--servers` with `--tool get_weather`).
//!
//! Those in this binary run on the allocator example-app has (jemalloc), so the resident
//! sets compare.
//!
//! The load generator is the same for all: N clients in this process, each with its own
//! keep-alive HTTP/1.1 connection, writing each request's bytes and reading its SSE answer
//! with a small raw client (not rmcp's client, whose own cost would dominate the numbers
//! on a 2-core machine), each making M calls one after another. Every answer is checked
//! (`add` answers `a + b` for arguments that differ per call), every failure is counted by
//! kind, never unwrapped.
//!
//! One run measures, in this order:
//!
//! 1. **idle sessions**: each server's RSS before and after `--sessions` legacy sessions
//!    are opened (initialize, initialized, one call each) and left idle, per session;
//! 2. **throughput**: every mode at every client count (`--clients 1,16,64`), `--rounds`
//!    rounds, each round running each cell against every server back to back, the order
//!    alternating; calls/s, latency percentiles and server CPU per call;
//! 3. **slow Redis** (with toolcall-redis): `--slow-cell CLIENTSxSESSIONSxCALLS` legacy
//!    clients each opening a session, calling, ending it, over and over, against
//!    toolcall-mcp (memory), toolcall-redis, and a third toolcall-redis server whose Redis
//!    is behind a proxy in this process that delays each direction by `--slow-redis-ms`;
//! 4. **soak**: `--soak-clients` legacy clients making `--soak-calls` calls each against
//!    each server, its RSS sampled throughout: start, peak (`VmHWM`, reset before), end.
//!
//! For toolcall-redis it also reads Redis's `INFO commandstats` (the commands a call and a
//! session run), `used_memory` and `MEMORY USAGE` of the session keys, over a raw RESP
//! connection.
//!
//! ```text
//! cargo build --release -p example-app -p toolcall-bench --bin example-app --example mcp_load
//! target/release/examples/mcp_load --markdown toolcall-bench/sections/mcp_load.md
//! ```
//!
//! Options (defaults in brackets): `--clients LIST` [1,16,64], `--modes LIST`
//! [stateless,legacy], `--calls M` per client and cell [1000], `--warmup W` per client
//! before each measured cell [50], `--rounds R` [3], `--tool add|get_weather` [add],
//! `--servers LIST` [toolcall,toolcall-redis,example-app,rmcp,bare], `--sessions N` idle
//! sessions (0: skip) [1000], `--soak-clients N` [64] and `--soak-calls M` (0: skip)
//! [10000], `--max-seconds S` for the throughput cells together (a cap, shared evenly by
//! the cells of every server and round) [1000], `--call-timeout S` [30], `--example-app
//! PATH` [`example-app` next to this binary's directory, or `$EXAMPLE_APP`], `--pin DRIVER/SERVERS`
//! (run the load generator on the CPUs `DRIVER` and every server on `SERVERS`, each a
//! `taskset -c` list such as `0/1`, so that the comparison is of the servers' own work and
//! not of how the scheduler shares the cores with the load generator) [not pinned],
//! `--redis-server PATH` [`/usr/bin/redis-server`, `/usr/local/bin/redis-server` or the
//! first on `PATH`], `--slow-redis-ms MS` (0: skip the slow-Redis cells) [50],
//! `--slow-cell CLIENTSxSESSIONSxCALLS` [16x5x20], `--markdown PATH` (also write the report
//! as a markdown section).
//!
//! The exit status is 0 when every call succeeded, 1 when any failed or was not run (the
//! report is printed either way), 2 for bad options.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::serve::ListenerExt as _;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::Barrier;
use toolcall_bench::mcp::MacroServer;

/// The servers in this binary run on jemalloc (example-app's allocator), so their RSS
/// compare.
#[cfg(all(unix, not(target_env = "musl")))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

const USAGE: &str = "usage: mcp_load [--clients LIST] [--modes LIST] [--calls M] [--warmup W] \
[--rounds R] [--tool add|get_weather] [--servers LIST] [--sessions N] \
[--soak-clients N] [--soak-calls M] [--max-seconds S] [--call-timeout S] [--example-app PATH] \
[--pin DRIVER/SERVERS] [--redis-server PATH] [--slow-redis-ms MS] [--slow-cell CLIENTSxSESSIONSxCALLS] \
[--markdown PATH]";

/// How long a server may take to print its address and answer.
const START_LIMIT: Duration = Duration::from_secs(30);

/// How long a server's memory is left to settle before its RSS is read.
const SETTLE: Duration = Duration::from_secs(3);

/// The revisions the two modes speak.
const LEGACY_VERSION: &str = "2025-06-18";
const STATELESS_VERSION: &str = "2026-07-28";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("--serve-macro") => return serve_child(Kind::Rmcp, &args[1..]),
        Some("--serve-toolcall") => return serve_child(Kind::Toolcall, &args[1..]),
        Some("--serve-bare") => return serve_bare(&args[1..]),
        _ => {}
    }
    let options = match Options::parse(&args) {
        Ok(options) => options,
        Err(why) => {
            eprintln!("error: {why}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if let Some(pin) = &options.pin
        && let Err(why) = pin.driver()
    {
        eprintln!("error: {why}");
        return ExitCode::FAILURE;
    }
    let runtime = match multi_thread_runtime() {
        Ok(runtime) => runtime,
        Err(code) => return code,
    };
    let report = match runtime.block_on(run(&options)) {
        Ok(report) => report,
        Err(why) => {
            eprintln!("error: {why}");
            return ExitCode::FAILURE;
        }
    };
    let text = report.markdown(&options, &args);
    println!("{text}");
    if let Some(path) = &options.markdown {
        if let Err(error) = std::fs::write(path, &text) {
            eprintln!("error: cannot write {}: {error}", path.display());
            return ExitCode::FAILURE;
        }
        eprintln!("wrote {}", path.display());
    }
    if report.clean() { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

// ---------------------------------------------------------------------------------------
// Options

/// The tool every call calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tool {
    Add,
    GetWeather,
}

impl Tool {
    fn name(self) -> &'static str {
        match self {
            Tool::Add => "add",
            Tool::GetWeather => "get_weather",
        }
    }

    /// The arguments of client `client`'s call number `call` as JSON text, and the value
    /// the answer's text must hold.
    fn call(self, client: usize, call: usize) -> (String, Value) {
        match self {
            Tool::Add => {
                // Both servers' `add` take integers that fit an i32 (example-app's are i32).
                let (a, b) = (client as i64, (call % 1_000_000) as i64);
                (format!(r#"{{"a":{a},"b":{b}}}"#), json!(a + b))
            }
            Tool::GetWeather => {
                let (city, days) = (format!("City {client}"), call % 7 + 1);
                let args = json!({"city": city, "days": days}).to_string();
                (args, json!({"city": city, "days": days, "temp": 21.5}))
            }
        }
    }
}

/// How a client speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Mode {
    /// 2026-07-28, no session.
    Stateless,
    /// 2025-06-18, a session.
    Legacy,
}

impl Mode {
    fn label(self) -> &'static str {
        match self {
            Mode::Stateless => "stateless (2026-07-28)",
            Mode::Legacy => "legacy session (2025-06-18)",
        }
    }

    fn short(self) -> &'static str {
        match self {
            Mode::Stateless => "stateless",
            Mode::Legacy => "legacy",
        }
    }
}

/// Which server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    /// toolcall-mcp serving the bench crate's three tools, in this binary.
    Toolcall,
    /// The same, its sessions in Redis (`RedisSessionStore` on the driver's `redis-server`).
    ToolcallRedis,
    /// The real example-app binary.
    ExampleApp,
    /// rmcp's macro server of the same three tools, in this binary.
    Rmcp,
    /// A bare hyper server answering `add` with serde_json: no MCP library, no checks.
    Bare,
    /// `ToolcallRedis` reaching Redis through the driver's delaying proxy (the slow-Redis
    /// cells only; not a `--servers` name).
    SlowRedis,
}

impl Kind {
    fn label(self) -> &'static str {
        match self {
            Kind::Toolcall => "toolcall-mcp (`McpServer` of `toolset::ALL`)",
            Kind::ToolcallRedis => "toolcall-mcp, sessions in Redis (`RedisSessionStore`)",
            Kind::ExampleApp => "toolcall-mcp in example-app (`example-app serve --http`)",
            Kind::Rmcp => "rmcp `#[tool_router]` (`MacroServer`)",
            Kind::Bare => "bare hyper + serde_json (no MCP library, no checks)",
            Kind::SlowRedis => "toolcall-mcp, sessions in Redis behind the delaying proxy",
        }
    }

    fn short(self) -> &'static str {
        match self {
            Kind::Toolcall => "toolcall-mcp",
            Kind::ToolcallRedis => "toolcall-redis",
            Kind::ExampleApp => "example-app",
            Kind::Rmcp => "rmcp macros",
            Kind::Bare => "bare",
            Kind::SlowRedis => "toolcall-redis, slow",
        }
    }

    fn parse(name: &str) -> Result<Kind, String> {
        match name.trim() {
            "toolcall" => Ok(Kind::Toolcall),
            "toolcall-redis" => Ok(Kind::ToolcallRedis),
            "example-app" => Ok(Kind::ExampleApp),
            "rmcp" => Ok(Kind::Rmcp),
            "bare" => Ok(Kind::Bare),
            other => Err(format!(
                "--servers: no server {other} (toolcall, toolcall-redis, example-app, rmcp, bare)"
            )),
        }
    }

    /// Whether its sessions are in the driver's Redis.
    fn in_redis(self) -> bool {
        matches!(self, Kind::ToolcallRedis | Kind::SlowRedis)
    }
}

#[derive(Clone, Debug)]
struct Options {
    clients: Vec<usize>,
    modes: Vec<Mode>,
    calls: usize,
    warmup: usize,
    rounds: usize,
    tool: Tool,
    servers: Vec<Kind>,
    sessions: usize,
    soak_clients: usize,
    soak_calls: usize,
    max_seconds: f64,
    call_timeout: Duration,
    example_app: Option<PathBuf>,
    markdown: Option<PathBuf>,
    pin: Option<Pin>,
    /// The `redis-server` binary the `toolcall-redis` server's store runs on.
    redis_server: Option<PathBuf>,
    /// The delay the slow-Redis proxy adds in each direction (zero: no slow-Redis cells).
    slow_delay: Duration,
    /// The slow-Redis cells' clients, sessions per client and calls per session.
    slow: (usize, usize, usize),
}

/// Where the load generator and the servers run (`--pin DRIVER/SERVERS`): two CPU lists
/// as `taskset -c` takes them.
#[derive(Clone, Debug)]
struct Pin {
    driver: String,
    servers: String,
}

impl Pin {
    fn parse(text: &str) -> Result<Pin, String> {
        let cpus =
            |list: &str| !list.is_empty() && list.chars().all(|c| c.is_ascii_digit() || c == ',' || c == '-');
        match text.split_once('/') {
            Some((driver, servers)) if cpus(driver) && cpus(servers) => {
                Ok(Pin { driver: driver.to_owned(), servers: servers.to_owned() })
            }
            _ => Err(format!("--pin: not two CPU lists such as 0/1: {text}")),
        }
    }

    /// Moves this process (every thread it has, and those it starts) to the driver's CPUs.
    fn driver(&self) -> Result<(), String> {
        let pid = std::process::id().to_string();
        let status = Command::new("taskset")
            .args(["-a", "-p", "-c", &self.driver, &pid])
            .stdout(Stdio::null())
            .status()
            .map_err(|e| format!("--pin needs taskset: {e}"))?;
        if status.success() { Ok(()) } else { Err(format!("taskset -c {} failed: {status}", self.driver)) }
    }
}

impl Options {
    fn parse(args: &[String]) -> Result<Options, String> {
        let mut options = Options {
            clients: vec![1, 16, 64],
            modes: vec![Mode::Stateless, Mode::Legacy],
            calls: 1000,
            warmup: 50,
            rounds: 3,
            tool: Tool::Add,
            servers: vec![Kind::Toolcall, Kind::ToolcallRedis, Kind::ExampleApp, Kind::Rmcp, Kind::Bare],
            sessions: 1000,
            soak_clients: 64,
            soak_calls: 10_000,
            max_seconds: 1000.0,
            call_timeout: Duration::from_secs(30),
            example_app: std::env::var_os("EXAMPLE_APP").map(PathBuf::from),
            markdown: None,
            pin: None,
            redis_server: None,
            slow_delay: Duration::from_millis(50),
            slow: (16, 5, 20),
        };
        let mut words = args.iter();
        while let Some(flag) = words.next() {
            let mut value = || words.next().ok_or_else(|| format!("{flag} needs a value"));
            fn number<T: std::str::FromStr>(flag: &str, text: &str) -> Result<T, String> {
                text.parse().map_err(|_| format!("{flag}: not a number: {text}"))
            }
            match flag.as_str() {
                "--clients" => {
                    options.clients =
                        value()?.split(',').map(|n| number(flag, n.trim())).collect::<Result<_, _>>()?
                }
                "--modes" => {
                    options.modes = value()?
                        .split(',')
                        .map(|mode| match mode.trim() {
                            "stateless" => Ok(Mode::Stateless),
                            "legacy" => Ok(Mode::Legacy),
                            other => Err(format!("--modes: no mode {other} (stateless, legacy)")),
                        })
                        .collect::<Result<_, _>>()?
                }
                "--calls" => options.calls = number(flag, value()?)?,
                "--warmup" => options.warmup = number(flag, value()?)?,
                "--rounds" => options.rounds = number(flag, value()?)?,
                "--sessions" => options.sessions = number(flag, value()?)?,
                "--soak-clients" => options.soak_clients = number(flag, value()?)?,
                "--soak-calls" => options.soak_calls = number(flag, value()?)?,
                "--max-seconds" => options.max_seconds = number(flag, value()?)?,
                "--call-timeout" => options.call_timeout = Duration::from_secs_f64(number(flag, value()?)?),
                "--example-app" => options.example_app = Some(PathBuf::from(value()?)),
                "--markdown" => options.markdown = Some(PathBuf::from(value()?)),
                "--pin" => options.pin = Some(Pin::parse(value()?)?),
                "--redis-server" => options.redis_server = Some(PathBuf::from(value()?)),
                "--slow-redis-ms" => options.slow_delay = Duration::from_millis(number(flag, value()?)?),
                "--slow-cell" => {
                    let text = value()?;
                    let parts: Vec<usize> =
                        text.split('x').map(|n| number(flag, n.trim())).collect::<Result<_, _>>()?;
                    match parts[..] {
                        [clients, sessions, calls] if clients > 0 && sessions > 0 && calls > 0 => {
                            options.slow = (clients, sessions, calls)
                        }
                        _ => {
                            return Err(format!(
                                "--slow-cell: not CLIENTSxSESSIONSxCALLS, each at least 1: {text}"
                            ));
                        }
                    }
                }
                "--tool" => {
                    options.tool = match value()?.as_str() {
                        "add" => Tool::Add,
                        "get_weather" => Tool::GetWeather,
                        other => return Err(format!("--tool: no tool {other} (add, get_weather)")),
                    }
                }
                "--servers" => {
                    options.servers = value()?.split(',').map(Kind::parse).collect::<Result<_, _>>()?
                }
                "-h" | "--help" => return Err("help".to_owned()),
                other => return Err(format!("unknown option {other}")),
            }
        }
        if options.servers.is_empty() {
            return Err("--servers must name at least one".to_owned());
        }
        let mut named = options.servers.clone();
        named.sort_unstable();
        named.dedup();
        if named.len() != options.servers.len() {
            return Err("--servers names a server twice".to_owned());
        }
        if options.clients.is_empty() || options.clients.contains(&0) || options.modes.is_empty() {
            return Err("--clients and --modes must name at least one, and clients at least 1".to_owned());
        }
        if options.calls == 0 || options.rounds == 0 {
            return Err("--calls and --rounds must be at least 1".to_owned());
        }
        if !(options.max_seconds.is_finite() && options.max_seconds > 0.0) {
            return Err("--max-seconds must be positive".to_owned());
        }
        if options.call_timeout.is_zero() {
            return Err("--call-timeout must be positive".to_owned());
        }
        Ok(options)
    }

    /// The cells of one round: every mode at every client count.
    fn cells(&self) -> Vec<(Mode, usize)> {
        self.modes.iter().flat_map(|&mode| self.clients.iter().map(move |&clients| (mode, clients))).collect()
    }

    /// The time share of one server in one cell of one round.
    fn phase_budget(&self) -> Duration {
        let phases = self.rounds * self.cells().len() * self.servers.len();
        Duration::from_secs_f64(self.max_seconds / phases.max(1) as f64)
    }
}

// ---------------------------------------------------------------------------------------
// The macro server (the child process)

/// A multi-threaded tokio runtime (example-app's kind), or the exit code after saying why
/// there is none.
fn multi_thread_runtime() -> Result<tokio::runtime::Runtime, ExitCode> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(|error| {
        eprintln!("error: cannot start the async runtime: {error}");
        ExitCode::FAILURE
    })
}

/// `--serve-macro ADDR` and `--serve-toolcall ADDR [MAX_SESSIONS [REDIS_URL]]`: rmcp's
/// macro server, or toolcall-mcp serving the same tools (its sessions in the Redis at
/// `REDIS_URL` when given, as `example-app serve --session-store` keeps them), over
/// streamable HTTP until killed, on a multi-threaded runtime like example-app's; prints
/// `listening on http://ADDR/mcp` once it serves.
fn serve_child(kind: Kind, args: &[String]) -> ExitCode {
    let Some(addr) = args.first().and_then(|addr| addr.parse::<SocketAddr>().ok()) else {
        eprintln!("error: --serve-macro and --serve-toolcall need an address such as 127.0.0.1:0");
        return ExitCode::from(2);
    };
    let max_sessions = args.get(1).and_then(|n| n.parse::<usize>().ok());
    let redis_url = args.get(2).cloned();
    let runtime = match multi_thread_runtime() {
        Ok(runtime) => runtime,
        Err(code) => return code,
    };
    let served: Result<(), String> = runtime.block_on(async move {
        if kind == Kind::Toolcall {
            let mut http = toolcall_mcp::HttpSettings::default();
            if let Some(max) = max_sessions {
                http.max_sessions = max;
            }
            if let Some(url) = &redis_url {
                let store = toolcall_mcp::RedisSessionStore::connect(url)
                    .await
                    .map_err(|e| format!("the session store at {url}: {e}"))?;
                http.session_store = Some(Arc::new(store.expiring_after(http.session_idle_timeout)));
            }
            let server = toolcall_bench::mcp::toolcall_server().http(http);
            let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| format!("{addr}: {e}"))?;
            let bound = listener.local_addr().map_err(|e| e.to_string())?;
            eprintln!("listening on http://{bound}/mcp");
            return server.serve_http_on(listener).await.map_err(|e| e.to_string());
        }
        let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| format!("{addr}: {e}"))?;
        let bound = listener.local_addr().map_err(|e| e.to_string())?;
        eprintln!("listening on http://{bound}/mcp");
        let service = StreamableHttpService::new(
            || Ok(MacroServer::default()),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default(),
        );
        let router = axum::Router::new().nest_service("/mcp", service);
        // TCP_NODELAY, as toolcall-mcp's connections have it: without it an SSE answer's
        // second write waits for the client's delayed ACK (40 ms).
        let listener = listener.tap_io(|stream| {
            let _ = stream.set_nodelay(true);
        });
        axum::serve(listener, router).await.map_err(|e| e.to_string())
    });
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("error: {why}");
            ExitCode::FAILURE
        }
    }
}

// ---------------------------------------------------------------------------------------
// The floor: a bare hyper server (the child process)

/// `--serve-bare ADDR`: the transport's floor. hyper's HTTP/1 server on a multi-threaded
/// runtime, each request's body read whole and parsed with serde_json, and answered with
/// the bytes toolcall-mcp answers it with (`add`'s sum as a `tools/call` result, in the
/// same SSE events with the same headers: for a legacy session a priming event and the
/// answer, each with an event id; for 2026-07-28 the one answer event and its
/// `resultType`/`structuredContent`), but with no MCP library and none of the checks a
/// server owes its clients:
/// no `Host`, `Origin`, protocol-version or session check, no body or time limit, no cap
/// on calls or sessions. `initialize` gets a fresh `Mcp-Session-Id` (never looked at
/// again), a notification 202, a DELETE 200; prints `listening on http://ADDR/mcp`.
fn serve_bare(args: &[String]) -> ExitCode {
    let Some(addr) = args.first().and_then(|addr| addr.parse::<SocketAddr>().ok()) else {
        eprintln!("error: --serve-bare needs an address such as 127.0.0.1:0");
        return ExitCode::from(2);
    };
    let runtime = match multi_thread_runtime() {
        Ok(runtime) => runtime,
        Err(code) => return code,
    };
    let served: Result<(), String> = runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| format!("{addr}: {e}"))?;
        let bound = listener.local_addr().map_err(|e| e.to_string())?;
        eprintln!("listening on http://{bound}/mcp");
        loop {
            let stream = match listener.accept().await {
                Ok((stream, _)) => stream,
                Err(_) => {
                    // Out of descriptors, or a connection reset before it was taken.
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            };
            let _ = stream.set_nodelay(true);
            tokio::spawn(async move {
                let service = hyper::service::service_fn(bare_answer);
                let io = hyper_util::rt::TokioIo::new(stream);
                let _ = hyper::server::conn::http1::Builder::new().serve_connection(io, service).await;
            });
        }
    });
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("error: {why}");
            ExitCode::FAILURE
        }
    }
}

/// A JSON-RPC message as the bare server reads it.
#[derive(serde::Deserialize)]
struct BareMessage<'a> {
    #[serde(borrow)]
    id: Option<&'a serde_json::value::RawValue>,
    #[serde(borrow)]
    method: std::borrow::Cow<'a, str>,
    #[serde(borrow)]
    params: Option<&'a serde_json::value::RawValue>,
}

/// A `tools/call`'s params as the bare server reads them (`add`'s arguments).
#[derive(serde::Deserialize)]
struct BareCall<'a> {
    #[serde(borrow)]
    name: std::borrow::Cow<'a, str>,
    arguments: Option<BareAdd>,
}

/// `add`'s arguments.
#[derive(serde::Deserialize)]
struct BareAdd {
    a: i64,
    b: i64,
}

/// The session ids the bare server hands out (never checked).
static BARE_SESSIONS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// The bare server's request streams, for its event ids.
static BARE_STREAMS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1 << 48);

type BareResponse = hyper::Response<http_body_util::Full<hyper::body::Bytes>>;

/// One request of the bare server, answered.
async fn bare_answer(
    request: hyper::Request<hyper::body::Incoming>,
) -> Result<BareResponse, std::convert::Infallible> {
    use http_body_util::BodyExt as _;
    let status = |code: u16| {
        let mut response = BareResponse::new(http_body_util::Full::default());
        *response.status_mut() = hyper::StatusCode::from_u16(code).unwrap_or(hyper::StatusCode::OK);
        response
    };
    match *request.method() {
        hyper::Method::POST => {}
        hyper::Method::DELETE => return Ok(status(200)),
        _ => return Ok(status(405)),
    }
    let modern = request
        .headers()
        .get("mcp-protocol-version")
        .and_then(|version| version.to_str().ok())
        .is_some_and(|version| version >= STATELESS_VERSION);
    let Ok(body) = request.into_body().collect().await.map(|body| body.to_bytes()) else {
        return Ok(status(400));
    };
    let Ok(message) = serde_json::from_slice::<BareMessage<'_>>(&body) else {
        return Ok(status(400));
    };
    let Some(id) = message.id else { return Ok(status(202)) };
    let params = message.params.map_or("null", |params| params.get());
    let mut session = None;
    let result = match &*message.method {
        "tools/call" => match serde_json::from_str::<BareCall<'_>>(params) {
            Ok(BareCall { name, arguments: Some(BareAdd { a, b }) }) if name == "add" => {
                // What toolcall-mcp writes for `add`: the sum as text content (and, from
                // 2026-07-28, as structured content of a complete result).
                let sum = a.wrapping_add(b);
                Ok(if modern {
                    format!(
                        r#"{{"resultType":"complete","content":[{{"type":"text","text":"{sum}"}}],"structuredContent":{sum},"isError":false}}"#
                    )
                } else {
                    format!(r#"{{"content":[{{"type":"text","text":"{sum}"}}],"isError":false}}"#)
                })
            }
            _ => Err((-32602, "bare: only add(a, b) is served")),
        },
        "initialize" => {
            let number = BARE_SESSIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            session = Some(format!("bare-{number:016x}"));
            Ok(format!(
                r#"{{"protocolVersion":"{LEGACY_VERSION}","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"bare","version":"0"}}}}"#
            ))
        }
        "tools/list" => Ok(r#"{"tools":[{"name":"add","description":"Add two whole numbers.","inputSchema":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}}]}"#.to_owned()),
        _ => Err((-32601, "bare: no such method")),
    };
    let message = match result {
        Ok(result) => format!(r#"{{"jsonrpc":"2.0","id":{},"result":{result}}}"#, id.get()),
        Err((code, text)) => {
            format!(r#"{{"jsonrpc":"2.0","id":{},"error":{{"code":{code},"message":"{text}"}}}}"#, id.get())
        }
    };
    // A legacy answer is the second event of its request's stream, after a priming event.
    let events = if modern {
        format!("data: {message}\n\n")
    } else {
        let stream = BARE_STREAMS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        format!("data: \nid: 0/{stream}\nretry: 3000\n\ndata: {message}\nid: 1/{stream}\n\n")
    };
    let mut response = BareResponse::new(http_body_util::Full::new(events.into()));
    let headers = response.headers_mut();
    headers.insert(hyper::header::CONTENT_TYPE, hyper::header::HeaderValue::from_static("text/event-stream"));
    headers.insert(hyper::header::CACHE_CONTROL, hyper::header::HeaderValue::from_static("no-cache"));
    if let Some(session) = session.and_then(|id| hyper::header::HeaderValue::from_str(&id).ok()) {
        headers.insert("mcp-session-id", session);
    }
    Ok(response)
}

// ---------------------------------------------------------------------------------------
// Server processes

/// A server child process, killed when dropped.
struct Server {
    kind: Kind,
    child: Child,
    addr: SocketAddr,
    /// Where its stderr goes: a file, so that example-app's request log (a line per
    /// request) costs the driver nothing while it runs; read at the end.
    stderr: PathBuf,
    idle_rss_kb: Option<u64>,
    tools: Option<usize>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.stderr);
    }
}

impl Server {
    /// Starts `program args` (on the servers' CPUs when pinned) and waits for its
    /// `listening on URI` line and for a client to list its tools.
    async fn start(kind: Kind, program: &Path, args: &[&str], options: &Options) -> Result<Server, String> {
        let timeout = options.call_timeout;
        let stderr = std::env::temp_dir().join(format!("mcp_load-{}-{:?}.stderr", std::process::id(), kind));
        let file = std::fs::File::create(&stderr).map_err(|e| format!("{}: {e}", stderr.display()))?;
        let child = server_command(program, options)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(file)
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
        let placeholder = SocketAddr::from(([127, 0, 0, 1], 0));
        let mut server = Server { kind, child, addr: placeholder, stderr, idle_rss_kb: None, tools: None };
        let started = Instant::now();
        let uri = loop {
            let text = std::fs::read_to_string(&server.stderr).unwrap_or_default();
            if let Some(uri) = text.lines().find_map(|line| line.strip_prefix("listening on ")) {
                break uri.to_owned();
            }
            if started.elapsed() > START_LIMIT {
                return Err(format!(
                    "{} printed no `listening on` line within {START_LIMIT:?}; its stderr: {:?}",
                    program.display(),
                    server.stderr_lines()
                ));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        let host = uri.trim_start_matches("http://").trim_end_matches("/mcp");
        server.addr = host.parse().map_err(|_| format!("not an address: {uri}"))?;
        loop {
            match list_tools(server.addr, timeout).await {
                Ok(count) => {
                    server.tools = Some(count);
                    break;
                }
                Err(why) if started.elapsed() > START_LIMIT => {
                    return Err(format!("{uri} never answered: {why}"));
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        }
        server.idle_rss_kb = status_kb(server.child.id(), "VmRSS");
        Ok(server)
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What it wrote to stderr besides its address and its request log (at most 200
    /// lines).
    fn stderr_lines(&self) -> Vec<String> {
        let Ok(file) = std::fs::File::open(&self.stderr) else { return Vec::new() };
        BufReader::new(file)
            .lines()
            .map_while(Result::ok)
            // example-app's request log (one line per request, #46) is not a problem.
            .filter(|line| !line.starts_with("listening on ") && !line.starts_with("request "))
            .take(200)
            .collect()
    }

    /// How it ended, if it has.
    fn exited(&mut self) -> Option<String> {
        match self.child.try_wait() {
            Ok(Some(status)) => Some(status.to_string()),
            Ok(None) => None,
            Err(error) => Some(error.to_string()),
        }
    }
}

/// `program`, to be run on the servers' CPUs when pinned: under `taskset -c SERVERS`
/// (which becomes the program).
fn server_command(program: &Path, options: &Options) -> Command {
    match &options.pin {
        Some(pin) => {
            let mut command = Command::new("taskset");
            command.args(["-c", &pin.servers]).arg(program);
            command
        }
        None => Command::new(program),
    }
}

/// A `kB` field of `/proc/PID/status` (`VmRSS`, `VmHWM`).
fn status_kb(pid: u32, field: &str) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    text.lines().find_map(|line| {
        let rest = line.strip_prefix(field)?.strip_prefix(':')?.trim();
        rest.strip_suffix("kB")?.trim().parse().ok()
    })
}

/// Resets a process's peak RSS (`VmHWM`) to its current RSS (`clear_refs`, value 5).
fn reset_peak(pid: u32) -> bool {
    std::fs::write(format!("/proc/{pid}/clear_refs"), "5").is_ok()
}

/// User plus system CPU time of a process, in clock ticks (`/proc/PID/stat`).
fn cpu_ticks(pid: u32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command's closing parenthesis start at field 3 (state);
    // utime and stime are fields 14 and 15.
    let fields: Vec<&str> = text.rsplit_once(')')?.1.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(utime + stime)
}

/// A system setting as `getconf NAME` prints it, if it does.
fn getconf<T: std::str::FromStr>(name: &str) -> Option<T> {
    let out = Command::new("getconf").arg(name).output().ok()?;
    String::from_utf8(out.stdout).ok()?.trim().parse().ok()
}

/// The machine's CPUs (`getconf _NPROCESSORS_ONLN`), whatever this process is pinned to.
fn online_cpus() -> usize {
    getconf("_NPROCESSORS_ONLN").unwrap_or(0)
}

/// Clock ticks per second (`getconf CLK_TCK`; 100 on Linux when that fails).
fn ticks_per_second() -> f64 {
    getconf("CLK_TCK").unwrap_or(100.0)
}

// ---------------------------------------------------------------------------------------
// The raw HTTP/1.1 client

/// One keep-alive connection to a server's `/mcp`.
struct Conn {
    addr: SocketAddr,
    stream: Option<TcpStream>,
    /// Bytes read and not yet consumed.
    buf: Vec<u8>,
    /// The request being written (kept to reuse its allocation).
    out: Vec<u8>,
}

/// One HTTP response: its status, session header and body.
struct Reply {
    status: u16,
    session: Option<String>,
    body: Vec<u8>,
}

impl Conn {
    fn new(addr: SocketAddr) -> Conn {
        Conn { addr, stream: None, buf: Vec::with_capacity(8192), out: Vec::with_capacity(1024) }
    }

    /// Sends one request (`method` `/mcp` with `headers` and `body`) and reads its whole
    /// response, opening the connection when it is not open.
    async fn send(&mut self, method: &str, headers: &[(&str, &str)], body: &str) -> Result<Reply, String> {
        if self.stream.is_none() {
            let stream = TcpStream::connect(self.addr).await.map_err(|e| format!("connect: {e}"))?;
            let _ = stream.set_nodelay(true);
            self.stream = Some(stream);
            self.buf.clear();
        }
        self.out.clear();
        let _ = write!(
            Text(&mut self.out),
            "{method} /mcp HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\n\
             accept: application/json, text/event-stream\r\ncontent-length: {}\r\n",
            self.addr,
            body.len()
        );
        for (name, value) in headers {
            let _ = write!(Text(&mut self.out), "{name}: {value}\r\n");
        }
        self.out.extend_from_slice(b"\r\n");
        self.out.extend_from_slice(body.as_bytes());
        let reply = self.exchange().await;
        if reply.is_err() {
            self.stream = None;
        }
        reply
    }

    async fn exchange(&mut self) -> Result<Reply, String> {
        let Some(stream) = self.stream.as_mut() else { return Err("not connected".to_owned()) };
        stream.write_all(&self.out).await.map_err(|e| format!("write: {e}"))?;
        let head_end = loop {
            if let Some(end) = find(&self.buf, b"\r\n\r\n") {
                break end;
            }
            self.fill().await?;
        };
        let head = std::str::from_utf8(&self.buf[..head_end]).map_err(|_| "head is not text".to_owned())?;
        let mut lines = head.split("\r\n");
        let status: u16 = lines
            .next()
            .and_then(|line| line.split(' ').nth(1))
            .and_then(|code| code.parse().ok())
            .ok_or_else(|| "no status line".to_owned())?;
        let (mut length, mut chunked, mut session, mut close) = (None, false, None, false);
        for line in lines {
            let Some((name, value)) = line.split_once(':') else { continue };
            let value = value.trim();
            match name.trim().to_ascii_lowercase().as_str() {
                "content-length" => length = value.parse::<usize>().ok(),
                "transfer-encoding" => chunked = value.eq_ignore_ascii_case("chunked"),
                "mcp-session-id" => session = Some(value.to_owned()),
                "connection" => close = value.eq_ignore_ascii_case("close"),
                _ => {}
            }
        }
        self.buf.drain(..head_end + 4);
        // 1xx, 204 and 304 have no body, whatever the head says.
        let bodiless = status < 200 || status == 204 || status == 304;
        let body = if bodiless {
            Vec::new()
        } else if chunked {
            self.chunked().await?
        } else if let Some(length) = length {
            while self.buf.len() < length {
                self.fill().await?;
            }
            self.buf.drain(..length).collect()
        } else {
            while self.fill().await.is_ok() {}
            close = true;
            std::mem::take(&mut self.buf)
        };
        if close {
            self.stream = None;
        }
        Ok(Reply { status, session, body })
    }

    /// A chunked body, to its last chunk.
    async fn chunked(&mut self) -> Result<Vec<u8>, String> {
        let mut body = Vec::new();
        loop {
            let line_end = loop {
                if let Some(end) = find(&self.buf, b"\r\n") {
                    break end;
                }
                self.fill().await?;
            };
            let size = std::str::from_utf8(&self.buf[..line_end])
                .ok()
                .and_then(|line| usize::from_str_radix(line.split(';').next().unwrap_or("").trim(), 16).ok())
                .ok_or_else(|| "bad chunk size".to_owned())?;
            while self.buf.len() < line_end + 2 + size + 2 {
                self.fill().await?;
            }
            body.extend_from_slice(&self.buf[line_end + 2..line_end + 2 + size]);
            self.buf.drain(..line_end + 2 + size + 2);
            if size == 0 {
                return Ok(body);
            }
        }
    }

    /// Reads more bytes; `Err` at the end of the stream.
    async fn fill(&mut self) -> Result<(), String> {
        let Some(stream) = self.stream.as_mut() else { return Err("not connected".to_owned()) };
        let mut chunk = [0u8; 16 * 1024];
        let read = stream.read(&mut chunk).await.map_err(|e| format!("read: {e}"))?;
        if read == 0 {
            return Err("connection closed".to_owned());
        }
        self.buf.extend_from_slice(&chunk[..read]);
        Ok(())
    }
}

/// `fmt::Write` into a byte buffer.
struct Text<'a>(&'a mut Vec<u8>);

impl std::fmt::Write for Text<'_> {
    fn write_str(&mut self, text: &str) -> std::fmt::Result {
        self.0.extend_from_slice(text.as_bytes());
        Ok(())
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|window| window == needle)
}

// ---------------------------------------------------------------------------------------
// Redis: the server the `toolcall-redis` store runs on, a raw RESP client to read its
// counters, and a proxy that delays it

/// A `redis-server` child on a free loopback port, without persistence; killed when
/// dropped.
struct RedisServer {
    child: Child,
    addr: SocketAddr,
    /// What `redis-server --version` printed, up to its build details.
    version: String,
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl RedisServer {
    /// Starts `redis-server --port P --bind 127.0.0.1 --save "" --appendonly no` (on the
    /// servers' CPUs when pinned: it is the replicas' side) and waits until it answers.
    async fn start(options: &Options) -> Result<RedisServer, String> {
        let program = match &options.redis_server {
            Some(path) => path.clone(),
            None => default_redis_server().ok_or_else(|| {
                "no redis-server (the toolcall-redis server's store): install it (Debian: redis-server), \
                 pass --redis-server PATH, or leave toolcall-redis out of --servers"
                    .to_owned()
            })?,
        };
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .map_err(|e| format!("no free port for redis-server: {e}"))?
            .port();
        let child = server_command(&program, options)
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
        let version = Command::new(&program)
            .arg("--version")
            .output()
            .ok()
            .and_then(|out| String::from_utf8(out.stdout).ok())
            .and_then(|text| text.split_whitespace().find(|word| word.starts_with("v=")).map(str::to_owned))
            .map_or_else(
                || "redis-server".to_owned(),
                |v| format!("redis-server {}", v.trim_start_matches("v=")),
            );
        let server = RedisServer { child, addr: SocketAddr::from(([127, 0, 0, 1], port)), version };
        let started = Instant::now();
        loop {
            match redis_command(server.addr, &["PING"]).await {
                Ok(_) => return Ok(server),
                Err(why) if started.elapsed() > START_LIMIT => {
                    return Err(format!("{} never answered on {}: {why}", program.display(), server.addr));
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        }
    }

    fn url(&self) -> String {
        format!("redis://{}", self.addr)
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }
}

/// Debian's `redis-server`, a local install's, or the first on `PATH`.
fn default_redis_server() -> Option<PathBuf> {
    let known = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"].map(PathBuf::from);
    if let Some(found) = known.into_iter().find(|path| path.is_file()) {
        return Some(found);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join("redis-server")).find(|path| path.is_file())
}

/// One RESP answer.
#[derive(Debug)]
enum Resp {
    /// A simple or bulk string.
    Text(String),
    Int(i64),
    Nil,
    Array(Vec<Resp>),
}

impl Resp {
    fn text(&self) -> Option<&str> {
        match self {
            Resp::Text(text) => Some(text),
            _ => None,
        }
    }

    fn int(&self) -> Option<i64> {
        match self {
            Resp::Int(n) => Some(*n),
            _ => None,
        }
    }
}

/// One RESP value at the start of `buf` and its length; `Ok(None)` while incomplete.
fn parse_resp(buf: &[u8]) -> Result<Option<(Resp, usize)>, String> {
    let Some(line_end) = find(buf, b"\r\n") else { return Ok(None) };
    let line = std::str::from_utf8(buf.get(1..line_end).unwrap_or_default())
        .map_err(|_| "RESP: a line is not text".to_owned())?;
    let number = || line.parse::<i64>().map_err(|_| format!("RESP: not a number: {line}"));
    let after = line_end + 2;
    match buf.first() {
        Some(b'+') => Ok(Some((Resp::Text(line.to_owned()), after))),
        Some(b'-') => Err(format!("Redis: {line}")),
        Some(b':') => Ok(Some((Resp::Int(number()?), after))),
        Some(b'$') => {
            let Ok(length) = usize::try_from(number()?) else { return Ok(Some((Resp::Nil, after))) };
            match buf.get(after..after + length) {
                Some(bytes) if buf.len() >= after + length + 2 => {
                    Ok(Some((Resp::Text(String::from_utf8_lossy(bytes).into_owned()), after + length + 2)))
                }
                _ => Ok(None),
            }
        }
        Some(b'*') => {
            let Ok(count) = usize::try_from(number()?) else { return Ok(Some((Resp::Nil, after))) };
            let mut items = Vec::with_capacity(count.min(1024));
            let mut at = after;
            for _ in 0..count {
                match parse_resp(buf.get(at..).unwrap_or_default())? {
                    Some((item, used)) => {
                        items.push(item);
                        at += used;
                    }
                    None => return Ok(None),
                }
            }
            Ok(Some((Resp::Array(items), at)))
        }
        _ => Err("RESP: an answer of an unknown type".to_owned()),
    }
}

/// A connection to Redis speaking RESP, for the driver's own reads.
struct RespConn {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl RespConn {
    async fn connect(addr: SocketAddr) -> Result<RespConn, String> {
        let stream = TcpStream::connect(addr).await.map_err(|e| format!("Redis {addr}: {e}"))?;
        Ok(RespConn { stream, buf: Vec::new() })
    }

    /// One command and its answer.
    async fn command(&mut self, args: &[&str]) -> Result<Resp, String> {
        let mut out = format!("*{}\r\n", args.len());
        for arg in args {
            let _ = write!(out, "${}\r\n{arg}\r\n", arg.len());
        }
        self.stream.write_all(out.as_bytes()).await.map_err(|e| format!("Redis: write: {e}"))?;
        loop {
            if let Some((value, used)) = parse_resp(&self.buf)? {
                self.buf.drain(..used);
                return Ok(value);
            }
            let mut chunk = [0u8; 16 * 1024];
            let read = self.stream.read(&mut chunk).await.map_err(|e| format!("Redis: read: {e}"))?;
            if read == 0 {
                return Err("Redis closed the connection".to_owned());
            }
            self.buf.extend_from_slice(&chunk[..read]);
        }
    }
}

/// One command on a connection of its own.
async fn redis_command(addr: SocketAddr, args: &[&str]) -> Result<Resp, String> {
    let mut conn = RespConn::connect(addr).await?;
    within(Duration::from_secs(5), conn.command(args)).await
}

/// The commands the driver sends itself, left out of what the servers sent.
const DRIVER_COMMANDS: [&str; 6] = ["info", "ping", "scan", "memory|usage", "strlen", "dbsize"];

/// How many times Redis has run each command (`INFO commandstats`), by command.
async fn commandstats(addr: SocketAddr) -> Result<BTreeMap<String, u64>, String> {
    let info = redis_command(addr, &["INFO", "commandstats"]).await?;
    let text = info.text().ok_or_else(|| "INFO commandstats: not text".to_owned())?;
    Ok(text
        .lines()
        .filter_map(|line| {
            let (name, fields) = line.strip_prefix("cmdstat_")?.split_once(':')?;
            let calls = fields.split(',').find_map(|field| field.strip_prefix("calls="))?.parse().ok()?;
            Some((name.to_owned(), calls))
        })
        .collect())
}

/// The commands run between two `commandstats`, the driver's own left out.
fn commands_between(before: &BTreeMap<String, u64>, after: &BTreeMap<String, u64>) -> BTreeMap<String, u64> {
    after
        .iter()
        .filter(|(name, _)| !DRIVER_COMMANDS.contains(&name.as_str()))
        .map(|(name, &calls)| (name.clone(), calls.saturating_sub(before.get(name).copied().unwrap_or(0))))
        .filter(|(_, calls)| *calls > 0)
        .collect()
}

/// Redis's `used_memory` (bytes), from `INFO memory`.
async fn used_memory(addr: SocketAddr) -> Result<u64, String> {
    let info = redis_command(addr, &["INFO", "memory"]).await?;
    let text = info.text().ok_or_else(|| "INFO memory: not text".to_owned())?;
    text.lines()
        .find_map(|line| line.strip_prefix("used_memory:")?.trim().parse().ok())
        .ok_or_else(|| "INFO memory: no used_memory".to_owned())
}

/// What sessions occupy in Redis, read from up to `most` of their keys.
#[derive(Clone, Debug, Default)]
struct SessionKeys {
    /// Keys under [`toolcall_mcp::SESSION_KEY_PREFIX`] (`SCAN`).
    keys: usize,
    /// `MEMORY USAGE key SAMPLES 0` of each key read: key, value and Redis's overhead.
    usage: Vec<u64>,
    /// `STRLEN` of each key read: the stored JSON's bytes.
    value: Vec<u64>,
}

/// The session keys in the Redis at `addr`: how many, and the sizes of up to `most`.
async fn session_keys(addr: SocketAddr, most: usize) -> Result<SessionKeys, String> {
    within(Duration::from_secs(30), read_session_keys(addr, most)).await
}

async fn read_session_keys(addr: SocketAddr, most: usize) -> Result<SessionKeys, String> {
    let mut conn = RespConn::connect(addr).await?;
    let pattern = format!("{}*", toolcall_mcp::SESSION_KEY_PREFIX);
    let (mut cursor, mut keys, mut counted) = ("0".to_owned(), Vec::new(), 0);
    loop {
        let answer = conn.command(&["SCAN", &cursor, "MATCH", &pattern, "COUNT", "1000"]).await?;
        let Resp::Array(parts) = answer else { return Err("SCAN: not an array".to_owned()) };
        let next = parts.first().and_then(Resp::text).ok_or_else(|| "SCAN: no cursor".to_owned())?;
        cursor = next.to_owned();
        if let Some(Resp::Array(found)) = parts.get(1) {
            counted += found.len();
            keys.extend(found.iter().filter_map(Resp::text).map(str::to_owned));
        }
        if cursor == "0" {
            break;
        }
    }
    let mut sizes = SessionKeys { keys: counted, ..SessionKeys::default() };
    for key in keys.iter().take(most) {
        let usage = conn.command(&["MEMORY", "USAGE", key, "SAMPLES", "0"]).await?;
        let value = conn.command(&["STRLEN", key]).await?;
        if let (Some(usage), Some(value)) = (usage.int(), value.int()) {
            sizes.usage.push(u64::try_from(usage).unwrap_or(0));
            sizes.value.push(u64::try_from(value).unwrap_or(0));
        }
    }
    Ok(sizes)
}

/// A TCP proxy in this process in front of `target` that holds every byte `delay` in each
/// direction before forwarding it (bytes read together are sent together, and a
/// pipelined command overtakes nothing: each direction is one ordered queue). Stops when
/// dropped.
struct DelayingProxy {
    addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for DelayingProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl DelayingProxy {
    async fn start(target: SocketAddr, delay: Duration) -> Result<DelayingProxy, String> {
        let listener =
            tokio::net::TcpListener::bind("127.0.0.1:0").await.map_err(|e| format!("the proxy: {e}"))?;
        let addr = listener.local_addr().map_err(|e| format!("the proxy: {e}"))?;
        let task = tokio::spawn(async move {
            let mut pumps = tokio::task::JoinSet::new();
            while let Ok((inbound, _)) = listener.accept().await {
                let Ok(outbound) = TcpStream::connect(target).await else { continue };
                let _ = (inbound.set_nodelay(true), outbound.set_nodelay(true));
                let (from_client, to_client) = inbound.into_split();
                let (from_redis, to_redis) = outbound.into_split();
                pumps.spawn(delayed_pump(from_client, to_redis, delay));
                pumps.spawn(delayed_pump(from_redis, to_client, delay));
            }
        });
        Ok(DelayingProxy { addr, task })
    }
}

/// Forwards what `from` reads to `to`, each read `delay` after it was read.
async fn delayed_pump(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    delay: Duration,
) {
    let (queue, mut queued) = tokio::sync::mpsc::unbounded_channel::<(Instant, Vec<u8>)>();
    let writer = async move {
        while let Some((read_at, bytes)) = queued.recv().await {
            tokio::time::sleep_until((read_at + delay).into()).await;
            if to.write_all(&bytes).await.is_err() {
                break;
            }
        }
        let _ = to.shutdown().await;
    };
    let reader = async move {
        let mut chunk = vec![0u8; 16 * 1024];
        loop {
            match from.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(read) => {
                    if queue.send((Instant::now(), chunk[..read].to_vec())).is_err() {
                        break;
                    }
                }
            }
        }
    };
    tokio::join!(writer, reader);
}

// ---------------------------------------------------------------------------------------
// MCP over the raw client

/// One MCP client: a connection, and a session in legacy mode.
struct Client {
    conn: Conn,
    mode: Mode,
    session: Option<String>,
    next_id: u64,
}

/// The part of a `tools/call` answer that is checked.
#[derive(serde::Deserialize)]
struct Answer {
    result: Option<CallResult>,
    error: Option<Value>,
}

#[derive(serde::Deserialize)]
struct CallResult {
    content: Vec<TextBlock>,
    #[serde(rename = "isError")]
    is_error: Option<bool>,
}

#[derive(serde::Deserialize)]
struct TextBlock {
    text: Option<String>,
}

impl Client {
    /// A client of `addr` in `mode`; a legacy one opens its session.
    async fn connect(addr: SocketAddr, mode: Mode, timeout: Duration) -> Result<Client, String> {
        let mut client = Client { conn: Conn::new(addr), mode, session: None, next_id: 1 };
        if mode == Mode::Legacy {
            within(timeout, client.open_session()).await?;
        }
        Ok(client)
    }

    async fn open_session(&mut self) -> Result<(), String> {
        let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": LEGACY_VERSION, "capabilities": {},
            "clientInfo": {"name": "mcp_load", "version": "1"}}})
        .to_string();
        let reply = self.conn.send("POST", &[], &initialize).await?;
        if reply.status != 200 {
            return Err(format!(
                "initialize: HTTP {}: {}",
                reply.status,
                String::from_utf8_lossy(&reply.body)
            ));
        }
        let session = reply.session.ok_or_else(|| "initialize: no Mcp-Session-Id".to_owned())?;
        let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let headers = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", LEGACY_VERSION)];
        let reply = self.conn.send("POST", &headers, initialized).await?;
        if reply.status != 202 {
            return Err(format!("initialized: HTTP {}", reply.status));
        }
        self.session = Some(session);
        Ok(())
    }

    /// Ends a legacy client's session.
    async fn close(self) {
        let _ = self.end().await;
    }

    /// Ends a legacy client's session: `Err` unless the server answered 2xx.
    async fn end(mut self) -> Result<(), String> {
        let Some(session) = self.session.take() else { return Ok(()) };
        let headers = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", LEGACY_VERSION)];
        let reply = self.conn.send("DELETE", &headers, "").await?;
        if (200..300).contains(&reply.status) {
            Ok(())
        } else {
            Err(format!("DELETE: HTTP {}: {}", reply.status, String::from_utf8_lossy(&reply.body)))
        }
    }

    /// One request of `method` with `params` (JSON text); the JSON-RPC answer's data.
    async fn request(&mut self, method: &str, params: &str, name: Option<&str>) -> Result<Vec<u8>, String> {
        let id = self.next_id;
        self.next_id += 1;
        let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#);
        let reply = match (self.mode, &self.session) {
            (Mode::Legacy, Some(session)) => {
                let headers =
                    [("mcp-session-id", session.as_str()), ("mcp-protocol-version", LEGACY_VERSION)];
                self.conn.send("POST", &headers, &body).await?
            }
            _ => {
                let mut headers = vec![("mcp-protocol-version", STATELESS_VERSION), ("mcp-method", method)];
                if let Some(name) = name {
                    headers.push(("mcp-name", name));
                }
                self.conn.send("POST", &headers, &body).await?
            }
        };
        if reply.status != 200 {
            return Err(format!("HTTP {}: {}", reply.status, String::from_utf8_lossy(&reply.body)));
        }
        answer_data(&reply.body)
            .ok_or_else(|| format!("no answer in: {}", String::from_utf8_lossy(&reply.body)))
    }

    /// `params` with the revision's `_meta` (stateless requests carry it).
    fn params(&self, mut params: serde_json::Map<String, Value>) -> String {
        if self.mode == Mode::Stateless {
            params.insert(
                "_meta".to_owned(),
                json!({"io.modelcontextprotocol/protocolVersion": STATELESS_VERSION,
                       "io.modelcontextprotocol/clientCapabilities": {},
                       "io.modelcontextprotocol/clientInfo": {"name": "mcp_load", "version": "1"}}),
            );
        }
        Value::Object(params).to_string()
    }

    /// One checked call of `tool`: `Err` says what went wrong.
    async fn call(&mut self, tool: Tool, who: usize, number: usize) -> Result<(), String> {
        let (args, expected) = tool.call(who, number);
        let params = match self.mode {
            // Written out: the hot loop builds no `Value`.
            Mode::Legacy => format!(r#"{{"name":"{}","arguments":{args}}}"#, tool.name()),
            Mode::Stateless => format!(
                r#"{{"name":"{}","arguments":{args},"_meta":{{"io.modelcontextprotocol/protocolVersion":"{STATELESS_VERSION}","io.modelcontextprotocol/clientCapabilities":{{}},"io.modelcontextprotocol/clientInfo":{{"name":"mcp_load","version":"1"}}}}}}"#,
                tool.name()
            ),
        };
        let data = self.request("tools/call", &params, Some(tool.name())).await?;
        let answer: Answer =
            serde_json::from_slice(&data).map_err(|e| format!("answer is not JSON-RPC ({e})"))?;
        if let Some(error) = answer.error {
            return Err(format!("protocol error: {error}"));
        }
        let result = answer.result.ok_or_else(|| "no result".to_owned())?;
        let text = result.content.first().and_then(|block| block.text.as_deref()).unwrap_or("");
        if result.is_error == Some(true) {
            return Err(format!("tool error: {text}"));
        }
        // The text as the expected value is written (`add`'s sum) needs no parse.
        if expected.as_i64().is_some_and(|sum| text.parse::<i64>() == Ok(sum)) {
            return Ok(());
        }
        let value: Value =
            serde_json::from_str(text).map_err(|_| format!("wrong result (not JSON): {text}"))?;
        if value == expected { Ok(()) } else { Err(format!("wrong result: {text}")) }
    }
}

/// The data of the first SSE event (or the JSON body) that is a JSON-RPC answer.
fn answer_data(body: &[u8]) -> Option<Vec<u8>> {
    if body.first() == Some(&b'{') {
        return Some(body.to_vec());
    }
    let text = std::str::from_utf8(body).ok()?;
    text.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(|data| data.strip_prefix(' ').unwrap_or(data))
        .find(|data| data.starts_with('{') && (data.contains("\"result\"") || data.contains("\"error\"")))
        .map(|data| data.as_bytes().to_vec())
}

/// `work`, or a time-out error after `limit`.
async fn within<T>(limit: Duration, work: impl Future<Output = Result<T, String>>) -> Result<T, String> {
    match tokio::time::timeout(limit, work).await {
        Ok(outcome) => outcome,
        Err(_) => Err(format!("timed out after {limit:?}")),
    }
}

/// How many tools a server lists (a legacy session, opened and ended).
async fn list_tools(addr: SocketAddr, timeout: Duration) -> Result<usize, String> {
    let mut client = Client::connect(addr, Mode::Legacy, timeout).await?;
    let params = client.params(serde_json::Map::new());
    let data = within(timeout, client.request("tools/list", &params, None)).await;
    client.close().await;
    let value: Value = serde_json::from_slice(&data?).map_err(|e| e.to_string())?;
    value["result"]["tools"].as_array().map(Vec::len).ok_or_else(|| format!("no tools in {value}"))
}

/// Failures by kind: count and the first message of that kind.
#[derive(Clone, Debug, Default)]
struct Errors(BTreeMap<String, (usize, String)>);

impl Errors {
    fn add(&mut self, message: String) {
        // Messages of one kind differ in numbers (ids, counts) only.
        let key: String =
            message.chars().take(72).map(|c| if c.is_ascii_digit() { '#' } else { c }).collect();
        self.0.entry(key).or_insert((0, message)).0 += 1;
    }

    fn merge(&mut self, other: Errors) {
        for (key, (count, example)) in other.0 {
            self.0.entry(key).or_insert((0, example)).0 += count;
        }
    }

    fn total(&self) -> usize {
        self.0.values().map(|(count, _)| count).sum()
    }
}

// ---------------------------------------------------------------------------------------
// Throughput

/// One client's part of one measured phase.
#[derive(Default)]
struct ClientOutcome {
    ok: usize,
    latencies: Vec<Duration>,
    errors: Errors,
    warmup_errors: Errors,
    not_run: usize,
}

/// Warm-up calls, then (after every client is warm, and the driver has read what it reads
/// before the measured calls: `start` is passed twice) `calls` measured calls, until
/// `deadline`.
async fn drive(
    mut client: Client,
    who: usize,
    tool: Tool,
    (warmup, calls): (usize, usize),
    start: Arc<Barrier>,
    deadline: Instant,
) -> (ClientOutcome, Client) {
    let mut outcome = ClientOutcome { latencies: Vec::with_capacity(calls), ..Default::default() };
    for number in 0..warmup {
        if Instant::now() >= deadline {
            break;
        }
        if let Err(why) = client.call(tool, who, number).await {
            outcome.warmup_errors.add(why);
        }
    }
    start.wait().await;
    start.wait().await;
    for number in 0..calls {
        if Instant::now() >= deadline {
            outcome.not_run = calls - number;
            break;
        }
        let sent = Instant::now();
        match client.call(tool, who, warmup + number).await {
            Ok(()) => {
                outcome.ok += 1;
                outcome.latencies.push(sent.elapsed());
            }
            Err(why) => outcome.errors.add(why),
        }
    }
    (outcome, client)
}

/// One server in one cell of one round.
struct Phase {
    kind: Kind,
    mode: Mode,
    clients: usize,
    round: usize,
    ok: usize,
    latencies: Vec<Duration>,
    errors: Errors,
    warmup_errors: Errors,
    not_run: usize,
    elapsed: Duration,
    cpu_ticks: Option<u64>,
    /// How long each legacy client's session took to open (initialize and initialized).
    opens: Vec<Duration>,
    /// What the server's Redis did, for a server whose sessions are there.
    redis: Option<RedisCell>,
}

/// What Redis did in one cell.
#[derive(Default)]
struct RedisCell {
    /// The commands run during the measured calls (after the sessions were opened and
    /// every client warmed up, before any session ended).
    calls: BTreeMap<String, u64>,
    /// The commands run over the whole cell: sessions opened, warm-up, calls, DELETEs.
    whole: BTreeMap<String, u64>,
    /// Redis's CPU time over the measured calls, in clock ticks.
    cpu_ticks: Option<u64>,
    /// The sessions' keys while the clients' sessions were open.
    keys: SessionKeys,
    /// What went wrong reading Redis's counters (the figures above are then partial).
    errors: Errors,
}

/// What a set of clients did against one server.
struct Load {
    kind: Kind,
    mode: Mode,
    clients: usize,
    tool: Tool,
    warmup: usize,
    calls: usize,
    deadline: Instant,
    timeout: Duration,
    /// The Redis the server's sessions are in, and its process, whose commands are counted.
    redis: Option<(SocketAddr, u32)>,
}

impl Load {
    /// Runs the load against `server`: connects the clients, warms them up, measures.
    async fn run(&self, server: &Server, round: usize) -> Phase {
        let mut phase = Phase {
            kind: self.kind,
            mode: self.mode,
            clients: self.clients,
            round,
            ok: 0,
            latencies: Vec::new(),
            errors: Errors::default(),
            warmup_errors: Errors::default(),
            not_run: 0,
            elapsed: Duration::ZERO,
            cpu_ticks: None,
            opens: Vec::new(),
            redis: None,
        };
        let mut redis = self.redis.map(|_| RedisCell::default());
        let redis_addr = self.redis.map(|(addr, _)| addr);
        let before = snapshot(redis_addr, &mut redis).await;
        let connecting: Vec<_> = (0..self.clients)
            .map(|_| {
                let (addr, mode, timeout) = (server.addr, self.mode, self.timeout);
                tokio::spawn(async move {
                    let began = Instant::now();
                    let client = Client::connect(addr, mode, timeout).await;
                    (client, began.elapsed())
                })
            })
            .collect();
        let mut clients = Vec::new();
        for task in connecting {
            match task.await {
                Ok((Ok(client), took)) => {
                    if self.mode == Mode::Legacy {
                        phase.opens.push(took);
                    }
                    clients.push(client);
                }
                Ok((Err(why), _)) => {
                    phase.errors.add(why);
                    phase.not_run += self.calls;
                }
                Err(error) => {
                    phase.errors.add(format!("connect task failed: {error}"));
                    phase.not_run += self.calls;
                }
            }
        }
        let start = Arc::new(Barrier::new(clients.len() + 1));
        let tasks: Vec<_> = clients
            .into_iter()
            .enumerate()
            .map(|(who, client)| {
                let start = Arc::clone(&start);
                tokio::spawn(drive(client, who, self.tool, (self.warmup, self.calls), start, self.deadline))
            })
            .collect();
        // Every client is warm: what Redis has done so far is not the calls'.
        start.wait().await;
        let at_start = snapshot(redis_addr, &mut redis).await;
        let redis_cpu = self.redis.and_then(|(_, pid)| cpu_ticks(pid));
        start.wait().await;
        let started = Instant::now();
        let cpu_before = cpu_ticks(server.pid());
        let mut done = Vec::new();
        for task in tasks {
            match task.await {
                Ok(outcome) => done.push(outcome),
                Err(error) => {
                    phase.errors.add(format!("client task failed: {error}"));
                    phase.not_run += self.calls;
                }
            }
        }
        phase.elapsed = started.elapsed();
        phase.cpu_ticks = cpu_before.zip(cpu_ticks(server.pid())).map(|(a, b)| b.saturating_sub(a));
        let at_end = snapshot(redis_addr, &mut redis).await;
        if let (Some(cell), Some((addr, pid))) = (redis.as_mut(), self.redis) {
            cell.cpu_ticks = redis_cpu.zip(cpu_ticks(pid)).map(|(a, b)| b.saturating_sub(a));
            if let (Some(start), Some(end)) = (&at_start, &at_end) {
                cell.calls = commands_between(start, end);
            }
            match session_keys(addr, 16).await {
                Ok(keys) => cell.keys = keys,
                Err(why) => cell.errors.add(why),
            }
        }
        for (outcome, client) in done {
            phase.ok += outcome.ok;
            phase.latencies.extend(outcome.latencies);
            phase.errors.merge(outcome.errors);
            phase.warmup_errors.merge(outcome.warmup_errors);
            phase.not_run += outcome.not_run;
            let _ = tokio::time::timeout(self.timeout, client.close()).await;
        }
        let after = snapshot(redis_addr, &mut redis).await;
        if let (Some(cell), Some(before), Some(after)) = (redis.as_mut(), &before, &after) {
            cell.whole = commands_between(before, after);
        }
        phase.redis = redis;
        phase
    }
}

/// Redis's `commandstats` when there is a Redis (`addr`); a failure to read them is noted
/// in `cell`.
async fn snapshot(addr: Option<SocketAddr>, cell: &mut Option<RedisCell>) -> Option<BTreeMap<String, u64>> {
    match commandstats(addr?).await {
        Ok(stats) => Some(stats),
        Err(why) => {
            if let Some(cell) = cell.as_mut() {
                cell.errors.add(why);
            }
            None
        }
    }
}

// ---------------------------------------------------------------------------------------
// Idle sessions and the soak

/// A server's RSS around opening idle legacy sessions.
struct IdleSessions {
    kind: Kind,
    opened: usize,
    before_kb: Option<u64>,
    after_kb: Option<u64>,
    closed_kb: Option<u64>,
    errors: Errors,
    /// What the sessions occupied and cost in Redis, for a server whose sessions are there.
    redis: Option<IdleRedis>,
}

/// Idle sessions in Redis.
#[derive(Default)]
struct IdleRedis {
    /// Redis's `used_memory` before the sessions were opened and with them.
    used_before: Option<u64>,
    used_with: Option<u64>,
    /// Their keys, with them open.
    keys: SessionKeys,
    /// The commands opening them ran (initialize, initialized and one call each).
    opening: BTreeMap<String, u64>,
    /// The commands ending them ran (DELETE each).
    ending: BTreeMap<String, u64>,
    /// Session keys left after the DELETEs.
    keys_after: Option<usize>,
    errors: Errors,
}

/// Opens `count` legacy sessions on `server` (initialize, initialized, one call each) over
/// a few connections, leaves them idle and reads the RSS; then ends them.
/// With `redis` (the server's sessions are there), also what they occupy there and the
/// commands opening and ending them ran.
async fn idle_sessions(
    server: &Server,
    count: usize,
    tool: Tool,
    timeout: Duration,
    redis: Option<SocketAddr>,
) -> IdleSessions {
    let mut outcome = IdleSessions {
        kind: server.kind,
        opened: 0,
        before_kb: None,
        after_kb: None,
        closed_kb: None,
        errors: Errors::default(),
        redis: None,
    };
    tokio::time::sleep(SETTLE).await;
    outcome.before_kb = status_kb(server.pid(), "VmRSS");
    let mut in_redis = redis.map(|_| IdleRedis::default());
    let mut stats_before = None;
    if let (Some(addr), Some(idle)) = (redis, in_redis.as_mut()) {
        match used_memory(addr).await {
            Ok(bytes) => idle.used_before = Some(bytes),
            Err(why) => idle.errors.add(why),
        }
        stats_before = snapshot_into(addr, &mut idle.errors).await;
    }
    const LANES: usize = 16;
    let lanes: Vec<_> = (0..LANES)
        .map(|lane| {
            let addr = server.addr;
            let share = count / LANES + usize::from(lane < count % LANES);
            tokio::spawn(async move {
                let mut sessions = Vec::new();
                let mut errors = Errors::default();
                let mut conn = Some(Conn::new(addr));
                for number in 0..share {
                    let mut client = Client {
                        conn: conn.take().unwrap_or_else(|| Conn::new(addr)),
                        mode: Mode::Legacy,
                        session: None,
                        next_id: 1,
                    };
                    let opened = within(timeout, client.open_session()).await;
                    let called = match opened {
                        Ok(()) => within(timeout, client.call(tool, lane, number)).await,
                        Err(why) => Err(why),
                    };
                    if let Err(why) = called {
                        errors.add(why);
                    }
                    if let Some(session) = client.session.take() {
                        sessions.push(session);
                    }
                    conn = Some(client.conn);
                }
                (sessions, errors, conn)
            })
        })
        .collect();
    let mut opened = Vec::new();
    for lane in lanes {
        match lane.await {
            Ok((sessions, errors, conn)) => {
                outcome.errors.merge(errors);
                opened.push((sessions, conn));
            }
            Err(error) => outcome.errors.add(format!("session task failed: {error}")),
        }
    }
    outcome.opened = opened.iter().map(|(sessions, _)| sessions.len()).sum();
    let mut stats_open = None;
    if let (Some(addr), Some(idle)) = (redis, in_redis.as_mut()) {
        stats_open = snapshot_into(addr, &mut idle.errors).await;
        if let (Some(before), Some(open)) = (&stats_before, &stats_open) {
            idle.opening = commands_between(before, open);
        }
        match used_memory(addr).await {
            Ok(bytes) => idle.used_with = Some(bytes),
            Err(why) => idle.errors.add(why),
        }
        match session_keys(addr, 64).await {
            Ok(keys) => idle.keys = keys,
            Err(why) => idle.errors.add(why),
        }
    }
    tokio::time::sleep(SETTLE).await;
    outcome.after_kb = status_kb(server.pid(), "VmRSS");
    for (sessions, conn) in opened {
        let mut conn = conn.unwrap_or_else(|| Conn::new(server.addr));
        for session in sessions {
            let headers = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", LEGACY_VERSION)];
            let _ = within(timeout, conn.send("DELETE", &headers, "")).await;
        }
    }
    if let (Some(addr), Some(idle)) = (redis, in_redis.as_mut()) {
        let stats_closed = snapshot_into(addr, &mut idle.errors).await;
        if let (Some(open), Some(closed)) = (&stats_open, &stats_closed) {
            idle.ending = commands_between(open, closed);
        }
        match session_keys(addr, 0).await {
            Ok(keys) => idle.keys_after = Some(keys.keys),
            Err(why) => idle.errors.add(why),
        }
    }
    outcome.redis = in_redis;
    tokio::time::sleep(SETTLE).await;
    outcome.closed_kb = status_kb(server.pid(), "VmRSS");
    outcome
}

/// Redis's `commandstats`, or `None` with why not noted in `errors`.
async fn snapshot_into(addr: SocketAddr, errors: &mut Errors) -> Option<BTreeMap<String, u64>> {
    commandstats(addr).await.map_err(|why| errors.add(why)).ok()
}

// ---------------------------------------------------------------------------------------
// Sessions opened and ended under load: the slow-Redis cells

/// New sessions and calls: each of `clients` clients opens a legacy session, makes
/// `calls` calls in it, ends it (DELETE), `sessions` times over; every step timed.
struct Churn {
    kind: Kind,
    /// The delay added to Redis in each direction (zero: none).
    delay: Duration,
    ok: usize,
    errors: Errors,
    not_run: usize,
    elapsed: Duration,
    /// Each call's round trip.
    calls: Vec<Duration>,
    /// Each session's opening (initialize and initialized).
    opens: Vec<Duration>,
    /// Each session's DELETE.
    ends: Vec<Duration>,
    /// The sessions opened.
    sessions: usize,
    /// The Redis commands the cell ran, for a server whose sessions are there.
    commands: Option<BTreeMap<String, u64>>,
}

/// One client's part of a [`Churn`].
#[derive(Default)]
struct ChurnOutcome {
    ok: usize,
    errors: Errors,
    not_run: usize,
    calls: Vec<Duration>,
    opens: Vec<Duration>,
    ends: Vec<Duration>,
}

/// Runs the churn against `server` (`redis`: where its sessions are, to count commands).
/// Each call is given the server's own per-call time limit
/// ([`toolcall_mcp::DEFAULT_TIMEOUT`]): one that takes longer counts as failed.
async fn churn(server: &Server, redis: Option<SocketAddr>, options: &Options, delay: Duration) -> Churn {
    let (clients, sessions, calls) = options.slow;
    let (tool, timeout) = (options.tool, options.call_timeout);
    let mut errors = Errors::default();
    let before = match redis {
        Some(addr) => snapshot_into(addr, &mut errors).await,
        None => None,
    };
    let began = Instant::now();
    let tasks: Vec<_> = (0..clients)
        .map(|who| {
            let addr = server.addr;
            tokio::spawn(async move {
                let mut outcome = ChurnOutcome::default();
                for session in 0..sessions {
                    let opening = Instant::now();
                    let mut client = match Client::connect(addr, Mode::Legacy, timeout).await {
                        Ok(client) => client,
                        Err(why) => {
                            outcome.errors.add(format!("initialize: {why}"));
                            outcome.not_run += calls;
                            continue;
                        }
                    };
                    outcome.opens.push(opening.elapsed());
                    for call in 0..calls {
                        let sent = Instant::now();
                        let number = session * calls + call;
                        match within(toolcall_mcp::DEFAULT_TIMEOUT, client.call(tool, who, number)).await {
                            Ok(()) => {
                                outcome.ok += 1;
                                outcome.calls.push(sent.elapsed());
                            }
                            Err(why) => outcome.errors.add(why),
                        }
                    }
                    let ending = Instant::now();
                    match within(timeout, client.end()).await {
                        Ok(()) => outcome.ends.push(ending.elapsed()),
                        Err(why) => outcome.errors.add(why),
                    }
                }
                outcome
            })
        })
        .collect();
    let mut done = Churn {
        kind: server.kind,
        delay,
        ok: 0,
        errors,
        not_run: 0,
        elapsed: Duration::ZERO,
        calls: Vec::new(),
        opens: Vec::new(),
        ends: Vec::new(),
        sessions: 0,
        commands: None,
    };
    for task in tasks {
        match task.await {
            Ok(outcome) => {
                done.ok += outcome.ok;
                done.errors.merge(outcome.errors);
                done.not_run += outcome.not_run;
                done.calls.extend(outcome.calls);
                done.opens.extend(outcome.opens);
                done.ends.extend(outcome.ends);
            }
            Err(error) => {
                done.errors.add(format!("client task failed: {error}"));
                done.not_run += sessions * calls;
            }
        }
    }
    done.elapsed = began.elapsed();
    done.sessions = done.opens.len();
    if let (Some(addr), Some(before)) = (redis, &before)
        && let Some(after) = snapshot_into(addr, &mut done.errors).await
    {
        done.commands = Some(commands_between(before, &after));
    }
    done.calls.sort_unstable();
    done.opens.sort_unstable();
    done.ends.sort_unstable();
    done
}

/// A server's RSS over a long run.
struct Soak {
    kind: Kind,
    phase: Phase,
    start_kb: Option<u64>,
    peak_kb: Option<u64>,
    end_kb: Option<u64>,
    /// RSS samples, evenly spaced over the run.
    samples: Vec<u64>,
}

/// `clients` legacy clients making `calls` calls each against `server`, its RSS sampled.
async fn soak(server: &Server, options: &Options) -> Soak {
    tokio::time::sleep(SETTLE).await;
    let start_kb = status_kb(server.pid(), "VmRSS");
    let peak_reset = reset_peak(server.pid());
    let pid = server.pid();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let sampler = tokio::spawn(async move {
        let mut samples = Vec::new();
        let mut stopped = stopped;
        loop {
            if let Some(kb) = status_kb(pid, "VmRSS") {
                samples.push(kb);
            }
            tokio::select! {
                _ = &mut stopped => break,
                () = tokio::time::sleep(Duration::from_millis(250)) => {}
            }
        }
        samples
    });
    let load = Load {
        kind: server.kind,
        mode: Mode::Legacy,
        clients: options.soak_clients,
        tool: options.tool,
        warmup: 0,
        calls: options.soak_calls,
        deadline: Instant::now() + Duration::from_secs(3600),
        timeout: options.call_timeout,
        redis: None,
    };
    let phase = load.run(server, 0).await;
    let _ = stop.send(());
    let samples = sampler.await.unwrap_or_default();
    let peak_kb = if peak_reset { status_kb(pid, "VmHWM") } else { samples.iter().copied().max() };
    tokio::time::sleep(SETTLE).await;
    Soak { kind: server.kind, phase, start_kb, peak_kb, end_kb: status_kb(pid, "VmRSS"), samples }
}

// ---------------------------------------------------------------------------------------
// The run

/// What the run measured.
struct Report {
    phases: Vec<Phase>,
    idle: Vec<IdleSessions>,
    /// The slow-Redis cells and their references.
    churns: Vec<Churn>,
    soaks: Vec<Soak>,
    servers: Vec<ServerFigures>,
    load_before: String,
    load_after: String,
    wall: Duration,
    ticks_per_second: f64,
    /// `redis-server --version`, when one ran.
    redis_version: Option<String>,
}

/// A server's process figures.
struct ServerFigures {
    kind: Kind,
    tools: Option<usize>,
    idle_rss_kb: Option<u64>,
    peak_rss_kb: Option<u64>,
    end_rss_kb: Option<u64>,
    exited: Option<String>,
    stderr: Vec<String>,
}

impl ServerFigures {
    /// `server`'s figures now.
    fn of(server: &mut Server) -> ServerFigures {
        ServerFigures {
            kind: server.kind,
            tools: server.tools,
            idle_rss_kb: server.idle_rss_kb,
            peak_rss_kb: status_kb(server.pid(), "VmHWM"),
            end_rss_kb: status_kb(server.pid(), "VmRSS"),
            exited: server.exited(),
            stderr: server.stderr_lines(),
        }
    }
}

async fn run(options: &Options) -> Result<Report, String> {
    let load_before = loadavg();
    let began = Instant::now();
    // The Redis the `toolcall-redis` server keeps its sessions in.
    let redis = match options.servers.iter().any(|kind| kind.in_redis()) {
        true => {
            let redis = RedisServer::start(options).await?;
            eprintln!("redis-server: pid {}, {}", redis.pid(), redis.addr);
            Some(redis)
        }
        false => None,
    };
    let redis_of = |kind: Kind| redis.as_ref().filter(|_| kind.in_redis()).map(|redis| redis.addr);
    // Room for the idle sessions beside the clients' own (toolcall-mcp's default cap is
    // 1,000, past which the least recently used idle session is closed).
    let cap = (options.sessions + options.soak_clients.max(64) + 64).max(1000).to_string();
    let this = std::env::current_exe().map_err(|e| format!("this program's path: {e}"))?;
    let mut servers = Vec::new();
    for &kind in &options.servers {
        let server = match kind {
            Kind::ExampleApp => {
                let program = match &options.example_app {
                    Some(path) => path.clone(),
                    None => default_example_app()?,
                };
                let args = ["serve", "--http", "127.0.0.1:0", "--max-sessions", cap.as_str()];
                Server::start(kind, &program, &args, options).await?
            }
            Kind::Toolcall => {
                let args = ["--serve-toolcall", "127.0.0.1:0", cap.as_str()];
                Server::start(kind, &this, &args, options).await?
            }
            Kind::ToolcallRedis | Kind::SlowRedis => {
                let url = redis.as_ref().map(RedisServer::url).unwrap_or_default();
                let args = ["--serve-toolcall", "127.0.0.1:0", cap.as_str(), url.as_str()];
                Server::start(kind, &this, &args, options).await?
            }
            Kind::Rmcp => Server::start(kind, &this, &["--serve-macro", "127.0.0.1:0"], options).await?,
            Kind::Bare => Server::start(kind, &this, &["--serve-bare", "127.0.0.1:0"], options).await?,
        };
        eprintln!(
            "{}: pid {}, {}, {} tools, idle RSS {} kB",
            kind.short(),
            server.pid(),
            server.addr,
            server.tools.map_or("?".to_owned(), |n| n.to_string()),
            server.idle_rss_kb.map_or("?".to_owned(), |n| n.to_string())
        );
        servers.push(server);
    }
    let mut idle = Vec::new();
    if options.sessions > 0 {
        for server in &servers {
            let (count, tool, timeout) = (options.sessions, options.tool, options.call_timeout);
            let measured = idle_sessions(server, count, tool, timeout, redis_of(server.kind)).await;
            eprintln!(
                "idle sessions {}: {} opened, RSS {:?} -> {:?} kB",
                server.kind.short(),
                measured.opened,
                measured.before_kb,
                measured.after_kb
            );
            idle.push(measured);
        }
    }
    let mut phases = Vec::new();
    let budget = options.phase_budget();
    for round in 0..options.rounds {
        for (at, (mode, clients)) in options.cells().into_iter().enumerate() {
            // Rotate which server goes first.
            let first = (round + at) % servers.len().max(1);
            let order: Vec<&Server> = servers.iter().cycle().skip(first).take(servers.len()).collect();
            for server in order {
                let load = Load {
                    kind: server.kind,
                    mode,
                    clients,
                    tool: options.tool,
                    warmup: options.warmup,
                    calls: options.calls,
                    deadline: Instant::now() + budget,
                    timeout: options.call_timeout,
                    redis: redis_of(server.kind).zip(redis.as_ref().map(RedisServer::pid)),
                };
                let phase = load.run(server, round + 1).await;
                eprintln!(
                    "round {} {} x{} {}: {} ok, {} failed, {} not run in {:.2} s ({:.0}/s)",
                    round + 1,
                    mode.short(),
                    clients,
                    server.kind.short(),
                    phase.ok,
                    phase.errors.total(),
                    phase.not_run,
                    phase.elapsed.as_secs_f64(),
                    phase.ok as f64 / phase.elapsed.as_secs_f64().max(1e-9),
                );
                phases.push(phase);
            }
        }
    }
    let mut churns = Vec::new();
    let mut slow_figures = None;
    if let Some(redis) = redis.as_ref().filter(|_| !options.slow_delay.is_zero()) {
        // The same churn against the memory store and Redis as they are, then through the
        // delaying proxy.
        for server in servers.iter().filter(|s| matches!(s.kind, Kind::Toolcall | Kind::ToolcallRedis)) {
            let churned = churn(server, redis_of(server.kind), options, Duration::ZERO).await;
            eprintln!(
                "churn {}: {} ok in {:.2} s",
                server.kind.short(),
                churned.ok,
                churned.elapsed.as_secs_f64()
            );
            churns.push(churned);
        }
        let proxy = DelayingProxy::start(redis.addr, options.slow_delay).await?;
        let url = format!("redis://{}", proxy.addr);
        let args = ["--serve-toolcall", "127.0.0.1:0", cap.as_str(), url.as_str()];
        let mut slow = Server::start(Kind::SlowRedis, &this, &args, options).await?;
        let churned = churn(&slow, Some(redis.addr), options, options.slow_delay).await;
        eprintln!("churn {}: {} ok in {:.2} s", slow.kind.short(), churned.ok, churned.elapsed.as_secs_f64());
        churns.push(churned);
        slow_figures = Some(ServerFigures::of(&mut slow));
    }
    let mut soaks = Vec::new();
    if options.soak_calls > 0 && options.soak_clients > 0 {
        for server in &servers {
            let soaked = soak(server, options).await;
            eprintln!(
                "soak {}: {} ok in {:.1} s, RSS {:?} / {:?} / {:?} kB",
                server.kind.short(),
                soaked.phase.ok,
                soaked.phase.elapsed.as_secs_f64(),
                soaked.start_kb,
                soaked.peak_kb,
                soaked.end_kb
            );
            soaks.push(soaked);
        }
    }
    let figures = servers.iter_mut().map(ServerFigures::of).chain(slow_figures).collect();
    Ok(Report {
        phases,
        idle,
        churns,
        soaks,
        servers: figures,
        load_before,
        load_after: loadavg(),
        wall: began.elapsed(),
        ticks_per_second: ticks_per_second(),
        redis_version: redis.as_ref().map(|redis| redis.version.clone()),
    })
}

/// `example-app` in the directory above this binary's (`target/release/examples/..`).
fn default_example_app() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("this program's path: {e}"))?;
    let path = exe.parent().and_then(Path::parent).map(|dir| dir.join("example-app"));
    match path {
        Some(path) if path.is_file() => Ok(path),
        _ => {
            Err("no example-app next to this binary: build it with `cargo build --release -p example-app`, \
                  or pass --example-app PATH (or set EXAMPLE_APP)"
                .to_owned())
        }
    }
}

// ---------------------------------------------------------------------------------------
// Report

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|text| text.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".to_owned())
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines().find_map(|line| {
                line.strip_prefix("model name")?.split_once(':').map(|(_, v)| v.trim().to_owned())
            })
        })
        .unwrap_or_else(|| "unknown CPU".to_owned())
}

/// Today's date (UTC), from the system clock.
fn today() -> String {
    let days = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() / 86_400) as i64;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

fn commit() -> String {
    let head = Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .map_or_else(|| "unknown".to_owned(), |text| text.trim().to_owned());
    let dirty = Command::new("git")
        .args(["status", "--porcelain", "--", "toolcall-mcp"])
        .output()
        .ok()
        .is_some_and(|out| !out.stdout.is_empty());
    if dirty { format!("{head}+dirty") } else { head }
}

/// Ends `out` with an empty line (before a heading), unless it does already.
fn blank_line(out: &mut String) {
    if !out.ends_with("\n\n") {
        out.push('\n');
    }
}

/// Adds `more`'s counts to `into`'s.
fn add_counts(into: &mut BTreeMap<String, u64>, more: &BTreeMap<String, u64>) {
    for (name, count) in more {
        *into.entry(name.clone()).or_insert(0) += count;
    }
}

/// Commands per unit: `0 in N calls`, or `0.003 (N in M calls: getex 4, set 2)`.
fn per_unit(counts: &BTreeMap<String, u64>, units: usize, what: &str) -> String {
    let total: u64 = counts.values().sum();
    if total == 0 {
        return format!("**0** in {units} {what}");
    }
    let names: Vec<String> = counts
        .iter()
        .map(|(name, count)| format!("{} {}", name.to_ascii_uppercase(), count_per(*count, units)))
        .collect();
    format!("**{}** ({})", count_per(total, units), names.join(", "))
}

/// `count / units`, without decimals when whole.
fn count_per(count: u64, units: usize) -> String {
    let each = count as f64 / units.max(1) as f64;
    if (each - each.round()).abs() < 1e-9 { format!("{each:.0}") } else { format!("{each:.3}") }
}

/// The median and range of `values`: `156 B (152 to 160)`.
fn spread(values: &[u64], unit: &str) -> String {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    match (sorted.first(), sorted.get(sorted.len() / 2), sorted.last()) {
        (Some(min), Some(median), Some(max)) if min == max => format!("{median} {unit}"),
        (Some(min), Some(median), Some(max)) => format!("{median} {unit} ({min} to {max})"),
        _ => "—".to_owned(),
    }
}

/// The `q` quantile of sorted `values` (nearest rank).
fn quantile(sorted: &[Duration], q: f64) -> Option<Duration> {
    let rank = ((sorted.len() as f64) * q).ceil() as usize;
    sorted.get(rank.clamp(1, sorted.len().max(1)) - 1).copied()
}

fn ms(d: Option<Duration>) -> String {
    d.map_or_else(|| "—".to_owned(), |d| format!("{:.2} ms", d.as_secs_f64() * 1e3))
}

fn mib(kb: Option<u64>) -> String {
    kb.map_or_else(|| "—".to_owned(), |kb| format!("{:.1} MiB", kb as f64 / 1024.0))
}

/// Totals over the rounds of one server in one cell.
struct Totals {
    ok: usize,
    failed: usize,
    not_run: usize,
    elapsed: Duration,
    cpu_ticks: Option<u64>,
    latencies: Vec<Duration>,
}

impl Totals {
    fn of<'a>(phases: impl Iterator<Item = &'a Phase>) -> Totals {
        let mut totals = Totals {
            ok: 0,
            failed: 0,
            not_run: 0,
            elapsed: Duration::ZERO,
            cpu_ticks: Some(0),
            latencies: Vec::new(),
        };
        for phase in phases {
            totals.ok += phase.ok;
            totals.failed += phase.errors.total() + phase.warmup_errors.total();
            totals.not_run += phase.not_run;
            totals.elapsed += phase.elapsed;
            totals.cpu_ticks = totals.cpu_ticks.zip(phase.cpu_ticks).map(|(a, b)| a + b);
            totals.latencies.extend(&phase.latencies);
        }
        totals.latencies.sort_unstable();
        totals
    }

    fn rate(&self) -> f64 {
        self.ok as f64 / self.elapsed.as_secs_f64().max(f64::MIN_POSITIVE)
    }
}

impl Report {
    fn totals(&self, kind: Kind, mode: Mode, clients: usize) -> Totals {
        Totals::of(self.phases.iter().filter(|p| p.kind == kind && p.mode == mode && p.clients == clients))
    }

    /// Every call succeeded and every server is still running.
    fn clean(&self) -> bool {
        let phases = self.phases.iter().chain(self.soaks.iter().map(|soak| &soak.phase));
        let mut clean = true;
        for phase in phases {
            clean &= phase.errors.total() == 0 && phase.warmup_errors.total() == 0 && phase.not_run == 0;
        }
        clean
            && self.idle.iter().all(|idle| idle.errors.total() == 0)
            && self.churns.iter().all(|churn| churn.errors.total() == 0 && churn.not_run == 0)
            && self.servers.iter().all(|s| s.exited.is_none())
    }

    fn cpu_per_call(&self, ticks: Option<u64>, calls: usize) -> String {
        match ticks {
            Some(ticks) if calls > 0 => {
                format!("{:.0}", ticks as f64 / self.ticks_per_second * 1e6 / calls as f64)
            }
            _ => "—".to_owned(),
        }
    }

    fn markdown(&self, options: &Options, args: &[String]) -> String {
        let mut out = String::new();
        let o = options;
        let _ = writeln!(out, "## MCP over streamable HTTP under load (#20, #48, #66)\n");
        let kinds: Vec<Kind> =
            self.servers.iter().map(|s| s.kind).filter(|k| *k != Kind::SlowRedis).collect();
        let mut described = Vec::new();
        for kind in &kinds {
            described.push(match kind {
                Kind::Toolcall => format!(
                    "**toolcall-mcp**, `McpServer::new(&toolcall_bench::toolset::ALL, ())` ({} tools) with \
                     toolcall-mcp's defaults ({} s per-call time limit, at most 64 calls running and 256 \
                     waiting, its `Host`/`Origin` checks, body and time limits, session guard and resumable \
                     streams), sessions in memory",
                    self.tools_of(Kind::Toolcall),
                    toolcall_mcp::DEFAULT_TIMEOUT.as_secs()
                ),
                Kind::ToolcallRedis => format!(
                    "**toolcall-redis**, the same server with `HttpSettings::session_store` a \
                     `RedisSessionStore` (expiring after the session idle time, as `example-app serve \
                     --session-store redis://..` sets it) on a `redis-server` the driver starts ({}, \
                     `--save \"\" --appendonly no`, on the servers' CPU)",
                    self.redis_version.as_deref().unwrap_or("?")
                ),
                Kind::ExampleApp => format!(
                    "**example-app**, the release `example-app serve --http` binary ({} tools, a tool \
                     filter, resources and prompts, and its request log: a line per request on stderr)",
                    self.tools_of(Kind::ExampleApp)
                ),
                Kind::Rmcp => format!(
                    "**rmcp macros**, `toolcall_bench::mcp::MacroServer` ({} tools written with \
                     `#[tool_router]`/`#[tool]`) served by rmcp's `StreamableHttpService` on axum with \
                     rmcp's default HTTP settings",
                    self.tools_of(Kind::Rmcp)
                ),
                Kind::Bare => "**bare**, the floor: hyper's HTTP/1 server (`--serve-bare`) that reads each \
                     body whole, parses it with serde_json and writes the answer toolcall-mcp writes for \
                     `add` (one SSE event, the same headers), `initialize` with a fresh `Mcp-Session-Id`, \
                     notifications 202, DELETE 200: no MCP library, no checks (no `Host`, `Origin`, \
                     session or protocol-version check, no limits)"
                    .to_owned(),
                Kind::SlowRedis => String::new(),
            });
        }
        let _ = writeln!(
            out,
            "`toolcall-bench/examples/mcp_load.rs`: `tools/call` of `{}` against {} servers in one run, \
             each a child process on 127.0.0.1 (rmcp {}), on a multi-threaded tokio runtime and jemalloc: \
             {}. The clients are this program's raw HTTP/1.1 client, one \
             keep-alive connection each, in the driver's process ({}): **stateless** \
             clients speak 2026-07-28 (`_meta` and SEP-2243 headers on every call, no session), \
             **legacy** clients 2025-06-18 (a session each: initialize, initialized, calls with \
             `Mcp-Session-Id`, DELETE). Each cell (mode x clients) runs against every server back to \
             back, {} round(s), the order rotating; each client makes {} warm-up calls, then {} \
             measured calls one after another. Every answer is checked (`add`: `a + b` for arguments \
             that differ per call).\n",
            o.tool.name(),
            kinds.len(),
            RMCP_VERSION,
            described.join("; "),
            match &o.pin {
                Some(pin) => format!(
                    "pinned with `taskset` to CPU {}, every server to CPU {}",
                    pin.driver, pin.servers
                ),
                None => "on the same cores as the servers".to_owned(),
            },
            o.rounds,
            o.warmup,
            o.calls,
        );
        let shown: Vec<&str> = args.iter().map(String::as_str).collect();
        let _ = writeln!(
            out,
            "- Command: `cargo build --release -p example-app -p toolcall-bench --bin example-app --example mcp_load && \
             target/release/examples/mcp_load{}{}`",
            if shown.is_empty() { "" } else { " " },
            shown.join(" ")
        );
        let _ = writeln!(
            out,
            "- Date {}, commit `{}`; {}, {} cores; load average (1/5/15 min) {} before, {} after; \
             {:.0} s wall time in all.",
            today(),
            commit(),
            cpu_model(),
            online_cpus(),
            self.load_before,
            self.load_after,
            self.wall.as_secs_f64(),
        );
        let _ = writeln!(
            out,
            "- calls/s = successful measured calls / measured wall time (all clients at once), over \
             the rounds; latency = one call's round trip as its client saw it; server CPU = the \
             server process's user + system time over the measured calls.\n"
        );
        self.throughput_table(&mut out, options);
        self.idle_table(&mut out);
        self.soak_table(&mut out, options);
        self.problems(&mut out);
        // Their own subsections, after every table of the section's own.
        self.redis_section(&mut out, options);
        self.floor_section(&mut out, options);
        out
    }

    /// The peers' table (toolcall-mcp, example-app, rmcp: the Redis store and the floor
    /// have their own), and every server's calls/s in each round.
    fn throughput_table(&self, out: &mut String, options: &Options) {
        let every: Vec<Kind> =
            self.servers.iter().map(|s| s.kind).filter(|k| *k != Kind::SlowRedis).collect();
        let kinds: Vec<Kind> = every
            .iter()
            .copied()
            .filter(|k| matches!(k, Kind::Toolcall | Kind::ExampleApp | Kind::Rmcp))
            .collect();
        let ours: Vec<Kind> = kinds.iter().copied().filter(|k| *k != Kind::Rmcp).collect();
        let base = kinds.contains(&Kind::Rmcp);
        let _ = write!(out, "| mode | clients |");
        for kind in &kinds {
            let _ = write!(out, " {} calls/s |", kind.short());
        }
        if base {
            for kind in &ours {
                let _ = write!(out, " {} / rmcp |", kind.short());
            }
        }
        for kind in &kinds {
            let _ = write!(out, " {} p50 / p99 |", kind.short());
        }
        let _ = writeln!(
            out,
            " server CPU µs per call ({}) |",
            kinds.iter().map(|k| k.short()).collect::<Vec<_>>().join(" / ")
        );
        let columns = 2 + kinds.len() * 2 + if base { ours.len() } else { 0 } + 1;
        let _ = writeln!(out, "|---|{}", "---:|".repeat(columns - 1));
        for (mode, clients) in options.cells() {
            let totals: Vec<Totals> = kinds.iter().map(|&k| self.totals(k, mode, clients)).collect();
            let of = |kind: Kind| kinds.iter().position(|k| *k == kind).map(|at| &totals[at]);
            let _ = write!(out, "| {} | {} |", mode.label(), clients);
            for t in &totals {
                let _ = write!(out, " {:.0} |", t.rate());
            }
            if let Some(rmcp) = of(Kind::Rmcp).filter(|_| base) {
                for kind in &ours {
                    let ratio = of(*kind).map_or(0.0, |t| t.rate() / rmcp.rate().max(f64::MIN_POSITIVE));
                    let p99 = |t: &Totals| quantile(&t.latencies, 0.99).map_or(0.0, |d| d.as_secs_f64());
                    let p99_ratio = of(*kind).map_or(0.0, |t| p99(t) / p99(rmcp).max(f64::MIN_POSITIVE));
                    let _ = write!(out, " **{ratio:.2}x** (p99 {p99_ratio:.2}x) |");
                }
            }
            for t in &totals {
                let _ = write!(
                    out,
                    " {} / {} |",
                    ms(quantile(&t.latencies, 0.5)),
                    ms(quantile(&t.latencies, 0.99))
                );
            }
            let cpu: Vec<String> =
                totals.iter().map(|t| self.cpu_per_call(t.cpu_ticks, t.ok + t.failed)).collect();
            let _ = writeln!(out, " {} |", cpu.join(" / "));
        }
        let kinds = every;
        let _ = writeln!(
            out,
            "\nEach round's calls/s ({}):\n",
            kinds.iter().map(|k| k.short()).collect::<Vec<_>>().join(" / ")
        );
        let cells = options.cells();
        let _ = write!(out, "| round |");
        for (mode, clients) in &cells {
            let _ = write!(out, " {} x{} |", mode.short(), clients);
        }
        let _ = writeln!(out);
        let _ = writeln!(out, "|---:|{}", "---:|".repeat(cells.len()));
        for round in 1..=options.rounds {
            let _ = write!(out, "| {round} |");
            for &(mode, clients) in &cells {
                let rates: Vec<String> = kinds
                    .iter()
                    .map(|&kind| {
                        let phase = self.phases.iter().find(|p| {
                            p.kind == kind && p.mode == mode && p.clients == clients && p.round == round
                        });
                        phase.map_or_else(
                            || "—".to_owned(),
                            |p| {
                                format!("{:.0}", p.ok as f64 / p.elapsed.as_secs_f64().max(f64::MIN_POSITIVE))
                            },
                        )
                    })
                    .collect();
                let _ = write!(out, " {} |", rates.join(" / "));
            }
            let _ = writeln!(out);
        }
        let _ = writeln!(out);
    }

    /// Whether the run has a server of `kind`.
    fn has(&self, kind: Kind) -> bool {
        self.servers.iter().any(|s| s.kind == kind)
    }

    /// Sessions in Redis against sessions in memory: the legacy cells side by side, the
    /// commands a call and a session ran, what a session occupies, and the slow-Redis
    /// cells.
    fn redis_section(&self, out: &mut String, options: &Options) {
        if !self.has(Kind::ToolcallRedis) {
            return;
        }
        let (memory, redis) = (Kind::Toolcall, Kind::ToolcallRedis);
        blank_line(out);
        let _ = writeln!(out, "### Sessions in Redis (#66 item 3)\n");
        let _ = writeln!(
            out,
            "toolcall-mcp with its sessions in memory and in Redis (`toolcall-redis`), the same cells \
             of the same rounds. Redis commands are `INFO commandstats` read over TCP by the driver \
             (its own `INFO`, `SCAN`, `MEMORY USAGE`, `STRLEN` left out): *per call* over the measured \
             calls only (every session opened and every client warm before, no session ended yet), \
             *per session* over the rest of the cell (opening the sessions, `initialized`, the warm-up \
             calls, the DELETEs) divided by the sessions opened; redis-server CPU over the measured \
             calls.\n"
        );
        let _ = writeln!(
            out,
            "| mode | clients | memory calls/s | Redis calls/s | Redis / memory | memory p50 / p99 | Redis p50 / p99 | server CPU µs per call (memory / Redis) | Redis commands per call | Redis commands per session | redis-server CPU µs per call |"
        );
        let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (mode, clients) in options.cells() {
            let (m, r) = (self.totals(memory, mode, clients), self.totals(redis, mode, clients));
            let phases: Vec<&Phase> = self
                .phases
                .iter()
                .filter(|p| p.kind == redis && p.mode == mode && p.clients == clients)
                .collect();
            let (mut per_call, mut whole) = (BTreeMap::new(), BTreeMap::new());
            let mut redis_ticks = Some(0);
            for cell in phases.iter().filter_map(|p| p.redis.as_ref()) {
                add_counts(&mut per_call, &cell.calls);
                add_counts(&mut whole, &cell.whole);
                redis_ticks = redis_ticks.zip(cell.cpu_ticks).map(|(a, b)| a + b);
            }
            let calls: usize = phases.iter().map(|p| p.ok).sum();
            let sessions = if mode == Mode::Legacy { phases.iter().map(|p| p.opens.len()).sum() } else { 0 };
            let mut rest = whole.clone();
            for (name, count) in &per_call {
                if let Some(total) = rest.get_mut(name) {
                    *total = total.saturating_sub(*count);
                }
            }
            rest.retain(|_, count| *count > 0);
            let ratio = if self.has(memory) {
                format!("**{:.2}x**", r.rate() / m.rate().max(f64::MIN_POSITIVE))
            } else {
                "—".to_owned()
            };
            let _ = writeln!(
                out,
                "| {} | {} | {:.0} | {:.0} | {} | {} / {} | {} / {} | {} / {} | {} | {} | {} |",
                mode.label(),
                clients,
                m.rate(),
                r.rate(),
                ratio,
                ms(quantile(&m.latencies, 0.5)),
                ms(quantile(&m.latencies, 0.99)),
                ms(quantile(&r.latencies, 0.5)),
                ms(quantile(&r.latencies, 0.99)),
                self.cpu_per_call(m.cpu_ticks, m.ok + m.failed),
                self.cpu_per_call(r.cpu_ticks, r.ok + r.failed),
                per_unit(&per_call, calls, "calls"),
                if sessions == 0 {
                    "— (no session)".to_owned()
                } else {
                    per_unit(&rest, sessions, "sessions")
                },
                self.cpu_per_call(redis_ticks, calls),
            );
        }
        let _ = writeln!(out);
        let mut errors = Errors::default();
        for cell in self.phases.iter().filter_map(|p| p.redis.as_ref()) {
            errors.merge(cell.errors.clone());
        }
        // What a session occupies: with the idle sessions open, and in the largest legacy cell.
        if let Some((idle, stored)) =
            self.idle.iter().find_map(|idle| idle.redis.as_ref().map(|stored| (idle, stored)))
        {
            errors.merge(stored.errors.clone());
            let grown = stored.used_before.zip(stored.used_with).map(|(a, b)| b.saturating_sub(a));
            let _ = writeln!(
                out,
                "A session in Redis: with {} idle sessions open, {} keys under `{}`; Redis's `used_memory` \
                 grew by {} ({} per session); `MEMORY USAGE` of a key (key, value and Redis's overhead, \
                 {} keys read) {}, its value (the client's `initialize` params and the owner the HTTP layer \
                 adds, JSON) {}. Opening them (initialize, initialized and one call each) ran {}; ending them \
                 (DELETE) ran {}; {} keys were left after the DELETEs.\n",
                idle.opened,
                stored.keys.keys,
                toolcall_mcp::SESSION_KEY_PREFIX,
                grown.map_or_else(|| "?".to_owned(), |b| format!("{b} B")),
                grown
                    .filter(|_| idle.opened > 0)
                    .map_or_else(|| "?".to_owned(), |b| format!("{:.0} B", b as f64 / idle.opened as f64)),
                stored.keys.usage.len(),
                spread(&stored.keys.usage, "B"),
                spread(&stored.keys.value, "B"),
                per_unit(&stored.opening, idle.opened, "sessions"),
                per_unit(&stored.ending, idle.opened, "sessions"),
                stored.keys_after.map_or_else(|| "?".to_owned(), |n| n.to_string()),
            );
        }
        let largest = self
            .phases
            .iter()
            .filter(|p| p.kind == redis && p.mode == Mode::Legacy)
            .filter_map(|p| p.redis.as_ref().map(|cell| (p.clients, cell)))
            .max_by_key(|(clients, _)| *clients);
        if let Some((clients, cell)) = largest {
            let _ = writeln!(
                out,
                "In a legacy x{clients} cell, at the end of its measured calls: {} session keys, `MEMORY USAGE` \
                 {} ({} read), value {}.\n",
                cell.keys.keys,
                spread(&cell.keys.usage, "B"),
                cell.keys.usage.len(),
                spread(&cell.keys.value, "B"),
            );
        }
        self.churn_table(out, options);
        if errors.total() > 0 {
            let _ = writeln!(out, "Reading Redis's counters failed:\n");
            for (count, example) in errors.0.values() {
                let _ = writeln!(out, "- {count} x `{example}`");
            }
            let _ = writeln!(out);
        }
    }

    /// The slow-Redis cells: new sessions and calls against the memory store, Redis, and
    /// Redis behind the delaying proxy.
    fn churn_table(&self, out: &mut String, options: &Options) {
        if self.churns.is_empty() {
            return;
        }
        let (clients, sessions, calls) = options.slow;
        let _ = writeln!(
            out,
            "**Slow Redis.** {clients} legacy clients at once, each opening a session, making {calls} calls \
             in it and ending it (DELETE), {sessions} times over; against toolcall-mcp with sessions in \
             memory, in Redis, and in Redis reached through a proxy in the driver that holds every byte \
             {} ms in each direction (so one Redis command takes at least {} ms; the store's own deadline \
             per operation is `HttpSettings::session_store_timeout`, 500 ms by default). Each call is given \
             the server's per-call time limit ({} s) and fails past it. calls/s counts the calls over the \
             whole cell, session openings and ends included.\n",
            options.slow_delay.as_millis(),
            2 * options.slow_delay.as_millis(),
            toolcall_mcp::DEFAULT_TIMEOUT.as_secs()
        );
        let _ = writeln!(
            out,
            "| server | Redis delay each way | sessions | calls ok | failed | calls/s | call p50 / p99 / max | initialize + initialized p50 / p99 / max | DELETE p50 / p99 / max | Redis commands per session | every call within its time limit, no error |"
        );
        let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
        for churn in &self.churns {
            let three = |sorted: &[Duration]| {
                format!(
                    "{} / {} / {}",
                    ms(quantile(sorted, 0.5)),
                    ms(quantile(sorted, 0.99)),
                    ms(sorted.last().copied())
                )
            };
            let within_limit = churn.calls.last().is_none_or(|max| *max < toolcall_mcp::DEFAULT_TIMEOUT);
            let clean = churn.errors.total() == 0 && churn.not_run == 0;
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {:.0} | {} | {} | {} | {} | {} |",
                churn.kind.short(),
                if churn.kind.in_redis() {
                    format!("{} ms", churn.delay.as_millis())
                } else {
                    "—".to_owned()
                },
                churn.sessions,
                churn.ok,
                churn.errors.total() + churn.not_run,
                churn.ok as f64 / churn.elapsed.as_secs_f64().max(f64::MIN_POSITIVE),
                three(&churn.calls),
                three(&churn.opens),
                three(&churn.ends),
                churn
                    .commands
                    .as_ref()
                    .map_or_else(|| "—".to_owned(), |c| per_unit(c, churn.sessions, "sessions")),
                match (within_limit, clean) {
                    (true, true) => "yes",
                    (true, false) => "within the limit; **errors** (below)",
                    (false, _) => "**no**",
                },
            );
        }
        let _ = writeln!(out);
    }

    /// The floor: toolcall-mcp against the bare hyper server, beside rmcp.
    fn floor_section(&self, out: &mut String, options: &Options) {
        if !self.has(Kind::Bare) {
            return;
        }
        let kinds: Vec<Kind> =
            [Kind::Toolcall, Kind::Bare, Kind::Rmcp].into_iter().filter(|k| self.has(*k)).collect();
        blank_line(out);
        let _ = writeln!(out, "### The floor: a bare hyper server (#66 item 4)\n");
        let _ = writeln!(
            out,
            "The same cells against **bare** (hyper and serde_json, no MCP library, no checks): what the \
             transport itself costs on this machine. toolcall-mcp keeps every check it promises on \
             (`Host`, `Origin`, body and time limits, per-call time limit, caps on calls and sessions). \
             Goal (#66): toolcall-mcp at least 0.6x of bare at 16 and 64 clients, stateless and legacy.\n"
        );
        let _ = write!(out, "| mode | clients |");
        for kind in &kinds {
            let _ = write!(out, " {} calls/s |", kind.short());
        }
        let _ = write!(out, " toolcall-mcp / bare | rmcp / bare |");
        for kind in &kinds {
            let _ = write!(out, " {} p50 / p99 |", kind.short());
        }
        let _ = writeln!(
            out,
            " server CPU µs per call ({}) |",
            kinds.iter().map(|k| k.short()).collect::<Vec<_>>().join(" / ")
        );
        let _ = writeln!(out, "|---|{}", "---:|".repeat(1 + 2 * kinds.len() + 2 + 1));
        for (mode, clients) in options.cells() {
            let totals: Vec<Totals> = kinds.iter().map(|&k| self.totals(k, mode, clients)).collect();
            let of = |kind: Kind| kinds.iter().position(|k| *k == kind).map(|at| &totals[at]);
            let _ = write!(out, "| {} | {} |", mode.label(), clients);
            for t in &totals {
                let _ = write!(out, " {:.0} |", t.rate());
            }
            let to_bare = |kind: Kind| match (of(kind), of(Kind::Bare)) {
                (Some(t), Some(bare)) => {
                    let ratio = t.rate() / bare.rate().max(f64::MIN_POSITIVE);
                    let goal = if kind == Kind::Toolcall && clients >= 16 {
                        if ratio >= 0.6 { " (goal met)" } else { " (goal **not** met)" }
                    } else {
                        ""
                    };
                    format!("**{ratio:.2}x**{goal}")
                }
                _ => "—".to_owned(),
            };
            let _ = write!(out, " {} | {} |", to_bare(Kind::Toolcall), to_bare(Kind::Rmcp));
            for t in &totals {
                let _ = write!(
                    out,
                    " {} / {} |",
                    ms(quantile(&t.latencies, 0.5)),
                    ms(quantile(&t.latencies, 0.99))
                );
            }
            let cpu: Vec<String> =
                totals.iter().map(|t| self.cpu_per_call(t.cpu_ticks, t.ok + t.failed)).collect();
            let _ = writeln!(out, " {} |", cpu.join(" / "));
        }
        let _ = writeln!(out);
    }

    fn idle_table(&self, out: &mut String) {
        if self.idle.is_empty() {
            return;
        }
        let _ = writeln!(
            out,
            "Idle legacy sessions: each server's RSS before and {} s after opening them (initialize, \
             initialized and one call each, over 16 connections), then {} s after ending them (DELETE):\n",
            SETTLE.as_secs(),
            SETTLE.as_secs()
        );
        let _ = writeln!(
            out,
            "| server | sessions | RSS before | RSS with them | per session | RSS after DELETE |"
        );
        let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|");
        let mut per = Vec::new();
        for idle in &self.idle {
            let each = idle
                .before_kb
                .zip(idle.after_kb)
                .filter(|_| idle.opened > 0)
                .map(|(before, after)| after.saturating_sub(before) as f64 * 1024.0 / idle.opened as f64);
            per.push((idle.kind, each));
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} |",
                idle.kind.label(),
                idle.opened,
                mib(idle.before_kb),
                mib(idle.after_kb),
                each.map_or_else(|| "—".to_owned(), |b| format!("{:.1} KiB", b / 1024.0)),
                mib(idle.closed_kb),
            );
        }
        let of = |kind| per.iter().find(|(k, _)| *k == kind).and_then(|(_, each)| *each);
        for kind in [Kind::Toolcall, Kind::ExampleApp] {
            if let (Some(ours), Some(theirs)) = (of(kind), of(Kind::Rmcp))
                && theirs > 0.0
            {
                let _ = writeln!(
                    out,
                    "\nAn idle session costs {} {:.2}x what it costs rmcp.",
                    kind.short(),
                    ours / theirs
                );
            }
        }
        let _ = writeln!(out);
    }

    fn soak_table(&self, out: &mut String, options: &Options) {
        if self.soaks.is_empty() {
            return;
        }
        let _ = writeln!(
            out,
            "Soak: {} legacy clients x {} calls each, one server at a time; RSS at the start, its peak \
             (`VmHWM`, reset at the start), at the end ({} s after the clients ended their sessions), \
             and sampled every 250 ms (min / median / max of the samples):\n",
            options.soak_clients,
            options.soak_calls,
            SETTLE.as_secs()
        );
        let _ = writeln!(
            out,
            "| server | calls ok | failed | calls/s | RSS start | RSS peak | RSS end | samples min / median / max |"
        );
        let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|");
        for soak in &self.soaks {
            let mut sorted = soak.samples.clone();
            sorted.sort_unstable();
            let median = sorted.get(sorted.len() / 2).copied();
            let _ = writeln!(
                out,
                "| {} | {} | {} | {:.0} | {} | {} | {} | {} / {} / {} |",
                soak.kind.label(),
                soak.phase.ok,
                soak.phase.errors.total(),
                soak.phase.ok as f64 / soak.phase.elapsed.as_secs_f64().max(f64::MIN_POSITIVE),
                mib(soak.start_kb),
                mib(soak.peak_kb),
                mib(soak.end_kb),
                mib(sorted.first().copied()),
                mib(median),
                mib(sorted.last().copied()),
            );
        }
        let _ = writeln!(out);
    }

    fn problems(&self, out: &mut String) {
        let mut problems = Vec::new();
        for phase in self.phases.iter().chain(self.soaks.iter().map(|soak| &soak.phase)) {
            let what = format!(
                "{} {} x{} round {}",
                phase.kind.short(),
                phase.mode.short(),
                phase.clients,
                phase.round
            );
            for (label, errors) in [("measured", &phase.errors), ("warm-up", &phase.warmup_errors)] {
                for (count, example) in errors.0.values() {
                    problems.push(format!("{what}, {label}: {count} x `{example}`"));
                }
            }
            if phase.not_run > 0 {
                problems.push(format!("{what}: {} calls not run (time cap or no client)", phase.not_run));
            }
        }
        for idle in &self.idle {
            for (count, example) in idle.errors.0.values() {
                problems.push(format!("{} idle sessions: {count} x `{example}`", idle.kind.short()));
            }
        }
        for churn in &self.churns {
            for (count, example) in churn.errors.0.values() {
                problems.push(format!("{} slow-Redis cell: {count} x `{example}`", churn.kind.short()));
            }
            if churn.not_run > 0 {
                problems.push(format!(
                    "{} slow-Redis cell: {} calls not run",
                    churn.kind.short(),
                    churn.not_run
                ));
            }
        }
        for figures in &self.servers {
            if let Some(status) = &figures.exited {
                problems.push(format!("{}: the server exited ({status})", figures.kind.short()));
            }
            for line in &figures.stderr {
                problems.push(format!("{} stderr: `{line}`", figures.kind.short()));
            }
        }
        if problems.is_empty() {
            let calls: usize = self.phases.iter().map(|p| p.ok).sum::<usize>()
                + self.soaks.iter().map(|s| s.phase.ok).sum::<usize>()
                + self.churns.iter().map(|c| c.ok).sum::<usize>();
            let _ = writeln!(
                out,
                "Failures: none in {calls} measured calls (plus warm-up); no server wrote to stderr beyond \
                 its address and its request log, and {} still running at the end.",
                if self.servers.len() > 1 { "all were" } else { "it was" }
            );
        } else {
            let _ = writeln!(out, "Failures and server output:\n");
            for problem in problems {
                let _ = writeln!(out, "- {problem}");
            }
        }
        let _ = writeln!(
            out,
            "\nEach server's process: RSS when idle after start, its peak (`VmHWM`; since the soak's \
             reset when there was one) and at the end:\n"
        );
        let _ = writeln!(out, "| server | RSS at start | peak | at the end |");
        let _ = writeln!(out, "|---|---:|---:|---:|");
        for figures in &self.servers {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} |",
                figures.kind.label(),
                mib(figures.idle_rss_kb),
                mib(figures.peak_rss_kb),
                mib(figures.end_rss_kb)
            );
        }
    }

    fn tools_of(&self, kind: Kind) -> String {
        self.servers
            .iter()
            .find(|s| s.kind == kind)
            .and_then(|s| s.tools)
            .map_or_else(|| "?".to_owned(), |n| n.to_string())
    }
}

/// rmcp's version, for the report (the lock file's; kept in step by hand).
const RMCP_VERSION: &str = "3.11";
