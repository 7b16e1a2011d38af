#![doc = include_str!("../README.md")]

mod choice;
mod error;
mod external;
mod http;
mod limits;
#[cfg(feature = "mcp")]
mod mcp;
mod message;
mod model;
mod output;
mod providers;
mod search;
pub mod telemetry;
#[cfg(feature = "otel")]
mod trace_context;

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use futures_util::StreamExt;
use futures_util::future::Either;
use tokio::sync::mpsc;
use toolcall_runtime::search::{Document, OwnedIndex};
use toolcall_runtime::{Content, LogLevel, Progress, ProgressSink, ToolError, ToolInfo, Toolset, glue};

pub use crate::choice::ToolChoice;
pub use crate::error::{AgentError, Cause};
use crate::external::{Catalog, ExternalTool, Source};
pub use crate::http::{DEFAULT_MAX_RETRY_WAIT, DEFAULT_RETRIES};
pub use crate::limits::{Limit, RunUsage, UsageLimits};
#[cfg(feature = "mcp")]
pub use crate::mcp::{McpToolInfo, McpTools, McpToolset};
pub use crate::message::{Message, ModelResponse, Reasoning, ToolCall, ToolReturn, Usage};
pub use crate::model::{
    FunctionModel, Model, ModelRequest, ModelStream, ScriptedModel, SeenRequest, StreamPart, Tools, once,
};
pub use crate::output::{OutputSpec, OutputType};
pub use crate::providers::{ANTHROPIC_MAX_TOKENS, DEFAULT_MODEL, Provider};
use crate::providers::{Endpoint, HttpModel};
pub use crate::search::{DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, ToolSearch};
use crate::search::{Entry, Searching};

/// The most requests one [`Agent::run`] sends when [`Agent::max_turns`] is not called.
pub const DEFAULT_MAX_TURNS: usize = 10;
/// How long one request may take when [`Agent::timeout`] is not called.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);
/// How many times a typed answer that does not decode is sent back to be fixed when
/// [`Agent::output_retries`] is not called.
pub const DEFAULT_OUTPUT_RETRIES: usize = 1;
/// How many calls of one tool in a row the tool may refuse (invalid arguments, or a
/// [`ToolFailure::retry`](toolcall_runtime::ToolFailure::retry)) before the run ends,
/// when [`Agent::tool_retries`] is not called.
pub const DEFAULT_TOOL_RETRIES: usize = 3;

/// What happens during a run, reported as it happens (see [`Agent::run`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Event<'a> {
    /// A piece of the model's text, as it streams ([`Agent::stream`] only).
    Text(&'a str),
    /// The model asked for a tool call. Every call of a turn is reported before they run.
    ToolCall {
        /// The call id.
        id: &'a str,
        /// The tool name, as the model wrote it.
        name: &'a str,
        /// The arguments, JSON text.
        arguments: &'a str,
    },
    /// The answer sent back for a call: the result's JSON text, or the error's JSON object.
    ToolResult {
        /// The call id.
        id: &'a str,
        /// The tool name, as the model wrote it.
        name: &'a str,
        /// The content sent back.
        content: &'a str,
    },
    /// A running tool reported progress (`Progress::report`).
    Progress {
        /// The call id.
        id: &'a str,
        /// The tool name.
        name: &'a str,
        /// Units of work done.
        done: u64,
        /// Units of work in all, when the tool knows.
        total: Option<u64>,
        /// What is happening ("" when the tool said nothing).
        message: &'a str,
    },
    /// A running tool logged a message (`Progress::log`).
    Log {
        /// The call id.
        id: &'a str,
        /// The tool name.
        name: &'a str,
        /// The message's level.
        level: LogLevel,
        /// The message.
        message: &'a str,
    },
}

/// The tool choice of each request, from its number (1 for the first) and the
/// conversation so far.
type Choose = Arc<dyn Fn(usize, &[Message]) -> ToolChoice + Send + Sync>;

/// The approval callback: sees a call of a destructive tool, answers whether it may run.
type Approve = Arc<dyn Fn(&ToolCall) -> Pin<Box<dyn Future<Output = bool> + Send>> + Send + Sync>;

/// What a running tool reported, on its way to the run's `on_event`.
enum Report {
    Progress { call: usize, done: u64, total: Option<u64>, message: String },
    Log { call: usize, level: LogLevel, message: String },
}

/// The sink of one call's progress: reports go to the run, tagged with the call.
struct CallSink {
    call: usize,
    reports: mpsc::UnboundedSender<Report>,
}

impl ProgressSink for CallSink {
    fn progress(&self, done: u64, total: Option<u64>, message: &str) {
        let report = Report::Progress { call: self.call, done, total, message: message.to_owned() };
        // The run has ended when nobody listens: nothing to report to.
        let _ = self.reports.send(report);
    }

    fn log(&self, level: LogLevel, message: &str) {
        let _ = self.reports.send(Report::Log { call: self.call, level, message: message.to_owned() });
    }
}

/// The answer to a call the approval callback declined: it did not run.
pub fn declined(call: &ToolCall) -> String {
    serde_json::json!({
        "error": "declined",
        "message": format!("the user declined to run `{}`; it was not run", call.name),
    })
    .to_string()
}

/// How a run ended when the model answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The model's answer: its text (or refusal); for a typed run, the answer's JSON.
    pub answer: String,
    /// How many requests were sent.
    pub turns: usize,
    /// The tokens of every request of the run, summed.
    pub usage: Usage,
    /// What the run used: requests, tool calls (refused and failed ones counted apart),
    /// tokens.
    pub run_usage: RunUsage,
    /// The whole conversation: the history given, then the system message (for a new
    /// conversation), the prompt, each reply and each answer to its calls, the answer.
    pub messages: Vec<Message>,
    new_from: usize,
}

impl Outcome {
    /// The messages of this run (after the history it was given).
    pub fn new_messages(&self) -> &[Message] {
        &self.messages[self.new_from.min(self.messages.len())..]
    }
}

enum Backend {
    Http(Endpoint),
    Model(Arc<dyn Model>),
}

/// A tool loop for the tools of `toolset`, each called with the context `C` (the
/// caller's, never the model's), over a [`Provider`] or a [`Model`].
pub struct Agent<C: 'static> {
    tools: &'static Toolset<C>,
    ctx: C,
    backend: Backend,
    system: Option<String>,
    max_turns: usize,
    strict: bool,
    stream: bool,
    output_retries: usize,
    tool_retries: usize,
    approve: Option<Approve>,
    sources: Vec<Arc<dyn Source>>,
    limits: UsageLimits,
    tool_choice: ToolChoice,
    keep_tool_choice: bool,
    choose: Option<Choose>,
    parallel_tool_calls: Option<bool>,
    search: Option<ToolSearch>,
    /// The compiled tools indexed at the first search, when the build compiled no index.
    compiled_index: OnceLock<OwnedIndex>,
}

impl<C> fmt::Debug for Agent<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut debug = f.debug_struct("Agent");
        debug.field("tools", &self.tools);
        match &self.backend {
            Backend::Http(settings) => debug.field("provider", settings),
            Backend::Model(_) => debug.field("model", &"<custom>"),
        };
        debug
            .field("max_turns", &self.max_turns)
            .field("strict", &self.strict)
            .field("stream", &self.stream)
            .field("approve", &self.approve.is_some())
            .field("mcp", &self.sources.iter().map(|source| source.label()).collect::<Vec<_>>())
            .field("tool_search", &self.search)
            .finish_non_exhaustive()
    }
}

impl<C> Agent<C> {
    /// An agent for the OpenAI-compatible Chat Completions endpoint under `base_url` (e.g.
    /// `http://127.0.0.1:11434/v1`; requests go to `{base_url}/chat/completions`): the same
    /// as [`Agent::for_provider`] with [`Provider::OpenAi`].
    pub fn new(tools: &'static Toolset<C>, ctx: C, base_url: impl Into<String>) -> Self {
        Agent::for_provider(tools, ctx, Provider::OpenAi, base_url)
    }

    /// An agent for `provider` at `base_url` (`https://api.openai.com/v1`,
    /// `https://api.anthropic.com/v1`, `https://generativelanguage.googleapis.com/v1beta`),
    /// with the API key from the provider's variable when it is set, and the defaults:
    /// [`Provider::default_model`], [`DEFAULT_MAX_TURNS`], [`DEFAULT_TIMEOUT`], non-strict
    /// definitions, no system prompt, no streaming.
    pub fn for_provider(
        tools: &'static Toolset<C>,
        ctx: C,
        provider: Provider,
        base_url: impl Into<String>,
    ) -> Self {
        let settings = Endpoint {
            provider,
            base_url: base_url.into(),
            api_key: std::env::var(provider.key_variable()).ok(),
            model: provider.default_model().to_owned(),
            timeout: DEFAULT_TIMEOUT,
            max_tokens: None,
            retries: http::Retries::default(),
            prompt_cache: false,
            encrypted_reasoning: false,
        };
        Agent::with_backend(tools, ctx, Backend::Http(settings))
    }

    /// An agent over `model`: [`ScriptedModel`], [`FunctionModel`] or your own. The HTTP
    /// settings ([`Agent::api_key`], [`Agent::model`], [`Agent::timeout`],
    /// [`Agent::max_tokens`]) do not apply to it.
    pub fn with_model(tools: &'static Toolset<C>, ctx: C, model: impl Model + 'static) -> Self {
        Agent::with_backend(tools, ctx, Backend::Model(Arc::new(model)))
    }

    fn with_backend(tools: &'static Toolset<C>, ctx: C, backend: Backend) -> Self {
        Agent {
            tools,
            ctx,
            backend,
            system: None,
            max_turns: DEFAULT_MAX_TURNS,
            strict: false,
            stream: false,
            output_retries: DEFAULT_OUTPUT_RETRIES,
            tool_retries: DEFAULT_TOOL_RETRIES,
            approve: None,
            sources: Vec::new(),
            limits: UsageLimits::default(),
            tool_choice: ToolChoice::Auto,
            keep_tool_choice: false,
            choose: None,
            parallel_tool_calls: None,
            search: None,
            compiled_index: OnceLock::new(),
        }
    }

    fn settings(&mut self) -> Option<&mut Endpoint> {
        match &mut self.backend {
            Backend::Http(settings) => Some(settings),
            Backend::Model(_) => None,
        }
    }

    /// The API key to send (`None`: no key), in place of the provider's variable.
    pub fn api_key(mut self, key: Option<String>) -> Self {
        if let Some(settings) = self.settings() {
            settings.api_key = key;
        }
        self
    }

    /// The model to ask.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        if let Some(settings) = self.settings() {
            settings.model = model.into();
        }
        self
    }

    /// How long one request may take (a streamed one until its last event), each retry
    /// included.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        if let Some(settings) = self.settings() {
            settings.timeout = timeout;
        }
        self
    }

    /// The most tokens one reply may have (Anthropic's `max_tokens`,
    /// [`ANTHROPIC_MAX_TOKENS`] unless set; Chat's `max_completion_tokens`, Responses'
    /// `max_output_tokens`, Gemini's `maxOutputTokens`, the model's own limit unless set).
    pub fn max_tokens(mut self, tokens: u32) -> Self {
        if let Some(settings) = self.settings() {
            settings.max_tokens = Some(tokens);
        }
        self
    }

    /// How many times a request is sent again after a refused connection or a status
    /// worth a retry (408, 409, 429, 5xx, or one the server marks `x-should-retry:
    /// true`); [`DEFAULT_RETRIES`] (3) unless called. Each retry waits as long as the
    /// server asks (`Retry-After`, `retry-after-ms`, the reset of a rate limit it used
    /// up), else 0.1 s doubled each time up to 8 s, with jitter.
    pub fn max_retries(mut self, retries: u32) -> Self {
        if let Some(settings) = self.settings() {
            settings.retries.times = retries;
        }
        self
    }

    /// The longest wait the server may ask for before a retry; a longer one ends the run
    /// at once with [`AgentError::RetryAfter`]. [`DEFAULT_MAX_RETRY_WAIT`] (60 s) unless
    /// called.
    pub fn max_retry_wait(mut self, wait: Duration) -> Self {
        if let Some(settings) = self.settings() {
            settings.retries.max_wait = wait;
        }
        self
    }

    /// Marks Anthropic prompt-cache breakpoints (`cache_control: {"type": "ephemeral"}`)
    /// on the last tool definition, the system prompt and the conversation's last block,
    /// so each request reads the prefix the previous one wrote: toolcall's definitions are
    /// byte-stable, the ideal start of a cached prefix. The cache's reads and writes are
    /// in [`Usage::cache_read_tokens`] and [`Usage::cache_write_tokens`]. Other providers
    /// cache on their own (OpenAI's reads are reported too); this changes nothing there.
    pub fn prompt_cache(mut self, cache: bool) -> Self {
        if let Some(settings) = self.settings() {
            settings.prompt_cache = cache;
        }
        self
    }

    /// On OpenAI Responses, asks for reasoning as encrypted content and does not store
    /// responses (`store: false`, `include: ["reasoning.encrypted_content"]`), so the
    /// reasoning sent back on the next request is carried whole, as zero-data-retention
    /// organizations need. Reasoning items are sent back either way.
    pub fn encrypted_reasoning(mut self, encrypted: bool) -> Self {
        if let Some(settings) = self.settings() {
            settings.encrypted_reasoning = encrypted;
        }
        self
    }

    /// A system message sent before the prompt of a new conversation.
    pub fn system(mut self, system: impl Into<String>) -> Self {
        self.system = Some(system.into());
        self
    }

    /// The most requests one run sends; when the last still asks for tools, the run ends
    /// with [`AgentError::TurnLimit`] without running them.
    pub fn max_turns(mut self, turns: usize) -> Self {
        self.max_turns = turns;
        self
    }

    /// The most one run may use: requests, tool calls, input, output and total tokens
    /// (none by default). Passing one ends the run with [`AgentError::UsageLimit`],
    /// which carries the [`RunUsage`] so far; see [`UsageLimits`] for when each is
    /// checked.
    pub fn limits(mut self, limits: UsageLimits) -> Self {
        self.limits = limits;
        self
    }

    /// The tool choice of a run's requests until the model calls a tool; after that,
    /// [`ToolChoice::Auto`] (so `Required` or a named tool does not loop until the turn
    /// limit), unless [`Agent::keep_tool_choice`]. [`ToolChoice::Auto`] by default. A
    /// named tool the run does not offer, or a choice other than `Auto`/`None` with no
    /// tools, is [`AgentError::Config`] before the request.
    pub fn tool_choice(mut self, choice: ToolChoice) -> Self {
        self.tool_choice = choice;
        self
    }

    /// Keep [`Agent::tool_choice`] on every request, after tool calls too.
    pub fn keep_tool_choice(mut self, keep: bool) -> Self {
        self.keep_tool_choice = keep;
        self
    }

    /// Decides the tool choice of each request: `choose(n, messages)` for the `n`th
    /// request of the run (from 1), with the conversation it sends. In place of
    /// [`Agent::tool_choice`].
    ///
    /// ```text
    /// // Look something up first, answer last.
    /// agent.tool_choice_with(|n, _| if n == 1 { ToolChoice::Required } else { ToolChoice::Auto })
    /// ```
    pub fn tool_choice_with(
        mut self,
        choose: impl Fn(usize, &[Message]) -> ToolChoice + Send + Sync + 'static,
    ) -> Self {
        self.choose = Some(Arc::new(choose));
        self
    }

    /// Whether the model may call several tools in one reply (`parallel_tool_calls` on
    /// OpenAI's APIs, `disable_parallel_tool_use` on Anthropic's; Gemini has no switch).
    /// Not sent unless called: the provider's default (allowed).
    pub fn parallel_tool_calls(mut self, parallel: bool) -> Self {
        self.parallel_tool_calls = Some(parallel);
        self
    }

    /// Send the strict definitions (`emit(format, true)`).
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Ask for each reply as a stream: its text is reported piece by piece as
    /// [`Event::Text`] and its tool calls are put together from their fragments.
    pub fn stream(mut self, stream: bool) -> Self {
        self.stream = stream;
        self
    }

    /// How many times a typed answer that does not decode is sent back to be fixed.
    pub fn output_retries(mut self, retries: usize) -> Self {
        self.output_retries = retries;
        self
    }

    /// How many calls of one tool in a row may be refused, each sent back to the model
    /// to fix: invalid arguments, or a tool's
    /// [`ToolFailure::retry`](toolcall_runtime::ToolFailure::retry). One more ends the run
    /// with [`AgentError::ToolRetries`]; a call the tool accepts starts the count again.
    /// A failure ([`ToolFailure::fail`](toolcall_runtime::ToolFailure::fail), any other
    /// `Err`) is not a refusal: the model reads it and decides.
    pub fn tool_retries(mut self, retries: usize) -> Self {
        self.tool_retries = retries;
        self
    }

    /// Asks `approve` before running a call of a tool annotated destructive
    /// (`destructiveHint: true`): `true` runs it, `false` answers the model that the call
    /// was declined, and it does not run. The calls of one reply are asked about one at a
    /// time, in order, before any of them runs. An approved call runs with an approved
    /// `Progress` ([`Progress::approved`]): the tool's own confirmation
    /// ([`Progress::confirm`]) is that yes. Without `approve`, such a confirmation has
    /// no one to ask and is refused.
    ///
    /// ```text
    /// let agent = agent.approve(|call| {
    ///     let name = call.name.clone();
    ///     async move { ask_the_user(&name).await }
    /// });
    /// ```
    pub fn approve<F, Fut>(mut self, approve: F) -> Self
    where
        F: Fn(&ToolCall) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = bool> + Send + 'static,
    {
        self.approve = Some(Arc::new(move |call: &ToolCall| Box::pin(approve(call))));
        self
    }

    /// Offers the tools of a connected MCP server beside the compiled ones (`mcp`
    /// feature; see [`McpToolset`]). Call it once per server; the servers' tools follow
    /// the compiled ones in the definitions, in the order the servers were given.
    #[cfg(feature = "mcp")]
    pub fn mcp(mut self, tools: McpTools) -> Self {
        self.sources.push(tools.source());
        self
    }

    /// Sends the tools deferred, found by the model through a search tool answered from
    /// toolcall's index, so a request carries a few definitions instead of every one.
    /// The tools [`ToolSearch::always_visible`] names go with every request; the others
    /// are found by a search (the crate's compiled index, `Builder::tool_search(true)`,
    /// and the MCP servers' tools, indexed as they are listed), best first, at most the
    /// limit the model asks for ([`ToolSearch::limit`] when it does not), and called by
    /// name as ever. Each provider gets the deferral it has:
    ///
    /// | provider | what is sent | the search's answer |
    /// |---|---|---|
    /// | Anthropic | every tool, each one not always visible with `"defer_loading": true`, and the search tool | a `tool_result` of `tool_reference` blocks naming the tools found |
    /// | OpenAI Responses | the always-visible tools as functions, the others `"defer_loading": true` in a `namespace` per module (per MCP server), and `{"type": "tool_search", "execution": "client"}` | a `tool_search_output` item with the found tools' definitions |
    /// | Chat Completions, Gemini, a [`Model`] of your own | the always-visible tools and the search tool | the found tools' definitions as JSON text; every later request of the conversation carries them |
    ///
    /// A search tool named as a tool of the run, or an always-visible name no tool has,
    /// is [`AgentError::Config`] when the run starts. Without this call every request
    /// carries every definition, as [`Toolset::emit`] gives them.
    ///
    /// ```no_run
    /// # use example_app::{App, toolset};
    /// # async fn run(app: App) -> Result<(), Box<dyn std::error::Error>> {
    /// use toolcall_agent::{Agent, Provider, ToolSearch};
    ///
    /// // example-app's build.rs calls `toolcall_build::Builder::new().tool_search(true)`.
    /// let agent = Agent::for_provider(&toolset::ALL, app, Provider::Anthropic, "https://api.anthropic.com/v1")
    ///     .tool_search(ToolSearch::new().always_visible(["whoami"]).limit(5));
    /// // The model is sent `whoami`, the search tool and the other tools deferred; it
    /// // asks `search_tools` for "weather forecast", gets `get_weather`, and calls it.
    /// let outcome = agent.run("Will it rain in Oslo tomorrow?", |_| {}).await?;
    /// # Ok(())
    /// # }
    /// # fn main() {}
    /// ```
    pub fn tool_search(mut self, search: ToolSearch) -> Self {
        self.search = Some(search);
        self
    }

    /// Whether a call of tool `name` is asked about ([`Agent::approve`]): a compiled tool
    /// annotated destructive (`destructiveHint: true`), or an MCP tool so annotated (or
    /// not read-only, with [`McpToolset::ask_unless_read_only`](crate::McpToolset)), as
    /// last listed.
    pub fn is_destructive(&self, name: &str) -> bool {
        if self.tools.contains(name) {
            return self
                .tools
                .describe()
                .iter()
                .find(|t| t.name == name)
                .is_some_and(ToolInfo::is_destructive);
        }
        self.sources.iter().any(|source| source.current().iter().any(|t| t.name == name && t.destructive))
    }

    /// The context the tools are called with.
    pub fn context(&self) -> &C {
        &self.ctx
    }

    /// Runs the loop for `prompt` in a new conversation, reporting each text delta, tool
    /// call and answer to `on_event` as it happens, until the model answers
    /// ([`Outcome`]) or the run fails.
    pub async fn run(&self, prompt: &str, on_event: impl FnMut(Event<'_>)) -> Result<Outcome, AgentError> {
        self.run_with_history(&[], prompt, on_event).await
    }

    /// Continues the conversation `history` (an earlier [`Outcome::messages`]) with
    /// `prompt`. The system message is only added to a new conversation.
    pub async fn run_with_history(
        &self,
        history: &[Message],
        prompt: &str,
        mut on_event: impl FnMut(Event<'_>),
    ) -> Result<Outcome, AgentError> {
        let (outcome, ()) = self
            .drive(history, prompt, None::<(&OutputSpec, fn(&str) -> Result<(), String>)>, &mut on_event)
            .await?;
        Ok(outcome)
    }

    /// Runs the loop for `prompt` until the model answers with a `T`: through the
    /// provider's structured output (OpenAI's json_schema, Gemini's response schema) or a
    /// final-answer tool (Anthropic). An answer that does not decode is sent back with
    /// the error, up to [`Agent::output_retries`] times, then the run fails with
    /// [`AgentError::Output`].
    pub async fn run_output<T: OutputType>(
        &self,
        prompt: &str,
        on_event: impl FnMut(Event<'_>),
    ) -> Result<(T, Outcome), AgentError> {
        self.run_output_with(&[], prompt, &T::spec(), T::decode, on_event).await
    }

    /// [`Agent::run_output`] with the schema and the decoder given, continuing `history`.
    pub async fn run_output_with<T>(
        &self,
        history: &[Message],
        prompt: &str,
        spec: &OutputSpec,
        decode: impl Fn(&str) -> Result<T, String>,
        mut on_event: impl FnMut(Event<'_>),
    ) -> Result<(T, Outcome), AgentError> {
        let (outcome, output) = self.drive(history, prompt, Some((spec, decode)), &mut on_event).await?;
        match output {
            Some(output) => Ok((output, outcome)),
            None => Err(AgentError::Model("the run ended without a typed answer".to_owned())),
        }
    }

    /// The loop, in a span `invoke_agent` ([`telemetry`]).
    async fn drive<T, D, O>(
        &self,
        history: &[Message],
        prompt: &str,
        output: Option<(&OutputSpec, D)>,
        on_event: &mut impl FnMut(Event<'_>),
    ) -> Result<(Outcome, O), AgentError>
    where
        D: Fn(&str) -> Result<T, String>,
        O: Typed<T>,
    {
        let backend = match &self.backend {
            Backend::Http(settings) => telemetry::Backend::http(settings),
            Backend::Model(_) => telemetry::Backend::default(),
        };
        let span = telemetry::invoke_agent(&backend);
        let outcome =
            telemetry::within(&span, self.drive_untraced(history, prompt, output, on_event, &backend)).await;
        telemetry::agent_outcome(&span, outcome.as_ref().map(|(outcome, _)| outcome.usage));
        outcome
    }

    /// The loop. Without an output type it ends at the first reply without calls; with
    /// one, at the first answer that decodes. Each request is a span `chat {model}` of
    /// `backend`.
    async fn drive_untraced<T, D, O>(
        &self,
        history: &[Message],
        prompt: &str,
        output: Option<(&OutputSpec, D)>,
        on_event: &mut impl FnMut(Event<'_>),
        backend: &telemetry::Backend,
    ) -> Result<(Outcome, O), AgentError>
    where
        D: Fn(&str) -> Result<T, String>,
        O: Typed<T>,
    {
        let http;
        let model: &dyn Model = match &self.backend {
            Backend::Http(settings) => {
                http = HttpModel::new(settings)?;
                &http
            }
            Backend::Model(model) => model.as_ref(),
        };
        let compiled: Vec<&str> = self.tools.names().collect();
        let mut catalog = Catalog::gather(&self.sources, &compiled).await?;
        if let Some(search) = &self.search {
            check_search(search, &compiled, &catalog)?;
        }
        let mut messages = history.to_vec();
        if messages.is_empty()
            && let Some(system) = &self.system
        {
            messages.push(Message::system(system.as_str()));
        }
        messages.push(Message::user(prompt));
        let spec = output.as_ref().map(|(spec, _)| *spec);
        let mut run = RunUsage::default();
        let mut attempts = 0;
        let mut refusals = Refusals::default();
        let mut called = false;
        for turn in 1..=self.max_turns {
            if turn > 1 {
                catalog = catalog.refreshed(&compiled).await?;
            }
            let searching = self.search.as_ref().map(|settings| {
                Searching::new(settings, self.tools.describe(), Some(&catalog), self.strict, &messages)
            });
            let tools = Tools::new(self.tools, Some(&catalog), self.strict).searching(searching.as_ref());
            self.limits.check_request(&run)?;
            let tool_choice = match &self.choose {
                Some(choose) => choose(turn, &messages),
                None if called && !self.keep_tool_choice => ToolChoice::Auto,
                None => self.tool_choice.clone(),
            };
            check_choice(&tool_choice, &tools, spec)?;
            let request = ModelRequest {
                messages: &messages,
                tools,
                stream: self.stream,
                output: spec,
                tool_choice: &tool_choice,
                parallel_tool_calls: self.parallel_tool_calls,
            };
            let reply = telemetry::Chat::start(backend).run(ask(model, request, on_event)).await?;
            run.requests += 1;
            run.tokens += reply.usage;
            self.limits.check_tokens(&run)?;
            messages.push(reply.to_message());
            let finish = |answer: String, messages: Vec<Message>| Outcome {
                answer,
                turns: turn,
                usage: run.tokens,
                run_usage: run,
                messages,
                new_from: history.len(),
            };
            let mut refused = None;
            match &output {
                // Nothing to answer with and nothing to run: the reply is not an answer.
                None if reply.tool_calls.is_empty() && reply.content.is_empty() => {
                    return Err(error::unusable(&[], reply.finish_reason.as_deref()));
                }
                None if reply.tool_calls.is_empty() => {
                    return Ok((finish(reply.content, messages), O::none()));
                }
                None => {}
                Some((spec, decode)) => {
                    let final_call = reply.tool_calls.iter().find(|call| call.name == spec.name);
                    let answer = match final_call {
                        Some(call) => Some(&call.arguments),
                        None if reply.tool_calls.is_empty() => Some(&reply.content),
                        None => None,
                    };
                    if let Some(answer) = answer {
                        attempts += 1;
                        match decode(answer) {
                            Ok(value) => return Ok((finish(answer.clone(), messages), O::some(value))),
                            Err(error) if attempts > self.output_retries => {
                                return Err(AgentError::Output { attempts, message: error });
                            }
                            Err(error) => refused = Some((final_call.map(|call| call.id.clone()), error)),
                        }
                    }
                }
            }
            if turn == self.max_turns {
                break;
            }
            match refused {
                // A text answer that does not decode: ask for a fixed one.
                Some((None, error)) => messages.push(Message::user(output::retry_prompt(&error))),
                // A final-answer call that does not decode: its answer says why.
                Some((Some(id), error)) => {
                    self.limits.check_calls(&run, reply.tool_calls.len())?;
                    let answered =
                        self.answer(&reply.tool_calls, Some((&id, &error)), &catalog, on_event).await;
                    run.count(&answered);
                    messages
                        .push(Message::Tool { results: answered.into_iter().map(|a| a.answer).collect() });
                }
                None => {
                    self.limits.check_calls(&run, reply.tool_calls.len())?;
                    called = true;
                    let answered = self.answer(&reply.tool_calls, None, &catalog, on_event).await;
                    run.count(&answered);
                    refusals.count(&answered, self.tool_retries)?;
                    messages
                        .push(Message::Tool { results: answered.into_iter().map(|a| a.answer).collect() });
                }
            }
        }
        Err(AgentError::TurnLimit(self.max_turns))
    }

    /// Runs the calls of one reply concurrently, each within its tool's own time limit
    /// (`ToolMeta::timeout_ms`) when it has one; their answers, in order. `refused` is a
    /// final-answer call that did not decode, answered with the error instead of run.
    async fn answer(
        &self,
        calls: &[ToolCall],
        refused: Option<(&str, &str)>,
        catalog: &Catalog,
        on_event: &mut impl FnMut(Event<'_>),
    ) -> Vec<Answered> {
        for call in calls {
            on_event(Event::ToolCall { id: &call.id, name: &call.name, arguments: &call.arguments });
        }
        // Approval first, one call at a time and in order (a person answers them): whether
        // each call may run, and whether a person said yes to it.
        let mut approved = Vec::with_capacity(calls.len());
        for call in calls {
            let destructive = match catalog.find(&call.name) {
                Some((_, tool)) if !self.tools.contains(&call.name) => tool.destructive,
                _ => self.is_destructive(&call.name),
            };
            let ask = self.approve.as_ref().filter(|_| destructive);
            approved.push(match ask {
                Some(approve) => (approve(call).await, true),
                None => (true, false),
            });
        }
        let (sender, mut reports) = mpsc::unbounded_channel();
        let each = calls.iter().zip(approved).enumerate().map(|(index, (call, (approved, asked)))| {
            let progress = Progress::new(CallSink { call: index, reports: sender.clone() });
            // A call a person approved confirms itself: the tool's own confirmation
            // (`Progress::confirm`) is that yes, not asked again.
            let progress = if approved && asked { progress.approved() } else { progress };
            async move {
                let answer = |content: String| Answered {
                    answer: ToolReturn {
                        id: call.id.clone(),
                        name: call.name.clone(),
                        content,
                        is_error: true,
                        blocks: Vec::new(),
                    },
                    refusal: None,
                    failed: false,
                    kind: None,
                };
                match refused {
                    Some((id, error)) if id == call.id => answer(output::retry_prompt(error)),
                    _ if !approved => answer(declined(call)),
                    _ => self.answer_one(call, &progress, catalog).await,
                }
            }
        });
        let each: Vec<_> = each.collect();
        drop(sender);
        let mut joined = std::pin::pin!(futures_util::future::join_all(each));
        let answers = loop {
            let next = std::pin::pin!(reports.recv());
            match futures_util::future::select(next, joined.as_mut()).await {
                Either::Left((Some(report), _)) => emit_report(calls, report, on_event),
                // Every call's sink is gone: every call has finished.
                Either::Left((None, _)) => break joined.as_mut().await,
                Either::Right((answers, _)) => break answers,
            }
        };
        while let Ok(report) = reports.try_recv() {
            emit_report(calls, report, on_event);
        }
        for Answered { answer, .. } in &answers {
            on_event(Event::ToolResult { id: &answer.id, name: &answer.name, content: &answer.content });
        }
        answers
    }

    /// The answer to one call, in a span `execute_tool {name}` ([`telemetry`]).
    async fn answer_one(&self, call: &ToolCall, progress: &Progress, catalog: &Catalog) -> Answered {
        let external = !self.tools.contains(&call.name) && catalog.find(&call.name).is_some();
        let span = telemetry::execute_tool(call, external);
        let answered = telemetry::within(&span, self.answer_one_untraced(call, progress, catalog)).await;
        telemetry::tool_outcome(&span, answered.kind, &answered.answer.content);
        answered
    }

    /// The answer to one call; past the tool's own time limit, the call is dropped
    /// (cancelled at its `.await`) and the answer says which limit it hit.
    async fn answer_one_untraced(&self, call: &ToolCall, progress: &Progress, catalog: &Catalog) -> Answered {
        if let Some(search) = self.search.as_ref().filter(|search| search.tool_name() == call.name) {
            return self.answer_search(search, call, catalog);
        }
        if !self.tools.contains(&call.name)
            && let Some((source, tool)) = catalog.find(&call.name)
        {
            return answer_external(call, source, tool, progress).await;
        }
        let run = self.tools.call_json_reporting(&self.ctx, &call.name, &call.arguments, progress);
        let limit = self.tools.describe().iter().find(|t| t.name == call.name).and_then(|t| t.timeout_ms);
        let result = match limit {
            None => run.await,
            Some(ms) => match tokio::time::timeout(Duration::from_millis(ms), run).await {
                Ok(result) => result,
                Err(_) => Err(ToolError::Failed(format!(
                    "tool `{}` did not finish within {ms} ms (the tool's time limit); it was cancelled",
                    call.name
                ))),
            },
        };
        let result = match result {
            // The model may call any tool of the run: the error lists them all.
            Err(ToolError::UnknownTool { name, mut known }) if !catalog.is_empty() => {
                known.extend(catalog.names().iter().cloned());
                Err(ToolError::UnknownTool { name, known })
            }
            other => other,
        };
        let blocks = match &result {
            Ok(value) if self.tools.returns_content(&call.name) => Content::blocks(value).unwrap_or_default(),
            _ => Vec::new(),
        };
        let content = if blocks.is_empty() {
            answer_text(&result)
        } else {
            blocks.iter().map(Content::describe).collect::<Vec<_>>().join("\n")
        };
        let refusal = match &result {
            Err(error) if error.is_call_error() => Some(error.to_string()),
            _ => None,
        };
        let failed = result.is_err() && refusal.is_none();
        let kind = result.as_ref().err().map(ToolError::kind);
        let answer = ToolReturn {
            id: call.id.clone(),
            name: call.name.clone(),
            content,
            is_error: result.is_err(),
            blocks,
        };
        Answered { answer, refusal, failed, kind }
    }
}

impl<C> Agent<C> {
    /// The answer to a call of the search tool: the best matches among the tools of the
    /// run not always visible, as [`search::answer_text`] writes them; arguments that do
    /// not check are refused as any tool's are.
    fn answer_search(&self, settings: &ToolSearch, call: &ToolCall, catalog: &Catalog) -> Answered {
        let (content, error) = match search::read_arguments(settings, &call.arguments) {
            Ok((query, limit)) => {
                (search::answer_text(&self.find_tools(settings, &query, limit, catalog)), None)
            }
            Err(error) => (glue::content(&Err(error.clone())), Some(error)),
        };
        let refusal = error.as_ref().map(ToString::to_string);
        let kind = error.as_ref().map(ToolError::kind);
        let answer = ToolReturn {
            id: call.id.clone(),
            name: call.name.clone(),
            content,
            is_error: error.is_some(),
            blocks: Vec::new(),
        };
        Answered { answer, refusal, failed: false, kind }
    }

    /// The tools of the run best matching `query`, best first, at most `limit`, the
    /// always-visible ones left out: the compiled tools ranked by the build's index (or,
    /// without one, an index of them made at the agent's first search), the MCP servers'
    /// by the index made when they were listed, merged by score.
    fn find_tools<'a>(
        &self,
        settings: &ToolSearch,
        query: &str,
        limit: usize,
        catalog: &'a Catalog,
    ) -> Vec<Entry<'a>> {
        let keep = |name: &str| !settings.is_always_visible(name);
        let infos = self.tools.describe();
        let mut hits: Vec<(f32, usize, Entry<'a>)> = Vec::new();
        if self.tools.is_searchable() {
            let wide = limit.saturating_add(settings.always_visible_names().count());
            for hit in self.tools.search(query, wide).into_iter().filter(|hit| keep(hit.tool.name)) {
                let at = infos.iter().position(|info| info.name == hit.tool.name).unwrap_or(usize::MAX);
                hits.push((hit.score, at, Entry::Compiled(hit.tool)));
            }
        } else {
            let index = self.compiled_index.get_or_init(|| {
                let mut index = OwnedIndex::new();
                for info in infos {
                    index.add(&Document::of_info(info));
                }
                index
            });
            let ranked =
                index.rank(query, limit, |row| infos.get(row as usize).is_some_and(|info| keep(info.name)));
            for (row, score) in ranked {
                if let Some(info) = infos.get(row as usize) {
                    hits.push((score, row as usize, Entry::Compiled(info)));
                }
            }
        }
        let mut offset = infos.len();
        for list in catalog.lists() {
            let ranked =
                list.index().rank(query, limit, |row| list.get(row as usize).is_some_and(|t| keep(&t.name)));
            for (row, score) in ranked {
                if let Some(tool) = list.get(row as usize) {
                    hits.push((
                        score,
                        offset + row as usize,
                        Entry::External { tool, group: list.namespace() },
                    ));
                }
            }
            offset += list.len();
        }
        hits.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        hits.into_iter().take(limit).map(|(_, _, entry)| entry).collect()
    }
}

/// Settings of tool search the run can use: a search tool whose name no tool of the run
/// has, always-visible names that are tools of the run.
fn check_search(search: &ToolSearch, compiled: &[&str], catalog: &Catalog) -> Result<(), AgentError> {
    let offered = |name: &str| compiled.contains(&name) || catalog.find(name).is_some();
    if offered(search.tool_name()) {
        return Err(AgentError::Config(format!(
            "the search tool's name `{}` is a tool's name: name the search tool otherwise (ToolSearch::named)",
            search.tool_name()
        )));
    }
    let missing: Vec<&str> = search.always_visible_names().filter(|name| !offered(name)).collect();
    if !missing.is_empty() {
        return Err(AgentError::Config(format!(
            "ToolSearch::always_visible names {}, which the run does not offer",
            missing.iter().map(|name| format!("`{name}`")).collect::<Vec<_>>().join(", ")
        )));
    }
    Ok(())
}

/// What the model reads for a compiled tool's `result`: a string result's own text (a
/// tool returning `String` says `removed "Beef ramen"`, not its JSON literal
/// `"removed \"Beef ramen\""`), any other value's JSON text, an error's JSON object.
fn answer_text(result: &Result<serde_json::Value, ToolError>) -> String {
    match result {
        Ok(serde_json::Value::String(text)) => text.clone(),
        other => glue::content(other),
    }
}

/// The answer to a call of an external (MCP) tool: its arguments checked by the IR
/// validator, then sent; the result or the error as a compiled tool's would be.
async fn answer_external(
    call: &ToolCall,
    source: &dyn Source,
    tool: &ExternalTool,
    progress: &Progress,
) -> Answered {
    let result = match tool.arguments(&call.arguments) {
        Ok(arguments) => source.call(tool, arguments, progress.clone()).await,
        Err(error) => Err(error),
    };
    let (content, blocks, error) = match result {
        Ok(returned) => (returned.content, returned.blocks, None),
        Err(error) => (glue::content(&Err(error.clone())), Vec::new(), Some(error)),
    };
    let refusal = error.as_ref().filter(|error| error.is_call_error()).map(ToString::to_string);
    let failed = error.is_some() && refusal.is_none();
    let kind = error.as_ref().map(ToolError::kind);
    let answer = ToolReturn {
        id: call.id.clone(),
        name: call.name.clone(),
        content,
        is_error: error.is_some(),
        blocks,
    };
    Answered { answer, refusal, failed, kind }
}

/// One call's answer, what the tool refused when the model should retry it (invalid
/// arguments, a `ToolFailure::retry`), and whether it failed for the tool's own reasons.
struct Answered {
    answer: ToolReturn,
    refusal: Option<String>,
    failed: bool,
    /// The kind of the tool's error, when it failed (the `execute_tool` span's `error.type`).
    kind: Option<&'static str>,
}

impl RunUsage {
    /// Counts one reply's answered calls.
    fn count(&mut self, answered: &[Answered]) {
        self.tool_calls += answered.len();
        self.refused_calls += answered.iter().filter(|a| a.refusal.is_some()).count();
        self.failed_calls += answered.iter().filter(|a| a.failed).count();
    }
}

/// How many calls of each tool in a row were refused, for [`Agent::tool_retries`].
#[derive(Default)]
struct Refusals(std::collections::HashMap<String, usize>);

impl Refusals {
    /// Counts one reply's answers: a refusal adds one to its tool, any other answer of a
    /// tool starts it again. Past `limit` for a tool, the run's error.
    fn count(&mut self, answered: &[Answered], limit: usize) -> Result<(), AgentError> {
        for Answered { answer, refusal, .. } in answered {
            match refusal {
                Some(message) => {
                    let refused = self.0.entry(answer.name.clone()).or_default();
                    *refused += 1;
                    if *refused > limit {
                        return Err(AgentError::ToolRetries {
                            tool: answer.name.clone(),
                            refused: *refused,
                            message: message.clone(),
                        });
                    }
                }
                None => {
                    self.0.remove(&answer.name);
                }
            }
        }
        Ok(())
    }
}

/// A tool choice the request's tools can meet: a named tool among them (or typed output's
/// final-answer tool), a call required of at least one.
fn check_choice(
    choice: &ToolChoice,
    tools: &Tools<'_>,
    output: Option<&OutputSpec>,
) -> Result<(), AgentError> {
    let final_answer = |name: &str| output.is_some_and(|spec| spec.name == name);
    match choice {
        ToolChoice::Tool(name) if !tools.names().contains(&name.as_str()) && !final_answer(name) => {
            Err(AgentError::Config(format!("the tool choice names `{name}`, which the run does not offer")))
        }
        ToolChoice::Required if tools.is_empty() && output.is_none() => Err(AgentError::Config(
            "the tool choice requires a tool call, and the run offers no tools".to_owned(),
        )),
        _ => Ok(()),
    }
}

/// Reports what a running tool said as the event of its call.
fn emit_report(calls: &[ToolCall], report: Report, on_event: &mut impl FnMut(Event<'_>)) {
    let index = match &report {
        Report::Progress { call, .. } | Report::Log { call, .. } => *call,
    };
    let Some(call) = calls.get(index) else { return };
    let (id, name) = (call.id.as_str(), call.name.as_str());
    match &report {
        Report::Progress { done, total, message, .. } => {
            on_event(Event::Progress { id, name, done: *done, total: *total, message })
        }
        Report::Log { level, message, .. } => on_event(Event::Log { id, name, level: *level, message }),
    }
}

/// What a run gives besides its [`Outcome`]: nothing, or the typed answer.
trait Typed<T> {
    fn none() -> Self;
    fn some(value: T) -> Self;
}

impl<T> Typed<T> for () {
    fn none() -> Self {}
    fn some(_: T) -> Self {}
}

impl<T> Typed<T> for Option<T> {
    fn none() -> Self {
        None
    }
    fn some(value: T) -> Self {
        Some(value)
    }
}

/// One request: text deltas reported as they come, then the reply.
async fn ask(
    model: &dyn Model,
    request: ModelRequest<'_>,
    on_event: &mut impl FnMut(Event<'_>),
) -> Result<ModelResponse, AgentError> {
    let mut parts = model.request(request);
    while let Some(part) = parts.next().await {
        match part? {
            StreamPart::Text(text) => on_event(Event::Text(&text)),
            StreamPart::Done(reply) => return Ok(reply),
        }
    }
    Err(AgentError::Model("the model's stream ended without a reply".to_owned()))
}
