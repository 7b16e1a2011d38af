//! OpenAI Responses: the conversation as `input` items (`message`, `function_call`,
//! `function_call_output`), system messages as `instructions`, the toolset's
//! `emit(Format::OpenAiResponses, strict)` definitions, the tool choice and
//! `parallel_tool_calls`, typed output as a strict
//! `text.format` json_schema; the reply's `output` items (`message` text or refusal,
//! `function_call`s by `call_id`) and `usage`; a `failed` response is
//! [`AgentError::Provider`]. Streamed: `response.output_text.delta` text, calls put
//! together from `response.output_item.added` and `response.function_call_arguments.*`,
//! usage from `response.completed`.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolcall_runtime::Format;

use super::{HttpModel, definitions, send, system_text};
use crate::choice::ToolChoice;
use crate::error::AgentError;
use crate::http::{Assembler, SseEvent, decode};
use crate::message::{Message, ModelResponse, Reasoning, ToolCall, Usage};
use crate::model::{ModelRequest, ModelStream};

pub(super) fn request<'a>(model: &'a HttpModel, request: ModelRequest<'a>) -> ModelStream<'a> {
    let body = body(model, &request);
    send(model, model.url("responses"), body, request.stream, read, ResponsesStream::default)
}

#[derive(Serialize)]
struct Request<'a> {
    model: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    instructions: Option<String>,
    input: Vec<Item<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    parallel_tool_calls: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<TextConfig<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_output_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    store: Option<bool>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    include: Vec<&'static str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    stream: bool,
}

/// An input item.
#[derive(Serialize, Debug, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Item<'a> {
    Message {
        role: &'static str,
        content: &'a str,
    },
    Reasoning {
        id: &'a str,
        summary: Vec<Summary<'a>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        encrypted_content: Option<&'a str>,
    },
    FunctionCall {
        call_id: &'a str,
        name: &'a str,
        arguments: &'a str,
    },
    FunctionCallOutput {
        call_id: &'a str,
        output: &'a str,
    },
}

/// A reasoning item's summary part.
#[derive(Serialize, Debug, PartialEq)]
struct Summary<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

#[derive(Serialize)]
struct TextConfig<'a> {
    format: JsonSchemaFormat<'a>,
}

#[derive(Serialize)]
struct JsonSchemaFormat<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    name: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    description: &'a str,
    schema: &'a Value,
    strict: bool,
}

fn body<'a>(model: &'a HttpModel, request: &ModelRequest<'a>) -> Result<Request<'a>, AgentError> {
    let text = request.output.map(|spec| TextConfig {
        format: JsonSchemaFormat {
            kind: "json_schema",
            name: &spec.name,
            description: &spec.description,
            schema: &spec.schema,
            strict: true,
        },
    });
    let tools = definitions(request, Format::OpenAiResponses)?;
    let has_tools = !tools.is_empty();
    let tool_choice = match request.tool_choice {
        ToolChoice::None => Some(Value::from("none")),
        ToolChoice::Required => Some(Value::from("required")),
        ToolChoice::Tool(name) => Some(serde_json::json!({"type": "function", "name": name})),
        _ => None,
    };
    Ok(Request {
        model: &model.settings.model,
        instructions: system_text(request.messages),
        input: items(request.messages),
        tools,
        tool_choice: tool_choice.filter(|_| has_tools),
        parallel_tool_calls: request.parallel_tool_calls.filter(|_| has_tools),
        text,
        max_output_tokens: model.settings.max_tokens,
        store: model.settings.encrypted_reasoning.then_some(false),
        include: if model.settings.encrypted_reasoning {
            vec!["reasoning.encrypted_content"]
        } else {
            Vec::new()
        },
        stream: request.stream,
    })
}

/// The conversation as input items; system messages go to `instructions` instead.
fn items(messages: &[Message]) -> Vec<Item<'_>> {
    let mut items = Vec::new();
    for message in messages {
        match message {
            Message::System { .. } => {}
            Message::User { content } => items.push(Item::Message { role: "user", content }),
            Message::Assistant { content, tool_calls, reasoning } => {
                items.extend(reasoning.iter().map(|item| Item::Reasoning {
                    id: &item.id,
                    summary: item.summary.iter().map(|text| Summary { kind: "summary_text", text }).collect(),
                    encrypted_content: item.encrypted_content.as_deref(),
                }));
                if !content.is_empty() {
                    items.push(Item::Message { role: "assistant", content });
                }
                items.extend(tool_calls.iter().map(|call| Item::FunctionCall {
                    call_id: &call.id,
                    name: &call.name,
                    arguments: &call.arguments,
                }));
            }
            Message::Tool { results } => items.extend(
                results
                    .iter()
                    .map(|result| Item::FunctionCallOutput { call_id: &result.id, output: &result.content }),
            ),
        }
    }
    items
}

/// A response object: what the loop reads of it.
#[derive(Deserialize)]
struct Response {
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    incomplete_details: Option<IncompleteDetails>,
    output: Vec<OutputItem>,
    #[serde(default)]
    usage: Option<ResponsesUsage>,
    #[serde(default)]
    error: Option<ResponseError>,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum OutputItem {
    Message {
        #[serde(default)]
        content: Vec<ContentPart>,
    },
    FunctionCall {
        call_id: String,
        name: String,
        arguments: String,
    },
    Reasoning(ReasoningItem),
    #[serde(other)]
    Other,
}

/// A `reasoning` output item.
#[derive(Deserialize, Default)]
struct ReasoningItem {
    #[serde(default)]
    id: String,
    #[serde(default)]
    summary: Vec<SummaryPart>,
    #[serde(default)]
    encrypted_content: Option<String>,
}

#[derive(Deserialize)]
struct SummaryPart {
    #[serde(default)]
    text: String,
}

impl From<ReasoningItem> for Reasoning {
    fn from(item: ReasoningItem) -> Self {
        Reasoning {
            id: item.id,
            summary: item.summary.into_iter().map(|part| part.text).collect(),
            encrypted_content: item.encrypted_content,
        }
    }
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ContentPart {
    OutputText {
        text: String,
    },
    Refusal {
        refusal: String,
    },
    #[serde(other)]
    Other,
}

#[derive(Deserialize, Default, Clone, Copy)]
struct ResponsesUsage {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
    #[serde(default)]
    input_tokens_details: Option<InputDetails>,
}

/// The cached part of the input (OpenAI's automatic prompt caching).
#[derive(Deserialize, Default, Clone, Copy)]
struct InputDetails {
    #[serde(default)]
    cached_tokens: Option<u64>,
}

impl From<ResponsesUsage> for Usage {
    fn from(usage: ResponsesUsage) -> Self {
        let cached = usage.input_tokens_details.and_then(|details| details.cached_tokens).unwrap_or_default();
        Usage { cache_read_tokens: cached, ..Usage::new(usage.input_tokens, usage.output_tokens) }
    }
}

#[derive(Deserialize)]
struct ResponseError {
    #[serde(default)]
    code: Option<String>,
    message: String,
}

impl ResponseError {
    fn into_error(self) -> AgentError {
        match self.code {
            Some(code) => AgentError::Provider(format!("{code}: {}", self.message)),
            None => AgentError::Provider(self.message),
        }
    }
}

/// Why a response is incomplete (`max_output_tokens`, `content_filter`).
#[derive(Deserialize)]
struct IncompleteDetails {
    #[serde(default)]
    reason: Option<String>,
}

impl Response {
    /// Why it ended: why it is incomplete, else its status (`completed`).
    fn finish_reason(&self) -> Option<String> {
        let incomplete = self.incomplete_details.as_ref().and_then(|details| details.reason.clone());
        incomplete.or_else(|| self.status.clone())
    }
}

/// A failed response is an error; any other is its text (else refusal) and its calls.
fn read(response: Response) -> Result<ModelResponse, AgentError> {
    if response.status.as_deref() == Some("failed") {
        let error =
            response.error.unwrap_or(ResponseError { code: None, message: "the response failed".into() });
        return Err(error.into_error());
    }
    let (mut text, mut refusal, mut tool_calls) = (String::new(), String::new(), Vec::new());
    let mut reasoning = Vec::new();
    let finish_reason = response.finish_reason();
    for item in response.output {
        match item {
            OutputItem::Message { content } => {
                for part in content {
                    match part {
                        ContentPart::OutputText { text: piece } => text.push_str(&piece),
                        ContentPart::Refusal { refusal: piece } => refusal.push_str(&piece),
                        ContentPart::Other => {}
                    }
                }
            }
            OutputItem::FunctionCall { call_id, name, arguments } => {
                tool_calls.push(ToolCall::new(call_id, name, arguments));
            }
            OutputItem::Reasoning(item) => reasoning.push(item.into()),
            OutputItem::Other => {}
        }
    }
    let content = if text.is_empty() { refusal } else { text };
    let usage = response.usage.unwrap_or_default().into();
    Ok(ModelResponse { content, tool_calls, usage, reasoning, finish_reason })
}

/// One streamed event: what the loop reads of each kind.
#[derive(Deserialize)]
struct StreamEvent {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    delta: Option<String>,
    #[serde(default)]
    output_index: Option<usize>,
    #[serde(default)]
    item: Option<StreamItem>,
    #[serde(default)]
    arguments: Option<String>,
    #[serde(default)]
    response: Option<Response>,
    #[serde(default)]
    code: Option<String>,
    #[serde(default)]
    message: Option<String>,
}

#[derive(Deserialize)]
struct StreamItem {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    call_id: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    arguments: String,
    #[serde(default)]
    id: String,
    #[serde(default)]
    summary: Vec<SummaryPart>,
    #[serde(default)]
    encrypted_content: Option<String>,
}

/// A streamed response, put together.
#[derive(Default)]
struct ResponsesStream {
    text: String,
    refusal: String,
    calls: Vec<(usize, ToolCall)>,
    reasoning: Vec<Reasoning>,
    usage: Option<Usage>,
    finish_reason: Option<String>,
}

impl ResponsesStream {
    fn call(&mut self, index: Option<usize>) -> Option<&mut ToolCall> {
        let index = index?;
        self.calls.iter_mut().find(|(at, _)| *at == index).map(|(_, call)| call)
    }
}

impl Assembler for ResponsesStream {
    fn event(&mut self, event: SseEvent) -> Result<Option<String>, AgentError> {
        let event: StreamEvent = decode(event.data.as_bytes())?;
        match event.kind.as_str() {
            "response.output_text.delta" => {
                let delta = event.delta.unwrap_or_default();
                self.text.push_str(&delta);
                return Ok(Some(delta));
            }
            "response.refusal.delta" => self.refusal.push_str(&event.delta.unwrap_or_default()),
            "response.output_item.added" => {
                if let (Some(index), Some(item)) = (event.output_index, event.item)
                    && item.kind == "function_call"
                {
                    self.calls.push((index, ToolCall::new(item.call_id, item.name, item.arguments)));
                }
            }
            "response.output_item.done" => {
                if let Some(item) = event.item.filter(|item| item.kind == "reasoning") {
                    let item = ReasoningItem {
                        id: item.id,
                        summary: item.summary,
                        encrypted_content: item.encrypted_content,
                    };
                    self.reasoning.push(item.into());
                }
            }
            "response.function_call_arguments.delta" => {
                let delta = event.delta.unwrap_or_default();
                if let Some(call) = self.call(event.output_index) {
                    call.arguments.push_str(&delta);
                }
            }
            "response.function_call_arguments.done" => {
                if let (Some(arguments), Some(call)) = (event.arguments, self.call(event.output_index)) {
                    call.arguments = arguments;
                }
            }
            "response.completed" | "response.incomplete" => {
                self.finish_reason = event.response.as_ref().and_then(Response::finish_reason);
                let usage = event.response.and_then(|response| response.usage).unwrap_or_default();
                self.usage = Some(usage.into());
            }
            "response.failed" => {
                let error = event.response.and_then(|response| response.error);
                let error =
                    error.unwrap_or(ResponseError { code: None, message: "the response failed".into() });
                return Err(error.into_error());
            }
            "error" => {
                let message = event.message.unwrap_or_else(|| "an error event".to_owned());
                return Err(ResponseError { code: event.code, message }.into_error());
            }
            _ => {}
        }
        Ok(None)
    }

    fn finish(self) -> Result<ModelResponse, AgentError> {
        let Some(usage) = self.usage else {
            let reason = "the stream ended before `response.completed`".to_owned();
            return Err(AgentError::Malformed { reason, body: String::new() });
        };
        let content = if self.text.is_empty() { self.refusal } else { self.text };
        Ok(ModelResponse {
            content,
            tool_calls: self.calls.into_iter().map(|(_, call)| call).collect(),
            usage,
            reasoning: self.reasoning,
            finish_reason: self.finish_reason,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolReturn;
    use serde_json::json;

    #[test]
    fn calls_and_answers_are_items_by_call_id() {
        let messages = [
            Message::system("Be brief."),
            Message::user("add"),
            Message::assistant_calls("Adding.", [ToolCall::new("call_1", "add", "{}")]),
            Message::Tool {
                results: vec![ToolReturn {
                    id: "call_1".into(),
                    name: "add".into(),
                    content: "5".into(),
                    is_error: false,
                    blocks: Vec::new(),
                }],
            },
        ];
        assert_eq!(
            serde_json::to_value(items(&messages)).unwrap(),
            json!([
                {"type": "message", "role": "user", "content": "add"},
                {"type": "message", "role": "assistant", "content": "Adding."},
                {"type": "function_call", "call_id": "call_1", "name": "add", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "call_1", "output": "5"},
            ])
        );
        assert_eq!(system_text(&messages).as_deref(), Some("Be brief."));
    }

    #[test]
    fn reasoning_items_are_read_and_sent_back_before_their_calls() {
        let response: Response = serde_json::from_value(json!({
            "status": "completed",
            "output": [
                {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Add them."}], "encrypted_content": "gAAA"},
                {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "add", "arguments": "{}"},
            ],
            "usage": {"input_tokens": 20, "input_tokens_details": {"cached_tokens": 12}, "output_tokens": 4},
        }))
        .unwrap();
        let reply = read(response).unwrap();
        let reasoning = Reasoning {
            id: "rs_1".into(),
            summary: vec!["Add them.".into()],
            encrypted_content: Some("gAAA".into()),
        };
        assert_eq!(reply.reasoning, [reasoning]);
        assert_eq!(reply.usage, Usage { cache_read_tokens: 12, ..Usage::new(20, 4) });
        assert_eq!(reply.finish_reason.as_deref(), Some("completed"));
        let messages = [reply.to_message()];
        assert_eq!(
            serde_json::to_value(items(&messages)).unwrap(),
            json!([
                {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Add them."}], "encrypted_content": "gAAA"},
                {"type": "function_call", "call_id": "call_1", "name": "add", "arguments": "{}"},
            ])
        );
    }

    #[test]
    fn an_incomplete_response_says_why() {
        let response: Response = serde_json::from_value(json!({
            "status": "incomplete",
            "incomplete_details": {"reason": "max_output_tokens"},
            "output": [],
        }))
        .unwrap();
        assert_eq!(read(response).unwrap().finish_reason.as_deref(), Some("max_output_tokens"));
    }

    #[test]
    fn a_streamed_response_is_put_together() {
        let mut stream = ResponsesStream::default();
        let events = [
            json!({"type": "response.created", "response": {"id": "resp_1", "status": "in_progress", "output": []}}),
            json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "message", "id": "msg_1", "role": "assistant", "content": []}}),
            json!({"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "Hi "}),
            json!({"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "there"}),
            json!({"type": "response.output_item.added", "output_index": 1, "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "add", "arguments": ""}}),
            json!({"type": "response.function_call_arguments.delta", "output_index": 1, "item_id": "fc_1", "delta": "{\"a\":"}),
            json!({"type": "response.function_call_arguments.delta", "output_index": 1, "item_id": "fc_1", "delta": "1}"}),
            json!({"type": "response.output_item.done", "output_index": 2, "item": {"type": "reasoning", "id": "rs_1", "summary": []}}),
            json!({"type": "response.completed", "response": {"id": "resp_1", "status": "completed", "output": [], "usage": {"input_tokens": 9, "output_tokens": 4, "total_tokens": 13}}}),
        ];
        let mut texts = Vec::new();
        for event in events {
            texts.extend(stream.event(SseEvent { event: String::new(), data: event.to_string() }).unwrap());
        }
        assert_eq!(texts.concat(), "Hi there");
        let reply = stream.finish().unwrap();
        assert_eq!(reply.tool_calls, [ToolCall::new("call_1", "add", "{\"a\":1}")]);
        assert_eq!(reply.usage, Usage::new(9, 4));
        assert_eq!(reply.finish_reason.as_deref(), Some("completed"));
        assert_eq!(reply.reasoning, [Reasoning { id: "rs_1".into(), ..Reasoning::default() }]);
        assert!(matches!(ResponsesStream::default().finish(), Err(AgentError::Malformed { .. })));
    }
}
