//! Rate limits counted in this process: governor's keyed GCRA, one limiter for the
//! callers' rate and one per limited tool, each keyed by caller. What every replica counts
//! for itself, and what a server with a shared store falls back to while the store does
//! not answer.

use std::collections::BTreeMap;
use std::sync::Arc;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use super::{Check, Limited, RateLimit, Refused};

/// The limiters of one server in this process.
pub(super) struct Local {
    caller: Option<DefaultKeyedRateLimiter<Arc<str>>>,
    tools: BTreeMap<String, DefaultKeyedRateLimiter<Arc<str>>>,
}

impl Local {
    /// The limiters of the `caller` rate and of the `tools`' rates.
    pub(super) fn new(caller: Option<RateLimit>, tools: &BTreeMap<String, RateLimit>) -> Local {
        Local {
            caller: caller.map(|rate| RateLimiter::keyed(quota(rate))),
            tools: tools
                .iter()
                .map(|(name, rate)| (name.clone(), RateLimiter::keyed(quota(*rate))))
                .collect(),
        }
    }

    /// Counts a call of `caller` against `checks` in turn: the first that refuses it, and
    /// how long until it would not; `None` when every one let it through.
    pub(super) fn check<'a>(&self, caller: &Arc<str>, checks: &[Check<'a>]) -> Option<Refused<'a>> {
        let now = DefaultClock::default().now();
        checks.iter().find_map(|check| {
            let limiter = match check.limited {
                Limited::Caller => self.caller.as_ref(),
                Limited::Tool(tool) => self.tools.get(tool),
            }?;
            let refused = limiter.check_key(caller).err()?;
            Some(Refused { check: *check, wait: refused.wait_time_from(now) })
        })
    }

    /// Forgets callers whose rate is back to full, so the tables do not grow with every
    /// address ever seen.
    pub(super) fn sweep(&self) {
        if let Some(caller) = &self.caller {
            caller.retain_recent();
        }
        for limiter in self.tools.values() {
            limiter.retain_recent();
        }
    }
}

/// governor's quota of `rate`.
fn quota(rate: RateLimit) -> Quota {
    Quota::per_second(rate.per_second).allow_burst(rate.burst)
}
