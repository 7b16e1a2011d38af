//! The issuer's signing keys (its JWK set at `jwks_uri`), cached: fetched on first need,
//! again after their lifetime, and once more when a token names a `kid` the set does not
//! have (a key rotated in), at most once per refresh interval, so a stream of made-up
//! `kid`s cannot make the server hammer the issuer. Concurrent requests share one fetch.
//!
//! Each key keeps the algorithms it may verify, from what the key says: its `alg` when it
//! has one, else those of its type (RSA: `RS*`/`PS*`; EC: `ES256` on P-256, `ES384` on
//! P-384; OKP: `EdDSA` on Ed25519). Symmetric (`oct`) keys, encryption keys (`use: enc`)
//! and keys of other types are never used: only the issuer's public keys verify tokens.

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, KeyOperations, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey};
use reqwest::Url;
use serde_json::Value;

use super::discovery::RETRY_AFTER_FAILURE;
use super::fetch::Fetcher;
use super::token::TokenError;

/// One usable key.
pub(crate) struct Key {
    pub(crate) kid: Option<String>,
    pub(crate) algorithms: Vec<Algorithm>,
    pub(crate) decoding: DecodingKey,
}

/// The keys of one fetch.
pub(crate) struct KeySet {
    keys: Vec<Arc<Key>>,
    fetched: Instant,
}

impl KeySet {
    /// The usable keys of a JWK set document; the others are left out (and logged).
    pub(crate) fn from_document(document: &Value) -> Result<Self, String> {
        let Some(entries) = document.get("keys").and_then(Value::as_array) else {
            return Err("the JWK set has no `keys` list".to_owned());
        };
        let mut keys = Vec::new();
        for entry in entries {
            // One key at a time: a key of a type jsonwebtoken does not know leaves the others.
            let Ok(jwk) = serde_json::from_value::<Jwk>(entry.clone()) else {
                log::debug!("OAuth: a JWK the server cannot read was left out");
                continue;
            };
            let Some(algorithms) = algorithms_of(&jwk) else { continue };
            match DecodingKey::from_jwk(&jwk) {
                Ok(decoding) => {
                    keys.push(Arc::new(Key { kid: jwk.common.key_id.clone(), algorithms, decoding }))
                }
                Err(error) => log::warn!("OAuth: JWK {:?} left out: {error}", jwk.common.key_id),
            }
        }
        Ok(KeySet { keys, fetched: Instant::now() })
    }

    /// The keys that may have signed a token with `kid` and `alg`: those with that `kid`,
    /// else (a set whose keys have no ids) those without one; only keys for `alg`. A key
    /// with that `kid` published for other algorithms is a refusal, not a miss.
    pub(crate) fn candidates(&self, kid: Option<&str>, alg: Algorithm) -> Result<Vec<Arc<Key>>, TokenError> {
        let for_alg = |key: &&Arc<Key>| key.algorithms.contains(&alg);
        if let Some(kid) = kid {
            let named: Vec<&Arc<Key>> =
                self.keys.iter().filter(|key| key.kid.as_deref() == Some(kid)).collect();
            if !named.is_empty() {
                let keys: Vec<Arc<Key>> = named.into_iter().filter(for_alg).cloned().collect();
                if keys.is_empty() {
                    return Err(TokenError::Algorithm(format!("the key {kid} is not published for {alg:?}")));
                }
                return Ok(keys);
            }
        }
        Ok(self
            .keys
            .iter()
            .filter(|key| key.kid.is_none() || kid.is_none())
            .filter(for_alg)
            .cloned()
            .collect())
    }

    /// How many usable keys the set has.
    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }
}

/// The algorithms `jwk` may verify; `None` for a key never used here.
pub(crate) fn algorithms_of(jwk: &Jwk) -> Option<Vec<Algorithm>> {
    if jwk.common.public_key_use == Some(PublicKeyUse::Encryption) {
        return None;
    }
    if let Some(operations) = &jwk.common.key_operations
        && !operations.contains(&KeyOperations::Verify)
    {
        return None;
    }
    use Algorithm::*;
    let of_type: Vec<Algorithm> = match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => vec![RS256, RS384, RS512, PS256, PS384, PS512],
        AlgorithmParameters::EllipticCurve(params) => match params.curve {
            EllipticCurve::P256 => vec![ES256],
            EllipticCurve::P384 => vec![ES384],
            _ => return None,
        },
        AlgorithmParameters::OctetKeyPair(params) => match params.curve {
            EllipticCurve::Ed25519 => vec![EdDSA],
            _ => return None,
        },
        // A shared secret (`oct`) is never a verification key here; nor is an unknown type.
        _ => return None,
    };
    match jwk.common.key_algorithm {
        None => Some(of_type),
        Some(said) => {
            let said = Algorithm::try_from(said).ok()?;
            of_type.contains(&said).then(|| vec![said])
        }
    }
}

/// The cached key set and its fetching.
pub(crate) struct Jwks {
    current: RwLock<Option<Arc<KeySet>>>,
    /// Held while fetching; the time of the last attempt, successful or not.
    fetching: tokio::sync::Mutex<Option<Instant>>,
}

/// What a key lookup needs to know.
pub(crate) struct Lookup<'a> {
    pub(crate) fetcher: &'a Fetcher,
    pub(crate) jwks_uri: &'a Url,
    /// How long a fetched set is used before it is fetched again.
    pub(crate) ttl: Duration,
    /// The least time between two fetches made for an unknown `kid`.
    pub(crate) refresh_interval: Duration,
}

impl Jwks {
    /// An empty cache.
    pub(crate) fn new() -> Self {
        Jwks { current: RwLock::new(None), fetching: tokio::sync::Mutex::new(None) }
    }

    fn current(&self) -> Option<Arc<KeySet>> {
        self.current.read().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// The keys that may have signed a token with `kid` and `alg`, fetching the set when
    /// there is none yet, when it is older than its lifetime, or (once, rate-limited)
    /// when no key matches.
    pub(crate) async fn keys_for(
        &self,
        lookup: &Lookup<'_>,
        kid: Option<&str>,
        alg: Algorithm,
    ) -> Result<Vec<Arc<Key>>, TokenError> {
        let seen = self.current();
        if let Some(set) = &seen
            && set.fetched.elapsed() < lookup.ttl
        {
            let keys = set.candidates(kid, alg)?;
            if !keys.is_empty() {
                return Ok(keys);
            }
        }
        let mut last = self.fetching.lock().await;
        // Fetched by another request while this one waited: look there first.
        let now_current = self.current();
        if let (Some(set), Some(before)) = (&now_current, &seen)
            && !Arc::ptr_eq(set, before)
        {
            let keys = set.candidates(kid, alg)?;
            if !keys.is_empty() {
                return Ok(keys);
            }
        }
        let stale = now_current.as_ref().is_none_or(|set| set.fetched.elapsed() >= lookup.ttl);
        let wait = match (&now_current, stale) {
            // No keys yet, or the last fetch failed: retry soon.
            (None, _) => RETRY_AFTER_FAILURE,
            (Some(_), true) => RETRY_AFTER_FAILURE,
            (Some(_), false) => lookup.refresh_interval,
        };
        if last.is_some_and(|when| when.elapsed() < wait) {
            return match now_current {
                None => Err(TokenError::Unavailable("the issuer's keys could not be fetched".to_owned())),
                Some(set) => nonempty(set.candidates(kid, alg)?, kid),
            };
        }
        *last = Some(Instant::now());
        match self.fetch(lookup).await {
            Ok(set) => {
                let set = Arc::new(set);
                *self.current.write().unwrap_or_else(std::sync::PoisonError::into_inner) =
                    Some(Arc::clone(&set));
                nonempty(set.candidates(kid, alg)?, kid)
            }
            Err(why) => {
                log::warn!("OAuth: the issuer's keys at {} could not be fetched: {why}", lookup.jwks_uri);
                match now_current {
                    // The old keys stay in use until a fetch succeeds.
                    Some(set) => nonempty(set.candidates(kid, alg)?, kid),
                    None => Err(TokenError::Unavailable(why)),
                }
            }
        }
    }

    async fn fetch(&self, lookup: &Lookup<'_>) -> Result<KeySet, String> {
        let document: Value = lookup.fetcher.get_json(lookup.jwks_uri).await?;
        let set = KeySet::from_document(&document)?;
        log::info!("OAuth: {} signing keys from {}", set.len(), lookup.jwks_uri);
        Ok(set)
    }
}

fn nonempty(keys: Vec<Arc<Key>>, kid: Option<&str>) -> Result<Vec<Arc<Key>>, TokenError> {
    if keys.is_empty() { Err(TokenError::UnknownKey(kid.map(str::to_owned))) } else { Ok(keys) }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;

    fn algs(key: Value) -> Option<Vec<Algorithm>> {
        algorithms_of(&serde_json::from_value(key).unwrap())
    }

    const X: &str = "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU";
    const Y: &str = "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0";

    #[test]
    fn a_key_verifies_only_the_asymmetric_algorithms_it_says() {
        let ec = json!({"kty": "EC", "crv": "P-256", "x": X, "y": Y});
        assert_eq!(algs(ec.clone()), Some(vec![Algorithm::ES256]));
        let mut with_alg = ec.clone();
        with_alg["alg"] = json!("ES384");
        assert_eq!(algs(with_alg), None, "an EC P-256 key cannot be ES384");
        let mut hmac = ec.clone();
        hmac["alg"] = json!("HS256");
        assert_eq!(algs(hmac), None, "a public key is never an HMAC secret");
        let mut enc = ec.clone();
        enc["use"] = json!("enc");
        assert_eq!(algs(enc), None);
        assert_eq!(algs(json!({"kty": "oct", "k": "c2VjcmV0"})), None);
        assert_eq!(algs(json!({"kty": "OKP", "crv": "Ed25519", "x": X})), Some(vec![Algorithm::EdDSA]));
        let rsa = json!({"kty": "RSA", "n": "sXchDaQebHnPiGvyDOAT4saGEUetSyo9MKLOoWFsueri23bOdgWp4Dy1WlUzewbgBHod5pcM9H95GQRV3JDXboIRROSBigeC5yjU1hGzHHyXss8UDprecbAYxknTcQkhslANGRUZmdTOQ5qTRsLAt6BTYuyvVRdhS8exSZEy_c4gs_7svlJJQ4H9_NxsiIoLwAEk7-Q3UXERGYw_75IDrGA84-lA_-Ct4eTlXHBIY2EaV7t7LjJaynVJCpkv4LKjTTAumiGUIuQhrNhZLuF_RJLqHpM2kgWFLU7-VTdL1VbC2tejvcI2BlMkEpk1BzBZI0KQB0GaDWFLN-aEAw3vRw", "e": "AQAB", "alg": "RS256", "kid": "r"});
        assert_eq!(algs(rsa.clone()), Some(vec![Algorithm::RS256]));
        let set = KeySet::from_document(&json!({"keys": [rsa, {"kty": "weird"}, ec]})).unwrap();
        assert_eq!(set.len(), 2, "an unreadable key leaves the others");
        assert_eq!(set.candidates(Some("r"), Algorithm::RS256).unwrap().len(), 1);
        assert!(set.candidates(Some("r"), Algorithm::PS256).is_err(), "the key said RS256");
        assert!(set.candidates(Some("other"), Algorithm::RS256).unwrap().is_empty());
        assert_eq!(
            set.candidates(None, Algorithm::ES256).unwrap().len(),
            1,
            "no kid: keys for the algorithm"
        );
        assert_eq!(
            set.candidates(Some("other"), Algorithm::ES256).unwrap().len(),
            1,
            "a key without a kid may match"
        );
        assert!(KeySet::from_document(&json!({"no": []})).is_err());
    }
}
