//! The conversation, the same for every provider: [`Message`]s of a run (what
//! [`Outcome::messages`](crate::Outcome::messages) returns and
//! [`Agent::run_with_history`](crate::Agent::run_with_history) continues), the
//! [`ToolCall`]s a model asks for, the [`ToolReturn`]s that answer them, a model's
//! [`ModelResponse`] and the token [`Usage`]. Each provider maps them to and from its own
//! wire shape; they serialize with serde, so a conversation can be stored and resumed,
//! even with another provider.

use serde::{Deserialize, Serialize};

/// One message of a conversation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    /// Instructions: Chat's `system` message, Responses' `instructions`, Anthropic's
    /// `system`, Gemini's `systemInstruction`.
    System {
        /// The text.
        content: String,
    },
    /// What the user (or the agent, when it asks the model to fix its output) says.
    User {
        /// The text.
        content: String,
    },
    /// A model's reply: its text and the tools it asked for.
    Assistant {
        /// The text ("" when it only called tools).
        content: String,
        /// The tool calls, in the model's order.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
        /// The reasoning items the model returned with the reply (OpenAI Responses),
        /// sent back before its calls on the next request; other providers leave them out.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        reasoning: Vec<Reasoning>,
    },
    /// The answers to the calls of the assistant message before it, in call order.
    Tool {
        /// One answer per call.
        results: Vec<ToolReturn>,
    },
}

impl Message {
    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Message::User { content: content.into() }
    }

    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Message::System { content: content.into() }
    }

    /// An assistant message with text and no calls.
    pub fn assistant(content: impl Into<String>) -> Self {
        Message::Assistant { content: content.into(), tool_calls: Vec::new(), reasoning: Vec::new() }
    }

    /// An assistant message with text and calls.
    pub fn assistant_calls(
        content: impl Into<String>,
        tool_calls: impl IntoIterator<Item = ToolCall>,
    ) -> Self {
        let tool_calls = tool_calls.into_iter().collect();
        Message::Assistant { content: content.into(), tool_calls, reasoning: Vec::new() }
    }
}

/// A reasoning item of an OpenAI Responses reply: what the model thought before it
/// answered or called tools, kept so the next request carries it back (reasoning models
/// continue from it; with `store: false`, only its encrypted content can).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reasoning {
    /// The item's id (`rs_..`).
    pub id: String,
    /// The summary texts the API returned (often none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub summary: Vec<String>,
    /// The encrypted reasoning, when asked for
    /// ([`Agent::encrypted_reasoning`](crate::Agent::encrypted_reasoning)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted_content: Option<String>,
}

/// A tool call as the model asked for it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The id its answer carries (generated when the provider gives none, as Gemini may not).
    pub id: String,
    /// The tool name, as the model wrote it.
    pub name: String,
    /// The arguments, JSON text (as OpenAI sends them; Anthropic's and Gemini's decoded
    /// `input`/`args` objects, re-encoded).
    pub arguments: String,
    /// An opaque token the provider attached to the call and wants back with it (Gemini's
    /// `thoughtSignature`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
}

impl ToolCall {
    /// A call without a signature.
    pub fn new(id: impl Into<String>, name: impl Into<String>, arguments: impl Into<String>) -> Self {
        ToolCall { id: id.into(), name: name.into(), arguments: arguments.into(), signature: None }
    }
}

/// The answer to one [`ToolCall`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolReturn {
    /// The call's id.
    pub id: String,
    /// The call's tool name.
    pub name: String,
    /// The result's JSON text, or the error's JSON object (`glue::content`).
    pub content: String,
    /// The call failed (Anthropic's `is_error`, Gemini's `error` key).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
    /// The result's blocks when the tool returns [`Content`](toolcall_runtime::Content)
    /// (empty otherwise); `content` then holds their text description, without bytes,
    /// for providers with no place for them. Anthropic sends images as image blocks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<toolcall_runtime::Content>,
}

/// Tokens a model counted, summed over the requests of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens, those read from or written to a prompt cache included (Chat's
    /// `prompt_tokens`, Anthropic's `input_tokens` plus its cache reads and writes,
    /// Gemini's `promptTokenCount`).
    pub input_tokens: u64,
    /// Generated tokens (Chat's `completion_tokens`, Gemini's `candidatesTokenCount` plus
    /// `thoughtsTokenCount`).
    pub output_tokens: u64,
    /// Input tokens read from the provider's prompt cache (Anthropic's
    /// `cache_read_input_tokens`, OpenAI's `cached_tokens`, Gemini's
    /// `cachedContentTokenCount`): part of `input_tokens`, billed at a fraction.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_read_tokens: u64,
    /// Input tokens written to the prompt cache (Anthropic's
    /// `cache_creation_input_tokens`): part of `input_tokens`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_write_tokens: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Usage {
    /// `input` tokens in and `output` out, no cache.
    pub fn new(input: u64, output: u64) -> Self {
        Usage { input_tokens: input, output_tokens: output, ..Usage::default() }
    }
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_read_tokens += other.cache_read_tokens;
        self.cache_write_tokens += other.cache_write_tokens;
    }
}

/// One reply of a model, as a [`Model`](crate::Model) returns it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModelResponse {
    /// The text (its refusal when the model refused).
    pub content: String,
    /// The tools it asked for, in order; none when `content` is its answer.
    pub tool_calls: Vec<ToolCall>,
    /// The tokens of this request.
    pub usage: Usage,
    /// The reasoning items returned with it (OpenAI Responses), to send back.
    pub reasoning: Vec<Reasoning>,
    /// Why the model stopped, in its provider's own words, when it said: OpenAI Chat's
    /// `finish_reason` (`stop`, `tool_calls`, `length`, `content_filter`), Anthropic's
    /// `stop_reason` (`end_turn`, `tool_use`, `max_tokens`, ...), Gemini's `finishReason`
    /// (`STOP`, `MAX_TOKENS`, `SAFETY`, ...), a Responses reply's status (`completed`) or,
    /// when incomplete, why (`max_output_tokens`, `content_filter`). The `chat` span records
    /// it as `gen_ai.response.finish_reasons`.
    pub finish_reason: Option<String>,
}

impl ModelResponse {
    /// A reply answering `text`.
    pub fn text(text: impl Into<String>) -> Self {
        ModelResponse { content: text.into(), ..ModelResponse::default() }
    }

    /// A reply asking for `calls`.
    pub fn calls(calls: impl IntoIterator<Item = ToolCall>) -> Self {
        ModelResponse { tool_calls: calls.into_iter().collect(), ..ModelResponse::default() }
    }

    /// The same reply, counting `input` and `output` tokens.
    pub fn with_usage(mut self, input: u64, output: u64) -> Self {
        self.usage = Usage::new(input, output);
        self
    }

    /// The reply as the assistant message of the conversation.
    pub fn to_message(&self) -> Message {
        Message::Assistant {
            content: self.content.clone(),
            tool_calls: self.tool_calls.clone(),
            reasoning: self.reasoning.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn messages_serialize_with_a_role_tag_and_round_trip() {
        let messages = vec![
            Message::system("Be brief."),
            Message::user("add 1 and 2"),
            Message::assistant_calls("", [ToolCall::new("c1", "add", "{}")]),
            Message::Tool {
                results: vec![ToolReturn {
                    id: "c1".into(),
                    name: "add".into(),
                    content: "3".into(),
                    is_error: false,
                    blocks: Vec::new(),
                }],
            },
            Message::assistant("3"),
        ];
        let value = serde_json::to_value(&messages).unwrap();
        assert_eq!(value[0], json!({"role": "system", "content": "Be brief."}));
        assert_eq!(
            value[2],
            json!({"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "add", "arguments": "{}"}]})
        );
        assert_eq!(
            value[3],
            json!({"role": "tool", "results": [{"id": "c1", "name": "add", "content": "3"}]})
        );
        assert_eq!(value[4], json!({"role": "assistant", "content": "3"}));
        let back: Vec<Message> = serde_json::from_value(value).unwrap();
        assert_eq!(back, messages);
    }

    #[test]
    fn usage_adds_up() {
        let mut usage = Usage::default();
        usage += Usage::new(3, 4);
        usage += Usage::new(10, 1);
        assert_eq!(usage, Usage::new(13, 5));
    }
}
