//! The async-openai client an [`Agent`](crate::Agent) talks through. Takes the base URL,
//! the API key and the time limit; gives a `Client<OpenAIConfig>` whose tower stack is
//! async-openai's own retry layer over reqwest, plus one layer of ours outside it that
//! turns every non-2xx response into an error carrying its status.
//!
//! Without that layer a 4xx whose body is not OpenAI's `{"error": {..}}` shape (a
//! proxy's "404 page not found" when the base URL lacks `/v1`) reaches the caller as a
//! deserialization error with no status at all.

use std::time::Duration;

use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_openai::error::{ApiError, ApiErrorResponse, OpenAIError, WrappedError};
use async_openai::middleware::ReqwestService;
use async_openai::middleware::retry::OpenAIRetryLayer;
use reqwest::header::HeaderValue;

use crate::error::{AgentError, excerpt};

/// A client for the Chat Completions endpoint under `base_url` (`http://host:port/v1`),
/// sending `api_key` (if any) as a bearer token and nothing else from the environment:
/// async-openai would otherwise also send `OPENAI_ORG_ID` and `OPENAI_PROJECT_ID`, or
/// `OPENAI_ADMIN_KEY` in place of a missing key, to whatever server the URL names.
pub(crate) fn client(
    base_url: &str,
    api_key: Option<&str>,
    timeout: Duration,
) -> Result<Client<OpenAIConfig>, AgentError> {
    check_url(base_url)?;
    let api_key = api_key.unwrap_or_default();
    // async-openai builds this header with `unwrap`: check it here so a bad key is an error.
    if HeaderValue::from_str(&format!("Bearer {api_key}")).is_err() {
        return Err(AgentError::Config("the API key is not a valid HTTP header value".to_owned()));
    }
    let config = OpenAIConfig::new()
        .with_api_base(base_url.trim_end_matches('/'))
        .with_api_key(api_key)
        .with_org_id("")
        .with_project_id("");
    let http = reqwest::Client::builder()
        .timeout(timeout)
        .build()
        .map_err(|e| AgentError::Config(format!("cannot build the HTTP client: {e}")))?;
    let service = tower::ServiceBuilder::new()
        .and_then(status_error)
        .layer(OpenAIRetryLayer::default())
        .service(ReqwestService::new(http.clone()));
    Ok(Client::build(http, config).with_http_service(service))
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

/// A 2xx response as it is; any other becomes `ApiError` with its status, the message of
/// an OpenAI-shaped error body, else the start of the body.
async fn status_error(response: reqwest::Response) -> Result<reqwest::Response, OpenAIError> {
    let status_code = response.status();
    if status_code.is_success() {
        return Ok(response);
    }
    let body = response.bytes().await?;
    let api_error = match serde_json::from_slice::<WrappedError>(&body) {
        Ok(wrapped) => wrapped.error,
        Err(_) => ApiError { message: body_text(&body), ..ApiError::default() },
    };
    Err(OpenAIError::ApiError(ApiErrorResponse { status_code, api_error }))
}

/// The start of a body that is not an OpenAI error, or a note that there is none.
fn body_text(body: &[u8]) -> String {
    match excerpt(&String::from_utf8_lossy(body)) {
        text if text.is_empty() => "(empty body)".to_owned(),
        text => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMIT: Duration = Duration::from_secs(5);

    #[test]
    fn base_urls_must_be_http() {
        assert!(client("http://127.0.0.1:8080/v1", None, LIMIT).is_ok());
        let error = client("localhost:8080", None, LIMIT).unwrap_err().to_string();
        assert!(error.contains("not http(s)"), "{error}");
        let error = client("not a url", None, LIMIT).unwrap_err().to_string();
        assert!(error.contains("is not a URL"), "{error}");
        let https = client("https://api.openai.com/v1", None, LIMIT);
        assert_eq!(https.is_ok(), cfg!(feature = "rustls"), "{:?}", https.err());
    }

    #[test]
    fn a_key_that_cannot_be_a_header_is_an_error_not_a_panic() {
        let error = client("http://127.0.0.1:8080/v1", Some("sk-\nsecret"), LIMIT).unwrap_err();
        assert_eq!(error, AgentError::Config("the API key is not a valid HTTP header value".into()));
        assert!(!error.to_string().contains("secret"));
    }
}
