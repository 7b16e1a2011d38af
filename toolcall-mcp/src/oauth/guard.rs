//! The layer in front of `/mcp` (inside the `Host` check, outside the request function):
//! each request's bearer token is verified; a request without one, or with one refused,
//! gets 401 and its body is never read; a token without the scopes every request needs,
//! 403; a token that could not be checked because the authorization server did not
//! answer, 503 with `Retry-After`. A request let through carries its [`AccessToken`] in its
//! extensions, for the request function and the tool-scope check, and the token's
//! principal as its identity (the owner of its sessions) unless a request function names
//! another. A 401 that the request function returns is given this server's full challenge.

use std::sync::Arc;

use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;

use super::ResourceServer;
use super::token::AccessToken;
use crate::plain::plain;
use crate::request::{Identity, bearer_token};

/// How long a client refused because the authorization server did not answer is told to
/// wait, in seconds.
const UNAVAILABLE_RETRY_AFTER: &str = "5";

/// The request with its verified token (and the token's principal as its identity) in its
/// extensions, or the refusal.
pub(crate) async fn verify_token(server: &ResourceServer, request: Request) -> Result<Request, Response> {
    let (mut parts, body) = request.into_parts();
    if parts.headers.get_all(header::AUTHORIZATION).iter().nth(1).is_some() {
        return Err(closing(server.bad_request("more than one Authorization header")));
    }
    if parts.uri.query().is_some_and(|query| query.split('&').any(|pair| pair.starts_with("access_token="))) {
        return Err(closing(
            server.bad_request("send the access token in the Authorization header, not the URL"),
        ));
    }
    let Some(token) = bearer_token(&parts) else {
        log::info!("{} {}: no bearer token (401)", parts.method, parts.uri);
        return Err(closing(server.unauthorized(None, "Unauthorized: send Authorization: Bearer TOKEN")));
    };
    let access = match server.verify(token).await {
        Ok(access) => access,
        Err(error) if error.is_unavailable() => {
            log::warn!("{} {}: the token could not be checked: {error} (503)", parts.method, parts.uri);
            let mut response =
                plain(StatusCode::SERVICE_UNAVAILABLE, format!("Service Unavailable: {error}"));
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static(UNAVAILABLE_RETRY_AFTER));
            return Err(closing(response));
        }
        Err(error) => {
            log::info!("{} {}: token refused: {error} (401)", parts.method, parts.uri);
            let text = format!("Unauthorized: {error}");
            return Err(closing(server.unauthorized(Some(("invalid_token", &error.to_string())), &text)));
        }
    };
    let lacking = super::scopes::missing(&server.required, &access);
    if !lacking.is_empty() {
        let why = format!("every request needs scope {}", lacking.join(" "));
        log::info!("{} {}: {why} (403)", parts.method, parts.uri);
        return Err(closing(server.insufficient_scope(Some(&access), &server.required, &why)));
    }
    parts.extensions.insert(Identity(access.principal_shared()));
    parts.extensions.insert::<Arc<AccessToken>>(access);
    Ok(Request::from_parts(parts, body))
}

/// `response` with a 401 that does not point at the metadata (the request function's)
/// given this server's full challenge.
pub(crate) fn challenged(server: &ResourceServer, mut response: Response) -> Response {
    if response.status() == StatusCode::UNAUTHORIZED {
        let bare = response
            .headers()
            .get(header::WWW_AUTHENTICATE)
            .and_then(|value| value.to_str().ok())
            .is_none_or(|value| !value.contains("resource_metadata="));
        if bare {
            let challenge =
                server.challenge(Some(("invalid_token", "refused by the server")), &server.scope_to_ask());
            response.headers_mut().insert(header::WWW_AUTHENTICATE, challenge);
        }
    }
    response
}

/// `response`, after which the connection is closed: the request's body was not read.
fn closing(mut response: Response) -> Response {
    response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}
