//! Budgets of one run ([`UsageLimits`], as Pydantic AI's `UsageLimits`): the most requests,
//! tool calls, input, output and total tokens a run may use. Passing one ends the run
//! with [`AgentError::UsageLimit`](crate::AgentError::UsageLimit), which says which limit
//! and carries the [`RunUsage`] so far.
//!
//! - Requests are checked before each request: a limit of 3 sends 3, and a 4th is
//!   never sent.
//! - Tool calls are checked before a reply's calls run: a reply whose calls would pass
//!   the limit runs none of them.
//! - Tokens are checked after each reply (a provider counts them as it answers): the
//!   reply that passes a limit ends the run, its calls not run, its answer not taken.
//!
//! [`Agent::max_turns`](crate::Agent::max_turns) still bounds the requests too, with its
//! own error ([`AgentError::TurnLimit`](crate::AgentError::TurnLimit)).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::message::Usage;

/// The most a run may use; `None` (the default) is no limit.
///
/// ```
/// use toolcall_agent::UsageLimits;
///
/// let limits = UsageLimits::new().requests(5).tool_calls(10).output_tokens(2_000);
/// assert_eq!(limits.requests, Some(5));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct UsageLimits {
    /// Requests to the model.
    pub requests: Option<usize>,
    /// Tool calls run (each call of a reply, whatever it answered).
    pub tool_calls: Option<usize>,
    /// Input tokens, summed over the requests ([`Usage::input_tokens`]).
    pub input_tokens: Option<u64>,
    /// Output tokens, summed over the requests ([`Usage::output_tokens`]).
    pub output_tokens: Option<u64>,
    /// Input and output tokens together.
    pub total_tokens: Option<u64>,
}

impl UsageLimits {
    /// No limits.
    pub fn new() -> Self {
        UsageLimits::default()
    }

    /// At most `n` requests.
    pub fn requests(mut self, n: usize) -> Self {
        self.requests = Some(n);
        self
    }

    /// At most `n` tool calls.
    pub fn tool_calls(mut self, n: usize) -> Self {
        self.tool_calls = Some(n);
        self
    }

    /// At most `n` input tokens.
    pub fn input_tokens(mut self, n: u64) -> Self {
        self.input_tokens = Some(n);
        self
    }

    /// At most `n` output tokens.
    pub fn output_tokens(mut self, n: u64) -> Self {
        self.output_tokens = Some(n);
        self
    }

    /// At most `n` input and output tokens together.
    pub fn total_tokens(mut self, n: u64) -> Self {
        self.total_tokens = Some(n);
        self
    }

    /// Before a request: whether one more fits.
    pub(crate) fn check_request(&self, usage: &RunUsage) -> Result<(), Passed> {
        match self.requests {
            Some(limit) if usage.requests >= limit => Err(passed(Limit::Requests(limit), usage)),
            _ => Ok(()),
        }
    }

    /// Before a reply's `calls` run: whether they fit.
    pub(crate) fn check_calls(&self, usage: &RunUsage, calls: usize) -> Result<(), Passed> {
        match self.tool_calls {
            Some(limit) if usage.tool_calls.saturating_add(calls) > limit => {
                Err(passed(Limit::ToolCalls(limit), usage))
            }
            _ => Ok(()),
        }
    }

    /// After a reply: whether the tokens so far are within every token limit.
    pub(crate) fn check_tokens(&self, usage: &RunUsage) -> Result<(), Passed> {
        let tokens = usage.tokens;
        let total = tokens.input_tokens.saturating_add(tokens.output_tokens);
        let checks = [
            (self.input_tokens, tokens.input_tokens, Limit::InputTokens as fn(u64) -> Limit),
            (self.output_tokens, tokens.output_tokens, Limit::OutputTokens),
            (self.total_tokens, total, Limit::TotalTokens),
        ];
        for (limit, used, kind) in checks {
            if let Some(limit) = limit.filter(|limit| used > *limit) {
                return Err(passed(kind(limit), usage));
            }
        }
        Ok(())
    }
}

fn passed(limit: Limit, usage: &RunUsage) -> Passed {
    Passed { limit, usage: *usage }
}

/// A limit the run passed and its usage then: the run's error
/// ([`AgentError::UsageLimit`](crate::AgentError::UsageLimit)) is made from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Passed {
    /// Which limit, and its value.
    pub(crate) limit: Limit,
    /// What the run had used.
    pub(crate) usage: RunUsage,
}

/// Which limit a run passed, and its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Limit {
    /// [`UsageLimits::requests`].
    Requests(usize),
    /// [`UsageLimits::tool_calls`].
    ToolCalls(usize),
    /// [`UsageLimits::input_tokens`].
    InputTokens(u64),
    /// [`UsageLimits::output_tokens`].
    OutputTokens(u64),
    /// [`UsageLimits::total_tokens`].
    TotalTokens(u64),
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Limit::Requests(n) => write!(f, "{n} request(s)"),
            Limit::ToolCalls(n) => write!(f, "{n} tool call(s)"),
            Limit::InputTokens(n) => write!(f, "{n} input token(s)"),
            Limit::OutputTokens(n) => write!(f, "{n} output token(s)"),
            Limit::TotalTokens(n) => write!(f, "{n} token(s) in all"),
        }
    }
}

/// What a run has used: requests, tool calls (and how many the tools refused or failed),
/// tokens. [`Outcome::run_usage`](crate::Outcome::run_usage) at the end,
/// [`AgentError::UsageLimit`](crate::AgentError::UsageLimit) when a limit ended it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RunUsage {
    /// Requests sent to the model.
    pub requests: usize,
    /// Tool calls answered (run, declined or refused).
    pub tool_calls: usize,
    /// Calls refused for the model's mistakes (arguments that do not decode, an unknown
    /// tool, a tool's `ToolFailure::retry`): what [`Agent::tool_retries`](crate::Agent::tool_retries)
    /// counts.
    pub refused_calls: usize,
    /// Calls that failed for the tool's own reasons (an `Err`, a panic, a time limit, an
    /// MCP server's `isError`): the model reads them; they count toward no retry budget.
    pub failed_calls: usize,
    /// Tokens, summed over the requests.
    pub tokens: Usage,
}

impl fmt::Display for RunUsage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} request(s), {} tool call(s), {} input and {} output token(s)",
            self.requests, self.tool_calls, self.tokens.input_tokens, self.tokens.output_tokens
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn used(requests: usize, tool_calls: usize, input: u64, output: u64) -> RunUsage {
        let tokens = Usage::new(input, output);
        RunUsage { requests, tool_calls, tokens, ..RunUsage::default() }
    }

    #[test]
    fn each_limit_is_passed_only_past_its_value() {
        let limits = UsageLimits::new()
            .requests(2)
            .tool_calls(3)
            .input_tokens(100)
            .output_tokens(10)
            .total_tokens(105);
        assert!(limits.check_request(&used(1, 0, 0, 0)).is_ok());
        let error = limits.check_request(&used(2, 0, 0, 0)).unwrap_err();
        assert_eq!(error, Passed { limit: Limit::Requests(2), usage: used(2, 0, 0, 0) });
        assert!(limits.check_calls(&used(1, 1, 0, 0), 2).is_ok());
        assert!(limits.check_calls(&used(1, 2, 0, 0), 2).is_err());
        assert!(limits.check_tokens(&used(1, 0, 100, 5)).is_ok());
        let limit = |usage| match limits.check_tokens(&usage) {
            Err(Passed { limit, .. }) => Some(limit),
            _ => None,
        };
        assert_eq!(limit(used(1, 0, 101, 0)), Some(Limit::InputTokens(100)));
        assert_eq!(limit(used(1, 0, 0, 11)), Some(Limit::OutputTokens(10)));
        assert_eq!(limit(used(1, 0, 96, 10)), Some(Limit::TotalTokens(105)));
        assert!(UsageLimits::new().check_tokens(&used(9, 9, u64::MAX, u64::MAX)).is_ok());
    }
}
