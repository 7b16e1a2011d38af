//! The request log: one event per HTTP request on target
//! [`super::REQUEST_LOG_TARGET`], when its response's body has been
//! sent (or dropped: the client went away), so a streamed response counts whole.
//!
//! The outermost layer of the HTTP router ([`request_log`]) puts an [`HttpNote`] in the
//! request's extensions; the MCP handler, which alone knows the request's MCP method,
//! tool and caller, fills it in ([`super::Served`]). A request refused before it reaches
//! the handler (401, 413, 429...) is logged with what the head says.

use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Instant;

use axum::body::Body;
use axum::extract::Request;
use axum::response::Response;
use http::Method;
use http::request::Parts;

use super::REQUEST_LOG_TARGET;
use crate::request::{Arrived, Identity};

/// What the handler learned about one HTTP request, for its log line. Shared: the layer
/// that logs holds one handle, the request's extensions (and so the handler) another.
#[derive(Clone, Debug, Default)]
pub(crate) struct HttpNote(Arc<Mutex<Noted>>);

#[derive(Debug, Default)]
struct Noted {
    method: Option<&'static str>,
    tool: Option<String>,
    user: Option<Arc<str>>,
    error: Option<String>,
}

impl HttpNote {
    fn with(&self, change: impl FnOnce(&mut Noted)) {
        change(&mut self.0.lock().unwrap_or_else(PoisonError::into_inner));
    }

    /// The request's MCP method, and its caller's identity from its head's extensions.
    pub(crate) fn method(&self, method: &'static str, parts: Option<&Parts>) {
        let user = parts
            .and_then(|parts| parts.extensions.get::<Identity>())
            .filter(|identity| !identity.0.is_empty())
            .map(|identity| Arc::clone(&identity.0));
        self.with(|noted| {
            noted.method.get_or_insert(method);
            if noted.user.is_none() {
                noted.user = user;
            }
        });
    }

    /// The tool a `tools/call` names (already cut to a sane length).
    pub(crate) fn tool(&self, name: &str) {
        self.with(|noted| {
            if noted.tool.is_none() {
                noted.tool = Some(name.to_owned());
            }
        });
    }

    /// How the request failed (`error.type`).
    pub(crate) fn error(&self, kind: &str) {
        self.with(|noted| {
            if noted.error.is_none() {
                noted.error = Some(kind.to_owned());
            }
        });
    }
}

/// The log line of one request, written when dropped.
struct LogLine {
    note: HttpNote,
    method: Method,
    path: String,
    status: u16,
    started: Instant,
    /// The client's address (behind trusted proxies, the one they named).
    client: Option<std::net::IpAddr>,
}

impl Drop for LogLine {
    fn drop(&mut self) {
        let noted = std::mem::take(&mut *self.note.0.lock().unwrap_or_else(PoisonError::into_inner));
        let millis = self.started.elapsed().as_secs_f64() * 1000.0;
        let (method, path, status) = (self.method.as_str(), self.path.as_str(), self.status);
        let mcp_method = noted.method.unwrap_or("-");
        let tool = noted.tool.as_deref().unwrap_or("-");
        let error = noted.error.as_deref().unwrap_or("-");
        let user = noted.user.as_deref().unwrap_or("-");
        let client = self.client.map_or_else(|| "-".to_owned(), |client| client.to_string());
        let duration_ms = (millis * 1000.0).round() / 1000.0;
        tracing::info!(
            target: REQUEST_LOG_TARGET,
            {
                "http.request.method" = method,
                "url.path" = path,
                "http.response.status_code" = status,
                "mcp.method.name" = mcp_method,
                "gen_ai.tool.name" = tool,
                "error.type" = error,
                "user.id" = user,
                "client.address" = client.as_str(),
                "duration_ms" = duration_ms,
            },
            "request"
        );
    }
}

/// The response body of a logged request: the log line goes when it is dropped.
struct Logged {
    inner: Body,
    _line: LogLine,
}

impl http_body::Body for Logged {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// The request-log layer (outermost): when the log's target is enabled, notes the
/// request and logs it once its response is over; otherwise passes it on untouched.
pub(crate) fn request_log<F: std::future::Future<Output = Response>>(
    mut request: Request,
    next: impl FnOnce(Request) -> F,
) -> impl std::future::Future<Output = Response> {
    async move {
        if !tracing::enabled!(target: REQUEST_LOG_TARGET, tracing::Level::INFO) {
            return next(request).await;
        }
        let started = request.extensions().get::<Arrived>().map_or_else(Instant::now, |arrived| arrived.at);
        let note = HttpNote::default();
        request.extensions_mut().insert(note.clone());
        let method = request.method().clone();
        let path = crate::error::cut(request.uri().path(), 200).into_owned();
        let client = crate::request::client_ip(request.extensions());
        let response = next(request).await;
        let status = response.status().as_u16();
        let line = LogLine { note, method, path, status, started, client };
        response.map(|inner| Body::new(Logged { inner, _line: line }))
    }
}
