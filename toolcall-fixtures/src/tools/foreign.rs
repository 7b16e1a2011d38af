//! A foreign type with no provider: `{}` with a warning, decoded with `Deserialize`.

use std::time::Duration;

/// Wait for a while.
///
/// # Arguments
///
/// * `timeout` - serde's `{"secs": .., "nanos": ..}`
pub fn wait(timeout: Duration, retry: Option<Duration>) -> u64 {
    timeout.as_secs() + retry.map_or(0, |r| r.as_secs())
}
