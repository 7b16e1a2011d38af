//! [`AgentError`]: why a run ended without an answer, each case with a message a person
//! can act on: one variant per kind of failure (settings, transport, HTTP status,
//! malformed reply, an error the provider reported, the model, the turn limit, an answer
//! that never matched the output type).

use std::fmt;

/// How much of a reply body an error message quotes.
const EXCERPT_CHARS: usize = 400;

/// Why [`Agent::run`](crate::Agent::run) ended without an answer.
///
/// A tool call the model got wrong (an unknown tool, invalid arguments, a failing tool)
/// is not an `AgentError`: it goes back to the model as the tool's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AgentError {
    /// A setting cannot be used: the base URL is not an http(s) URL, the API key is not a
    /// valid HTTP header value, https without the `rustls` feature.
    Config(String),
    /// The toolset's definitions did not parse (a toolcall bug).
    Definitions(String),
    /// The endpoint could not be reached or the exchange broke off, said as text.
    #[deprecated(note = "no longer produced: a transport failure is `Connection`, which keeps its cause")]
    Transport(String),
    /// The endpoint could not be reached or the exchange broke off (connection refused,
    /// timeout, reset), after the retries; `source()` is the HTTP client's error.
    Connection {
        /// The error and its causes on one line.
        message: String,
        /// The HTTP client's error.
        source: Cause,
    },
    /// The endpoint answered with an error status (4xx, or 5xx after retries).
    Http {
        /// The HTTP status code.
        status: u16,
        /// The error message of the body, or the start of the body when it has none.
        message: String,
    },
    /// The endpoint answered a status worth a retry (429, 503, ..) and asked to wait
    /// longer than [`Agent::max_retry_wait`](crate::Agent::max_retry_wait) first
    /// (`Retry-After`, or the reset of a rate limit it used up): the run did not wait.
    RetryAfter {
        /// The HTTP status code.
        status: u16,
        /// The error message of the body, or the start of the body when it has none.
        message: String,
        /// How long the server asked to wait.
        wait: std::time::Duration,
    },
    /// The endpoint answered 2xx with something that is not the provider's reply (or
    /// stream of events).
    Malformed {
        /// What was wrong.
        reason: String,
        /// The start of the body ("" when the body is not the problem).
        body: String,
    },
    /// The model still asked for tools in its last allowed turn.
    TurnLimit(usize),
    /// The request could not be built.
    Request(String),
    /// The provider reported an error in a 2xx reply: an `error` event in a stream, a
    /// Responses `status: failed`, a Gemini prompt blocked.
    Provider(String),
    /// The model's reply held nothing the run can use: no text and no tool call of the
    /// run, only items, blocks or parts it did not ask for (an OpenAI Responses
    /// `tool_search_call` of a run without tool search, a server tool's call, thinking
    /// alone), or nothing at all. The message names what came back, and why the model
    /// stopped when it said.
    Unusable(String),
    /// A [`Model`](crate::Model) of your own (or [`ScriptedModel`](crate::ScriptedModel),
    /// out of replies) failed.
    Model(String),
    /// A tool's calls were refused too many times in a row: the model kept sending
    /// arguments the tool rejected (invalid arguments, or a
    /// [`ToolFailure::retry`](toolcall_runtime::ToolFailure::retry)) past
    /// [`Agent::tool_retries`](crate::Agent::tool_retries).
    ToolRetries {
        /// The tool.
        tool: String,
        /// How many of its calls in a row were refused.
        refused: usize,
        /// What the last refusal said.
        message: String,
    },
    /// An MCP server could not be started or reached, did not initialize, or could not
    /// list its tools (`mcp` feature). A call of one of its tools that fails is not an
    /// `AgentError`: it goes back to the model.
    Mcp {
        /// The server: its command line or URL.
        server: String,
        /// What went wrong.
        message: String,
    },
    /// The run passed one of its [`UsageLimits`](crate::UsageLimits) ([`Agent::limits`](crate::Agent::limits)).
    UsageLimit {
        /// Which limit, and its value.
        limit: crate::limits::Limit,
        /// What the run had used when it ended.
        usage: crate::limits::RunUsage,
    },
    /// The answer did not decode as the output type, after every retry.
    Output {
        /// How many answers the model gave.
        attempts: usize,
        /// The last decoding error.
        message: String,
    },
}

impl fmt::Display for AgentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AgentError::Config(message) => write!(f, "bad setting: {message}"),
            AgentError::Definitions(message) => write!(f, "the tool definitions do not parse: {message}"),
            #[allow(deprecated)]
            AgentError::Transport(message) => write!(f, "cannot reach the endpoint: {message}"),
            AgentError::Connection { message, .. } => write!(f, "cannot reach the endpoint: {message}"),
            AgentError::Http { status, message } => {
                write!(f, "the endpoint answered HTTP {status}: {message}")
            }
            AgentError::RetryAfter { status, message, wait } => write!(
                f,
                "the endpoint answered HTTP {status} and asks to retry after {:.1} s, longer than the agent waits: {message}",
                wait.as_secs_f64()
            ),
            AgentError::Malformed { reason, body } if body.is_empty() => {
                write!(f, "the endpoint's reply is malformed: {reason}")
            }
            AgentError::Malformed { reason, body } => {
                write!(f, "the endpoint's reply is malformed: {reason}; body: {body}")
            }
            AgentError::TurnLimit(turns) => {
                write!(f, "no answer within {turns} turn(s): the model was still calling tools")
            }
            AgentError::Request(message) => write!(f, "the request was not sent: {message}"),
            AgentError::Provider(message) => write!(f, "the provider reported an error: {message}"),
            AgentError::Model(message) => write!(f, "the model failed: {message}"),
            AgentError::Unusable(message) => f.write_str(message),
            AgentError::ToolRetries { tool, refused, message } => write!(
                f,
                "tool `{tool}` refused {refused} call(s) in a row, past the agent's retry limit; the last: {message}"
            ),
            AgentError::UsageLimit { limit, usage } => {
                write!(f, "the run passed its limit of {limit}; it used {usage}")
            }
            AgentError::Mcp { server, message } => write!(f, "MCP server `{server}`: {message}"),
            AgentError::Output { attempts, message } => {
                write!(f, "no answer of the output type after {attempts} attempt(s): {message}")
            }
        }
    }
}

impl std::error::Error for AgentError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AgentError::Connection { source, .. } => Some(source.0.as_ref()),
            _ => None,
        }
    }
}

impl From<crate::limits::Passed> for AgentError {
    fn from(passed: crate::limits::Passed) -> Self {
        AgentError::UsageLimit { limit: passed.limit, usage: passed.usage }
    }
}

/// The cause of an [`AgentError`], kept for [`std::error::Error::source`]: cheap to clone,
/// and equal to another when their messages are (so errors still compare in tests).
#[derive(Clone, Debug)]
pub struct Cause(pub std::sync::Arc<dyn std::error::Error + Send + Sync>);

impl Cause {
    /// `error`, kept.
    pub fn new(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        Cause(std::sync::Arc::new(error))
    }
}

impl PartialEq for Cause {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_string() == other.0.to_string()
    }
}

impl Eq for Cause {}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The error of a reply holding only `kinds` (each written as `a \`tool_search_call\`
/// item`), or nothing at all when `kinds` is empty, with why the model stopped when it
/// said (`finish`).
pub(crate) fn unusable(kinds: &[String], finish: Option<&str>) -> AgentError {
    let finish = finish.map(|reason| format!(" (the model stopped: {reason})")).unwrap_or_default();
    let held = match kinds {
        [] => {
            return AgentError::Unusable(format!("the model's reply held no text and no tool call{finish}"));
        }
        [one] => one.clone(),
        [first @ .., last] => format!("{} and {last}", first.join(", ")),
    };
    AgentError::Unusable(format!(
        "the model's reply held only {held}, which this agent did not ask for{finish}"
    ))
}

/// `n` of a kind, as [`unusable`] lists it: "a `thinking` block", "2 `web_search_call` items".
pub(crate) fn counted(kinds: &[String], noun: &str) -> Vec<String> {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for kind in kinds {
        match counts.iter_mut().find(|(k, _)| k == kind) {
            Some((_, n)) => *n += 1,
            None => counts.push((kind, 1)),
        }
    }
    counts
        .into_iter()
        .map(|(kind, n)| if n == 1 { format!("a `{kind}` {noun}") } else { format!("{n} `{kind}` {noun}s") })
        .collect()
}

/// The first [`EXCERPT_CHARS`] characters of `text`, marked when cut.
pub(crate) fn excerpt(text: &str) -> String {
    toolcall_runtime::capture::cut(text.trim(), EXCERPT_CHARS).into_owned()
}

/// An error and its sources on one line: reqwest's own message says little
/// ("error sending request") without the cause ("connection refused").
pub(crate) fn chain(error: &dyn std::error::Error) -> String {
    let mut line = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !line.contains(&text) {
            line.push_str(": ");
            line.push_str(&text);
        }
        source = cause.source();
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_cut_long_bodies_on_a_character_boundary() {
        assert_eq!(excerpt("  short \n"), "short");
        let long = "é".repeat(EXCERPT_CHARS + 10);
        let cut = excerpt(&long);
        assert_eq!(cut.chars().count(), EXCERPT_CHARS + 1);
        assert!(cut.ends_with('…'));
    }

    #[test]
    fn messages_name_the_failure() {
        let http = AgentError::Http { status: 404, message: "404 page not found".into() };
        assert_eq!(http.to_string(), "the endpoint answered HTTP 404: 404 page not found");
        let malformed = AgentError::Malformed { reason: "no choices".into(), body: String::new() };
        assert_eq!(malformed.to_string(), "the endpoint's reply is malformed: no choices");
        assert!(AgentError::TurnLimit(3).to_string().contains("within 3 turn(s)"));
    }

    #[test]
    fn an_unusable_reply_names_what_came_back() {
        let one = unusable(&counted(&["tool_search_call".to_owned()], "item"), None);
        assert_eq!(
            one.to_string(),
            "the model's reply held only a `tool_search_call` item, which this agent did not ask for"
        );
        let kinds = ["thinking", "server_tool_use", "thinking"].map(str::to_owned);
        let two = unusable(&counted(&kinds, "block"), Some("end_turn"));
        assert_eq!(
            two.to_string(),
            "the model's reply held only 2 `thinking` blocks and a `server_tool_use` block, which this agent did not ask for (the model stopped: end_turn)"
        );
        assert_eq!(
            unusable(&[], Some("SAFETY")).to_string(),
            "the model's reply held no text and no tool call (the model stopped: SAFETY)"
        );
    }

    #[test]
    fn a_passed_limit_says_the_limit_and_the_usage() {
        use crate::limits::{Limit, Passed, RunUsage};
        let tokens = crate::message::Usage::new(120, 30);
        let usage = RunUsage { requests: 3, tool_calls: 4, tokens, ..RunUsage::default() };
        let error = AgentError::from(Passed { limit: Limit::ToolCalls(4), usage });
        assert_eq!(
            error.to_string(),
            "the run passed its limit of 4 tool call(s); it used 3 request(s), 4 tool call(s), 120 input and 30 output token(s)"
        );
    }
}
