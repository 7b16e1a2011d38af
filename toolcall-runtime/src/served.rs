//! What a crate serves beside its tools, written the same way: resources (plain functions
//! in `src/resources/*.rs`) and prompts (plain functions in `src/prompts/*.rs`). The build
//! script reads them like tools and generates a toolset of each kind; these are the types
//! around those toolsets. Nothing here names an MCP type: an MCP server (toolcall-mcp)
//! reads them.
//!
//! A resource file says where each function lives in a typed `RESOURCES` const; the
//! function's parameters are the URI template's variables:
//!
//! ```
//! use toolcall_runtime::ResourceMeta;
//!
//! pub(crate) const RESOURCES: &[ResourceMeta] = &[
//!     ResourceMeta::new("note", "notes://note/{id}").mime_type("text/plain"),
//!     ResourceMeta::new("about", "info://about").title("About this server"),
//! ];
//! assert_eq!(RESOURCES[0].uri(), "notes://note/{id}");
//! ```
//!
//! A prompt function returns its text (one user message), a [`Message`], or a list of
//! them.

use serde::ser::SerializeMap;

use crate::content::Content;
use crate::toolset::Toolset;

/// Where a resource function is served: its URI (a URI template when the function takes
/// variables) and what a client is told about it. Declared in a resource file's
/// `RESOURCES` const; the build script reads it and checks it against the function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResourceMeta {
    function: &'static str,
    uri: &'static str,
    name: Option<&'static str>,
    title: Option<&'static str>,
    mime_type: Option<&'static str>,
}

impl ResourceMeta {
    /// The resource function `function`, served at `uri`: a fixed URI, or an RFC 6570
    /// template whose `{variables}` are the function's parameters (`{+path}` for a value
    /// that may hold `/`).
    pub const fn new(function: &'static str, uri: &'static str) -> Self {
        ResourceMeta { function, uri, name: None, title: None, mime_type: None }
    }

    /// The name clients list it by (default: the function's name).
    pub const fn name(mut self, name: &'static str) -> Self {
        self.name = Some(name);
        self
    }

    /// A human-readable title (MCP `title`).
    pub const fn title(mut self, title: &'static str) -> Self {
        self.title = Some(title);
        self
    }

    /// The contents' MIME type (default: `text/plain` for text, `application/json` for a
    /// value serialized as JSON, `application/octet-stream` for bytes).
    pub const fn mime_type(mut self, mime_type: &'static str) -> Self {
        self.mime_type = Some(mime_type);
        self
    }

    /// The function this applies to.
    pub const fn function(&self) -> &'static str {
        self.function
    }

    /// The URI or URI template.
    pub const fn uri(&self) -> &'static str {
        self.uri
    }
}

/// How a resource function's value becomes the resource's contents, decided at build
/// time from its return type (an `Option`'s `None` is "no such resource" in every case).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResourceKind {
    /// A `String` or `&str`: text contents.
    Text,
    /// A `Vec<u8>` or `&[u8]`: binary contents (base64 on the wire).
    Bytes,
    /// `Content` or `Vec<Content>`: each block becomes contents of its own.
    Content,
    /// Any other serializable value: its JSON text.
    Json,
}

/// One resource function as generated code describes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResourceInfo {
    /// The function's name in [`ResourceSet::functions`].
    pub function: &'static str,
    /// The URI, or the URI template when `template` is set.
    pub uri: &'static str,
    /// Whether `uri` is a template (it has `{variables}`).
    pub template: bool,
    /// The name clients list it by.
    pub name: &'static str,
    /// Its title ("" when none).
    pub title: &'static str,
    /// The function's doc comment.
    pub description: &'static str,
    /// The contents' MIME type.
    pub mime_type: &'static str,
    /// How its value becomes contents.
    pub kind: ResourceKind,
}

/// The crate's resources: their functions, called like tools (a template's variables are
/// the arguments), and what each one is.
pub struct ResourceSet<C: 'static = ()> {
    functions: &'static Toolset<C>,
    info: &'static [ResourceInfo],
}

impl<C> std::fmt::Debug for ResourceSet<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceSet").field("info", &self.info).finish_non_exhaustive()
    }
}

impl<C> ResourceSet<C> {
    /// What generated code builds: the functions' toolset and one [`ResourceInfo`] each.
    #[doc(hidden)]
    pub const fn generated(functions: &'static Toolset<C>, info: &'static [ResourceInfo]) -> Self {
        ResourceSet { functions, info }
    }

    /// The resource functions as a toolset: `functions().call(ctx, info.function, args)`
    /// reads one, with the template's variables as arguments.
    pub fn functions(&self) -> &'static Toolset<C> {
        self.functions
    }

    /// Every resource, in declaration order.
    pub fn info(&self) -> &'static [ResourceInfo] {
        self.info
    }

    /// How many resources there are.
    pub fn len(&self) -> usize {
        self.info.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.info.is_empty()
    }
}

/// Who speaks a prompt message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The user.
    User,
    /// The assistant.
    Assistant,
}

/// One message of a prompt: who speaks, and a content block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    /// Who speaks.
    pub role: Role,
    /// What is said.
    pub content: Content,
}

impl Message {
    /// A user message.
    pub fn user(content: impl Into<Content>) -> Message {
        Message { role: Role::User, content: content.into() }
    }

    /// An assistant message.
    pub fn assistant(content: impl Into<Content>) -> Message {
        Message { role: Role::Assistant, content: content.into() }
    }
}

impl serde::Serialize for Message {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        let role = match self.role {
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        map.serialize_entry("role", role)?;
        map.serialize_entry("content", &self.content)?;
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_serializes_as_mcp_writes_it() {
        let value = serde_json::to_value(Message::assistant("hi")).unwrap();
        assert_eq!(
            value,
            serde_json::json!({"role": "assistant", "content": {"type": "text", "text": "hi"}})
        );
    }

    #[test]
    fn resource_meta_keeps_what_it_was_given() {
        const META: ResourceMeta = ResourceMeta::new("f", "a://{x}").mime_type("text/csv").name("n");
        assert_eq!((META.function(), META.uri()), ("f", "a://{x}"));
        assert_eq!(META.mime_type, Some("text/csv"));
        assert_eq!(META.name, Some("n"));
    }
}
