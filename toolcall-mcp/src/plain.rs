//! Plain-text HTTP answers: what the HTTP layer ([`crate::streamable_http`]) and the OAuth
//! resource server (`crate::oauth`) refuse a request with. Below both, so neither reads
//! the other for it.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

/// A plain-text response.
pub(crate) fn plain(status: StatusCode, text: impl Into<String>) -> Response {
    (status, text.into()).into_response()
}
