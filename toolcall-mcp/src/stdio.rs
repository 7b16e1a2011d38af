//! stdio with a line limit that answers. rmcp's transport drops a line over its limit
//! without a word; here the lines are framed first, and a line over the limit is read
//! through without being kept (its first 64 KiB aside), reported on stderr with the
//! limit, and, when its top-level `id` can be read from those first 64 KiB, answered with
//! a JSON-RPC error so the client's request does not hang. Lines within the limit go on
//! to rmcp unchanged; rmcp's output goes to stdout line by line, with those errors
//! between whole lines.

use rmcp::ServiceExt;
use rmcp::service::RoleServer;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use crate::error::ServeError;
use crate::server::{McpServer, Server, Serving};

/// How much of a line over the limit is kept, to find its `id`.
const KEPT: usize = 64 * 1024;

/// A line over the limit: its size (at least), and the error to answer when it has an id.
#[derive(Debug, PartialEq)]
pub(crate) struct Oversized {
    pub(crate) bytes: usize,
    pub(crate) limit: usize,
    pub(crate) reply: Option<String>,
}

/// Copies lines from `input` to `to_rmcp`, each at most `limit` bytes (without its
/// newline); a longer one is reported on stderr and, with an id, answered through
/// `replies`. Ends at the end of `input`.
pub(crate) async fn read_lines(
    input: impl AsyncRead + Unpin,
    mut to_rmcp: impl AsyncWrite + Unpin,
    limit: usize,
    replies: mpsc::Sender<String>,
) -> std::io::Result<()> {
    let mut input = BufReader::with_capacity(64 * 1024, input);
    let mut line: Vec<u8> = Vec::new();
    // Some(kept, total) while reading through a line over the limit.
    let mut over: Option<(Vec<u8>, usize)> = None;
    loop {
        let buf = input.fill_buf().await?;
        if buf.is_empty() {
            if let Some((kept, total)) = over.take() {
                report(oversized(&kept, total, limit), &replies).await;
            } else if !line.is_empty() {
                line.push(b'\n');
                to_rmcp.write_all(&line).await?;
            }
            to_rmcp.shutdown().await?;
            return Ok(());
        }
        let (chunk, ends) = match buf.iter().position(|b| *b == b'\n') {
            Some(i) => (&buf[..i], true),
            None => (buf, false),
        };
        let used = chunk.len() + usize::from(ends);
        match &mut over {
            Some((kept, total)) => {
                let room = KEPT.saturating_sub(kept.len());
                kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
                *total += chunk.len();
            }
            None if line.len() + chunk.len() > limit => {
                let mut kept = std::mem::take(&mut line);
                let total = kept.len() + chunk.len();
                kept.truncate(KEPT);
                let room = KEPT.saturating_sub(kept.len());
                kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
                over = Some((kept, total));
            }
            None => line.extend_from_slice(chunk),
        }
        input.consume(used);
        if ends {
            match over.take() {
                Some((kept, total)) => report(oversized(&kept, total, limit), &replies).await,
                None => {
                    line.push(b'\n');
                    to_rmcp.write_all(&line).await?;
                    to_rmcp.flush().await?;
                    line.clear();
                }
            }
        }
    }
}

/// What to do about a line of `total` bytes over `limit`, whose first bytes are `kept`.
pub(crate) fn oversized(kept: &[u8], total: usize, limit: usize) -> Oversized {
    let reply = top_level_id(kept).map(|id| {
        json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {
                "code": -32600,
                "message": format!(
                    "Invalid Request: the message is over the limit of {limit} bytes per line \
                     ({total} bytes or more); it was not read"
                ),
                "data": {"limit": limit, "bytes": total},
            }
        })
        .to_string()
    });
    Oversized { bytes: total, limit, reply }
}

async fn report(line: Oversized, replies: &mpsc::Sender<String>) {
    let answered =
        if line.reply.is_some() { "answered with a JSON-RPC error" } else { "no id found, not answered" };
    eprintln!(
        "toolcall-mcp: dropped a stdin line of {} bytes or more: over the limit of {} bytes per line; {answered}",
        line.bytes, line.limit
    );
    if let Some(reply) = line.reply {
        let _ = replies.send(reply).await;
    }
}

/// Copies rmcp's output lines from `from_rmcp` to `output`, and each of `replies` between
/// two lines. Ends when rmcp's output ends.
pub(crate) async fn write_lines(
    from_rmcp: impl AsyncRead + Unpin,
    mut output: impl AsyncWrite + Unpin,
    mut replies: mpsc::Receiver<String>,
) -> std::io::Result<()> {
    let mut from_rmcp = BufReader::new(from_rmcp);
    let mut line = Vec::new();
    let mut replies_open = true;
    loop {
        tokio::select! {
            read = from_rmcp.read_until(b'\n', &mut line) => {
                if read? == 0 {
                    return output.flush().await;
                }
                output.write_all(&line).await?;
                output.flush().await?;
                line.clear();
            }
            reply = replies.recv(), if replies_open && line.is_empty() => match reply {
                Some(reply) => {
                    output.write_all(reply.as_bytes()).await?;
                    output.write_all(b"\n").await?;
                    output.flush().await?;
                }
                None => replies_open = false,
            },
        }
    }
}

/// The `id` member of the top-level object that `text` begins, when it can be read from
/// `text` (a prefix of a JSON-RPC message): a string, a number or null.
pub(crate) fn top_level_id(text: &[u8]) -> Option<Value> {
    let skip_space = |mut i: usize| {
        while text.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        i
    };
    let mut i = skip_space(0);
    if text.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    let mut depth = 1usize;
    let mut key_next = true;
    while i < text.len() {
        match text[i] {
            b'{' | b'[' => {
                depth += 1;
                i += 1;
            }
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return None;
                }
                i += 1;
            }
            b',' => {
                key_next = depth == 1;
                i += 1;
            }
            b'"' => {
                let end = string_end(text, i)?;
                if depth == 1 && key_next {
                    key_next = false;
                    let colon = skip_space(end);
                    if text.get(colon) != Some(&b':') {
                        return None;
                    }
                    let value = skip_space(colon + 1);
                    if &text[i..end] == b"\"id\"" {
                        let mut values =
                            serde_json::Deserializer::from_slice(text.get(value..)?).into_iter::<Value>();
                        return match values.next() {
                            Some(Ok(id)) if id.is_string() || id.is_number() || id.is_null() => Some(id),
                            _ => None,
                        };
                    }
                    i = value;
                } else {
                    i = end;
                }
            }
            _ => i += 1,
        }
    }
    None
}

/// The index just past the string starting at `text[start]` (a `"`).
fn string_end(text: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < text.len() {
        match text[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

impl<C: Send + Sync + 'static> McpServer<C> {
    /// Serves over stdin/stdout until the client disconnects. Nothing but protocol
    /// messages is written to stdout; log to stderr. A line over
    /// [`McpServer::max_line_length`] is reported on stderr and answered when it has an id.
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
        self.serve_lines(tokio::io::stdin(), tokio::io::stdout()).await
    }

    /// [`McpServer::serve_stdio`] over any reader and writer of lines (a pipe, a socket).
    pub async fn serve_lines(
        self,
        input: impl tokio::io::AsyncRead + Unpin + Send + 'static,
        output: impl tokio::io::AsyncWrite + Unpin + Send + 'static,
    ) -> Result<(), ServeError> {
        self.server.serve_lines(Box::new(input), Box::new(output)).await
    }
}

impl Server {
    /// [`McpServer::serve_lines`], the reader and writer boxed and the serving boxed
    /// here ([`Serving`]), so that it compiles once.
    fn serve_lines(
        self,
        input: Box<dyn tokio::io::AsyncRead + Unpin + Send>,
        output: Box<dyn tokio::io::AsyncWrite + Unpin + Send>,
    ) -> Serving {
        Box::pin(async move {
            self.check_definitions()?;
            let (to_rmcp, rmcp_in) = tokio::io::duplex(64 * 1024);
            let (rmcp_out, from_rmcp) = tokio::io::duplex(64 * 1024);
            let (replies, answered) = tokio::sync::mpsc::channel(16);
            let reader = tokio::spawn(read_lines(input, to_rmcp, self.max_line, replies));
            let writer = tokio::spawn(write_lines(from_rmcp, output, answered));
            let lines =
                rmcp::transport::async_rw::AsyncRwTransport::<RoleServer, _, _>::new(rmcp_in, rmcp_out)
                    .with_max_line_length(usize::MAX);
            let running =
                self.for_session().serve(lines).await.map_err(|e| ServeError::Session(Box::new(e)))?;
            let served = running.waiting().await.map_err(|e| ServeError::Session(Box::new(e)));
            reader.abort();
            if let Ok(written) = writer.await {
                written.map_err(ServeError::Io)?;
            }
            served.map(drop)
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn the_top_level_id_is_found_wherever_it_is() {
        let id = |text: &str| top_level_id(text.as_bytes());
        assert_eq!(id(r#"{"jsonrpc":"2.0","id":7,"method":"x"}"#), Some(json!(7)));
        assert_eq!(id(r#" { "id" : "a\"b" , "x": 1"#), Some(json!("a\"b")));
        assert_eq!(id(r#"{"params":{"id":5,"a":[{"id":6}]},"id":8,"method":"#), Some(json!(8)));
        assert_eq!(
            id(r#"{"params":{"id":5},"method":"tools/call","params2":"xxxx"#),
            None,
            "cut before the id"
        );
        assert_eq!(id(r#"{"a":"}\"id\":3","id":null}"#), Some(Value::Null));
        assert_eq!(id(r#"{"id":{"x":1}}"#), None, "not an id");
        assert_eq!(id(r#"["id",1]"#), None);
        assert_eq!(id(""), None);
        assert_eq!(id(r#"{"jsonrpc":"2.0","method":"notifications/x"}"#), None);
    }

    #[tokio::test]
    async fn lines_over_the_limit_are_answered_and_the_rest_go_through() {
        let big = format!(
            r#"{{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{{"pad":"{}"}}}}"#,
            "x".repeat(300)
        );
        let anonymous =
            format!(r#"{{"jsonrpc":"2.0","method":"n","params":{{"pad":"{}"}}}}"#, "y".repeat(300));
        let input = format!("{{\"a\":1}}\n{big}\n{anonymous}\n{{\"b\":2}}\n{{\"c\":3}}");
        let (to_rmcp, mut rmcp_side) = tokio::io::duplex(1 << 16);
        let (replies, mut answered) = mpsc::channel(4);
        read_lines(input.as_bytes(), to_rmcp, 100, replies).await.unwrap();
        let mut passed = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut rmcp_side, &mut passed).await.unwrap();
        assert_eq!(passed, "{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n");
        let reply: Value = serde_json::from_str(&answered.recv().await.unwrap()).unwrap();
        assert_eq!(reply["id"], 42);
        assert_eq!(reply["error"]["code"], -32600);
        assert_eq!(reply["error"]["data"]["limit"], 100);
        assert_eq!(reply["error"]["data"]["bytes"], big.len());
        assert!(answered.try_recv().is_err(), "the line without an id is not answered");
    }
}
