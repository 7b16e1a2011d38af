//! Rate limits on tool calls, per caller: the MCP specification says a server MUST
//! rate-limit tool calls, and one caller's flood must not take another's share.
//!
//! Each caller is its identity (what the request function said, over HTTP), else (no
//! identity, or the empty one) its address (behind trusted proxies, the client's they
//! named: [`super::forwarded`]). A
//! `tools/call` past the caller's rate ([`HttpSettings::rate_limit`]), or past the rate of
//! that tool for that caller ([`HttpSettings::tool_rate_limits`]), is answered 429 with
//! `Retry-After` (whole seconds, at least 1) and a text naming which limit it met, before
//! it reaches the tool; other requests (`initialize`, `tools/list`, notifications) are not
//! counted. The tool's limit is asked first: a call it refuses is not counted against the
//! caller's rate (one the caller's rate refuses has been counted against the tool's).
//!
//! The limiter is GCRA (a rate, and a burst the caller may spend at once), counted where
//! [`HttpSettings::rate_limit_store`] says: in this process by default ([`local`],
//! `governor`), each replica counting its own (a caller spread over N replicas gets up to
//! N times the rate); or, with feature `redis`, in Redis ([`redis`], the same GCRA in one
//! script per call), shared by every replica. A store that does not answer within
//! [`HttpSettings::rate_limit_store_timeout`] fails open ([`shared`]): calls are counted
//! in this process until it answers again, never refused for its sake.
//!
//! The tool's name is read from the request's body when it is small (64 KiB or less,
//! almost every call); a larger `tools/call` counts against the caller's rate only.
//!
//! [`HttpSettings::rate_limit`]: crate::HttpSettings::rate_limit
//! [`HttpSettings::tool_rate_limits`]: crate::HttpSettings::tool_rate_limits
//! [`HttpSettings::rate_limit_store`]: crate::HttpSettings::rate_limit_store
//! [`HttpSettings::rate_limit_store_timeout`]: crate::HttpSettings::rate_limit_store_timeout

mod local;
#[cfg(feature = "redis")]
mod redis;
#[cfg(feature = "redis")]
mod shared;
mod store;

use std::collections::BTreeMap;
use std::future::Future;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::Request;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::Response;

#[cfg(feature = "redis")]
pub use self::redis::RATE_KEY_PREFIX;
pub use store::RateLimitStore;

use super::body::BodyBytes;
use crate::plain::plain;
use crate::request::{Identity, client_ip};

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

    /// The most calls at once.
    pub fn burst_size(&self) -> u32 {
        self.burst.get()
    }
}

/// Which limit a call meets: its caller's, or its caller's on one tool (named as the
/// settings name it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Limited<'a> {
    /// The caller's own rate ([`HttpSettings::rate_limit`](crate::HttpSettings::rate_limit)).
    Caller,
    /// The caller's rate on this tool
    /// ([`HttpSettings::tool_rate_limits`](crate::HttpSettings::tool_rate_limits)).
    Tool(&'a str),
}

/// One limit a call is counted against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Check<'a> {
    limited: Limited<'a>,
    rate: RateLimit,
}

/// A call refused: the limit it met and how long until it would not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Refused<'a> {
    check: Check<'a>,
    wait: Duration,
}

/// The limiters of one server: the rates it sets, counted in this process, or in a shared
/// store with this process's count as its fallback.
pub(crate) struct Limiters {
    caller: Option<RateLimit>,
    tools: BTreeMap<String, RateLimit>,
    local: local::Local,
    #[cfg(feature = "redis")]
    shared: Option<shared::Shared>,
}

impl Limiters {
    /// The limiters of the `caller` rate and the `tools`' rates, counted in `store`, each
    /// of its answers awaited at most `timeout`; `None` when nothing is limited.
    pub(crate) fn new(
        caller: Option<RateLimit>,
        tools: &BTreeMap<String, RateLimit>,
        store: &RateLimitStore,
        timeout: Duration,
    ) -> Option<Limiters> {
        if caller.is_none() && tools.is_empty() {
            return None;
        }
        #[cfg(not(feature = "redis"))]
        let _ = (store, timeout);
        Some(Limiters {
            caller,
            tools: tools.clone(),
            local: local::Local::new(caller, tools),
            #[cfg(feature = "redis")]
            shared: shared::Shared::new(store, timeout),
        })
    }

    /// The limits a call of `tool` (unknown when the body was not read) is counted
    /// against, in order: the tool's, then the caller's.
    fn checks(&self, tool: Option<&str>) -> Vec<Check<'_>> {
        let tool = tool.and_then(|tool| self.tools.get_key_value(tool));
        let tool = tool.map(|(name, rate)| Check { limited: Limited::Tool(name), rate: *rate });
        let caller = self.caller.map(|rate| Check { limited: Limited::Caller, rate });
        tool.into_iter().chain(caller).collect()
    }

    /// Counts a call of `tool` by `caller`: the limit it met, `None` when it may go now.
    async fn check(&self, caller: &Arc<str>, tool: Option<&str>) -> Option<Refused<'_>> {
        let checks = self.checks(tool);
        if checks.is_empty() {
            return None;
        }
        #[cfg(feature = "redis")]
        if let Some(shared) = &self.shared
            && let Ok(counted) = shared.check(caller, &checks).await
        {
            return counted;
        }
        self.local.check(caller, &checks)
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

/// The caller a request counts for: its identity, else (none, or the empty anonymous one)
/// its client's address.
fn caller(request: &Request) -> Arc<str> {
    if let Some(Identity(identity)) = request.extensions().get::<Identity>()
        && !identity.is_empty()
    {
        return Arc::clone(identity);
    }
    match client_ip(request.extensions()) {
        Some(address) => Arc::from(address.to_string()),
        None => Arc::from(""),
    }
}

/// The refusal of a `tools/call` past its caller's rate or its tool's (429 with
/// `Retry-After`); `None` for everything else. What it needs of `request` is read before
/// the future is made: the future holds none of it.
pub(crate) fn refusal<'a>(
    limiters: &'a Limiters,
    request: &Request,
) -> impl Future<Output = Option<Response>> + Send + use<'a> {
    let counted = (request.method() == Method::POST)
        .then(|| tool_call(request))
        .flatten()
        .map(|tool| (caller(request), tool));
    async move {
        let (caller, tool) = counted?;
        let refused = limiters.check(&caller, tool.as_deref()).await?;
        if rand_sweep() {
            limiters.local.sweep();
        }
        Some(refused.response())
    }
}

impl Refused<'_> {
    /// The wait in whole seconds, rounded up, at least 1 (`Retry-After`).
    fn seconds(&self) -> u64 {
        let seconds = self.wait.as_secs() + u64::from(self.wait.subsec_nanos() > 0);
        seconds.max(1)
    }

    /// What the 429 says: which limit the call met, its rate, and when to retry.
    fn text(&self, seconds: u64) -> String {
        let rate = self.check.rate.calls_per_second();
        match self.check.limited {
            Limited::Caller => format!(
                "Too Many Requests: calls from this caller are over the rate of {rate} per second; \
                 retry after {seconds} s"
            ),
            Limited::Tool(tool) => format!(
                "Too Many Requests: calls of {} from this caller are over its rate of {rate} per second; \
                 retry after {seconds} s",
                crate::error::cut(tool, 64)
            ),
        }
    }

    /// The 429 response, with `Retry-After`.
    fn response(&self) -> Response {
        let seconds = self.seconds();
        let mut refused = plain(StatusCode::TOO_MANY_REQUESTS, self.text(seconds));
        if let Ok(value) = HeaderValue::from_str(&seconds.to_string()) {
            refused.headers_mut().insert(header::RETRY_AFTER, value);
        }
        refused
    }
}

/// True about once in 1,024 refusals: when a refusal sweeps the tables.
fn rand_sweep() -> bool {
    use std::sync::atomic::{AtomicU32, Ordering};
    static REFUSED: AtomicU32 = AtomicU32::new(0);
    REFUSED.fetch_add(1, Ordering::Relaxed).is_multiple_of(1024)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn limiters(caller: Option<RateLimit>, tools: &[(&str, RateLimit)]) -> Limiters {
        let tools = tools.iter().map(|(name, rate)| ((*name).to_owned(), *rate)).collect();
        Limiters::new(caller, &tools, &RateLimitStore::default(), Duration::from_millis(100)).unwrap()
    }

    #[tokio::test]
    async fn each_caller_has_its_own_rate_and_each_tool_its_own() {
        let limiters = limiters(Some(RateLimit::per_second(3)), &[("export", RateLimit::per_second(1))]);
        let (ada, grace): (Arc<str>, Arc<str>) = (Arc::from("ada"), Arc::from("grace"));
        for _ in 0..3 {
            assert_eq!(limiters.check(&ada, Some("add")).await, None);
        }
        let refused = limiters.check(&ada, Some("add")).await.unwrap();
        assert_eq!(refused.check.limited, Limited::Caller, "add has no limit of its own");
        assert!(refused.wait <= Duration::from_secs(1));
        assert_eq!(limiters.check(&grace, Some("add")).await, None, "another caller's share is untouched");
        assert_eq!(limiters.check(&grace, Some("export")).await, None);
        let refused = limiters.check(&grace, Some("export")).await.unwrap();
        assert_eq!(refused.check.limited, Limited::Tool("export"), "the tool's own rate");
        assert!(Limiters::new(None, &BTreeMap::new(), &RateLimitStore::default(), Duration::ZERO).is_none());
    }

    #[tokio::test]
    async fn a_call_the_tools_rate_refuses_is_not_counted_against_the_callers() {
        let limiters = limiters(Some(RateLimit::per_second(2)), &[("export", RateLimit::per_second(1))]);
        let ada: Arc<str> = Arc::from("ada");
        assert_eq!(limiters.check(&ada, Some("export")).await, None);
        for _ in 0..5 {
            assert!(limiters.check(&ada, Some("export")).await.is_some());
        }
        assert_eq!(
            limiters.check(&ada, Some("add")).await,
            None,
            "one of two spent, by the call let through"
        );
        assert_eq!(limiters.check(&ada, Some("add")).await.map(|r| r.check.limited), Some(Limited::Caller));
    }

    #[test]
    fn the_429_says_which_limit_the_call_met() {
        let rate = RateLimit::per_second(5);
        let refused = |limited, wait| Refused { check: Check { limited, rate }, wait };
        let caller = refused(Limited::Caller, Duration::from_millis(200));
        assert_eq!(caller.seconds(), 1, "at least a second");
        assert_eq!(
            caller.text(1),
            "Too Many Requests: calls from this caller are over the rate of 5 per second; retry after 1 s"
        );
        let tool = refused(Limited::Tool("export_notes"), Duration::from_millis(2_001));
        assert_eq!(tool.seconds(), 3, "rounded up");
        assert_eq!(
            tool.text(3),
            "Too Many Requests: calls of export_notes from this caller are over its rate of 5 per second; \
             retry after 3 s"
        );
        let response = tool.response();
        assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(response.headers().get(header::RETRY_AFTER).unwrap(), "3");
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

    #[test]
    fn the_caller_is_the_identity_else_the_client_address() {
        use crate::request::{Arrived, ClientAddr};
        let mut request = Request::new(axum::body::Body::empty());
        assert_eq!(&*caller(&request), "", "no address known");
        let peer = Some("10.0.0.1:5000".parse().unwrap());
        request.extensions_mut().insert(Arrived::new(std::time::Instant::now(), peer));
        assert_eq!(&*caller(&request), "10.0.0.1");
        request.extensions_mut().insert(ClientAddr("192.0.2.1".parse().unwrap()));
        assert_eq!(&*caller(&request), "192.0.2.1", "the client its trusted proxy named");
        request.extensions_mut().insert(Identity(Arc::from("")));
        assert_eq!(&*caller(&request), "192.0.2.1", "the empty identity is anonymous");
        request.extensions_mut().insert(Identity(Arc::from("user:7")));
        assert_eq!(&*caller(&request), "user:7");
    }
}
