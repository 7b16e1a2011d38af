//! Rate limits on tool calls, per caller: the MCP specification says a server MUST
//! rate-limit tool calls, and one caller's flood must not take another's share.
//!
//! Each caller is its identity (what the request function said, over HTTP), else its
//! address. A `tools/call` past the caller's rate ([`HttpSettings::rate_limit`]), or past
//! the rate of that tool ([`HttpSettings::tool_rate_limits`]), is answered 429 with
//! `Retry-After` (whole seconds, at least 1) before it reaches the tool; other requests
//! (`initialize`, `tools/list`, notifications) are not counted. The limiter is GCRA
//! (`governor`), keyed by caller, in this process: replicas each count their own (a
//! caller spread over N replicas gets up to N times the rate).
//!
//! The tool's name is read from the request's body when it is small (64 KiB or less,
//! almost every call); a larger `tools/call` counts against the caller's rate only.
//!
//! [`HttpSettings::rate_limit`]: crate::HttpSettings::rate_limit
//! [`HttpSettings::tool_rate_limits`]: crate::HttpSettings::tool_rate_limits

use std::collections::BTreeMap;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::Request;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::Response;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use super::body::BodyBytes;
use crate::plain::plain;
use crate::request::{Identity, RemoteAddr};

/// A rate: so many calls per second, with bursts up to `burst` at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimit {
    per_second: NonZeroU32,
    burst: NonZeroU32,
}

impl RateLimit {
    /// `calls` per second, in bursts of up to `calls` (0 is taken as 1).
    pub fn per_second(calls: u32) -> RateLimit {
        let calls = NonZeroU32::new(calls).unwrap_or(NonZeroU32::MIN);
        RateLimit { per_second: calls, burst: calls }
    }

    /// The same rate, in bursts of up to `calls` at once (0 is taken as 1).
    #[must_use]
    pub fn burst(self, calls: u32) -> RateLimit {
        RateLimit { burst: NonZeroU32::new(calls).unwrap_or(NonZeroU32::MIN), ..self }
    }

    /// The calls per second.
    pub fn calls_per_second(&self) -> u32 {
        self.per_second.get()
    }

    fn quota(self) -> Quota {
        Quota::per_second(self.per_second).allow_burst(self.burst)
    }
}

/// The limiters of one server: one keyed by caller, and one per limited tool, keyed by
/// caller too.
pub(crate) struct Limiters {
    server: Option<DefaultKeyedRateLimiter<Arc<str>>>,
    tools: BTreeMap<String, DefaultKeyedRateLimiter<Arc<str>>>,
}

impl Limiters {
    /// The limiters of `server` and `tools`; `None` when nothing is limited.
    pub(crate) fn new(server: Option<RateLimit>, tools: &BTreeMap<String, RateLimit>) -> Option<Limiters> {
        if server.is_none() && tools.is_empty() {
            return None;
        }
        Some(Limiters {
            server: server.map(|rate| RateLimiter::keyed(rate.quota())),
            tools: tools
                .iter()
                .map(|(name, rate)| (name.clone(), RateLimiter::keyed(rate.quota())))
                .collect(),
        })
    }

    /// How long `caller` must wait before calling `tool` (unknown when the body was not
    /// read), `None` when the call may go now. A call refused by the tool's limit does not
    /// count against the caller's rate, and the reverse.
    fn wait(&self, caller: &Arc<str>, tool: Option<&str>) -> Option<Duration> {
        let now = DefaultClock::default().now();
        let limiter = tool.and_then(|tool| self.tools.get(tool));
        if let Some(Err(refused)) = limiter.map(|limiter| limiter.check_key(caller)) {
            return Some(refused.wait_time_from(now));
        }
        match &self.server {
            Some(server) => server.check_key(caller).err().map(|refused| refused.wait_time_from(now)),
            None => None,
        }
    }

    /// Forgets callers whose rate is back to full, so the tables do not grow with every
    /// address ever seen.
    fn sweep(&self) {
        if let Some(server) = &self.server {
            server.retain_recent();
        }
        for limiter in self.tools.values() {
            limiter.retain_recent();
        }
    }
}

/// What a `tools/call` body is read for: its method and tool.
#[derive(serde::Deserialize)]
struct Peek<'a> {
    #[serde(borrow)]
    method: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    params: Option<PeekParams<'a>>,
}

#[derive(serde::Deserialize)]
struct PeekParams<'a> {
    #[serde(borrow)]
    name: Option<std::borrow::Cow<'a, str>>,
}

/// Whether a POST is a tool call, and the tool it names when its body was read: `Some`
/// for a call (a large body whose contents were not read counts as one, tool unknown).
fn tool_call(request: &Request) -> Option<Option<String>> {
    let Some(BodyBytes(bytes)) = request.extensions().get::<BodyBytes>() else {
        return Some(None);
    };
    // A batch or anything that is not one JSON-RPC object is not a single call; rmcp
    // answers it.
    let peek: Peek<'_> = serde_json::from_slice(bytes).ok()?;
    (peek.method.as_deref() == Some("tools/call"))
        .then(|| peek.params.and_then(|p| p.name).map(|n| n.into_owned()))
}

/// The caller a request counts for: its identity, else its address.
fn caller(request: &Request) -> Arc<str> {
    if let Some(Identity(identity)) = request.extensions().get::<Identity>() {
        return Arc::clone(identity);
    }
    match request.extensions().get::<RemoteAddr>() {
        Some(RemoteAddr(addr)) => Arc::from(addr.ip().to_string()),
        None => Arc::from(""),
    }
}

/// The refusal of a `tools/call` past its caller's rate or its tool's (429 with
/// `Retry-After`); `None` for everything else.
pub(crate) fn refusal(limiters: &Limiters, request: &Request) -> Option<Response> {
    if request.method() != Method::POST {
        return None;
    }
    let tool = tool_call(request)?;
    let caller = caller(request);
    let wait = limiters.wait(&caller, tool.as_deref())?;
    if rand_sweep() {
        limiters.sweep();
    }
    let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    let seconds = seconds.max(1);
    let what = match &tool {
        Some(tool) => format!("calls of {}", crate::error::cut(tool, 64)),
        None => "tool calls".to_owned(),
    };
    let mut refused = plain(
        StatusCode::TOO_MANY_REQUESTS,
        format!("Too Many Requests: {what} are over the rate; retry in {seconds} s"),
    );
    if let Ok(value) = HeaderValue::from_str(&seconds.to_string()) {
        refused.headers_mut().insert(header::RETRY_AFTER, value);
    }
    Some(refused)
}

/// True about once in 1,024 refusals: when a refusal sweeps the tables.
fn rand_sweep() -> bool {
    use std::sync::atomic::{AtomicU32, Ordering};
    static REFUSED: AtomicU32 = AtomicU32::new(0);
    REFUSED.fetch_add(1, Ordering::Relaxed).is_multiple_of(1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_caller_has_its_own_rate_and_each_tool_its_own() {
        let tools = BTreeMap::from([("export".to_owned(), RateLimit::per_second(1))]);
        let limiters =
            Limiters::new(Some(RateLimit::per_second(3)), &tools).unwrap_or_else(|| unreachable!());
        let (ada, grace): (Arc<str>, Arc<str>) = (Arc::from("ada"), Arc::from("grace"));
        for _ in 0..3 {
            assert_eq!(limiters.wait(&ada, Some("add")), None);
        }
        assert!(limiters.wait(&ada, Some("add")).is_some_and(|wait| wait <= Duration::from_secs(1)));
        assert_eq!(limiters.wait(&grace, Some("add")), None, "another caller's share is untouched");
        assert_eq!(limiters.wait(&grace, Some("export")), None);
        assert!(limiters.wait(&grace, Some("export")).is_some(), "the tool's own rate");
        assert!(Limiters::new(None, &BTreeMap::new()).is_none());
    }

    #[test]
    fn only_tool_calls_are_counted_and_their_tool_is_read() {
        let request = |body: &str| {
            let mut request = Request::new(axum::body::Body::empty());
            request.extensions_mut().insert(BodyBytes(axum::body::Bytes::from(body.to_owned())));
            request
        };
        let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{}}}"#;
        assert_eq!(tool_call(&request(call)), Some(Some("add".to_owned())));
        assert_eq!(tool_call(&request(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)), None);
        assert_eq!(tool_call(&request("[1,2]")), None);
        let unread = Request::new(axum::body::Body::empty());
        assert_eq!(tool_call(&unread), Some(None), "a body not read whole counts as a call");
    }
}
