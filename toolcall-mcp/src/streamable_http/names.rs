//! The headers of the MCP transport that this layer reads and writes, as [`HeaderName`]s
//! built at compile time: a lookup by `&str` parses and checks the name on every request
//! (about 200 instructions each, several per call).

use axum::http::HeaderName;

/// `MCP-Protocol-Version`: the revision a request speaks.
pub(crate) const PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
/// `Mcp-Session-Id`: a legacy session's id.
pub(crate) const SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
/// `Mcp-Method` (SEP-2243): the method a 2026-07-28 request's body names.
pub(crate) const METHOD: HeaderName = HeaderName::from_static("mcp-method");
/// `Mcp-Name` (SEP-2243): the tool a 2026-07-28 call's body names.
pub(crate) const NAME: HeaderName = HeaderName::from_static("mcp-name");
/// `X-Accel-Buffering`: `no` on an event stream, so a proxy (nginx) does not hold it.
pub(crate) const X_ACCEL_BUFFERING: HeaderName = HeaderName::from_static("x-accel-buffering");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_names_are_the_transports_lowercase_names() {
        let names = [PROTOCOL_VERSION, SESSION_ID, METHOD, NAME, X_ACCEL_BUFFERING];
        let written =
            ["mcp-protocol-version", "mcp-session-id", "mcp-method", "mcp-name", "x-accel-buffering"];
        for (name, text) in names.iter().zip(written) {
            assert_eq!(name.as_str(), text);
        }
    }
}
