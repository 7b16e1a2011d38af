//! End to end against a real OpenID provider (npm `oidc-provider`, installed by
//! `scripts/install-clients`, started by the test on Node 22): client credentials with a
//! resource indicator (RFC 8707) give a JWT access token whose audience is the MCP
//! server's URI, signed with the provider's keys, which the server finds through the
//! provider's discovery document; an opaque token for another server is checked through
//! the provider's introspection endpoint. Served: example-app's tools, where every request
//! needs `notes:read` and `add_note`/`remove_note` need `notes:write`. Outside CI a
//! missing provider skips with a note; in CI (`CI` set) it fails.

#![cfg(feature = "oauth")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod oidc;

use std::sync::Arc;
use std::time::Duration;

use example_app::App;
use example_app::app::Store;
use example_app::models::{Role, User};
use serde_json::{Value, json};
use toolcall_mcp::oauth::{AccessToken, ResourceServer, TokenSource};
use toolcall_mcp::{Caller, McpServer, Rejection};

use common::net::{Client, Era, call, initialize_body, post};
use oidc::Provider;

const WRITER: (&str, &str) = ("mcp-writer", "mcp-writer-secret");
const READER: (&str, &str) = ("mcp-reader", "mcp-reader-secret");
const SCOPES: &str = "notes:read notes:write";

/// example-app's tools behind `oauth`, the token's principal as the user (a stable id from
/// it), on `listener`.
fn serve(listener: tokio::net::TcpListener, oauth: ResourceServer) {
    let store = Arc::new(Store::seeded(Duration::ZERO));
    let local = App::for_user(&store, User::ada());
    let server = McpServer::new(&example_app::toolset::ALL, local)
        .oauth(
            oauth
                .required_scopes(["notes:read"])
                .tool_scopes("add_note", ["notes:write"])
                .tool_scopes("remove_note", ["notes:write"]),
        )
        .context_from_request(move |request| {
            let token = AccessToken::of(request).ok_or_else(|| Rejection::unauthorized("no token"))?;
            let id = 1000 + token.principal().len() as u64;
            let user = User { id, name: token.principal().to_owned(), role: Role::Editor };
            Ok(Caller::new(token.principal(), App::for_user(&store, user)))
        });
    tokio::spawn(server.serve_http_on(listener));
}

async fn listener() -> (tokio::net::TcpListener, String) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let uri = format!("http://{}/mcp", listener.local_addr().unwrap());
    (listener, uri)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_from_a_real_openid_provider() {
    let (jwt_listener, jwt_uri) = listener().await;
    let (opaque_listener, opaque_uri) = listener().await;
    let elsewhere = "http://127.0.0.1:1/elsewhere";
    let resources = json!({
        jwt_uri.clone(): {"format": "jwt", "scope": SCOPES},
        opaque_uri.clone(): {"format": "opaque", "scope": SCOPES},
        elsewhere: {"format": "jwt", "scope": SCOPES},
    });
    let Some(provider) = Provider::start(&resources).await else { return };

    let jwt_server = ResourceServer::new(&provider.issuer, &jwt_uri).unwrap();
    jwt_server.discover().await.expect("the provider's discovery document and keys");
    serve(jwt_listener, jwt_server);
    serve(
        opaque_listener,
        ResourceServer::new(&provider.issuer, &opaque_uri)
            .unwrap()
            .introspection("mcp-resource-server", "mcp-resource-server-secret"),
    );

    // Without a token: 401, pointing at the metadata, which names the provider.
    let metadata_url = jwt_uri.replace("/mcp", "/.well-known/oauth-protected-resource/mcp");
    let (status, headers, _) = post(&jwt_uri, initialize_body(), &[]).await;
    assert_eq!(status, 401);
    assert_eq!(
        headers["www-authenticate"],
        format!(r#"Bearer scope="notes:read", resource_metadata="{metadata_url}""#).as_str()
    );
    let document: Value = reqwest::get(&metadata_url).await.unwrap().json().await.unwrap();
    assert_eq!(document["resource"], jwt_uri.as_str());
    assert_eq!(document["authorization_servers"], json!([provider.issuer]));
    assert_eq!(document["scopes_supported"], json!(["notes:read", "notes:write"]));

    // A reader's JWT: the audience is this server, the subject the client.
    let answer = provider.token(READER, &jwt_uri, "notes:read").await;
    let reader = answer["access_token"].as_str().unwrap().to_owned();
    assert_eq!(reader.split('.').count(), 3, "a JWT: {answer}");
    assert_eq!(answer["scope"], "notes:read");
    let verified = ResourceServer::new(&provider.issuer, &jwt_uri).unwrap().verify(&reader).await.unwrap();
    assert_eq!(verified.source(), TokenSource::Jwt);
    assert_eq!(
        (verified.client_id(), verified.scopes()),
        (Some("mcp-reader"), &["notes:read".to_owned()][..])
    );
    assert_eq!(verified.audience(), std::slice::from_ref(&jwt_uri));
    for era in [Era::Legacy, Era::Stateless] {
        let client = Client::new(&jwt_uri, era).token(&reader).connect().await.expect("a reader connects");
        let notes = call(&client, "list_notes", json!({})).await;
        assert!(notes.is_ok(), "{era:?}: {notes:?}");
        assert!(call(&client, "add_note", json!({"text": "no"})).await.is_err(), "{era:?}");
    }
    // The reader's call of a writing tool, raw: 403 naming notes:write, so it can step up.
    let add = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                     "params": {"name": "add_note", "arguments": {"text": "no"}}})
    .to_string();
    let bearer = |token: &str| format!("Bearer {token}");
    let (status, headers, text) = post(&jwt_uri, add.clone(), &[("authorization", &bearer(&reader))]).await;
    assert_eq!(status, 403, "{text}");
    let challenge = headers["www-authenticate"].to_str().unwrap();
    assert!(challenge.starts_with(r#"Bearer error="insufficient_scope""#), "{challenge}");
    assert!(challenge.contains(r#"scope="notes:read notes:write""#), "{challenge}");

    // Stepped up: a writer's token may add a note, and reads it back.
    let writer = provider.token(WRITER, &jwt_uri, SCOPES).await["access_token"].as_str().unwrap().to_owned();
    let client = Client::new(&jwt_uri, Era::Stateless).token(&writer).connect().await.unwrap();
    let added = call(&client, "add_note", json!({"text": "from the provider"})).await;
    assert!(added.is_ok(), "{added:?}");
    let notes = call(&client, "list_notes", json!({})).await.unwrap();
    assert!(notes.contains("from the provider"), "{notes}");

    // A JWT of the same provider for another resource: refused for its audience.
    let other = provider.token(WRITER, elsewhere, SCOPES).await["access_token"].as_str().unwrap().to_owned();
    let (status, headers, _) = post(&jwt_uri, initialize_body(), &[("authorization", &bearer(&other))]).await;
    assert_eq!(status, 401);
    assert!(headers["www-authenticate"].to_str().unwrap().contains("not issued for this resource"));

    // Opaque tokens, through introspection: the reader's works on its own server only.
    let opaque =
        provider.token(READER, &opaque_uri, "notes:read").await["access_token"].as_str().unwrap().to_owned();
    assert_ne!(opaque.split('.').count(), 3, "an opaque token");
    let client =
        Client::new(&opaque_uri, Era::Stateless).token(&opaque).connect().await.expect("introspected");
    assert!(call(&client, "list_notes", json!({})).await.is_ok());
    let (status, _, _) = post(&opaque_uri, add, &[("authorization", &bearer(&opaque))]).await;
    assert_eq!(status, 403, "the opaque reader cannot write either");
    let (status, _, _) = post(&jwt_uri, initialize_body(), &[("authorization", &bearer(&opaque))]).await;
    assert_eq!(status, 401, "the JWT server has no introspection credentials");
    let (status, headers, _) =
        post(&opaque_uri, initialize_body(), &[("authorization", &bearer(&other))]).await;
    assert_eq!(status, 401, "a JWT for another resource on the opaque server");
    assert!(headers["www-authenticate"].to_str().unwrap().contains("not issued for this resource"));
    drop(provider);
}
