//! An OAuth 2.1 resource server in front of `/mcp` (feature `oauth`), as the MCP
//! authorization specification asks of a server that authorizes: clients find the
//! authorization server in this server's protected-resource metadata (RFC 9728), get a
//! token for this server's URI (RFC 8707 resource indicators) and send it as a bearer
//! token; this server checks that each token was issued by its issuer, for it, and is
//! current, and that it carries the scopes the request needs.
//!
//! Its parts, one file each: `metadata` (the metadata document and the `WWW-Authenticate`
//! challenges), `verify` (JWT access tokens, checked against the issuer's keys), `jwks`
//! (those keys, cached, fetched again on an unknown `kid`, rate-limited), `discovery` (the
//! issuer's endpoints, from its metadata document), `introspection` (opaque tokens,
//! through the issuer's RFC 7662 endpoint), `scopes` (the scopes every request and each
//! tool needs: 403 `insufficient_scope`), `token` (the verified [`AccessToken`], the
//! refusals, [`TokenError`], and the cache of verified tokens), `guard` (the layer that
//! does it per request) and `fetch` (asking the issuer, within a time and a size limit).
//!
//! Where each request goes, outermost first: the `Host` check, then the token (401 without
//! a good one, its body unread; 403 without the required scopes; 503 if the issuer cannot
//! be asked), then the request function, then the body's limits, then, for a `tools/call`,
//! the tool's scopes (403 `insufficient_scope`), then rmcp.
//!
//! A tool's own scopes are declared with it, in its file's `TOOLS` const
//! (`ToolMeta::new("add_note").scopes(&["notes:write"])`): the build checks them and puts
//! them in the tool's `ToolInfo`, and [`McpServer::oauth`] requires them for a call of it.
//! [`ResourceServer::tool_scopes`] gives scopes to a tool at run time (one added with
//! [`McpServer::tool`]); a tool given both needs both.
//!
//! ```no_run
//! use toolcall_mcp::oauth::{AccessToken, ResourceServer};
//! use toolcall_mcp::{Caller, McpServer, Rejection};
//! # mod toolset { pub static ALL: toolcall_runtime::Toolset<super::App> = toolcall_runtime::Toolset::new(&[], &E, |_, _, _| None); static E: toolcall_runtime::Emitted = toolcall_runtime::Emitted::new(); }
//! # #[derive(Default)] struct App { user: String, may_write: bool }
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! // In src/tools/notes.rs, `add_note` needs notes:write:
//! //     pub(crate) const TOOLS: &[ToolMeta] = &[ToolMeta::new("add_note").scopes(&["notes:write"])];
//! let oauth = ResourceServer::new("https://auth.example.com", "https://mcp.example.com/mcp")?
//!     .required_scopes(["notes:read"]);
//! McpServer::new(&toolset::ALL, App::default())
//!     .oauth(oauth)
//!     .context_from_request(|request| {
//!         // Only verified tokens get here.
//!         let token = AccessToken::of(request).ok_or_else(|| Rejection::unauthorized("no token"))?;
//!         let app = App { user: token.principal().to_owned(), may_write: token.has_scope("notes:write") };
//!         Ok(Caller::new(token.principal(), app))
//!     })
//!     .serve_http("127.0.0.1:8080".parse()?)
//!     .await?;
//! # Ok(()) }
//! # fn main() {}
//! ```
//!
//! [`McpServer::oauth`]: crate::McpServer::oauth
//! [`McpServer::tool`]: crate::McpServer::tool

mod discovery;
mod fetch;
pub(crate) mod guard;
mod introspection;
mod jwks;
mod metadata;
pub(crate) mod scopes;
mod token;
mod verify;

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use reqwest::Url;

use discovery::{Discovery, Endpoints};
use fetch::{Fetcher, check_url};
use introspection::Credentials;
use jwks::{Jwks, Lookup};
use scopes::ToolScopes;
pub use token::{AccessToken, TokenError, TokenSource};
use token::{TokenCache, TokenSource as Source, until};

/// The leeway on `exp` and `nbf` by default: 30 seconds of clock difference.
pub const DEFAULT_LEEWAY: Duration = Duration::from_secs(30);
/// The time limit of each request to the authorization server by default: 5 seconds.
pub const DEFAULT_HTTP_TIMEOUT: Duration = Duration::from_secs(5);
/// The largest answer read from the authorization server by default: 256 KiB.
pub const DEFAULT_MAX_DOCUMENT_SIZE: usize = 256 * 1024;
/// How long the issuer's keys and endpoints are used before they are fetched again by
/// default: 1 hour.
pub const DEFAULT_KEYS_TTL: Duration = Duration::from_secs(3600);
/// The least time between two fetches of the keys made for an unknown `kid` by default:
/// 10 seconds.
pub const DEFAULT_KEY_REFRESH_INTERVAL: Duration = Duration::from_secs(10);
/// How long a verified JWT is kept (never past its `exp`) by default: 5 minutes.
pub const DEFAULT_TOKEN_CACHE_TTL: Duration = Duration::from_secs(300);
/// How long an introspection answer is kept (never past the token's `exp`) by default:
/// 30 seconds; a revoked token is refused again within that time.
pub const DEFAULT_INTROSPECTION_CACHE_TTL: Duration = Duration::from_secs(30);
/// The most tokens kept verified by default.
pub const DEFAULT_TOKEN_CACHE_CAPACITY: usize = 10_000;
/// The most tokens introspection refused kept (so the next request with one is refused
/// without asking again).
const REFUSED_CACHE_CAPACITY: usize = 1_000;

/// A mistake in the resource server's configuration (a URL that is not one, plain HTTP to
/// a host that is not loopback).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError(String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

/// The OAuth 2.1 resource server: which authorization server issues tokens for this MCP
/// server, this server's resource URI (the tokens' audience), the scopes requests and
/// tools need, and the caches of the issuer's keys and of verified tokens. Build it, then
/// hand it to [`McpServer::oauth`]. Each setting's default is its `DEFAULT_*` constant.
///
/// Tokens are JWTs (RFC 9068) verified against the issuer's keys, found through its
/// discovery document; opaque tokens are introspected (RFC 7662) when
/// [`ResourceServer::introspection`] gave this server client credentials. One issuer per
/// server.
///
/// A clone shares the caches (the issuer's endpoints and keys, the verified tokens):
/// [`McpServer::oauth`] keeps a clone that also knows the toolset's tool scopes when the
/// one it is given is shared.
///
/// [`McpServer::oauth`]: crate::McpServer::oauth
#[derive(Clone)]
pub struct ResourceServer {
    issuer: String,
    resource: String,
    audiences: Vec<String>,
    metadata_url: String,
    metadata_paths: Vec<String>,
    supported: Vec<String>,
    pub(crate) required: Vec<String>,
    pub(crate) tools: ToolScopes,
    resource_name: Option<String>,
    resource_documentation: Option<String>,
    leeway: Duration,
    http_timeout: Duration,
    max_document_size: usize,
    keys_ttl: Duration,
    key_refresh_interval: Duration,
    token_cache_ttl: Duration,
    introspection_cache_ttl: Duration,
    credentials: Option<Credentials>,
    fetcher: Arc<OnceLock<Result<Fetcher, String>>>,
    discovery: Arc<Discovery>,
    jwks: Arc<Jwks>,
    tokens: Arc<TokenCache>,
    /// Introspection's refusals, apart: a flood of made-up tokens fills this one, never
    /// pushing verified tokens out.
    refused: Arc<TokenCache>,
}

impl std::fmt::Debug for ResourceServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceServer")
            .field("issuer", &self.issuer)
            .field("resource", &self.resource)
            .field("required", &self.required)
            .field("tools", &self.tools)
            .field("introspection", &self.credentials)
            .finish_non_exhaustive()
    }
}

impl ResourceServer {
    /// A resource server for tokens issued by `issuer` (the authorization server's issuer
    /// identifier, as its metadata writes it) for `resource`, this server's canonical URI
    /// as clients reach it (`https://mcp.example.com/mcp`): the audience tokens must name
    /// and the metadata's `resource`. Both must be HTTPS, or plain HTTP to a loopback
    /// host; the resource has no fragment.
    pub fn new(issuer: &str, resource: &str) -> Result<Self, ConfigError> {
        let issuer_url =
            Url::parse(issuer).map_err(|error| ConfigError(format!("issuer `{issuer}`: {error}")))?;
        check_url(&issuer_url, "the issuer").map_err(ConfigError)?;
        if issuer_url.query().is_some() || issuer_url.fragment().is_some() {
            return Err(ConfigError(format!(
                "issuer `{issuer}`: an issuer has no query or fragment (RFC 8414)"
            )));
        }
        let resource_url =
            Url::parse(resource).map_err(|error| ConfigError(format!("resource `{resource}`: {error}")))?;
        check_url(&resource_url, "the resource").map_err(ConfigError)?;
        if resource_url.fragment().is_some() {
            return Err(ConfigError(format!(
                "resource `{resource}`: a resource URI has no fragment (RFC 8707)"
            )));
        }
        // The URL crate writes a root path as `/`: keep the form given.
        let mut canonical = resource_url.to_string();
        if resource_url.path() == "/" && resource_url.query().is_none() && !resource.ends_with('/') {
            canonical.pop();
        }
        let alternate = match canonical.strip_suffix('/') {
            Some(without) => without.to_owned(),
            None => format!("{canonical}/"),
        };
        let path = resource_url.path().trim_end_matches('/');
        let mut at = resource_url.clone();
        at.set_query(None);
        at.set_path(&format!("/.well-known/oauth-protected-resource{path}"));
        let mut metadata_paths = vec!["/.well-known/oauth-protected-resource".to_owned()];
        if !path.is_empty() {
            metadata_paths.push(format!("/.well-known/oauth-protected-resource{path}"));
        }
        Ok(ResourceServer {
            discovery: Arc::new(Discovery::new(issuer.to_owned(), issuer_url)),
            issuer: issuer.to_owned(),
            audiences: vec![canonical.clone(), alternate],
            resource: canonical,
            metadata_url: at.to_string(),
            metadata_paths,
            supported: Vec::new(),
            required: Vec::new(),
            tools: ToolScopes::new(),
            resource_name: None,
            resource_documentation: None,
            leeway: DEFAULT_LEEWAY,
            http_timeout: DEFAULT_HTTP_TIMEOUT,
            max_document_size: DEFAULT_MAX_DOCUMENT_SIZE,
            keys_ttl: DEFAULT_KEYS_TTL,
            key_refresh_interval: DEFAULT_KEY_REFRESH_INTERVAL,
            token_cache_ttl: DEFAULT_TOKEN_CACHE_TTL,
            introspection_cache_ttl: DEFAULT_INTROSPECTION_CACHE_TTL,
            credentials: None,
            fetcher: Arc::new(OnceLock::new()),
            jwks: Arc::new(Jwks::new()),
            tokens: Arc::new(TokenCache::new(DEFAULT_TOKEN_CACHE_CAPACITY)),
            refused: Arc::new(TokenCache::new(REFUSED_CACHE_CAPACITY)),
        })
    }

    /// Scopes every request needs (to list tools, read resources, anything): a token
    /// without one of them gets 403 `insufficient_scope`, and a 401 asks for them.
    pub fn required_scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.required = normalized(scopes);
        self
    }

    /// The scopes calling `tool` (by the name clients call it) needs beside the required
    /// ones: a `tools/call` of it with a token lacking one gets 403 with
    /// `error="insufficient_scope"` and `scope` naming them (and the ones the token has),
    /// so the client can get a token with more and call again. The tool is listed to every
    /// caller either way (a caller who cannot see it could not ask for more); hide it with
    /// a [`McpServer::tool_filter`] if it should be.
    ///
    /// A tool of the toolset declares its scopes in its `TOOLS` entry
    /// (`ToolMeta::scopes`), which [`McpServer::oauth`] adds to these: this is for tools
    /// added at run time ([`McpServer::tool`]), which have no `TOOLS` entry, and for scopes
    /// a deployment adds. A tool named both here and in `TOOLS` needs the scopes of both.
    ///
    /// [`McpServer::tool_filter`]: crate::McpServer::tool_filter
    /// [`McpServer::oauth`]: crate::McpServer::oauth
    /// [`McpServer::tool`]: crate::McpServer::tool
    pub fn tool_scopes(
        mut self,
        tool: impl Into<String>,
        scopes: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.tools.insert(tool.into(), normalized(scopes));
        self
    }

    /// More scopes the metadata lists in `scopes_supported`, beside the required ones and
    /// the tools' ones (which it always lists, from [`ResourceServer::tool_scopes`] and,
    /// once served, from the toolset's `ToolMeta::scopes`).
    pub fn supported_scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.supported = normalized(scopes);
        self
    }

    /// Client credentials of this server at the issuer's introspection endpoint: opaque
    /// (non-JWT) tokens are then checked there (RFC 7662), with HTTP Basic authentication,
    /// and so are JWTs if the issuer publishes no keys (`jwks_uri`). Without them an opaque
    /// token is refused.
    pub fn introspection(mut self, client_id: impl Into<String>, client_secret: impl Into<String>) -> Self {
        self.credentials =
            Some(Credentials { client_id: client_id.into(), client_secret: client_secret.into() });
        self
    }

    /// The metadata's human-readable `resource_name`.
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.resource_name = Some(name.into());
        self
    }

    /// The metadata's `resource_documentation`: a page for developers.
    pub fn resource_documentation(mut self, url: impl Into<String>) -> Self {
        self.resource_documentation = Some(url.into());
        self
    }

    /// The clock difference allowed on `exp` and `nbf` ([`DEFAULT_LEEWAY`]).
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// The time limit of each request to the authorization server, from connecting to the
    /// answer's last byte ([`DEFAULT_HTTP_TIMEOUT`]).
    pub fn http_timeout(mut self, limit: Duration) -> Self {
        self.http_timeout = limit;
        self
    }

    /// The largest answer read from the authorization server, in bytes
    /// ([`DEFAULT_MAX_DOCUMENT_SIZE`]); a larger one is an error.
    pub fn max_document_size(mut self, bytes: usize) -> Self {
        self.max_document_size = bytes.max(1);
        self
    }

    /// How long the issuer's keys and endpoints are used before being fetched again
    /// ([`DEFAULT_KEYS_TTL`]). If fetching fails, the old ones stay in use.
    pub fn keys_ttl(mut self, ttl: Duration) -> Self {
        self.keys_ttl = ttl;
        self
    }

    /// The least time between two fetches of the keys made because a token named an
    /// unknown `kid` ([`DEFAULT_KEY_REFRESH_INTERVAL`]): within it, such a token is refused
    /// without asking the issuer.
    pub fn key_refresh_interval(mut self, interval: Duration) -> Self {
        self.key_refresh_interval = interval;
        self
    }

    /// How long a verified JWT is kept, so that the next request with it costs a lookup
    /// ([`DEFAULT_TOKEN_CACHE_TTL`]; never past the token's `exp`; zero keeps none).
    pub fn token_cache_ttl(mut self, ttl: Duration) -> Self {
        self.token_cache_ttl = ttl;
        self
    }

    /// How long an introspection answer, active or not, is kept
    /// ([`DEFAULT_INTROSPECTION_CACHE_TTL`]; never past the token's `exp`).
    pub fn introspection_cache_ttl(mut self, ttl: Duration) -> Self {
        self.introspection_cache_ttl = ttl;
        self
    }

    /// The most tokens kept verified ([`DEFAULT_TOKEN_CACHE_CAPACITY`]).
    pub fn token_cache_capacity(mut self, tokens: usize) -> Self {
        self.tokens = Arc::new(TokenCache::new(tokens));
        self
    }

    /// The issuer, as given.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The resource URI: the audience tokens must name and the metadata's `resource`.
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// Where the metadata document is, as each challenge's `resource_metadata` says: the
    /// resource's origin, `/.well-known/oauth-protected-resource`, then the resource's path.
    pub fn metadata_url(&self) -> &str {
        &self.metadata_url
    }

    /// The paths this server answers the metadata at.
    pub(crate) fn metadata_paths(&self) -> Vec<String> {
        self.metadata_paths.clone()
    }

    /// Every scope the server knows: the supported, required and tools' ones, sorted. The
    /// resource server [`McpServer::oauth`] keeps knows the toolset's `ToolMeta::scopes`
    /// too; one not handed to it yet knows those of [`ResourceServer::tool_scopes`] only.
    ///
    /// [`McpServer::oauth`]: crate::McpServer::oauth
    pub fn scopes_supported(&self) -> Vec<String> {
        let mut all: Vec<String> = self
            .supported
            .iter()
            .chain(&self.required)
            .chain(self.tools.values().flatten())
            .cloned()
            .collect();
        all.sort();
        all.dedup();
        all
    }

    /// The scopes calling `tool` needs beside the required ones (see
    /// [`ResourceServer::scopes_supported`] for which tools' scopes it knows).
    pub fn tool_scopes_of(&self, tool: &str) -> &[String] {
        self.tools.get(tool).map_or(&[], Vec::as_slice)
    }

    fn fetcher(&self) -> Result<&Fetcher, TokenError> {
        self.fetcher
            .get_or_init(|| Fetcher::new(self.http_timeout, self.max_document_size))
            .as_ref()
            .map_err(|why| TokenError::Unavailable(why.clone()))
    }

    async fn endpoints(&self) -> Result<Arc<Endpoints>, TokenError> {
        let fetcher = self.fetcher()?;
        self.discovery.endpoints(fetcher, self.keys_ttl).await.map_err(TokenError::Unavailable)
    }

    /// Reads the issuer's discovery document and its keys now, rather than at the first
    /// request: call it at start to report an unreachable issuer early. A failure is not
    /// fatal to serving: requests keep trying (and get 503 until the issuer answers).
    pub async fn discover(&self) -> Result<(), TokenError> {
        let endpoints = self.endpoints().await?;
        if let Some(jwks_uri) = &endpoints.jwks_uri {
            let lookup = self.lookup(jwks_uri)?;
            // Any algorithm: this only fills the cache.
            match self.jwks.keys_for(&lookup, None, jsonwebtoken::Algorithm::RS256).await {
                Ok(_) | Err(TokenError::UnknownKey(_)) => {}
                Err(error) => return Err(error),
            }
        } else if self.credentials.is_none() {
            return Err(TokenError::Unavailable(format!(
                "issuer {} publishes no jwks_uri, and no introspection credentials were given",
                self.issuer
            )));
        }
        Ok(())
    }

    fn lookup<'a>(&'a self, jwks_uri: &'a Url) -> Result<Lookup<'a>, TokenError> {
        Ok(Lookup {
            fetcher: self.fetcher()?,
            jwks_uri,
            ttl: self.keys_ttl,
            refresh_interval: self.key_refresh_interval,
        })
    }

    /// Verifies a bearer token as the OAuth layer does for each request: from the cache
    /// when it was verified before; else a JWT against the issuer's keys (issuer,
    /// audience, expiry, not-before), or an opaque token through introspection.
    pub async fn verify(&self, token: &str) -> Result<Arc<AccessToken>, TokenError> {
        if let Some(outcome) = self.tokens.get(token) {
            return outcome;
        }
        if let Some(outcome) = self.refused.get(token) {
            return outcome;
        }
        // A JWT is checked here, unless the issuer publishes no keys and introspection can.
        let local = verify::looks_like_jwt(token)
            && (self.credentials.is_none() || self.endpoints().await?.jwks_uri.is_some());
        if local {
            let access = Arc::new(self.verify_jwt(token).await?);
            let ttl = access.exp().map_or(self.token_cache_ttl, |exp| until(exp).min(self.token_cache_ttl));
            self.tokens.put(token, Ok(Arc::clone(&access)), ttl);
            return Ok(access);
        }
        self.introspect(token).await
    }

    async fn verify_jwt(&self, token: &str) -> Result<AccessToken, TokenError> {
        let (header, alg) = verify::read_header(token)?;
        let endpoints = self.endpoints().await?;
        let Some(jwks_uri) = &endpoints.jwks_uri else {
            return Err(TokenError::Unavailable(format!("issuer {} publishes no jwks_uri", self.issuer)));
        };
        let keys = self.jwks.keys_for(&self.lookup(jwks_uri)?, header.kid.as_deref(), alg).await?;
        let expected =
            verify::Expected { issuer: &endpoints.issuer, audiences: &self.audiences, leeway: self.leeway };
        let claims = verify::verify(token, alg, &keys, &expected)?;
        principal_of(AccessToken::read(Source::Jwt, claims))
    }

    async fn introspect(&self, token: &str) -> Result<Arc<AccessToken>, TokenError> {
        let Some(credentials) = &self.credentials else {
            return Err(TokenError::NoIntrospection);
        };
        let endpoints = self.endpoints().await?;
        let Some(endpoint) = &endpoints.introspection_endpoint else {
            return Err(TokenError::Unavailable(format!(
                "issuer {} publishes no introspection_endpoint",
                self.issuer
            )));
        };
        let expected = introspection::Expected {
            issuer: &endpoints.issuer,
            audiences: &self.audiences,
            leeway: self.leeway.as_secs(),
        };
        let outcome =
            match introspection::introspect(self.fetcher()?, endpoint, credentials, token, &expected).await {
                Ok(mut claims) => {
                    claims.entry("iss").or_insert_with(|| endpoints.issuer.clone().into());
                    principal_of(AccessToken::read(Source::Introspection, claims)).map(Arc::new)
                }
                // Not cached: the next request asks again.
                Err(error) if error.is_unavailable() => return Err(error),
                Err(error) => Err(error),
            };
        let ttl = match &outcome {
            Ok(access) => access
                .exp()
                .map_or(self.introspection_cache_ttl, |exp| until(exp).min(self.introspection_cache_ttl)),
            Err(_) => self.introspection_cache_ttl,
        };
        let cache = if outcome.is_ok() { &self.tokens } else { &self.refused };
        cache.put(token, outcome.clone(), ttl);
        outcome
    }
}

/// `token` if it names a principal (a subject or a client).
fn principal_of(token: AccessToken) -> Result<AccessToken, TokenError> {
    if token.principal().is_empty() { Err(TokenError::MissingClaim("sub".to_owned())) } else { Ok(token) }
}

/// `tool`'s scopes in `tools`, with `scopes` added: each once, in order, the ones there
/// first.
fn unite(tools: &mut ToolScopes, tool: &str, scopes: &[&str]) {
    if scopes.is_empty() {
        return;
    }
    let known = tools.entry(tool.to_owned()).or_default();
    for scope in normalized(scopes.iter().copied()) {
        if !known.contains(&scope) {
            known.push(scope);
        }
    }
}

/// Scopes as given, each once, empty ones dropped, in order.
fn normalized(scopes: impl IntoIterator<Item = impl Into<String>>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for scope in scopes {
        let scope: String = scope.into();
        let scope = scope.trim();
        if !scope.is_empty() && !out.iter().any(|s| s == scope) {
            out.push(scope.to_owned());
        }
    }
    out
}

impl ResourceServer {
    /// This resource server knowing the scopes of `tools` too (each tool's
    /// [`ToolInfo::scopes`](toolcall_runtime::ToolInfo::scopes)), beside those
    /// [`ResourceServer::tool_scopes`] gave it: what [`McpServer::oauth`] keeps.
    ///
    /// [`McpServer::oauth`]: crate::McpServer::oauth
    pub(crate) fn knowing_scopes_of(mut self, tools: &[toolcall_runtime::ToolInfo]) -> Self {
        for tool in tools {
            unite(&mut self.tools, tool.name, tool.scopes());
        }
        self
    }
}

/// oauth wiring, beside `/mcp`: the metadata document's routes.
pub(crate) fn metadata_routes(router: axum::Router, server: Option<&Arc<ResourceServer>>) -> axum::Router {
    match server {
        Some(server) => router.merge(metadata::routes(server)),
        None => router,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::McpServer;

    #[test]
    fn the_resource_is_canonical_and_its_metadata_url_path_suffixed() {
        let server = ResourceServer::new("https://as.example", "https://MCP.example:8443/mcp").unwrap();
        assert_eq!(server.resource(), "https://mcp.example:8443/mcp");
        assert_eq!(
            server.metadata_url(),
            "https://mcp.example:8443/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            server.metadata_paths(),
            ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]
        );
        assert_eq!(server.audiences, ["https://mcp.example:8443/mcp", "https://mcp.example:8443/mcp/"]);
        let root = ResourceServer::new("https://as.example", "https://mcp.example").unwrap();
        assert_eq!(
            (root.resource(), root.audiences[1].as_str()),
            ("https://mcp.example", "https://mcp.example/")
        );
        assert!(ResourceServer::new("http://as.example", "https://mcp.example").is_err(), "http issuer");
        assert!(ResourceServer::new("https://as.example", "http://mcp.example").is_err(), "http resource");
        assert!(ResourceServer::new("https://as.example", "https://mcp.example/#x").is_err(), "fragment");
        assert!(ResourceServer::new("https://as.example?x=1", "https://mcp.example").is_err(), "query");
        assert!(ResourceServer::new("not a url", "https://mcp.example").is_err());
        assert!(
            ResourceServer::new("http://127.0.0.1:3000", "http://localhost:8080/mcp").is_ok(),
            "loopback http"
        );
    }

    #[test]
    fn scopes_are_listed_once_and_tools_have_their_own() {
        let server = ResourceServer::new("https://as.example", "https://mcp.example/mcp")
            .unwrap()
            .required_scopes(["notes:read", " ", "notes:read"])
            .tool_scopes("add_note", ["notes:write"])
            .tool_scopes("remove_note", ["notes:write", "notes:delete"])
            .supported_scopes(["profile"]);
        assert_eq!(server.required, ["notes:read"]);
        assert_eq!(server.scopes_supported(), ["notes:delete", "notes:read", "notes:write", "profile"]);
        assert_eq!(server.tool_scopes_of("remove_note"), ["notes:write", "notes:delete"]);
        assert!(server.tool_scopes_of("list_notes").is_empty());
    }

    static EMITTED: toolcall_runtime::Emitted = toolcall_runtime::Emitted::new();
    static INFO: [toolcall_runtime::ToolInfo; 2] = [
        toolcall_runtime::ToolInfo {
            name: "add_note",
            scopes: &["notes:write", "notes:admin"],
            ..toolcall_runtime::ToolInfo::EMPTY
        },
        toolcall_runtime::ToolInfo { name: "list_notes", ..toolcall_runtime::ToolInfo::EMPTY },
    ];
    static NOTES: toolcall_runtime::Toolset<()> =
        toolcall_runtime::Toolset::new(&INFO, &EMITTED, |_, _, _| None);

    fn kept(server: &McpServer<()>) -> &ResourceServer {
        server.server.oauth.as_deref().unwrap()
    }

    #[test]
    fn the_toolsets_scopes_join_the_ones_given_at_run_time() {
        let given = ResourceServer::new("https://as.example", "https://mcp.example/mcp")
            .unwrap()
            .required_scopes(["notes:read"])
            .tool_scopes("add_note", ["notes:write", "notes:audit"])
            .tool_scopes("added_at_run_time", ["x:y"]);
        let given = Arc::new(given);
        let server = McpServer::new(&NOTES, ()).oauth(Arc::clone(&given));
        let oauth = kept(&server);
        assert_eq!(oauth.tool_scopes_of("add_note"), ["notes:write", "notes:audit", "notes:admin"]);
        assert_eq!(oauth.tool_scopes_of("added_at_run_time"), ["x:y"]);
        assert!(oauth.tool_scopes_of("list_notes").is_empty());
        assert_eq!(
            oauth.metadata()["scopes_supported"],
            serde_json::json!(["notes:admin", "notes:audit", "notes:read", "notes:write", "x:y"])
        );
        // The one given, still shared, is as it was; the caches are the same.
        assert_eq!(given.tool_scopes_of("add_note"), ["notes:write", "notes:audit"]);
        assert!(Arc::ptr_eq(&given.tokens, &oauth.tokens) && Arc::ptr_eq(&given.jwks, &oauth.jwks));

        let alone = McpServer::new(&NOTES, ())
            .oauth(ResourceServer::new("https://as.example", "https://mcp.example/mcp").unwrap());
        assert_eq!(kept(&alone).tool_scopes_of("add_note"), ["notes:write", "notes:admin"]);
        assert_eq!(kept(&alone).scopes_supported(), ["notes:admin", "notes:write"]);
    }
}
