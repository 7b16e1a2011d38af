//! `example-app serve --http ADDR --auth-issuer URL --resource URL` as a child process,
//! against a real OpenID provider (npm `oidc-provider`, installed by
//! `scripts/install-clients`; the provider of toolcall-mcp's OAuth tests): client
//! credentials with the server's URL as resource give JWTs for it (or, for a resource the
//! provider issues opaque tokens for, tokens the server introspects with
//! `--introspection-client-id` and the secret from `--introspection-client-secret-env`).
//! Every request needs `notes:read`; `add_note` and `remove_note` need `notes:write` (their
//! `.scopes(..)` in `TOOLS`, no flag of `serve`), and a reader's call of one gets 403 with
//! `error="insufficient_scope"` naming `notes:write`; each token subject is a user of its
//! own, with its own notes. Outside CI a missing provider skips with a note; in CI (`CI`
//! set) it fails.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Stdio;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

#[path = "../../toolcall-mcp/tests/common/net.rs"]
#[allow(dead_code)]
mod net;
#[path = "../../toolcall-mcp/tests/oidc/provider.rs"]
mod provider;

use net::{Client, Era, call, initialize_body, post};
use provider::{Provider, form_encode};

const WRITER: (&str, &str) = ("mcp-writer", "mcp-writer-secret");
const READER: (&str, &str) = ("mcp-reader", "mcp-reader-secret");
/// The provider's client for resource servers: it may introspect, and asks for no tokens.
const RESOURCE_SERVER: (&str, &str) = ("mcp-resource-server", "mcp-resource-server-secret");
/// The environment variable `serve` reads the introspection secret from.
const SECRET_ENV: &str = "EXAMPLE_APP_TEST_INTROSPECTION_SECRET";

/// A free port on 127.0.0.1, so the resource URL can name it before the server starts,
/// and that URL.
fn free_port() -> (u16, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    (port, format!("http://127.0.0.1:{port}/mcp"))
}

/// `example-app serve --http 127.0.0.1:PORT --auth-issuer ISSUER --resource URI` with
/// `more` arguments and `env`, once it listens; killed when dropped.
async fn serve(
    port: u16,
    issuer: &str,
    uri: &str,
    more: &[&str],
    env: &[(&str, &str)],
) -> tokio::process::Child {
    let addr = format!("127.0.0.1:{port}");
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_example-app"));
    command
        .args(["serve", "--http", &addr, "--auth-issuer", issuer, "--resource", uri])
        .args(more)
        .env_remove("TOOLCALL_MCP_TOKEN")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = command.spawn().expect("spawn example-app");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let line = lines.next_line().await.unwrap().expect("a line on stderr");
    assert_eq!(line, format!("listening on http://{addr}/mcp"));
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    child
}

/// `Authorization: Bearer TOKEN`'s value.
fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scopes_decide_what_a_token_may_do() {
    let (port, uri) = free_port();
    let resources = json!({uri.clone(): {"format": "jwt", "scope": "notes:read notes:write"}});
    let Some(provider) = Provider::start(&resources).await else { return };
    let mut child = serve(port, &provider.issuer, &uri, &[], &[]).await;

    // Without a token: 401 pointing at the metadata, which names the provider and scopes.
    let metadata_url = format!("http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp");
    let (status, headers, _) = post(&uri, initialize_body(), &[]).await;
    assert_eq!(status, 401);
    assert_eq!(
        headers["www-authenticate"],
        format!(r#"Bearer scope="notes:read", resource_metadata="{metadata_url}""#).as_str()
    );
    let document: Value = reqwest::get(&metadata_url).await.unwrap().json().await.unwrap();
    assert_eq!(
        (&document["resource"], &document["authorization_servers"], &document["scopes_supported"]),
        (&json!(uri), &json!([provider.issuer]), &json!(["notes:read", "notes:write"]))
    );

    // A reader lists and reads; writing is 403, naming notes:write.
    let reader =
        provider.token(READER, &uri, "notes:read").await["access_token"].as_str().unwrap().to_owned();
    let client =
        Client::new(&uri, Era::Stateless).token(&reader).connect().await.expect("the reader connects");
    assert_eq!(call(&client, "list_notes", json!({})).await, Ok("[]".into()), "a new user has no notes");
    // The writing tools stay listed to a reader, so a client knows which scope to ask for.
    let listed: Vec<String> =
        client.list_all_tools().await.unwrap().into_iter().map(|tool| tool.name.to_string()).collect();
    assert!(["add_note", "remove_note"].iter().all(|tool| listed.iter().any(|l| l == tool)), "{listed:?}");
    let whoami: Value = serde_json::from_str(&call(&client, "whoami", json!({})).await.unwrap()).unwrap();
    assert_eq!(whoami["name"], "mcp-reader", "the token's subject (here the client)");
    let reader_id = whoami["id"].as_u64().unwrap();
    assert!(reader_id >= 1 << 52, "{whoami}");
    let add = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                     "params": {"name": "add_note", "arguments": {"text": "mine"}}})
    .to_string();
    let (status, headers, text) =
        post(&uri, add.clone(), &[("authorization", &format!("Bearer {reader}"))]).await;
    assert_eq!(status, 403, "{text}");
    let challenge = headers["www-authenticate"].to_str().unwrap();
    assert!(challenge.starts_with(r#"Bearer error="insufficient_scope""#), "{challenge}");
    assert!(challenge.contains(r#"scope="notes:read notes:write""#), "{challenge}");
    assert!(challenge.contains(&format!(r#"resource_metadata="{metadata_url}""#)), "{challenge}");
    let remove = add.replace("add_note", "remove_note").replace(r#"{"text":"mine"}"#, r#"{"id":1}"#);
    assert_eq!(post(&uri, remove, &[("authorization", &format!("Bearer {reader}"))]).await.0, 403);

    // A writer (another subject: another user) adds a note and reads it; the reader, the
    // same server and another user, does not see it.
    let writer = provider.token(WRITER, &uri, "notes:read notes:write").await["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let client = Client::new(&uri, Era::Legacy).token(&writer).connect().await.expect("the writer connects");
    assert!(call(&client, "add_note", json!({"text": "written with notes:write"})).await.is_ok());
    let notes = call(&client, "list_notes", json!({})).await.unwrap();
    assert!(notes.contains("written with notes:write"), "{notes}");
    let whoami: Value = serde_json::from_str(&call(&client, "whoami", json!({})).await.unwrap()).unwrap();
    assert_ne!(whoami["id"].as_u64(), Some(reader_id));
    let client = Client::new(&uri, Era::Stateless).token(&reader).connect().await.unwrap();
    assert_eq!(call(&client, "list_notes", json!({})).await, Ok("[]".into()));

    let _ = child.start_kill();
    drop(provider);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opaque_tokens_are_introspected() {
    let (port, uri) = free_port();
    let resources = json!({uri.clone(): {"format": "opaque", "scope": "notes:read notes:write"}});
    let Some(provider) = Provider::start(&resources).await else { return };
    let introspection =
        ["--introspection-client-id", RESOURCE_SERVER.0, "--introspection-client-secret-env", SECRET_ENV];
    let mut child =
        serve(port, &provider.issuer, &uri, &introspection, &[(SECRET_ENV, RESOURCE_SERVER.1)]).await;

    // A reader's opaque token: accepted through introspection, with its scopes.
    let reader =
        provider.token(READER, &uri, "notes:read").await["access_token"].as_str().unwrap().to_owned();
    assert_ne!(reader.split('.').count(), 3, "an opaque token, not a JWT: {reader}");
    let client = Client::new(&uri, Era::Legacy).token(&reader).connect().await.expect("introspected");
    assert_eq!(call(&client, "list_notes", json!({})).await, Ok("[]".into()));
    let whoami: Value = serde_json::from_str(&call(&client, "whoami", json!({})).await.unwrap()).unwrap();
    // The answer names no subject (client credentials): the user is the client.
    assert_eq!(whoami["name"], "client:mcp-reader", "{whoami}");
    let add = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                     "params": {"name": "add_note", "arguments": {"text": "mine"}}})
    .to_string();
    let (status, headers, text) = post(&uri, add, &[("authorization", &bearer(&reader))]).await;
    assert_eq!(status, 403, "{text}");
    let challenge = headers["www-authenticate"].to_str().unwrap();
    assert!(challenge.contains(r#"scope="notes:read notes:write""#), "{challenge}");

    // A writer's opaque token may write.
    let writer = provider.token(WRITER, &uri, "notes:read notes:write").await["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let client = Client::new(&uri, Era::Stateless).token(&writer).connect().await.expect("introspected");
    assert!(call(&client, "add_note", json!({"text": "opaque"})).await.is_ok());

    // A token the provider never issued, and one it revoked: 401, invalid_token.
    let revoked =
        provider.token(WRITER, &uri, "notes:read").await["access_token"].as_str().unwrap().to_owned();
    revoke(&provider.issuer, WRITER, &revoked).await;
    for (token, what) in [("made-up-token", "unknown"), (revoked.as_str(), "revoked")] {
        let (status, headers, text) =
            post(&uri, initialize_body(), &[("authorization", &bearer(token))]).await;
        assert_eq!(status, 401, "{what}: {text}");
        let challenge = headers["www-authenticate"].to_str().unwrap();
        assert!(challenge.starts_with(r#"Bearer error="invalid_token""#), "{what}: {challenge}");
    }

    let _ = child.start_kill();
    drop(provider);
}

/// Revokes `token` at the provider (RFC 7009) as `client`, the client it was issued to.
async fn revoke(issuer: &str, client: (&str, &str), token: &str) {
    let response = reqwest::Client::new()
        .post(format!("{issuer}/token/revocation"))
        .basic_auth(client.0, Some(client.1))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!("token={}&token_type_hint=access_token", form_encode(token)))
        .send()
        .await
        .expect("the revocation endpoint answers");
    assert_eq!(response.status(), 200, "revocation: {}", response.text().await.unwrap_or_default());
}
