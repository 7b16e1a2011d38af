//! [`AgentError`]: why a run ended without an answer, each case with a message a person
//! can act on. Takes async-openai's [`OpenAIError`]; gives one variant per kind of
//! failure (settings, transport, HTTP status, malformed reply, turn limit).

use std::fmt;

use async_openai::error::OpenAIError;

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
    /// The toolset's OpenAI definitions did not parse as async-openai tools (a toolcall bug).
    Definitions(String),
    /// The endpoint could not be reached or the exchange broke off (connection refused,
    /// timeout, reset), after async-openai's retries.
    Transport(String),
    /// The endpoint answered with an error status (4xx, or 5xx after retries).
    Http {
        /// The HTTP status code.
        status: u16,
        /// The error message of the body, or the start of the body when it has none.
        message: String,
    },
    /// The endpoint answered 2xx with something that is not a chat completion.
    Malformed {
        /// What was wrong.
        reason: String,
        /// The start of the body ("" when the body is not the problem).
        body: String,
    },
    /// The model still asked for tools in its last allowed turn.
    TurnLimit(usize),
    /// async-openai refused the request before sending it.
    Request(String),
}

impl fmt::Display for AgentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AgentError::Config(message) => write!(f, "bad setting: {message}"),
            AgentError::Definitions(message) => write!(f, "the tool definitions do not parse: {message}"),
            AgentError::Transport(message) => write!(f, "cannot reach the endpoint: {message}"),
            AgentError::Http { status, message } => {
                write!(f, "the endpoint answered HTTP {status}: {message}")
            }
            AgentError::Malformed { reason, body } if body.is_empty() => {
                write!(f, "the endpoint's reply is not a chat completion: {reason}")
            }
            AgentError::Malformed { reason, body } => {
                write!(f, "the endpoint's reply is not a chat completion: {reason}; body: {body}")
            }
            AgentError::TurnLimit(turns) => {
                write!(f, "no answer within {turns} turn(s): the model was still calling tools")
            }
            AgentError::Request(message) => write!(f, "the request was not sent: {message}"),
        }
    }
}

impl std::error::Error for AgentError {}

impl From<OpenAIError> for AgentError {
    fn from(error: OpenAIError) -> Self {
        match error {
            OpenAIError::ApiError(error) => AgentError::Http {
                status: error.status_code.as_u16(),
                message: excerpt(&error.api_error.to_string()),
            },
            OpenAIError::JSONDeserialize(error, body) => {
                AgentError::Malformed { reason: error.to_string(), body: excerpt(&body) }
            }
            OpenAIError::Reqwest(error) => AgentError::Transport(chain(&error)),
            other => AgentError::Request(other.to_string()),
        }
    }
}

/// The first [`EXCERPT_CHARS`] characters of `text`, marked when cut.
pub(crate) fn excerpt(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(EXCERPT_CHARS) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

/// An error and its sources on one line: reqwest's own message says little
/// ("error sending request") without the cause ("connection refused").
fn chain(error: &dyn std::error::Error) -> String {
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
        assert_eq!(malformed.to_string(), "the endpoint's reply is not a chat completion: no choices");
        assert!(AgentError::TurnLimit(3).to_string().contains("within 3 turn(s)"));
    }

    #[test]
    fn undecodable_bodies_are_malformed_with_an_excerpt() {
        let error = serde_json::from_str::<serde_json::Value>("<html>").unwrap_err();
        let converted = AgentError::from(OpenAIError::JSONDeserialize(error, "<html>".into()));
        assert!(
            matches!(&converted, AgentError::Malformed { body, .. } if body == "<html>"),
            "{converted:?}"
        );
    }
}
