//! A shared rate-limit store kept to a deadline, failing open: each count in it
//! ([`HttpSettings::rate_limit_store`]) that does not answer within
//! [`HttpSettings::rate_limit_store_timeout`] fails, and the call is counted in this
//! process instead ([`super::local`]), as it would be without a store: an outage never
//! refuses a call, nor makes every call wait. While the store is down, one call at a time
//! asks it (the others are counted in process at once); the first that gets an answer
//! ends the outage. The outage and the recovery are each logged once, on target
//! [`LIFECYCLE_TARGET`].
//!
//! [`HttpSettings::rate_limit_store`]: crate::HttpSettings::rate_limit_store
//! [`HttpSettings::rate_limit_store_timeout`]: crate::HttpSettings::rate_limit_store_timeout

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::redis::RedisRates;
use super::{Check, RateLimitStore, Refused};
use crate::telemetry::LIFECYCLE_TARGET;

/// The store did not answer: count in process.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Unavailable;

/// A shared store, its counts bounded by a deadline, its outages logged once each.
pub(super) struct Shared {
    rates: RedisRates,
    timeout: Duration,
    /// Whether the last count failed.
    down: AtomicBool,
    /// Whether a call is asking the store while it is down.
    probing: AtomicBool,
}

impl Shared {
    /// The shared part of `store`, each count bounded by `timeout`; `None` for a store in
    /// process.
    pub(super) fn new(store: &RateLimitStore, timeout: Duration) -> Option<Shared> {
        let rates = store.redis_rates()?.clone();
        Some(Shared { rates, timeout, down: AtomicBool::new(false), probing: AtomicBool::new(false) })
    }

    /// Counts a call of `caller` against `checks` in the store: the limit it met, `None`
    /// when it may go; [`Unavailable`] when the store did not answer in time (or is down
    /// and another call is asking it).
    pub(super) async fn check<'a>(
        &self,
        caller: &str,
        checks: &[Check<'a>],
    ) -> Result<Option<Refused<'a>>, Unavailable> {
        let probe = match self.down.load(Ordering::SeqCst) {
            true => Some(Probe::start(&self.probing).ok_or(Unavailable)?),
            false => None,
        };
        let counted = tokio::time::timeout(self.timeout, Box::pin(self.rates.count(caller, checks))).await;
        drop(probe);
        match counted {
            Ok(Ok(refused)) => {
                self.answered();
                Ok(refused)
            }
            Ok(Err(error)) => {
                self.failed(&error.to_string());
                Err(Unavailable)
            }
            Err(_) => {
                self.failed(&format!("no answer within {} ms", self.timeout.as_millis()));
                Err(Unavailable)
            }
        }
    }

    /// The store answered: the end of an outage, if there was one.
    fn answered(&self) {
        if self.down.swap(false, Ordering::SeqCst) {
            log::info!(target: LIFECYCLE_TARGET, "the rate-limit store answers again; calls are counted in it, across replicas");
        }
    }

    /// The store failed (`why`): the start of an outage, if it was up.
    fn failed(&self, why: &str) {
        if !self.down.swap(true, Ordering::SeqCst) {
            log::warn!(
                target: LIFECYCLE_TARGET,
                "the rate-limit store failed: {why}; calls are counted in this process (each replica its own) until it answers"
            );
        }
    }
}

/// The one call asking a store that is down; the turn passes on when it is dropped.
struct Probe<'a>(&'a AtomicBool);

impl<'a> Probe<'a> {
    /// The turn to ask, unless another call has it.
    fn start(probing: &'a AtomicBool) -> Option<Probe<'a>> {
        probing.compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst).ok()?;
        Some(Probe(probing))
    }
}

impl Drop for Probe<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::RateLimit;
    use crate::streamable_http::rate::Limited;

    /// A store on a port where nothing listens.
    fn unreachable() -> Shared {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let store = RateLimitStore::redis(&format!("redis://127.0.0.1:{port}")).unwrap();
        Shared::new(&store, Duration::from_millis(300)).unwrap()
    }

    #[tokio::test]
    async fn a_store_that_does_not_answer_is_unavailable_within_the_deadline() {
        let shared = unreachable();
        let checks = [Check { limited: Limited::Caller, rate: RateLimit::per_second(1) }];
        let started = std::time::Instant::now();
        assert_eq!(shared.check("ada", &checks).await, Err(Unavailable));
        assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
        assert!(shared.down.load(Ordering::SeqCst));
        // While one call asks the store that is down, the others do not wait on it.
        let probe = Probe::start(&shared.probing).unwrap();
        let started = std::time::Instant::now();
        assert_eq!(shared.check("ada", &checks).await, Err(Unavailable));
        assert!(started.elapsed() < Duration::from_millis(50), "{:?}", started.elapsed());
        drop(probe);
        assert!(!shared.probing.load(Ordering::SeqCst), "the turn passes on");
        assert!(
            RateLimitStore::default().redis_rates().is_none()
                && Shared::new(&RateLimitStore::default(), Duration::ZERO).is_none()
        );
    }
}
