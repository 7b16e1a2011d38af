//! Where rate limits are counted ([`RateLimitStore`]): in this process, or (feature
//! `redis`) in Redis, shared by every replica.

/// Where a server counts its rate limits
/// ([`HttpSettings::rate_limit_store`](crate::HttpSettings::rate_limit_store)).
///
/// In this process by default: each replica counts its own, so a caller whose calls a
/// balancer spreads over N replicas gets up to N times its rate. With feature `redis`,
#[cfg_attr(
    feature = "redis",
    doc = "[`RateLimitStore::redis`] counts in Redis, one script per counted call: every replica"
)]
#[cfg_attr(
    not(feature = "redis"),
    doc = "`RateLimitStore::redis` counts in Redis, one script per counted call: every replica"
)]
/// connected to it shares each caller's count. While Redis does not answer (within
/// [`HttpSettings::rate_limit_store_timeout`](crate::HttpSettings::rate_limit_store_timeout)),
/// calls are counted in this process, as without a store: the limit fails open to each
/// replica's own count, never refusing a call for Redis's sake; the outage and the
/// recovery are logged once each on [`LIFECYCLE_TARGET`](crate::telemetry::LIFECYCLE_TARGET).
///
/// ```
/// let store = toolcall_mcp::RateLimitStore::default();
/// assert!(!store.is_shared());
/// ```
#[derive(Clone, Default)]
pub struct RateLimitStore {
    kind: Kind,
}

/// The store's kind.
#[derive(Clone, Default)]
enum Kind {
    /// This process's count.
    #[default]
    InProcess,
    /// Redis's.
    #[cfg(feature = "redis")]
    Redis(super::redis::RedisRates),
}

impl RateLimitStore {
    /// Counts in this process (the default).
    pub fn in_process() -> RateLimitStore {
        RateLimitStore { kind: Kind::InProcess }
    }

    /// Counts in the Redis server at `url` (`redis://host:port/db`), under keys
    /// [`RATE_KEY_PREFIX`](crate::RATE_KEY_PREFIX)`{caller}` and
    /// `..{caller}:tool:NAME`, each expiring when its caller's rate is back to full. It
    /// connects at its first use, not now (a replica started while Redis is down starts,
    /// and counts in process until Redis answers), as
    /// [`RedisSessionStore::connect_lazy`](crate::RedisSessionStore::connect_lazy) does.
    /// Call it inside a tokio runtime.
    ///
    /// ```no_run
    /// # fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// use toolcall_mcp::{HttpSettings, RateLimit, RateLimitStore};
    ///
    /// let mut http = HttpSettings::default();
    /// http.rate_limit = Some(RateLimit::per_second(5));
    /// http.rate_limit_store = RateLimitStore::redis("redis://127.0.0.1:6379")?;
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    ///
    /// When the URL does not parse.
    #[cfg(feature = "redis")]
    pub fn redis(url: &str) -> Result<RateLimitStore, ::redis::RedisError> {
        Ok(RateLimitStore { kind: Kind::Redis(super::redis::RedisRates::connect_lazy(url)?) })
    }

    /// Whether replicas share the count (a Redis store), or each counts its own.
    pub fn is_shared(&self) -> bool {
        !matches!(self.kind, Kind::InProcess)
    }

    /// The Redis store, if this is one.
    #[cfg(feature = "redis")]
    pub(super) fn redis_rates(&self) -> Option<&super::redis::RedisRates> {
        match &self.kind {
            Kind::Redis(rates) => Some(rates),
            Kind::InProcess => None,
        }
    }
}

impl std::fmt::Debug for RateLimitStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            Kind::InProcess => f.write_str("RateLimitStore::InProcess"),
            #[cfg(feature = "redis")]
            Kind::Redis(_) => f.write_str("RateLimitStore::Redis"),
        }
    }
}
