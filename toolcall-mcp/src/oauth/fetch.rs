//! Asking the authorization server: its discovery document, its keys and its
//! introspection endpoint, over HTTPS (plain HTTP only to a loopback host, for development
//! and tests), each answer within a time limit and a size limit, never following a
//! redirect (an answer is from the URL asked, or it is an error).

use std::net::IpAddr;
use std::time::Duration;

use reqwest::Url;
use serde::de::DeserializeOwned;

/// One reqwest client with the server's time limit, and the largest answer read.
pub(crate) struct Fetcher {
    client: reqwest::Client,
    timeout: Duration,
    max_bytes: usize,
}

impl Fetcher {
    /// A client whose every exchange (connecting, sending, reading the whole answer) ends
    /// within `timeout`, and which reads at most `max_bytes` of an answer.
    pub(crate) fn new(timeout: Duration, max_bytes: usize) -> Result<Self, String> {
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("toolcall-mcp/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|error| format!("cannot make an HTTP client: {error}"))?;
        Ok(Fetcher { client, timeout, max_bytes })
    }

    /// The client, to build a request with.
    pub(crate) fn client(&self) -> &reqwest::Client {
        &self.client
    }

    /// `GET url` and its JSON answer, which must be 200.
    pub(crate) async fn get_json<T: DeserializeOwned>(&self, url: &Url) -> Result<T, String> {
        let request = self.client.get(url.clone()).header(reqwest::header::ACCEPT, "application/json");
        let (status, body) = self.send(request).await.map_err(|why| format!("{url}: {why}"))?;
        if status != reqwest::StatusCode::OK {
            return Err(format!("{url}: HTTP {status}"));
        }
        serde_json::from_slice(&body).map_err(|error| format!("{url}: not the JSON expected: {error}"))
    }

    /// Sends `request`; its status and body, read within the limits.
    pub(crate) async fn send(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<(reqwest::StatusCode, Vec<u8>), String> {
        let exchange = async {
            let response = request.send().await.map_err(|error| describe(&error))?;
            let status = response.status();
            Ok((status, read_bounded(response, self.max_bytes).await?))
        };
        // reqwest's own limit covers the whole exchange too; this one holds whatever it does.
        match tokio::time::timeout(self.timeout + Duration::from_millis(100), exchange).await {
            Ok(answer) => answer,
            Err(_) => Err(format!("no answer within {} ms", self.timeout.as_millis())),
        }
    }
}

/// The body of `response`, refused past `max` bytes (declared or read).
async fn read_bounded(mut response: reqwest::Response, max: usize) -> Result<Vec<u8>, String> {
    let too_large = || format!("the answer is larger than {max} bytes");
    if response.content_length().is_some_and(|length| length > max as u64) {
        return Err(too_large());
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|error| describe(&error))? {
        if body.len() + chunk.len() > max {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// A reqwest error in a few words (its `Display` alone says only "error sending request").
fn describe(error: &reqwest::Error) -> String {
    if error.is_timeout() {
        return "no answer in time".to_owned();
    }
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// Whether `url` may be asked: HTTPS, or HTTP to a loopback host.
pub(crate) fn check_url(url: &Url, what: &str) -> Result<(), String> {
    if url.cannot_be_a_base() || url.host_str().is_none() {
        return Err(format!("{what} `{url}` is not an http(s) URL with a host"));
    }
    match url.scheme() {
        "https" => Ok(()),
        "http" if is_loopback(url) => Ok(()),
        "http" => Err(format!("{what} `{url}` must use https (plain http only to a loopback host)")),
        other => Err(format!("{what} `{url}`: scheme {other} is not http(s)")),
    }
}

/// Whether `url`'s host is `localhost` or a loopback address.
pub(crate) fn is_loopback(url: &Url) -> bool {
    let Some(host) = url.host_str() else { return false };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost") || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// `text` as `application/x-www-form-urlencoded` wants it: unreserved characters as they
/// are, every other byte `%XX`.
pub(crate) fn form_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn https_or_loopback_http_only() {
        let check = |url: &str| check_url(&Url::parse(url).unwrap(), "issuer");
        assert!(check("https://as.example.com").is_ok());
        assert!(check("http://127.0.0.1:3000").is_ok());
        assert!(check("http://localhost/x").is_ok());
        assert!(check("http://[::1]:1").is_ok());
        assert!(check("http://as.example.com").is_err());
        assert!(check("http://127.0.0.1.evil.example").is_err());
        assert!(check("ftp://as.example.com").is_err());
        assert!(check("mailto:a@b").is_err());
    }

    #[test]
    fn form_encoding() {
        assert_eq!(form_encode("a.b-c_d~e"), "a.b-c_d~e");
        assert_eq!(form_encode("a b+c/=&é"), "a%20b%2Bc%2F%3D%26%C3%A9");
    }
}
