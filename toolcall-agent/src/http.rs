//! The one HTTP path every provider takes, over reqwest: the base URL checked, headers
//! built without panicking, a JSON body POSTed with retries (429, 5xx and refused
//! connections, three times: 0.1, 0.2, 0.4 s), any other non-2xx status an
//! [`AgentError::Http`] with the body's error message, a 2xx body decoded into the
//! provider's typed reply, or read as server-sent events and fed to the provider's
//! [`Assembler`].

use std::collections::VecDeque;
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::error::{AgentError, chain, excerpt};
use crate::message::ModelResponse;
use crate::model::{ModelStream, StreamPart};

/// How many times a failed request is sent again.
const RETRIES: u32 = 3;
/// The wait before the first retry; doubled for each next one.
const FIRST_BACKOFF: Duration = Duration::from_millis(100);

/// A client for the endpoint under `base_url`, each request within `timeout`.
pub(crate) fn client(base_url: &str, timeout: Duration) -> Result<reqwest::Client, AgentError> {
    check_url(base_url)?;
    reqwest::Client::builder()
        .timeout(timeout)
        .build()
        .map_err(|e| AgentError::Config(format!("cannot build the HTTP client: {e}")))
}

/// The base URL must be http(s); https only with the `rustls` feature.
fn check_url(base_url: &str) -> Result<(), AgentError> {
    let url = reqwest::Url::parse(base_url)
        .map_err(|e| AgentError::Config(format!("base URL `{base_url}` is not a URL: {e}")))?;
    match url.scheme() {
        "http" => Ok(()),
        "https" if cfg!(feature = "rustls") => Ok(()),
        "https" => Err(AgentError::Config(format!(
            "base URL `{base_url}` is https, and this build has no TLS: enable toolcall-agent's `rustls` feature"
        ))),
        other => Err(AgentError::Config(format!("base URL `{base_url}` is {other}:, not http(s)"))),
    }
}

/// The request headers: JSON, the provider's own, and the key under `key_header`
/// (`authorization` gets `Bearer KEY`) unless there is no key or it is empty.
pub(crate) fn headers(
    key_header: &'static str,
    api_key: Option<&str>,
    extra: &[(&'static str, &'static str)],
) -> Result<HeaderMap, AgentError> {
    let mut headers = HeaderMap::new();
    headers.insert(reqwest::header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    for (name, value) in extra {
        headers.insert(HeaderName::from_static(name), HeaderValue::from_static(value));
    }
    if let Some(key) = api_key.filter(|key| !key.is_empty()) {
        let text = if key_header == "authorization" { format!("Bearer {key}") } else { key.to_owned() };
        let mut value = HeaderValue::from_str(&text)
            .map_err(|_| AgentError::Config("the API key is not a valid HTTP header value".to_owned()))?;
        value.set_sensitive(true);
        headers.insert(HeaderName::from_static(key_header), value);
    }
    Ok(headers)
}

/// POSTs `body` to `url`, retrying 429, 5xx and refused connections; a 2xx response, or
/// the error of the last attempt.
pub(crate) async fn post(
    client: &reqwest::Client,
    url: &str,
    headers: &HeaderMap,
    body: Vec<u8>,
) -> Result<reqwest::Response, AgentError> {
    let mut attempt = 0;
    loop {
        let wait = FIRST_BACKOFF * 2u32.pow(attempt);
        let sent = client.post(url).headers(headers.clone()).body(body.clone()).send().await;
        let retry = attempt < RETRIES;
        attempt += 1;
        match sent {
            Err(error) if retry && error.is_connect() => tokio::time::sleep(wait).await,
            Err(error) => return Err(connection(error)),
            Ok(response) if response.status().is_success() => return Ok(response),
            Ok(response)
                if retry && (response.status().as_u16() == 429 || response.status().is_server_error()) =>
            {
                tokio::time::sleep(wait).await;
            }
            Ok(response) => {
                let status = response.status().as_u16();
                let body = response.bytes().await.map_err(connection)?;
                return Err(AgentError::Http { status, message: error_message(&body) });
            }
        }
    }
}

/// A 2xx body decoded as `T`; a body that is not one is [`AgentError::Malformed`].
pub(crate) async fn json<T: DeserializeOwned>(response: reqwest::Response) -> Result<T, AgentError> {
    let body = response.bytes().await.map_err(connection)?;
    decode(&body)
}

/// `body` decoded as `T`, or [`AgentError::Malformed`] quoting it.
pub(crate) fn decode<T: DeserializeOwned>(body: &[u8]) -> Result<T, AgentError> {
    serde_json::from_slice(body).map_err(|e| AgentError::Malformed {
        reason: e.to_string(),
        body: excerpt(&String::from_utf8_lossy(body)),
    })
}

/// An error body as every provider sends one: `{"error": {"message", "type"|"status",
/// "param", "code"}}` (OpenAI, Anthropic inside `{"type":"error"}`, Gemini).
#[derive(Deserialize)]
struct ErrorBody {
    error: ErrorDetail,
}

#[derive(Deserialize)]
struct ErrorDetail {
    message: String,
    #[serde(rename = "type")]
    kind: Option<String>,
    status: Option<String>,
    param: Option<String>,
    code: Option<serde_json::Value>,
}

/// `type: message (param: p) (code: c)` for an error body (Gemini's `status` for its
/// `type`, a numeric code left out), else the start of the body, else a note that there
/// is none.
pub(crate) fn error_message(body: &[u8]) -> String {
    let Ok(ErrorBody { error }) = serde_json::from_slice::<ErrorBody>(body) else {
        return match excerpt(&String::from_utf8_lossy(body)) {
            text if text.is_empty() => "(empty body)".to_owned(),
            text => text,
        };
    };
    let mut parts = Vec::new();
    if let Some(kind) = error.kind.or(error.status) {
        parts.push(format!("{kind}:"));
    }
    parts.push(error.message);
    if let Some(param) = error.param {
        parts.push(format!("(param: {param})"));
    }
    if let Some(serde_json::Value::String(code)) = error.code {
        parts.push(format!("(code: {code})"));
    }
    excerpt(&parts.join(" "))
}

/// One server-sent event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// Its `event:` name ("" when it has none).
    pub event: String,
    /// Its `data:` lines, joined by newlines.
    pub data: String,
}

/// A provider's stream reader: fed each event, it gives the text delta to report (if
/// any), and at the end of the body the whole reply.
pub(crate) trait Assembler: Send {
    /// Takes one event; the text it adds, if any.
    fn event(&mut self, event: SseEvent) -> Result<Option<String>, AgentError>;
    /// The reply, once the body has ended.
    fn finish(self) -> Result<ModelResponse, AgentError>;
}

/// The events of a streamed body, read as the chunks arrive.
struct Sse {
    response: reqwest::Response,
    parser: Parser,
    ended: bool,
}

impl Sse {
    fn new(response: reqwest::Response) -> Self {
        Sse { response, parser: Parser::default(), ended: false }
    }

    /// The next event; `None` once the body has ended.
    async fn next(&mut self) -> Result<Option<SseEvent>, AgentError> {
        loop {
            if let Some(event) = self.parser.ready.pop_front() {
                return Ok(Some(event));
            }
            if self.ended {
                return Ok(None);
            }
            match self.response.chunk().await.map_err(connection)? {
                Some(chunk) => self.parser.push(&chunk),
                None => {
                    self.ended = true;
                    self.parser.push(b"\n\n");
                }
            }
        }
    }
}

/// Server-sent events out of bytes, however they are split.
#[derive(Default)]
struct Parser {
    buffer: Vec<u8>,
    ready: VecDeque<SseEvent>,
    pending: SseEvent,
}

impl Parser {
    /// Adds bytes, taking every complete line out of the buffer.
    fn push(&mut self, bytes: &[u8]) {
        self.buffer.extend_from_slice(bytes);
        while let Some(end) = self.buffer.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.buffer.drain(..=end).collect();
            let line = line.strip_suffix(b"\n").unwrap_or(&line);
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            self.line(line);
        }
    }

    /// One line: a field, a comment, or the blank line that ends an event.
    fn line(&mut self, line: &[u8]) {
        let line = String::from_utf8_lossy(line);
        if line.is_empty() {
            let event = std::mem::take(&mut self.pending);
            if !event.data.is_empty() {
                self.ready.push_back(event);
            }
            return;
        }
        let (field, value) = line.split_once(':').unwrap_or((&line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "event" => value.clone_into(&mut self.pending.event),
            "data" => {
                if !self.pending.data.is_empty() {
                    self.pending.data.push('\n');
                }
                self.pending.data.push_str(value);
            }
            _ => {}
        }
    }
}

/// A streamed response as a [`ModelStream`]: each text delta the assembler reports,
/// then the reply it assembled.
pub(crate) fn assemble<'a, A: Assembler + 'a>(response: reqwest::Response, assembler: A) -> ModelStream<'a> {
    let state = Some((Sse::new(response), assembler));
    Box::pin(futures_util::stream::unfold(state, |state| async move {
        let (mut sse, mut assembler) = state?;
        loop {
            match sse.next().await {
                Err(error) => return Some((Err(error), None)),
                Ok(None) => return Some((assembler.finish().map(StreamPart::Done), None)),
                Ok(Some(event)) => match assembler.event(event) {
                    Err(error) => return Some((Err(error), None)),
                    Ok(Some(text)) if !text.is_empty() => {
                        return Some((Ok(StreamPart::Text(text)), Some((sse, assembler))));
                    }
                    Ok(_) => {}
                },
            }
        }
    }))
}

/// The error of an exchange that broke off: its message with every cause, and the cause kept.
fn connection(error: reqwest::Error) -> AgentError {
    AgentError::Connection { message: chain(&error), source: crate::error::Cause::new(error) }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMIT: Duration = Duration::from_secs(5);

    #[test]
    fn base_urls_must_be_http() {
        assert!(client("http://127.0.0.1:8080/v1", LIMIT).is_ok());
        let error = client("localhost:8080", LIMIT).unwrap_err().to_string();
        assert!(error.contains("not http(s)"), "{error}");
        let error = client("not a url", LIMIT).unwrap_err().to_string();
        assert!(error.contains("is not a URL"), "{error}");
        let https = client("https://api.openai.com/v1", LIMIT);
        assert_eq!(https.is_ok(), cfg!(feature = "rustls"), "{:?}", https.err());
    }

    #[test]
    fn a_key_that_cannot_be_a_header_is_an_error_not_a_panic() {
        let error = headers("authorization", Some("sk-\nsecret"), &[]).unwrap_err();
        assert_eq!(error, AgentError::Config("the API key is not a valid HTTP header value".into()));
        assert!(!error.to_string().contains("secret"));
    }

    #[test]
    fn no_key_or_an_empty_one_sends_no_key_header() {
        for key in [None, Some("")] {
            let sent = headers("authorization", key, &[]).unwrap();
            assert!(sent.get("authorization").is_none());
        }
        let sent = headers("authorization", Some("sk"), &[]).unwrap();
        assert_eq!(sent["authorization"], "Bearer sk");
        let sent = headers("x-api-key", Some("sk"), &[("anthropic-version", "2023-06-01")]).unwrap();
        assert_eq!(
            (sent["x-api-key"].to_str().unwrap(), sent["anthropic-version"].to_str().unwrap()),
            ("sk", "2023-06-01")
        );
    }

    #[test]
    fn error_bodies_of_every_provider_read_as_one_line() {
        let openai = br#"{"error":{"message":"model `nope` does not exist","type":"invalid_request_error","param":"model","code":null}}"#;
        assert_eq!(
            error_message(openai),
            "invalid_request_error: model `nope` does not exist (param: model)"
        );
        let anthropic = br#"{"type":"error","error":{"type":"not_found_error","message":"model: nope"}}"#;
        assert_eq!(error_message(anthropic), "not_found_error: model: nope");
        let gemini = br#"{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT"}}"#;
        assert_eq!(error_message(gemini), "INVALID_ARGUMENT: API key not valid.");
        assert_eq!(error_message(b"404 page not found\n"), "404 page not found");
        assert_eq!(error_message(b""), "(empty body)");
    }

    #[test]
    fn sse_lines_make_events_across_chunks() {
        let mut parser = Parser::default();
        for chunk in ["event: a\r\nda", "ta: {\"x\":\n", "data: 1}\n\n: comment\n\ndata: \u{e9}\n", "\n"] {
            parser.push(chunk.as_bytes());
        }
        let events: Vec<SseEvent> = parser.ready.into_iter().collect();
        assert_eq!(
            events,
            [
                SseEvent { event: "a".into(), data: "{\"x\":\n1}".into() },
                SseEvent { event: String::new(), data: "\u{e9}".into() }
            ]
        );
    }
}
