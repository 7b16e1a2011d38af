//! Opaque access tokens, through the authorization server's introspection endpoint
//! (RFC 7662): `POST token=...&token_type_hint=access_token` with this server's client
//! credentials (HTTP Basic, `client_secret_basic`). The answer must say `active: true`;
//! then, as for a JWT, its `aud` must name this resource, its `iss` (when given) the
//! issuer, and `exp`/`nbf` (when given) must hold. Answers are cached briefly (a
//! revoked token is refused again within that time), refusals too.

use reqwest::Url;
use serde_json::{Map, Value};

use super::discovery::same_issuer;
use super::fetch::{Fetcher, form_encode};
use super::token::{TokenError, now_secs};

/// This resource server's client credentials at the introspection endpoint.
#[derive(Clone)]
pub(crate) struct Credentials {
    pub(crate) client_id: String,
    pub(crate) client_secret: String,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials").field("client_id", &self.client_id).finish_non_exhaustive()
    }
}

/// What an introspection answer must satisfy.
pub(crate) struct Expected<'a> {
    pub(crate) issuer: &'a str,
    pub(crate) audiences: &'a [String],
    pub(crate) leeway: u64,
}

/// Asks `endpoint` about `token`; the answer's claims if the token is active and for this
/// resource.
pub(crate) async fn introspect(
    fetcher: &Fetcher,
    endpoint: &Url,
    credentials: &Credentials,
    token: &str,
    expected: &Expected<'_>,
) -> Result<Map<String, Value>, TokenError> {
    let request = fetcher
        .client()
        .post(endpoint.clone())
        .basic_auth(form_encode(&credentials.client_id), Some(form_encode(&credentials.client_secret)))
        .header(reqwest::header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .header(reqwest::header::ACCEPT, "application/json")
        .body(format!("token={}&token_type_hint=access_token", form_encode(token)));
    let (status, body) =
        fetcher.send(request).await.map_err(|why| TokenError::Unavailable(format!("{endpoint}: {why}")))?;
    if status != reqwest::StatusCode::OK {
        // 401 here is this server's credentials, not the caller's token.
        return Err(TokenError::Unavailable(format!("{endpoint}: HTTP {status}")));
    }
    let answer: Map<String, Value> = serde_json::from_slice(&body)
        .map_err(|error| TokenError::Unavailable(format!("{endpoint}: not a JSON object: {error}")))?;
    check(answer, expected)
}

/// The answer's claims if they say the token is active and for this resource, now.
pub(crate) fn check(
    answer: Map<String, Value>,
    expected: &Expected<'_>,
) -> Result<Map<String, Value>, TokenError> {
    if answer.get("active") != Some(&Value::Bool(true)) {
        return Err(TokenError::Inactive);
    }
    if answer
        .get("token_type")
        .and_then(Value::as_str)
        .is_some_and(|kind| kind.eq_ignore_ascii_case("refresh_token"))
    {
        return Err(TokenError::Inactive);
    }
    let now = now_secs();
    if let Some(exp) = answer.get("exp").and_then(Value::as_u64)
        && exp.saturating_add(expected.leeway) <= now
    {
        return Err(TokenError::Expired);
    }
    if let Some(nbf) = answer.get("nbf").and_then(Value::as_u64)
        && nbf > now.saturating_add(expected.leeway)
    {
        return Err(TokenError::NotYetValid);
    }
    if let Some(iss) = answer.get("iss").and_then(Value::as_str)
        && !same_issuer(iss, expected.issuer)
    {
        return Err(TokenError::Issuer);
    }
    let for_us = match answer.get("aud") {
        Some(Value::String(aud)) => expected.audiences.contains(aud),
        Some(Value::Array(list)) => {
            list.iter().filter_map(Value::as_str).any(|aud| expected.audiences.iter().any(|a| a == aud))
        }
        None => return Err(TokenError::MissingClaim("aud".to_owned())),
        Some(_) => false,
    };
    if !for_us {
        return Err(TokenError::Audience);
    }
    Ok(answer)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;

    fn checked(answer: Value) -> Result<Map<String, Value>, TokenError> {
        let audiences = ["https://mcp.example/mcp".to_owned()];
        let expected = Expected { issuer: "https://as.example", audiences: &audiences, leeway: 30 };
        check(answer.as_object().cloned().unwrap(), &expected)
    }

    #[test]
    fn an_answer_must_be_active_current_and_for_this_resource() {
        let now = now_secs();
        let good = json!({"active": true, "aud": "https://mcp.example/mcp", "iss": "https://as.example/", "exp": now + 60});
        assert!(checked(good.clone()).is_ok());
        assert_eq!(checked(json!({"active": false})), Err(TokenError::Inactive));
        assert_eq!(
            checked(json!({"active": "true", "aud": "https://mcp.example/mcp"})),
            Err(TokenError::Inactive)
        );
        let mut expired = good.clone();
        expired["exp"] = json!(now - 31);
        assert_eq!(checked(expired), Err(TokenError::Expired));
        let mut early = good.clone();
        early["nbf"] = json!(now + 120);
        assert_eq!(checked(early), Err(TokenError::NotYetValid));
        let mut other = good.clone();
        other["aud"] = json!(["https://other.example"]);
        assert_eq!(checked(other), Err(TokenError::Audience));
        let mut issuer = good.clone();
        issuer["iss"] = json!("https://evil.example");
        assert_eq!(checked(issuer), Err(TokenError::Issuer));
        let mut refresh = good.clone();
        refresh["token_type"] = json!("refresh_token");
        assert_eq!(checked(refresh), Err(TokenError::Inactive));
        assert_eq!(checked(json!({"active": true})), Err(TokenError::MissingClaim("aud".to_owned())));
    }
}
