//! The OAuth resource server (feature `oauth`) against an authorization server the test
//! runs (discovery document, keys, introspection, each counted), with signing keys made
//! in the test: every refusal (bad signature, wrong audience, wrong issuer, expired, not
//! yet valid, unknown `kid` with its one refresh, `alg: none`, an HMAC signed with the
//! public key, a missing scope), the metadata document and the challenges, introspection,
//! the bounds on what the issuer sends, and the verified claims reaching the request
//! function and the tool filter. The end-to-end test against a real OpenID provider is
//! `oauth_provider.rs`.

#![cfg(feature = "oauth")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod oidc;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use jsonwebtoken::Algorithm;
use serde_json::{Value, json};
use toolcall_mcp::oauth::{AccessToken, ResourceServer, TokenError, TokenSource};
use toolcall_mcp::{Caller, McpServer, Rejection};

use common::gauge::{GAUGE, Gauge, Stats};
use common::net::{Client, Era, call, initialize_body, post};
use oidc::{FakeIssuer, Signer, claims, now};

const RESOURCE_PATH: &str = "/mcp";

/// A resource server for `issuer`'s tokens for `resource`, with short refresh times.
fn resource_server(issuer: &FakeIssuer, resource: &str) -> ResourceServer {
    ResourceServer::new(&issuer.url, resource).unwrap().key_refresh_interval(Duration::from_millis(300))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_good_token_is_accepted_and_then_served_from_the_cache() {
    let (es, ed) = (Signer::es256("es"), Signer::ed25519("ed"));
    let issuer = FakeIssuer::start(vec![es.jwk(), ed.jwk()]).await;
    let resource = "http://127.0.0.1:9/mcp";
    let server = resource_server(&issuer, resource);
    for signer in [&es, &ed] {
        let token = signer.sign(&claims(&issuer.url, resource, "notes:read notes:write"));
        let access = server.verify(&token).await.expect("a good token");
        assert_eq!(access.source(), TokenSource::Jwt);
        assert_eq!(
            (access.subject(), access.client_id(), access.principal()),
            (Some("ada"), Some("cli"), "ada")
        );
        assert_eq!(access.scopes(), ["notes:read", "notes:write"]);
        assert_eq!(access.issuer(), issuer.url);
        assert_eq!(access.audience(), [resource]);
        assert_eq!(access.claim("department"), Some(&json!("research")));
        let again = server.verify(&token).await.expect("cached");
        assert!(Arc::ptr_eq(&access, &again), "the second verification is the cache's");
    }
    assert_eq!(issuer.jwks_hits.load(Ordering::SeqCst), 1, "the keys were fetched once");
    assert_eq!(
        issuer.discovery_hits.load(Ordering::SeqCst),
        2,
        "oauth-authorization-server (404), then openid-configuration"
    );
    // An audience with or without a trailing slash is the same resource.
    let mut slash = claims(&issuer.url, resource, "");
    slash["aud"] = json!(["https://other.example", format!("{resource}/")]);
    assert!(server.verify(&es.sign(&slash)).await.is_ok());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_refusal_has_its_reason() {
    let (good, other) = (Signer::es256("k1"), Signer::es256("k1"));
    let issuer = FakeIssuer::start(vec![good.jwk()]).await;
    let resource = "http://127.0.0.1:9/mcp";
    let server = resource_server(&issuer, resource).leeway(Duration::from_secs(5));
    let base = claims(&issuer.url, resource, "notes:read");
    let with = |field: &str, value: Value| {
        let mut c = base.clone();
        c[field] = value;
        c
    };
    let without = |field: &str| {
        let mut c = base.clone();
        c.as_object_mut().unwrap().remove(field);
        c
    };
    let public_key = serde_json::to_string(&good.jwk()).unwrap();
    let cases: Vec<(&str, String, TokenError)> = vec![
        ("bad signature: another key under the same kid", other.sign(&base), TokenError::Signature),
        ("wrong audience", good.sign(&with("aud", json!("https://other.example/mcp"))), TokenError::Audience),
        ("no audience", good.sign(&without("aud")), TokenError::MissingClaim("aud".into())),
        ("wrong issuer", good.sign(&with("iss", json!("https://evil.example"))), TokenError::Issuer),
        ("expired beyond the leeway", good.sign(&with("exp", json!(now() - 10))), TokenError::Expired),
        ("no expiry", good.sign(&without("exp")), TokenError::MissingClaim("exp".into())),
        ("not valid yet", good.sign(&with("nbf", json!(now() + 60))), TokenError::NotYetValid),
        (
            "no subject nor client",
            good.sign(&{
                let mut c = without("sub");
                c.as_object_mut().unwrap().remove("client_id");
                c
            }),
            TokenError::MissingClaim("sub".into()),
        ),
        (
            "alg none",
            oidc::unsigned(&json!({"alg": "none", "kid": "k1"}), &base),
            TokenError::Algorithm(String::new()),
        ),
        ("alg None", oidc::unsigned(&json!({"alg": "None"}), &base), TokenError::Algorithm(String::new())),
        (
            "HS256 signed with the public key as the secret",
            oidc::hmac(&public_key, "k1", &base),
            TokenError::Algorithm(String::new()),
        ),
        (
            "HS256 signed with the raw x coordinate",
            oidc::hmac(good.jwk()["x"].as_str().unwrap(), "k1", &base),
            TokenError::Algorithm(String::new()),
        ),
        ("ES384 on a P-256 key", good.sign_as(Algorithm::ES384, &base), TokenError::Algorithm(String::new())),
        (
            "critical header",
            oidc::unsigned(&json!({"alg": "ES256", "kid": "k1", "crit": ["exp"]}), &base),
            TokenError::Malformed(String::new()),
        ),
        ("opaque, no introspection", "an-opaque-token".to_owned(), TokenError::NoIntrospection),
    ];
    for (what, token, expected) in cases {
        let refused = server.verify(&token).await.expect_err(what);
        let same_kind = std::mem::discriminant(&refused) == std::mem::discriminant(&expected);
        let precise =
            matches!(expected, TokenError::Algorithm(_) | TokenError::Malformed(_)) || refused == expected;
        assert!(same_kind && precise, "{what}: {refused:?}, expected {expected:?}");
        assert!(!refused.is_unavailable(), "{what}");
    }
    // Within the leeway is fine.
    assert!(server.verify(&good.sign(&with("exp", json!(now() - 2)))).await.is_ok());
    assert!(server.verify(&good.sign(&with("nbf", json!(now() + 2)))).await.is_ok());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_kid_fetches_the_keys_once_more_at_most_once_per_interval() {
    let (a, b, c, d) = (Signer::es256("a"), Signer::ed25519("b"), Signer::es256("c"), Signer::es256("d"));
    let issuer = FakeIssuer::start(vec![a.jwk()]).await;
    let resource = "http://127.0.0.1:9/mcp";
    let server = Arc::new(resource_server(&issuer, resource));
    let hits = || issuer.jwks_hits.load(Ordering::SeqCst);
    let token = |signer: &Signer| signer.sign(&claims(&issuer.url, resource, ""));
    assert!(server.verify(&token(&a)).await.is_ok());
    assert_eq!(hits(), 1);

    // `b` rotated in: its first token fetches the keys once more, once the interval passed.
    issuer.set_keys(vec![a.jwk(), b.jwk()]);
    tokio::time::sleep(Duration::from_millis(350)).await;
    assert!(server.verify(&token(&b)).await.is_ok(), "the new key is found by the one refresh");
    assert_eq!(hits(), 2);

    // `c` is published nowhere: within the interval, no fetch at all.
    assert_eq!(server.verify(&token(&c)).await.unwrap_err(), TokenError::UnknownKey(Some("c".into())));
    assert_eq!(hits(), 2, "rate-limited: no fetch within the interval");
    // After it, exactly one fetch per token, and still refused.
    tokio::time::sleep(Duration::from_millis(350)).await;
    assert_eq!(server.verify(&token(&c)).await.unwrap_err(), TokenError::UnknownKey(Some("c".into())));
    assert_eq!(hits(), 3, "one refresh for the unknown kid");

    // Many requests with a new kid at once share one fetch.
    issuer.set_keys(vec![a.jwk(), b.jwk(), d.jwk()]);
    tokio::time::sleep(Duration::from_millis(350)).await;
    let tokens: Vec<String> = (0..16).map(|_| token(&d)).collect();
    let verifying = tokens.iter().map(|t| {
        let server = Arc::clone(&server);
        let t = t.clone();
        tokio::spawn(async move { server.verify(&t).await })
    });
    for outcome in verifying.collect::<Vec<_>>() {
        assert!(outcome.await.unwrap().is_ok());
    }
    assert_eq!(hits(), 4, "one fetch for 16 requests");
    // Old keys still verify.
    assert!(server.verify(&token(&a)).await.is_ok());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_issuer_that_does_not_answer_or_sends_too_much_is_unavailable() {
    let key = Signer::es256("k");
    let issuer = FakeIssuer::start(vec![key.jwk()]).await;
    let resource = "http://127.0.0.1:9/mcp";
    let token = key.sign(&claims(&issuer.url, resource, ""));

    *issuer.jwks_delay.lock().unwrap() = Duration::from_secs(3);
    let slow = resource_server(&issuer, resource).http_timeout(Duration::from_millis(300));
    let started = std::time::Instant::now();
    let refused = slow.verify(&token).await.unwrap_err();
    assert!(refused.is_unavailable(), "{refused:?}");
    assert!(started.elapsed() < Duration::from_secs(2), "the time limit held: {:?}", started.elapsed());

    *issuer.jwks_delay.lock().unwrap() = Duration::ZERO;
    *issuer.jwks_padding.lock().unwrap() = 300 * 1024;
    let small = resource_server(&issuer, resource).max_document_size(256 * 1024);
    let refused = small.verify(&token).await.unwrap_err();
    assert!(matches!(&refused, TokenError::Unavailable(why) if why.contains("larger than")), "{refused:?}");
    let large = resource_server(&issuer, resource).max_document_size(1024 * 1024);
    assert!(large.verify(&token).await.is_ok(), "the same keys, within a larger bound");

    let nowhere =
        ResourceServer::new("http://127.0.0.1:9", resource).unwrap().http_timeout(Duration::from_millis(500));
    assert!(nowhere.verify(&token).await.unwrap_err().is_unavailable());
    assert!(nowhere.discover().await.is_err());
}

/// A server of the gauge tools behind OAuth for `issuer`: every request needs
/// `gauge:read`, `work` needs `gauge:work`; the context's user is the token's principal,
/// or `auditor:` and it for a token whose `department` claim is `audit`, who does not see
/// `work`. Returns `http://ADDR/mcp`.
async fn serve(
    issuer: &FakeIssuer,
    configure: impl FnOnce(ResourceServer) -> ResourceServer,
) -> (String, Arc<Stats>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let uri = format!("http://{}{RESOURCE_PATH}", listener.local_addr().unwrap());
    let oauth = configure(
        resource_server(issuer, &uri)
            .required_scopes(["gauge:read"])
            .tool_scopes("work", ["gauge:work"])
            .resource_name("gauge"),
    );
    let stats = Arc::new(Stats::default());
    let shared = Arc::clone(&stats);
    let server = McpServer::new(&GAUGE, Gauge::new("local", &stats))
        .oauth(oauth)
        .context_from_request(move |request| {
            let token = AccessToken::of(request).ok_or_else(|| Rejection::unauthorized("no token"))?;
            if token.claim("department") == Some(&json!("blocked")) {
                return Err(Rejection::unauthorized("blocked department"));
            }
            let user = match token.claim("department").and_then(Value::as_str) {
                Some("audit") => format!("auditor:{}", token.principal()),
                _ => token.principal().to_owned(),
            };
            Ok(Caller::new(token.principal(), Gauge::new(&user, &shared)))
        })
        .tool_filter(|gauge: &Gauge, tool| !(gauge.user.starts_with("auditor:") && tool.name == "work"));
    tokio::spawn(server.serve_http_on(listener));
    (uri, stats)
}

fn call_body(tool: &str) -> String {
    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": tool, "arguments": {"ms": 0}}}).to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_401_403_and_the_metadata() {
    let key = Signer::es256("k");
    let issuer = FakeIssuer::start(vec![key.jwk()]).await;
    let (uri, stats) = serve(&issuer, |s| s).await;
    let origin = uri.trim_end_matches(RESOURCE_PATH).to_owned();
    let metadata_url = format!("{origin}/.well-known/oauth-protected-resource/mcp");

    // The metadata, at both paths.
    for path in ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"] {
        let response = reqwest::get(format!("{origin}{path}")).await.unwrap();
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(response.headers()["access-control-allow-origin"], "*");
        let document: Value = response.json().await.unwrap();
        assert_eq!(
            document,
            json!({
                "resource": uri,
                "authorization_servers": [issuer.url],
                "scopes_supported": ["gauge:read", "gauge:work"],
                "bearer_methods_supported": ["header"],
                "resource_name": "gauge",
            }),
            "{path}"
        );
    }

    // No token: 401, no error code, where the metadata is and what to ask for.
    let (status, headers, _) = post(&uri, initialize_body(), &[]).await;
    assert_eq!(status, 401);
    assert_eq!(
        headers["www-authenticate"],
        format!(r#"Bearer scope="gauge:read", resource_metadata="{metadata_url}""#).as_str()
    );
    assert_eq!(headers["connection"], "close", "the body was not read");
    // A token refused: invalid_token, and why.
    let expired = key.sign(&{
        let mut c = claims(&issuer.url, &uri, "gauge:read");
        c["exp"] = json!(now() - 3600);
        c
    });
    let (status, headers, text) =
        post(&uri, initialize_body(), &[("authorization", &format!("Bearer {expired}"))]).await;
    assert_eq!(status, 401, "{text}");
    let challenge = headers["www-authenticate"].to_str().unwrap();
    assert!(
        challenge.starts_with(r#"Bearer error="invalid_token", error_description="the token has expired""#),
        "{challenge}"
    );
    assert!(challenge.contains(&format!(r#"resource_metadata="{metadata_url}""#)), "{challenge}");
    // Two Authorization headers, or a token in the URL: 400.
    let two = [("authorization", "Bearer a"), ("authorization", "Bearer b")];
    assert_eq!(post(&uri, initialize_body(), &two).await.0, 400);
    assert_eq!(post(&format!("{uri}?access_token=x"), initialize_body(), &[]).await.0, 400);
    // A 401 of the request function gets the full challenge too.
    let blocked = key.sign(&{
        let mut c = claims(&issuer.url, &uri, "gauge:read");
        c["department"] = json!("blocked");
        c
    });
    let (status, headers, text) =
        post(&uri, initialize_body(), &[("authorization", &format!("Bearer {blocked}"))]).await;
    assert_eq!((status, text.as_str()), (401, "blocked department"));
    assert!(headers["www-authenticate"].to_str().unwrap().contains("resource_metadata="));

    // A token without the scope every request needs: 403 before anything runs.
    let none = key.sign(&claims(&issuer.url, &uri, "other"));
    let (status, headers, _) =
        post(&uri, initialize_body(), &[("authorization", &format!("Bearer {none}"))]).await;
    assert_eq!(status, 403);
    let challenge = headers["www-authenticate"].to_str().unwrap();
    assert!(
        challenge.starts_with(r#"Bearer error="insufficient_scope""#)
            && challenge.contains(r#"scope="gauge:read""#),
        "{challenge}"
    );

    // A reader may list and call whoami, in either lifecycle; `work` needs gauge:work: 403
    // naming it (and the scope the token has, so a new token loses nothing).
    let reader = key.sign(&claims(&issuer.url, &uri, "gauge:read"));
    for era in [Era::Legacy, Era::Stateless] {
        let client = Client::new(&uri, era).token(&reader).connect().await.expect("a reader connects");
        assert_eq!(call(&client, "whoami", json!({})).await, Ok("ada".into()), "{era:?}");
        let tools = client.list_all_tools().await.unwrap();
        assert_eq!(tools.len(), 2, "the reader sees `work`, to ask for more scope");
        assert!(call(&client, "work", json!({"ms": 0})).await.is_err(), "{era:?}");
    }
    let (status, headers, text) =
        post(&uri, call_body("work"), &[("authorization", &format!("Bearer {reader}"))]).await;
    assert_eq!(status, 403, "{text}");
    assert_eq!(text, "Forbidden: tool work needs scope gauge:work");
    let challenge = headers["www-authenticate"].to_str().unwrap();
    assert_eq!(
        challenge,
        format!(
            r#"Bearer error="insufficient_scope", error_description="tool work needs scope gauge:work", scope="gauge:read gauge:work", resource_metadata="{metadata_url}""#
        )
    );
    let calls_before = stats.calls.load(Ordering::SeqCst);
    // A body whose tool cannot be read for sure is refused, not guessed at.
    let twice = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"whoami","name":"work","arguments":{"ms":0}}}"#;
    assert_eq!(post(&uri, twice, &[("authorization", &format!("Bearer {reader}"))]).await.0, 400);
    assert_eq!(stats.calls.load(Ordering::SeqCst), calls_before, "no refused call ran");

    // A writer may call it.
    let writer = key.sign(&claims(&issuer.url, &uri, "gauge:read gauge:work"));
    let client = Client::new(&uri, Era::Stateless).token(&writer).connect().await.unwrap();
    assert_eq!(call(&client, "work", json!({"ms": 0})).await, Ok("ada".into()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claims_reach_the_request_function_and_the_tool_filter() {
    let key = Signer::es256("k");
    let issuer = FakeIssuer::start(vec![key.jwk()]).await;
    let (uri, _) = serve(&issuer, |s| s).await;
    let auditor = key.sign(&{
        let mut c = claims(&issuer.url, &uri, "gauge:read gauge:work");
        c["sub"] = json!("grace");
        c["department"] = json!("audit");
        c
    });
    let client = Client::new(&uri, Era::Legacy).token(&auditor).connect().await.unwrap();
    assert_eq!(call(&client, "whoami", json!({})).await, Ok("auditor:grace".into()));
    let names: Vec<String> =
        client.list_all_tools().await.unwrap().iter().map(|t| t.name.to_string()).collect();
    assert_eq!(names, ["whoami"], "the filter read the claim through the context");
    // A client-credentials token without `sub` is its client.
    let machine = key.sign(&{
        let mut c = claims(&issuer.url, &uri, "gauge:read");
        c.as_object_mut().unwrap().remove("sub");
        c
    });
    let client = Client::new(&uri, Era::Stateless).token(&machine).connect().await.unwrap();
    assert_eq!(call(&client, "whoami", json!({})).await, Ok("client:cli".into()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opaque_tokens_are_introspected_and_the_answers_cached_briefly() {
    let issuer = FakeIssuer::start(Vec::new()).await;
    let (uri, _) = serve(&issuer, |s| {
        s.introspection("rs", "rs-secret").introspection_cache_ttl(Duration::from_millis(500))
    })
    .await;
    let answer = |scope: &str| {
        json!({"active": true, "sub": "opaque-user", "client_id": "cli", "scope": scope, "aud": uri,
               "iss": issuer.url, "exp": now() + 300})
    };
    issuer.opaque.lock().unwrap().insert("opaque-reader".into(), answer("gauge:read"));
    issuer.opaque.lock().unwrap().insert("opaque-other-aud".into(), {
        let mut a = answer("gauge:read");
        a["aud"] = json!("https://other.example/mcp");
        a
    });
    let introspections = || issuer.introspections.load(Ordering::SeqCst);
    let client = Client::new(&uri, Era::Stateless).token("opaque-reader").connect().await.unwrap();
    assert_eq!(call(&client, "whoami", json!({})).await, Ok("opaque-user".into()));
    let asked = introspections();
    assert!(asked >= 1);
    assert_eq!(call(&client, "whoami", json!({})).await, Ok("opaque-user".into()));
    assert_eq!(introspections(), asked, "answered from the cache");
    // Revoked: refused once the cached answer is older than its time.
    issuer.opaque.lock().unwrap().remove("opaque-reader");
    tokio::time::sleep(Duration::from_millis(600)).await;
    let (status, headers, _) =
        post(&uri, initialize_body(), &[("authorization", "Bearer opaque-reader")]).await;
    assert_eq!(status, 401);
    assert!(headers["www-authenticate"].to_str().unwrap().contains("the token is not active"));
    let (status, headers, _) =
        post(&uri, initialize_body(), &[("authorization", "Bearer opaque-other-aud")]).await;
    assert_eq!(status, 401);
    assert!(headers["www-authenticate"].to_str().unwrap().contains("not issued for this resource"));
    // Bad credentials of this server are the issuer's trouble, not the caller's: 503.
    let (uri, _) = serve(&issuer, |s| s.introspection("rs", "wrong")).await;
    let (status, headers, _) = post(&uri, initialize_body(), &[("authorization", "Bearer whatever")]).await;
    assert_eq!(status, 503);
    assert_eq!(headers["retry-after"], "5");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cached_token_is_not_used_past_its_expiry() {
    let key = Signer::es256("k");
    let issuer = FakeIssuer::start(vec![key.jwk()]).await;
    let resource = "http://127.0.0.1:9/mcp";
    let server = resource_server(&issuer, resource).leeway(Duration::ZERO);
    let mut short = claims(&issuer.url, resource, "");
    short["exp"] = json!(now() + 2);
    let token = key.sign(&short);
    assert!(server.verify(&token).await.is_ok());
    tokio::time::sleep(Duration::from_millis(3100)).await;
    assert_eq!(server.verify(&token).await.unwrap_err(), TokenError::Expired);
}
