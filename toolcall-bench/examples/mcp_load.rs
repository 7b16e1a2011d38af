//! A load test of MCP over streamable HTTP, on 127.0.0.1 only, against three servers of
//! the same tool in the same run, in both ways a client may speak:
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
//! - **example-app**: the real `example-app serve --http 127.0.0.1:0` binary (every
//!   example-app tool, a tool filter, resources, prompts, and its request log: a line per
//!   request on stderr);
//! - **rmcp macros**: [`toolcall_bench::mcp::MacroServer`], the same three tools written
//!   with rmcp's `#[tool_router]`/`#[tool]`, served by rmcp's `StreamableHttpService` on
//!   axum with rmcp's default HTTP settings: this binary with `--serve-macro ADDR`.
//!
//! The two in this binary run on the allocator example-app has (jemalloc), so the three
//! resident sets compare.
//!
//! The load generator is the same for both: N clients in this process, each with its own
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
//!    rounds, each round running each cell against both servers back to back, the order
//!    alternating; calls/s, latency percentiles and server CPU per call;
//! 3. **soak**: `--soak-clients` legacy clients making `--soak-calls` calls each against
//!    each server, its RSS sampled throughout: start, peak (`VmHWM`, reset before), end.
//!
//! ```text
//! cargo build --release -p example-app -p toolcall-bench --bin example-app --example mcp_load
//! target/release/examples/mcp_load --markdown toolcall-bench/sections/mcp_load.md
//! ```
//!
//! Options (defaults in brackets): `--clients LIST` [1,16,64], `--modes LIST`
//! [stateless,legacy], `--calls M` per client and cell [1000], `--warmup W` per client
//! before each measured cell [50], `--rounds R` [3], `--tool add|get_weather` [add],
//! `--servers LIST` [toolcall,example-app,rmcp], `--sessions N` idle sessions (0: skip) [1000],
//! `--soak-clients N` [64] and `--soak-calls M` (0: skip) [10000], `--max-seconds S` for
//! the throughput cells together [600], `--call-timeout S` [30], `--example-app PATH`
//! [`example-app` next to this binary's directory, or `$EXAMPLE_APP`], `--pin DRIVER/SERVERS`
//! (run the load generator on the CPUs `DRIVER` and every server on `SERVERS`, each a
//! `taskset -c` list such as `0/1`, so that the comparison is of the servers' own work and
//! not of how the scheduler shares the cores with the load generator) [not pinned],
//! `--markdown PATH` (also write the report as a markdown section).
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

/// Both servers run on jemalloc (example-app's allocator), so their RSS compare.
#[cfg(all(unix, not(target_env = "musl")))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

const USAGE: &str = "usage: mcp_load [--clients LIST] [--modes LIST] [--calls M] [--warmup W] \
[--rounds R] [--tool add|get_weather] [--servers LIST] [--sessions N] \
[--soak-clients N] [--soak-calls M] [--max-seconds S] [--call-timeout S] [--example-app PATH] \
[--pin DRIVER/SERVERS] [--markdown PATH]";

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
    /// The real example-app binary.
    ExampleApp,
    /// rmcp's macro server of the same three tools, in this binary.
    Rmcp,
}

impl Kind {
    fn label(self) -> &'static str {
        match self {
            Kind::Toolcall => "toolcall-mcp (`McpServer` of `toolset::ALL`)",
            Kind::ExampleApp => "toolcall-mcp in example-app (`example-app serve --http`)",
            Kind::Rmcp => "rmcp `#[tool_router]` (`MacroServer`)",
        }
    }

    fn short(self) -> &'static str {
        match self {
            Kind::Toolcall => "toolcall-mcp",
            Kind::ExampleApp => "example-app",
            Kind::Rmcp => "rmcp macros",
        }
    }

    fn parse(name: &str) -> Result<Kind, String> {
        match name.trim() {
            "toolcall" => Ok(Kind::Toolcall),
            "example-app" => Ok(Kind::ExampleApp),
            "rmcp" => Ok(Kind::Rmcp),
            other => Err(format!("--servers: no server {other} (toolcall, example-app, rmcp)")),
        }
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
            servers: vec![Kind::Toolcall, Kind::ExampleApp, Kind::Rmcp],
            sessions: 1000,
            soak_clients: 64,
            soak_calls: 10_000,
            max_seconds: 600.0,
            call_timeout: Duration::from_secs(30),
            example_app: std::env::var_os("EXAMPLE_APP").map(PathBuf::from),
            markdown: None,
            pin: None,
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

/// `--serve-macro ADDR` and `--serve-toolcall ADDR [MAX_SESSIONS]`: rmcp's macro server,
/// or toolcall-mcp serving the same tools, over streamable HTTP until killed, on a
/// multi-threaded runtime like example-app's; prints `listening on http://ADDR/mcp`.
fn serve_child(kind: Kind, args: &[String]) -> ExitCode {
    let Some(addr) = args.first().and_then(|addr| addr.parse::<SocketAddr>().ok()) else {
        eprintln!("error: --serve-macro and --serve-toolcall need an address such as 127.0.0.1:0");
        return ExitCode::from(2);
    };
    let max_sessions = args.get(1).and_then(|n| n.parse::<usize>().ok());
    let runtime = match multi_thread_runtime() {
        Ok(runtime) => runtime,
        Err(code) => return code,
    };
    let served: Result<(), String> = runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| format!("{addr}: {e}"))?;
        let bound = listener.local_addr().map_err(|e| e.to_string())?;
        eprintln!("listening on http://{bound}/mcp");
        if kind == Kind::Toolcall {
            let mut http = toolcall_mcp::HttpSettings::default();
            if let Some(max) = max_sessions {
                http.max_sessions = max;
            }
            let server = toolcall_bench::mcp::toolcall_server().http(http);
            return server.serve_http_on(listener).await.map_err(|e| e.to_string());
        }
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
        // Pinned, the server runs under `taskset -c SERVERS` (which becomes the server).
        let mut command = match &options.pin {
            Some(pin) => {
                let mut command = Command::new("taskset");
                command.args(["-c", &pin.servers]).arg(program);
                command
            }
            None => Command::new(program),
        };
        let child = command
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
    async fn close(mut self) {
        if let Some(session) = self.session.take() {
            let headers = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", LEGACY_VERSION)];
            let _ = self.conn.send("DELETE", &headers, "").await;
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

/// Warm-up calls, then (after every client is warm) `calls` measured calls, until
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
        };
        let connecting: Vec<_> = (0..self.clients)
            .map(|_| {
                let (addr, mode, timeout) = (server.addr, self.mode, self.timeout);
                tokio::spawn(async move { Client::connect(addr, mode, timeout).await })
            })
            .collect();
        let mut clients = Vec::new();
        for task in connecting {
            match task.await {
                Ok(Ok(client)) => clients.push(client),
                Ok(Err(why)) => {
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
        for (outcome, client) in done {
            phase.ok += outcome.ok;
            phase.latencies.extend(outcome.latencies);
            phase.errors.merge(outcome.errors);
            phase.warmup_errors.merge(outcome.warmup_errors);
            phase.not_run += outcome.not_run;
            let _ = tokio::time::timeout(self.timeout, client.close()).await;
        }
        phase
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
}

/// Opens `count` legacy sessions on `server` (initialize, initialized, one call each) over
/// a few connections, leaves them idle and reads the RSS; then ends them.
async fn idle_sessions(server: &Server, count: usize, tool: Tool, timeout: Duration) -> IdleSessions {
    let mut outcome = IdleSessions {
        kind: server.kind,
        opened: 0,
        before_kb: None,
        after_kb: None,
        closed_kb: None,
        errors: Errors::default(),
    };
    tokio::time::sleep(SETTLE).await;
    outcome.before_kb = status_kb(server.pid(), "VmRSS");
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
    tokio::time::sleep(SETTLE).await;
    outcome.after_kb = status_kb(server.pid(), "VmRSS");
    for (sessions, conn) in opened {
        let mut conn = conn.unwrap_or_else(|| Conn::new(server.addr));
        for session in sessions {
            let headers = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", LEGACY_VERSION)];
            let _ = within(timeout, conn.send("DELETE", &headers, "")).await;
        }
    }
    tokio::time::sleep(SETTLE).await;
    outcome.closed_kb = status_kb(server.pid(), "VmRSS");
    outcome
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
    soaks: Vec<Soak>,
    servers: Vec<ServerFigures>,
    load_before: String,
    load_after: String,
    wall: Duration,
    ticks_per_second: f64,
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

async fn run(options: &Options) -> Result<Report, String> {
    let load_before = loadavg();
    let began = Instant::now();
    let mut servers = Vec::new();
    for &kind in &options.servers {
        // Room for the idle sessions beside the clients' own (toolcall-mcp's default cap is
        // 1,000, past which the least recently used idle session is closed).
        let cap = (options.sessions + options.soak_clients.max(64) + 64).max(1000).to_string();
        let this = std::env::current_exe().map_err(|e| format!("this program's path: {e}"))?;
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
            Kind::Rmcp => Server::start(kind, &this, &["--serve-macro", "127.0.0.1:0"], options).await?,
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
            let measured = idle_sessions(server, options.sessions, options.tool, options.call_timeout).await;
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
    let figures = servers
        .iter_mut()
        .map(|server| ServerFigures {
            kind: server.kind,
            tools: server.tools,
            idle_rss_kb: server.idle_rss_kb,
            peak_rss_kb: status_kb(server.pid(), "VmHWM"),
            end_rss_kb: status_kb(server.pid(), "VmRSS"),
            exited: server.exited(),
            stderr: server.stderr_lines(),
        })
        .collect();
    Ok(Report {
        phases,
        idle,
        soaks,
        servers: figures,
        load_before,
        load_after: loadavg(),
        wall: began.elapsed(),
        ticks_per_second: ticks_per_second(),
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
        let _ = writeln!(out, "## MCP over streamable HTTP under load (#20, #48)\n");
        let _ = writeln!(
            out,
            "`toolcall-bench/examples/mcp_load.rs`: `tools/call` of `{}` against three servers in one run, \
             each a child process on 127.0.0.1 on rmcp {}, a multi-threaded tokio runtime and jemalloc: \
             **toolcall-mcp**, `McpServer::new(&toolcall_bench::toolset::ALL, ())` ({} tools) with \
             toolcall-mcp's defaults (60 s per-call time limit, at most 64 calls running and 256 waiting, \
             its session guard and resumable streams); **example-app**, the release `example-app serve \
             --http` binary ({} tools, a tool filter, resources and prompts, and its request log: a line \
             per request on stderr); **rmcp macros**, `toolcall_bench::mcp::MacroServer` ({} tools \
             written with `#[tool_router]`/`#[tool]`) served by rmcp's `StreamableHttpService` on axum \
             with rmcp's default HTTP settings. The clients are this program's raw HTTP/1.1 client, one \
             keep-alive connection each, in the driver's process ({}): **stateless** \
             clients speak 2026-07-28 (`_meta` and SEP-2243 headers on every call, no session), \
             **legacy** clients 2025-06-18 (a session each: initialize, initialized, calls with \
             `Mcp-Session-Id`, DELETE). Each cell (mode x clients) runs against every server back to \
             back, {} round(s), the order rotating; each client makes {} warm-up calls, then {} \
             measured calls one after another. Every answer is checked (`add`: `a + b` for arguments \
             that differ per call).\n",
            o.tool.name(),
            RMCP_VERSION,
            self.tools_of(Kind::Toolcall),
            self.tools_of(Kind::ExampleApp),
            self.tools_of(Kind::Rmcp),
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
        out
    }

    fn throughput_table(&self, out: &mut String, options: &Options) {
        let kinds: Vec<Kind> = self.servers.iter().map(|s| s.kind).collect();
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
                + self.soaks.iter().map(|s| s.phase.ok).sum::<usize>();
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
