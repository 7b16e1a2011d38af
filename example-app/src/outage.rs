//! What the store knows of its database being unreachable, so that calls during an outage
//! fail at once with a retry hint rather than each wait out the pool's connection wait.
//!
//! A query that fails because the database cannot be reached (no connection could be
//! opened, one broke, the server is shutting down) marks it [`Outage::down`]: from then
//! on queries are not sent, each is refused with [`Refusal`] (what failed, and when to
//! try again), and one probe in the background asks the database every
//! [`PROBE_EVERY`] until it answers, which ends the outage. The outage and its end are
//! each one line of the operator's log (target [`DATABASE_TARGET`]), however many calls
//! are refused in between.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The `log` target of the database's outages and recoveries.
pub const DATABASE_TARGET: &str = "example_app::database";

/// How often an unreachable database is asked again, and so how long a refused caller is
/// told to wait.
pub const PROBE_EVERY: Duration = Duration::from_secs(1);

/// How long one probe may take before it counts as no answer.
pub const PROBE_DEADLINE: Duration = Duration::from_secs(5);

/// A query not sent because the database is known to be unreachable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// What failed when the outage began (`cannot connect`, ...).
    pub kind: &'static str,
    /// When the caller may try again: the next probe.
    pub retry_after: Duration,
}

/// The database's reachability, shared by a store's queries and its probe.
#[derive(Debug, Default)]
pub struct Outage {
    down: Mutex<Option<Down>>,
}

/// An outage under way.
#[derive(Clone, Copy, Debug)]
struct Down {
    since: Instant,
    kind: &'static str,
}

impl Outage {
    /// The state, whatever a panicking holder left (every change is one assignment).
    fn state(&self) -> std::sync::MutexGuard<'_, Option<Down>> {
        self.down.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// `Some` while the database is known to be unreachable: the query is not sent.
    pub fn refusal(&self) -> Option<Refusal> {
        self.state().map(|down| Refusal { kind: down.kind, retry_after: PROBE_EVERY })
    }

    /// The database could not be reached (`kind` says how): the outage begins, and is
    /// logged, unless it is already under way. `true` when it began now (the caller
    /// starts the probe).
    pub fn down(&self, kind: &'static str) -> bool {
        let mut state = self.state();
        if state.is_some() {
            return false;
        }
        *state = Some(Down { since: Instant::now(), kind });
        drop(state);
        log::warn!(
            target: DATABASE_TARGET,
            "database unreachable ({kind}): calls that need it fail at once, asking to retry in {} s, until it answers (asked every {} s)",
            PROBE_EVERY.as_secs(),
            PROBE_EVERY.as_secs()
        );
        true
    }

    /// The database answered a probe: the outage, if any, ends, and is logged.
    pub fn answered(&self) {
        let Some(down) = self.state().take() else { return };
        log::info!(
            target: DATABASE_TARGET,
            "database answering again after {:.1} s unreachable",
            down.since.elapsed().as_secs_f64()
        );
    }

    /// Asks `ask` every [`PROBE_EVERY`], each time within [`PROBE_DEADLINE`], until it
    /// answers `Ok`; then the outage ends.
    pub async fn probe<F, Fut, E>(&self, ask: F)
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Result<(), E>>,
    {
        loop {
            tokio::time::sleep(PROBE_EVERY).await;
            if let Ok(Ok(())) = tokio::time::timeout(PROBE_DEADLINE, ask()).await {
                self.answered();
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_outage_refuses_until_answered_and_begins_once() {
        let outage = Outage::default();
        assert_eq!(outage.refusal(), None);
        assert!(outage.down("cannot connect"));
        assert!(!outage.down("a later failure"), "already under way");
        assert_eq!(outage.refusal(), Some(Refusal { kind: "cannot connect", retry_after: PROBE_EVERY }));
        outage.answered();
        assert_eq!(outage.refusal(), None);
        assert!(outage.down("cannot connect"), "a new outage");
    }

    #[tokio::test(start_paused = true)]
    async fn the_probe_asks_until_the_database_answers() {
        let outage = Outage::default();
        outage.down("cannot connect");
        let asked = std::sync::atomic::AtomicU32::new(0);
        let started = tokio::time::Instant::now();
        outage
            .probe(|| async {
                let n = asked.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                if n < 2 { Err(()) } else { Ok(()) }
            })
            .await;
        assert_eq!(asked.load(std::sync::atomic::Ordering::SeqCst), 3);
        assert_eq!(started.elapsed(), PROBE_EVERY * 3);
        assert_eq!(outage.refusal(), None);
    }

    #[tokio::test(start_paused = true)]
    async fn a_probe_that_hangs_counts_as_no_answer() {
        let outage = Outage::default();
        outage.down("cannot connect");
        let asked = std::sync::atomic::AtomicU32::new(0);
        outage
            .probe(|| async {
                if asked.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0 {
                    std::future::pending::<()>().await;
                }
                Ok::<(), ()>(())
            })
            .await;
        assert_eq!(asked.load(std::sync::atomic::Ordering::SeqCst), 2);
    }
}
