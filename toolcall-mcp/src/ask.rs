//! A tool's questions to the client, sent while it runs: `elicitation/create` (a form the
//! user fills in, or a page they are sent to) and `sampling/createMessage` (a request for
//! the client's model). Asked only of a client that declared the capability (for a page,
//! `elicitation.url`); any other gets [`AskError::Unsupported`] at once, never a wait.
//!
//! How the question travels depends on the client's revision:
//!
//! - up to 2025-11-25, as a request from the server to the client on the call's stream,
//!   whose answer the tool waits for (this module);
//! - from 2026-07-28, which has no server-to-client requests, as an input-required result
//!   that ends the call and a retry of the call that carries the answer: the tool is run
//!   again from the start and its questions are answered, in order, from what the client
//!   sent ([`rounds`]).
//!
//! A URL elicitation's answer says whether the user agreed to open the page, not what they
//! did there: that reaches the service that serves the page, which is what knows when the
//! interaction ends (the tool asks it, or waits for it, before it goes on). This server
//! sends no `notifications/elicitation/complete`: 2025-11-25 makes it optional, nothing
//! here sees the page, and rmcp 3.11 has no such notification; 2026-07-28 has none (the
//! client's retry is when the tool checks again).

// rmcp marks sampling deprecated (SEP-2577, a future protocol); every revision up to
// 2026-07-28 has it, and clients answer it.
#![allow(deprecated)]

pub(crate) mod rounds;

use rmcp::model::{
    ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitationAction, PrimitiveSchemaDefinition, ProtocolVersion,
};
use rmcp::service::{Peer, RoleServer};
use serde_json::{Value, json};
use toolcall_runtime::{Answer, AskError};

use crate::revision::is_at_least;

/// What a client said it can be asked, from its capabilities.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Can {
    /// Form elicitation: `elicitation` with `form`, or an empty `elicitation` (which
    /// 2025-11-25 reads as form only).
    pub(crate) form: bool,
    /// URL elicitation: `elicitation.url` (2025-11-25 on).
    pub(crate) url: bool,
    /// Sampling: `sampling`.
    pub(crate) sampling: bool,
    /// Roots: `roots`.
    pub(crate) roots: bool,
}

impl Can {
    /// What `capabilities` declare.
    pub(crate) fn of(capabilities: &ClientCapabilities) -> Can {
        let elicitation = capabilities.elicitation.as_ref();
        Can {
            form: elicitation.is_some_and(|e| e.form.is_some() || e.url.is_none()),
            url: elicitation.is_some_and(|e| e.url.is_some()),
            sampling: capabilities.sampling.is_some(),
            roots: capabilities.roots.is_some(),
        }
    }

    /// Why a client that declared `self` cannot be asked `kind`; `None` when it can.
    pub(crate) fn refusal(&self, kind: Kind, declared_elicitation: bool) -> Option<String> {
        let (can, what) = match kind {
            Kind::Form if declared_elicitation => (self.form, "form elicitation (asking the user)"),
            Kind::Form => (self.form, "elicitation (asking the user)"),
            Kind::Url => (self.url, "URL elicitation (sending the user to a page)"),
            Kind::Sample => (self.sampling, "sampling (asking the client's model)"),
            Kind::Roots => (self.roots, "roots (the directories it lets the server see)"),
        };
        (!can).then(|| format!("the client did not declare {what}"))
    }
}

/// What a question asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A form the user fills in.
    Form,
    /// A page the user is sent to.
    Url,
    /// A request for the client's model.
    Sample,
    /// A request for the client's roots.
    Roots,
}

impl Kind {
    /// The kind's name in a sealed state.
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            Kind::Form => "form",
            Kind::Url => "url",
            Kind::Sample => "sample",
            Kind::Roots => "roots",
        }
    }

    /// The kind named `name` in a sealed state.
    pub(crate) fn parse(name: &str) -> Option<Kind> {
        [Kind::Form, Kind::Url, Kind::Sample, Kind::Roots].into_iter().find(|kind| kind.as_str() == name)
    }
}

/// The parameters of a form question: `elicitation/create` in form mode. A schema MCP
/// elicitation does not take is [`AskError::Failed`], naming what is wrong with it
/// ([`not_a_form`]).
pub(crate) fn form_params(message: &str, schema: &Value) -> Result<ElicitRequestParams, AskError> {
    serde_json::from_value(json!({"mode": "form", "message": message, "requestedSchema": schema})).map_err(
        |e| {
            let why = not_a_form(schema).unwrap_or_else(|| e.to_string());
            AskError::Failed(format!("the form's schema is not one MCP elicitation takes: {why}"))
        },
    )
}

/// What keeps `schema` from being a form MCP elicitation takes (a flat object schema whose
/// every property is a primitive field), for the tool's author; `None` when nothing this
/// check knows of.
fn not_a_form(schema: &Value) -> Option<String> {
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return Some(r#"its root must say "type": "object""#.to_owned());
    }
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Some("it needs `properties`, an object of fields".to_owned());
    };
    properties
        .iter()
        .find(|(_, property)| {
            serde_json::from_value::<PrimitiveSchemaDefinition>((*property).clone()).is_err()
        })
        .map(|(name, _)| {
            format!(
                "field {name:?} is none of a string (formats email, uri, date, date-time), number, \
                 integer, boolean, enum or multi-select of enum values"
            )
        })
}

/// The parameters of a URL question: `elicitation/create` in URL mode, with
/// `elicitation_id` (2025-11-25 requires one; 2026-07-28 has none, which rmcp writes as
/// an empty one).
pub(crate) fn url_params(
    message: &str,
    url: &str,
    elicitation_id: &str,
) -> Result<ElicitRequestParams, AskError> {
    if !is_absolute_url(url) {
        return Err(AskError::Failed(format!(
            "{url:?} is not an absolute URL (https://..) to send the user to"
        )));
    }
    let params = json!({"mode": "url", "message": message, "url": url, "elicitationId": elicitation_id});
    serde_json::from_value(params)
        .map_err(|e| AskError::Failed(format!("the page is not one MCP elicitation takes: {e}")))
}

/// The parameters of a request for the client's model: `prompt` as the user's one message.
pub(crate) fn sample_params(prompt: &str, max_tokens: u32) -> Result<CreateMessageRequestParams, AskError> {
    serde_json::from_value(json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": prompt}}],
        "maxTokens": max_tokens,
    }))
    .map_err(|e| AskError::Failed(format!("the request could not be built: {e}")))
}

/// The text of the model's answer; [`AskError::Failed`] when it has none.
pub(crate) fn sampled_text(result: &CreateMessageResult) -> Result<String, AskError> {
    let content = serde_json::to_value(&result.message.content).unwrap_or(Value::Null);
    match content.get("text").and_then(Value::as_str) {
        Some(text) => Ok(text.to_owned()),
        None => Err(AskError::Failed(format!("the model answered with no text: {content}"))),
    }
}

/// Whether `url` is an absolute URL: a scheme (a letter, then letters, digits, `+`, `-`,
/// `.`), a colon, and more, without spaces or control characters.
fn is_absolute_url(url: &str) -> bool {
    let Some((scheme, rest)) = url.split_once(':') else { return false };
    let mut letters = scheme.chars();
    letters.next().is_some_and(|c| c.is_ascii_alphabetic())
        && letters.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        && !rest.is_empty()
        && !url.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// A fresh identifier for a URL elicitation: 128 random bits, as hex.
pub(crate) fn fresh_id() -> Result<String, AskError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| AskError::Failed(format!("no random elicitation id: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// What the client answered a question, as the tool gets it: accept with the form's values
/// (an object; none is an empty one), decline, or cancel.
fn answer_of(action: &ElicitationAction, content: Option<Value>) -> Result<Answer, AskError> {
    Ok(match action {
        ElicitationAction::Accept => match content {
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

/// The client's revision and capabilities, as the peer's `initialize` gave them.
fn client_of(peer: &Peer<RoleServer>) -> Option<(ProtocolVersion, Can, bool)> {
    peer.peer_info().map(|info| {
        let capabilities = &info.capabilities;
        (info.protocol_version.clone(), Can::of(capabilities), capabilities.elicitation.is_some())
    })
}

/// Asks the user `message` with the form `schema`; their answer.
pub(crate) async fn elicit(
    peer: &Peer<RoleServer>,
    message: String,
    schema: Value,
) -> Result<Answer, AskError> {
    check(client_of(peer), Kind::Form)?;
    let params = form_params(&message, &schema)?;
    let result = peer.create_elicitation(params).await.map_err(|e| AskError::Failed(e.to_string()))?;
    answer_of(&result.action, result.content)
}

/// Sends the user to `url` with `message` saying why (2025-11-25's URL mode, with a fresh
/// `elicitationId`); whether they agreed to open it.
pub(crate) async fn elicit_url(
    peer: &Peer<RoleServer>,
    message: String,
    url: String,
) -> Result<Answer<()>, AskError> {
    check(client_of(peer), Kind::Url)?;
    let params = url_params(&message, &url, &fresh_id()?)?;
    let result = peer.create_elicitation(params).await.map_err(|e| AskError::Failed(e.to_string()))?;
    Ok(match answer_of(&result.action, None)? {
        Answer::Accept(_) => Answer::Accept(()),
        Answer::Decline => Answer::Decline,
        Answer::Cancel => Answer::Cancel,
    })
}

/// Asks the client's model to answer `prompt`; the text of its answer.
pub(crate) async fn sample(
    peer: &Peer<RoleServer>,
    prompt: String,
    max_tokens: u32,
) -> Result<String, AskError> {
    check(client_of(peer), Kind::Sample)?;
    let params = sample_params(&prompt, max_tokens)?;
    let result = peer.create_message(params).await.map_err(|e| AskError::Failed(e.to_string()))?;
    sampled_text(&result)
}

/// Asks the client for its roots.
pub(crate) async fn roots(peer: &Peer<RoleServer>) -> Result<Vec<toolcall_runtime::Root>, AskError> {
    check(client_of(peer), Kind::Roots)?;
    let result = peer.list_roots().await.map_err(|e| AskError::Failed(e.to_string()))?;
    Ok(roots_of(&result))
}

/// The roots of a `roots/list` result, as a tool gets them.
pub(crate) fn roots_of(result: &rmcp::model::ListRootsResult) -> Vec<toolcall_runtime::Root> {
    result
        .roots
        .iter()
        .map(|root| toolcall_runtime::Root { uri: root.uri.clone(), name: root.name.clone() })
        .collect()
}

/// Whether the client (its revision, what it can be asked, whether it declared
/// elicitation at all) can be asked `kind` over a server-to-client request.
fn check(client: Option<(ProtocolVersion, Can, bool)>, kind: Kind) -> Result<(), AskError> {
    let Some((version, can, elicitation)) = client else {
        let what = can_not(kind);
        return Err(AskError::Unsupported(format!("the client has not said what it supports; {what}")));
    };
    if is_at_least(&version, &ProtocolVersion::V_2026_07_28) {
        // Its calls ask through input-required results (`rounds`), never through here.
        return Err(AskError::Unsupported(format!(
            "protocol {version} has no server-to-client requests; {}",
            can_not(kind)
        )));
    }
    match can.refusal(kind, elicitation) {
        Some(why) => Err(AskError::Unsupported(why)),
        None => Ok(()),
    }
}

/// What cannot be done, said for `kind`.
pub(crate) fn can_not(kind: Kind) -> &'static str {
    match kind {
        Kind::Form => "no elicitation (asking the user)",
        Kind::Url => "no URL elicitation (sending the user to a page)",
        Kind::Sample => "no sampling (asking the client's model)",
        Kind::Roots => "no roots (the directories it lets the server see)",
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn capabilities(value: Value) -> ClientCapabilities {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn an_empty_elicitation_capability_is_forms_only() {
        let can = |value| Can::of(&capabilities(value));
        assert_eq!(can(json!({})), Can::default());
        assert_eq!(can(json!({"elicitation": {}})), Can { form: true, ..Can::default() });
        assert_eq!(can(json!({"elicitation": {"url": {}}})), Can { url: true, ..Can::default() });
        let both = can(json!({"elicitation": {"form": {}, "url": {}}, "sampling": {}}));
        assert_eq!(both, Can { form: true, url: true, sampling: true, roots: false });
    }

    #[test]
    fn a_client_that_cannot_be_asked_is_told_why() {
        let v2025 = ProtocolVersion::V_2025_11_25;
        let forms = Can { form: true, ..Can::default() };
        assert_eq!(check(Some((v2025.clone(), forms, true)), Kind::Form), Ok(()));
        let refused = |can, elicitation, kind| match check(Some((v2025.clone(), can, elicitation)), kind) {
            Err(AskError::Unsupported(why)) => why,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            refused(forms, true, Kind::Url),
            "the client did not declare URL elicitation (sending the user to a page)"
        );
        assert_eq!(
            refused(Can::default(), false, Kind::Form),
            "the client did not declare elicitation (asking the user)"
        );
        let urls = Can { url: true, ..Can::default() };
        assert_eq!(
            refused(urls, true, Kind::Form),
            "the client did not declare form elicitation (asking the user)"
        );
        assert!(refused(forms, true, Kind::Sample).contains("did not declare sampling"));
        let Err(AskError::Unsupported(why)) = check(None, Kind::Url) else { panic!() };
        assert!(why.starts_with("the client has not said what it supports"), "{why}");
    }

    #[test]
    fn a_page_must_be_an_absolute_url() {
        for good in ["https://example.com/sign-in?x=1", "http://127.0.0.1:8080/", "urn:isbn:0451450523"] {
            assert!(is_absolute_url(good), "{good}");
            let params = serde_json::to_value(url_params("Sign in", good, "id-1").unwrap()).unwrap();
            assert_eq!(
                params,
                json!({"mode": "url", "message": "Sign in", "url": good, "elicitationId": "id-1"})
            );
        }
        for bad in ["", "example.com", "/relative", "https:", "1http://x", "https://a b", "https://x\n"] {
            assert!(!is_absolute_url(bad), "{bad:?}");
            assert!(matches!(url_params("m", bad, "i"), Err(AskError::Failed(_))), "{bad:?}");
        }
    }

    #[test]
    fn elicitation_ids_are_fresh() {
        let (a, b) = (fresh_id().unwrap(), fresh_id().unwrap());
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
    }
}
