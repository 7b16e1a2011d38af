//! A load test of MCP over streamable HTTP, on 127.0.0.1 only: N clients, each making M
//! `tools/call` one after another, against two servers of the same tool in the same run:
//!
//! - **toolcall-mcp**: the real `example-app serve --http 127.0.0.1:0` binary (every
//!   example-app tool, with toolcall-mcp's per-call time limit and cap on concurrent calls);
//! - **rmcp macros**: [`toolcall_bench::mcp::MacroServer`], the same tools written with
//!   rmcp's `#[tool_router]`/`#[tool]`, served by rmcp's `StreamableHttpService` on axum
//!   with rmcp's default HTTP settings (the ones toolcall-mcp starts from). It runs in a
//!   child process too: this example's own binary re-executed with `--serve-macro ADDR`.
//!
//! Each server is its own process, so each has its own resident set: the report gives each
//! server's RSS when idle (after start, before any call), its peak (`VmHWM` of
//! `/proc/PID/status`, read after the run) and after the run, and the CPU time it spent
//! per 1,000 measured calls (`/proc/PID/stat`). The clients are rmcp's streamable-HTTP
//! client (reqwest), each with its own connection pool and session; every call's result
//! is checked (`add` returns `a + b` for arguments that differ per call, `get_weather` its
//! forecast), and every failure is counted by kind, never unwrapped. Both servers run the
//! whole time; the rounds alternate which server goes first.
//!
//! Bounded: `--max-seconds` caps the time of all rounds together (each server and round
//! gets an equal share; calls not started by then are counted as "not run"), and every
//! call and connect has a time limit (`--call-timeout`).
//!
//! ```text
//! cargo build --release -p example-app -p toolcall-bench --bin example-app --example mcp_load
//! target/release/examples/mcp_load --clients 16 --calls 500 --markdown toolcall-bench/sections/mcp_load.md
//! ```
//!
//! Options (defaults in brackets): `--clients N` [16], `--calls M` per client and round
//! [500], `--warmup W` calls per client before each measured round [20], `--rounds R` [2],
//! `--tool add|get_weather|list_notes` [add] (`list_notes` waits 50 ms on example-app's
//! store and exists in example-app only: use it with `--servers toolcall` to fill
//! toolcall-mcp's cap on concurrent calls), `--servers both|toolcall|rmcp` [both],
//! `--max-seconds S` [120], `--call-timeout S` [30], `--example-app PATH` [`example-app`
//! next to this binary's directory, i.e. `target/release/example-app`, or `$EXAMPLE_APP`],
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
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, JsonObject};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};
use tokio::sync::Barrier;
use toolcall_bench::mcp::MacroServer;

const USAGE: &str = "usage: mcp_load [--clients N] [--calls M] [--warmup W] [--rounds R] \
[--tool add|get_weather|list_notes] [--servers both|toolcall|rmcp] [--max-seconds S] \
[--call-timeout S] [--example-app PATH] [--markdown PATH]";

/// How long a server may take to print its address.
const START_LIMIT: Duration = Duration::from_secs(30);

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--serve-macro") {
        return serve_macro(args.get(1).map(String::as_str));
    }
    let options = match Options::parse(&args) {
        Ok(options) => options,
        Err(why) => {
            eprintln!("error: {why}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
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
    ListNotes,
}

/// What a call must answer.
enum Expect {
    Exactly(Value),
    AnArray,
}

impl Tool {
    fn name(self) -> &'static str {
        match self {
            Tool::Add => "add",
            Tool::GetWeather => "get_weather",
            Tool::ListNotes => "list_notes",
        }
    }

    /// The arguments of client `client`'s call number `call`, and the answer they must get.
    fn call(self, client: usize, call: usize) -> (JsonObject, Expect) {
        let (args, expect) = match self {
            Tool::Add => {
                // Both servers' `add` take integers that fit an i32 (example-app's are i32).
                let (a, b) = (client as i64, (call % 1_000_000) as i64);
                (json!({"a": a, "b": b}), Expect::Exactly(json!(a + b)))
            }
            Tool::GetWeather => {
                let (city, days) = (format!("City {client}"), call % 7 + 1);
                (
                    json!({"city": city, "days": days}),
                    Expect::Exactly(json!({"city": city, "days": days, "temp": 21.5})),
                )
            }
            Tool::ListNotes => (json!({"limit": 3}), Expect::AnArray),
        };
        (args.as_object().cloned().unwrap_or_default(), expect)
    }
}

/// Which server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Toolcall,
    Rmcp,
}

impl Kind {
    fn label(self) -> &'static str {
        match self {
            Kind::Toolcall => "toolcall-mcp (`example-app serve --http`)",
            Kind::Rmcp => "rmcp `#[tool_router]` (`MacroServer`)",
        }
    }

    fn short(self) -> &'static str {
        match self {
            Kind::Toolcall => "toolcall-mcp",
            Kind::Rmcp => "rmcp macros",
        }
    }
}

#[derive(Clone, Debug)]
struct Options {
    clients: usize,
    calls: usize,
    warmup: usize,
    rounds: usize,
    tool: Tool,
    servers: Vec<Kind>,
    max_seconds: f64,
    call_timeout: Duration,
    example_app: Option<PathBuf>,
    markdown: Option<PathBuf>,
}

impl Options {
    fn parse(args: &[String]) -> Result<Options, String> {
        let mut options = Options {
            clients: 16,
            calls: 500,
            warmup: 20,
            rounds: 2,
            tool: Tool::Add,
            servers: vec![Kind::Toolcall, Kind::Rmcp],
            max_seconds: 120.0,
            call_timeout: Duration::from_secs(30),
            example_app: std::env::var_os("EXAMPLE_APP").map(PathBuf::from),
            markdown: None,
        };
        let mut words = args.iter();
        while let Some(flag) = words.next() {
            let mut value = || words.next().ok_or_else(|| format!("{flag} needs a value"));
            fn number<T: std::str::FromStr>(flag: &str, text: &str) -> Result<T, String> {
                text.parse().map_err(|_| format!("{flag}: not a number: {text}"))
            }
            match flag.as_str() {
                "--clients" => options.clients = number(flag, value()?)?,
                "--calls" => options.calls = number(flag, value()?)?,
                "--warmup" => options.warmup = number(flag, value()?)?,
                "--rounds" => options.rounds = number(flag, value()?)?,
                "--max-seconds" => options.max_seconds = number(flag, value()?)?,
                "--call-timeout" => options.call_timeout = Duration::from_secs_f64(number(flag, value()?)?),
                "--example-app" => options.example_app = Some(PathBuf::from(value()?)),
                "--markdown" => options.markdown = Some(PathBuf::from(value()?)),
                "--tool" => {
                    options.tool = match value()?.as_str() {
                        "add" => Tool::Add,
                        "get_weather" => Tool::GetWeather,
                        "list_notes" => Tool::ListNotes,
                        other => {
                            return Err(format!("--tool: no tool {other} (add, get_weather, list_notes)"));
                        }
                    }
                }
                "--servers" => {
                    options.servers = match value()?.as_str() {
                        "both" => vec![Kind::Toolcall, Kind::Rmcp],
                        "toolcall" => vec![Kind::Toolcall],
                        "rmcp" => vec![Kind::Rmcp],
                        other => return Err(format!("--servers: {other} (both, toolcall, rmcp)")),
                    }
                }
                "-h" | "--help" => return Err("help".to_owned()),
                other => return Err(format!("unknown option {other}")),
            }
        }
        if options.clients == 0 || options.calls == 0 || options.rounds == 0 {
            return Err("--clients, --calls and --rounds must be at least 1".to_owned());
        }
        if !(options.max_seconds.is_finite() && options.max_seconds > 0.0) {
            return Err("--max-seconds must be positive".to_owned());
        }
        if options.call_timeout.is_zero() {
            return Err("--call-timeout must be positive".to_owned());
        }
        if options.tool == Tool::ListNotes && options.servers.contains(&Kind::Rmcp) {
            return Err("list_notes is an example-app tool only: pass --servers toolcall".to_owned());
        }
        Ok(options)
    }

    /// The time share of one server in one round (warm-up and measured calls).
    fn phase_budget(&self) -> Duration {
        Duration::from_secs_f64(self.max_seconds / (self.rounds * self.servers.len()) as f64)
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

/// `--serve-macro ADDR`: rmcp's macro server over rmcp's streamable HTTP until killed,
/// on a multi-threaded runtime like example-app's; prints `listening on http://ADDR/mcp`.
fn serve_macro(addr: Option<&str>) -> ExitCode {
    let Some(addr) = addr.and_then(|addr| addr.parse::<SocketAddr>().ok()) else {
        eprintln!("error: --serve-macro needs an address such as 127.0.0.1:0");
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
        let service = StreamableHttpService::new(
            || Ok(MacroServer::default()),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default(),
        );
        let router = axum::Router::new().nest_service("/mcp", service);
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
    uri: String,
    /// What it wrote to stderr besides its address and its request log.
    stderr: Arc<Mutex<Vec<String>>>,
    idle_rss_kb: Option<u64>,
    tools: Option<usize>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// Starts `program args` and waits for its `listening on URI` line and for an MCP
    /// client to connect to it.
    async fn start(kind: Kind, program: &Path, args: &[&str], timeout: Duration) -> Result<Server, String> {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
        let pipe = child.stderr.take();
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let mut server = Server { kind, child, uri: String::new(), stderr, idle_rss_kb: None, tools: None };
        let Some(pipe) = pipe else { return Err("no stderr pipe".to_owned()) };
        let (address, listening) = mpsc::channel();
        let kept = Arc::clone(&server.stderr);
        std::thread::spawn(move || {
            let mut address = Some(address);
            for line in BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                if let Some(uri) = line.strip_prefix("listening on ")
                    && let Some(address) = address.take()
                {
                    let _ = address.send(uri.to_owned());
                    continue;
                }
                // example-app's request log (one line per request, #46) is not a problem.
                if line.starts_with("request ") {
                    continue;
                }
                if let Ok(mut kept) = kept.lock()
                    && kept.len() < 200
                {
                    kept.push(line);
                }
            }
        });
        server.uri = listening.recv_timeout(START_LIMIT).map_err(|_| {
            format!(
                "{} printed no `listening on` line within {START_LIMIT:?}; its stderr: {:?}",
                program.display(),
                server.stderr_lines()
            )
        })?;
        // Ready when a client can initialize and list the tools.
        let started = Instant::now();
        loop {
            match connect(&server.uri, timeout).await {
                Ok(client) => {
                    server.tools = client.list_all_tools().await.ok().map(|tools| tools.len());
                    let _ = client.cancel().await;
                    break;
                }
                Err(why) if started.elapsed() > START_LIMIT => {
                    return Err(format!("{} never answered: {why}", server.uri));
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

    fn stderr_lines(&self) -> Vec<String> {
        self.stderr.lock().map(|lines| lines.clone()).unwrap_or_default()
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

/// Clock ticks per second (`getconf CLK_TCK`; 100 on Linux when that fails).
fn ticks_per_second() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .and_then(|text| text.trim().parse().ok())
        .unwrap_or(100.0)
}

// ---------------------------------------------------------------------------------------
// Clients

type Client = RunningService<RoleClient, ()>;

/// A new rmcp streamable-HTTP client (its own reqwest client, so its own connections),
/// initialized.
async fn connect(uri: &str, timeout: Duration) -> Result<Client, String> {
    let transport = StreamableHttpClientTransport::from_uri(uri.to_owned());
    match tokio::time::timeout(timeout, ().serve(transport)).await {
        Ok(Ok(client)) => Ok(client),
        Ok(Err(error)) => Err(format!("connect failed: {error}")),
        Err(_) => Err(format!("connect timed out after {timeout:?}")),
    }
}

/// One call, checked: `Err` says what went wrong.
async fn call(
    client: &Client,
    tool: Tool,
    who: usize,
    number: usize,
    timeout: Duration,
) -> Result<(), String> {
    let (args, expect) = tool.call(who, number);
    let params = CallToolRequestParams::new(tool.name()).with_arguments(args);
    let result = match tokio::time::timeout(timeout, client.call_tool(params)).await {
        Ok(Ok(result)) => result,
        Ok(Err(error)) => return Err(format!("request failed: {error}")),
        Err(_) => return Err(format!("timed out after {timeout:?}")),
    };
    let text = result.content.first().and_then(|c| c.as_text()).map_or("", |t| t.text.as_str());
    if result.is_error == Some(true) {
        return Err(format!("tool error: {text}"));
    }
    let value: Value = serde_json::from_str(text).map_err(|_| format!("wrong result (not JSON): {text}"))?;
    let right = match expect {
        Expect::Exactly(expected) => value == expected,
        Expect::AnArray => value.is_array(),
    };
    if right { Ok(()) } else { Err(format!("wrong result: {text}")) }
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

/// One client's part of one measured round.
#[derive(Default)]
struct ClientOutcome {
    ok: usize,
    latencies: Vec<Duration>,
    errors: Errors,
    warmup_errors: Errors,
    not_run: usize,
}

/// Warm-up calls, then (after every client is warm) the measured calls, until `deadline`.
async fn drive(
    client: Client,
    who: usize,
    options: Arc<Options>,
    start: Arc<Barrier>,
    deadline: Instant,
) -> (ClientOutcome, Client) {
    let mut outcome = ClientOutcome { latencies: Vec::with_capacity(options.calls), ..Default::default() };
    for number in 0..options.warmup {
        if Instant::now() >= deadline {
            break;
        }
        if let Err(why) = call(&client, options.tool, who, number, options.call_timeout).await {
            outcome.warmup_errors.add(why);
        }
    }
    start.wait().await;
    for number in 0..options.calls {
        if Instant::now() >= deadline {
            outcome.not_run = options.calls - number;
            break;
        }
        let sent = Instant::now();
        match call(&client, options.tool, who, options.warmup + number, options.call_timeout).await {
            Ok(()) => {
                outcome.ok += 1;
                outcome.latencies.push(sent.elapsed());
            }
            Err(why) => outcome.errors.add(why),
        }
    }
    (outcome, client)
}

// ---------------------------------------------------------------------------------------
// Rounds

/// One server in one round.
struct Phase {
    kind: Kind,
    round: usize,
    ok: usize,
    latencies: Vec<Duration>,
    errors: Errors,
    warmup_errors: Errors,
    not_run: usize,
    elapsed: Duration,
    cpu_ticks: Option<u64>,
    /// The server's RSS after the round, its clients gone.
    rss_kb: Option<u64>,
}

async fn phase(server: &Server, options: &Arc<Options>, round: usize) -> Phase {
    let deadline = Instant::now() + options.phase_budget();
    let mut result = Phase {
        kind: server.kind,
        round,
        ok: 0,
        latencies: Vec::new(),
        errors: Errors::default(),
        warmup_errors: Errors::default(),
        not_run: 0,
        elapsed: Duration::ZERO,
        cpu_ticks: None,
        rss_kb: None,
    };
    let connecting: Vec<_> = (0..options.clients)
        .map(|_| {
            let (uri, timeout) = (server.uri.clone(), options.call_timeout);
            tokio::spawn(async move { connect(&uri, timeout).await })
        })
        .collect();
    let mut clients = Vec::new();
    for task in connecting {
        match task.await {
            Ok(Ok(client)) => clients.push(client),
            Ok(Err(why)) => {
                result.errors.add(why);
                result.not_run += options.calls;
            }
            Err(error) => {
                result.errors.add(format!("connect task failed: {error}"));
                result.not_run += options.calls;
            }
        }
    }
    let start = Arc::new(Barrier::new(clients.len() + 1));
    let tasks: Vec<_> = clients
        .into_iter()
        .enumerate()
        .map(|(who, client)| {
            tokio::spawn(drive(client, who, Arc::clone(options), Arc::clone(&start), deadline))
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
                result.errors.add(format!("client task failed: {error}"));
                result.not_run += options.calls;
            }
        }
    }
    result.elapsed = started.elapsed();
    result.cpu_ticks = cpu_before.zip(cpu_ticks(server.pid())).map(|(a, b)| b.saturating_sub(a));
    for (outcome, client) in done {
        result.ok += outcome.ok;
        result.latencies.extend(outcome.latencies);
        result.errors.merge(outcome.errors);
        result.warmup_errors.merge(outcome.warmup_errors);
        result.not_run += outcome.not_run;
        // Ends the session (DELETE), so sessions do not pile up across rounds.
        let _ = tokio::time::timeout(options.call_timeout, client.cancel()).await;
    }
    result.rss_kb = status_kb(server.pid(), "VmRSS");
    result
}

/// What the run measured.
struct Report {
    phases: Vec<Phase>,
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
    let options = Arc::new(options.clone());
    let load_before = loadavg();
    let began = Instant::now();
    let mut servers = Vec::new();
    for &kind in &options.servers {
        let server = match kind {
            Kind::Toolcall => {
                let program = match &options.example_app {
                    Some(path) => path.clone(),
                    None => default_example_app()?,
                };
                Server::start(kind, &program, &["serve", "--http", "127.0.0.1:0"], options.call_timeout)
                    .await?
            }
            Kind::Rmcp => {
                let program = std::env::current_exe().map_err(|e| format!("this program's path: {e}"))?;
                Server::start(kind, &program, &["--serve-macro", "127.0.0.1:0"], options.call_timeout).await?
            }
        };
        eprintln!(
            "{}: pid {}, {}, {} tools, idle RSS {} kB",
            kind.short(),
            server.pid(),
            server.uri,
            server.tools.map_or("?".to_owned(), |n| n.to_string()),
            server.idle_rss_kb.map_or("?".to_owned(), |n| n.to_string())
        );
        servers.push(server);
    }
    let mut phases = Vec::new();
    for round in 0..options.rounds {
        // Alternate which server goes first.
        let order: Vec<&Server> =
            if round % 2 == 0 { servers.iter().collect() } else { servers.iter().rev().collect() };
        for server in order {
            let result = phase(server, &options, round + 1).await;
            eprintln!(
                "round {} {}: {} ok, {} failed, {} not run in {:.2} s",
                round + 1,
                server.kind.short(),
                result.ok,
                result.errors.total(),
                result.not_run,
                result.elapsed.as_secs_f64()
            );
            phases.push(result);
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
    Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .map_or_else(|| "unknown".to_owned(), |text| text.trim().to_owned())
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

/// Per-server totals over the rounds.
struct Totals {
    ok: usize,
    failed: usize,
    not_run: usize,
    elapsed: Duration,
    cpu_ticks: Option<u64>,
    latencies: Vec<Duration>,
    errors: Errors,
    warmup_errors: Errors,
}

impl Report {
    fn totals(&self, kind: Kind) -> Totals {
        let mut totals = Totals {
            ok: 0,
            failed: 0,
            not_run: 0,
            elapsed: Duration::ZERO,
            cpu_ticks: Some(0),
            latencies: Vec::new(),
            errors: Errors::default(),
            warmup_errors: Errors::default(),
        };
        for phase in self.phases.iter().filter(|phase| phase.kind == kind) {
            totals.ok += phase.ok;
            totals.failed += phase.errors.total();
            totals.not_run += phase.not_run;
            totals.elapsed += phase.elapsed;
            totals.cpu_ticks = totals.cpu_ticks.zip(phase.cpu_ticks).map(|(a, b)| a + b);
            totals.latencies.extend(&phase.latencies);
            totals.errors.merge(phase.errors.clone());
            totals.warmup_errors.merge(phase.warmup_errors.clone());
        }
        totals.latencies.sort_unstable();
        totals
    }

    /// Every call succeeded and every server is still running.
    fn clean(&self) -> bool {
        self.phases.iter().all(|p| p.errors.total() == 0 && p.warmup_errors.total() == 0 && p.not_run == 0)
            && self.servers.iter().all(|s| s.exited.is_none())
    }

    fn cpu_per_1000(&self, ticks: Option<u64>, calls: usize) -> String {
        match ticks {
            Some(ticks) if calls > 0 => {
                format!("{:.0} ms", ticks as f64 / self.ticks_per_second * 1e3 * 1000.0 / calls as f64)
            }
            _ => "—".to_owned(),
        }
    }

    fn markdown(&self, options: &Options, args: &[String]) -> String {
        let mut out = String::new();
        let o = options;
        let _ = writeln!(out, "## MCP over streamable HTTP under load (#20)\n");
        let _ = writeln!(
            out,
            "`toolcall-bench/examples/mcp_load.rs`: {} clients at once, each making {} `tools/call` of \
             `{}` one after another ({} unmeasured warm-up calls first), against each server in turn, \
             {} round(s), the order alternating; every server a child process on 127.0.0.1, \
             all in the same run. toolcall-mcp is the release `example-app serve --http` binary ({} \
             tools; toolcall-mcp's defaults: 60 s per-call time limit, at most 64 calls running and \
             256 waiting); rmcp macros is `toolcall_bench::mcp::MacroServer` ({} tools written with \
             `#[tool_router]`/`#[tool]`) served by rmcp's `StreamableHttpService` on axum with rmcp's \
             default HTTP settings. Both use rmcp {} with legacy sessions and a multi-threaded tokio \
             runtime; the clients are rmcp's streamable-HTTP client (reqwest), one connection pool \
             and session each, in the driver's process on the same cores. Every result is checked \
             (`add`: `a + b` for arguments that differ per call).\n",
            o.clients,
            o.calls,
            o.tool.name(),
            o.warmup,
            o.rounds,
            self.tools_of(Kind::Toolcall),
            self.tools_of(Kind::Rmcp),
            RMCP_VERSION,
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
             {:.0} s wall time in all (cap {} s).",
            today(),
            commit(),
            cpu_model(),
            std::thread::available_parallelism().map_or(0, |n| n.get()),
            self.load_before,
            self.load_after,
            self.wall.as_secs_f64(),
            o.max_seconds,
        );
        let _ = writeln!(
            out,
            "- calls/s = successful measured calls / measured wall time (all clients at once); \
             latency = one call's round trip as its client saw it (successful calls); server CPU = \
             the server process's user + system time over the measured calls; RSS idle = after start \
             and one `tools/list`, peak = `VmHWM` after the run, after = `VmRSS` after the run (the \
             clients' sessions closed).\n"
        );
        let _ = writeln!(
            out,
            "| server | calls ok | failed | not run | calls/s | p50 | p99 | max | server CPU / 1,000 calls \
             | RSS idle | RSS peak | RSS after |"
        );
        let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for figures in &self.servers {
            let t = self.totals(figures.kind);
            let rate = if t.elapsed.is_zero() { 0.0 } else { t.ok as f64 / t.elapsed.as_secs_f64() };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {:.0} | {} | {} | {} | {} | {} | {} | {} |",
                figures.kind.label(),
                t.ok,
                t.failed,
                t.not_run,
                rate,
                ms(quantile(&t.latencies, 0.5)),
                ms(quantile(&t.latencies, 0.99)),
                ms(t.latencies.last().copied()),
                self.cpu_per_1000(t.cpu_ticks, t.ok + t.failed),
                mib(figures.idle_rss_kb),
                mib(figures.peak_rss_kb),
                mib(figures.end_rss_kb),
            );
        }
        if self.servers.len() == 2 {
            let (a, b) = (self.totals(Kind::Toolcall), self.totals(Kind::Rmcp));
            let rate = |t: &Totals| t.ok as f64 / t.elapsed.as_secs_f64().max(f64::MIN_POSITIVE);
            let p50 = |t: &Totals| quantile(&t.latencies, 0.5).map(|d| d.as_secs_f64());
            if let (Some(pa), Some(pb)) = (p50(&a), p50(&b)) {
                let _ = writeln!(
                    out,
                    "\ntoolcall-mcp / rmcp macros: calls/s {:.2}x, p50 latency {:.2}x.",
                    rate(&a) / rate(&b).max(f64::MIN_POSITIVE),
                    pa / pb.max(f64::MIN_POSITIVE)
                );
            }
        }
        let _ = writeln!(
            out,
            "\nEach round (RSS after = the server's `VmRSS` once the round's clients are gone):\n"
        );
        let _ = writeln!(
            out,
            "| round | server | calls ok | failed | seconds | calls/s | p50 | p99 | RSS after |"
        );
        let _ = writeln!(out, "|---:|---|---:|---:|---:|---:|---:|---:|---:|");
        for phase in &self.phases {
            let mut sorted = phase.latencies.clone();
            sorted.sort_unstable();
            let secs = phase.elapsed.as_secs_f64();
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {:.2} | {:.0} | {} | {} | {} |",
                phase.round,
                phase.kind.short(),
                phase.ok,
                phase.errors.total(),
                secs,
                if secs > 0.0 { phase.ok as f64 / secs } else { 0.0 },
                ms(quantile(&sorted, 0.5)),
                ms(quantile(&sorted, 0.99)),
                mib(phase.rss_kb),
            );
        }
        let mut problems = Vec::new();
        for figures in &self.servers {
            let t = self.totals(figures.kind);
            for (what, errors) in [("measured", &t.errors), ("warm-up", &t.warmup_errors)] {
                for (count, example) in errors.0.values() {
                    problems.push(format!("{}, {what}: {count} x `{example}`", figures.kind.short()));
                }
            }
            if t.not_run > 0 {
                problems.push(format!(
                    "{}: {} calls not run (time cap or no client)",
                    figures.kind.short(),
                    t.not_run
                ));
            }
            if let Some(status) = &figures.exited {
                problems.push(format!("{}: the server exited ({status})", figures.kind.short()));
            }
            for line in &figures.stderr {
                problems.push(format!("{} stderr: `{line}`", figures.kind.short()));
            }
        }
        if problems.is_empty() {
            let calls: usize = self.phases.iter().map(|p| p.ok).sum();
            let _ = writeln!(
                out,
                "\nFailures: none in {calls} measured calls (plus warm-up); no server wrote to stderr \
                 beyond its address, and {} still running at the end.",
                if self.servers.len() == 2 { "both were" } else { "it was" }
            );
        } else {
            let _ = writeln!(out, "\nFailures and server output:\n");
            for problem in problems {
                let _ = writeln!(out, "- {problem}");
            }
        }
        out
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
