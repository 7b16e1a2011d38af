//! `example-app serve [--http ADDR [--allow-remote] [--token [ID:]TOKEN]...]`: every tool
//! as an MCP server. Protocol messages only on stdout; everything else on stderr.
//!
//! Over stdio, and over HTTP without tokens, every call acts as the demo's signed-in user
//! (user 1, Ada). With tokens, each HTTP request must carry one as `Authorization: Bearer
//! TOKEN`, and its calls act as the token's user: the context is built per request from
//! the token, never from what the model sends. A request without a known token gets 401
//! and reaches no tool.
//!
//! User 2 (Grace) is a viewer: the tools annotated destructive (`remove_note`) are not in
//! their `tools/list`, and a call of one is answered as a call of an unknown tool.
//!
//! The user's id is each request's identity: a session belongs to the user who created it,
//! and another user naming it gets 404. A token is for `--http` only (refused over stdio),
//! and each token must differ from the others.
//!
//! With `--auth-issuer URL --resource URL` instead of tokens, the server is an OAuth 2.1
//! resource server (toolcall-mcp's `oauth`): a request needs an access token of that
//! issuer whose audience is the resource URL (also the `resource` of the metadata at
//! `/.well-known/oauth-protected-resource`), and the scope `notes:read`; `add_note` and
//! `remove_note` need `notes:write` too (declared with them, `.scopes(&["notes:write"])` in
//! the `TOOLS` of `src/tools/notes.rs`), and a call of either without it gets 403 with
//! `WWW-Authenticate: Bearer error="insufficient_scope", scope="... notes:write"`, so the
//! client can get a token with more scope; both stay listed to such a token, so it knows
//! what to ask for. JWT access tokens are checked against the issuer's keys; with
//! `--introspection-client-id ID --introspection-client-secret-env VAR`, opaque tokens are
//! checked at the issuer's introspection endpoint (RFC 7662) as client ID, with the secret
//! read from the environment variable VAR (never from the command line, where other users
//! of the machine could read it). A token's subject (or, without one, its
//! client) is a user, made on first sight and stored nowhere: the id is the first 52 bits
//! of SHA-256 over the issuer and the subject, plus 2^52 (never a demo user's id, still an
//! exact JSON number), so every replica and every restart gives the subject the same notes;
//! the name is the token's `name` or `preferred_username` claim, else the subject. The
//! resource URL's host is allowed as a `Host` (a proxy forwards it).
//!
//! Safe by default: only a loopback address is served, unless `--allow-remote` is given
//! together with a token; then any `Host` name is accepted (the token is the guard). The
//! server's other defaults stay: browser pages from other origins than loopback are
//! refused with 403, bodies over 4 MiB with 413, and the limits of toolcall-mcp's README
//! (time limits on connections, caps on connections, sessions and streams) apply.
//! `--max-sessions`, `--max-connections`, `--body-limit`, `--timeout` (of a tool call, over
//! stdio too) and `--header-timeout`, `--body-timeout`, `--idle-timeout`,
//! `--session-idle-timeout` change them; a value out of range is a usage error (exit 2).
//!
//! `--rate-limit N` limits each user (without tokens, each client address) to N tool calls
//! a second, counted in each process; with `--rate-limit-store redis://..` every replica
//! counts in that Redis, so a caller a balancer spreads over three replicas still gets N,
//! not 3N. While Redis does not answer, each replica counts its own (fail open: no call
//! is refused for Redis's sake), and the outage and the recovery are one line each of the
//! operator's log. Behind a balancer, `--trusted-proxy CIDR` (repeatable) names the
//! proxies whose `Forwarded` / `X-Forwarded-For` is believed: the client is the
//! right-most address in it that is not a trusted proxy; a request from anywhere else,
//! or with a header that does not parse, is its connection's address.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use serde_json::Value;
use toolcall_mcp::oauth::{AccessToken, ResourceServer};
use toolcall_mcp::{
    Caller, HttpSettings, McpServer, Rejection, TaskSettings, ToolSearch, bearer_token, http, idempotency_key,
};

use crate::app::{Location, PoolSettings, Store};
use crate::models::{Role, User};
use crate::{App, toolset};

/// The environment variable holding the tokens when `--token` is not given.
pub const TOKEN_ENV: &str = "TOOLCALL_MCP_TOKEN";

/// With `--auth-issuer`: the scope every request needs (list and read).
pub const NOTES_READ: &str = "notes:read";
/// The first id of users made from OAuth subjects (2^52): above every demo user's.
pub const OAUTH_USER_IDS: u64 = 1 << 52;

/// `serve [--http ADDR [--allow-remote] [--token [ID:]TOKEN]... [LIMITS]] [--timeout SECS]`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Args)]
pub struct ServeArgs {
    /// Serve streamable HTTP at ADDR/mcp (e.g. 127.0.0.1:8080) instead of stdio.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<SocketAddr>,
    /// Serve on an address other than loopback; needs --token, since anyone who can reach
    /// the address can connect.
    #[arg(long, requires = "http")]
    pub allow_remote: bool,
    /// Over HTTP, a bearer token clients must send: TOKEN signs in user 1, ID:TOKEN signs
    /// in user ID. Repeat it, or separate tokens with commas, for more users.
    #[arg(
        long = "token",
        value_name = "[ID:]TOKEN",
        env = TOKEN_ENV,
        value_delimiter = ',',
        hide_env_values = true
    )]
    pub tokens: Vec<Token>,
    /// Over HTTP, at most this many sessions live at once (clients before protocol
    /// 2026-07-28) [default: 1000].
    #[arg(long, value_name = "N", requires = "http", value_parser = at_least_one)]
    pub max_sessions: Option<usize>,
    /// Over HTTP, at most this many connections open at once [default: 512].
    #[arg(long, value_name = "N", requires = "http", value_parser = at_least_one)]
    pub max_connections: Option<usize>,
    /// Over HTTP, the largest request body: bytes, or with KiB or MiB (64KiB, 8MiB);
    /// 1KiB to 1024MiB [default: 4MiB].
    #[arg(long, value_name = "SIZE", requires = "http", value_parser = body_size)]
    pub body_limit: Option<usize>,
    /// The time limit of one tool call, in seconds [default: 60].
    #[arg(long, value_name = "SECS", value_parser = seconds)]
    pub timeout: Option<Duration>,
    /// Over HTTP, the time a client has to send a request's head, in seconds [default: 10].
    #[arg(long, value_name = "SECS", requires = "http", value_parser = seconds)]
    pub header_timeout: Option<Duration>,
    /// Over HTTP, the time a client has to send a request's body, in seconds [default: 30].
    #[arg(long, value_name = "SECS", requires = "http", value_parser = seconds)]
    pub body_timeout: Option<Duration>,
    /// Over HTTP, how long a kept-alive connection may wait for its next request, in
    /// seconds [default: 60].
    #[arg(long, value_name = "SECS", requires = "http", value_parser = seconds)]
    pub idle_timeout: Option<Duration>,
    /// Over HTTP, how long a session lives without a request, in seconds [default: 300].
    #[arg(long, value_name = "SECS", requires = "http", value_parser = seconds)]
    pub session_idle_timeout: Option<Duration>,
    /// Over HTTP, a `Host` name clients reach the server by (behind a proxy:
    /// `mcp.example.com`), beside the loopback names. Repeatable.
    #[arg(long = "allowed-host", value_name = "HOST", requires = "http")]
    pub allowed_hosts: Vec<String>,
    /// Over HTTP, a browser origin whose pages may call the server
    /// (`https://app.example.com`), beside loopback pages. Repeatable.
    #[arg(long = "allowed-origin", value_name = "ORIGIN", requires = "http")]
    pub allowed_origins: Vec<String>,
    /// Over HTTP, on SIGTERM or SIGINT: how long calls in flight may take to finish before
    /// the process exits, in seconds [default: 30].
    #[arg(long, value_name = "SECS", requires = "http", value_parser = seconds)]
    pub drain_grace: Option<Duration>,
    /// Over HTTP, on SIGTERM or SIGINT: how long the server goes on serving while
    /// `/readyz` answers 503 `draining` (so a balancer's health check sees it), each
    /// response closing its connection, before it stops accepting connections, in
    /// seconds; 0 stops at once [default: 5].
    #[arg(long, value_name = "SECS", requires = "http", value_parser = seconds_or_zero)]
    pub drain_delay: Option<Duration>,
    /// The operator's log (warnings, and the server's life events such as its drain) on
    /// stderr as JSON lines rather than text (read by `main` before the command runs).
    #[arg(long)]
    pub log_json: bool,
    /// With the built-in database, each query waits this long first, in milliseconds (to
    /// watch calls in flight) [default: 50].
    #[arg(long, value_name = "MS")]
    pub db_latency: Option<u64>,
    /// With --db, the most connections this process opens; replicas on one Postgres server
    /// share its max_connections [default: 8 on Postgres, 4 on SQLite].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub db_pool: Option<u32>,
    /// With --db, how long a query waits for a free connection, in seconds [default: 10].
    #[arg(long, value_name = "SECS", value_parser = seconds)]
    pub db_acquire_timeout: Option<Duration>,
    /// Over HTTP, the most tool calls per second each user (or, without tokens, each
    /// client address: see --trusted-proxy) may make, in bursts of as many; past it, 429
    /// with Retry-After. Counted in each process, unless --rate-limit-store says where
    /// replicas share the count [default: no limit].
    #[arg(long, value_name = "N", requires = "http", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub rate_limit: Option<u32>,
    /// With --rate-limit, where every replica counts the calls, so a caller spread over
    /// replicas gets its rate, not the rate times the replicas: a redis:// URL. While
    /// Redis does not answer (200 ms per count), each replica counts its own (the limit
    /// fails open, it never refuses a call for Redis's sake), and says so once on stderr
    /// [default: in this process].
    #[arg(long, value_name = "URL", requires = "rate_limit")]
    pub rate_limit_store: Option<String>,
    /// Over HTTP, a proxy (a balancer) whose Forwarded or X-Forwarded-For header names
    /// the client, as a CIDR block (10.0.0.0/8, 2001:db8::/32) or one address. When a
    /// request comes from one, its client is the right-most address of the header that is
    /// not itself a trusted proxy; otherwise (and when the header does not parse) the
    /// connection's address. The client's address is what a caller without a token is
    /// rate-limited as and what the request log names. Repeatable [default: none; the
    /// headers are ignored].
    #[arg(long = "trusted-proxy", value_name = "CIDR", requires = "http")]
    pub trusted_proxies: Vec<toolcall_mcp::Cidr>,
    /// Over HTTP, where sessions of clients before protocol 2026-07-28 are kept, so any
    /// replica serves any session: a redis:// URL [default: in this process].
    #[arg(long, value_name = "URL", requires = "http")]
    pub session_store: Option<String>,
    /// Over HTTP, where tasks are kept (`export_notes` runs as one for clients that
    /// declared the Tasks extension), so any replica answers for a task another started
    /// and reports it failed if that replica stops: a redis:// URL [default: the
    /// --session-store URL when one is given, else in this process].
    #[arg(long, value_name = "URL", requires = "http")]
    pub task_store: Option<String>,
    /// Over HTTP, instead of --token: the issuer URL of the OAuth 2.1 authorization server
    /// whose access tokens (for --resource) requests need. Every request needs scope
    /// notes:read; add_note and remove_note need notes:write, as their TOOLS entries say
    /// (`.scopes(&["notes:write"])` in src/tools/notes.rs).
    #[arg(long, value_name = "URL", requires_all = ["http", "resource"], conflicts_with = "tokens")]
    pub auth_issuer: Option<String>,
    /// With --auth-issuer, this server's URL as clients reach it
    /// (`https://mcp.example.com/mcp`): the audience tokens must name, and the resource of
    /// the metadata at /.well-known/oauth-protected-resource.
    #[arg(long, value_name = "URL", requires = "auth_issuer")]
    pub resource: Option<String>,
    /// With --auth-issuer, this server's client id at the issuer's introspection endpoint
    /// (RFC 7662): opaque (non-JWT) access tokens are checked there. Needs
    /// --introspection-client-secret-env.
    #[arg(long, value_name = "ID", requires_all = ["auth_issuer", "introspection_client_secret_env"])]
    pub introspection_client_id: Option<String>,
    /// The name of the environment variable holding the client secret of
    /// --introspection-client-id. The secret itself is never taken on the command line,
    /// where other users of the machine can read a process's arguments.
    #[arg(long, value_name = "VAR", requires = "introspection_client_id")]
    pub introspection_client_secret_env: Option<String>,
    /// Tool search: tools/list shows `whoami` and a `search_tools` tool, which finds the
    /// other tools' definitions by a query (from the index the build compiled); every tool
    /// stays callable by name.
    #[arg(long)]
    pub tool_search: bool,
}

/// A future that resolves on SIGTERM or SIGINT (on other platforms, Ctrl-C). The handlers
/// are installed when this is called, not when the future is first polled: a signal that
/// arrives once "listening on" is printed is never the default one that kills the process.
fn stop_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let handlers = (signal(SignalKind::terminate()), signal(SignalKind::interrupt()));
        async move {
            match handlers {
                (Ok(mut term), Ok(mut int)) => {
                    tokio::select! {
                        _ = term.recv() => {}
                        _ = int.recv() => {}
                    }
                }
                // Without signal handlers the process ends as it did before: by being killed.
                _ => std::future::pending::<()>().await,
            }
        }
    }
    #[cfg(not(unix))]
    {
        async {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

/// A bearer token and the user it signs in.
#[derive(Clone, PartialEq, Eq)]
pub struct Token {
    /// The user's id.
    pub user: u64,
    secret: String,
}

impl Token {
    /// Whether `presented` is this token, compared in time independent of where they
    /// differ.
    fn matches(&self, presented: &str) -> bool {
        let (a, b) = (self.secret.as_bytes(), presented.as_bytes());
        a.len() == b.len() && a.iter().zip(b).fold(0u8, |diff, (x, y)| diff | (x ^ y)) == 0
    }
}

/// Never prints the secret.
impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Token {{ user: {}, .. }}", self.user)
    }
}

impl FromStr for Token {
    type Err = String;

    /// `TOKEN` (user 1) or `ID:TOKEN`; a token is visible ASCII, as a header carries it.
    fn from_str(text: &str) -> Result<Self, String> {
        let (user, secret) = match text.split_once(':') {
            Some((id, secret)) if !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()) => {
                (id.parse().map_err(|e| format!("user id `{id}`: {e}"))?, secret)
            }
            _ => (1, text),
        };
        if secret.is_empty() {
            return Err("the token is empty".to_owned());
        }
        if !secret.bytes().all(|b| b.is_ascii_graphic()) {
            return Err("a token is visible ASCII, without spaces".to_owned());
        }
        Ok(Token { user, secret: secret.to_owned() })
    }
}

impl ServeArgs {
    /// Serves the notes on the database at `db` (the built-in one when `None`) until the
    /// client disconnects (stdio) or the process ends (HTTP); exit 2 for an address this
    /// command will not serve, 1 for a database that cannot be opened.
    pub fn run(self, db: Option<&Location>) -> ExitCode {
        if let Err(why) = self.check() {
            eprintln!("error: {why}");
            return ExitCode::from(2);
        }
        let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
            Ok(runtime) => runtime,
            Err(error) => {
                eprintln!("error: cannot start the async runtime: {error}");
                return ExitCode::FAILURE;
            }
        };
        let store = match db {
            Some(location) if self.http.is_some() => Arc::new(self.open_database(&runtime, location)),
            Some(_) | None => {
                let latency = Duration::from_millis(self.db_latency.unwrap_or(50));
                match super::open_store_with(&runtime, db, latency) {
                    Ok(store) => store,
                    Err(exit) => return exit,
                }
            }
        };
        // oauth: --auth-issuer and --resource make an OAuth 2.1 resource server.
        let oauth = match self.resource_server(|var| std::env::var(var).ok()) {
            Ok(oauth) => oauth,
            Err(why) => {
                eprintln!("error: {why}");
                return ExitCode::from(2);
            }
        };
        let mut http = self.http_settings(store.clone());
        // The stores connect at their first use: a replica started while Redis is down
        // starts, says so on /readyz, and uses Redis once it answers.
        let _in_runtime = runtime.enter();
        if let Some(url) = &self.session_store {
            match connect(&runtime, "session store", url, async {
                toolcall_mcp::RedisSessionStore::connect_lazy(url)
            }) {
                Ok(sessions) => {
                    http.session_store = Some(Arc::new(sessions.expiring_after(http.session_idle_timeout)));
                }
                Err(exit) => return exit,
            }
        }
        if let Some(url) = &self.rate_limit_store {
            match connect(&runtime, "rate-limit store", url, async {
                toolcall_mcp::RateLimitStore::redis(url)
            }) {
                Ok(rates) => http.rate_limit_store = rates,
                Err(exit) => return exit,
            }
        }
        let mut server = self.server(Arc::clone(&store), oauth.clone()).http(http);
        if let Some(url) = self.task_store_url() {
            match connect(&runtime, "task store", url, async {
                toolcall_mcp::RedisTaskStore::connect_lazy(url)
            }) {
                Ok(tasks) => server = server.tasks(TaskSettings::in_store(Arc::new(tasks))),
                Err(exit) => return exit,
            }
        }
        let served = runtime.block_on(async move {
            match self.http {
                None => server.serve_stdio().await,
                Some(addr) => {
                    let listener = tokio::net::TcpListener::bind(addr)
                        .await
                        .map_err(|source| toolcall_mcp::ServeError::Bind { addr, source })?;
                    // SIGTERM (an orchestrator) or SIGINT (Ctrl-C): stop taking calls, let
                    // the ones in flight finish, exit 0. Handled from before the address is
                    // announced, so whoever read it may signal at once.
                    let stop = stop_signal();
                    if let Ok(bound) = listener.local_addr() {
                        eprintln!("listening on http://{bound}/mcp");
                    }
                    if let Some(oauth) = oauth {
                        tokio::spawn(read_issuer(oauth));
                    }
                    server.serve_http_until(listener, stop).await?;
                    eprintln!("stopped: the calls in flight finished");
                    Ok(())
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

    /// The Redis of `--task-store`, else that of `--session-store`; `None`: tasks in this
    /// process.
    fn task_store_url(&self) -> Option<&str> {
        self.task_store.as_deref().or(self.session_store.as_deref())
    }

    /// Refuses tokens without `--http` (stdio has no requests to authenticate), a token
    /// given twice (only its first user could ever sign in), and a non-loopback address
    /// without `--allow-remote` and a token (or `--auth-issuer`).
    fn check(&self) -> Result<(), String> {
        if self.http.is_none() && !self.tokens.is_empty() {
            return Err(format!(
                "--token (or {TOKEN_ENV}) is for --http: over stdio the client is the process that \
                 started this one, and every call acts as user 1; drop the token or add --http ADDR"
            ));
        }
        for (i, token) in self.tokens.iter().enumerate() {
            if let Some(first) = self.tokens[..i].iter().find(|earlier| earlier.secret == token.secret) {
                return Err(format!(
                    "the same token is given for user {} and user {}: each token must be different, \
                     or only the first could sign in",
                    first.user, token.user
                ));
            }
        }
        let Some(addr) = self.http.filter(|addr| !addr.ip().is_loopback()) else { return Ok(()) };
        if !self.allow_remote {
            return Err(format!(
                "{addr} is not a loopback address: anyone who can reach it could call the tools; \
                 serve on 127.0.0.1, or pass --allow-remote with --token (or {TOKEN_ENV})"
            ));
        }
        if self.tokens.is_empty() && self.auth_issuer.is_none() {
            return Err(format!(
                "--allow-remote needs --token (or {TOKEN_ENV}) or --auth-issuer: without one, anyone \
                 who can reach {addr} could call the tools"
            ));
        }
        Ok(())
    }

    /// The database at `location` of an HTTP replica, with the pool given on the command
    /// line. One that does not answer yet is not an error: the server starts, `/readyz`
    /// says not ready (with why), and the first query that finds it answering opens and
    /// migrates it. (Over stdio, a database that cannot be opened ends the command: its one
    /// client wants to hear at once.)
    fn open_database(&self, runtime: &tokio::runtime::Runtime, location: &Location) -> Store {
        let mut pool = PoolSettings { max_connections: self.db_pool, ..PoolSettings::default() };
        if let Some(timeout) = self.db_acquire_timeout {
            pool.acquire_timeout = timeout;
        }
        match runtime.block_on(Store::open_with(location, pool)) {
            Ok(store) => store,
            Err(error) => {
                eprintln!("warning: {error}; serving, not ready until the database answers");
                Store::open_later(location, pool)
            }
        }
    }

    /// The HTTP settings: the limits and names given on the command line, toolcall-mcp's
    /// defaults for the others, and `/readyz` asking `store` whether it answers.
    fn http_settings(&self, store: Arc<Store>) -> HttpSettings {
        let mut http = HttpSettings::default();
        if self.allow_remote {
            http.allowed_hosts = Vec::new();
        } else {
            http.allowed_hosts.extend(self.allowed_hosts.iter().cloned());
            // oauth: clients reach the server by the resource URL's host.
            http.allowed_hosts.extend(self.resource.as_deref().and_then(authority).map(str::to_owned));
        }
        http.allowed_origins.extend(self.allowed_origins.iter().cloned());
        fn set<T>(field: &mut T, value: Option<T>) {
            if let Some(value) = value {
                *field = value;
            }
        }
        set(&mut http.max_sessions, self.max_sessions);
        set(&mut http.max_connections, self.max_connections);
        set(&mut http.body_limit, self.body_limit);
        set(&mut http.header_timeout, self.header_timeout);
        set(&mut http.body_timeout, self.body_timeout);
        set(&mut http.idle_timeout, self.idle_timeout);
        set(&mut http.session_idle_timeout, self.session_idle_timeout);
        set(&mut http.drain_grace, self.drain_grace);
        set(&mut http.drain_delay, self.drain_delay);
        http.rate_limit = self.rate_limit.map(toolcall_mcp::RateLimit::per_second);
        http.trusted_proxies.clone_from(&self.trusted_proxies);
        http.ready_when(move || {
            let store = Arc::clone(&store);
            async move { store.ping().await.map_err(|e| format!("database: {}", e.unavailable())) }
        });
        http
    }

    /// `server` with the time limit of a call given on the command line.
    fn limits(&self, server: McpServer<App>) -> McpServer<App> {
        match self.timeout {
            Some(limit) => server.timeout(limit),
            None => server,
        }
    }

    /// The server: user 1 on `store`; over HTTP with tokens, each request's token's user
    /// on the same store; with `oauth`, each verified access token's user. Each caller sees
    /// and may call the tools their role allows.
    fn server(&self, store: Arc<Store>, oauth: Option<Arc<ResourceServer>>) -> McpServer<App> {
        let mut server = McpServer::new(&toolset::ALL, App::for_user(&store, user(1)))
            .name("example-app")
            .version(env!("CARGO_PKG_VERSION"))
            .instructions("Weather, arithmetic, orders, money and the signed-in user's notes.")
            // A viewer neither sees nor can call a destructive tool: to them it is unknown.
            .tool_filter(|app: &App, tool| app.user.role.may_use(tool))
            .resources(crate::served::resources())
            .prompts(crate::served::prompts());
        if self.tool_search {
            server = server.tool_search(ToolSearch::new().always_visible(["whoami"]));
        }
        server = self.limits(server);
        // Each request's context carries its Idempotency-Key (add_note writes once per key).
        let context = move |store: &Arc<Store>, user: User, request: &http::request::Parts| {
            App::for_user(store, user).with_idempotency_key(idempotency_key(request))
        };
        if let Some(oauth) = oauth {
            return server.oauth(oauth).context_from_request(move |request| {
                // Only requests with a verified token get here.
                let token = AccessToken::of(request)
                    .ok_or_else(|| Rejection::unauthorized("no verified access token"))?;
                let user = oauth_user(token);
                Ok(Caller::new(format!("user:{}", user.id), context(&store, user, request)))
            });
        }
        if self.tokens.is_empty() {
            // Without tokens (loopback only) every request is user 1's, from an anonymous
            // caller: rate limits count each client address apart (--trusted-proxy).
            return server
                .context_from_request(move |request| Ok(Caller::new("", context(&store, user(1), request))));
        }
        let tokens = self.tokens.clone();
        server.context_from_request(move |request| {
            let presented = bearer_token(request)
                .ok_or_else(|| Rejection::unauthorized("send Authorization: Bearer TOKEN"))?;
            let token = tokens
                .iter()
                .find(|token| token.matches(presented))
                .ok_or_else(|| Rejection::unauthorized("unknown token"))?;
            // The user's id is the identity: it owns the sessions this user creates.
            Ok(Caller::new(format!("user:{}", token.user), context(&store, user(token.user), request)))
        })
    }
}

impl ServeArgs {
    /// The OAuth 2.1 resource server of `--auth-issuer` and `--resource`, if given: every
    /// request needs `notes:read` (the writing tools' `notes:write` is in their `TOOLS`
    /// entries, which `McpServer::oauth` reads); with `--introspection-client-id`, opaque
    /// tokens are introspected with the secret `env` gives for
    /// `--introspection-client-secret-env`.
    fn resource_server(
        &self,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Option<Arc<ResourceServer>>, String> {
        let (Some(issuer), Some(resource)) = (&self.auth_issuer, &self.resource) else { return Ok(None) };
        let mut server = ResourceServer::new(issuer, resource)
            .map_err(|error| format!("--auth-issuer/--resource: {error}"))?
            .required_scopes([NOTES_READ])
            .resource_name("example-app notes");
        if let (Some(client_id), Some(var)) =
            (&self.introspection_client_id, &self.introspection_client_secret_env)
        {
            let secret = env(var).filter(|secret| !secret.is_empty()).ok_or_else(|| {
                format!(
                    "--introspection-client-secret-env {var}: the environment variable {var} is not set \
                     (or is empty): set it to the client secret of {client_id}"
                )
            })?;
            server = server.introspection(client_id, secret);
        }
        Ok(Some(Arc::new(server)))
    }
}

/// Connects to the `what` at `url` (`connecting`), or says why not on stderr: exit 1.
fn connect<T, E: std::fmt::Display>(
    runtime: &tokio::runtime::Runtime,
    what: &str,
    url: &str,
    connecting: impl std::future::Future<Output = Result<T, E>>,
) -> Result<T, ExitCode> {
    runtime.block_on(connecting).map_err(|error| {
        eprintln!("error: the {what} at {url}: {error}");
        ExitCode::FAILURE
    })
}

/// Reads the issuer's metadata and keys at start, to report an unreachable issuer early;
/// serving goes on either way (requests with new tokens get 503 until it answers).
async fn read_issuer(oauth: Arc<ResourceServer>) {
    match oauth.discover().await {
        Ok(()) => eprintln!("OAuth: tokens of {} for {}", oauth.issuer(), oauth.resource()),
        Err(error) => eprintln!("warning: OAuth issuer {}: {error}; retried at each request", oauth.issuer()),
    }
}

/// The user a verified access token acts for, made on first sight and stored nowhere: the
/// id from SHA-256 over the issuer and the subject (see the module's documentation), the
/// name from the token. An editor: the token's scopes decide what it may do.
fn oauth_user(token: &AccessToken) -> User {
    use sha2::Digest as _;
    let mut input = token.issuer().as_bytes().to_vec();
    input.push(0);
    input.extend_from_slice(token.principal().as_bytes());
    let digest = sha2::Sha256::digest(&input);
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    let id = OAUTH_USER_IDS | (u64::from_be_bytes(first) & (OAUTH_USER_IDS - 1));
    let name = ["name", "preferred_username"]
        .iter()
        .find_map(|claim| token.claim(claim).and_then(Value::as_str))
        .unwrap_or(token.principal());
    User { id, name: name.to_owned(), role: Role::Editor }
}

/// The `host[:port]` of an http(s) URL.
fn authority(url: &str) -> Option<&str> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    (!authority.is_empty()).then_some(authority)
}

/// The longest time limit `serve` takes: a day.
const MAX_SECONDS: f64 = 86_400.0;

/// A count of at least 1.
fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1".to_owned()),
        Ok(count) => Ok(count),
        Err(_) => Err("expected a whole number, like 100".to_owned()),
    }
}

/// A number of seconds (`30`, `0.5`), more than 0 and at most a day.
fn seconds(text: &str) -> Result<Duration, String> {
    let secs: f64 = text.parse().map_err(|_| "expected a number of seconds, like 30 or 0.5".to_owned())?;
    if secs.is_nan() || secs <= 0.0 {
        return Err("must be more than 0 seconds".to_owned());
    }
    if secs > MAX_SECONDS {
        return Err(format!("must be at most {MAX_SECONDS} seconds (a day)"));
    }
    Duration::try_from_secs_f64(secs).map_err(|e| e.to_string())
}

/// A number of seconds that may be zero (no wait at all), at most a day.
fn seconds_or_zero(text: &str) -> Result<Duration, String> {
    if text.trim().parse::<f64>() == Ok(0.0) {
        return Ok(Duration::ZERO);
    }
    seconds(text).map_err(|why| why.replace("more than 0", "0 or more"))
}

/// A size in bytes, or with a `KiB` or `MiB` suffix: from 1 KiB to 1 GiB.
fn body_size(text: &str) -> Result<usize, String> {
    let (digits, unit) = match text.strip_suffix("MiB") {
        Some(digits) => (digits, 1 << 20),
        None => match text.strip_suffix("KiB") {
            Some(digits) => (digits, 1 << 10),
            None => (text, 1),
        },
    };
    let bytes = digits
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(unit))
        .ok_or_else(|| "expected a size in bytes, or with KiB or MiB, like 4MiB".to_owned())?;
    if !(1 << 10..=1 << 30).contains(&bytes) {
        return Err("must be from 1KiB to 1024MiB".to_owned());
    }
    Ok(bytes)
}

/// The demo's users: 1 is Ada and 2 is Grace, as the seeded store has it. Grace is a
/// viewer (no destructive tools); every other user an editor.
fn user(id: u64) -> User {
    let (name, role) = match id {
        1 => ("Ada".to_owned(), Role::Editor),
        2 => ("Grace".to_owned(), Role::Viewer),
        _ => (format!("user {id}"), Role::Editor),
    };
    User { id, name, role }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn serve(line: &str) -> Result<ServeArgs, String> {
        let words = std::iter::once("serve").chain(line.split_whitespace()).map(std::ffi::OsString::from);
        match super::super::parse(words).map_err(|e| e.to_string())? {
            super::super::Command::Serve(args) => Ok(args),
            other => Err(format!("{other:?}")),
        }
    }

    #[test]
    fn tokens_name_their_user() {
        let args = serve("--http 127.0.0.1:0 --token s3cret --token 2:other,7:a:b").unwrap();
        let users: Vec<u64> = args.tokens.iter().map(|t| t.user).collect();
        assert_eq!(users, [1, 2, 7]);
        assert!(
            args.tokens[2].matches("a:b") && !args.tokens[2].matches("a:c") && !args.tokens[2].matches("a:")
        );
        assert!(!format!("{args:?}").contains("s3cret"), "Debug hides the secret");
        assert_eq!(
            "x:y".parse::<Token>().map(|t| t.user),
            Ok(1),
            "a non-numeric prefix is part of the token"
        );
        assert!("2:".parse::<Token>().is_err());
        assert!("two words".parse::<Token>().is_err());
        assert!(serve("--allow-remote").is_err(), "--allow-remote is about --http");
    }

    #[test]
    fn only_loopback_without_allow_remote_and_a_token() {
        let check = |line: &str| serve(line).unwrap().check();
        assert!(check("").is_ok());
        assert!(check("--http 127.0.0.1:8080").is_ok());
        assert!(check("--http [::1]:8080").is_ok());
        let refused = check("--http 0.0.0.0:8080").unwrap_err();
        assert!(refused.starts_with("0.0.0.0:8080 is not a loopback address"), "{refused}");
        let refused = check("--http 0.0.0.0:8080 --allow-remote").unwrap_err();
        assert!(refused.starts_with("--allow-remote needs --token"), "{refused}");
        assert!(check("--http 0.0.0.0:8080 --token t").is_err());
        assert!(check("--http 0.0.0.0:8080 --allow-remote --token t").is_ok());
    }

    #[test]
    fn user_2_is_a_viewer_without_the_destructive_tools() {
        let visible = |id: u64| -> Vec<&str> {
            let role = user(id).role;
            toolset::ALL.describe().iter().filter(|tool| role.may_use(tool)).map(|tool| tool.name).collect()
        };
        let every: Vec<&str> = toolset::ALL.describe().iter().map(|tool| tool.name).collect();
        assert_eq!((user(1).role, user(2).role, user(7).role), (Role::Editor, Role::Viewer, Role::Editor));
        assert_eq!(visible(1), every);
        assert_eq!(visible(7), every);
        let hidden: Vec<&str> = every.iter().copied().filter(|name| !visible(2).contains(name)).collect();
        assert_eq!(hidden, ["remove_note"], "every tool annotated destructive, and only those");
    }

    #[test]
    fn limits_are_counts_sizes_and_seconds_in_range() {
        let args = serve(
            "--http 127.0.0.1:0 --max-sessions 3 --max-connections 9 --body-limit 64KiB --timeout 2.5 \
             --header-timeout 1 --body-timeout 2 --idle-timeout 0.25 --session-idle-timeout 600",
        )
        .unwrap();
        assert_eq!(
            (args.max_sessions, args.max_connections, args.body_limit),
            (Some(3), Some(9), Some(65_536))
        );
        assert_eq!(args.timeout, Some(Duration::from_millis(2_500)));
        assert_eq!(
            (args.header_timeout, args.body_timeout),
            (Some(Duration::from_secs(1)), Some(Duration::from_secs(2)))
        );
        assert_eq!(args.idle_timeout, Some(Duration::from_millis(250)));
        assert_eq!(args.session_idle_timeout, Some(Duration::from_secs(600)));
        assert_eq!(serve("").unwrap(), ServeArgs::default(), "none given: toolcall-mcp's defaults");
        assert_eq!(serve("--timeout 1").unwrap().timeout, Some(Duration::from_secs(1)), "stdio too");

        assert_eq!(body_size("1024"), Ok(1024));
        assert_eq!(body_size("1MiB"), Ok(1 << 20));
        assert_eq!(body_size("1024MiB"), Ok(1 << 30));
        assert!(body_size("1025MiB").is_err() && body_size("1023").is_err() && body_size("4 MiB").is_err());
        assert!(body_size("18446744073709551615MiB").is_err(), "no overflow");
        assert_eq!(at_least_one("0"), Err("must be at least 1".to_owned()));
        assert!(at_least_one("-1").is_err() && at_least_one("").is_err());
        for bad in ["0", "-0.5", "nan", "inf", "86401", "1s", ""] {
            assert!(seconds(bad).is_err(), "{bad}");
        }
        assert_eq!(seconds("86400"), Ok(Duration::from_secs(86_400)));
        assert!(serve("--max-sessions 4").is_err(), "an HTTP limit needs --http");
    }

    #[test]
    fn auth_issuer_and_resource_go_together_instead_of_tokens() {
        let args =
            serve("--http 127.0.0.1:0 --auth-issuer https://as.example --resource https://mcp.example/mcp")
                .unwrap();
        assert!(args.check().is_ok());
        let oauth = args.resource_server(|_| None).unwrap().unwrap();
        assert_eq!((oauth.issuer(), oauth.resource()), ("https://as.example", "https://mcp.example/mcp"));
        // The writing tools' scope is theirs, in their TOOLS entries (which `McpServer::oauth`
        // reads): the resource server names no tool.
        assert_eq!(oauth.scopes_supported(), [NOTES_READ]);
        assert!(oauth.tool_scopes_of("add_note").is_empty());
        let mut scoped: Vec<(&str, &[&str])> = toolset::ALL
            .describe()
            .iter()
            .filter(|tool| !tool.scopes().is_empty())
            .map(|tool| (tool.name, tool.scopes()))
            .collect();
        scoped.sort();
        assert_eq!(scoped, [("add_note", &["notes:write"][..]), ("remove_note", &["notes:write"][..])]);
        assert!(
            args.http_settings(Arc::new(Store::new(Duration::ZERO)))
                .allowed_hosts
                .contains(&"mcp.example".to_owned())
        );
        assert!(serve("--http 127.0.0.1:0 --auth-issuer https://as.example").is_err(), "needs --resource");
        assert!(
            serve("--http 127.0.0.1:0 --resource https://mcp.example/mcp").is_err(),
            "needs --auth-issuer"
        );
        assert!(
            serve("--auth-issuer https://as.example --resource https://mcp.example/mcp").is_err(),
            "needs --http"
        );
        assert!(
            serve("--http 127.0.0.1:0 --token t --auth-issuer https://as.example --resource https://mcp.example/mcp").is_err(),
            "one or the other"
        );
        let remote = serve(
            "--http 0.0.0.0:8080 --allow-remote --auth-issuer https://as.example --resource https://mcp.example/mcp",
        );
        assert!(remote.unwrap().check().is_ok(), "OAuth guards a remote address");
        let plain =
            serve("--http 127.0.0.1:0 --auth-issuer http://as.example --resource https://mcp.example/mcp")
                .unwrap();
        assert!(
            plain.resource_server(|_| None).unwrap_err().contains("https"),
            "plain http only to loopback"
        );
        assert_eq!(authority("https://user@mcp.example:8443/mcp?x#y"), Some("mcp.example:8443"));
        assert_eq!(authority("not a url"), None);
    }

    #[test]
    fn introspection_takes_its_secret_from_the_environment_only() {
        let oauth = "--http 127.0.0.1:0 --auth-issuer https://as.example --resource https://mcp.example/mcp";
        let args = serve(&format!(
            "{oauth} --introspection-client-id rs --introspection-client-secret-env RS_SECRET"
        ))
        .unwrap();
        assert_eq!(
            (args.introspection_client_id.as_deref(), args.introspection_client_secret_env.as_deref()),
            (Some("rs"), Some("RS_SECRET"))
        );
        let env = |var: &str| (var == "RS_SECRET").then(|| "s3cret".to_owned());
        let server = format!("{:?}", args.resource_server(env).unwrap().unwrap());
        assert!(server.contains(r#"introspection: Some(Credentials { client_id: "rs""#), "{server}");
        assert!(!server.contains("s3cret"), "{server}");
        let unset = args.resource_server(|_| None).unwrap_err();
        assert!(
            unset.starts_with(
                "--introspection-client-secret-env RS_SECRET: the environment variable RS_SECRET is not set"
            ),
            "{unset}"
        );
        assert!(args.resource_server(|_| Some(String::new())).is_err(), "an empty secret");
        let without = serve(oauth).unwrap().resource_server(env).unwrap().unwrap();
        assert!(format!("{without:?}").contains("introspection: None"), "JWTs only");
        assert!(serve(&format!("{oauth} --introspection-client-id rs")).is_err(), "needs the variable");
        assert!(
            serve(&format!("{oauth} --introspection-client-secret-env RS_SECRET")).is_err(),
            "needs the id"
        );
        assert!(
            serve("--http 127.0.0.1:0 --introspection-client-id rs --introspection-client-secret-env V")
                .is_err(),
            "needs --auth-issuer"
        );
        assert!(
            serve(&format!("{oauth} --introspection-client-id rs --introspection-client-secret s3cret"))
                .is_err(),
            "no secret on the command line"
        );
    }

    #[test]
    fn a_token_subject_is_a_stable_user_of_its_own() {
        let token = |iss: &str, claims: serde_json::Value| {
            let mut claims = claims.as_object().cloned().unwrap();
            claims.insert("iss".into(), iss.into());
            AccessToken::from_claims(claims)
        };
        let ada =
            oauth_user(&token("https://as.example", serde_json::json!({"sub": "ada-1", "name": "Ada"})));
        assert_eq!(
            ada,
            oauth_user(&token("https://as.example", serde_json::json!({"sub": "ada-1", "name": "Ada"})))
        );
        assert_eq!((ada.name.as_str(), ada.role), ("Ada", Role::Editor));
        assert!((OAUTH_USER_IDS..2 * OAUTH_USER_IDS).contains(&ada.id), "above the demo users, below 2^53");
        let other = oauth_user(&token("https://as.example", serde_json::json!({"sub": "ada-2"})));
        assert_ne!(other.id, ada.id);
        assert_eq!(other.name, "ada-2", "no name claim: the subject");
        let elsewhere = oauth_user(&token("https://other.example", serde_json::json!({"sub": "ada-1"})));
        assert_ne!(elsewhere.id, ada.id, "the same subject of another issuer is another user");
        let machine = oauth_user(&token("https://as.example", serde_json::json!({"client_id": "bot"})));
        assert_eq!(machine.name, "client:bot");
    }

    #[test]
    fn tokens_are_for_http_and_each_is_different() {
        let check = |line: &str| serve(line).unwrap().check();
        let refused = check("--token t").unwrap_err();
        assert!(refused.starts_with("--token (or TOOLCALL_MCP_TOKEN) is for --http"), "{refused}");
        let refused = check("--http 127.0.0.1:0 --token 1:same,2:same").unwrap_err();
        assert!(refused.starts_with("the same token is given for user 1 and user 2"), "{refused}");
        assert!(check("--http 127.0.0.1:0 --token same --token 2:same").is_err(), "TOKEN is user 1's");
        assert!(check("--http 127.0.0.1:0 --token 1:a,1:b,2:c").is_ok(), "a user may have two tokens");
        assert!(!check("--http 127.0.0.1:0 --token s3cret,2:s3cret").unwrap_err().contains("s3cret"));
    }

    #[test]
    fn rate_limits_are_shared_through_a_store_and_proxies_are_trusted_by_block() {
        let args = serve(
            "--http 127.0.0.1:0 --rate-limit 5 --rate-limit-store redis://r --trusted-proxy 10.0.0.0/8 \
             --trusted-proxy 2001:db8::1",
        )
        .unwrap();
        assert_eq!(args.rate_limit_store.as_deref(), Some("redis://r"));
        let proxies: Vec<String> = args.trusted_proxies.iter().map(ToString::to_string).collect();
        assert_eq!(proxies, ["10.0.0.0/8", "2001:db8::1/128"]);
        let http = args.http_settings(Arc::new(Store::new(Duration::ZERO)));
        assert_eq!(http.trusted_proxies, args.trusted_proxies);
        assert_eq!(http.rate_limit.map(|rate| rate.calls_per_second()), Some(5));
        assert!(!http.rate_limit_store.is_shared(), "connected in `run`, in the runtime");
        let bad = serve("--http 127.0.0.1:0 --trusted-proxy 10.0.0.0/33").unwrap_err();
        assert!(bad.contains("`10.0.0.0/33` is not a CIDR block (the prefix is too long)"), "{bad}");
        assert!(serve("--http 127.0.0.1:0 --rate-limit-store redis://r").is_err(), "needs --rate-limit");
        assert!(serve("--trusted-proxy 10.0.0.1").is_err(), "needs --http");
    }

    #[test]
    fn tasks_are_kept_in_the_task_store_else_the_session_store_else_in_memory() {
        let url = |line: &str| serve(line).unwrap().task_store_url().map(str::to_owned);
        assert_eq!(url("--http 127.0.0.1:0"), None);
        assert_eq!(url("--http 127.0.0.1:0 --session-store redis://s"), Some("redis://s".to_owned()));
        assert_eq!(url("--http 127.0.0.1:0 --task-store redis://t"), Some("redis://t".to_owned()));
        assert_eq!(
            url("--http 127.0.0.1:0 --session-store redis://s --task-store redis://t"),
            Some("redis://t".to_owned())
        );
        assert!(serve("--task-store redis://t").is_err(), "replicas serve HTTP");
    }
}
