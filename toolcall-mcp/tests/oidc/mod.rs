//! What the OAuth tests share: signing keys made in the test ([`Signer`]), tokens signed
//! right and wrong, an authorization server of the test's own on 127.0.0.1
//! ([`FakeIssuer`]: a discovery document, a JWK set and an introspection endpoint, each
//! counting its requests), and the real OpenID provider (npm `oidc-provider`, installed
//! by `scripts/install-clients`, run on Node 22) for the end-to-end tests (`provider.rs`,
//! which example-app's tests include too).
#![allow(dead_code, clippy::expect_used, clippy::unwrap_used)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use base64::Engine as _;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

mod provider;
#[allow(unused_imports)] // the end-to-end test uses it, the others not
pub use provider::Provider;

/// Seconds since the epoch.
pub fn now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

/// A private key made in the test, its algorithm and its public JWK.
pub struct Signer {
    kid: String,
    alg: Algorithm,
    key: EncodingKey,
}

impl Signer {
    /// An ECDSA P-256 key (`ES256`).
    pub fn es256(kid: &str) -> Self {
        let rng = aws_lc_rs::rand::SystemRandom::new();
        let pkcs8 = aws_lc_rs::signature::EcdsaKeyPair::generate_pkcs8(
            &aws_lc_rs::signature::ECDSA_P256_SHA256_FIXED_SIGNING,
            &rng,
        )
        .expect("a P-256 key");
        Signer { kid: kid.to_owned(), alg: Algorithm::ES256, key: EncodingKey::from_ec_der(pkcs8.as_ref()) }
    }

    /// An Ed25519 key (`EdDSA`).
    pub fn ed25519(kid: &str) -> Self {
        let rng = aws_lc_rs::rand::SystemRandom::new();
        let pkcs8 = aws_lc_rs::signature::Ed25519KeyPair::generate_pkcs8v1(&rng).expect("an Ed25519 key");
        Signer { kid: kid.to_owned(), alg: Algorithm::EdDSA, key: EncodingKey::from_ed_der(pkcs8.as_ref()) }
    }

    /// The public key as a JWK with its `kid` (and no `alg` for ES256: the key's type says
    /// it; `EdDSA` keys say theirs).
    pub fn jwk(&self) -> Value {
        let mut jwk = Jwk::from_encoding_key(&self.key, self.alg).expect("a public JWK");
        jwk.common.key_id = Some(self.kid.clone());
        if self.alg == Algorithm::ES256 {
            jwk.common.key_algorithm = None;
        }
        serde_json::to_value(jwk).expect("JSON")
    }

    /// `claims` signed with this key, its algorithm and `kid` in the header.
    pub fn sign(&self, claims: &Value) -> String {
        self.sign_as(self.alg, claims)
    }

    /// `claims` signed with this key under the header algorithm `alg` (a mismatch is a
    /// test of its own).
    pub fn sign_as(&self, alg: Algorithm, claims: &Value) -> String {
        let mut header = Header::new(self.alg);
        header.kid = Some(self.kid.clone());
        header.typ = Some("at+jwt".to_owned());
        let token = jsonwebtoken::encode(&header, claims, &self.key).expect("signed");
        if alg == self.alg {
            return token;
        }
        // Same signature, another header: what a forger would send.
        let (_, rest) = token.split_once('.').unwrap();
        let mut forged = json!({"alg": format!("{alg:?}"), "kid": self.kid});
        forged["typ"] = json!("at+jwt");
        format!("{}.{rest}", b64(&forged))
    }
}

fn b64(value: &Value) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(value.to_string())
}

/// A token with `header` and `claims` and an empty signature (`alg: none`).
pub fn unsigned(header: &Value, claims: &Value) -> String {
    format!("{}.{}.", b64(header), b64(claims))
}

/// A token whose header says `HS256` and `kid`, signed by HMAC with `secret` (what an
/// attacker does with a public key).
pub fn hmac(secret: &str, kid: &str, claims: &Value) -> String {
    let mut header = Header::new(Algorithm::HS256);
    header.kid = Some(kid.to_owned());
    let key = EncodingKey::from_secret(secret.as_bytes()).expect("an HMAC key");
    jsonwebtoken::encode(&header, claims, &key).expect("signed")
}

/// The claims of a good access token of `issuer` for `resource` with `scope`: subject
/// `ada`, client `cli`, five minutes of life, a custom `department` claim.
pub fn claims(issuer: &str, resource: &str, scope: &str) -> Value {
    json!({
        "iss": issuer, "aud": resource, "sub": "ada", "client_id": "cli", "scope": scope,
        "iat": now(), "exp": now() + 300, "jti": format!("{}", now()), "department": "research",
    })
}

/// An authorization server of the test's own: `/.well-known/openid-configuration` (and a
/// 404 at `oauth-authorization-server`, so discovery falls back), `/jwks` and
/// `/introspect` (client `rs`, secret `rs-secret`), on 127.0.0.1.
pub struct FakeIssuer {
    /// `http://127.0.0.1:PORT`: the issuer identifier.
    pub url: String,
    /// Requests for the discovery documents (both forms).
    pub discovery_hits: AtomicUsize,
    /// Requests for the keys.
    pub jwks_hits: AtomicUsize,
    /// Introspection requests.
    pub introspections: AtomicUsize,
    keys: Mutex<Vec<Value>>,
    /// How long `/jwks` waits before answering.
    pub jwks_delay: Mutex<Duration>,
    /// Bytes of padding added to the JWK set (an extra member).
    pub jwks_padding: Mutex<usize>,
    /// The introspection answer of each opaque token; others are inactive.
    pub opaque: Mutex<HashMap<String, Value>>,
}

impl FakeIssuer {
    /// Starts one publishing `keys`.
    pub async fn start(keys: Vec<Value>) -> Arc<FakeIssuer> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let issuer = Arc::new(FakeIssuer {
            url: format!("http://{}", listener.local_addr().expect("address")),
            discovery_hits: AtomicUsize::new(0),
            jwks_hits: AtomicUsize::new(0),
            introspections: AtomicUsize::new(0),
            keys: Mutex::new(keys),
            jwks_delay: Mutex::new(Duration::ZERO),
            jwks_padding: Mutex::new(0),
            opaque: Mutex::new(HashMap::new()),
        });
        let router = axum::Router::new()
            .route("/.well-known/openid-configuration", get(discovery))
            .route("/.well-known/oauth-authorization-server", get(not_found))
            .route("/jwks", get(jwks))
            .route("/introspect", post(introspect))
            .with_state(Arc::clone(&issuer));
        tokio::spawn(async move { axum::serve(listener, router).await });
        issuer
    }

    /// Publishes `keys` from now on.
    pub fn set_keys(&self, keys: Vec<Value>) {
        *self.keys.lock().unwrap() = keys;
    }
}

async fn not_found(State(issuer): State<Arc<FakeIssuer>>) -> StatusCode {
    issuer.discovery_hits.fetch_add(1, Ordering::SeqCst);
    StatusCode::NOT_FOUND
}

/// `value` as a JSON response with `status`.
fn json_response(status: StatusCode, value: &Value) -> Response {
    (status, [("content-type", "application/json")], value.to_string()).into_response()
}

async fn discovery(State(issuer): State<Arc<FakeIssuer>>) -> Response {
    issuer.discovery_hits.fetch_add(1, Ordering::SeqCst);
    json_response(
        StatusCode::OK,
        &json!({
            "issuer": issuer.url,
            "jwks_uri": format!("{}/jwks", issuer.url),
            "introspection_endpoint": format!("{}/introspect", issuer.url),
            "token_endpoint": format!("{}/token", issuer.url),
        }),
    )
}

async fn jwks(State(issuer): State<Arc<FakeIssuer>>) -> Response {
    issuer.jwks_hits.fetch_add(1, Ordering::SeqCst);
    let delay = *issuer.jwks_delay.lock().unwrap();
    tokio::time::sleep(delay).await;
    let mut set = json!({"keys": issuer.keys.lock().unwrap().clone()});
    let padding = *issuer.jwks_padding.lock().unwrap();
    if padding > 0 {
        set["padding"] = json!("x".repeat(padding));
    }
    json_response(StatusCode::OK, &set)
}

async fn introspect(State(issuer): State<Arc<FakeIssuer>>, headers: HeaderMap, body: String) -> Response {
    issuer.introspections.fetch_add(1, Ordering::SeqCst);
    let expected = format!("Basic {}", base64::engine::general_purpose::STANDARD.encode("rs:rs-secret"));
    if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some(expected.as_str()) {
        return json_response(StatusCode::UNAUTHORIZED, &json!({"error": "invalid_client"}));
    }
    let token = body.split('&').find_map(|pair| pair.strip_prefix("token=")).unwrap_or_default().to_owned();
    let answer = issuer.opaque.lock().unwrap().get(&token).cloned().unwrap_or(json!({"active": false}));
    json_response(StatusCode::OK, &answer)
}
