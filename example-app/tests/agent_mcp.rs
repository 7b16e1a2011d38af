//! `example-app agent --mcp CMD_OR_URL`: an MCP server written with the official Python
//! SDK (toolcall-agent's `tests/servers/py_server.py`) offered beside the app's tools,
//! over stdio (a command line) and streamable HTTP (a URL), with the model on
//! toolcall-agent's scripted server. Without the Python SDK (`scripts/install-clients`)
//! the tests say SKIPPED; in CI (`CI` set) they fail instead.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../toolcall-agent/tests/common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use common::{Server, answer, tool_calls};
use tokio::io::AsyncBufReadExt;

/// The Python interpreter `scripts/install-clients` made; `None` (a failure in CI) when
/// it is not there.
fn python() -> Option<PathBuf> {
    let dir = std::env::var_os("TOOLCALL_CLIENTS_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".cache/toolcall-ci")))?;
    let python = dir.join("py/bin/python");
    if python.is_file() {
        return Some(python);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "the Python MCP SDK is not in {}: run scripts/install-clients",
        dir.display()
    );
    eprintln!("SKIPPED: the Python MCP SDK is not in {}: run scripts/install-clients", dir.display());
    None
}

fn script() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../toolcall-agent/tests/servers/py_server.py")
        .display()
        .to_string()
}

async fn agent(args: &[&str]) -> Output {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_example-app"))
        .arg("agent")
        .args(args)
        .env_remove("OPENAI_API_KEY")
        .output()
        .await
        .expect("example-app runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_servers_tools_are_offered_and_called_beside_the_apps() {
    let Some(python) = python() else { return };
    let stdio = format!("'{}' '{}' stdio", python.display(), script());

    let mut child = tokio::process::Command::new(&python)
        .arg(script())
        .arg("http")
        .kill_on_drop(true)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let line =
        tokio::time::timeout(Duration::from_secs(30), lines.next_line()).await.unwrap().unwrap().unwrap();
    let url = format!("http://127.0.0.1:{}/mcp", line.trim_start_matches("PORT ").trim());

    for server_arg in [stdio.as_str(), url.as_str()] {
        let calls = [("c1", "forecast", r#"{"city":"Oslo","days":2}"#), ("c2", "add", r#"{"a":1,"b":2}"#)];
        let server = Server::start(vec![tool_calls(&calls), answer("Oslo: 21.5.")]).await;
        let out = agent(&["Weather?", "--base-url", &server.base_url, "--mcp", server_arg]).await;
        assert!(out.status.success(), "{server_arg}: {}", text(&out.stderr));
        let stdout = text(&out.stdout);
        let expected = [
            r#"-> c1 forecast {"city":"Oslo","days":2}"#,
            r#"-> c2 add {"a":1,"b":2}"#,
            r#"<- c1 {"city":"Oslo","temp_c":21.5,"days":2}"#,
            "<- c2 3",
            "Oslo: 21.5.",
        ];
        assert_eq!(stdout.lines().collect::<Vec<_>>(), expected, "{server_arg}");
        let sent = &server.requests()[0].body["tools"];
        let names: Vec<&str> =
            sent.as_array().unwrap().iter().filter_map(|t| t["function"]["name"].as_str()).collect();
        assert!(
            names.contains(&"add") && names.contains(&"forecast") && names.contains(&"tally"),
            "{names:?}"
        );
        // The one tool a strict mode cannot take faithfully is named on stderr.
        assert!(text(&out.stderr).contains("warning: MCP server"), "{}", text(&out.stderr));
    }

    let out = agent(&["Weather?", "--base-url", "http://127.0.0.1:1/v1", "--mcp", "'unclosed"]).await;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let out =
        agent(&["Weather?", "--base-url", "http://127.0.0.1:1/v1", "--mcp", "/nonexistent/server"]).await;
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).starts_with("error: MCP server `/nonexistent/server`: cannot start"),
        "{}",
        text(&out.stderr)
    );
}
