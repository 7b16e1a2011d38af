//! What the loop runs on: the [`Model`] trait (one request in, a [`ModelStream`] of text
//! deltas and then the whole [`ModelResponse`] out), the [`ModelRequest`] it gets, and two
//! models for tests without HTTP, as Pydantic AI's `TestModel`/`FunctionModel`:
//! [`ScriptedModel`] (replies given in advance, requests recorded) and [`FunctionModel`]
//! (a closure computes each reply).
//!
//! Every HTTP provider ([`Provider`](crate::Provider)) is a `Model` too.

use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};

use futures_util::Stream;
use toolcall_runtime::{Format, Toolset};

use crate::choice::ToolChoice;
use crate::error::AgentError;
use crate::external::Catalog;
use crate::message::{Message, ModelResponse};
use crate::output::OutputSpec;
use crate::search::Searching;

/// What a model's request yields: text deltas as they arrive (only when streaming), then
/// exactly one [`StreamPart::Done`] with the whole reply.
pub type ModelStream<'a> = Pin<Box<dyn Stream<Item = Result<StreamPart, AgentError>> + Send + 'a>>;

/// One item of a [`ModelStream`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StreamPart {
    /// A piece of the reply's text (reported as [`Event::Text`](crate::Event::Text)).
    Text(String),
    /// The whole reply: all its text, its tool calls assembled, its usage.
    Done(ModelResponse),
}

/// A model the loop can ask: an HTTP provider, [`ScriptedModel`], [`FunctionModel`] or
/// your own.
pub trait Model: Send + Sync {
    /// Sends one request. When `request.stream` is false the stream may yield
    /// [`StreamPart::Done`] alone (see [`once`]).
    fn request<'a>(&'a self, request: ModelRequest<'a>) -> ModelStream<'a>;
}

impl<M: Model + ?Sized> Model for Arc<M> {
    fn request<'a>(&'a self, request: ModelRequest<'a>) -> ModelStream<'a> {
        (**self).request(request)
    }
}

impl<M: Model + ?Sized> Model for Box<M> {
    fn request<'a>(&'a self, request: ModelRequest<'a>) -> ModelStream<'a> {
        (**self).request(request)
    }
}

/// A [`ModelStream`] of the one reply `reply` resolves to.
pub fn once<'a>(
    reply: impl Future<Output = Result<ModelResponse, AgentError>> + Send + 'a,
) -> ModelStream<'a> {
    Box::pin(futures_util::stream::once(async move { reply.await.map(StreamPart::Done) }))
}

/// One request of a run.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct ModelRequest<'a> {
    /// The conversation so far, the system message first when there is one.
    pub messages: &'a [Message],
    /// The tool definitions to send.
    pub tools: Tools<'a>,
    /// Deliver text as it is generated ([`Agent::stream`](crate::Agent::stream)).
    pub stream: bool,
    /// The typed answer asked for ([`Agent::run_output`](crate::Agent::run_output)).
    pub output: Option<&'a OutputSpec>,
    /// Whether the model may, must or must not call a tool on this request
    /// ([`Agent::tool_choice`](crate::Agent::tool_choice)).
    pub tool_choice: &'a ToolChoice,
    /// Whether the model may call several tools in one reply; `None`: the provider's
    /// default ([`Agent::parallel_tool_calls`](crate::Agent::parallel_tool_calls)).
    pub parallel_tool_calls: Option<bool>,
}

/// The tool definitions of a run, in every provider's format: the compiled toolset's
/// and, after them, those of the MCP servers the agent was given. With
/// [`Agent::tool_search`](crate::Agent::tool_search), the tools always visible, the search
/// tool and the tools the conversation's searches found (the HTTP providers with native
/// deferral, Anthropic and OpenAI Responses, send the others deferred).
#[derive(Clone, Copy)]
pub struct Tools<'a> {
    set: &'a (dyn Definitions + Sync),
    external: Option<&'a Catalog>,
    strict: bool,
    search: Option<&'a Searching<'a>>,
}

/// A toolset, whatever its context type.
trait Definitions {
    fn emit(&self, format: Format, strict: bool) -> &'static str;
    fn names(&self) -> Vec<&'static str>;
}

impl<C> Definitions for Toolset<C> {
    fn emit(&self, format: Format, strict: bool) -> &'static str {
        Toolset::emit(self, format, strict)
    }

    fn names(&self) -> Vec<&'static str> {
        Toolset::names(self).collect()
    }
}

impl<'a> Tools<'a> {
    pub(crate) fn new<C>(set: &'a Toolset<C>, external: Option<&'a Catalog>, strict: bool) -> Self {
        Tools { set, external: external.filter(|catalog| !catalog.is_empty()), strict, search: None }
    }

    /// The same tools, offered through a search tool.
    pub(crate) fn searching(mut self, search: Option<&'a Searching<'a>>) -> Self {
        self.search = search;
        self
    }

    /// The search view of the request, when the agent searches tools.
    pub(crate) fn search(&self) -> Option<&'a Searching<'a>> {
        self.search
    }

    /// The definitions in `format`, a JSON array: `Toolset::emit(format, strict)` byte for
    /// byte, then each MCP tool's definition (strict when `strict` and its schema can
    /// be). With tool search: the always-visible tools, the search tool, then the tools
    /// the conversation's searches found.
    pub fn definitions(&self, format: Format) -> &'a str {
        if let Some(search) = self.search {
            return search.plain_definitions(format);
        }
        let compiled = self.set.emit(format, self.strict);
        match self.external {
            Some(catalog) => catalog.definitions(compiled, format, self.strict),
            None => compiled,
        }
    }

    /// Whether the strict definitions are sent.
    pub fn strict(&self) -> bool {
        self.strict
    }

    /// The tool names, in definition order (with tool search, those
    /// [`Tools::definitions`] holds).
    pub fn names(&self) -> Vec<&'a str> {
        if let Some(search) = self.search {
            return search.plain_names();
        }
        let mut names: Vec<&'a str> = self.set.names();
        if let Some(catalog) = self.external {
            names.extend(catalog.names().iter().map(String::as_str));
        }
        names
    }

    /// Whether no tool is offered.
    pub fn is_empty(&self) -> bool {
        self.search.is_none() && self.set.names().is_empty() && self.external.is_none()
    }
}

impl fmt::Debug for Tools<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tools").field("names", &self.names()).field("strict", &self.strict).finish()
    }
}

/// A request as [`ScriptedModel`] saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeenRequest {
    /// The conversation sent.
    pub messages: Vec<Message>,
    /// The names of the tools offered.
    pub tools: Vec<String>,
    /// Whether the reply was asked for as a stream.
    pub stream: bool,
    /// The name of the typed output asked for, if any.
    pub output: Option<String>,
    /// The tool choice of the request.
    pub tool_choice: ToolChoice,
    /// Whether parallel tool calls were allowed (`None`: the provider's default).
    pub parallel_tool_calls: Option<bool>,
}

impl SeenRequest {
    fn of(request: &ModelRequest<'_>) -> Self {
        SeenRequest {
            messages: request.messages.to_vec(),
            tools: request.tools.names().into_iter().map(str::to_owned).collect(),
            stream: request.stream,
            output: request.output.map(|spec| spec.name.clone()),
            tool_choice: request.tool_choice.clone(),
            parallel_tool_calls: request.parallel_tool_calls,
        }
    }
}

#[derive(Default)]
struct Script {
    replies: VecDeque<Result<ModelResponse, AgentError>>,
    requests: Vec<SeenRequest>,
}

/// A model that answers with replies given in advance, in order, and records every
/// request, so tests run an agent without a server. Clones share the script: keep one to
/// inspect [`ScriptedModel::requests`] after the run. A request past the end of the
/// script fails with [`AgentError::Model`].
///
/// When streaming, a text reply arrives word by word (one [`StreamPart::Text`] per word
/// and the space after it).
///
/// ```
/// use toolcall_agent::{ModelResponse, ScriptedModel, ToolCall};
///
/// let model = ScriptedModel::new([
///     ModelResponse::calls([ToolCall::new("call_1", "add", r#"{"a":1,"b":2}"#)]),
///     ModelResponse::text("3"),
/// ]);
/// assert!(model.requests().is_empty());
/// ```
#[derive(Clone, Default)]
pub struct ScriptedModel {
    script: Arc<Mutex<Script>>,
}

impl fmt::Debug for ScriptedModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let script = self.lock();
        f.debug_struct("ScriptedModel")
            .field("replies_left", &script.replies.len())
            .field("requests", &script.requests.len())
            .finish()
    }
}

impl ScriptedModel {
    /// A model that answers with `replies`, in order.
    pub fn new(replies: impl IntoIterator<Item = ModelResponse>) -> Self {
        let replies = replies.into_iter().map(Ok).collect();
        ScriptedModel { script: Arc::new(Mutex::new(Script { replies, requests: Vec::new() })) }
    }

    /// Adds a reply at the end of the script.
    pub fn push(&self, reply: ModelResponse) -> &Self {
        self.lock().replies.push_back(Ok(reply));
        self
    }

    /// Adds a failure at the end of the script: that request ends the run with `error`.
    pub fn push_error(&self, error: AgentError) -> &Self {
        self.lock().replies.push_back(Err(error));
        self
    }

    /// Every request so far, in order.
    pub fn requests(&self) -> Vec<SeenRequest> {
        self.lock().requests.clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Script> {
        self.script.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn next(&self, request: &ModelRequest<'_>) -> Result<ModelResponse, AgentError> {
        let mut script = self.lock();
        script.requests.push(SeenRequest::of(request));
        let number = script.requests.len();
        script.replies.pop_front().unwrap_or_else(|| {
            Err(AgentError::Model(format!("the scripted model has no reply left for request {number}")))
        })
    }
}

impl Model for ScriptedModel {
    fn request<'a>(&'a self, request: ModelRequest<'a>) -> ModelStream<'a> {
        let reply = self.next(&request);
        match (reply, request.stream) {
            (Ok(reply), true) => {
                let words =
                    reply.content.split_inclusive(' ').map(|word| Ok(StreamPart::Text(word.to_owned())));
                let parts: Vec<_> = words.chain([Ok(StreamPart::Done(reply.clone()))]).collect();
                Box::pin(futures_util::stream::iter(parts))
            }
            (reply, _) => once(std::future::ready(reply)),
        }
    }
}

type Reply = dyn Fn(&ModelRequest<'_>) -> Result<ModelResponse, AgentError> + Send + Sync;

/// A model whose every reply is computed by a closure from the request: the
/// conversation so far, the tools, the output asked for.
///
/// ```
/// use toolcall_agent::{FunctionModel, Message, ModelResponse};
///
/// let echo = FunctionModel::new(|request| {
///     let last = request.messages.iter().rev().find_map(|m| match m {
///         Message::User { content } => Some(content.clone()),
///         _ => None,
///     });
///     Ok(ModelResponse::text(last.unwrap_or_default()))
/// });
/// # let _ = echo;
/// ```
#[derive(Clone)]
pub struct FunctionModel {
    reply: Arc<Reply>,
}

impl fmt::Debug for FunctionModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FunctionModel").finish_non_exhaustive()
    }
}

impl FunctionModel {
    /// A model answering with `reply(request)`.
    pub fn new(
        reply: impl Fn(&ModelRequest<'_>) -> Result<ModelResponse, AgentError> + Send + Sync + 'static,
    ) -> Self {
        FunctionModel { reply: Arc::new(reply) }
    }
}

impl Model for FunctionModel {
    fn request<'a>(&'a self, request: ModelRequest<'a>) -> ModelStream<'a> {
        once(std::future::ready((self.reply)(&request)))
    }
}
