//! Resources a server serves beside its tools: fixed ones at a URI, URI templates whose
//! variables a read receives (RFC 6570 `{name}`, and `{+name}` for a value that may hold
//! `/`), resources that exist only at run time (one per database row) listed by a
//! function, completions of template variables, and subscriptions with
//! `notifications/resources/updated`.
//!
//! Most resources are written as tools are: plain functions in `src/resources/*.rs`,
//! each served at the URI its file's `RESOURCES` const gives it, which the build script
//! turns into the crate's `RESOURCES` ([`Resources::from_set`]). A function's parameters
//! are its URI template's variables, decoded by their own decoders (`{id}` for a `u64`);
//! an enum variable completes from its variants with no code. It returns text (a
//! `String`), bytes (`Vec<u8>`), `Content`, or any serializable value (sent as JSON), and
//! `None` from an `Option` is "no such resource" (for this caller).
//!
//! Every read runs with the caller's context, as a tool call does: over HTTP the one the
//! request function built for that caller, so a user reads only what their context lets
//! them (a template function that finds no such resource for this caller answers
//! [`not_found`], the same answer an unknown URI gets).
//!
//! ```
//! use toolcall_mcp::resources::{Resources, text};
//! use toolcall_mcp::rmcp::model::{Resource, ResourceTemplate};
//!
//! // The context is a user id.
//! let resources = Resources::<u64>::new()
//!     .resource(Resource::new("info://about", "about"), |_user, request| {
//!         Box::pin(async move { Ok(vec![text(&request.uri, "text/plain", "A demo server.")]) })
//!     })
//!     .template(ResourceTemplate::new("users://{id}/profile", "profile"), |user, request| {
//!         Box::pin(async move {
//!             match request.variables.get("id").and_then(|id| id.parse::<u64>().ok()) {
//!                 Some(id) if id == *user => Ok(vec![text(&request.uri, "text/plain", format!("user {id}"))]),
//!                 _ => Err(toolcall_mcp::resources::not_found(&request.uri)),
//!             }
//!         })
//!     });
//! assert_eq!(resources.len(), 2);
//! ```

use std::collections::BTreeMap;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::model::{ErrorData, Resource, ResourceContents, ResourceTemplate};
use serde_json::Value;
use toolcall_runtime::{Content, ResourceBody, ResourceInfo, ResourceKind, ResourceSet, UriTemplate};

pub use crate::completion::{CompleteFn, starting_with};
use crate::completion::{Completer, completer};
use crate::context::{ErasedContext, refused, typed};
use crate::string_arguments::{arguments_of, call_error, to_json};

/// What a read answers: the resource's contents, or an error for the client (most often
/// [`not_found`]).
pub type ReadResult = Result<Vec<ResourceContents>, ErrorData>;

/// The future a read function returns.
pub type ReadFuture = Pin<Box<dyn Future<Output = ReadResult> + Send>>;

/// A read function: the caller's context and the request.
pub type ReadFn<C> = dyn Fn(Arc<C>, ReadRequest) -> ReadFuture + Send + Sync;

/// The resources that exist for a caller at this moment, for `resources/list`.
pub type ListFuture = Pin<Box<dyn Future<Output = Vec<Resource>> + Send>>;

/// A function listing resources that exist only at run time.
pub type ListFn<C> = dyn Fn(Arc<C>) -> ListFuture + Send + Sync;

/// A [`ReadFn`], its context's type erased ([`crate::context`]).
type Reader = dyn Fn(ErasedContext, ReadRequest) -> ReadFuture + Send + Sync;

/// A [`ListFn`], its context's type erased.
type Lister = dyn Fn(ErasedContext) -> ListFuture + Send + Sync;

/// `read`, taking the erased context.
fn reader<C: Send + Sync + 'static>(
    read: impl Fn(Arc<C>, ReadRequest) -> ReadFuture + Send + Sync + 'static,
) -> Arc<Reader> {
    Arc::new(move |context, request| match typed::<C>(context) {
        Some(context) => read(context, request),
        None => refused::<C, _>(),
    })
}

/// One `resources/read`: the URI asked for, and the template's variables when a template
/// matched it (empty for a fixed resource).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadRequest {
    /// The URI, as the client sent it.
    pub uri: String,
    /// Each template variable's value, percent-decoded.
    pub variables: BTreeMap<String, String>,
}

/// Text contents of `uri`.
pub fn text(uri: &str, mime_type: &str, text: impl Into<String>) -> ResourceContents {
    ResourceContents::TextResourceContents {
        uri: uri.to_owned(),
        mime_type: Some(mime_type.to_owned()),
        text: text.into(),
        meta: None,
    }
}

/// Binary contents of `uri` (sent base64-encoded).
pub fn blob(uri: &str, mime_type: &str, bytes: &[u8]) -> ResourceContents {
    ResourceContents::BlobResourceContents {
        uri: uri.to_owned(),
        mime_type: Some(mime_type.to_owned()),
        blob: toolcall_runtime::base64_encode(bytes),
        meta: None,
    }
}

/// The error for a URI that names no resource (for this caller): MCP's -32002, with the
/// URI in its data.
pub fn not_found(uri: &str) -> ErrorData {
    ErrorData::resource_not_found(
        format!("no resource {}", crate::error::cut(uri, 200)),
        Some(serde_json::json!({ "uri": crate::error::cut(uri, 200) })),
    )
}

/// A server's resources: fixed ones, templates, run-time listers and completions. Built
/// once and handed to [`McpServer::resources`](crate::McpServer::resources).
pub struct Resources<C> {
    pub(crate) table: ResourceTable,
    context: PhantomData<fn(Arc<C>) -> Arc<C>>,
}

impl<C> Default for Resources<C> {
    fn default() -> Self {
        Resources { table: ResourceTable::default(), context: PhantomData }
    }
}

impl<C> std::fmt::Debug for Resources<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.table.fmt(f)
    }
}

/// The resources behind [`Resources`], their functions taking the erased context: what the
/// server reads.
#[derive(Default)]
pub(crate) struct ResourceTable {
    fixed: Vec<(Resource, Arc<Reader>)>,
    templates: Vec<(ResourceTemplate, UriTemplate, Arc<Reader>)>,
    listers: Vec<Arc<Lister>>,
    completions: Vec<(String, String, Arc<Completer>)>,
    /// The values of each enum variable of a generated template: (template, variable, values).
    choices: Vec<(String, String, Vec<String>)>,
}

impl std::fmt::Debug for ResourceTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resources")
            .field("fixed", &self.fixed.iter().map(|(r, _)| r.uri.as_str()).collect::<Vec<_>>())
            .field(
                "templates",
                &self.templates.iter().map(|(t, ..)| t.uri_template.as_str()).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl<C: Send + Sync + 'static> Resources<C> {
    /// No resources yet.
    pub fn new() -> Self {
        Resources::default()
    }

    /// The resources of a generated set (the crate's `RESOURCES`, from `src/resources`).
    pub fn from_set(set: &'static ResourceSet<C>) -> Self {
        Resources::new().set(set)
    }

    /// Adds the resources of a generated set: a function at a fixed URI is a resource, one
    /// whose URI has variables a template; enum variables complete from their variants.
    pub fn set(mut self, set: &'static ResourceSet<C>) -> Self {
        let functions = set.functions();
        for info in set.info() {
            let Some(function) = functions.describe().iter().find(|f| f.name == info.function) else {
                continue;
            };
            let arguments = arguments_of(function);
            for argument in arguments.iter().filter(|a| !a.choices.is_empty()) {
                self.table.choices.push((
                    info.uri.to_owned(),
                    argument.name.clone(),
                    argument.choices.clone(),
                ));
            }
            let arguments = Arc::new(arguments);
            let read = move |context: Arc<C>, request: ReadRequest| -> ReadFuture {
                let arguments = Arc::clone(&arguments);
                Box::pin(async move {
                    let args = to_json(&arguments, &request.variables);
                    match functions.call(&*context, info.function, &args).await {
                        Ok(value) => contents(info, &request.uri, value),
                        Err(error) => {
                            let what = format!("resource {}", crate::error::cut(&request.uri, 200));
                            Err(call_error(&what, &error))
                        }
                    }
                })
            };
            self = if info.template {
                self.template(template_of(info), read)
            } else {
                self.resource(resource_of(info), read)
            };
        }
        self
    }

    /// A resource at a fixed URI, listed by `resources/list` and read by `read`.
    pub fn resource(
        mut self,
        resource: Resource,
        read: impl Fn(Arc<C>, ReadRequest) -> ReadFuture + Send + Sync + 'static,
    ) -> Self {
        self.table.fixed.push((resource, reader(read)));
        self
    }

    /// A URI template (listed by `resources/templates/list`): any URI it matches is read
    /// by `read`, with the template's variables. A template that does not parse (an
    /// unclosed `{`, an empty or repeated variable) matches nothing and is reported by
    /// [`Resources::problems`].
    pub fn template(
        mut self,
        template: ResourceTemplate,
        read: impl Fn(Arc<C>, ReadRequest) -> ReadFuture + Send + Sync + 'static,
    ) -> Self {
        let parsed = UriTemplate::parse(&template.uri_template);
        self.table.templates.push((template, parsed, reader(read)));
        self
    }

    /// Resources that exist only at run time (one per row of a table), listed for each
    /// caller by `list`; a template reads them.
    pub fn list_with(mut self, list: impl Fn(Arc<C>) -> ListFuture + Send + Sync + 'static) -> Self {
        self.table.listers.push(Arc::new(move |context| match typed::<C>(context) {
            Some(context) => list(context),
            None => Box::pin(std::future::ready(Vec::new())),
        }));
        self
    }

    /// Completes variable `variable` of the template `uri_template` (`completion/complete`).
    pub fn complete(
        mut self,
        uri_template: &str,
        variable: &str,
        complete: impl Fn(Arc<C>, &str, &BTreeMap<String, String>) -> Vec<String> + Send + Sync + 'static,
    ) -> Self {
        self.table.completions.push((uri_template.to_owned(), variable.to_owned(), completer(complete)));
        self
    }

    /// How many fixed resources and templates there are.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// Whether there are none (and no lister).
    pub fn is_empty(&self) -> bool {
        self.len() == 0 && self.table.listers.is_empty()
    }

    /// What is wrong with the templates, one line each (a template that does not parse
    /// matches nothing).
    pub fn problems(&self) -> Vec<String> {
        self.table.problems()
    }
}

impl ResourceTable {
    /// How many fixed resources and templates there are.
    pub(crate) fn len(&self) -> usize {
        self.fixed.len() + self.templates.len()
    }

    /// What is wrong with the templates, one line each.
    pub(crate) fn problems(&self) -> Vec<String> {
        self.templates
            .iter()
            .filter_map(|(t, parsed, _)| parsed.error().map(|e| format!("{}: {e}", t.uri_template)))
            .collect()
    }

    /// The fixed resources, then what each lister gives for `context`.
    pub(crate) async fn list(&self, context: ErasedContext) -> Vec<Resource> {
        let mut all: Vec<Resource> = self.fixed.iter().map(|(r, _)| r.clone()).collect();
        for list in &self.listers {
            all.extend(list(Arc::clone(&context)).await);
        }
        all
    }

    /// The templates.
    pub(crate) fn templates(&self) -> Vec<ResourceTemplate> {
        self.templates.iter().map(|(t, ..)| t.clone()).collect()
    }

    /// Reads `uri` for `context`: the fixed resource at it, else the first template that
    /// matches it, else [`not_found`].
    pub(crate) async fn read(&self, context: ErasedContext, uri: &str) -> ReadResult {
        if let Some((_, read)) = self.fixed.iter().find(|(r, _)| r.uri == uri) {
            return read(context, ReadRequest { uri: uri.to_owned(), variables: BTreeMap::new() }).await;
        }
        for (_, template, read) in &self.templates {
            if let Some(variables) = template.matches(uri) {
                return read(context, ReadRequest { uri: uri.to_owned(), variables }).await;
            }
        }
        Err(not_found(uri))
    }

    /// Whether `uri` names a fixed resource or matches a template (what may be subscribed to).
    pub(crate) fn knows(&self, uri: &str) -> bool {
        self.fixed.iter().any(|(r, _)| r.uri == uri)
            || self.templates.iter().any(|(_, t, _)| t.matches(uri).is_some())
    }

    /// The candidates for `variable` of `uri_template`, `None` when no function completes it.
    pub(crate) fn completions(
        &self,
        context: ErasedContext,
        uri_template: &str,
        variable: &str,
        typed: &str,
        given: &BTreeMap<String, String>,
    ) -> Option<Vec<String>> {
        if let Some((_, _, complete)) =
            self.completions.iter().find(|(t, v, _)| t == uri_template && v == variable)
        {
            return Some(complete(context, typed, given));
        }
        let (_, _, values) = self.choices.iter().find(|(t, v, _)| t == uri_template && v == variable)?;
        let values: Vec<&str> = values.iter().map(String::as_str).collect();
        Some(starting_with(&values, typed))
    }
}

/// The MCP resource a generated function at a fixed URI is listed as.
fn resource_of(info: &ResourceInfo) -> Resource {
    let mut resource = Resource::new(info.uri, info.name).with_mime_type(info.mime_type);
    if !info.description.is_empty() {
        resource = resource.with_description(info.description);
    }
    if !info.title.is_empty() {
        resource = resource.with_title(info.title);
    }
    resource
}

/// The MCP template a generated function whose URI has variables is listed as.
fn template_of(info: &ResourceInfo) -> ResourceTemplate {
    let mut template = ResourceTemplate::new(info.uri, info.name).with_mime_type(info.mime_type);
    if !info.description.is_empty() {
        template = template.with_description(info.description);
    }
    if !info.title.is_empty() {
        template = template.with_title(info.title);
    }
    template
}

/// The contents a generated function's `value` gives at `uri`, by its kind: `null` (a
/// `None`) is not found; text, bytes and JSON are one contents each; content blocks are
/// each one (an embedded resource keeps its own URI).
fn contents(info: &ResourceInfo, uri: &str, value: Value) -> ReadResult {
    let wrong = |what: &str| {
        ErrorData::internal_error(format!("resource {} gave {what}", crate::error::cut(uri, 200)), None)
    };
    match (info.kind, value) {
        (_, Value::Null) => Err(not_found(uri)),
        (ResourceKind::Text, Value::String(body)) => Ok(vec![text(uri, info.mime_type, body)]),
        (ResourceKind::Bytes, Value::Array(items)) => {
            let bytes: Option<Vec<u8>> =
                items.iter().map(|item| item.as_u64().and_then(|b| u8::try_from(b).ok())).collect();
            bytes
                .map(|bytes| vec![blob(uri, info.mime_type, &bytes)])
                .ok_or_else(|| wrong("bytes that are not bytes"))
        }
        (ResourceKind::Content, value) => {
            let blocks =
                Content::blocks(&value).ok_or_else(|| wrong("content that is not content blocks"))?;
            Ok(blocks.into_iter().filter_map(|block| contents_of_block(uri, info.mime_type, block)).collect())
        }
        (ResourceKind::Json, value) => match serde_json::to_string(&value) {
            Ok(json) => Ok(vec![text(uri, info.mime_type, json)]),
            Err(_) => Err(wrong("a value that is not JSON")),
        },
        (_, other) => {
            Err(wrong(&format!("{}, not what its type says", crate::error::cut(&other.to_string(), 80))))
        }
    }
}

/// One content block as the contents of `uri` (a link is not contents: skipped).
fn contents_of_block(uri: &str, mime_type: &str, block: Content) -> Option<ResourceContents> {
    Some(match block {
        Content::Text(body) => text(uri, mime_type, body),
        Content::Image { mime_type, data } | Content::Audio { mime_type, data } => {
            blob(uri, &mime_type, &data)
        }
        Content::Resource { uri, mime_type: own, body } => {
            let mime_type = own.as_deref().unwrap_or(mime_type);
            match body {
                ResourceBody::Text(body) => text(&uri, mime_type, body),
                ResourceBody::Bytes(bytes) => blob(&uri, mime_type, &bytes),
            }
        }
        Content::ResourceLink { .. } => return None,
    })
}

/// The notifier of resource changes, now [`Notifier`](crate::Notifier), which tells of
/// tools' and prompts' changes too, and reaches `subscriptions/listen` streams.
#[deprecated(note = "use `toolcall_mcp::Notifier` (from `McpServer::notifier`)")]
pub type ResourceNotifier = crate::listen::Notifier;
