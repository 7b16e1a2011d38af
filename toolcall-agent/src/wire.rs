//! Between async-openai's typed chat messages and the JSON the toolcall glue reads and
//! writes. Takes the toolset's emitted definitions, the model's reply and the glue's
//! `role: tool` answers; gives async-openai tools, the calls as JSON for
//! [`glue::answer_openai_message`](toolcall_runtime::glue::answer_openai_message) and
//! typed request messages.

use async_openai::types::chat::{
    ChatCompletionMessageToolCalls, ChatCompletionRequestAssistantMessage, ChatCompletionRequestMessage,
    ChatCompletionRequestToolMessage, ChatCompletionResponseMessage, ChatCompletionTools,
};
use serde_json::{Value, json};

use crate::error::AgentError;

/// One tool call of the model, as it asked for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Call {
    /// The call id the answer must carry.
    pub id: String,
    /// The tool name.
    pub name: String,
    /// The arguments, JSON text as the model wrote it (a custom tool's free-form input).
    pub arguments: String,
    /// A custom (free-form) tool call: toolcall defines none, so it is answered with an error.
    pub custom: bool,
}

/// The definitions `emit(Format::OpenAi, ..)` gives, as async-openai tools.
pub(crate) fn tools(emitted: &str) -> Result<Vec<ChatCompletionTools>, AgentError> {
    serde_json::from_str(emitted).map_err(|e| AgentError::Definitions(e.to_string()))
}

/// The calls of a reply, in order; none when the reply is an answer.
pub(crate) fn calls(reply: &ChatCompletionResponseMessage) -> Vec<Call> {
    let calls = reply.tool_calls.as_deref().unwrap_or_default();
    calls.iter().map(call).collect()
}

fn call(call: &ChatCompletionMessageToolCalls) -> Call {
    match call {
        ChatCompletionMessageToolCalls::Function(call) => Call {
            id: call.id.clone(),
            name: call.function.name.clone(),
            arguments: call.function.arguments.clone(),
            custom: false,
        },
        ChatCompletionMessageToolCalls::Custom(call) => Call {
            id: call.id.clone(),
            name: call.custom_tool.name.clone(),
            arguments: call.custom_tool.input.clone(),
            custom: true,
        },
    }
}

/// The calls as the assistant message JSON the glue answers: a function call as OpenAI
/// sends it; a custom call without a `function`, which the glue answers with an error.
pub(crate) fn glue_message(calls: &[Call]) -> Value {
    let calls: Vec<Value> = calls
        .iter()
        .map(|call| match call.custom {
            false => json!({
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            }),
            true => json!({"id": call.id, "type": "custom", "custom": {"name": call.name, "input": call.arguments}}),
        })
        .collect();
    json!({"role": "assistant", "tool_calls": calls})
}

/// The reply as the assistant message of the next request: its text and its calls.
pub(crate) fn assistant(reply: &ChatCompletionResponseMessage) -> ChatCompletionRequestMessage {
    ChatCompletionRequestMessage::Assistant(ChatCompletionRequestAssistantMessage {
        content: reply.content.clone().map(Into::into),
        refusal: reply.refusal.clone(),
        tool_calls: reply.tool_calls.clone().filter(|calls| !calls.is_empty()),
        ..ChatCompletionRequestAssistantMessage::default()
    })
}

/// The id and content of a glue answer (`{"role": "tool", "tool_call_id", "content"}`).
pub(crate) fn answer_parts(answer: &Value) -> (&str, &str) {
    let text = |key: &str| answer[key].as_str().unwrap_or_default();
    (text("tool_call_id"), text("content"))
}

/// A glue answer as a typed `role: tool` message.
pub(crate) fn tool_message(id: &str, content: &str) -> ChatCompletionRequestMessage {
    ChatCompletionRequestMessage::Tool(ChatCompletionRequestToolMessage {
        content: content.into(),
        tool_call_id: id.to_owned(),
    })
}

/// The text of a reply that asks for no tools: its content, else its refusal, else "".
pub(crate) fn answer(reply: &ChatCompletionResponseMessage) -> String {
    reply.content.clone().or_else(|| reply.refusal.clone()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(value: Value) -> ChatCompletionResponseMessage {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn emitted_definitions_survive_the_typed_tools_unchanged() {
        let emitted = r#"[{"type":"function","function":{"name":"add","description":"Add.","parameters":{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"],"additionalProperties":false},"strict":true}}]"#;
        let typed = tools(emitted).unwrap();
        let sent = serde_json::to_value(&typed).unwrap();
        assert_eq!(sent, serde_json::from_str::<Value>(emitted).unwrap());
        assert!(matches!(tools("{}"), Err(AgentError::Definitions(_))));
    }

    #[test]
    fn calls_go_to_the_glue_as_openai_sent_them() {
        let reply = reply(json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "add", "arguments": "{\"a\":1}"}},
            {"id": "call_2", "type": "custom", "custom_tool": {"name": "grep", "input": "x"}},
        ]}));
        let calls = calls(&reply);
        assert_eq!(
            calls.iter().map(|c| (c.id.as_str(), c.custom)).collect::<Vec<_>>(),
            [("call_1", false), ("call_2", true)]
        );
        let message = glue_message(&calls);
        assert_eq!(
            message["tool_calls"][0],
            json!({"id": "call_1", "type": "function", "function": {"name": "add", "arguments": "{\"a\":1}"}})
        );
        assert!(message["tool_calls"][1].get("function").is_none());
    }

    #[test]
    fn the_assistant_message_keeps_text_and_calls() {
        let reply = reply(json!({"role": "assistant", "content": "Adding.", "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "add", "arguments": "{}"}},
        ]}));
        let sent = serde_json::to_value(assistant(&reply)).unwrap();
        assert_eq!(
            sent,
            json!({"role": "assistant", "content": "Adding.", "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "add", "arguments": "{}"}},
            ]})
        );
    }

    #[test]
    fn glue_answers_become_tool_messages() {
        let answer = json!({"role": "tool", "tool_call_id": "call_1", "content": "5"});
        let (id, content) = answer_parts(&answer);
        let sent = serde_json::to_value(tool_message(id, content)).unwrap();
        assert_eq!(sent, answer);
        assert_eq!(answer_parts(&json!({})), ("", ""));
    }

    #[test]
    fn an_answer_is_the_content_else_the_refusal() {
        assert_eq!(answer(&reply(json!({"role": "assistant", "content": "5"}))), "5");
        assert_eq!(answer(&reply(json!({"role": "assistant", "refusal": "no"}))), "no");
        assert_eq!(answer(&reply(json!({"role": "assistant"}))), "");
    }
}
