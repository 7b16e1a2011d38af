//! OpenAI Chat Completions: the request in async-openai's typed messages (with the
//! toolset's `emit(Format::OpenAi, strict)` definitions, the tool choice and
//! `parallel_tool_calls`, and, for typed output, a strict `response_format` json_schema),
//! the reply and its streamed chunks (`delta.content`,
//! `delta.tool_calls` fragments by `index`, the last chunk's `usage`) read into
//! [`ModelResponse`].

use async_openai::types::chat::{
    ChatCompletionMessageToolCall, ChatCompletionMessageToolCalls, ChatCompletionNamedToolChoice,
    ChatCompletionRequestAssistantMessage, ChatCompletionRequestMessage, ChatCompletionRequestSystemMessage,
    ChatCompletionRequestToolMessage, ChatCompletionRequestUserMessage, ChatCompletionResponseMessage,
    ChatCompletionStreamOptions, ChatCompletionToolChoiceOption, ChatCompletionTools,
    CreateChatCompletionRequest, FunctionCall, FunctionName, ResponseFormat, ResponseFormatJsonSchema,
    ToolChoiceOptions,
};
use serde::Deserialize;
use toolcall_runtime::Format;

use super::{HttpModel, send};
use crate::choice::ToolChoice;
use crate::error::AgentError;
use crate::http::{Assembler, SseEvent};
use crate::message::{Message, ModelResponse, ToolCall, Usage};
use crate::model::{ModelRequest, ModelStream};

pub(super) fn request<'a>(model: &'a HttpModel, request: ModelRequest<'a>) -> ModelStream<'a> {
    let body = body(model, &request);
    send(model, model.url("chat/completions"), body, request.stream, read, ChatStream::default)
}

/// The request body.
fn body(model: &HttpModel, request: &ModelRequest<'_>) -> Result<CreateChatCompletionRequest, AgentError> {
    let tools: Vec<ChatCompletionTools> = serde_json::from_str(request.tools.definitions(Format::OpenAi))
        .map_err(|e| AgentError::Definitions(e.to_string()))?;
    let response_format = request.output.map(|spec| ResponseFormat::JsonSchema {
        json_schema: ResponseFormatJsonSchema {
            description: Some(spec.description.clone()).filter(|d| !d.is_empty()),
            name: spec.name.clone(),
            schema: spec.schema.clone(),
            strict: Some(true),
        },
    });
    let stream_options = ChatCompletionStreamOptions { include_usage: Some(true), include_obfuscation: None };
    let has_tools = !tools.is_empty();
    Ok(CreateChatCompletionRequest {
        model: model.settings.model.clone(),
        messages: messages(request.messages),
        tools: has_tools.then_some(tools),
        tool_choice: tool_choice(request.tool_choice).filter(|_| has_tools),
        parallel_tool_calls: request.parallel_tool_calls.filter(|_| has_tools),
        response_format,
        max_completion_tokens: model.settings.max_tokens,
        stream: request.stream.then_some(true),
        stream_options: request.stream.then_some(stream_options),
        ..CreateChatCompletionRequest::default()
    })
}

/// The tool choice as Chat takes it; `None` for `Auto`, the default.
fn tool_choice(choice: &ToolChoice) -> Option<ChatCompletionToolChoiceOption> {
    match choice {
        ToolChoice::None => Some(ChatCompletionToolChoiceOption::Mode(ToolChoiceOptions::None)),
        ToolChoice::Required => Some(ChatCompletionToolChoiceOption::Mode(ToolChoiceOptions::Required)),
        ToolChoice::Tool(name) => {
            Some(ChatCompletionToolChoiceOption::Function(ChatCompletionNamedToolChoice {
                function: FunctionName { name: name.clone() },
            }))
        }
        _ => None,
    }
}

/// The conversation as Chat messages: a `role: tool` message per answer.
pub(crate) fn messages(messages: &[Message]) -> Vec<ChatCompletionRequestMessage> {
    let mut sent = Vec::with_capacity(messages.len());
    for message in messages {
        match message {
            Message::System { content } => {
                sent.push(ChatCompletionRequestSystemMessage::from(content.as_str()).into())
            }
            Message::User { content } => {
                sent.push(ChatCompletionRequestUserMessage::from(content.as_str()).into())
            }
            Message::Assistant { content, tool_calls, .. } => {
                let calls = tool_calls
                    .iter()
                    .map(|call| {
                        ChatCompletionMessageToolCalls::Function(ChatCompletionMessageToolCall {
                            id: call.id.clone(),
                            function: FunctionCall {
                                name: call.name.clone(),
                                arguments: call.arguments.clone(),
                            },
                        })
                    })
                    .collect::<Vec<_>>();
                sent.push(ChatCompletionRequestMessage::Assistant(ChatCompletionRequestAssistantMessage {
                    content: (!content.is_empty()).then(|| content.as_str().into()),
                    tool_calls: (!calls.is_empty()).then_some(calls),
                    ..ChatCompletionRequestAssistantMessage::default()
                }));
            }
            Message::Tool { results } => sent.extend(results.iter().map(|result| {
                ChatCompletionRequestMessage::Tool(ChatCompletionRequestToolMessage {
                    content: result.content.as_str().into(),
                    tool_call_id: result.id.clone(),
                })
            })),
        }
    }
    sent
}

/// A chat completion: what the loop reads of it.
#[derive(Deserialize)]
struct Completion {
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<ChatUsage>,
}

#[derive(Deserialize)]
struct Choice {
    message: ChatCompletionResponseMessage,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize, Default, Clone, Copy)]
struct ChatUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
    #[serde(default)]
    prompt_tokens_details: Option<PromptDetails>,
}

/// The cached part of the prompt (OpenAI's automatic prompt caching).
#[derive(Deserialize, Default, Clone, Copy)]
struct PromptDetails {
    #[serde(default)]
    cached_tokens: Option<u64>,
}

impl From<ChatUsage> for Usage {
    fn from(usage: ChatUsage) -> Self {
        let cached =
            usage.prompt_tokens_details.and_then(|details| details.cached_tokens).unwrap_or_default();
        Usage { cache_read_tokens: cached, ..Usage::new(usage.prompt_tokens, usage.completion_tokens) }
    }
}

/// The first choice's message: its content (else refusal) and its calls.
fn read(completion: Completion) -> Result<ModelResponse, AgentError> {
    let usage = completion.usage.unwrap_or_default().into();
    let Some(choice) = completion.choices.into_iter().next() else {
        return Err(AgentError::Malformed { reason: "`choices` is empty".to_owned(), body: String::new() });
    };
    let message = choice.message;
    let tool_calls = message.tool_calls.unwrap_or_default().into_iter().map(call).collect();
    let content = message.content.or(message.refusal).unwrap_or_default();
    let finish_reason = choice.finish_reason;
    Ok(ModelResponse { content, tool_calls, usage, reasoning: Vec::new(), finish_reason })
}

fn call(call: ChatCompletionMessageToolCalls) -> ToolCall {
    match call {
        ChatCompletionMessageToolCalls::Function(call) => {
            ToolCall::new(call.id, call.function.name, call.function.arguments)
        }
        // toolcall defines no custom tools: the toolset answers it as an unknown tool.
        ChatCompletionMessageToolCalls::Custom(call) => {
            ToolCall::new(call.id, call.custom_tool.name, call.custom_tool.input)
        }
    }
}

/// One streamed chunk.
#[derive(Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Vec<ChunkChoice>,
    #[serde(default)]
    usage: Option<ChatUsage>,
    #[serde(default)]
    error: Option<StreamError>,
}

#[derive(Deserialize)]
struct StreamError {
    message: String,
}

#[derive(Deserialize)]
struct ChunkChoice {
    #[serde(default)]
    delta: Delta,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize, Default)]
struct Delta {
    content: Option<String>,
    refusal: Option<String>,
    tool_calls: Option<Vec<CallChunk>>,
}

#[derive(Deserialize)]
struct CallChunk {
    #[serde(default)]
    index: usize,
    id: Option<String>,
    function: Option<FunctionChunk>,
}

#[derive(Deserialize)]
struct FunctionChunk {
    name: Option<String>,
    arguments: Option<String>,
}

/// A streamed completion, put together: the text, the refusal, each call by its `index`
/// (its id and name from the first fragment, its arguments from all of them).
#[derive(Default)]
struct ChatStream {
    text: String,
    refusal: String,
    calls: Vec<(usize, ToolCall)>,
    usage: Usage,
    finish_reason: Option<String>,
}

impl Assembler for ChatStream {
    fn event(&mut self, event: SseEvent) -> Result<Option<String>, AgentError> {
        if event.data.trim() == "[DONE]" {
            return Ok(None);
        }
        let chunk: Chunk = crate::http::decode(event.data.as_bytes())?;
        if let Some(error) = chunk.error {
            return Err(AgentError::Provider(error.message));
        }
        if let Some(usage) = chunk.usage {
            self.usage = usage.into();
        }
        let Some(choice) = chunk.choices.into_iter().next() else {
            return Ok(None);
        };
        if choice.finish_reason.is_some() {
            self.finish_reason = choice.finish_reason;
        }
        let delta = choice.delta;
        if let Some(refusal) = delta.refusal {
            self.refusal.push_str(&refusal);
        }
        for fragment in delta.tool_calls.unwrap_or_default() {
            let at = match self.calls.iter().position(|(index, _)| *index == fragment.index) {
                Some(at) => at,
                None => {
                    self.calls.push((fragment.index, ToolCall::new("", "", "")));
                    self.calls.len() - 1
                }
            };
            let call = &mut self.calls[at].1;
            if let Some(id) = fragment.id {
                call.id.push_str(&id);
            }
            if let Some(function) = fragment.function {
                call.name.push_str(&function.name.unwrap_or_default());
                call.arguments.push_str(&function.arguments.unwrap_or_default());
            }
        }
        let text = delta.content.unwrap_or_default();
        self.text.push_str(&text);
        Ok(Some(text))
    }

    fn finish(self) -> Result<ModelResponse, AgentError> {
        let content = if self.text.is_empty() { self.refusal } else { self.text };
        let tool_calls = self.calls.into_iter().map(|(_, call)| call).collect();
        Ok(ModelResponse {
            content,
            tool_calls,
            usage: self.usage,
            reasoning: Vec::new(),
            finish_reason: self.finish_reason,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolReturn;
    use serde_json::{Value, json};

    #[test]
    fn emitted_definitions_survive_the_typed_tools_unchanged() {
        let emitted = r#"[{"type":"function","function":{"name":"add","description":"Add.","parameters":{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"],"additionalProperties":false},"strict":true}}]"#;
        let typed: Vec<ChatCompletionTools> = serde_json::from_str(emitted).unwrap();
        assert_eq!(serde_json::to_value(&typed).unwrap(), serde_json::from_str::<Value>(emitted).unwrap());
    }

    #[test]
    fn the_conversation_goes_out_as_chat_messages() {
        let sent = messages(&[
            Message::system("Be brief."),
            Message::user("add"),
            Message::assistant_calls("", [ToolCall::new("c1", "add", "{}")]),
            Message::Tool {
                results: vec![ToolReturn {
                    id: "c1".into(),
                    name: "add".into(),
                    content: "5".into(),
                    is_error: false,
                    blocks: Vec::new(),
                }],
            },
            Message::assistant("5"),
        ]);
        assert_eq!(
            serde_json::to_value(sent).unwrap(),
            json!([
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "add"},
                {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "add", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "5"},
                {"role": "assistant", "content": "5"},
            ])
        );
    }

    #[test]
    fn an_answer_is_the_content_else_the_refusal() {
        let reply = |message: Value| {
            let completion: Completion =
                serde_json::from_value(json!({"choices": [{"message": message}]})).unwrap();
            read(completion).unwrap().content
        };
        assert_eq!(reply(json!({"role": "assistant", "content": "5"})), "5");
        assert_eq!(reply(json!({"role": "assistant", "refusal": "no"})), "no");
        assert_eq!(reply(json!({"role": "assistant"})), "");
    }

    #[test]
    fn streamed_fragments_make_whole_calls() {
        let mut stream = ChatStream::default();
        let chunks = [
            json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hel"}}]}),
            json!({"choices": [{"index": 0, "delta": {"content": "lo"}}]}),
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "c1", "type": "function", "function": {"name": "add", "arguments": ""}}]}}]}),
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 1, "id": "c2", "type": "function", "function": {"name": "whoami", "arguments": "{}"}}]}}]}),
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{\"a\":"}}]}}]}),
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "1}"}}]}}]}),
            json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
            json!({"choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}}),
        ];
        let mut texts = Vec::new();
        for chunk in chunks {
            texts.extend(stream.event(SseEvent { event: String::new(), data: chunk.to_string() }).unwrap());
        }
        stream.event(SseEvent { event: String::new(), data: "[DONE]".into() }).unwrap();
        assert_eq!(texts.concat(), "Hello");
        let reply = stream.finish().unwrap();
        assert_eq!(
            reply.tool_calls,
            [ToolCall::new("c1", "add", "{\"a\":1}"), ToolCall::new("c2", "whoami", "{}")]
        );
        assert_eq!(reply.usage, Usage::new(7, 3));
        assert_eq!(reply.finish_reason.as_deref(), Some("tool_calls"), "the chunk that said it");
    }

    #[test]
    fn the_finish_reason_is_the_choices() {
        let completion: Completion = serde_json::from_value(
            json!({"choices": [{"message": {"role": "assistant", "content": "cut"}, "finish_reason": "length"}]}),
        )
        .unwrap();
        assert_eq!(read(completion).unwrap().finish_reason.as_deref(), Some("length"));
    }
}
