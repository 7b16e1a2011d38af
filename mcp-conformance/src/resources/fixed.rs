//! Resources at fixed URIs: a text, a binary and one to subscribe to.

use toolcall_runtime::ResourceMeta;

use crate::media::png;

pub(crate) const RESOURCES: &[ResourceMeta] = &[
    ResourceMeta::new("static_text", "test://static-text").name("static-text"),
    ResourceMeta::new("static_binary", "test://static-binary").name("static-binary").mime_type("image/png"),
    ResourceMeta::new("watched", "test://watched-resource").name("watched-resource"),
];

/// A static text resource.
pub fn static_text() -> &'static str {
    "This is the content of the static text resource."
}

/// A static binary resource (a PNG image).
pub fn static_binary() -> Vec<u8> {
    png()
}

/// A resource to subscribe to.
pub fn watched() -> &'static str {
    "Watched resource content"
}
