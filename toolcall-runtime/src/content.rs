//! [`Content`]: results that are more than one JSON value: text, images, audio, links to
//! resources and embedded resources. A tool returning `Content` or `Vec<Content>` (or a
//! `Result` of them) has no output schema; its result serializes as MCP content blocks
//! (bytes in base64), which an MCP server passes on as they are and an agent loop maps
//! to what its provider takes ([`Content::describe`] for formats without a place for
//! bytes).
//!
//! ```
//! use toolcall_runtime::Content;
//!
//! let block = Content::image("image/png", vec![0x89, b'P', b'N', b'G']);
//! let value = serde_json::to_value(&block).unwrap();
//! assert_eq!(value, serde_json::json!({"type": "image", "data": "iVBORw==", "mimeType": "image/png"}));
//! assert_eq!(Content::from_value(&value), Ok(block));
//! ```

use std::fmt;

use serde::ser::SerializeMap;
use serde_json::Value;

/// One block of a tool's rich result, as MCP defines them (no MCP type involved).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Content {
    /// Plain text.
    Text(String),
    /// An image: its MIME type (`image/png`) and bytes.
    Image {
        /// The MIME type.
        mime_type: String,
        /// The encoded image.
        data: Vec<u8>,
    },
    /// Audio: its MIME type (`audio/wav`) and bytes.
    Audio {
        /// The MIME type.
        mime_type: String,
        /// The encoded audio.
        data: Vec<u8>,
    },
    /// A link to a resource the client may read (MCP `resource_link`).
    ResourceLink {
        /// The resource's URI.
        uri: String,
        /// Its name.
        name: String,
        /// What it is, when said.
        description: Option<String>,
        /// Its MIME type, when known.
        mime_type: Option<String>,
    },
    /// A resource carried in the result (MCP `resource`).
    Resource {
        /// The resource's URI.
        uri: String,
        /// Its MIME type, when known.
        mime_type: Option<String>,
        /// What it holds.
        body: ResourceBody,
    },
}

/// The contents of an embedded resource.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResourceBody {
    /// Text (MCP `text`).
    Text(String),
    /// Bytes (MCP `blob`, base64 on the wire).
    Bytes(Vec<u8>),
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Content {
        Content::Text(text.into())
    }

    /// An image block.
    pub fn image(mime_type: impl Into<String>, data: impl Into<Vec<u8>>) -> Content {
        Content::Image { mime_type: mime_type.into(), data: data.into() }
    }

    /// An audio block.
    pub fn audio(mime_type: impl Into<String>, data: impl Into<Vec<u8>>) -> Content {
        Content::Audio { mime_type: mime_type.into(), data: data.into() }
    }

    /// A link to the resource at `uri` called `name`.
    pub fn link(uri: impl Into<String>, name: impl Into<String>) -> Content {
        Content::ResourceLink { uri: uri.into(), name: name.into(), description: None, mime_type: None }
    }

    /// An embedded text resource.
    pub fn resource_text(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Content {
        let body = ResourceBody::Text(text.into());
        Content::Resource { uri: uri.into(), mime_type: Some(mime_type.into()), body }
    }

    /// An embedded binary resource.
    pub fn resource_bytes(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        data: impl Into<Vec<u8>>,
    ) -> Content {
        let body = ResourceBody::Bytes(data.into());
        Content::Resource { uri: uri.into(), mime_type: Some(mime_type.into()), body }
    }

    /// The block as text for a model whose format has no place for it: text as it is,
    /// embedded text resources with their text, and everything else described (kind,
    /// MIME type, size, URI) without its bytes.
    pub fn describe(&self) -> String {
        match self {
            Content::Text(text) => text.clone(),
            Content::Image { mime_type, data } => format!("[image {mime_type}, {} bytes]", data.len()),
            Content::Audio { mime_type, data } => format!("[audio {mime_type}, {} bytes]", data.len()),
            Content::ResourceLink { uri, name, description, .. } => match description {
                Some(description) => format!("[resource link {name} <{uri}>: {description}]"),
                None => format!("[resource link {name} <{uri}>]"),
            },
            Content::Resource { uri, body: ResourceBody::Text(text), .. } => {
                format!("[resource <{uri}>]\n{text}")
            }
            Content::Resource { uri, mime_type, body: ResourceBody::Bytes(data) } => {
                let mime = mime_type.as_deref().unwrap_or("application/octet-stream");
                format!("[resource <{uri}> {mime}, {} bytes]", data.len())
            }
        }
    }

    /// The blocks of a content tool's result as it serialized: one block or an array of
    /// them; `None` when `value` is neither.
    pub fn blocks(value: &Value) -> Option<Vec<Content>> {
        match value {
            Value::Array(items) => items.iter().map(|item| Content::from_value(item).ok()).collect(),
            Value::Object(_) => Content::from_value(value).ok().map(|block| vec![block]),
            _ => None,
        }
    }

    /// Reads one MCP content block; `Err` says what is wrong with it.
    pub fn from_value(value: &Value) -> Result<Content, String> {
        let str_of = |object: &Value, key: &str| object.get(key).and_then(Value::as_str).map(str::to_owned);
        let required =
            |object: &Value, key: &str| str_of(object, key).ok_or_else(|| format!("missing `{key}`"));
        let bytes = |object: &Value, key: &str| {
            required(object, key)
                .and_then(|text| base64_decode(&text).ok_or_else(|| format!("`{key}` is not base64")))
        };
        match value.get("type").and_then(Value::as_str) {
            Some("text") => required(value, "text").map(Content::Text),
            Some("image") => {
                Ok(Content::Image { mime_type: required(value, "mimeType")?, data: bytes(value, "data")? })
            }
            Some("audio") => {
                Ok(Content::Audio { mime_type: required(value, "mimeType")?, data: bytes(value, "data")? })
            }
            Some("resource_link") => Ok(Content::ResourceLink {
                uri: required(value, "uri")?,
                name: required(value, "name")?,
                description: str_of(value, "description"),
                mime_type: str_of(value, "mimeType"),
            }),
            Some("resource") => {
                let resource = value.get("resource").ok_or("missing `resource`")?;
                let body = match str_of(resource, "text") {
                    Some(text) => ResourceBody::Text(text),
                    None => ResourceBody::Bytes(bytes(resource, "blob")?),
                };
                Ok(Content::Resource {
                    uri: required(resource, "uri")?,
                    mime_type: str_of(resource, "mimeType"),
                    body,
                })
            }
            Some(other) => Err(format!("unknown content type `{other}`")),
            None => Err("missing `type`".to_owned()),
        }
    }
}

impl From<String> for Content {
    fn from(text: String) -> Content {
        Content::Text(text)
    }
}

impl From<&str> for Content {
    fn from(text: &str) -> Content {
        Content::Text(text.to_owned())
    }
}

impl fmt::Display for Content {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

impl serde::Serialize for Content {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match self {
            Content::Text(text) => {
                map.serialize_entry("type", "text")?;
                map.serialize_entry("text", text)?;
            }
            Content::Image { mime_type, data } | Content::Audio { mime_type, data } => {
                let kind = if matches!(self, Content::Image { .. }) { "image" } else { "audio" };
                map.serialize_entry("type", kind)?;
                map.serialize_entry("data", &base64_encode(data))?;
                map.serialize_entry("mimeType", mime_type)?;
            }
            Content::ResourceLink { uri, name, description, mime_type } => {
                map.serialize_entry("type", "resource_link")?;
                map.serialize_entry("uri", uri)?;
                map.serialize_entry("name", name)?;
                if let Some(description) = description {
                    map.serialize_entry("description", description)?;
                }
                if let Some(mime_type) = mime_type {
                    map.serialize_entry("mimeType", mime_type)?;
                }
            }
            Content::Resource { uri, mime_type, body } => {
                map.serialize_entry("type", "resource")?;
                map.serialize_entry("resource", &Embedded { uri, mime_type: mime_type.as_deref(), body })?;
            }
        }
        map.end()
    }
}

/// The `resource` object of an embedded resource block.
struct Embedded<'a> {
    uri: &'a str,
    mime_type: Option<&'a str>,
    body: &'a ResourceBody,
}

impl serde::Serialize for Embedded<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("uri", self.uri)?;
        if let Some(mime_type) = self.mime_type {
            map.serialize_entry("mimeType", mime_type)?;
        }
        match self.body {
            ResourceBody::Text(text) => map.serialize_entry("text", text)?,
            ResourceBody::Bytes(data) => map.serialize_entry("blob", &base64_encode(data))?,
        }
        map.end()
    }
}

impl<'de> serde::Deserialize<'de> for Content {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Content, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Content::from_value(&value).map_err(serde::de::Error::custom)
    }
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding (RFC 4648 §4), as MCP carries bytes.
pub fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], chunk.get(1).copied().unwrap_or(0), chunk.get(2).copied().unwrap_or(0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> shift) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Decodes standard base64 (padding optional, no whitespace); `None` when `text` is not.
pub fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=');
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for byte in text.bytes() {
        let digit = ALPHABET.iter().position(|&a| a == byte)?;
        acc = (acc << 6) | digit as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    // Six leftover bits can come from no whole number of bytes.
    (bits < 6).then_some(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn base64_round_trips_every_length() {
        assert_eq!(base64_encode(b""), "");
        assert_eq!(base64_encode(b"f"), "Zg==");
        assert_eq!(base64_encode(b"fo"), "Zm8=");
        assert_eq!(base64_encode(b"foo"), "Zm9v");
        assert_eq!(base64_encode(b"foobar"), "Zm9vYmFy");
        for len in 0..40u8 {
            let bytes: Vec<u8> = (0..len).map(|i| i.wrapping_mul(37).wrapping_add(250)).collect();
            assert_eq!(base64_decode(&base64_encode(&bytes)), Some(bytes));
        }
        assert_eq!(base64_decode("Zg"), Some(b"f".to_vec()));
        assert_eq!(base64_decode("Z"), None);
        assert_eq!(base64_decode("Zm9v!"), None);
    }

    #[test]
    fn blocks_serialize_as_mcp_content() {
        let cases = [
            (Content::text("hi"), json!({"type": "text", "text": "hi"})),
            (
                Content::audio("audio/wav", b"RIFF".to_vec()),
                json!({"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}),
            ),
            (
                Content::link("file:///a.md", "a.md"),
                json!({"type": "resource_link", "uri": "file:///a.md", "name": "a.md"}),
            ),
            (
                Content::resource_text("notes://1", "text/markdown", "# One"),
                json!({"type": "resource", "resource": {"uri": "notes://1", "mimeType": "text/markdown", "text": "# One"}}),
            ),
            (
                Content::resource_bytes("notes://2", "application/pdf", b"%PDF".to_vec()),
                json!({"type": "resource", "resource": {"uri": "notes://2", "mimeType": "application/pdf", "blob": "JVBERg=="}}),
            ),
        ];
        for (block, expected) in cases {
            let value = serde_json::to_value(&block).unwrap_or_default();
            assert_eq!(value, expected);
            assert_eq!(serde_json::from_value::<Content>(value).ok(), Some(block));
        }
    }

    #[test]
    fn results_read_back_as_blocks_and_describe_without_bytes() {
        let value = json!([{"type": "text", "text": "a"}, {"type": "image", "data": "AAEC", "mimeType": "image/png"}]);
        let blocks = Content::blocks(&value).unwrap_or_default();
        assert_eq!(blocks, [Content::text("a"), Content::image("image/png", vec![0, 1, 2])]);
        assert_eq!(blocks[1].describe(), "[image image/png, 3 bytes]");
        assert!(!blocks[1].describe().contains("AAEC"));
        assert_eq!(Content::blocks(&json!("text")), None);
        assert_eq!(Content::blocks(&json!([{"type": "video"}])), None);
        assert!(Content::from_value(&json!({"type": "image", "mimeType": "image/png"})).is_err());
    }
}
