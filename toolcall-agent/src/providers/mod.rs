//! The HTTP providers: which one ([`Provider`]), the settings a run builds one from, and
//! the request path they share ([`send`]: POST the typed body, then read the typed reply
//! or its stream of events). Each provider module maps the [`Message`]s to its wire
//! shape and its reply back, with serde structs of its own (Chat Completions' request
//! types are async-openai's).

use std::fmt;
use std::future::ready;
use std::str::FromStr;
use std::time::Duration;

use futures_util::StreamExt;
use reqwest::header::HeaderMap;
use serde::Serialize;
use serde::de::DeserializeOwned;
use toolcall_runtime::Format;

use crate::error::AgentError;
use crate::http::{self, Assembler};
use crate::message::{Message, ModelResponse};
use crate::model::{Model, ModelRequest, ModelStream, once};

mod anthropic;
mod chat;
mod gemini;
mod responses;

/// The model asked for when [`Agent::model`](crate::Agent::model) is not called, on
/// OpenAI's APIs (see [`Provider::default_model`] for the others): the model the
/// official `openai` Python SDK's README uses (2.x, August 2026).
pub const DEFAULT_MODEL: &str = "gpt-5.5";

/// Anthropic's `max_tokens` when [`Agent::max_tokens`](crate::Agent::max_tokens) is not
/// called (the Messages API requires one; it bounds thinking and text together, and
/// Claude Sonnet 5 thinks by default): within every current model's output limit (Sonnet
/// 5 writes up to 128k) and below what the official SDK still sends without streaming
/// (it refuses a request whose `max_tokens` may take over 10 minutes, 21,333 tokens).
pub const ANTHROPIC_MAX_TOKENS: u32 = 16_384;

/// An HTTP API the agent can talk to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Provider {
    /// OpenAI Chat Completions (`POST {base}/chat/completions`), and every compatible
    /// server (Ollama, llama.cpp, vLLM, LM Studio).
    OpenAi,
    /// OpenAI Responses (`POST {base}/responses`), the agent's side of
    /// [`Format::OpenAiResponses`].
    OpenAiResponses,
    /// Anthropic Messages (`POST {base}/messages`).
    Anthropic,
    /// Google Gemini (`POST {base}/models/{model}:generateContent`).
    Gemini,
}

impl Provider {
    /// The old name of [`Provider::OpenAiResponses`], kept for a release.
    #[deprecated(note = "renamed `Provider::OpenAiResponses`, the name `Format` gives it")]
    #[allow(non_upper_case_globals)]
    pub const Responses: Provider = Provider::OpenAiResponses;
}

impl Provider {
    /// Every provider, in a fixed order.
    pub const ALL: [Provider; 4] =
        [Provider::OpenAi, Provider::OpenAiResponses, Provider::Anthropic, Provider::Gemini];

    /// The name used on command lines: `openai`, `responses`, `anthropic`, `gemini`.
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::OpenAiResponses => "responses",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
        }
    }

    /// The model asked for when none is named: the one each provider's official Python
    /// SDK uses in its README and examples (August 2026): `gpt-5.5`, `claude-sonnet-5`,
    /// `gemini-3.5-flash`.
    pub fn default_model(self) -> &'static str {
        match self {
            Provider::OpenAi | Provider::OpenAiResponses => DEFAULT_MODEL,
            Provider::Anthropic => "claude-sonnet-5",
            Provider::Gemini => "gemini-3.5-flash",
        }
    }

    /// The most output tokens a request asks for when
    /// [`Agent::max_tokens`](crate::Agent::max_tokens) is not called: `None` where the
    /// API takes the model's own limit (OpenAI's, Gemini's), [`ANTHROPIC_MAX_TOKENS`] on
    /// Anthropic, which requires one.
    pub fn default_max_tokens(self) -> Option<u32> {
        match self {
            Provider::Anthropic => Some(ANTHROPIC_MAX_TOKENS),
            _ => None,
        }
    }

    /// The environment variable the API key is read from.
    pub fn key_variable(self) -> &'static str {
        match self {
            Provider::OpenAi | Provider::OpenAiResponses => "OPENAI_API_KEY",
            Provider::Anthropic => "ANTHROPIC_API_KEY",
            Provider::Gemini => "GEMINI_API_KEY",
        }
    }

    /// The format of the tool definitions it is sent.
    pub fn format(self) -> Format {
        match self {
            Provider::OpenAi => Format::OpenAi,
            Provider::OpenAiResponses => Format::OpenAiResponses,
            Provider::Anthropic => Format::Anthropic,
            Provider::Gemini => Format::Gemini,
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Provider {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Provider::ALL.into_iter().find(|provider| provider.as_str() == text).ok_or_else(|| {
            format!("unknown provider `{text}`: expected one of openai, responses, anthropic, gemini")
        })
    }
}

/// What an HTTP provider is built from.
#[derive(Clone)]
pub(crate) struct Endpoint {
    pub provider: Provider,
    pub base_url: String,
    pub api_key: Option<String>,
    pub model: String,
    pub timeout: Duration,
    pub max_tokens: Option<u32>,
    pub retries: http::Retries,
    pub prompt_cache: bool,
    pub encrypted_reasoning: bool,
}

impl fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Endpoint")
            .field("provider", &self.provider)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("model", &self.model)
            .field("max_tokens", &self.max_tokens)
            .field("retries", &self.retries)
            .finish_non_exhaustive()
    }
}

/// A provider ready to send: its client, headers and settings.
pub(crate) struct HttpModel {
    client: reqwest::Client,
    headers: HeaderMap,
    base_url: String,
    settings: Endpoint,
}

impl HttpModel {
    pub(crate) fn new(settings: &Endpoint) -> Result<Self, AgentError> {
        let client = http::client(&settings.base_url, settings.timeout)?;
        let key = settings.api_key.as_deref();
        let headers = match settings.provider {
            Provider::OpenAi | Provider::OpenAiResponses => http::headers("authorization", key, &[])?,
            Provider::Anthropic => http::headers("x-api-key", key, &[("anthropic-version", "2023-06-01")])?,
            Provider::Gemini => http::headers("x-goog-api-key", key, &[])?,
        };
        let base_url = settings.base_url.trim_end_matches('/').to_owned();
        Ok(HttpModel { client, headers, base_url, settings: settings.clone() })
    }

    /// `{base_url}/{path}`.
    fn url(&self, path: &str) -> String {
        format!("{}/{path}", self.base_url)
    }
}

impl Model for HttpModel {
    fn request<'a>(&'a self, request: ModelRequest<'a>) -> ModelStream<'a> {
        match self.settings.provider {
            Provider::OpenAi => chat::request(self, request),
            Provider::OpenAiResponses => responses::request(self, request),
            Provider::Anthropic => anthropic::request(self, request),
            Provider::Gemini => gemini::request(self, request),
        }
    }
}

/// POSTs `body` to `url`; reads the reply as `R` (then `read`s it), or, when `stream`,
/// its events through the assembler `start` gives.
fn send<'a, B, R, A>(
    model: &'a HttpModel,
    url: String,
    body: Result<B, AgentError>,
    stream: bool,
    read: impl FnOnce(R) -> Result<ModelResponse, AgentError> + Send + 'a,
    start: impl FnOnce() -> A + Send + 'a,
) -> ModelStream<'a>
where
    B: Serialize,
    R: DeserializeOwned + 'a,
    A: Assembler + 'a,
{
    let body =
        body.and_then(|body| serde_json::to_vec(&body).map_err(|e| AgentError::Request(e.to_string())));
    let reply = async move {
        let response = http::post(&model.client, &url, &model.headers, body?, model.settings.retries).await?;
        if stream {
            Ok(http::assemble(response, start()))
        } else {
            let reply = http::json::<R>(response).await?;
            Ok(once(ready(read(reply))))
        }
    };
    let flat = futures_util::stream::once(reply).map(|opened| match opened {
        Ok(parts) => parts,
        Err(error) => once(ready(Err(error))),
    });
    Box::pin(flat.flatten())
}

/// The system messages' texts, joined; `None` when there are none.
fn system_text(messages: &[Message]) -> Option<String> {
    let texts: Vec<&str> = messages
        .iter()
        .filter_map(|message| match message {
            Message::System { content } => Some(content.as_str()),
            _ => None,
        })
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n\n"))
}

/// A call's arguments as a JSON value (Anthropic's `input`, Gemini's `args`): text that
/// is not a JSON object is sent as an empty object (the model sent it; the tool's error
/// already told it so).
fn arguments_object(arguments: &str) -> serde_json::Value {
    match serde_json::from_str::<serde_json::Value>(arguments) {
        Ok(value @ serde_json::Value::Object(_)) => value,
        _ => serde_json::Value::Object(serde_json::Map::new()),
    }
}

/// The emitted definitions of `format` as JSON values; a toolcall bug when they do not parse.
fn definitions(request: &ModelRequest<'_>, format: Format) -> Result<Vec<serde_json::Value>, AgentError> {
    serde_json::from_str(request.tools.definitions(format))
        .map_err(|e| AgentError::Definitions(e.to_string()))
}
