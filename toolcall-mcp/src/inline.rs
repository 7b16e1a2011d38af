//! Where a call's synchronous part runs: on the async worker that received the request
//! ("inline"), or on tokio's blocking pool.
//!
//! A call's first poll decodes its arguments and, for a sync tool, runs the whole tool:
//! user code that may block (a file read, a lock, a long loop), which must not hold one of
//! the few async workers every other request needs. An async tool's first poll runs up to
//! its first `.await`, which async code already promises to keep short. Sending every
//! first poll to the blocking pool is safe but costs a thread hop (two wake-ups, a few
//! microseconds) on calls that take less than one: a trivial tool's call took longer to
//! hand over than to run.
//!
//! The rule: **a call's first poll runs inline when its arguments are small and its tool
//! has proven cheap.** Nothing in a tool's declaration says whether it blocks (a
//! `ToolMeta::timeout_ms` bounds how long a call may take, not how it spends it), so it is
//! measured:
//!
//! - arguments over [`SMALL_ARGUMENTS`] bytes (a 4 MiB body of 90,000 keys takes
//!   milliseconds to decode) always go to the pool;
//! - a tool starts on the pool, its first polls timed there: after [`LEARN`] calls in a
//!   row each within the budget ([`DEFAULT_INLINE_BUDGET`], 100 µs, the upper end of
//!   tokio's guidance for the time between two `.await`s), its calls run inline (one over
//!   the budget starts the count again);
//! - inline, each first poll is timed too: one over the budget adds [`STRIKE`] to the
//!   tool's score, one within it takes 1 off, and at [`OUT`] the tool goes back to the
//!   pool for [`DEMOTED_FOR`], after which it is measured again. A tool that blocks every
//!   time is out after three calls; one that blocks on more than about one call in
//!   sixteen is out soon after; a thread preempted now and then (a loaded machine
//!   stretches a microsecond's poll past any budget) does not put a cheap tool out.
//!
//! So a tool that blocks holds a worker at most a few times per [`DEMOTED_FOR`], and only
//! after a run of cheap calls; a tool that blocks on rare calls only (fewer than one in
//! sixteen) may hold a worker on those: a server whose tools do that sets the budget to
//! zero ([`McpServer::inline_budget`](crate::McpServer::inline_budget)), which turns
//! inlining off: every first poll goes to the pool, as before this rule.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The default longest first poll that keeps a tool inline: 100 µs.
pub const DEFAULT_INLINE_BUDGET: Duration = Duration::from_micros(100);

/// Arguments up to this many bytes of JSON may be decoded inline (64 KiB: the HTTP
/// layer's own line between a small and a large body).
pub(crate) const SMALL_ARGUMENTS: usize = 64 * 1024;

/// How many cheap first polls in a row, measured on the pool, make a tool inline.
pub(crate) const LEARN: u64 = 8;

/// How long a tool put out of inline stays on the pool.
pub(crate) const DEMOTED_FOR: Duration = Duration::from_secs(10);

/// What an inline first poll over the budget adds to its tool's score.
pub(crate) const STRIKE: u64 = 16;

/// The score at which a tool goes back to the pool.
pub(crate) const OUT: u64 = 3 * STRIKE;

/// A tool's state from this value up to `INLINE + OUT` is "inline, with score
/// `value - INLINE`".
const INLINE: u64 = 1 << 16;

/// A tool's state at or past this value is "on the pool until `value - DEMOTED` ms".
const DEMOTED: u64 = 1 << 32;

/// Where one call's first poll runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    /// On the async worker, timed.
    Inline,
    /// On the blocking pool; `learn`: timed, counting toward inlining the tool.
    Pool { learn: bool },
}

/// The inlining state of every tool of one server (shared by its clones).
#[derive(Debug)]
pub(crate) struct Inline {
    budget: Duration,
    epoch: Instant,
    /// Per tool, by its place among the server's tools: `0..LEARN` cheap polls measured
    /// so far, `INLINE + score` inline, `DEMOTED + t` on the pool until `t` ms after
    /// `epoch`. Sized at the first call, when every tool has been added.
    tools: OnceLock<Box<[AtomicU64]>>,
}

impl Inline {
    /// No tool inline yet; first polls up to `budget` keep a tool inline (zero: never).
    pub(crate) fn new(budget: Duration) -> Self {
        Inline { budget, epoch: Instant::now(), tools: OnceLock::new() }
    }

    /// Where the first poll of a call of tool `tool` (of `count` tools; `None` when it is
    /// not one of them) with `bytes` of arguments runs.
    pub(crate) fn place(&self, tool: Option<usize>, count: usize, bytes: usize) -> Place {
        let cold = Place::Pool { learn: false };
        if self.budget.is_zero() || bytes > SMALL_ARGUMENTS {
            return cold;
        }
        let Some(state) = tool.and_then(|at| self.states(count).get(at)) else { return cold };
        let now = state.load(Ordering::Relaxed);
        match now {
            _ if now < LEARN => Place::Pool { learn: true },
            _ if now < DEMOTED => Place::Inline,
            _ if self.now_ms() < now - DEMOTED => cold,
            // The time on the pool is over: measured again from the start.
            _ => match state.compare_exchange(now, 0, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => Place::Pool { learn: true },
                Err(_) => cold,
            },
        }
    }

    /// Notes that a first poll of tool `tool` at `place` took `took`.
    pub(crate) fn record(&self, tool: Option<usize>, count: usize, place: Place, took: Duration) {
        if place == (Place::Pool { learn: false }) {
            return;
        }
        let Some(state) = tool.and_then(|at| self.states(count).get(at)) else { return };
        let over = took > self.budget;
        let next = |now: u64| match now {
            // Learning (on the pool): a run of cheap polls makes it inline.
            _ if now < LEARN && over => Some(0),
            _ if now + 1 < LEARN => Some(now + 1),
            _ if now < LEARN => Some(INLINE),
            // Inline: strikes for polls over the budget, forgiven one cheap poll at a time.
            _ if now < DEMOTED && over && now - INLINE + STRIKE >= OUT => Some(
                DEMOTED + self.now_ms() + u64::try_from(DEMOTED_FOR.as_millis()).unwrap_or(u64::MAX >> 8),
            ),
            _ if now < DEMOTED && over => Some(now + STRIKE),
            _ if now < DEMOTED => Some(now.saturating_sub(1).max(INLINE)),
            _ => None,
        };
        // A cheap poll of a tool inline with no strikes changes nothing: nothing is written
        // (the tool's state is shared by every worker calling it).
        let mut now = state.load(Ordering::Relaxed);
        while let Some(value) = next(now).filter(|value| *value != now) {
            match state.compare_exchange_weak(now, value, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return,
                Err(actual) => now = actual,
            }
        }
    }
    /// Whether tool `tool` (of `count`) runs inline now.
    #[cfg(test)]
    pub(crate) fn is_inline(&self, tool: usize, count: usize) -> bool {
        self.states(count).get(tool).is_some_and(|s| (INLINE..DEMOTED).contains(&s.load(Ordering::Relaxed)))
    }

    fn states(&self, count: usize) -> &[AtomicU64] {
        self.tools.get_or_init(|| (0..count).map(|_| AtomicU64::new(0)).collect())
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX >> 8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHEAP: Duration = Duration::from_micros(1);
    const SLOW: Duration = Duration::from_millis(5);

    /// `n` first polls of tool 1 (of 2) taking `took` each, each where `place` says.
    fn run(inline: &Inline, n: u64, took: Duration) {
        for _ in 0..n {
            let place = inline.place(Some(1), 2, 20);
            inline.record(Some(1), 2, place, took);
        }
    }

    #[test]
    fn a_tool_goes_inline_after_a_run_of_cheap_calls() {
        let inline = Inline::new(DEFAULT_INLINE_BUDGET);
        for _ in 0..LEARN {
            assert_eq!(inline.place(Some(1), 2, 20), Place::Pool { learn: true });
            run(&inline, 1, CHEAP);
        }
        assert_eq!(inline.place(Some(1), 2, 20), Place::Inline);
        assert_eq!(inline.place(Some(0), 2, 20), Place::Pool { learn: true }, "each tool learns alone");
        assert_eq!(inline.place(Some(1), 2, SMALL_ARGUMENTS + 1), Place::Pool { learn: false }, "large");
    }

    #[test]
    fn a_slow_poll_while_learning_starts_the_count_over() {
        let inline = Inline::new(DEFAULT_INLINE_BUDGET);
        run(&inline, LEARN - 1, CHEAP);
        run(&inline, 1, SLOW);
        run(&inline, LEARN - 1, CHEAP);
        assert_eq!(inline.place(Some(1), 2, 20), Place::Pool { learn: true });
        run(&inline, 1, CHEAP);
        assert!(inline.is_inline(1, 2));
    }

    #[test]
    fn a_tool_that_keeps_overrunning_goes_back_to_the_pool_and_one_stretched_poll_does_not() {
        let inline = Inline::new(DEFAULT_INLINE_BUDGET);
        run(&inline, LEARN, CHEAP);
        // A preempted thread now and then: forgiven.
        for _ in 0..5 {
            run(&inline, 1, SLOW);
            run(&inline, STRIKE, CHEAP);
        }
        assert!(inline.is_inline(1, 2));
        // A tool that blocks: out after a few calls, for a while.
        run(&inline, OUT / STRIKE, SLOW);
        assert!(!inline.is_inline(1, 2));
        assert_eq!(inline.place(Some(1), 2, 20), Place::Pool { learn: false });
    }

    #[test]
    fn a_zero_budget_or_an_unknown_tool_never_runs_inline() {
        let never = Inline::new(Duration::ZERO);
        assert_eq!(never.place(Some(0), 1, 0), Place::Pool { learn: false });
        let inline = Inline::new(DEFAULT_INLINE_BUDGET);
        assert_eq!(inline.place(None, 1, 0), Place::Pool { learn: false });
        assert_eq!(inline.place(Some(5), 1, 0), Place::Pool { learn: false });
    }
}
