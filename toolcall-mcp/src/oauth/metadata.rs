//! What a client is told: the protected-resource metadata (RFC 9728) at
//! `/.well-known/oauth-protected-resource` and its path-suffixed form
//! (`/.well-known/oauth-protected-resource/mcp` for a resource `https://host/mcp`), naming
//! the resource, its authorization server and its scopes; and the `WWW-Authenticate`
//! challenges (RFC 6750 §3) of refusals, each pointing at that document
//! (`resource_metadata`, RFC 9728 §5.1) and naming the scopes to ask for.

use std::sync::Arc;

use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};

use super::ResourceServer;
use super::token::AccessToken;
use crate::plain::plain;

/// `text` as a quoted-string parameter value of a challenge may hold it (RFC 6750 §3:
/// `%x20-21 / %x23-5B / %x5D-7E`): quotes and backslashes become `'` and `/`, anything
/// else outside printable ASCII `?`; at most 200 characters.
fn quotable(text: &str) -> String {
    text.chars()
        .take(200)
        .map(|c| match c {
            '"' => '\'',
            '\\' => '/',
            ' '..='~' => c,
            _ => '?',
        })
        .collect()
}

impl ResourceServer {
    /// The protected-resource metadata document (RFC 9728 §2).
    ///
    /// ```
    /// let server = toolcall_mcp::oauth::ResourceServer::new("https://as.example.com", "https://mcp.example.com/mcp")?
    ///     .required_scopes(["notes:read"])
    ///     .tool_scopes("add_note", ["notes:write"]);
    /// let document = server.metadata();
    /// assert_eq!(document["resource"], "https://mcp.example.com/mcp");
    /// assert_eq!(document["authorization_servers"][0], "https://as.example.com");
    /// assert_eq!(document["scopes_supported"], serde_json::json!(["notes:read", "notes:write"]));
    /// assert_eq!(server.metadata_url(), "https://mcp.example.com/.well-known/oauth-protected-resource/mcp");
    /// # Ok::<(), toolcall_mcp::oauth::ConfigError>(())
    /// ```
    pub fn metadata(&self) -> Value {
        let mut document = json!({
            "resource": self.resource,
            "authorization_servers": [self.issuer],
            "scopes_supported": self.scopes_supported(),
            "bearer_methods_supported": ["header"],
        });
        if let Some(name) = &self.resource_name {
            document["resource_name"] = json!(name);
        }
        if let Some(url) = &self.resource_documentation {
            document["resource_documentation"] = json!(url);
        }
        document
    }

    /// The `WWW-Authenticate` value of a refusal: `error` and its description when there
    /// is one, the scopes to ask for when there are any, and where the metadata is.
    pub(crate) fn challenge(&self, error: Option<(&str, &str)>, scope: &str) -> HeaderValue {
        let mut parts = Vec::new();
        if let Some((code, description)) = error {
            parts.push(format!("error=\"{code}\""));
            parts.push(format!("error_description=\"{}\"", quotable(description)));
        }
        if !scope.is_empty() {
            parts.push(format!("scope=\"{}\"", quotable(scope)));
        }
        parts.push(format!("resource_metadata=\"{}\"", quotable(&self.metadata_url)));
        HeaderValue::from_str(&format!("Bearer {}", parts.join(", ")))
            .unwrap_or_else(|_| HeaderValue::from_static("Bearer"))
    }

    /// The scope a 401 asks for: the scopes every request needs, else every scope the
    /// server knows.
    pub(crate) fn scope_to_ask(&self) -> String {
        if self.required.is_empty() { self.scopes_supported().join(" ") } else { self.required.join(" ") }
    }

    /// 401: no token (no error code, RFC 6750 §3.1), or `error` (`invalid_token`).
    pub(crate) fn unauthorized(&self, error: Option<(&str, &str)>, text: &str) -> Response {
        let mut response = plain(StatusCode::UNAUTHORIZED, text);
        response.headers_mut().insert(header::WWW_AUTHENTICATE, self.challenge(error, &self.scope_to_ask()));
        response
    }

    /// 403 `insufficient_scope`: `needed` (and what the token has) is the scope to ask for.
    pub(crate) fn insufficient_scope(
        &self,
        token: Option<&AccessToken>,
        needed: &[String],
        why: &str,
    ) -> Response {
        let scope = super::scopes::step_up(self, token, needed);
        let mut response = plain(StatusCode::FORBIDDEN, format!("Forbidden: {why}"));
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, self.challenge(Some(("insufficient_scope", why)), &scope));
        response
    }

    /// 400 `invalid_request`.
    pub(crate) fn bad_request(&self, why: &str) -> Response {
        let mut response = plain(StatusCode::BAD_REQUEST, format!("Bad Request: {why}"));
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            self.challenge(Some(("invalid_request", why)), &self.scope_to_ask()),
        );
        response
    }
}

/// The metadata document's routes: the root form and the resource's path-suffixed form,
/// each `GET` (and `OPTIONS` for a browser's preflight), readable from any origin.
pub(crate) fn routes(server: &Arc<ResourceServer>) -> axum::Router {
    let document = Arc::new(server.metadata().to_string());
    let serve = move |method: Method| {
        let document = Arc::clone(&document);
        async move {
            let mut response = if method == Method::OPTIONS {
                StatusCode::NO_CONTENT.into_response()
            } else {
                ([(header::CONTENT_TYPE, "application/json")], document.as_str().to_owned()).into_response()
            };
            let headers = response.headers_mut();
            headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
            headers.insert(header::ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static("GET, OPTIONS"));
            headers.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, HeaderValue::from_static("*"));
            headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=300"));
            response
        }
    };
    let mut router = axum::Router::new();
    for path in server.metadata_paths() {
        router = router.route(&path, get(serve.clone()).options(serve.clone()));
    }
    router
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn challenges_name_the_metadata_and_the_scopes() {
        let server = ResourceServer::new("https://as.example", "https://mcp.example/mcp")
            .unwrap()
            .required_scopes(["notes:read"])
            .tool_scopes("add_note", ["notes:write"]);
        let none = server.challenge(None, &server.scope_to_ask());
        assert_eq!(
            none,
            r#"Bearer scope="notes:read", resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp""#
        );
        let invalid = server.challenge(Some(("invalid_token", "a \"quoted\" \\ é")), "");
        assert_eq!(
            invalid,
            r#"Bearer error="invalid_token", error_description="a 'quoted' / ?", resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp""#
        );
        let open = ResourceServer::new("https://as.example", "https://mcp.example")
            .unwrap()
            .supported_scopes(["a", "b"]);
        assert_eq!(open.scope_to_ask(), "a b", "no required scope: every scope");
        assert_eq!(open.metadata_url(), "https://mcp.example/.well-known/oauth-protected-resource");
    }
}
