//! Google Gemini `generateContent`: system messages as `systemInstruction`, the rest as
//! `user` and `model` contents of parts (`text`, `functionCall` with the decoded `args`
//! and its `thoughtSignature`, `functionResponse` with `{"output": result}` or
//! `{"error": error}`), the toolset's `emit(Format::Gemini, ..)` declarations in one
//! `functionDeclarations` tool, the tool choice as `toolConfig.functionCallingConfig`
//! (Gemini has no parallel-calls switch), typed output as `responseMimeType: application/json` with
//! `responseSchema` (or `responseJsonSchema`). The reply's first candidate (thought
//! parts left out) and `usageMetadata` (thoughts count as output); a blocked prompt is
//! [`AgentError::Provider`]. Gemini may send calls without ids: each gets a fresh one.
//! Streamed (`:streamGenerateContent?alt=sse`): every event is a partial response whose
//! text parts are deltas and whose calls arrive whole.

use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolcall_runtime::Format;

use super::{HttpModel, arguments_object, definitions, send, system_text};
use crate::choice::ToolChoice;
use crate::error::{AgentError, counted, unusable};
use crate::http::{Assembler, SseEvent, decode};
use crate::message::{Message, ModelResponse, ToolCall, Usage};
use crate::model::{ModelRequest, ModelStream};

pub(super) fn request<'a>(model: &'a HttpModel, request: ModelRequest<'a>) -> ModelStream<'a> {
    let name = model.settings.model.trim_start_matches("models/");
    let url = match request.stream {
        true => model.url(&format!("models/{name}:streamGenerateContent?alt=sse")),
        false => model.url(&format!("models/{name}:generateContent")),
    };
    let body = body(model, &request);
    send(model, url, body, request.stream, read, GeminiStream::default)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Request<'a> {
    contents: Vec<Content<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<GeminiTool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_config: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    system_instruction: Option<SystemInstruction>,
    #[serde(skip_serializing_if = "Option::is_none")]
    generation_config: Option<GenerationConfig<'a>>,
}

#[derive(Serialize, Debug, PartialEq)]
struct Content<'a> {
    role: &'static str,
    parts: Vec<Part<'a>>,
}

#[derive(Serialize, Debug, PartialEq, Default)]
#[serde(rename_all = "camelCase")]
struct Part<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    function_call: Option<FunctionCall<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    function_response: Option<FunctionResponse<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thought_signature: Option<&'a str>,
}

#[derive(Serialize, Debug, PartialEq)]
struct FunctionCall<'a> {
    id: &'a str,
    name: &'a str,
    args: Value,
}

#[derive(Serialize, Debug, PartialEq)]
struct FunctionResponse<'a> {
    id: &'a str,
    name: &'a str,
    response: Value,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GeminiTool {
    function_declarations: Vec<Value>,
}

#[derive(Serialize)]
struct SystemInstruction {
    parts: [SystemText; 1],
}

#[derive(Serialize)]
struct SystemText {
    text: String,
}

#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
struct GenerationConfig<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    max_output_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_mime_type: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_schema: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_json_schema: Option<&'a Value>,
}

fn body<'a>(model: &'a HttpModel, request: &ModelRequest<'a>) -> Result<Request<'a>, AgentError> {
    let declarations = definitions(request, Format::Gemini)?;
    let tools = match declarations.is_empty() {
        true => Vec::new(),
        false => vec![GeminiTool { function_declarations: declarations }],
    };
    let mut config =
        GenerationConfig { max_output_tokens: model.settings.max_tokens, ..GenerationConfig::default() };
    if let Some(spec) = request.output {
        config.response_mime_type = Some("application/json");
        match &spec.gemini_schema {
            Some(schema) => config.response_schema = Some(schema),
            None => config.response_json_schema = Some(&spec.schema),
        }
    }
    let configured = config.max_output_tokens.is_some() || config.response_mime_type.is_some();
    let calling = match request.tool_choice {
        ToolChoice::None => Some(serde_json::json!({"mode": "NONE"})),
        ToolChoice::Required => Some(serde_json::json!({"mode": "ANY"})),
        ToolChoice::Tool(name) => Some(serde_json::json!({"mode": "ANY", "allowedFunctionNames": [name]})),
        _ => None,
    };
    let tool_config = calling
        .filter(|_| !tools.is_empty())
        .map(|calling| serde_json::json!({"functionCallingConfig": calling}));
    Ok(Request {
        contents: contents(request.messages),
        tools,
        tool_config,
        system_instruction: system_text(request.messages)
            .map(|text| SystemInstruction { parts: [SystemText { text }] }),
        generation_config: configured.then_some(config),
    })
}

/// The conversation as contents; consecutive parts of one role share a content.
fn contents(messages: &[Message]) -> Vec<Content<'_>> {
    let mut contents: Vec<Content<'_>> = Vec::new();
    for message in messages {
        let (role, parts) = match message {
            Message::System { .. } => continue,
            Message::User { content } => ("user", vec![Part { text: Some(content), ..Part::default() }]),
            Message::Assistant { content, tool_calls, .. } => {
                let text = (!content.is_empty()).then(|| Part { text: Some(content), ..Part::default() });
                let calls = tool_calls.iter().map(|call| Part {
                    function_call: Some(FunctionCall {
                        id: &call.id,
                        name: &call.name,
                        args: arguments_object(&call.arguments),
                    }),
                    thought_signature: call.signature.as_deref(),
                    ..Part::default()
                });
                ("model", text.into_iter().chain(calls).collect())
            }
            Message::Tool { results } => {
                let parts = results.iter().map(|result| {
                    let value = serde_json::from_str(&result.content)
                        .unwrap_or_else(|_| Value::String(result.content.clone()));
                    let key = if result.is_error { "error" } else { "output" };
                    let response = Value::Object([(key.to_owned(), value)].into_iter().collect());
                    Part {
                        function_response: Some(FunctionResponse {
                            id: &result.id,
                            name: &result.name,
                            response,
                        }),
                        ..Part::default()
                    }
                });
                ("user", parts.collect())
            }
        };
        match contents.last_mut() {
            Some(last) if last.role == role => last.parts.extend(parts),
            _ => contents.push(Content { role, parts }),
        }
    }
    contents
}

/// A `GenerateContentResponse`: what the loop reads of it.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Response {
    #[serde(default)]
    candidates: Vec<Candidate>,
    #[serde(default)]
    usage_metadata: Option<GeminiUsage>,
    #[serde(default)]
    prompt_feedback: Option<PromptFeedback>,
    #[serde(default)]
    error: Option<StreamError>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Candidate {
    #[serde(default)]
    content: Option<CandidateContent>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct CandidateContent {
    #[serde(default)]
    parts: Vec<ReplyPart>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReplyPart {
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    thought: bool,
    #[serde(default)]
    function_call: Option<ReplyCall>,
    #[serde(default)]
    thought_signature: Option<String>,
    /// The part's other fields: a part the loop does not read (`executableCode`,
    /// `inlineData`, ..) is named by them.
    #[serde(flatten)]
    other: serde_json::Map<String, Value>,
}

#[derive(Deserialize)]
struct ReplyCall {
    #[serde(default)]
    id: Option<String>,
    name: String,
    #[serde(default)]
    args: Option<Value>,
}

#[derive(Deserialize, Default, Clone, Copy)]
#[serde(rename_all = "camelCase")]
struct GeminiUsage {
    #[serde(default)]
    prompt_token_count: u64,
    #[serde(default)]
    candidates_token_count: u64,
    #[serde(default)]
    thoughts_token_count: u64,
    #[serde(default)]
    cached_content_token_count: u64,
}

impl From<GeminiUsage> for Usage {
    fn from(usage: GeminiUsage) -> Self {
        Usage {
            cache_read_tokens: usage.cached_content_token_count,
            ..Usage::new(usage.prompt_token_count, usage.candidates_token_count + usage.thoughts_token_count)
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PromptFeedback {
    #[serde(default)]
    block_reason: Option<String>,
}

#[derive(Deserialize)]
struct StreamError {
    #[serde(default)]
    status: Option<String>,
    message: String,
}

/// A fresh call id, for a call Gemini sent without one.
fn fresh_id() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    format!("gemini_call_{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// The parts of the first candidate, added to `reply`: text (not thoughts) and calls; the
/// kinds of the other parts added to `skipped`.
fn take_parts(
    response: Response,
    reply: &mut ModelResponse,
    skipped: &mut Vec<String>,
) -> Result<String, AgentError> {
    if let Some(error) = response.error {
        let status = error.status.map(|s| format!("{s}: ")).unwrap_or_default();
        return Err(AgentError::Provider(format!("{status}{}", error.message)));
    }
    if let Some(usage) = response.usage_metadata {
        reply.usage = usage.into();
    }
    let Some(candidate) = response.candidates.into_iter().next() else {
        return match response.prompt_feedback.and_then(|feedback| feedback.block_reason) {
            Some(reason) => Err(AgentError::Provider(format!("the prompt was blocked: {reason}"))),
            None => Ok(String::new()),
        };
    };
    if candidate.finish_reason.is_some() {
        reply.finish_reason = candidate.finish_reason;
    }
    let mut text = String::new();
    for part in candidate.content.map(|content| content.parts).unwrap_or_default() {
        if let Some(call) = part.function_call {
            let arguments = call.args.unwrap_or_else(|| Value::Object(serde_json::Map::new()));
            let id = call.id.filter(|id| !id.is_empty()).unwrap_or_else(fresh_id);
            let mut call = ToolCall::new(id, call.name, arguments.to_string());
            call.signature = part.thought_signature;
            reply.tool_calls.push(call);
        } else if let Some(piece) = part.text.filter(|_| !part.thought) {
            text.push_str(&piece);
        } else if part.thought {
            skipped.push("thought".to_owned());
        } else {
            skipped.extend(part.other.keys().next().cloned());
        }
    }
    reply.content.push_str(&text);
    Ok(text)
}

fn read(response: Response) -> Result<ModelResponse, AgentError> {
    if response.candidates.is_empty() && response.prompt_feedback.is_none() && response.error.is_none() {
        return Err(AgentError::Malformed {
            reason: "`candidates` is empty".to_owned(),
            body: String::new(),
        });
    }
    let mut reply = ModelResponse::default();
    let mut skipped = Vec::new();
    take_parts(response, &mut reply, &mut skipped)?;
    usable(reply, &skipped)
}

/// `reply`, unless it holds no text and no call but parts of other kinds (`skipped`):
/// then [`AgentError::Unusable`], naming them.
fn usable(reply: ModelResponse, skipped: &[String]) -> Result<ModelResponse, AgentError> {
    if reply.content.is_empty() && reply.tool_calls.is_empty() && !skipped.is_empty() {
        return Err(unusable(&counted(skipped, "part"), reply.finish_reason.as_deref()));
    }
    Ok(reply)
}

/// A streamed response: each event a partial response.
#[derive(Default)]
struct GeminiStream {
    reply: ModelResponse,
    events: usize,
    skipped: Vec<String>,
}

impl Assembler for GeminiStream {
    fn event(&mut self, event: SseEvent) -> Result<Option<String>, AgentError> {
        self.events += 1;
        let response: Response = decode(event.data.as_bytes())?;
        take_parts(response, &mut self.reply, &mut self.skipped).map(Some)
    }

    fn finish(self) -> Result<ModelResponse, AgentError> {
        if self.events == 0 {
            return Err(AgentError::Malformed {
                reason: "the stream had no events".to_owned(),
                body: String::new(),
            });
        }
        usable(self.reply, &self.skipped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolReturn;
    use serde_json::json;

    #[test]
    fn calls_and_answers_are_parts_with_signatures_and_output_or_error() {
        let mut call = ToolCall::new("c1", "add", r#"{"a":1}"#);
        call.signature = Some("sig".into());
        let messages = [
            Message::user("add"),
            Message::assistant_calls("", [call]),
            Message::Tool {
                results: vec![
                    ToolReturn {
                        id: "c1".into(),
                        name: "add".into(),
                        content: "3".into(),
                        is_error: false,
                        blocks: Vec::new(),
                    },
                    ToolReturn {
                        id: "c2".into(),
                        name: "x".into(),
                        content: "{\"error\":\"unknown_tool\"}".into(),
                        is_error: true,
                        blocks: Vec::new(),
                    },
                ],
            },
        ];
        assert_eq!(
            serde_json::to_value(contents(&messages)).unwrap(),
            json!([
                {"role": "user", "parts": [{"text": "add"}]},
                {"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "add", "args": {"a": 1}}, "thoughtSignature": "sig"}]},
                {"role": "user", "parts": [
                    {"functionResponse": {"id": "c1", "name": "add", "response": {"output": 3}}},
                    {"functionResponse": {"id": "c2", "name": "x", "response": {"error": {"error": "unknown_tool"}}}},
                ]},
            ])
        );
    }

    #[test]
    fn thoughts_are_left_out_and_calls_without_ids_get_one() {
        let response: Response = serde_json::from_value(json!({
            "candidates": [{"content": {"role": "model", "parts": [
                {"text": "thinking...", "thought": true},
                {"text": "Sure."},
                {"functionCall": {"name": "add", "args": {"a": 1}}, "thoughtSignature": "sig"},
            ]}, "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "thoughtsTokenCount": 2, "totalTokenCount": 17},
        }))
        .unwrap();
        let reply = read(response).unwrap();
        assert_eq!(reply.content, "Sure.");
        assert!(reply.tool_calls[0].id.starts_with("gemini_call_"));
        assert_eq!(reply.tool_calls[0].signature.as_deref(), Some("sig"));
        assert_eq!(reply.usage, Usage::new(10, 7));
        assert_eq!(reply.finish_reason.as_deref(), Some("STOP"));
    }
}
