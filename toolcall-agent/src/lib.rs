//! # toolcall-agent
//!
//! A complete tool loop for a toolcall [`Toolset`] over an OpenAI-compatible Chat
//! Completions endpoint, on [async-openai](https://docs.rs/async-openai): send the prompt
//! with the toolset's precomputed OpenAI definitions, run every tool call of the model's
//! reply concurrently through [`glue::answer_openai_message`], send the answers back, and
//! repeat until the model answers or the turn limit.
//!
//! ```no_run
//! # mod toolset { pub static ALL: toolcall_runtime::Toolset = toolcall_runtime::Toolset::new(&[], &E, |_, _, _| None); static E: toolcall_runtime::Emitted = toolcall_runtime::Emitted::new(); }
//! # async fn run() -> Result<(), toolcall_agent::AgentError> {
//! use toolcall_agent::{Agent, Event};
//!
//! let agent = Agent::new(&toolset::ALL, (), "http://127.0.0.1:11434/v1").model("qwen3").max_turns(8);
//! let outcome = agent
//!     .run("What is 2 + 3?", |event| match event {
//!         Event::ToolCall { name, arguments, .. } => println!("-> {name} {arguments}"),
//!         Event::ToolResult { name, content, .. } => println!("<- {name} {content}"),
//!         _ => {}
//!     })
//!     .await?;
//! println!("{}", outcome.answer);
//! # Ok(()) }
//! ```
//!
//! - The `tools` field of every request is [`Toolset::emit`]`(Format::OpenAi, strict)`.
//! - A call the model gets wrong (an unknown tool, arguments that do not decode, a tool
//!   that fails) is answered with the error's JSON object as the tool's content, so the
//!   model can correct itself; it never ends the run.
//! - What does end it is an [`AgentError`]: the endpoint unreachable, an HTTP error status
//!   (with the body's message), a reply that is not a chat completion, or the turn limit.
//!   async-openai retries 429, 5xx and refused connections three times (0.1, 0.2, 0.4 s)
//!   first.
//! - The API key is `OPENAI_API_KEY` when set ([`Agent::api_key`] to choose), sent as a
//!   bearer token; no other variable is read.
//! - It runs on tokio (reqwest's transport): call [`Agent::run`] inside a tokio runtime
//!   with IO and time enabled. Plain `http://` only, unless the `rustls` feature is on.

mod error;
mod http;
mod wire;

use std::fmt;
use std::time::Duration;

use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_openai::types::chat::{
    ChatCompletionRequestMessage, ChatCompletionRequestSystemMessage, ChatCompletionRequestUserMessage,
    ChatCompletionResponseMessage, ChatCompletionTools, CreateChatCompletionRequest,
};
use toolcall_runtime::{Format, Toolset, glue};

pub use crate::error::AgentError;

/// The model asked for when [`Agent::model`] is not called.
pub const DEFAULT_MODEL: &str = "gpt-4o-mini";
/// The most requests one [`Agent::run`] sends when [`Agent::max_turns`] is not called.
pub const DEFAULT_MAX_TURNS: usize = 10;
/// How long one request may take when [`Agent::timeout`] is not called.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// What happens during a run, reported as it happens (see [`Agent::run`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Event<'a> {
    /// The model asked for a tool call. Every call of a turn is reported before they run.
    ToolCall {
        /// The call id.
        id: &'a str,
        /// The tool name, as the model wrote it.
        name: &'a str,
        /// The arguments, JSON text as the model wrote it.
        arguments: &'a str,
    },
    /// The answer sent back for a call: the result's JSON text, or the error's JSON object.
    ToolResult {
        /// The call id.
        id: &'a str,
        /// The tool name, as the model wrote it.
        name: &'a str,
        /// The content of the `role: tool` message.
        content: &'a str,
    },
}

/// How a run ended when the model answered.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// The model's answer: its message's content (or refusal).
    pub answer: String,
    /// How many requests were sent.
    pub turns: usize,
    /// The conversation: the prompt, each assistant message, each tool answer, the answer.
    pub messages: Vec<ChatCompletionRequestMessage>,
}

/// A tool loop over an OpenAI-compatible Chat Completions endpoint for the tools of
/// `toolset`, each called with the context `C` (the caller's, never the model's).
pub struct Agent<C: 'static> {
    tools: &'static Toolset<C>,
    ctx: C,
    base_url: String,
    api_key: Option<String>,
    model: String,
    system: Option<String>,
    max_turns: usize,
    strict: bool,
    timeout: Duration,
}

impl<C> fmt::Debug for Agent<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Agent")
            .field("tools", &self.tools)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("model", &self.model)
            .field("max_turns", &self.max_turns)
            .field("strict", &self.strict)
            .finish_non_exhaustive()
    }
}

impl<C> Agent<C> {
    /// An agent for the endpoint under `base_url` (e.g. `http://127.0.0.1:11434/v1`;
    /// requests go to `{base_url}/chat/completions`), with the API key from
    /// `OPENAI_API_KEY` when it is set, and the defaults: [`DEFAULT_MODEL`],
    /// [`DEFAULT_MAX_TURNS`], [`DEFAULT_TIMEOUT`], non-strict definitions, no system prompt.
    pub fn new(tools: &'static Toolset<C>, ctx: C, base_url: impl Into<String>) -> Self {
        Agent {
            tools,
            ctx,
            base_url: base_url.into(),
            api_key: std::env::var("OPENAI_API_KEY").ok(),
            model: DEFAULT_MODEL.to_owned(),
            system: None,
            max_turns: DEFAULT_MAX_TURNS,
            strict: false,
            timeout: DEFAULT_TIMEOUT,
        }
    }

    /// The API key to send (`None`: no key), in place of `OPENAI_API_KEY`.
    pub fn api_key(mut self, key: Option<String>) -> Self {
        self.api_key = key;
        self
    }

    /// The model to ask.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = model.into();
        self
    }

    /// A system message sent before the prompt.
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

    /// Send the strict definitions (`emit(Format::OpenAi, true)`).
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// How long one request may take, retries included.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The context the tools are called with.
    pub fn context(&self) -> &C {
        &self.ctx
    }

    /// Runs the loop for `prompt`, reporting each tool call and each answer to `on_event`
    /// as it happens, until the model answers ([`Outcome`]) or the run fails.
    pub async fn run(
        &self,
        prompt: &str,
        mut on_event: impl FnMut(Event<'_>),
    ) -> Result<Outcome, AgentError> {
        let client = http::client(&self.base_url, self.api_key.as_deref(), self.timeout)?;
        let tools = wire::tools(self.tools.emit(Format::OpenAi, self.strict))?;
        let mut messages = self.opening(prompt);
        for turn in 1..=self.max_turns {
            let reply = self.ask(&client, &messages, &tools).await?;
            messages.push(wire::assistant(&reply));
            let calls = wire::calls(&reply);
            if calls.is_empty() {
                return Ok(Outcome { answer: wire::answer(&reply), turns: turn, messages });
            }
            if turn == self.max_turns {
                break;
            }
            messages.extend(self.answer(&calls, &mut on_event).await);
        }
        Err(AgentError::TurnLimit(self.max_turns))
    }

    /// The system message (if any) and the prompt.
    fn opening(&self, prompt: &str) -> Vec<ChatCompletionRequestMessage> {
        let system = self.system.as_deref().map(|text| ChatCompletionRequestSystemMessage::from(text).into());
        system.into_iter().chain([ChatCompletionRequestUserMessage::from(prompt).into()]).collect()
    }

    /// One request: the conversation so far and the tools; the first choice's message.
    async fn ask(
        &self,
        client: &Client<OpenAIConfig>,
        messages: &[ChatCompletionRequestMessage],
        tools: &[ChatCompletionTools],
    ) -> Result<ChatCompletionResponseMessage, AgentError> {
        let request = CreateChatCompletionRequest {
            model: self.model.clone(),
            messages: messages.to_vec(),
            tools: Some(tools.to_vec()),
            ..CreateChatCompletionRequest::default()
        };
        let response = client.chat().create(request).await?;
        let choice = response.choices.into_iter().next();
        let no_choice =
            || AgentError::Malformed { reason: "`choices` is empty".to_owned(), body: String::new() };
        choice.map(|choice| choice.message).ok_or_else(no_choice)
    }

    /// Runs the calls of one reply concurrently through the glue, each within its tool's
    /// own time limit (`ToolMeta::timeout_ms`) when it has one; the `role: tool` messages
    /// answering them, in order.
    async fn answer(
        &self,
        calls: &[wire::Call],
        on_event: &mut impl FnMut(Event<'_>),
    ) -> Vec<ChatCompletionRequestMessage> {
        for call in calls {
            on_event(Event::ToolCall { id: &call.id, name: &call.name, arguments: &call.arguments });
        }
        let each = calls.iter().map(|call| self.answer_one(call));
        let answers: Vec<serde_json::Value> = futures_util::future::join_all(each).await;
        let answered = calls.iter().zip(&answers).map(|(call, answer)| {
            let (id, content) = wire::answer_parts(answer);
            on_event(Event::ToolResult { id, name: &call.name, content });
            wire::tool_message(id, content)
        });
        answered.collect()
    }

    /// The glue's answer to one call; past the tool's own time limit, the call is dropped
    /// (cancelled at its `.await`) and the answer says which limit it hit.
    async fn answer_one(&self, call: &wire::Call) -> serde_json::Value {
        let message = wire::glue_message(std::slice::from_ref(call));
        let run = glue::answer_openai_message(self.tools, &self.ctx, &message);
        let limit = self.tools.describe().iter().find(|t| t.name == call.name).and_then(|t| t.timeout_ms);
        let answers = match limit {
            None => run.await,
            Some(ms) => match tokio::time::timeout(Duration::from_millis(ms), run).await {
                Ok(answers) => answers,
                Err(_) => {
                    let why = format!(
                        "tool `{}` did not finish within {ms} ms (the tool's time limit); it was cancelled",
                        call.name
                    );
                    vec![glue::openai_tool_message(&call.id, &Err(toolcall_runtime::ToolError::Failed(why)))]
                }
            },
        };
        answers.into_iter().next().unwrap_or_default()
    }
}
