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

use super::{HttpModel, arguments_object, definitions, send, system_text};
use crate::choice::ToolChoice;
use crate::error::{AgentError, counted, unusable};
use crate::http::{Assembler, SseEvent, decode};
use crate::message::{Message, ModelResponse, Reasoning, ToolCall, Usage};
use crate::model::{ModelRequest, ModelStream};
use crate::search::{Searching, found_names};

pub(super) fn request<'a>(model: &'a HttpModel, request: ModelRequest<'a>) -> ModelStream<'a> {
    let body = body(model, &request);
    // With tool search, a client `tool_search_call` is a call of the search tool.
    let search = request.tools.search().map(|search| search.tool_name().to_owned());
    let streamed = search.clone();
    let read = move |response| read_with(response, search.as_deref());
    let start = move || ResponsesStream { search: streamed, ..ResponsesStream::default() };
    send(model, model.url("responses"), body, request.stream, read, start)
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
        /// The namespace of a tool sent deferred (tool search).
        #[serde(skip_serializing_if = "Option::is_none")]
        namespace: Option<String>,
    },
    FunctionCallOutput {
        call_id: &'a str,
        output: &'a str,
    },
    /// A call of the search tool, as the model made it (a client `tool_search`).
    ToolSearchCall {
        call_id: &'a str,
        execution: &'static str,
        status: &'static str,
        arguments: Value,
    },
    /// The answer to a search: the tools it loads.
    ToolSearchOutput {
        call_id: &'a str,
        execution: &'static str,
        status: &'static str,
        tools: Vec<Value>,
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
    let tools = match request.tools.search() {
        Some(search) => search.responses_tools()?,
        None => definitions(request, Format::OpenAiResponses)?,
    };
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
        input: items_with(request.messages, request.tools.search())?,
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
#[cfg(test)]
fn items(messages: &[Message]) -> Vec<Item<'_>> {
    items_with(messages, None).unwrap_or_default()
}

/// [`items`], with tool search (`search`): a call of the search tool as a client
/// `tool_search_call`, its answer as a `tool_search_output` loading the tools found (in
/// their namespaces), a call of a deferred tool with its namespace.
fn items_with<'a>(
    messages: &'a [Message],
    search: Option<&Searching<'_>>,
) -> Result<Vec<Item<'a>>, AgentError> {
    let is_search = |name: &str| search.is_some_and(|search| search.tool_name() == name);
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
                items.extend(tool_calls.iter().map(|call| match is_search(&call.name) {
                    true => Item::ToolSearchCall {
                        call_id: &call.id,
                        execution: "client",
                        status: "completed",
                        arguments: arguments_object(&call.arguments),
                    },
                    false => Item::FunctionCall {
                        call_id: &call.id,
                        name: &call.name,
                        arguments: &call.arguments,
                        namespace: search.and_then(|search| search.namespace_of(&call.name)),
                    },
                }));
            }
            Message::Tool { results } => {
                for result in results {
                    let item = match search.filter(|_| is_search(&result.name)) {
                        Some(search) => Item::ToolSearchOutput {
                            call_id: &result.id,
                            execution: "client",
                            status: "completed",
                            // A search refused (its arguments did not check) loads nothing.
                            tools: match result.is_error {
                                true => Vec::new(),
                                false => search.responses_found(&found_names(&result.content))?,
                            },
                        },
                        None => Item::FunctionCallOutput { call_id: &result.id, output: &result.content },
                    };
                    items.push(item);
                }
            }
        }
    }
    Ok(items)
}

/// A response object: what the loop reads of it.
#[derive(Deserialize)]
struct Response {
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    incomplete_details: Option<IncompleteDetails>,
    /// The items, each read as an [`OutputItem`] (the others named when nothing else can
    /// be used).
    output: Vec<Value>,
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
    ToolSearchCall(SearchCall),
    #[serde(other)]
    Other,
}

/// A `tool_search_call` item: the model searching for tools.
#[derive(Deserialize, Default)]
struct SearchCall {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    call_id: Option<String>,
    /// `client` when the caller runs the search; `server` for hosted tool search.
    #[serde(default)]
    execution: Option<String>,
    #[serde(default)]
    arguments: Value,
}

impl SearchCall {
    /// The call of the search tool `name` it is, when the caller is to run it.
    fn call(self, name: Option<&str>) -> Option<ToolCall> {
        let name = name.filter(|_| self.execution.as_deref() != Some("server"))?;
        let id = self.call_id.or(self.id).unwrap_or_default();
        let arguments = match self.arguments {
            Value::String(text) => text,
            Value::Null => "{}".to_owned(),
            other => other.to_string(),
        };
        Some(ToolCall::new(id, name, arguments))
    }
}

/// An output item, with its type when the loop does not read it.
fn output_item(value: Value) -> Result<(OutputItem, String), AgentError> {
    let kind = value.get("type").and_then(Value::as_str).unwrap_or("untyped").to_owned();
    let item = serde_json::from_value(value).map_err(|e| AgentError::Malformed {
        reason: format!("a `{kind}` item: {e}"),
        body: String::new(),
    })?;
    Ok((item, kind))
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

/// [`read_with`] without tool search.
#[cfg(test)]
fn read(response: Response) -> Result<ModelResponse, AgentError> {
    read_with(response, None)
}

/// A failed response is an error; any other is its text (else refusal) and its calls (a
/// client `tool_search_call` a call of the search tool `search`, when the run searches);
/// one holding none of them, only items of other kinds, is [`AgentError::Unusable`],
/// naming them.
fn read_with(response: Response, search: Option<&str>) -> Result<ModelResponse, AgentError> {
    if response.status.as_deref() == Some("failed") {
        let error =
            response.error.unwrap_or(ResponseError { code: None, message: "the response failed".into() });
        return Err(error.into_error());
    }
    let (mut text, mut refusal, mut tool_calls) = (String::new(), String::new(), Vec::new());
    let mut reasoning = Vec::new();
    let mut skipped = Vec::new();
    let finish_reason = response.finish_reason();
    for value in response.output {
        let (item, kind) = output_item(value)?;
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
            OutputItem::ToolSearchCall(item) => match item.call(search) {
                Some(call) => tool_calls.push(call),
                None => skipped.push(kind),
            },
            OutputItem::Other => skipped.push(kind),
        }
    }
    if text.is_empty() && refusal.is_empty() && tool_calls.is_empty() && !skipped.is_empty() {
        return Err(unusable(&counted(&skipped, "item"), finish_reason.as_deref()));
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
    /// Text for a `function_call`, an object for a `tool_search_call`.
    #[serde(default)]
    arguments: Value,
    #[serde(default)]
    id: String,
    #[serde(default)]
    execution: Option<String>,
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
    /// The search tool's name, when the run searches tools.
    search: Option<String>,
    /// The kinds of the items it does not read.
    skipped: Vec<String>,
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
                if let (Some(index), Some(item)) = (event.output_index, event.item) {
                    match item.kind.as_str() {
                        "function_call" => {
                            let arguments = item.arguments.as_str().unwrap_or_default().to_owned();
                            self.calls.push((index, ToolCall::new(item.call_id, item.name, arguments)));
                        }
                        "message" | "reasoning" => {}
                        "tool_search_call" if self.search.is_some() => {}
                        _ => self.skipped.push(item.kind),
                    }
                }
            }
            "response.output_item.done" => {
                if let (Some(index), Some(item)) = (event.output_index, event.item.as_ref())
                    && item.kind == "tool_search_call"
                {
                    let call = SearchCall {
                        id: Some(item.id.clone()).filter(|id| !id.is_empty()),
                        call_id: Some(item.call_id.clone()).filter(|id| !id.is_empty()),
                        execution: item.execution.clone(),
                        arguments: item.arguments.clone(),
                    };
                    match call.call(self.search.as_deref()) {
                        Some(call) => self.calls.push((index, call)),
                        // Counted when it was added.
                        None if self.search.is_none() => {}
                        None => self.skipped.push(item.kind.clone()),
                    }
                }
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
        if self.text.is_empty()
            && self.refusal.is_empty()
            && self.calls.is_empty()
            && !self.skipped.is_empty()
        {
            return Err(unusable(&counted(&self.skipped, "item"), self.finish_reason.as_deref()));
        }
        let content = if self.text.is_empty() { self.refusal } else { self.text };
        let mut calls = self.calls;
        // In the reply's order (a search call is taken when it is done, a function call
        // when it is added).
        calls.sort_by_key(|(index, _)| *index);
        Ok(ModelResponse {
            content,
            tool_calls: calls.into_iter().map(|(_, call)| call).collect(),
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
