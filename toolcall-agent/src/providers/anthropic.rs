//! Anthropic Messages: system messages as `system`, the rest as alternating `user` and
//! `assistant` messages of content blocks (`text`, `tool_use` with the decoded `input`,
//! `tool_result` with `is_error` for a failed call), `max_tokens` (`ANTHROPIC_MAX_TOKENS` unless set), `cache_control` breakpoints
//! with `Agent::prompt_cache`, the
//! toolset's `emit(Format::Anthropic, strict)` definitions, the tool choice (with
//! `disable_parallel_tool_use`); typed output as a final-answer tool with
//! `tool_choice: any`. The reply's `text` and `tool_use` blocks and `usage`
//! (cache reads and writes count as input). Streamed: `content_block_start` /
//! `content_block_delta` (`text_delta`, `input_json_delta` fragments by block index),
//! usage from `message_start` and `message_delta`, an `error` event is
//! [`AgentError::Provider`].

use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolcall_runtime::{Content, Format, base64_encode};

use super::{HttpModel, arguments_object, definitions, send, system_text};
use crate::error::{AgentError, counted, unusable};
use crate::http::{Assembler, SseEvent, decode};
use crate::message::{Message, ModelResponse, ToolCall, ToolReturn, Usage};
use crate::model::{ModelRequest, ModelStream};
use crate::search::{Searching, found_names};

/// `max_tokens` when [`Agent::max_tokens`](crate::Agent::max_tokens) is not called
/// (Anthropic requires one): [`ANTHROPIC_MAX_TOKENS`](crate::ANTHROPIC_MAX_TOKENS).
const DEFAULT_MAX_TOKENS: u32 = crate::providers::ANTHROPIC_MAX_TOKENS;

/// A cache breakpoint: `{"type": "ephemeral"}` (five minutes).
fn ephemeral() -> Value {
    serde_json::json!({"type": "ephemeral"})
}

pub(super) fn request<'a>(model: &'a HttpModel, request: ModelRequest<'a>) -> ModelStream<'a> {
    let body = body(model, &request);
    send(model, model.url("messages"), body, request.stream, read, AnthropicStream::default)
}

#[derive(Serialize)]
struct Request<'a> {
    model: &'a str,
    max_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    system: Option<Value>,
    messages: Value,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<ToolChoice<'a>>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    stream: bool,
}

#[derive(Serialize)]
struct ToolChoice<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    disable_parallel_tool_use: bool,
}

/// One message: a role and its blocks.
#[derive(Serialize, Debug, PartialEq)]
struct Turn<'a> {
    role: &'static str,
    content: Vec<Block<'a>>,
}

#[derive(Serialize, Debug, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block<'a> {
    Text {
        text: &'a str,
    },
    ToolUse {
        id: &'a str,
        name: &'a str,
        input: Value,
    },
    ToolResult {
        tool_use_id: &'a str,
        content: ResultContent<'a>,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        is_error: bool,
    },
}

/// A `tool_result`'s content: the answer's text, or blocks when the tool returned
/// `Content` (images as image blocks, the rest as text without bytes).
#[derive(Serialize, Debug, PartialEq)]
#[serde(untagged)]
enum ResultContent<'a> {
    Text(&'a str),
    Blocks(Vec<Value>),
}

impl<'a> ResultContent<'a> {
    fn of(result: &'a ToolReturn) -> Self {
        if result.blocks.is_empty() {
            return ResultContent::Text(&result.content);
        }
        let blocks = result.blocks.iter().map(|block| match block {
            Content::Image { mime_type, data } => serde_json::json!({
                "type": "image",
                "source": {"type": "base64", "media_type": mime_type, "data": base64_encode(data)},
            }),
            other => serde_json::json!({"type": "text", "text": other.describe()}),
        });
        ResultContent::Blocks(blocks.collect())
    }

    /// An answer of the search tool (a tool of that name, not failed) as a
    /// `tool_reference` block per deferred tool found; any other answer as
    /// [`ResultContent::of`] writes it (a search that found nothing as its text).
    fn of_search(result: &'a ToolReturn, search: &Searching<'_>) -> Self {
        if result.name != search.tool_name() || result.is_error {
            return ResultContent::of(result);
        }
        let references: Vec<Value> = found_names(&result.content)
            .into_iter()
            .filter(|name| search.is_deferred(name))
            .map(|name| serde_json::json!({"type": "tool_reference", "tool_name": name}))
            .collect();
        if references.is_empty() {
            return ResultContent::of(result);
        }
        ResultContent::Blocks(references)
    }
}

/// The final-answer tool for typed output.
#[derive(Serialize)]
struct OutputTool<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    description: &'a str,
    input_schema: &'a Value,
}

fn body<'a>(model: &'a HttpModel, request: &ModelRequest<'a>) -> Result<Request<'a>, AgentError> {
    let mut tools = match request.tools.search() {
        Some(search) => search.anthropic_tools()?,
        None => definitions(request, Format::Anthropic)?,
    };
    if let Some(spec) = request.output {
        let tool =
            OutputTool { name: &spec.name, description: &spec.description, input_schema: &spec.schema };
        tools.push(serde_json::to_value(tool).map_err(|e| AgentError::Request(e.to_string()))?);
    }
    let tool_choice = tool_choice(request, !tools.is_empty());
    let cache = model.settings.prompt_cache;
    let mut messages = serde_json::to_value(turns_with(request.messages, request.tools.search()))
        .map_err(|e| AgentError::Request(e.to_string()))?;
    let system = system_text(request.messages).map(|text| match cache {
        true => serde_json::json!([{"type": "text", "text": text, "cache_control": ephemeral()}]),
        false => Value::String(text),
    });
    if cache {
        // Breakpoints: the tools, the system prompt, the conversation so far (its last block).
        if let Some(Value::Object(last)) = tools.last_mut() {
            last.insert("cache_control".to_owned(), ephemeral());
        }
        let last_block = messages
            .as_array_mut()
            .and_then(|turns| turns.last_mut())
            .and_then(|turn| turn.get_mut("content"))
            .and_then(Value::as_array_mut)
            .and_then(|blocks| blocks.last_mut())
            .and_then(Value::as_object_mut);
        if let Some(block) = last_block {
            block.insert("cache_control".to_owned(), ephemeral());
        }
    }
    Ok(Request {
        model: &model.settings.model,
        max_tokens: model.settings.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
        system,
        messages,
        tools,
        tool_choice,
        stream: request.stream,
    })
}

/// The `tool_choice`: the request's, `any` for typed output's final-answer tool (unless a
/// tool is named), `disable_parallel_tool_use` when parallel calls are off; none when
/// there are no tools, or for the default (auto, parallel allowed).
fn tool_choice<'a>(request: &ModelRequest<'a>, has_tools: bool) -> Option<ToolChoice<'a>> {
    let sequential = request.parallel_tool_calls == Some(false);
    let (kind, name) = match request.tool_choice {
        crate::ToolChoice::Tool(name) => ("tool", Some(name.as_str())),
        _ if request.output.is_some() => ("any", None),
        crate::ToolChoice::None => ("none", None),
        crate::ToolChoice::Required => ("any", None),
        _ if sequential => ("auto", None),
        _ => return None,
    };
    // `none` takes no parallel setting: no call can be made.
    let disable_parallel_tool_use = sequential && kind != "none";
    has_tools.then_some(ToolChoice { kind, name, disable_parallel_tool_use })
}

/// The conversation as messages; tool results are user blocks, and consecutive blocks of
/// one role share a message (the roles must alternate).
#[cfg(test)]
fn turns(messages: &[Message]) -> Vec<Turn<'_>> {
    turns_with(messages, None)
}

/// [`turns`], with the answers of tool search (`search`) as `tool_reference` blocks
/// naming the deferred tools found, which the API expands into their definitions.
fn turns_with<'a>(messages: &'a [Message], search: Option<&Searching<'_>>) -> Vec<Turn<'a>> {
    let mut turns: Vec<Turn<'_>> = Vec::new();
    for message in messages {
        let (role, blocks) = match message {
            Message::System { .. } => continue,
            Message::User { content } => ("user", vec![Block::Text { text: content }]),
            Message::Assistant { content, tool_calls, .. } => {
                let text = (!content.is_empty()).then_some(Block::Text { text: content });
                let calls = tool_calls.iter().map(|call| Block::ToolUse {
                    id: &call.id,
                    name: &call.name,
                    input: arguments_object(&call.arguments),
                });
                ("assistant", text.into_iter().chain(calls).collect())
            }
            Message::Tool { results } => {
                let results = results.iter().map(|result| Block::ToolResult {
                    tool_use_id: &result.id,
                    content: match search {
                        Some(search) => ResultContent::of_search(result, search),
                        None => ResultContent::of(result),
                    },
                    is_error: result.is_error,
                });
                ("user", results.collect())
            }
        };
        match turns.last_mut() {
            Some(last) if last.role == role => last.content.extend(blocks),
            _ => turns.push(Turn { role, content: blocks }),
        }
    }
    turns
}

/// A message object: what the loop reads of it.
#[derive(Deserialize)]
struct Response {
    /// The blocks, each read as a [`ContentBlock`] (the others named when nothing else
    /// can be used).
    content: Vec<Value>,
    #[serde(default)]
    usage: AnthropicUsage,
    #[serde(default)]
    stop_reason: Option<String>,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ContentBlock {
    Text {
        text: String,
    },
    ToolUse {
        id: String,
        name: String,
        #[serde(default)]
        input: Value,
    },
    #[serde(other)]
    Other,
}

#[derive(Deserialize, Default, Clone, Copy)]
struct AnthropicUsage {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
}

impl AnthropicUsage {
    fn input(&self) -> Option<u64> {
        let parts = [self.input_tokens, self.cache_creation_input_tokens, self.cache_read_input_tokens];
        parts.iter().any(Option::is_some).then(|| parts.iter().flatten().sum())
    }

    /// The counts as [`Usage`]: input with the cache's reads and writes, which are also
    /// given apart.
    fn usage(&self) -> Usage {
        Usage {
            cache_read_tokens: self.cache_read_input_tokens.unwrap_or_default(),
            cache_write_tokens: self.cache_creation_input_tokens.unwrap_or_default(),
            ..Usage::new(self.input().unwrap_or_default(), self.output_tokens.unwrap_or_default())
        }
    }

    /// Takes the counts `later` gives (a `message_delta`'s), keeping the others.
    fn update(&mut self, later: AnthropicUsage) {
        self.input_tokens = later.input_tokens.or(self.input_tokens);
        self.output_tokens = later.output_tokens.or(self.output_tokens);
        self.cache_creation_input_tokens =
            later.cache_creation_input_tokens.or(self.cache_creation_input_tokens);
        self.cache_read_input_tokens = later.cache_read_input_tokens.or(self.cache_read_input_tokens);
    }
}

/// A block of a reply, with its type when the loop does not read it (a `thinking` block,
/// a server tool's): the reply is of no use when it holds only such blocks.
fn block(value: Value) -> Result<(ContentBlock, Option<String>), AgentError> {
    let kind = value.get("type").and_then(Value::as_str).unwrap_or("untyped").to_owned();
    let block: ContentBlock = serde_json::from_value(value).map_err(|e| AgentError::Malformed {
        reason: format!("a `{kind}` block: {e}"),
        body: String::new(),
    })?;
    let other = matches!(block, ContentBlock::Other).then_some(kind);
    Ok((block, other))
}

/// Text blocks joined, `tool_use` blocks as calls (their `input` re-encoded); a reply
/// holding only blocks of other kinds is [`AgentError::Unusable`], naming them.
fn read(response: Response) -> Result<ModelResponse, AgentError> {
    let (mut content, mut tool_calls, mut skipped) = (String::new(), Vec::new(), Vec::new());
    for value in response.content {
        match block(value)? {
            (ContentBlock::Text { text }, _) => content.push_str(&text),
            (ContentBlock::ToolUse { id, name, input }, _) => {
                tool_calls.push(ToolCall::new(id, name, input.to_string()))
            }
            (ContentBlock::Other, kind) => skipped.extend(kind),
        }
    }
    if content.is_empty() && tool_calls.is_empty() && !skipped.is_empty() {
        return Err(unusable(&counted(&skipped, "block"), response.stop_reason.as_deref()));
    }
    Ok(ModelResponse {
        content,
        tool_calls,
        usage: response.usage.usage(),
        reasoning: Vec::new(),
        finish_reason: response.stop_reason,
    })
}

/// One streamed event.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum StreamEvent {
    MessageStart {
        message: StartMessage,
    },
    ContentBlockStart {
        index: usize,
        content_block: Value,
    },
    ContentBlockDelta {
        index: usize,
        delta: BlockDelta,
    },
    MessageDelta {
        #[serde(default)]
        usage: AnthropicUsage,
        #[serde(default)]
        delta: MessageDeltaBody,
    },
    Error {
        error: StreamError,
    },
    #[serde(other)]
    Other,
}

/// A `message_delta`'s `delta`: the message's end.
#[derive(Deserialize, Default)]
struct MessageDeltaBody {
    #[serde(default)]
    stop_reason: Option<String>,
}

#[derive(Deserialize)]
struct StartMessage {
    #[serde(default)]
    usage: AnthropicUsage,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum BlockDelta {
    TextDelta {
        text: String,
    },
    InputJsonDelta {
        partial_json: String,
    },
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
struct StreamError {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    message: String,
}

/// A block being streamed.
enum Streamed {
    Text(String),
    Call(ToolCall),
}

/// A streamed message, put together block by block.
#[derive(Default)]
struct AnthropicStream {
    blocks: Vec<(usize, Streamed)>,
    usage: AnthropicUsage,
    started: bool,
    stop_reason: Option<String>,
    /// The kinds of the blocks it does not read.
    skipped: Vec<String>,
}

impl Assembler for AnthropicStream {
    fn event(&mut self, event: SseEvent) -> Result<Option<String>, AgentError> {
        match decode::<StreamEvent>(event.data.as_bytes())? {
            StreamEvent::MessageStart { message } => {
                self.started = true;
                self.usage = message.usage;
            }
            StreamEvent::ContentBlockStart { index, content_block } => match block(content_block)? {
                (ContentBlock::Other, kind) => self.skipped.extend(kind),
                (ContentBlock::Text { text }, _) => {
                    self.blocks.push((index, Streamed::Text(text.clone())));
                    return Ok(Some(text));
                }
                (ContentBlock::ToolUse { id, name, .. }, _) => {
                    // The start carries `input: {}`; the input arrives as `input_json_delta`s.
                    self.blocks.push((index, Streamed::Call(ToolCall::new(id, name, ""))));
                }
            },
            StreamEvent::ContentBlockDelta { index, delta } => {
                let block = self.blocks.iter_mut().find(|(at, _)| *at == index).map(|(_, block)| block);
                match (block, delta) {
                    (Some(Streamed::Text(text)), BlockDelta::TextDelta { text: piece }) => {
                        text.push_str(&piece);
                        return Ok(Some(piece));
                    }
                    (Some(Streamed::Call(call)), BlockDelta::InputJsonDelta { partial_json }) => {
                        call.arguments.push_str(&partial_json);
                    }
                    _ => {}
                }
            }
            StreamEvent::MessageDelta { usage, delta } => {
                self.usage.update(usage);
                if delta.stop_reason.is_some() {
                    self.stop_reason = delta.stop_reason;
                }
            }
            StreamEvent::Error { error } => {
                let message = match error.kind {
                    Some(kind) => format!("{kind}: {}", error.message),
                    None => error.message,
                };
                return Err(AgentError::Provider(message));
            }
            StreamEvent::Other => {}
        }
        Ok(None)
    }

    fn finish(self) -> Result<ModelResponse, AgentError> {
        if !self.started {
            let reason = "the stream ended without `message_start`".to_owned();
            return Err(AgentError::Malformed { reason, body: String::new() });
        }
        let mut reply = ModelResponse {
            usage: self.usage.usage(),
            finish_reason: self.stop_reason,
            ..ModelResponse::default()
        };
        for (_, block) in self.blocks {
            match block {
                Streamed::Text(text) => reply.content.push_str(&text),
                Streamed::Call(mut call) => {
                    if call.arguments.is_empty() {
                        "{}".clone_into(&mut call.arguments);
                    }
                    reply.tool_calls.push(call);
                }
            }
        }
        if reply.content.is_empty() && reply.tool_calls.is_empty() && !self.skipped.is_empty() {
            return Err(unusable(&counted(&self.skipped, "block"), reply.finish_reason.as_deref()));
        }
        Ok(reply)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolReturn;
    use serde_json::json;

    #[test]
    fn tool_results_are_user_blocks_and_roles_alternate() {
        let messages = [
            Message::system("Be brief."),
            Message::user("add"),
            Message::assistant_calls("Adding.", [ToolCall::new("toolu_1", "add", r#"{"a":1}"#)]),
            Message::Tool {
                results: vec![ToolReturn {
                    id: "toolu_1".into(),
                    name: "add".into(),
                    content: "{\"error\":\"x\"}".into(),
                    is_error: true,
                    blocks: Vec::new(),
                }],
            },
            Message::user("Fix it."),
        ];
        assert_eq!(
            serde_json::to_value(turns(&messages)).unwrap(),
            json!([
                {"role": "user", "content": [{"type": "text", "text": "add"}]},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "Adding."},
                    {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 1}},
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "{\"error\":\"x\"}", "is_error": true},
                    {"type": "text", "text": "Fix it."},
                ]},
            ])
        );
    }

    #[test]
    fn content_images_are_image_blocks_and_the_rest_text_without_bytes() {
        let result = ToolReturn {
            id: "toolu_1".into(),
            name: "draw".into(),
            content: "described".into(),
            is_error: false,
            blocks: vec![
                Content::image("image/png", vec![1, 2, 3]),
                Content::resource_bytes("file:///a.pdf", "application/pdf", vec![0; 5]),
            ],
        };
        let messages = [Message::Tool { results: vec![result] }];
        assert_eq!(
            serde_json::to_value(turns(&messages)).unwrap(),
            json!([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": [
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AQID"}},
                {"type": "text", "text": "[resource <file:///a.pdf> application/pdf, 5 bytes]"},
            ]}]}])
        );
    }

    #[test]
    fn a_streamed_message_is_put_together() {
        let events = [
            json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "claude", "stop_reason": null, "usage": {"input_tokens": 25, "output_tokens": 1}}}),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            json!({"type": "ping"}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Let me "}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "add."}}),
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {}}}),
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": ""}}),
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"a\": 1"}}),
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "}"}}),
            json!({"type": "content_block_stop", "index": 1}),
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null}, "usage": {"output_tokens": 15}}),
            json!({"type": "message_stop"}),
        ];
        let mut stream = AnthropicStream::default();
        let mut texts = Vec::new();
        for event in events {
            texts.extend(stream.event(SseEvent { event: String::new(), data: event.to_string() }).unwrap());
        }
        assert_eq!(texts.concat(), "Let me add.");
        let reply = stream.finish().unwrap();
        assert_eq!(reply.content, "Let me add.");
        assert_eq!(reply.tool_calls, [ToolCall::new("toolu_1", "add", "{\"a\": 1}")]);
        assert_eq!(reply.usage, Usage::new(25, 15));
        assert_eq!(reply.finish_reason.as_deref(), Some("tool_use"), "from message_delta");
    }

    #[test]
    fn cache_reads_and_writes_count_as_input_and_apart() {
        let response: Response = serde_json::from_value(json!({
            "content": [{"type": "text", "text": "hi"}],
            "usage": {"input_tokens": 10, "cache_creation_input_tokens": 200, "cache_read_input_tokens": 3000, "output_tokens": 5},
        }))
        .unwrap();
        let usage = read(response).unwrap().usage;
        assert_eq!(usage, Usage { cache_read_tokens: 3000, cache_write_tokens: 200, ..Usage::new(3210, 5) });
        let mut stream = AnthropicStream::default();
        for event in [
            json!({"type": "message_start", "message": {"usage": {"input_tokens": 10, "cache_read_input_tokens": 3000, "output_tokens": 1}}}),
            json!({"type": "message_delta", "delta": {}, "usage": {"output_tokens": 7}}),
        ] {
            stream.event(SseEvent { event: String::new(), data: event.to_string() }).unwrap();
        }
        assert_eq!(stream.finish().unwrap().usage, Usage { cache_read_tokens: 3000, ..Usage::new(3010, 7) });
    }

    #[test]
    fn a_message_says_why_it_stopped() {
        let response: Response = serde_json::from_value(json!({
            "content": [{"type": "text", "text": "cut sho"}],
            "stop_reason": "max_tokens",
            "usage": {"input_tokens": 3, "output_tokens": 5},
        }))
        .unwrap();
        let reply = read(response).unwrap();
        assert_eq!((reply.content.as_str(), reply.finish_reason.as_deref()), ("cut sho", Some("max_tokens")));
    }
}
