//! Rate limits counted in Redis (feature `redis`), shared by every replica connected to
//! it: the GCRA of [`super::local`] in one Lua script, one round trip per counted call
//! (`EVALSHA`; the script's text only on the first call, and again after Redis forgot it).
//!
//! A caller's count is under `toolcall:rate:{caller}`, its count on one tool under
//! `toolcall:rate:{caller}:tool:NAME` (the braces make both one hash slot), each holding
//! the caller's theoretical arrival time in microseconds of Redis's clock (every replica
//! reads the same clock), and expiring when the caller's rate is back to full. A caller
//! that is not plain text (empty, longer than 128 bytes, with braces or control
//! characters) is keyed by its SHA-256 instead.

use std::sync::OnceLock;
use std::time::Duration;

use redis::aio::ConnectionManager;
use redis::{ErrorKind, RedisResult, ServerErrorKind};
use sha2::Digest as _;

use super::{Check, Limited, Refused};

/// The key prefix of every rate-limit count in Redis.
pub const RATE_KEY_PREFIX: &str = "toolcall:rate:";

/// The GCRA of governor, over `KEYS` in order (a tool's count, then the caller's): a key
/// holds its theoretical arrival time (TAT). `ARGV` holds, per key, the interval between
/// calls and the burst tolerance (interval x (burst - 1)), in microseconds. The first key
/// that refuses ends the script, `{its index, microseconds until it would not}`, and the
/// keys after it are not counted; `{0, 0}` when every key took the call.
const SCRIPT: &str = r"
if redis.replicate_commands then redis.replicate_commands() end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
for i, key in ipairs(KEYS) do
  local interval = tonumber(ARGV[2 * i - 1])
  local tolerance = tonumber(ARGV[2 * i])
  local tat = tonumber(redis.call('GET', key)) or now
  if tat - tolerance > now then
    return {i, tat - tolerance - now}
  end
  local next = math.max(tat, now) + interval
  redis.call('SET', key, string.format('%.0f', next), 'PX', math.ceil((next - now) / 1000))
end
return {0, 0}
";

/// Counts in one Redis server.
#[derive(Clone)]
pub(crate) struct RedisRates {
    connection: ConnectionManager,
    /// The script's SHA-1, as Redis named it when it was loaded.
    sha: std::sync::Arc<OnceLock<String>>,
}

impl RedisRates {
    /// The counts in the Redis server at `url`, connected at first use.
    pub(super) fn connect_lazy(url: &str) -> RedisResult<RedisRates> {
        let connection = crate::session_store::lazy_connection(url)?;
        Ok(RedisRates { connection, sha: Default::default() })
    }

    /// Counts a call of `caller` against `checks` in turn: the first that refuses it;
    /// `None` when every one let it through.
    pub(super) async fn count<'a>(
        &self,
        caller: &str,
        checks: &[Check<'a>],
    ) -> RedisResult<Option<Refused<'a>>> {
        let keys: Vec<String> = checks.iter().map(|check| key(caller, check.limited)).collect();
        let mut arguments = Vec::with_capacity(2 * checks.len());
        for check in checks {
            let interval = interval_micros(check);
            arguments.push(interval);
            arguments.push(interval.saturating_mul(u64::from(check.rate.burst.get() - 1)));
        }
        let (index, wait) = self.run(&keys, &arguments).await?;
        let refused = usize::try_from(index).ok().and_then(|index| index.checked_sub(1));
        Ok(refused.and_then(|index| checks.get(index)).map(|check| Refused {
            check: *check,
            wait: Duration::from_micros(u64::try_from(wait).unwrap_or(0)),
        }))
    }

    /// The script's answer on `keys` and `arguments`: by its SHA-1 once Redis named it;
    /// loaded and run in one round trip the first time, and when Redis has forgotten it
    /// (a restart).
    async fn run(&self, keys: &[String], arguments: &[u64]) -> RedisResult<(i64, i64)> {
        let mut connection = self.connection.clone();
        if let Some(sha) = self.sha.get() {
            let mut evalsha = redis::cmd("EVALSHA");
            evalsha.arg(sha).arg(keys.len()).arg(keys).arg(arguments);
            match evalsha.query_async(&mut connection).await {
                Err(error) if error.kind() == ErrorKind::Server(ServerErrorKind::NoScript) => {}
                answered => return answered,
            }
        }
        let mut pipe = redis::pipe();
        pipe.cmd("SCRIPT").arg("LOAD").arg(SCRIPT);
        pipe.cmd("EVAL").arg(SCRIPT).arg(keys.len()).arg(keys).arg(arguments);
        let (sha, answer): (String, (i64, i64)) = pipe.query_async(&mut connection).await?;
        let _ = self.sha.set(sha);
        Ok(answer)
    }
}

/// The interval between two calls at `check`'s rate, in microseconds (at least 1).
fn interval_micros(check: &Check<'_>) -> u64 {
    (1_000_000 / u64::from(check.rate.per_second.get())).max(1)
}

/// The key of `caller`'s count against `limited`.
fn key(caller: &str, limited: Limited<'_>) -> String {
    let caller = plain_caller(caller);
    match limited {
        Limited::Caller => format!("{RATE_KEY_PREFIX}{{{caller}}}"),
        Limited::Tool(tool) => format!("{RATE_KEY_PREFIX}{{{caller}}}:tool:{tool}"),
    }
}

/// `caller` as it goes in a key: itself when it is plain text, else its SHA-256.
fn plain_caller(caller: &str) -> std::borrow::Cow<'_, str> {
    let plain = !caller.is_empty()
        && caller.len() <= 128
        && !caller.chars().any(|c| c == '{' || c == '}' || c.is_control() || c.is_whitespace());
    if plain {
        return caller.into();
    }
    let digest = sha2::Sha256::digest(caller.as_bytes());
    let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("sha256:{hex}").into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RateLimit;

    #[test]
    fn keys_name_the_caller_and_the_tool_in_one_slot() {
        assert_eq!(key("203.0.113.9", Limited::Caller), "toolcall:rate:{203.0.113.9}");
        assert_eq!(key("user:7", Limited::Tool("export")), "toolcall:rate:{user:7}:tool:export");
        assert_eq!(key("2001:db8::1", Limited::Caller), "toolcall:rate:{2001:db8::1}");
        let odd = key("a}b", Limited::Caller);
        assert!(
            odd.starts_with("toolcall:rate:{sha256:") && odd.len() == "toolcall:rate:{sha256:}".len() + 64,
            "{odd}"
        );
        assert_ne!(key("", Limited::Caller), "toolcall:rate:{}", "never an empty hash tag");
        assert!(key(&"x".repeat(200), Limited::Caller).len() < 100);
    }

    #[test]
    fn the_interval_is_a_second_over_the_rate() {
        let check = |per_second| Check { limited: Limited::Caller, rate: RateLimit::per_second(per_second) };
        assert_eq!(interval_micros(&check(5)), 200_000);
        assert_eq!(interval_micros(&check(3)), 333_333);
        assert_eq!(interval_micros(&check(1_000_000)), 1);
        assert_eq!(interval_micros(&check(u32::MAX)), 1, "never zero");
    }
}
