//! JWT access tokens (RFC 9068): the JOSE header read first (its `alg` refused when
//! `none` or an HMAC, its `crit` when it names anything), the key chosen by `kid` from the
//! issuer's set among those published for that algorithm, then jsonwebtoken checks the
//! signature, `iss` (the issuer's own identifier), `aud` (this resource's URI, RFC 8707),
//! `exp` and `nbf` (with a small leeway for clocks that differ); `exp`, `iss` and `aud`
//! must be present.

use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, Validation};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::jwks::Key;
use super::token::TokenError;

/// The JOSE header fields read before any key is chosen.
#[derive(Debug, Deserialize)]
pub(crate) struct JoseHeader {
    pub(crate) alg: String,
    #[serde(default)]
    pub(crate) kid: Option<String>,
    #[serde(default)]
    crit: Option<Value>,
}

/// Whether `token` has a JWS compact serialization's shape: three base64url parts, the
/// first two not empty. Anything else is an opaque token (introspection's).
pub(crate) fn looks_like_jwt(token: &str) -> bool {
    let mut parts = token.split('.');
    let (Some(header), Some(payload), Some(_signature), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    let base64url = |part: &str| part.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    !header.is_empty()
        && !payload.is_empty()
        && base64url(header)
        && base64url(payload)
        && header.starts_with("ey")
}

/// The header of a JWT-shaped token, and the algorithm it may be verified with.
pub(crate) fn read_header(token: &str) -> Result<(JoseHeader, Algorithm), TokenError> {
    let encoded = token.split('.').next().unwrap_or_default();
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(encoded.trim_end_matches('='))
        .map_err(|_| TokenError::Malformed("its header is not base64url".to_owned()))?;
    let header: JoseHeader = serde_json::from_slice(&bytes)
        .map_err(|error| TokenError::Malformed(format!("its header is not a JOSE header: {error}")))?;
    if header.crit.is_some() {
        return Err(TokenError::Malformed(
            "its header has critical parameters (crit) this server does not know".to_owned(),
        ));
    }
    let alg = allowed_algorithm(&header.alg)?;
    Ok((header, alg))
}

/// `alg` if it is an asymmetric signature algorithm; `none` and the HMACs are refused.
pub(crate) fn allowed_algorithm(alg: &str) -> Result<Algorithm, TokenError> {
    if alg.eq_ignore_ascii_case("none") {
        return Err(TokenError::Algorithm("none: the token is not signed".to_owned()));
    }
    let parsed: Algorithm =
        alg.parse().map_err(|_| TokenError::Algorithm(format!("{alg} is not supported")))?;
    match parsed {
        Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512 => Err(TokenError::Algorithm(format!(
            "{alg} is an HMAC: a shared secret, never an issuer's public key, signs access tokens here"
        ))),
        asymmetric => Ok(asymmetric),
    }
}

/// What every JWT must satisfy: the issuer, the audiences, the leeway.
pub(crate) struct Expected<'a> {
    pub(crate) issuer: &'a str,
    pub(crate) audiences: &'a [String],
    pub(crate) leeway: Duration,
}

/// The claims of `token` (with header algorithm `alg`) if one of `keys` verifies it and
/// its claims hold; a signature that fails with one key is tried with the next.
pub(crate) fn verify(
    token: &str,
    alg: Algorithm,
    keys: &[Arc<Key>],
    expected: &Expected<'_>,
) -> Result<Map<String, Value>, TokenError> {
    let mut validation = Validation::new(alg);
    validation.set_required_spec_claims(&["exp", "iss", "aud"]);
    validation.leeway = expected.leeway.as_secs();
    validation.validate_exp = true;
    validation.validate_nbf = true;
    validation.validate_aud = true;
    validation.set_audience(expected.audiences);
    validation.set_issuer(&[expected.issuer]);
    let mut last = TokenError::UnknownKey(None);
    for key in keys {
        if !key.algorithms.contains(&alg) {
            last = TokenError::Algorithm(format!("{alg:?} is not an algorithm of the key"));
            continue;
        }
        match jsonwebtoken::decode::<Map<String, Value>>(token, &key.decoding, &validation) {
            Ok(data) => return Ok(data.claims),
            Err(error) => match error.into_kind() {
                ErrorKind::InvalidSignature => last = TokenError::Signature,
                other => return Err(refusal(other)),
            },
        }
    }
    Err(last)
}

/// A jsonwebtoken error as the refusal it means.
fn refusal(kind: ErrorKind) -> TokenError {
    match kind {
        ErrorKind::InvalidSignature => TokenError::Signature,
        ErrorKind::InvalidIssuer => TokenError::Issuer,
        ErrorKind::InvalidAudience => TokenError::Audience,
        ErrorKind::ExpiredSignature => TokenError::Expired,
        ErrorKind::ImmatureSignature => TokenError::NotYetValid,
        ErrorKind::MissingRequiredClaim(claim) => TokenError::MissingClaim(claim),
        ErrorKind::InvalidAlgorithm | ErrorKind::InvalidAlgorithmName | ErrorKind::MissingAlgorithm => {
            TokenError::Algorithm("not the key's algorithm".to_owned())
        }
        ErrorKind::InvalidClaimFormat(claim) => {
            TokenError::Malformed(format!("its {claim} claim has the wrong type"))
        }
        other => TokenError::Malformed(jsonwebtoken::errors::Error::from(other).to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jwt_shapes() {
        assert!(looks_like_jwt("eyJh.eyJi.sig"));
        assert!(looks_like_jwt("eyJh.eyJi."), "an empty signature is still a JWT (refused later)");
        assert!(!looks_like_jwt("opaque-token"));
        assert!(!looks_like_jwt("a.b"));
        assert!(!looks_like_jwt("eyJh.eyJi.c.d.e"), "a JWE is opaque to this server");
        assert!(!looks_like_jwt("eyJh.e+i.sig"));
    }

    #[test]
    fn none_and_hmac_are_refused() {
        assert!(matches!(allowed_algorithm("none"), Err(TokenError::Algorithm(_))));
        assert!(matches!(allowed_algorithm("NONE"), Err(TokenError::Algorithm(_))));
        assert!(matches!(allowed_algorithm("HS256"), Err(TokenError::Algorithm(_))));
        assert!(matches!(allowed_algorithm("ES512"), Err(TokenError::Algorithm(_))));
        assert_eq!(allowed_algorithm("RS256"), Ok(Algorithm::RS256));
        assert_eq!(allowed_algorithm("EdDSA"), Ok(Algorithm::EdDSA));
    }
}
