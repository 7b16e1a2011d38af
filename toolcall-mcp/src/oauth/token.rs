//! What a verified access token says ([`AccessToken`]), why a token was refused
//! ([`TokenError`]), and the cache of tokens already verified, so a client's next request
//! with the same token costs a map lookup rather than a signature check or a round trip to
//! the authorization server.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::http::request::Parts;
use serde_json::{Map, Value};
use toolcall_runtime::ToolInfo;

/// Where an [`AccessToken`]'s claims come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TokenSource {
    /// A JWT access token whose signature was checked against the issuer's published keys.
    Jwt,
    /// An opaque token the authorization server's introspection endpoint (RFC 7662) said is
    /// active; the claims are its answer.
    Introspection,
}

/// A verified access token: who it is for, which client holds it, what it allows, and
/// every claim it carries. The OAuth layer puts one in each request it lets through (read
/// it in [`McpServer::context_from_request`](crate::McpServer::context_from_request) with
/// [`AccessToken::of`]); put what a [`McpServer::tool_filter`](crate::McpServer::tool_filter)
/// needs (its scopes, its subject) into the context you build.
///
/// ```
/// use serde_json::json;
/// use toolcall_mcp::oauth::AccessToken;
///
/// let claims = json!({"iss": "https://as.example.com", "sub": "ada", "client_id": "cli",
///                     "scope": "notes:read notes:write", "aud": "https://mcp.example.com/mcp"});
/// let token = AccessToken::from_claims(claims.as_object().cloned().unwrap_or_default());
/// assert_eq!((token.subject(), token.client_id(), token.principal()), (Some("ada"), Some("cli"), "ada"));
/// assert!(token.has_scope("notes:write") && !token.has_scope("notes"));
/// assert_eq!(token.claim("iss"), Some(&json!("https://as.example.com")));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct AccessToken {
    source: TokenSource,
    issuer: String,
    subject: Option<String>,
    client_id: Option<String>,
    /// Shared with each request's identity, so handing it on copies nothing.
    principal: Arc<str>,
    scopes: Vec<String>,
    audience: Vec<String>,
    expires_at: Option<u64>,
    claims: Map<String, Value>,
}

impl AccessToken {
    /// A token made of `claims` as a JWT payload or an introspection answer holds them
    /// (`iss`, `sub`, `client_id` or `azp`, `scope` as a space-separated string or `scp` as
    /// a list, `aud`, `exp`). For tests of a request function or a tool filter: the server
    /// only ever hands on tokens it verified.
    pub fn from_claims(claims: Map<String, Value>) -> Self {
        Self::read(TokenSource::Jwt, claims)
    }

    /// Reads the claims every token type shares.
    pub(crate) fn read(source: TokenSource, claims: Map<String, Value>) -> Self {
        let text = |name: &str| claims.get(name).and_then(Value::as_str).map(str::to_owned);
        let subject = text("sub").filter(|s| !s.is_empty());
        let client_id =
            text("client_id").or_else(|| text("azp")).or_else(|| text("cid")).filter(|s| !s.is_empty());
        let principal: Arc<str> = match (&subject, &client_id) {
            (Some(subject), _) => Arc::from(subject.as_str()),
            (None, Some(client)) => Arc::from(format!("client:{client}")),
            (None, None) => Arc::from(""),
        };
        let mut scopes: Vec<String> = match (claims.get("scope"), claims.get("scp")) {
            (Some(Value::String(scope)), _) | (None, Some(Value::String(scope))) => {
                scope.split_ascii_whitespace().map(str::to_owned).collect()
            }
            (Some(Value::Array(list)), _) | (None, Some(Value::Array(list))) => {
                list.iter().filter_map(Value::as_str).map(str::to_owned).collect()
            }
            _ => Vec::new(),
        };
        scopes.sort();
        scopes.dedup();
        let audience = match claims.get("aud") {
            Some(Value::String(aud)) => vec![aud.clone()],
            Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
            _ => Vec::new(),
        };
        AccessToken {
            source,
            issuer: text("iss").unwrap_or_default(),
            subject,
            client_id,
            principal,
            scopes,
            audience,
            expires_at: claims.get("exp").and_then(Value::as_u64),
            claims,
        }
    }

    /// The verified token of a request that went through the OAuth layer, from its
    /// extensions; `None` on a server without OAuth.
    ///
    /// ```
    /// use toolcall_mcp::{Caller, Rejection, oauth::AccessToken};
    /// # let toolset: &'static toolcall_runtime::Toolset<Vec<String>> = Box::leak(Box::new(toolcall_runtime::Toolset::new(&[], Box::leak(Box::default()), |_, _, _| None)));
    /// // The context is the caller's scopes; a tool filter reads them.
    /// let server = toolcall_mcp::McpServer::new(toolset, Vec::new())
    ///     .context_from_request(|request| {
    ///         let token = AccessToken::of(request).ok_or_else(|| Rejection::unauthorized("no token"))?;
    ///         Ok(Caller::new(token.principal(), token.scopes().to_vec()))
    ///     })
    ///     .tool_filter(|scopes: &Vec<String>, tool| !tool.is_destructive() || scopes.iter().any(|s| s == "admin"));
    /// ```
    pub fn of(request: &Parts) -> Option<&Arc<AccessToken>> {
        request.extensions.get::<Arc<AccessToken>>()
    }

    /// Whether the claims came from a JWT or from introspection.
    pub fn source(&self) -> TokenSource {
        self.source
    }

    /// The issuer (`iss`); empty when an introspection answer leaves it out.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The subject (`sub`): the user the token acts for, or for a client-credentials token
    /// usually the client.
    pub fn subject(&self) -> Option<&str> {
        self.subject.as_deref()
    }

    /// The client the token was issued to (`client_id`, else `azp` or `cid`).
    pub fn client_id(&self) -> Option<&str> {
        self.client_id.as_deref()
    }

    /// Who the token stands for: the subject, else `client:` and the client id. The OAuth
    /// layer uses it as the request's identity (the owner of its sessions) unless a
    /// request function names another.
    pub fn principal(&self) -> &str {
        &self.principal
    }

    /// The scopes granted, sorted, each once (`scope`, or `scp`).
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// Whether `scope` was granted.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.binary_search_by(|granted| granted.as_str().cmp(scope)).is_ok()
    }

    /// Whether the token carries every scope `tool`'s `TOOLS` entry declares
    /// ([`ToolInfo::scopes`], from `ToolMeta::scopes`): what a
    /// [`McpServer::tool_filter`](crate::McpServer::tool_filter) asks to hide the tools a
    /// caller could not call. A tool without scopes of its own may be called by any token
    /// (that passed the scopes every request needs). Scopes given at run time
    /// ([`ResourceServer::tool_scopes`](super::ResourceServer::tool_scopes)) are not in a
    /// `ToolInfo`: a call of such a tool is still refused without them.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use serde_json::json;
    /// use toolcall_mcp::oauth::AccessToken;
    /// use toolcall_mcp::{Caller, McpServer, Rejection};
    /// use toolcall_runtime::{Emitted, ToolInfo, Toolset};
    ///
    /// // Rows as the build writes them for `ToolMeta::new("add_note").scopes(&["notes:write"])`.
    /// static INFO: [ToolInfo; 2] = [
    ///     ToolInfo { name: "list_notes", ..ToolInfo::EMPTY },
    ///     ToolInfo { name: "add_note", scopes: &["notes:write"], ..ToolInfo::EMPTY },
    /// ];
    /// static EMITTED: Emitted = Emitted::new();
    /// static NOTES: Toolset<Option<Arc<AccessToken>>> = Toolset::new(&INFO, &EMITTED, |_, _, _| None);
    ///
    /// // The context holds the caller's token; a tool it may not call is not listed to it.
    /// let server = McpServer::new(&NOTES, None)
    ///     .context_from_request(|request| {
    ///         let token = AccessToken::of(request).ok_or_else(|| Rejection::unauthorized("no token"))?;
    ///         Ok(Caller::new(token.principal(), Some(Arc::clone(token))))
    ///     })
    ///     .tool_filter(|token, tool| token.as_ref().is_some_and(|token| token.may_call(tool)));
    /// # drop(server);
    ///
    /// let reader = AccessToken::from_claims(json!({"sub": "ada", "scope": "notes:read"}).as_object().cloned().unwrap_or_default());
    /// assert!(reader.may_call(&INFO[0]) && !reader.may_call(&INFO[1]));
    /// let writer = AccessToken::from_claims(json!({"sub": "ada", "scope": "notes:read notes:write"}).as_object().cloned().unwrap_or_default());
    /// assert!(writer.may_call(&INFO[1]));
    /// ```
    pub fn may_call(&self, tool: &ToolInfo) -> bool {
        tool.scopes().iter().all(|scope| self.has_scope(scope))
    }

    /// The audiences (`aud`): for a token this server accepted, its resource URI is one.
    pub fn audience(&self) -> &[String] {
        &self.audience
    }

    /// When the token expires (`exp`), if it says.
    pub fn expires_at(&self) -> Option<SystemTime> {
        self.expires_at.map(|secs| UNIX_EPOCH + Duration::from_secs(secs))
    }

    /// Every claim, as the JWT's payload or the introspection answer has them.
    pub fn claims(&self) -> &Map<String, Value> {
        &self.claims
    }

    /// One claim.
    pub fn claim(&self, name: &str) -> Option<&Value> {
        self.claims.get(name)
    }

    /// The principal, shared.
    pub(crate) fn principal_shared(&self) -> Arc<str> {
        Arc::clone(&self.principal)
    }

    /// The expiry as seconds since the epoch.
    pub(crate) fn exp(&self) -> Option<u64> {
        self.expires_at
    }
}

/// Why a bearer token was refused. Each is a 401 with `error="invalid_token"` and the
/// [`Display`](std::fmt::Display) text as `error_description`, except
/// [`TokenError::Unavailable`], a 503: the token could not be checked at all.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TokenError {
    /// Not a token this server can read: not a JWT, a header or payload that does not
    /// decode, a critical header parameter it does not know.
    Malformed(String),
    /// The algorithm is refused: `none` (unsigned), an HMAC (`HS256`: a shared secret, the
    /// attack where the public key is used as one), or one the key was not published for.
    Algorithm(String),
    /// No published key has the token's `kid`, even after fetching the keys again (or the
    /// keys were fetched too recently to fetch them again).
    UnknownKey(Option<String>),
    /// The signature does not match the key.
    Signature,
    /// Issued by another issuer (`iss`).
    Issuer,
    /// Not issued for this resource: its audience (`aud`) does not name this server's URI.
    Audience,
    /// Expired (`exp`), beyond the leeway.
    Expired,
    /// Not valid yet (`nbf`), beyond the leeway.
    NotYetValid,
    /// A claim the server needs is missing (`exp`, `iss`, `aud`, or both `sub` and
    /// `client_id`).
    MissingClaim(String),
    /// Introspection says the token is not active (revoked, expired, or never issued).
    Inactive,
    /// Opaque tokens need introspection, which this server was not given credentials for.
    NoIntrospection,
    /// The authorization server could not be asked (its discovery document, keys or
    /// introspection endpoint did not answer, or answered nonsense): 503, try again.
    Unavailable(String),
}

impl TokenError {
    /// Whether the token may be fine and only the authorization server failed to answer.
    pub fn is_unavailable(&self) -> bool {
        matches!(self, TokenError::Unavailable(_))
    }
}

impl std::fmt::Display for TokenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TokenError::Malformed(why) => write!(f, "the token cannot be read: {why}"),
            TokenError::Algorithm(why) => write!(f, "the token's algorithm is refused: {why}"),
            TokenError::UnknownKey(Some(kid)) => write!(f, "no key of the issuer has the token's kid {kid}"),
            TokenError::UnknownKey(None) => f.write_str("no key of the issuer matches the token"),
            TokenError::Signature => f.write_str("the token's signature does not match the issuer's key"),
            TokenError::Issuer => f.write_str("the token was issued by another issuer"),
            TokenError::Audience => f.write_str("the token was not issued for this resource (aud)"),
            TokenError::Expired => f.write_str("the token has expired"),
            TokenError::NotYetValid => f.write_str("the token is not valid yet (nbf)"),
            TokenError::MissingClaim(claim) => write!(f, "the token has no {claim} claim"),
            TokenError::Inactive => f.write_str("the token is not active"),
            TokenError::NoIntrospection => {
                f.write_str("the token is not a JWT, and this server has no introspection credentials")
            }
            TokenError::Unavailable(why) => write!(f, "the authorization server could not be asked: {why}"),
        }
    }
}

impl std::error::Error for TokenError {}

/// Seconds since the epoch now.
pub(crate) fn now_secs() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// How long from now until `exp` (seconds since the epoch), zero when past.
pub(crate) fn until(exp: u64) -> Duration {
    Duration::from_secs(exp.saturating_sub(now_secs()))
}

/// A verification's outcome as cached: the token, or (introspection only) why not.
pub(crate) type Outcome = Result<Arc<AccessToken>, TokenError>;

struct Entry {
    outcome: Outcome,
    until: Instant,
}

/// Tokens already verified (and, from introspection, refused), each until its own time:
/// a read lock and a hash lookup on the hot path. Bounded: when full, the expired entries
/// go; if none had, the whole cache is emptied (each token is then verified once more).
pub(crate) struct TokenCache {
    entries: RwLock<HashMap<Box<str>, Entry>>,
    capacity: usize,
}

impl TokenCache {
    /// A cache of at most `capacity` tokens (at least 1).
    pub(crate) fn new(capacity: usize) -> Self {
        TokenCache { entries: RwLock::new(HashMap::new()), capacity: capacity.max(1) }
    }

    /// The outcome cached for `token`, if still good.
    pub(crate) fn get(&self, token: &str) -> Option<Outcome> {
        let entries = self.entries.read().unwrap_or_else(std::sync::PoisonError::into_inner);
        let entry = entries.get(token)?;
        (entry.until > Instant::now()).then(|| entry.outcome.clone())
    }

    /// Keeps `outcome` for `token` for `ttl` (nothing when zero).
    pub(crate) fn put(&self, token: &str, outcome: Outcome, ttl: Duration) {
        if ttl.is_zero() {
            return;
        }
        let now = Instant::now();
        let mut entries = self.entries.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        if entries.len() >= self.capacity && !entries.contains_key(token) {
            entries.retain(|_, entry| entry.until > now);
            if entries.len() >= self.capacity {
                log::warn!("the cache of verified tokens is full ({} tokens): emptied", entries.len());
                entries.clear();
            }
        }
        entries.insert(token.into(), Entry { outcome, until: now + ttl });
    }

    /// How many tokens are cached (expired ones included until they are swept).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.read().map_or(0, |entries| entries.len())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;

    fn token(claims: Value) -> AccessToken {
        AccessToken::from_claims(claims.as_object().cloned().unwrap())
    }

    #[test]
    fn scopes_come_from_scope_or_scp() {
        assert_eq!(token(json!({"scope": "b a  b"})).scopes(), ["a", "b"]);
        assert_eq!(token(json!({"scp": ["x", "y"]})).scopes(), ["x", "y"]);
        assert_eq!(token(json!({"scp": "x y"})).scopes(), ["x", "y"]);
        assert!(token(json!({})).scopes().is_empty());
        assert!(token(json!({"scope": "a b"})).has_scope("b"));
    }

    #[test]
    fn the_principal_is_the_subject_else_the_client() {
        assert_eq!(token(json!({"sub": "u", "client_id": "c"})).principal(), "u");
        assert_eq!(token(json!({"azp": "c"})).principal(), "client:c");
        assert_eq!(token(json!({"sub": ""})).principal(), "");
        assert_eq!(token(json!({"aud": ["a", "b"]})).audience(), ["a", "b"]);
    }

    #[test]
    fn the_cache_keeps_entries_until_their_time_and_stays_bounded() {
        let cache = TokenCache::new(2);
        let ok: Outcome = Ok(Arc::new(token(json!({"sub": "u"}))));
        cache.put("a", ok.clone(), Duration::from_secs(60));
        cache.put("gone", ok.clone(), Duration::ZERO);
        assert!(cache.get("a").is_some() && cache.get("gone").is_none());
        cache.put("b", Err(TokenError::Inactive), Duration::from_secs(60));
        assert_eq!(cache.get("b").map(|o| o.err()), Some(Some(TokenError::Inactive)));
        cache.put("c", ok, Duration::from_secs(60));
        assert!(cache.len() <= 2, "bounded");
        assert!(cache.get("c").is_some());
    }
}
