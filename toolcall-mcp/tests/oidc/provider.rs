//! The real OpenID provider of the OAuth end-to-end tests: `tests/clients/oidc_provider.mjs`
//! on npm `oidc-provider`, both installed by `scripts/install-clients` (with the Node 22
//! it runs on), started per test and stopped when dropped. Only tokio, reqwest and
//! serde_json: example-app's tests include this file too.
#![allow(dead_code, clippy::expect_used, clippy::unwrap_used)]

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};

/// The provider's script, run with `node --input-type=module --eval`.
const SCRIPT: &str = include_str!("../clients/oidc_provider.mjs");

/// Where `scripts/install-clients` puts its installs: `TOOLCALL_CLIENTS_DIR`, else
/// `~/.cache/toolcall-ci`.
pub fn clients_dir() -> PathBuf {
    std::env::var_os("TOOLCALL_CLIENTS_DIR").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/toolcall-ci")
    })
}

/// Node 22 and the directory holding `oidc-provider`, if `scripts/install-clients`
/// installed them; in CI (`CI` set) their absence fails the test instead of skipping it.
pub fn provider_install() -> Option<(PathBuf, PathBuf)> {
    let dir = clients_dir();
    let node = dir.join("node22/node_modules/node/bin/node");
    let modules = dir.join("oidc/node_modules");
    if node.exists() && modules.join("oidc-provider/package.json").exists() {
        return Some((node, modules));
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "oidc-provider or Node 22 is not in {}: run scripts/install-clients",
        dir.display()
    );
    eprintln!("SKIPPED: oidc-provider or Node 22 is not in {}: run scripts/install-clients", dir.display());
    None
}

/// A real OpenID provider (`tests/clients/oidc_provider.mjs` on `oidc-provider`),
/// stopped when dropped.
pub struct Provider {
    /// The issuer: `http://127.0.0.1:PORT`.
    pub issuer: String,
    child: tokio::process::Child,
}

impl Drop for Provider {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}

impl Provider {
    /// Starts the provider for the resources in `resources` (JSON the script reads: each
    /// resource URI and its token format), `None` when it is not installed (outside CI).
    pub async fn start(resources: &Value) -> Option<Provider> {
        let (node, modules) = provider_install()?;
        let mut child = tokio::process::Command::new(node)
            .args(["--input-type=module", "--eval", SCRIPT])
            .env("OIDC_MODULES", modules)
            .env("OIDC_RESOURCES", resources.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("node starts");
        let stdout = child.stdout.take().expect("stdout");
        let mut lines = BufReader::new(stdout).lines();
        let first = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .expect("the provider starts within 30 s")
            .expect("its stdout")
            .expect("a first line");
        let issuer = first.strip_prefix("issuer ").expect("`issuer URL` first").to_owned();
        // Keep reading its stdout so it never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        Some(Provider { issuer, child })
    }

    /// A token from the client-credentials grant for `resource` with `scope`; the token
    /// endpoint's whole answer.
    pub async fn token(&self, client: (&str, &str), resource: &str, scope: &str) -> Value {
        let body = format!(
            "grant_type=client_credentials&resource={}&scope={}",
            form_encode(resource),
            form_encode(scope)
        );
        let response = reqwest::Client::new()
            .post(format!("{}/token", self.issuer))
            .basic_auth(client.0, Some(client.1))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .expect("the token endpoint answers");
        let status = response.status();
        let answer: Value = response.json().await.expect("JSON");
        assert_eq!(status, 200, "token endpoint: {answer}");
        answer
    }
}

/// `text` as an `application/x-www-form-urlencoded` value, for the tests' own requests to
/// the provider (this file's token requests and example-app's revocation).
pub fn form_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}
