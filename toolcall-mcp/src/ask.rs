//! A tool's questions to the client, sent while it runs: `elicitation/create` (a form the
//! user fills in) and `sampling/createMessage` (a request for the client's model). Sent
//! only to a client that declared the capability; any other gets
//! [`AskError::Unsupported`] at once, never a wait. Protocol 2026-07-28 forbids
//! server-to-client requests (it asks through input-required results instead, not
//! served yet): its clients get `Unsupported` too, saying so.

// rmcp marks sampling deprecated (SEP-2577, a future protocol); every revision up to
// 2025-11-25 has it, and clients answer it.
#![allow(deprecated)]

use rmcp::model::{CreateMessageRequestParams, ElicitRequestParams, ElicitationAction, ProtocolVersion};
use rmcp::service::{Peer, RoleServer};
use serde_json::{Value, json};
use toolcall_runtime::{Answer, AskError};

use crate::revision::is_at_least;

/// Asks the user `message` with the form `schema`; their answer.
pub(crate) async fn elicit(
    peer: &Peer<RoleServer>,
    message: String,
    schema: Value,
) -> Result<Answer, AskError> {
    let capabilities =
        peer.peer_info().map(|info| (info.protocol_version.clone(), info.capabilities.elicitation.is_some()));
    check(capabilities, "elicitation (asking the user)")?;
    let params: ElicitRequestParams =
        serde_json::from_value(json!({"mode": "form", "message": message, "requestedSchema": schema}))
            .map_err(|e| {
                AskError::Failed(format!("the form's schema is not one MCP elicitation takes: {e}"))
            })?;
    let result = peer.create_elicitation(params).await.map_err(|e| AskError::Failed(e.to_string()))?;
    Ok(match result.action {
        ElicitationAction::Accept => match result.content {
            Some(Value::Object(values)) => Answer::Accept(values),
            Some(other) => {
                return Err(AskError::Failed(format!("the client accepted with {other}, not an object")));
            }
            None => Answer::Accept(Default::default()),
        },
        ElicitationAction::Decline => Answer::Decline,
        // Cancel, and any action a later revision adds: the user did not answer.
        _ => Answer::Cancel,
    })
}

/// Asks the client's model to answer `prompt`; the text of its answer.
pub(crate) async fn sample(
    peer: &Peer<RoleServer>,
    prompt: String,
    max_tokens: u32,
) -> Result<String, AskError> {
    let capabilities =
        peer.peer_info().map(|info| (info.protocol_version.clone(), info.capabilities.sampling.is_some()));
    check(capabilities, "sampling (asking the client's model)")?;
    let params: CreateMessageRequestParams = serde_json::from_value(json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": prompt}}],
        "maxTokens": max_tokens,
    }))
    .map_err(|e| AskError::Failed(format!("the request could not be built: {e}")))?;
    let result = peer.create_message(params).await.map_err(|e| AskError::Failed(e.to_string()))?;
    let content = serde_json::to_value(&result.message.content).unwrap_or(Value::Null);
    match content.get("text").and_then(Value::as_str) {
        Some(text) => Ok(text.to_owned()),
        None => Err(AskError::Failed(format!("the model answered with no text: {content}"))),
    }
}

/// Whether the client (its revision and whether it declared the capability) can be asked.
fn check(client: Option<(ProtocolVersion, bool)>, what: &str) -> Result<(), AskError> {
    match client {
        None => Err(AskError::Unsupported(format!("the client has not said what it supports; no {what}"))),
        Some((version, _)) if is_at_least(&version, &ProtocolVersion::V_2026_07_28) => {
            Err(AskError::Unsupported(format!(
                "protocol {version} has no server-to-client requests; {what} through input-required results is not served yet"
            )))
        }
        Some((_, false)) => Err(AskError::Unsupported(format!("the client did not declare {what}"))),
        Some((_, true)) => Ok(()),
    }
}
