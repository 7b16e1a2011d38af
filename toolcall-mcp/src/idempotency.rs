//! A client's idempotency key: the `Idempotency-Key` request header of the IETF HTTP APIs
//! working group (draft-ietf-httpapi-idempotency-key-header), which a client puts on a
//! request it may send again after an ambiguous failure (the connection lost before the
//! answer came) and repeats unchanged on the retry, so that a tool that writes does it
//! once.
//!
//! The MCP specification has no idempotency key of its own: a request's JSON-RPC id is
//! unique within a session, but a client's retry is a new request with a new id, and
//! 2026-07-28 requests have no session at all. So the key rides the HTTP request that
//! carries the `tools/call`, like the bearer token, and reaches tools through the context
//! the request function builds
//! ([`McpServer::context_from_request`](crate::McpServer::context_from_request)). What a
//! key deduplicates, and for how long, is the tool's to decide (a unique index on the
//! key beside the written row is the usual way): the server neither stores nor compares
//! keys.

use http::request::Parts;

/// The header's name.
pub const IDEMPOTENCY_KEY: &str = "idempotency-key";

/// The longest key accepted, in bytes.
pub const MAX_IDEMPOTENCY_KEY: usize = 255;

/// Why an `Idempotency-Key` header cannot be used (the request should not be run as if
/// it had none: a retry could then write twice).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InvalidIdempotencyKey {
    /// The request has the header more than once.
    Repeated,
    /// The key is empty.
    Empty,
    /// The key is longer than [`MAX_IDEMPOTENCY_KEY`] bytes.
    TooLong(usize),
    /// The value is neither a quoted string (`"..."`, as the draft says) nor a bare run of
    /// visible ASCII characters.
    Malformed,
}

impl std::fmt::Display for InvalidIdempotencyKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InvalidIdempotencyKey::Repeated => {
                f.write_str("the Idempotency-Key header is given more than once")
            }
            InvalidIdempotencyKey::Empty => f.write_str("the Idempotency-Key header is empty"),
            InvalidIdempotencyKey::TooLong(length) => write!(
                f,
                "the Idempotency-Key header is {length} bytes long; at most {MAX_IDEMPOTENCY_KEY} are accepted"
            ),
            InvalidIdempotencyKey::Malformed => {
                f.write_str("the Idempotency-Key header is not a quoted string of visible ASCII characters")
            }
        }
    }
}

impl std::error::Error for InvalidIdempotencyKey {}

/// The request's idempotency key: `Ok(None)` without the header, else the key, unquoted
/// (the draft's form is a Structured Fields string, `Idempotency-Key: "8e03978e"`; a bare
/// `Idempotency-Key: 8e03978e`, which many clients send, is taken as it is).
///
/// ```
/// let request = toolcall_mcp::http::Request::post("/mcp")
///     .header("idempotency-key", "\"note-2026-12-04-001\"")
///     .body(())
///     .unwrap();
/// let (parts, ()) = request.into_parts();
/// assert_eq!(toolcall_mcp::idempotency_key(&parts), Ok(Some("note-2026-12-04-001".to_owned())));
/// ```
///
/// # Errors
///
/// When the header is repeated, empty, too long, or not a string of visible ASCII.
pub fn idempotency_key(parts: &Parts) -> Result<Option<String>, InvalidIdempotencyKey> {
    let mut values = parts.headers.get_all(IDEMPOTENCY_KEY).iter();
    let Some(value) = values.next() else { return Ok(None) };
    if values.next().is_some() {
        return Err(InvalidIdempotencyKey::Repeated);
    }
    let key = key_of(value.as_bytes())?;
    match key.len() {
        0 => Err(InvalidIdempotencyKey::Empty),
        length if length > MAX_IDEMPOTENCY_KEY => Err(InvalidIdempotencyKey::TooLong(length)),
        _ => Ok(Some(key)),
    }
}

/// The key a header value holds: a Structured Fields string unquoted (`\"` and `\\` are
/// its only escapes), or a bare value without spaces taken as it is.
fn key_of(value: &[u8]) -> Result<String, InvalidIdempotencyKey> {
    let visible = |byte: u8| (0x20..=0x7e).contains(&byte);
    let Some(quoted) = value.strip_prefix(b"\"") else {
        let bare = value.iter().all(|&byte| visible(byte) && byte != b' ' && byte != b'"' && byte != b'\\');
        return if bare {
            Ok(String::from_utf8_lossy(value).into_owned())
        } else {
            Err(InvalidIdempotencyKey::Malformed)
        };
    };
    let mut key = String::with_capacity(quoted.len());
    let mut bytes = quoted.iter().copied();
    while let Some(byte) = bytes.next() {
        match byte {
            b'"' => {
                return if bytes.next().is_none() { Ok(key) } else { Err(InvalidIdempotencyKey::Malformed) };
            }
            b'\\' => match bytes.next() {
                Some(escaped @ (b'"' | b'\\')) => key.push(char::from(escaped)),
                _ => return Err(InvalidIdempotencyKey::Malformed),
            },
            byte if visible(byte) => key.push(char::from(byte)),
            _ => return Err(InvalidIdempotencyKey::Malformed),
        }
    }
    Err(InvalidIdempotencyKey::Malformed)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn key(values: &[&[u8]]) -> Result<Option<String>, InvalidIdempotencyKey> {
        let mut request = http::Request::post("/mcp");
        for value in values {
            request = request.header(IDEMPOTENCY_KEY, http::HeaderValue::from_bytes(value).unwrap());
        }
        let (parts, ()) = request.body(()).unwrap().into_parts();
        idempotency_key(&parts)
    }

    #[test]
    fn a_quoted_or_bare_key_is_read_and_anything_else_refused() {
        assert_eq!(key(&[]), Ok(None));
        assert_eq!(key(&[b"\"abc-123\""]), Ok(Some("abc-123".to_owned())));
        assert_eq!(
            key(&[b"8e03978e-40d5-43e8-bc93-6894a57f9324"]),
            Ok(Some("8e03978e-40d5-43e8-bc93-6894a57f9324".to_owned()))
        );
        assert_eq!(key(&[br#""a \"quoted\" \\ key""#]), Ok(Some(r#"a "quoted" \ key"#.to_owned())));
        assert_eq!(key(&[b"\"\""]), Err(InvalidIdempotencyKey::Empty));
        assert_eq!(key(&[b"\"a\"", b"\"b\""]), Err(InvalidIdempotencyKey::Repeated));
        for malformed in
            [&b"\"open"[..], b"\"a\"b", b"\"a\\n\"", b"two words", b"caf\xc3\xa9", b"\"tab\there\""]
        {
            assert_eq!(key(&[malformed]), Err(InvalidIdempotencyKey::Malformed), "{malformed:?}");
        }
        let long = format!("\"{}\"", "k".repeat(MAX_IDEMPOTENCY_KEY + 1));
        assert_eq!(key(&[long.as_bytes()]), Err(InvalidIdempotencyKey::TooLong(MAX_IDEMPOTENCY_KEY + 1)));
        let longest = "k".repeat(MAX_IDEMPOTENCY_KEY);
        assert_eq!(key(&[longest.as_bytes()]), Ok(Some(longest)));
    }
}
