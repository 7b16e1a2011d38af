//! The one HTTP path every provider takes, over reqwest: the base URL checked, headers
//! built without panicking, a JSON body POSTed with retries (refused connections, 408,
//! 409, 429 and 5xx, three times unless set, after the wait the server asks for with
//! `Retry-After`, `retry-after-ms` or its rate-limit headers, else 0.1, 0.2, 0.4 s..
//! up to 8 s, with jitter), any other non-2xx status an
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

/// How many times a failed request is sent again when
/// [`Agent::max_retries`](crate::Agent::max_retries) is not called.
pub const DEFAULT_RETRIES: u32 = 3;
/// The longest wait a server may ask for (`Retry-After`, rate-limit resets) that the
/// agent honours when [`Agent::max_retry_wait`](crate::Agent::max_retry_wait) is not
/// called.
pub const DEFAULT_MAX_RETRY_WAIT: Duration = Duration::from_secs(60);
/// The wait before the first retry when the server says nothing; doubled for each next
/// one, up to [`MAX_BACKOFF`], less up to a quarter at random.
const FIRST_BACKOFF: Duration = Duration::from_millis(100);
/// The longest wait between retries when the server says nothing.
const MAX_BACKOFF: Duration = Duration::from_secs(8);

/// How a request is retried.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Retries {
    /// How many times it is sent again.
    pub(crate) times: u32,
    /// The longest wait the server may ask for.
    pub(crate) max_wait: Duration,
}

impl Default for Retries {
    fn default() -> Self {
        Retries { times: DEFAULT_RETRIES, max_wait: DEFAULT_MAX_RETRY_WAIT }
    }
}

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

/// POSTs `body` to `url`, retrying refused connections and the statuses worth another
/// try (408, 409, 429, 5xx, or any the server marks `x-should-retry: true`; never one it
/// marks `false`), after the wait the server asks for ([`server_wait`]) or a capped
/// exponential backoff; a 2xx response, or the error of the last attempt. A wait past
/// `retries.max_wait` is not waited: the error is [`AgentError::RetryAfter`] at once.
pub(crate) async fn post(
    client: &reqwest::Client,
    url: &str,
    headers: &HeaderMap,
    body: Vec<u8>,
    retries: Retries,
) -> Result<reqwest::Response, AgentError> {
    // Feature `otel`: the current span's (the request's `chat` span's) trace context.
    #[cfg(feature = "otel")]
    let headers = &crate::trace_context::with_context(headers);
    let mut attempt = 0;
    loop {
        let backoff = backoff(attempt);
        let sent = client.post(url).headers(headers.clone()).body(body.clone()).send().await;
        let again = attempt < retries.times;
        attempt += 1;
        let response = match sent {
            Err(error) if again && error.is_connect() => {
                tokio::time::sleep(backoff).await;
                continue;
            }
            Err(error) => return Err(connection(error)),
            Ok(response) if response.status().is_success() => return Ok(response),
            Ok(response) => response,
        };
        let status = response.status().as_u16();
        let wait = match retryable(status, response.headers()) {
            true => server_wait(status, response.headers(), std::time::SystemTime::now()),
            false => None,
        };
        match wait {
            Some(wait) if wait > retries.max_wait && again => {
                let body = response.bytes().await.map_err(connection)?;
                return Err(AgentError::RetryAfter { status, message: error_message(&body), wait });
            }
            Some(wait) if again => tokio::time::sleep(if wait.is_zero() { backoff } else { wait }).await,
            None if again && retryable(status, response.headers()) => tokio::time::sleep(backoff).await,
            _ => {
                let body = response.bytes().await.map_err(connection)?;
                return Err(AgentError::Http { status, message: error_message(&body) });
            }
        }
    }
}

/// Whether a status is worth another try: the server's `x-should-retry` when it says,
/// else 408, 409, 429 and 5xx (what OpenAI's and Anthropic's SDKs retry).
fn retryable(status: u16, headers: &HeaderMap) -> bool {
    match headers.get("x-should-retry").and_then(|v| v.to_str().ok()) {
        Some("true") => true,
        Some("false") => false,
        _ => matches!(status, 408 | 409 | 429) || status >= 500,
    }
}

/// The wait before retry `attempt` (from 0) when the server asks for none: 0.1 s doubled
/// each time, at most [`MAX_BACKOFF`], less up to a quarter (jitter, so clients that
/// failed together do not retry together).
fn backoff(attempt: u32) -> Duration {
    let full = FIRST_BACKOFF.saturating_mul(2u32.saturating_pow(attempt)).min(MAX_BACKOFF);
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    full.mul_f64(1.0 - f64::from(nanos % 1000) / 4000.0)
}

/// The wait the server asks for, as of `now`: `retry-after-ms` (milliseconds),
/// `retry-after` (seconds, or an HTTP date), and on a 429 without them the reset of each
/// rate limit the response says is used up (OpenAI's `x-ratelimit-remaining-*` at 0 with
/// `x-ratelimit-reset-*` durations such as `6m0s`; Anthropic's
/// `anthropic-ratelimit-*-remaining` at 0 with `*-reset` timestamps), the latest of them.
/// `None` when it says nothing usable.
pub(crate) fn server_wait(status: u16, headers: &HeaderMap, now: std::time::SystemTime) -> Option<Duration> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::trim);
    if let Some(ms) = header("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        return seconds(ms / 1000.0);
    }
    if let Some(after) = header("retry-after") {
        return match after.parse::<f64>() {
            Ok(secs) => seconds(secs),
            Err(_) => Some(until(parse_http_date(after)?, now)),
        };
    }
    if status != 429 {
        return None;
    }
    let mut waits = Vec::new();
    for limit in ["requests", "tokens"] {
        if header(&format!("x-ratelimit-remaining-{limit}")) == Some("0") {
            waits.extend(header(&format!("x-ratelimit-reset-{limit}")).and_then(parse_go_duration));
        }
    }
    for limit in ["requests", "tokens", "input-tokens", "output-tokens"] {
        if header(&format!("anthropic-ratelimit-{limit}-remaining")) == Some("0") {
            let reset = header(&format!("anthropic-ratelimit-{limit}-reset")).and_then(parse_rfc3339);
            waits.extend(reset.map(|at| until(at, now)));
        }
    }
    waits.into_iter().max()
}

/// A wait of `secs` seconds; `None` for a negative or non-finite one.
fn seconds(secs: f64) -> Option<Duration> {
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(1e9)))
}

/// The time from `now` to `at` (zero when it has passed).
fn until(at: std::time::SystemTime, now: std::time::SystemTime) -> Duration {
    at.duration_since(now).unwrap_or(Duration::ZERO)
}

/// A duration as OpenAI writes rate-limit resets: `1s`, `6m0s`, `1h2m3.5s`, `20ms`.
fn parse_go_duration(text: &str) -> Option<Duration> {
    let mut total = 0.0;
    let mut rest = text;
    if rest.is_empty() {
        return None;
    }
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
        let value: f64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let unit = rest.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(rest.len());
        let scale = match &rest[..unit] {
            "h" => 3600.0,
            "m" => 60.0,
            "s" => 1.0,
            "ms" => 0.001,
            "us" | "µs" => 0.000_001,
            "ns" => 0.000_000_001,
            _ => return None,
        };
        total += value * scale;
        rest = &rest[unit..];
    }
    seconds(total)
}

/// An HTTP date (`Sun, 06 Nov 1994 08:49:37 GMT`, the IMF-fixdate `Retry-After` takes).
fn parse_http_date(text: &str) -> Option<std::time::SystemTime> {
    let mut parts = text.split_whitespace();
    let _weekday = parts.next()?;
    let day: u32 = parts.next()?.parse().ok()?;
    let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        .iter()
        .position(|m| Some(*m) == parts.clone().next())? as u32
        + 1;
    parts.next();
    let year: i64 = parts.next()?.parse().ok()?;
    let mut clock = parts.next()?.split(':').map(|n| n.parse::<u32>().ok());
    let (h, m, s) = (clock.next()??, clock.next()??, clock.next()??);
    (parts.next()? == "GMT").then_some(())?;
    instant(year, month, day, h, m, f64::from(s))
}

/// An RFC 3339 timestamp in UTC (`2026-01-01T00:00:30Z`, fractions allowed), as
/// Anthropic writes rate-limit resets.
fn parse_rfc3339(text: &str) -> Option<std::time::SystemTime> {
    let text = text.strip_suffix('Z').or_else(|| text.strip_suffix("+00:00"))?;
    let (date, time) = text.split_once(['T', 't'])?;
    let mut date = date.split('-').map(|n| n.parse::<i64>().ok());
    let (year, month, day) = (date.next()??, date.next()??, date.next()??);
    let mut time = time.split(':');
    let (h, m) = (time.next()?.parse().ok()?, time.next()?.parse().ok()?);
    let s: f64 = time.next()?.parse().ok()?;
    instant(year, u32::try_from(month).ok()?, u32::try_from(day).ok()?, h, m, s)
}

/// The instant of a UTC date and time; `None` when out of range.
fn instant(year: i64, month: u32, day: u32, h: u32, m: u32, s: f64) -> Option<std::time::SystemTime> {
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || h > 23 || m > 59 || !(0.0..61.0).contains(&s)
    {
        return None;
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (i64::from(month) + 9) % 12;
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + i64::from(h) * 3600 + i64::from(m) * 60;
    let secs = u64::try_from(secs).ok()?;
    std::time::UNIX_EPOCH.checked_add(Duration::from_secs(secs) + Duration::from_secs_f64(s))
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
    fn servers_say_how_long_to_wait_in_every_header_they_use() {
        let now = std::time::UNIX_EPOCH + Duration::from_secs(784_111_777); // Sun, 06 Nov 1994 08:49:37 GMT
        let wait = |status: u16, pairs: &[(&'static str, &str)]| {
            let mut headers = HeaderMap::new();
            for (name, value) in pairs {
                headers.insert(HeaderName::from_static(name), HeaderValue::from_str(value).unwrap());
            }
            server_wait(status, &headers, now)
        };
        assert_eq!(wait(429, &[("retry-after", "3")]), Some(Duration::from_secs(3)));
        assert_eq!(wait(503, &[("retry-after", "1.5")]), Some(Duration::from_millis(1500)));
        assert_eq!(
            wait(429, &[("retry-after-ms", "250"), ("retry-after", "9")]),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            wait(429, &[("retry-after", "Sun, 06 Nov 1994 08:49:47 GMT")]),
            Some(Duration::from_secs(10))
        );
        assert_eq!(wait(429, &[("retry-after", "Sun, 06 Nov 1994 08:00:00 GMT")]), Some(Duration::ZERO));
        assert_eq!(wait(429, &[("retry-after", "soon")]), None);
        assert_eq!(wait(429, &[("retry-after", "-1")]), None);
        let openai = [
            ("x-ratelimit-remaining-requests", "0"),
            ("x-ratelimit-reset-requests", "1m2.5s"),
            ("x-ratelimit-remaining-tokens", "100"),
            ("x-ratelimit-reset-tokens", "6m0s"),
        ];
        assert_eq!(wait(429, &openai), Some(Duration::from_millis(62_500)));
        assert_eq!(wait(500, &openai), None, "rate-limit resets only explain a 429");
        let anthropic = [
            ("anthropic-ratelimit-input-tokens-remaining", "0"),
            ("anthropic-ratelimit-input-tokens-reset", "1994-11-06T08:50:07Z"),
            ("anthropic-ratelimit-requests-remaining", "0"),
            ("anthropic-ratelimit-requests-reset", "1994-11-06T08:49:40.5Z"),
        ];
        assert_eq!(wait(429, &anthropic), Some(Duration::from_secs(30)));
        assert_eq!(parse_go_duration("20ms"), Some(Duration::from_millis(20)));
        assert_eq!(parse_go_duration("1h"), Some(Duration::from_secs(3600)));
        assert_eq!(parse_go_duration("5x"), None);
        assert_eq!(
            parse_rfc3339("2000-02-29T00:00:00Z"),
            Some(std::time::UNIX_EPOCH + Duration::from_secs(951_782_400))
        );
        assert_eq!(parse_rfc3339("2000-13-01T00:00:00Z"), None);
    }

    #[test]
    fn backoff_doubles_up_to_its_cap_with_at_most_a_quarter_off() {
        for (attempt, full) in [(0, 100), (1, 200), (3, 800), (7, 8_000), (40, 8_000)] {
            let wait = backoff(attempt);
            let full = Duration::from_millis(full);
            assert!(wait <= full && wait >= full.mul_f64(0.75), "{attempt}: {wait:?}");
        }
    }

    #[test]
    fn statuses_worth_a_retry_and_the_servers_say() {
        let mut headers = HeaderMap::new();
        assert!([408, 409, 429, 500, 503].iter().all(|s| retryable(*s, &headers)));
        assert!(![400, 401, 404, 422].iter().any(|s| retryable(*s, &headers)));
        headers.insert("x-should-retry", HeaderValue::from_static("false"));
        assert!(!retryable(503, &headers));
        headers.insert("x-should-retry", HeaderValue::from_static("true"));
        assert!(retryable(400, &headers));
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
