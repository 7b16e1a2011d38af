//! A request's `_meta`, read without hashing its keys.
//!
//! rmcp keeps `_meta` as a JSON object whose lookups hash the key with SipHash (about 250
//! instructions for a 40-byte `io.modelcontextprotocol/...` key), and a 2026-07-28 call's
//! path asks it for a handful of keys, some twice. A request's `_meta` holds a few entries:
//! a scan of them finds a key sooner. Each value is decoded as rmcp's own accessors
//! (`RequestMetaObject::protocol_version` and the others) decode it, so a reading here is
//! theirs.

// Logging is deprecated by SEP-2577; clients still ask for a level in `_meta`.
#[allow(deprecated)]
use rmcp::model::LoggingLevel;
use rmcp::model::{ClientCapabilities, ProgressToken, ProtocolVersion, RequestMetaObject};
use rmcp::service::{RequestContext, RoleServer};
use serde::Deserialize;
use serde_json::Value;

/// The `_meta` key of a request's protocol revision (2026-07-28).
pub(crate) const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// The `_meta` key of a request's client capabilities (2026-07-28).
pub(crate) const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
/// The `_meta` key of a request's client name and version (2026-07-28).
pub(crate) const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
/// The `_meta` key of a 2026-07-28 request's own log level.
pub(crate) const LOG_LEVEL_KEY: &str = "io.modelcontextprotocol/logLevel";
/// The `_meta` key of a request's progress token.
pub(crate) const PROGRESS_TOKEN_KEY: &str = "progressToken";

/// Up to this many entries `_meta` is scanned; a larger one is looked up by hash.
const SCANNED: usize = 16;

/// The value of `key` in `meta`.
pub(crate) fn entry<'m>(meta: &'m RequestMetaObject, key: &str) -> Option<&'m Value> {
    let object = &meta.0.0;
    if object.len() > SCANNED {
        return object.get(key);
    }
    object.iter().find(|(name, _)| name.as_str() == key).map(|(_, value)| value)
}

/// The value of `key` in `meta`, decoded as `T` (`None` when it is absent or is not one).
fn decoded<T: for<'de> Deserialize<'de>>(meta: &RequestMetaObject, key: &str) -> Option<T> {
    entry(meta, key).and_then(|value| T::deserialize(value).ok())
}

/// The protocol revision `meta` names (rmcp's `RequestMetaObject::protocol_version`).
pub(crate) fn protocol_version(meta: &RequestMetaObject) -> Option<ProtocolVersion> {
    decoded(meta, PROTOCOL_VERSION_KEY)
}

/// The client capabilities `meta` declares (rmcp's
/// `RequestMetaObject::client_capabilities`): every field of them is optional, so an
/// empty object, what most clients send, is the default ones without a decoding.
pub(crate) fn client_capabilities(meta: &RequestMetaObject) -> Option<ClientCapabilities> {
    match entry(meta, CLIENT_CAPABILITIES_KEY)? {
        Value::Object(object) if object.is_empty() => Some(ClientCapabilities::default()),
        value => ClientCapabilities::deserialize(value).ok(),
    }
}

/// The progress token `meta` carries (rmcp's `RequestMetaObject::get_progress_token`).
pub(crate) fn progress_token(meta: &RequestMetaObject) -> Option<ProgressToken> {
    decoded(meta, PROGRESS_TOKEN_KEY)
}

/// The log level `meta` asks for (rmcp's `RequestMetaObject::log_level`).
#[allow(deprecated)]
pub(crate) fn log_level(meta: &RequestMetaObject) -> Option<LoggingLevel> {
    decoded(meta, LOG_LEVEL_KEY)
}

/// The client capabilities of the request of `context`, as rmcp's
/// `RequestContext::client_capabilities` finds them: its `_meta`'s, else its session's.
pub(crate) fn client_capabilities_of(context: &RequestContext<RoleServer>) -> Option<ClientCapabilities> {
    client_capabilities(&context.meta).or_else(|| context.client_capabilities())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `_meta` objects with every kind of value under the keys read here, among other
    /// entries, in both orders, and one too large to scan.
    fn metas() -> Vec<RequestMetaObject> {
        let values = [
            json!(null),
            json!(true),
            json!(7),
            json!(-1.5),
            json!("2026-07-28"),
            json!("2025-06-18"),
            json!("1999-01-01"),
            json!("debug"),
            json!("loud"),
            json!("token"),
            json!({}),
            json!({"elicitation": {}}),
            json!({"extensions": {"io.modelcontextprotocol/tasks": {}}, "roots": {"listChanged": true}}),
            json!({"sampling": 3}),
            json!({"unknown": 1}),
            json!([]),
        ];
        let keys = [PROTOCOL_VERSION_KEY, CLIENT_CAPABILITIES_KEY, LOG_LEVEL_KEY, PROGRESS_TOKEN_KEY];
        let mut metas = vec![RequestMetaObject::default()];
        for key in keys {
            for value in &values {
                for before in [false, true] {
                    let mut object = serde_json::Map::new();
                    if before {
                        object.insert(CLIENT_INFO_KEY.into(), json!({"name": "c"}));
                    }
                    object.insert(key.into(), value.clone());
                    object.insert("traceparent".into(), json!("00-x"));
                    metas.push(RequestMetaObject(rmcp::model::MetaObject(object)));
                }
            }
        }
        let mut large = serde_json::Map::new();
        for n in 0..SCANNED + 4 {
            large.insert(format!("vendor/{n}"), json!(n));
        }
        large.insert(PROTOCOL_VERSION_KEY.into(), json!("2026-07-28"));
        large.insert(CLIENT_CAPABILITIES_KEY.into(), json!({}));
        metas.push(RequestMetaObject(rmcp::model::MetaObject(large)));
        metas
    }

    #[test]
    #[allow(deprecated)]
    fn each_reading_is_rmcps() {
        for meta in metas() {
            assert_eq!(protocol_version(&meta), meta.protocol_version(), "{meta:?}");
            assert_eq!(client_capabilities(&meta), meta.client_capabilities(), "{meta:?}");
            assert_eq!(progress_token(&meta), meta.get_progress_token(), "{meta:?}");
            assert_eq!(log_level(&meta), meta.log_level(), "{meta:?}");
            for key in [PROTOCOL_VERSION_KEY, "traceparent", "vendor/3", "absent"] {
                assert_eq!(entry(&meta, key), meta.0.0.get(key), "{key} in {meta:?}");
            }
        }
    }
}
