//! Scopes: the ones every request needs, and the ones each tool needs beside them. A
//! `tools/call` is read from the request body (after the body layer read it within its
//! limits) only as far as its method and tool name, borrowed, the arguments skipped; a
//! call of a tool whose scopes the token lacks is answered 403 with
//! `WWW-Authenticate: Bearer error="insufficient_scope", scope="..."` before it reaches
//! rmcp, so the client can ask for a token with more scopes (step-up) and call again. A
//! body that cannot be read as JSON-RPC is 400 (it is refused rather than guessed at).

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{Method, StatusCode};
use axum::response::Response;
use http_body_util::BodyExt as _;
use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};

use super::ResourceServer;
use super::token::AccessToken;
use crate::plain::plain;

/// The scopes each tool needs, by the name clients call it by.
pub(crate) type ToolScopes = BTreeMap<String, Vec<String>>;

/// The scopes of `required` that `token` was not granted.
pub(crate) fn missing<'a>(required: &'a [String], token: &AccessToken) -> Vec<&'a str> {
    required.iter().filter(|scope| !token.has_scope(scope)).map(String::as_str).collect()
}

/// The `scope` to ask for after a refusal: what the token has of this server's scopes, the
/// server's required ones and `more`, so a token asked for with them loses nothing.
pub(crate) fn step_up(server: &ResourceServer, token: Option<&AccessToken>, more: &[String]) -> String {
    let supported = server.scopes_supported();
    let mut scopes: BTreeSet<&str> = BTreeSet::new();
    if let Some(token) = token {
        scopes.extend(token.scopes().iter().map(String::as_str).filter(|s| supported.iter().any(|k| k == s)));
    }
    scopes.extend(server.required.iter().map(String::as_str));
    scopes.extend(more.iter().map(String::as_str));
    scopes.into_iter().collect::<Vec<_>>().join(" ")
}

/// The part of a JSON-RPC message read here.
#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    params: Option<ToolName<'a>>,
}

/// `params.name` when `params` is an object whose `name` is a string; else nothing.
struct ToolName<'a>(Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for ToolName<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NameVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for NameVisitor<'a> {
            type Value = ToolName<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("the params of a JSON-RPC message")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut name = None;
                while let Some(key) = map.next_key::<Cow<'_, str>>()? {
                    if key == "name" {
                        if name.is_some() {
                            return Err(de::Error::duplicate_field("name"));
                        }
                        name = Some(map.next_value::<MaybeText<'a>>()?.0);
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(ToolName(name.flatten()))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(ToolName(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(ToolName(None))
            }
        }
        deserializer.deserialize_any(NameVisitor(std::marker::PhantomData))
    }
}

/// A string, or anything else as nothing.
struct MaybeText<'a>(Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for MaybeText<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TextVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for TextVisitor<'a> {
            type Value = MaybeText<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(MaybeText(Some(Cow::Borrowed(text))))
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
                Ok(MaybeText(Some(Cow::Owned(text.to_owned()))))
            }
            fn visit_string<E: de::Error>(self, text: String) -> Result<Self::Value, E> {
                Ok(MaybeText(Some(Cow::Owned(text))))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(MaybeText(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(MaybeText(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(MaybeText(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(MaybeText(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(MaybeText(None))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(MaybeText(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(MaybeText(None))
            }
        }
        deserializer.deserialize_any(TextVisitor(std::marker::PhantomData))
    }
}

/// The first answer `check` gives for a tool a request body calls (`tools/call`), in
/// order: one message, or each of a batch.
pub(crate) fn check_tools_called<R>(
    body: &[u8],
    mut check: impl FnMut(&str) -> Option<R>,
) -> Result<Option<R>, serde_json::Error> {
    let tool = |message: &Message<'_>| -> Option<R> {
        if message.method.as_deref() != Some("tools/call") {
            return None;
        }
        message.params.as_ref().and_then(|params| params.0.as_deref()).and_then(&mut check)
    };
    let mut tool = tool;
    if body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') {
        let batch: Vec<Message<'_>> = serde_json::from_slice(body)?;
        return Ok(batch.iter().find_map(&mut tool));
    }
    let message: Message<'_> = serde_json::from_slice(body)?;
    Ok(tool(&message))
}

/// The whole of a body already in memory: its one frame, as it is (without a copy).
async fn whole(mut body: Body) -> Result<Bytes, axum::Error> {
    let Some(first) = body.frame().await else { return Ok(Bytes::new()) };
    let first = first?.into_data().unwrap_or_default();
    if http_body::Body::is_end_stream(&body) {
        return Ok(first);
    }
    let rest = body.collect().await?.to_bytes();
    let mut all = Vec::with_capacity(first.len() + rest.len());
    all.extend_from_slice(&first);
    all.extend_from_slice(&rest);
    Ok(Bytes::from(all))
}

/// The request back, or the refusal of a `tools/call` of a tool whose scopes the
/// request's token lacks (403).
pub(crate) async fn check_tool_scopes(
    server: &ResourceServer,
    request: Request,
) -> Result<Request, Response> {
    if request.method() != Method::POST {
        return Ok(request);
    }
    let Some(token) = request.extensions().get::<Arc<AccessToken>>().cloned() else {
        return Ok(request);
    };
    let (parts, body) = request.into_parts();
    // The body check read it already: this takes what is in memory.
    let Ok(bytes) = whole(body).await else {
        return Err(plain(StatusCode::BAD_REQUEST, "Bad Request: cannot read the body"));
    };
    let lacking = check_tools_called(&bytes, |tool| {
        let needed = server.tools.get(tool)?;
        let lacking = missing(needed, &token);
        (!lacking.is_empty()).then(|| (tool.to_owned(), needed, lacking.join(" ")))
    });
    match lacking {
        Err(error) => Err(plain(
            StatusCode::BAD_REQUEST,
            format!("Bad Request: the body is not a JSON-RPC message: {error}"),
        )),
        Ok(Some((tool, needed, lacking))) => {
            log::info!("{} {}: tool {tool} needs scope {lacking}: refused (403)", parts.method, parts.uri);
            Err(server.insufficient_scope(
                Some(&token),
                needed,
                &format!("tool {tool} needs scope {lacking}"),
            ))
        }
        Ok(None) => Ok(Request::from_parts(parts, Body::from(bytes))),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn tools_called(body: &[u8]) -> Result<Vec<String>, serde_json::Error> {
        let mut tools = Vec::new();
        check_tools_called::<()>(body, |tool| {
            tools.push(tool.to_owned());
            None
        })?;
        Ok(tools)
    }

    fn called(body: &str) -> Vec<String> {
        tools_called(body.as_bytes()).unwrap()
    }

    #[test]
    fn the_tool_of_a_call_is_read_and_nothing_else() {
        assert_eq!(
            called(
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"name":"x"},"name":"add_note"}}"#
            ),
            ["add_note"]
        );
        assert_eq!(
            called(r#"{"method":"tools\/call","params":{"name":"add\u005fnote"}}"#),
            ["add_note"],
            "escapes"
        );
        assert!(called(r#"{"method":"tools/list","params":{"name":"add_note"}}"#).is_empty());
        assert!(called(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#).is_empty(), "a response");
        assert!(called(r#"{"method":"tools/call","params":{"name":7}}"#).is_empty());
        assert!(called(r#"{"method":"tools/call","params":null}"#).is_empty());
        assert_eq!(
            called(
                r#"[{"method":"tools/call","params":{"name":"a"}},{"method":"ping"},{"method":"tools/call","params":{"name":"b"}}]"#
            ),
            ["a", "b"],
            "a batch"
        );
        assert!(
            tools_called(br#"{"method":"tools/call","params":{"name":"a","name":"b"}}"#).is_err(),
            "two names"
        );
        assert!(tools_called(br#"{"method":"tools/call","method":"ping"}"#).is_err(), "two methods");
        assert!(tools_called(b"not json").is_err());
    }
}
