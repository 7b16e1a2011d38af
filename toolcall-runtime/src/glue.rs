//! Provider glue: turn a model's tool call into the message that answers it.
//!
//! OpenAI sends `{"id", "function": {"name", "arguments": "<json text>"}}` and expects a
//! `{"role": "tool", "tool_call_id", "content"}` message; Anthropic sends a `tool_use`
//! block with `input` already decoded and expects a `tool_result` block, with
//! `"is_error": true` when the call failed. Errors go back as content the model can read.
//!
//! [`answer_openai_message`] and [`answer_anthropic_message`] answer every tool call of
//! one model message through [`Toolset::call`], concurrently (two 200 ms tools take about
//! 200 ms, not 400), with the answers in the order of the calls. They poll the calls
//! themselves and need no particular executor.
//!
//! ```
//! use serde_json::json;
//! use toolcall_runtime::glue::openai_tool_message;
//! use toolcall_runtime::ToolError;
//!
//! let answer = openai_tool_message("call_1", &Err(ToolError::MissingArgument("city".into())));
//! assert_eq!(answer["role"], "tool");
//! assert!(answer["content"].as_str().unwrap().contains("city: missing"));
//! ```

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use serde_json::{Value, json};

use crate::call::{CallFuture, Runner, parse_arguments};
use crate::error::ToolError;
use crate::toolset::Toolset;

/// The content string for a result: the value's JSON text, or the error's JSON object.
pub fn content(result: &Result<Value, ToolError>) -> String {
    match result {
        Ok(value) => value.to_string(),
        // Serialized directly, not through a `Value`, to keep the field order (`error` first).
        Err(error) => serde_json::to_string(error).unwrap_or_else(|_| error.to_value().to_string()),
    }
}

/// The OpenAI `role: tool` message answering call `id`.
pub fn openai_tool_message(id: &str, result: &Result<Value, ToolError>) -> Value {
    json!({"role": "tool", "tool_call_id": id, "content": content(result)})
}

/// The Anthropic `tool_result` block answering `tool_use` block `id`. Errors are sent as
/// their one-line message with `"is_error": true`.
pub fn anthropic_tool_result(id: &str, result: &Result<Value, ToolError>) -> Value {
    match result {
        Ok(value) => json!({"type": "tool_result", "tool_use_id": id, "content": value.to_string()}),
        Err(error) => json!({
            "type": "tool_result",
            "tool_use_id": id,
            "content": error.to_string(),
            "is_error": true,
        }),
    }
}

/// Runs one OpenAI tool call (an element of `message.tool_calls`) and answers it.
/// A malformed call object is answered with an `InvalidArguments` error, not a panic.
pub fn answer_openai(tools: &impl Runner, call: &Value) -> Value {
    let id = call["id"].as_str().unwrap_or_default();
    let result = openai_call(call).and_then(|(name, args)| match args {
        OpenAiArgs::Text(text) => tools.run_json(name, text),
        OpenAiArgs::Decoded(args) => tools.run(name, args),
    });
    openai_tool_message(id, &result)
}

/// The arguments of an OpenAI tool call as sent.
enum OpenAiArgs<'v> {
    /// JSON text, as OpenAI sends them.
    Text(&'v str),
    /// An object: some gateways send arguments already decoded.
    Decoded(&'v Value),
}

/// The name and arguments of an OpenAI tool call (an element of `message.tool_calls`);
/// a malformed call is `InvalidArguments`, summarizing what was wrong.
fn openai_call(call: &Value) -> Result<(&str, OpenAiArgs<'_>), ToolError> {
    let Some(name) = call["function"]["name"].as_str() else {
        return Err(ToolError::InvalidArguments(crate::error::summarize(call)));
    };
    match &call["function"]["arguments"] {
        Value::String(text) => Ok((name, OpenAiArgs::Text(text))),
        args @ Value::Object(_) => Ok((name, OpenAiArgs::Decoded(args))),
        other => Err(ToolError::InvalidArguments(crate::error::summarize(other))),
    }
}

/// One OpenAI tool call on its way to a future.
enum Prepared<'m> {
    /// Decoded straight from its argument text (and, for a sync tool, already run).
    Started(CallFuture<'m>),
    /// Its argument text, parsed: the value at this index of the parsed ones.
    Parsed(&'m str, usize),
    /// Arguments sent as an object.
    Given(&'m str, &'m Value),
    /// Malformed: answered with this error.
    Failed(ToolError),
}

/// Runs one Anthropic `tool_use` block and answers it with a `tool_result` block.
pub fn answer_anthropic(tools: &impl Runner, block: &Value) -> Value {
    let id = block["id"].as_str().unwrap_or_default();
    let result = match block["name"].as_str() {
        Some(name) => tools.run(name, &block["input"]),
        None => Err(ToolError::InvalidArguments(crate::error::summarize(block))),
    };
    anthropic_tool_result(id, &result)
}

/// Answers every tool call of an OpenAI assistant `message` (its `tool_calls` array),
/// concurrently, through [`Toolset::call`]: one `role: tool` message per call, in the
/// order of the calls. A malformed call is answered with an error, never skipped, so
/// every `tool_call_id` gets its answer; a message without `tool_calls` gets none.
///
/// ```text
/// let answers = answer_openai_message(&toolset::ALL, &app, &choice["message"]).await;
/// messages.extend(answers);
/// ```
pub async fn answer_openai_message<C>(tools: &Toolset<C>, ctx: &C, message: &Value) -> Vec<Value> {
    let calls = tool_calls(&message["tool_calls"], |_| true);
    // Arguments sent as JSON text are decoded straight from the text where the fast path
    // takes them; the rest are parsed first, into `parsed`, so each call can borrow its own.
    let mut parsed = Vec::new();
    let prepared: Vec<Prepared<'_>> = calls
        .iter()
        .map(|call| match openai_call(call) {
            Ok((name, OpenAiArgs::Text(text))) => {
                match tools.call_text(ctx, name, text, crate::progress::Progress::none()) {
                    Some(call) => Prepared::Started(call),
                    None => match parse_arguments(text.as_bytes()) {
                        Ok(args) => {
                            parsed.push(args);
                            Prepared::Parsed(name, parsed.len() - 1)
                        }
                        Err(error) => Prepared::Failed(error),
                    },
                }
            }
            Ok((name, OpenAiArgs::Decoded(args))) => Prepared::Given(name, args),
            Err(error) => Prepared::Failed(error),
        })
        .collect();
    let futures = prepared
        .into_iter()
        .map(|prepared| match prepared {
            Prepared::Started(call) => call,
            // `at` is where the first pass pushed this call's value.
            Prepared::Parsed(name, at) => tools.call(ctx, name, &parsed[at]),
            Prepared::Given(name, args) => tools.call(ctx, name, args),
            Prepared::Failed(error) => CallFuture::ready("", Err(error)),
        })
        .collect();
    answer_all(&calls, futures, openai_tool_message).await
}

/// Answers every `tool_use` block of an Anthropic assistant `message` (its `content`
/// array), concurrently, through [`Toolset::call`]: one `tool_result` block per call, in
/// the order of the calls, ready to be the `content` of the next user message.
pub async fn answer_anthropic_message<C>(tools: &Toolset<C>, ctx: &C, message: &Value) -> Vec<Value> {
    let blocks = tool_calls(&message["content"], |block| block["type"] == "tool_use");
    let futures = blocks
        .iter()
        .map(|block| match block["name"].as_str() {
            Some(name) => tools.call(ctx, name, &block["input"]),
            None => CallFuture::ready("", Err(ToolError::InvalidArguments(crate::error::summarize(block)))),
        })
        .collect();
    answer_all(&blocks, futures, anthropic_tool_result).await
}

/// Awaits every call together, then answers each call item (by its `id`) in order.
async fn answer_all(
    items: &[&Value],
    calls: Vec<CallFuture<'_>>,
    answer: fn(&str, &Result<Value, ToolError>) -> Value,
) -> Vec<Value> {
    let results = JoinAll::new(calls).await;
    items
        .iter()
        .zip(&results)
        .map(|(item, result)| answer(item["id"].as_str().unwrap_or_default(), result))
        .collect()
}

/// The elements of `list` (an array, else none) that `keep` accepts.
fn tool_calls(list: &Value, keep: impl Fn(&Value) -> bool) -> Vec<&Value> {
    list.as_array().map(|items| items.iter().filter(|item| keep(item)).collect()).unwrap_or_default()
}

/// Polls every call until all are done; results in the order of the calls.
struct JoinAll<'a> {
    calls: Vec<Option<CallFuture<'a>>>,
    results: Vec<Option<Result<Value, ToolError>>>,
}

impl<'a> JoinAll<'a> {
    fn new(calls: Vec<CallFuture<'a>>) -> Self {
        let results = calls.iter().map(|_| None).collect();
        JoinAll { calls: calls.into_iter().map(Some).collect(), results }
    }
}

impl Future for JoinAll<'_> {
    type Output = Vec<Result<Value, ToolError>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        for (slot, result) in this.calls.iter_mut().zip(&mut this.results) {
            if let Some(call) = slot
                && let Poll::Ready(done) = Pin::new(call).poll(cx)
            {
                *result = Some(done);
                *slot = None;
            }
        }
        if this.calls.iter().any(Option::is_some) {
            return Poll::Pending;
        }
        let results = this.results.iter_mut().map(|r| r.take().unwrap_or_else(|| Err(polled_again())));
        Poll::Ready(results.collect())
    }
}

fn polled_again() -> ToolError {
    ToolError::Failed("the calls were polled again after they completed".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::failure::ToolFailure;

    #[test]
    fn each_provider_answer_tells_a_retry_from_a_failure() {
        let retry: Result<Value, ToolError> =
            Err(ToolFailure::retry("use a date in 2025").with_code("range").into());
        let failed: Result<Value, ToolError> = Err(ToolFailure::fail("the calendar is offline").into());
        // OpenAI, Responses and Gemini answers carry the JSON form; its kind differs.
        let content =
            |r: &Result<Value, ToolError>| serde_json::from_str::<Value>(&content(r)).unwrap_or_default();
        assert_eq!(
            (content(&retry)["error"].as_str(), content(&retry)["code"].as_str()),
            (Some("retry"), Some("range"))
        );
        assert_eq!(content(&failed)["error"], "failed");
        // Anthropic's `tool_result` carries the text, flagged `is_error` either way.
        let anthropic = anthropic_tool_result("t1", &retry);
        assert_eq!(anthropic["content"], "call again with changed arguments (range): use a date in 2025");
        assert_eq!(anthropic["is_error"], true);
        assert_eq!(anthropic_tool_result("t2", &failed)["content"], "tool failed: the calendar is offline");
    }
}
