//! How serving and calls fail: [`ServeError`] (the server could not serve), and a failed
//! call's `isError` result with its JSON object in `_meta` ([`error_json`] reads it).

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;

/// No error result is larger than this once encoded (the JSON-RPC reply around it adds
/// well under 4 KiB): past it, its text is cut and its JSON object reduced.
pub const MAX_ERROR_RESULT: usize = 60 * 1024;

/// The `_meta` key of a failed call's result that holds the error's JSON object
/// (`{"error": "invalid_arguments", ..}`): see [`error_json`]. Never `structuredContent`,
/// which clients check against the tool's output schema.
pub const ERROR_META_KEY: &str = "rs.toolcall/error";

/// Why the server could not start or stopped with an error. Each variant that has a
/// cause keeps it: [`std::error::Error::source`] returns it.
#[derive(Debug)]
#[non_exhaustive]
pub enum ServeError {
    /// The toolset's MCP definitions did not parse as rmcp tools (a toolcall bug).
    Definitions(String),
    /// The transport failed, said as text.
    #[deprecated(note = "no longer produced: a failure is `Bind`, `Io` or `Session`, with its cause")]
    Transport(String),
    /// The HTTP address could not be bound.
    Bind {
        /// The address asked for.
        addr: std::net::SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// Reading or writing the transport failed (stdio closed mid-message, a write to a
    /// closed pipe).
    Io(std::io::Error),
    /// rmcp could not start the session (the client's `initialize` failed) or ended it
    /// with an error.
    Session(Box<dyn std::error::Error + Send + Sync>),
}

impl std::fmt::Display for ServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServeError::Definitions(why) => write!(f, "the toolset's MCP definitions do not parse: {why}"),
            #[allow(deprecated)]
            ServeError::Transport(why) => write!(f, "MCP transport error: {why}"),
            ServeError::Bind { addr, source } => write!(f, "cannot listen on {addr}: {source}"),
            ServeError::Io(source) => write!(f, "MCP transport error: {source}"),
            ServeError::Session(source) => write!(f, "MCP session error: {source}"),
        }
    }
}

impl std::error::Error for ServeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ServeError::Bind { source, .. } | ServeError::Io(source) => Some(source),
            ServeError::Session(source) => Some(source.as_ref()),
            _ => None,
        }
    }
}

/// An `isError` result: the message, said once, in one text block (what a model reads),
/// and the error's JSON object under [`ERROR_META_KEY`] in the result's `_meta` when there
/// is one (what a program reads, with [`error_json`]). No `structuredContent`: a client
/// validates that against the tool's `outputSchema`, which an error never satisfies (the
/// TypeScript SDK throws on the mismatch instead of showing the model the error). At most
/// [`MAX_ERROR_RESULT`] bytes encoded (past it, the message is cut to 2,000 characters and
/// the JSON object reduced to its `error`, that message and `"truncated": true`).
pub(crate) fn error_result(message: &str, json: Option<Value>) -> CallToolResult {
    let build = |message: &str, json: Option<Value>| {
        let mut result = CallToolResult::error(vec![ContentBlock::text(message.to_owned())]);
        if let Some(json) = json {
            let mut meta = rmcp::model::MetaObject::new();
            meta.insert(ERROR_META_KEY.to_owned(), json);
            result.meta = Some(meta);
        }
        result
    };
    let kind = json.as_ref().and_then(|v| v.get("error").cloned());
    let result = build(message, json);
    let size = serde_json::to_vec(&result).map_or(usize::MAX, |bytes| bytes.len());
    if size <= MAX_ERROR_RESULT {
        return result;
    }
    let short = cut(message, 2000);
    let reduced = serde_json::json!({"error": kind, "message": short, "truncated": true});
    build(&short, Some(reduced))
}

/// The error's JSON object of an `isError` result this server sent (`{"error": kind, ..}`,
/// as [`ToolError::to_value`](toolcall_runtime::ToolError::to_value) gives it, or a `timeout` or `busy` object): the value under
/// [`ERROR_META_KEY`] in the result's `_meta`. `None` for a success, or a result from
/// another server.
pub fn error_json(result: &CallToolResult) -> Option<&Value> {
    result.meta.as_ref()?.get(ERROR_META_KEY)
}

pub(crate) use toolcall_runtime::capture::cut;

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::*;

    #[test]
    fn errors_with_a_cause_keep_it() {
        let refused = std::io::Error::new(std::io::ErrorKind::AddrInUse, "in use");
        let bind = ServeError::Bind {
            addr: "127.0.0.1:9".parse().unwrap_or(([127, 0, 0, 1], 9).into()),
            source: refused,
        };
        assert_eq!(bind.to_string(), "cannot listen on 127.0.0.1:9: in use");
        let source = bind.source().map(ToString::to_string);
        assert_eq!(source.as_deref(), Some("in use"));
        let session = ServeError::Session("initialize failed".into());
        assert_eq!(session.source().map(ToString::to_string).as_deref(), Some("initialize failed"));
        assert!(ServeError::Definitions("bad".into()).source().is_none());
    }
}
