//! The tools-only server over stdio, as a client sees it: tools are listed and called;
//! nothing else is offered, and a tool's question is refused in the tool, naming the
//! feature, without a request to the client.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

/// The server, its stdin, and its stdout's lines as JSON.
struct Session {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<Value>,
}

impl Session {
    /// A started server, initialized by a client on `version` that declares elicitation
    /// and sampling: the server's `initialize` result.
    fn start(version: &str) -> (Session, Value) {
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolcall-mcp-tools-only"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the server starts");
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
                if send.send(value).is_err() {
                    return;
                }
            }
        });
        let mut session = Session { child, stdin, lines };
        let capabilities = json!({"elicitation": {"form": {}, "url": {}}, "sampling": {}});
        let init = json!({"protocolVersion": version, "capabilities": capabilities, "clientInfo": {"name": "t", "version": "0"}});
        let result = session.request(1, "initialize", init);
        session.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        (session, result)
    }

    fn send(&mut self, message: Value) {
        writeln!(self.stdin, "{message}").expect("the server reads stdin");
        self.stdin.flush().expect("the server reads stdin");
    }

    /// The answer to request `id`, with every message the server sent before it.
    fn exchange(&mut self, id: u64, method: &str, params: Value) -> (Value, Vec<Value>) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut before = Vec::new();
        loop {
            let message = self.lines.recv_timeout(Duration::from_secs(30)).expect("the server answers");
            if message["id"] == json!(id) && message.get("method").is_none() {
                return (message, before);
            }
            before.push(message);
        }
    }

    /// The result of request `id` (which must succeed).
    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        let (answer, _) = self.exchange(id, method, params);
        assert!(answer.get("error").is_none(), "{method}: {answer}");
        answer["result"].clone()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn only_tools_and_logging_are_offered() {
    let (_session, init) = Session::start("2025-11-25");
    let capabilities = init["capabilities"].as_object().expect("capabilities");
    let mut offered: Vec<&str> = capabilities.keys().map(String::as_str).collect();
    offered.sort_unstable();
    assert_eq!(offered, ["logging", "tools"], "{init}");
}

#[test]
fn tools_are_listed_and_called() {
    let (mut session, _) = Session::start("2025-11-25");
    let list = session.request(2, "tools/list", json!({}));
    let names: Vec<&str> =
        list["tools"].as_array().expect("tools").iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["add", "confirm"]);
    let result = session.request(3, "tools/call", json!({"name": "add", "arguments": {"a": 2, "b": 40}}));
    assert_eq!(result["content"][0]["text"], json!("42"), "{result}");
    let (bad, _) =
        session.exchange(4, "tools/call", json!({"name": "add", "arguments": {"a": "2", "b": 40}}));
    let text = bad["result"]["content"][0]["text"].as_str().unwrap_or_default();
    assert!(bad["result"]["isError"] == json!(true) && text.contains("a: expected an integer"), "{bad}");
}

#[test]
fn a_question_is_refused_in_the_tool_naming_the_feature_and_never_sent() {
    for version in ["2025-11-25", "2025-06-18"] {
        let (mut session, _) = Session::start(version);
        let (answer, before) = session.exchange(2, "tools/call", json!({"name": "confirm", "arguments": {}}));
        // The tool's result, a string, as its own text.
        let text = answer["result"]["content"][0]["text"].as_str().unwrap_or_default();
        assert!(
            text.starts_with("unsupported: ") && text.contains("without toolcall-mcp's feature `ask`"),
            "{version}: {answer}"
        );
        assert!(
            before.iter().all(|m| m
                .get("method")
                .is_none_or(|m| !m.as_str().unwrap_or_default().starts_with("elicitation/"))),
            "{version}: a request was sent: {before:?}"
        );
    }
}

#[test]
fn resources_prompts_and_completions_are_unknown_methods() {
    let (mut session, _) = Session::start("2025-11-25");
    let asks = [
        ("resources/list", json!({})),
        ("resources/templates/list", json!({})),
        ("resources/read", json!({"uri": "file:///x"})),
        ("resources/subscribe", json!({"uri": "file:///x"})),
        ("prompts/list", json!({})),
        ("prompts/get", json!({"name": "p"})),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "a", "value": ""}}),
        ),
    ];
    for (id, (method, params)) in (10..).zip(asks) {
        let (answer, _) = session.exchange(id, method, params);
        assert_eq!(answer["error"]["code"], json!(-32601), "{method}: {answer}");
    }
    // The server still answers afterwards.
    session.request(99, "ping", json!({}));
}
