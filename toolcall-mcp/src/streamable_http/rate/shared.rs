//! A shared rate-limit store kept to a deadline, failing open: each count in it
//! ([`HttpSettings::rate_limit_store`]) that does not answer within
//! [`HttpSettings::rate_limit_store_timeout`] fails, and the call is counted in this
//! process instead ([`super::local`]), as it would be without a store: an outage never
//! refuses a call, nor makes every call wait. While the store is down, one call a second
//! asks it again (the others are counted in process at once, without asking); the first
//! that gets an answer ends the outage. The outage and the recovery are each logged once,
//! on target [`LIFECYCLE_TARGET`].
//!
//! [`HttpSettings::rate_limit_store`]: crate::HttpSettings::rate_limit_store
//! [`HttpSettings::rate_limit_store_timeout`]: crate::HttpSettings::rate_limit_store_timeout

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::redis::RedisRates;
use super::{Check, RateLimitStore, Refused};
use crate::telemetry::LIFECYCLE_TARGET;

/// How often a store that is down is asked again.
const PROBE_EVERY: Duration = Duration::from_secs(1);

/// The store did not answer: count in process.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Unavailable;

/// A shared store, its counts bounded by a deadline, its outages logged once each.
pub(super) struct Shared {
    rates: RedisRates,
    timeout: Duration,
    /// Whether the last count failed.
    down: AtomicBool,
    /// While down, when the store may be asked again: milliseconds after `since`.
    next_probe: AtomicU64,
    since: Instant,
    probe_every: Duration,
}

impl Shared {
    /// The shared part of `store`, each count bounded by `timeout`; `None` for a store in
    /// process.
    pub(super) fn new(store: &RateLimitStore, timeout: Duration) -> Option<Shared> {
        let rates = store.redis_rates()?.clone();
        Some(Shared {
            rates,
            timeout,
            down: AtomicBool::new(false),
            next_probe: AtomicU64::new(0),
            since: Instant::now(),
            probe_every: PROBE_EVERY,
        })
    }

    /// Counts a call of `caller` against `checks` in the store: the limit it met, `None`
    /// when it may go; [`Unavailable`] when the store did not answer in time (or is down
    /// and not to be asked again yet).
    pub(super) async fn check<'a>(
        &self,
        caller: &str,
        checks: &[Check<'a>],
    ) -> Result<Option<Refused<'a>>, Unavailable> {
        if !self.may_ask() {
            return Err(Unavailable);
        }
        let counted = tokio::time::timeout(self.timeout, Box::pin(self.rates.count(caller, checks))).await;
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

    /// Whether this call asks the store: always while it is up; while it is down, the
    /// first call once the probe interval has passed since the last failure, alone.
    fn may_ask(&self) -> bool {
        if !self.down.load(Ordering::SeqCst) {
            return true;
        }
        let now = self.millis();
        let next = self.next_probe.load(Ordering::SeqCst);
        now >= next
            && self
                .next_probe
                .compare_exchange(next, now + self.probe_millis(), Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
    }

    /// Milliseconds since the store was made.
    fn millis(&self) -> u64 {
        u64::try_from(self.since.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// The probe interval in milliseconds.
    fn probe_millis(&self) -> u64 {
        u64::try_from(self.probe_every.as_millis()).unwrap_or(u64::MAX)
    }

    /// The store answered: the end of an outage, if there was one.
    fn answered(&self) {
        if self.down.swap(false, Ordering::SeqCst) {
            log::info!(target: LIFECYCLE_TARGET, "the rate-limit store answers again; calls are counted in it, across replicas");
        }
    }

    /// The store failed (`why`): the start of an outage, if it was up; the next probe a
    /// probe interval from now either way.
    fn failed(&self, why: &str) {
        self.next_probe.store(self.millis().saturating_add(self.probe_millis()), Ordering::SeqCst);
        if !self.down.swap(true, Ordering::SeqCst) {
            log::warn!(
                target: LIFECYCLE_TARGET,
                "the rate-limit store failed: {why}; calls are counted in this process (each replica its own) until it answers"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::RateLimit;
    use crate::streamable_http::rate::Limited;

    /// A store on a port where nothing listens, asked again every `probe_every` while
    /// down.
    fn unreachable(probe_every: Duration) -> Shared {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let store = RateLimitStore::redis(&format!("redis://127.0.0.1:{port}")).unwrap();
        Shared { probe_every, ..Shared::new(&store, Duration::from_millis(300)).unwrap() }
    }

    #[tokio::test]
    async fn a_store_that_does_not_answer_is_unavailable_within_the_deadline() {
        let shared = unreachable(Duration::from_millis(300));
        let checks = [Check { limited: Limited::Caller, rate: RateLimit::per_second(1) }];
        let started = Instant::now();
        assert_eq!(shared.check("ada", &checks).await, Err(Unavailable));
        assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
        assert!(shared.down.load(Ordering::SeqCst));
        // Down: the calls that follow do not ask it, until the probe interval has passed.
        assert!(!shared.may_ask());
        tokio::time::sleep(Duration::from_millis(350)).await;
        assert!(shared.may_ask(), "one call asks again");
        assert!(!shared.may_ask(), "and only one");
        assert!(
            RateLimitStore::default().redis_rates().is_none()
                && Shared::new(&RateLimitStore::default(), Duration::ZERO).is_none()
        );
    }
}
