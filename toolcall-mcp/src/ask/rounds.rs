//! Protocol 2026-07-28's multi round-trip requests (SEP-2322) for tools that ask.
//!
//! 2026-07-28 has no server-to-client requests: a server that needs the user's answer
//! ends the call with an `InputRequiredResult` (the question in `inputRequests`, and a
//! `requestState`), and the client calls the tool again with the answer in
//! `inputResponses` and the state echoed back. A tool here is plain code that awaits
//! [`Progress::elicit`](toolcall_runtime::Progress::elicit) and goes on, so the server
//! replays it:
//!
//! 1. The call runs the tool with a [`Rounds`] behind its `Progress`. Each question the
//!    tool asks takes the next place in order; a place that the state answers, for the
//!    same question, is answered at once from it.
//! 2. The first question with no answer ends the call: its future never resolves, the
//!    call's future is dropped (as on a timeout), and the client gets an
//!    `InputRequiredResult` with that one question (key `q<place>`) and a sealed state:
//!    the answers so far and what the question was.
//! 3. The retry opens the state, adds the client's answer to that question, and runs the
//!    tool again from the start: its questions are now answered, in order, up to the next
//!    new one (another round) or its result.
//!
//! So a tool runs once per round, from its start: it must ask before it changes anything
//! (`remove_note` asks before it removes), and code before a question runs again on each
//! round. A question whose text, schema, page or prompt differs from the one answered in
//! its place (the tool read something that changed) is asked again, with no answer reused.
//!
//! The state is sealed with rmcp's [`RequestStateCodec`] (HMAC-SHA256, `rs1.` format) under
//! the server's key ([`McpServer::request_state_key`](crate::McpServer::request_state_key);
//! a random one per server by default), bound to the caller's identity, the tool's name and
//! its arguments (authenticated, not stored), and it expires
//! ([`McpServer::request_state_ttl`](crate::McpServer::request_state_ttl)). A state that
//! was forged or altered, was issued for another caller, tool or arguments, or expired is
//! a JSON-RPC error (-32602), the same one whatever the reason. It is signed, not
//! encrypted: it holds what the client already sent (its answers) and digests of the
//! questions, nothing secret. A state does not stop a replay within its lifetime (the
//! specification leaves single use to servers that need it): one answered state may be
//! sent again, and the tool asked the same way gets the same answers.
//!
//! Limits: one question per round (a tool asks one at a time; of questions asked at once,
//! the first ends the round); at most [`MAX_QUESTIONS`] per call, past which a question
//! fails; the sealed state grows with the answers (the HTTP body limit bounds it).

// rmcp marks sampling deprecated (SEP-2577, a future protocol); 2026-07-28 still asks for
// it as an input request.
#![allow(deprecated)]

use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, CreateMessageRequest, CreateMessageResult, ElicitRequest,
    ErrorData, InputRequest, InputRequests, InputRequiredResult, RequestStateCodec, SealOptions,
};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use tokio::sync::Notify;
use toolcall_runtime::{Answer, AskError, AskFuture};

use super::{Can, Kind};

/// The most questions one call may ask (answered ones included); past it, a question
/// fails ([`AskError::Failed`]).
pub(crate) const MAX_QUESTIONS: usize = 32;

/// The version of what a sealed state holds.
const FORMAT: u64 = 2;

/// What seals and opens the states of one server (and its clones): rmcp's codec under the
/// server's key, and how long a state stays valid.
#[derive(Clone, Debug)]
pub(crate) struct Sealer {
    /// `None` when no key could be made (no randomness): then 2026-07-28 clients cannot be
    /// asked, and say why.
    codec: Option<RequestStateCodec>,
    pub(crate) ttl: Duration,
}

impl Sealer {
    /// A sealer with a random key of its own (32 bytes from the operating system).
    pub(crate) fn random(ttl: Duration) -> Sealer {
        let mut key = [0u8; 32];
        match getrandom::fill(&mut key) {
            Ok(()) => Sealer::with_key(key, ttl),
            Err(error) => {
                log::error!(
                    "no random key to seal requestState ({error}): 2026-07-28 clients cannot be asked"
                );
                Sealer { codec: None, ttl }
            }
        }
    }

    /// A sealer with `key`: every server that shares it opens the others' states.
    pub(crate) fn with_key(key: [u8; 32], ttl: Duration) -> Sealer {
        Sealer { codec: RequestStateCodec::try_new(key.to_vec()).ok(), ttl }
    }

    /// The same key, with states valid for `ttl`.
    pub(crate) fn lasting(&self, ttl: Duration) -> Sealer {
        Sealer { codec: self.codec.clone(), ttl }
    }
}

/// What a state is bound to: the caller's identity, the tool and a digest of its arguments.
/// Authenticated with the state, never stored in it.
pub(crate) fn binding(identity: &str, tool: &str, arguments: &Value) -> Vec<u8> {
    let mut hasher = Sha256::new();
    canonical(arguments, &mut |text| hasher.update(text.as_bytes()));
    let arguments: String = hasher.finalize().iter().map(|b| format!("{b:02x}")).collect();
    format!("toolcall-mcp tools/call\n{}:{identity}\n{}:{tool}\n{arguments}", identity.len(), tool.len())
        .into_bytes()
}

/// Writes `value` to `out` as JSON text with every object's keys sorted: the same
/// arguments give the same text whatever order the client wrote them in.
fn canonical(value: &Value, out: &mut impl FnMut(&str)) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out("{");
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out(",");
                }
                out(&serde_json::to_string(key).unwrap_or_default());
                out(":");
                canonical(map.get(key).unwrap_or(&Value::Null), out);
            }
            out("}");
        }
        Value::Array(items) => {
            out("[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out(",");
                }
                canonical(item, out);
            }
            out("]");
        }
        other => out(&other.to_string()),
    }
}

/// A question's digest: what the tool asked (its kind and every word of it), hashed.
fn digest(kind: Kind, question: &Value) -> String {
    let mut hasher = Sha256::new();
    hasher.update(kind.as_str().as_bytes());
    hasher.update(b"\n");
    canonical(question, &mut |text| hasher.update(text.as_bytes()));
    hasher.finalize().iter().take(16).map(|b| format!("{b:02x}")).collect()
}

/// The error of a `requestState` that does not open: one answer whatever the reason.
fn bad_state() -> ErrorData {
    ErrorData::invalid_params(
        "requestState was not issued by this server for this caller, tool and arguments, was altered, \
         or has expired; call the tool again without requestState and inputResponses",
        Some(json!({"error": "invalid_request_state"})),
    )
}

/// One answer the state holds: the digest of the question it answers, and the answer.
#[derive(Clone, Debug, PartialEq)]
struct Answered {
    question: String,
    /// `{"action": "accept", "content": {..}}` / `{"action": "decline"}` for elicitation,
    /// `{"text": ".."}` / `{"failed": ".."}` for sampling.
    answer: Value,
}

/// A question a round ended on.
#[derive(Debug)]
struct Pending {
    place: usize,
    /// Its key in `inputRequests`: the tool's ([`Progress::keyed`]), else `q<place>`.
    ///
    /// [`Progress::keyed`]: toolcall_runtime::Progress::keyed
    key: String,
    kind: Kind,
    question: String,
    request: InputRequest,
}

/// The questions of one call and their answers: the `Progress` sink of a 2026-07-28 call
/// asks here.
#[derive(Debug)]
pub(crate) struct Rounds {
    /// The answers the state holds, by the place of their question.
    answers: std::collections::BTreeMap<usize, Answered>,
    /// What the client declared for this request; `None`: it declared nothing.
    can: Option<(Can, bool)>,
    sealing: bool,
    asking: Mutex<Asking>,
    asked: Notify,
    /// The first kind of question the client did not declare it could answer: a call
    /// that then fails needed a capability the client lacks ([`Rounds::missing`]).
    missing: Mutex<Option<Kind>>,
    /// Whether the call becomes a task where its tool detaches
    /// (`ToolMeta::task_from_detach`, for a client that takes tasks).
    #[cfg(feature = "tasks")]
    detachable: std::sync::atomic::AtomicBool,
    /// Woken when the tool detached and the call should go on as a task.
    #[cfg(feature = "tasks")]
    detached: Notify,
}

#[derive(Debug, Default)]
struct Asking {
    /// The place of the next question.
    next: usize,
    /// The questions with no answer, in the order asked: the round ends on them (several
    /// when the tool asked them at once).
    pending: Vec<Pending>,
    /// The key the next question carries ([`Rounds::name_next`]).
    next_key: Option<String>,
}

/// What a question finds.
enum Found {
    /// Its answer, from the state.
    Answered(Value),
    /// No answer: the round ends on it (or on one asked before it).
    Asked,
}

impl Rounds {
    /// The rounds of a call made with `request` by a client that declared `capabilities`:
    /// the answers its `requestState` holds (opened against `binding`), with its answer to
    /// the question the last round ended on. A state that does not open, or an answer that
    /// is not one, is the call's JSON-RPC error.
    pub(crate) fn begin(
        sealer: &Sealer,
        capabilities: Option<&ClientCapabilities>,
        request: &CallToolRequestParams,
        binding: &[u8],
    ) -> Result<Rounds, ErrorData> {
        let (state, responses) = (request.request_state.as_ref(), request.input_responses.as_ref());
        Rounds::begin_with(sealer, capabilities, state, responses, binding)
    }

    /// [`Rounds::begin`] of any request that carries a `requestState` and
    /// `inputResponses` (`prompts/get` as well as `tools/call`).
    pub(crate) fn begin_with(
        sealer: &Sealer,
        capabilities: Option<&ClientCapabilities>,
        request_state: Option<&String>,
        input_responses: Option<&rmcp::model::InputResponses>,
        binding: &[u8],
    ) -> Result<Rounds, ErrorData> {
        let can = capabilities.map(|c| (Can::of(c), c.elicitation.is_some()));
        let mut rounds = Rounds {
            answers: std::collections::BTreeMap::new(),
            can,
            sealing: sealer.codec.is_some(),
            asking: Mutex::default(),
            asked: Notify::new(),
            missing: Mutex::default(),
            #[cfg(feature = "tasks")]
            detachable: std::sync::atomic::AtomicBool::new(false),
            #[cfg(feature = "tasks")]
            detached: Notify::new(),
        };
        // Responses without a state answer nothing this server asked: ignored.
        let Some(sealed) = request_state else { return Ok(rounds) };
        let Some(codec) = &sealer.codec else { return Err(bad_state()) };
        let state: Value = codec.open_json_with(sealed, binding).map_err(|error| {
            log::debug!("a requestState was refused: {error}");
            bad_state()
        })?;
        let (answers, pending) = read_state(&state).ok_or_else(bad_state)?;
        rounds.answers = answers;
        let responses = input_responses;
        for (place, key, kind, question) in pending {
            // No answer to it: it is asked again (the specification: ask for what is
            // missing rather than fail).
            if let Some(response) = responses.and_then(|r| r.get(&key)) {
                let answer = read_response(kind, response).map_err(|why| {
                    ErrorData::invalid_params(
                        format!("inputResponses.{key}: {why}"),
                        Some(json!({"error": "invalid_input_response", "key": key})),
                    )
                })?;
                rounds.answers.insert(place, Answered { question, answer });
            }
        }
        Ok(rounds)
    }

    /// Keeps `kind` as the capability the call needed and the client lacks, unless an
    /// earlier question's is kept.
    fn note_missing(&self, kind: Kind) {
        self.missing.lock().unwrap_or_else(PoisonError::into_inner).get_or_insert(kind);
    }

    /// Error -32021 for a call whose tool failed (saying `failed`) after asking what the
    /// client did not declare it could answer (SEP-2575: a server must not rely on a
    /// capability the client did not declare, and says which it needed); `None` when it
    /// asked nothing the client lacked.
    pub(crate) fn missing(&self, failed: &str) -> Option<ErrorData> {
        let kind = (*self.missing.lock().unwrap_or_else(PoisonError::into_inner))?;
        let (name, capability) = match kind {
            Kind::Form => ("elicitation", json!({"elicitation": {"form": {}}})),
            Kind::Url => ("elicitation (url)", json!({"elicitation": {"url": {}}})),
            Kind::Sample => ("sampling", json!({"sampling": {}})),
            Kind::Roots => ("roots", json!({"roots": {}})),
        };
        Some(ErrorData::new(
            rmcp::model::ErrorCode(-32021),
            format!(
                "the tool needs the client capability {name}, which this request did not declare: {failed}"
            ),
            Some(json!({"requiredCapabilities": capability, "toolError": failed})),
        ))
    }

    /// The tool's future was polled: if it asked questions with no answer, the round ends
    /// on them (all of them, however many it asked in that poll).
    pub(crate) fn polled(&self) {
        if !self.asking.lock().unwrap_or_else(PoisonError::into_inner).pending.is_empty() {
            self.asked.notify_one();
        }
    }

    /// Resolves once a question with no answer was asked: the round ends on it.
    pub(crate) async fn asked(&self) {
        self.asked.notified().await;
    }

    /// The input-required result of a round that ended on a question: that question, and
    /// the state sealed against `binding` (the answers up to it, and what it asked).
    pub(crate) fn input_required(
        &self,
        sealer: &Sealer,
        binding: &[u8],
    ) -> Result<InputRequiredResult, ErrorData> {
        let asking = self.asking.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(codec) = &sealer.codec else {
            return Err(ErrorData::internal_error("a round ended with no key to seal its state", None));
        };
        if asking.pending.is_empty() {
            return Err(ErrorData::internal_error("a round ended with no question to send", None));
        }
        // The answers the tool got this round: the ones it will get again next round.
        let answers: Vec<Value> = self
            .answers
            .iter()
            .filter(|(place, _)| **place < asking.next)
            .map(|(place, a)| json!({"p": place, "q": a.question, "a": a.answer}))
            .collect();
        let pending: Vec<Value> = asking
            .pending
            .iter()
            .map(|p| json!({"p": p.place, "key": p.key, "kind": p.kind.as_str(), "q": p.question}))
            .collect();
        let state = json!({"v": FORMAT, "answers": answers, "pending": pending});
        let options = SealOptions::new().associated_data(binding).ttl(sealer.ttl);
        let sealed = codec.seal_json_with(&state, &options).map_err(|e| {
            ErrorData::internal_error(format!("the request state could not be sealed: {e}"), None)
        })?;
        let requests: InputRequests =
            asking.pending.iter().map(|p| (p.key.clone(), p.request.clone())).collect();
        Ok(InputRequiredResult::new(Some(requests), Some(sealed)))
    }

    /// Asks the user `message` with the form `schema`.
    pub(crate) fn elicit(&self, message: &str, schema: &Value) -> AskFuture<Answer> {
        let asked = self.ask(Kind::Form, json!({"message": message, "schema": schema}), || {
            Ok(InputRequest::Elicitation(ElicitRequest::new(super::form_params(message, schema)?)))
        });
        settle(asked, |answer| elicited(answer, true))
    }

    /// Sends the user to `url`.
    pub(crate) fn elicit_url(&self, message: &str, url: &str) -> AskFuture<Answer<()>> {
        let asked = self.ask(Kind::Url, json!({"message": message, "url": url}), || {
            // 2026-07-28 has no `elicitationId`: rmcp writes the empty one as `""`.
            Ok(InputRequest::Elicitation(ElicitRequest::new(super::url_params(message, url, "")?)))
        });
        settle(asked, visited)
    }

    /// Asks the client's model to answer `prompt`.
    pub(crate) fn sample(&self, prompt: &str, max_tokens: u32) -> AskFuture<String> {
        let asked = self.ask(Kind::Sample, json!({"prompt": prompt, "maxTokens": max_tokens}), || {
            Ok(InputRequest::CreateMessage(CreateMessageRequest::new(super::sample_params(
                prompt, max_tokens,
            )?)))
        });
        settle(asked, sampled)
    }

    /// Makes the call end where its tool detaches ([`Rounds::detach`]), to go on as a task.
    #[cfg(feature = "tasks")]
    pub(crate) fn detach_into_task(&self) {
        self.detachable.store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// The tool detached: when the call may become a task, the round ends here (the future
    /// never resolves; the call is dropped and run again as a task, with these answers);
    /// otherwise it goes on at once.
    #[cfg(feature = "tasks")]
    pub(crate) fn detach(&self) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> {
        if !self.detachable.load(std::sync::atomic::Ordering::SeqCst) {
            return Box::pin(std::future::ready(()));
        }
        self.detached.notify_one();
        Box::pin(std::future::pending())
    }

    /// The rounds as they were before the tool ran (no question asked yet, no detaching),
    /// for its run again as a task from its start.
    #[cfg(feature = "tasks")]
    pub(crate) fn rewind(&self) {
        self.detachable.store(false, std::sync::atomic::Ordering::SeqCst);
        *self.asking.lock().unwrap_or_else(PoisonError::into_inner) = Asking::default();
    }

    /// Resolves once the tool detached into a task ([`Rounds::detach`]).
    #[cfg(feature = "tasks")]
    pub(crate) async fn detached(&self) {
        self.detached.notified().await;
    }

    /// The next question carries `key` ([`toolcall_runtime::Progress::keyed`]).
    pub(crate) fn name_next(&self, key: &str) {
        self.asking.lock().unwrap_or_else(PoisonError::into_inner).next_key = Some(key.to_owned());
    }

    /// The answer the state holds to the next question, when it asks `question` (of
    /// `kind`), which then takes its place; `None` (and no place taken) when it holds none.
    /// A task whose tool detached after its rounds asks here first
    /// ([`crate::tasks::run`]).
    #[cfg(feature = "tasks")]
    pub(crate) fn answered(&self, kind: Kind, question: &Value) -> Option<Value> {
        let question = digest(kind, question);
        let mut asking = self.asking.lock().unwrap_or_else(PoisonError::into_inner);
        let answer = self.answers.get(&asking.next).filter(|a| a.question == question)?.answer.clone();
        asking.next += 1;
        Some(answer)
    }

    /// Asks the client for its roots.
    pub(crate) fn roots(&self) -> AskFuture<Vec<toolcall_runtime::Root>> {
        let asked = self.ask(Kind::Roots, json!({"roots": true}), || {
            Ok(InputRequest::ListRoots(rmcp::model::ListRootsRequest::default()))
        });
        settle(asked, read_roots)
    }

    /// The next question, of `kind`, asking `question` (built as `request`): its answer
    /// from the state, or the round ends on it.
    fn ask(
        &self,
        kind: Kind,
        question: Value,
        request: impl FnOnce() -> Result<InputRequest, AskError>,
    ) -> Result<Found, AskError> {
        let Some((can, elicitation)) = self.can else {
            self.note_missing(kind);
            let what = super::can_not(kind);
            return Err(AskError::Unsupported(format!("the client has not said what it supports; {what}")));
        };
        if let Some(why) = can.refusal(kind, elicitation) {
            self.note_missing(kind);
            return Err(AskError::Unsupported(why));
        }
        if !self.sealing {
            let why = "this server has no key to seal requestState with (no randomness); it cannot ask";
            return Err(AskError::Unsupported(why.to_owned()));
        }
        let request = request()?;
        let question = digest(kind, &question);
        let mut asking = self.asking.lock().unwrap_or_else(PoisonError::into_inner);
        let key = asking.next_key.take();
        let place = asking.next;
        if place >= MAX_QUESTIONS {
            return Err(AskError::Failed(format!("a call may ask at most {MAX_QUESTIONS} questions")));
        }
        asking.next += 1;
        if let Some(answered) = self.answers.get(&place).filter(|a| a.question == question) {
            return Ok(Found::Answered(answered.answer.clone()));
        }
        let key = key.unwrap_or_else(|| format!("q{place}"));
        if asking.pending.iter().any(|p| p.key == key) {
            return Err(AskError::Failed(format!("two questions asked at once carry the key {key:?}")));
        }
        asking.pending.push(Pending { place, key, kind, question, request });
        // The round ends once the poll that asked is over ([`Rounds::polled`]): questions
        // asked at once (`join!`) are all in it.
        Ok(Found::Asked)
    }
}

/// A `Progress` sink that asks a request's rounds and reports nowhere: what a prompt
/// function that takes `&Progress` gets on 2026-07-28.
#[cfg(feature = "prompts")]
pub(crate) struct RoundsSink(pub(crate) std::sync::Arc<Rounds>);

#[cfg(feature = "prompts")]
impl toolcall_runtime::ProgressSink for RoundsSink {
    fn progress(&self, _: u64, _: Option<u64>, _: &str) {}

    fn log(&self, _: toolcall_runtime::LogLevel, _: &str) {}

    fn elicit(&self, message: &str, schema: &Value) -> AskFuture<Answer> {
        self.0.elicit(message, schema)
    }

    fn elicit_url(&self, message: &str, url: &str) -> AskFuture<Answer<()>> {
        self.0.elicit_url(message, url)
    }

    fn sample(&self, prompt: &str, max_tokens: u32) -> AskFuture<String> {
        self.0.sample(prompt, max_tokens)
    }

    fn roots(&self) -> AskFuture<Vec<toolcall_runtime::Root>> {
        self.0.roots()
    }

    fn name_next(&self, key: &str) {
        self.0.name_next(key);
    }
}

/// The future of a question: its answer read by `read`, never (the round ends on it), or
/// its error at once.
fn settle<T: Send + 'static>(
    found: Result<Found, AskError>,
    read: impl FnOnce(&Value) -> Result<T, AskError>,
) -> AskFuture<T> {
    match found {
        Ok(Found::Answered(answer)) => Box::pin(std::future::ready(read(&answer))),
        // The call is dropped once the round ends; until then the tool waits.
        Ok(Found::Asked) => Box::pin(std::future::pending()),
        Err(error) => Box::pin(std::future::ready(Err(error))),
    }
}

/// An elicitation's answer from the state: accept (with the form's values when `form`),
/// decline or cancel.
pub(crate) fn elicited(answer: &Value, form: bool) -> Result<Answer, AskError> {
    match answer.get("action").and_then(Value::as_str) {
        Some("accept") if form => match answer.get("content") {
            Some(Value::Object(values)) => Ok(Answer::Accept(values.clone())),
            _ => Ok(Answer::Accept(Map::new())),
        },
        Some("accept") => Ok(Answer::Accept(Map::new())),
        Some("decline") => Ok(Answer::Decline),
        Some("cancel") => Ok(Answer::Cancel),
        _ => Err(AskError::Failed(format!("the state holds no answer of the user: {answer}"))),
    }
}

/// A page's answer as the state keeps it: whether the user agreed to open it.
pub(crate) fn visited(answer: &Value) -> Result<Answer<()>, AskError> {
    Ok(match elicited(answer, false)? {
        Answer::Accept(_) => Answer::Accept(()),
        Answer::Decline => Answer::Decline,
        Answer::Cancel => Answer::Cancel,
    })
}

/// The model's answer as the state keeps it (`{"text": ..}` or `{"failed": ..}`).
pub(crate) fn sampled(answer: &Value) -> Result<String, AskError> {
    match (answer.get("text"), answer.get("failed")) {
        (Some(Value::String(text)), _) => Ok(text.clone()),
        (_, Some(Value::String(why))) => Err(AskError::Failed(why.clone())),
        _ => Err(AskError::Failed(format!("the state holds no answer of the model: {answer}"))),
    }
}

/// The roots of an answer as the state keeps it (`{"roots": [..]}`).
pub(crate) fn read_roots(answer: &Value) -> Result<Vec<toolcall_runtime::Root>, AskError> {
    let roots = answer.get("roots").cloned().unwrap_or(Value::Null);
    serde_json::from_value(roots)
        .map_err(|e| AskError::Failed(format!("the client's roots do not read: {e}")))
}

/// What a (verified) state holds: the answers by place, and the questions the round
/// ended on (each one's place, key, kind and digest). `None` when it is not a state of
/// this format.
#[allow(clippy::type_complexity)]
fn read_state(
    state: &Value,
) -> Option<(std::collections::BTreeMap<usize, Answered>, Vec<(usize, String, Kind, String)>)> {
    if state.get("v").and_then(Value::as_u64) != Some(FORMAT) {
        return None;
    }
    let place = |v: &Value| v.get("p")?.as_u64().and_then(|p| usize::try_from(p).ok());
    let answers = state
        .get("answers")?
        .as_array()?
        .iter()
        .map(|a| {
            let answered =
                Answered { question: a.get("q")?.as_str()?.to_owned(), answer: a.get("a")?.clone() };
            Some((place(a)?, answered))
        })
        .collect::<Option<std::collections::BTreeMap<_, _>>>()?;
    let pending = state
        .get("pending")?
        .as_array()?
        .iter()
        .map(|p| {
            Some((
                place(p)?,
                p.get("key")?.as_str()?.to_owned(),
                Kind::parse(p.get("kind")?.as_str()?)?,
                p.get("q")?.as_str()?.to_owned(),
            ))
        })
        .collect::<Option<Vec<_>>>()?;
    Some((answers, pending))
}

/// The client's response to a question of `kind`, checked and kept as the state keeps it.
pub(crate) fn read_response(kind: Kind, response: &Value) -> Result<Value, String> {
    if kind == Kind::Roots {
        let result: rmcp::model::ListRootsResult = serde_json::from_value(response.clone())
            .map_err(|e| format!("expected the result of roots/list: {e}"))?;
        return Ok(json!({"roots": super::roots_of(&result)}));
    }
    if kind == Kind::Sample {
        let result: CreateMessageResult = serde_json::from_value(response.clone())
            .map_err(|e| format!("expected the result of sampling/createMessage: {e}"))?;
        return Ok(match super::sampled_text(&result) {
            Ok(text) => json!({"text": text}),
            Err(error) => json!({"failed": match error {
                AskError::Failed(why) | AskError::Unsupported(why) => why,
            }}),
        });
    }
    let expected = r#"expected an elicitation result: {"action": "accept" | "decline" | "cancel", ..}"#;
    let action = response.get("action").and_then(Value::as_str).ok_or(expected)?;
    match action {
        "accept" if kind == Kind::Form => match response.get("content") {
            None | Some(Value::Null) => Ok(json!({"action": "accept", "content": {}})),
            Some(content @ Value::Object(_)) => Ok(json!({"action": "accept", "content": content})),
            Some(other) => Err(format!("the form's content must be an object, got {other}")),
        },
        "accept" | "decline" | "cancel" => Ok(json!({"action": action})),
        other => Err(format!("{expected}, got action {other:?}")),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::task::{Context, Poll, Waker};

    use rmcp::model::InputResponses;

    use super::*;

    fn poll<T>(future: &mut AskFuture<T>) -> Poll<Result<T, AskError>> {
        future.as_mut().poll(&mut Context::from_waker(Waker::noop()))
    }

    fn everything() -> ClientCapabilities {
        serde_json::from_value(json!({"elicitation": {"form": {}, "url": {}}, "sampling": {}})).unwrap()
    }

    const SCHEMA: &str = r#"{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}"#;

    fn call(state: Option<&str>, responses: Value) -> CallToolRequestParams {
        let mut request = CallToolRequestParams::new("greet");
        request.request_state = state.map(str::to_owned);
        request.input_responses = serde_json::from_value::<Option<InputResponses>>(responses).unwrap();
        request
    }

    /// Runs the rounds of a "tool" that asks a form, then a page, then the model, against
    /// `answers` (one response per round); every round's result.
    #[test]
    fn each_round_answers_the_questions_so_far_and_ends_on_the_next() {
        let sealer = Sealer::random(Duration::from_secs(60));
        let bound = binding("ada", "greet", &json!({"b": 1, "a": [1, {"y": 2, "x": 1}]}));
        let schema: Value = serde_json::from_str(SCHEMA).unwrap();
        let responses = [
            json!({"action": "accept", "content": {"name": "Ada"}}),
            json!({"action": "decline"}),
            json!({"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"}),
        ];
        let (mut state, mut response) = (None::<String>, json!(null));
        for (round, next) in responses.iter().enumerate() {
            let rounds =
                Rounds::begin(&sealer, Some(&everything()), &call(state.as_deref(), response), &bound)
                    .unwrap();
            let mut form = rounds.elicit("Name?", &schema);
            if round == 0 {
                assert!(poll(&mut form).is_pending());
            } else {
                let Poll::Ready(Ok(Answer::Accept(values))) = poll(&mut form) else {
                    panic!("round {round}")
                };
                assert_eq!(Value::Object(values), json!({"name": "Ada"}));
                let mut page = rounds.elicit_url("Sign in", "https://example.com/in");
                if round == 1 {
                    assert!(poll(&mut page).is_pending());
                } else {
                    assert!(matches!(poll(&mut page), Poll::Ready(Ok(Answer::Decline))));
                    assert!(poll(&mut rounds.sample("Say hi", 10)).is_pending());
                }
            }
            let result = serde_json::to_value(rounds.input_required(&sealer, &bound).unwrap()).unwrap();
            assert_eq!(result["resultType"], "input_required");
            let key = format!("q{round}");
            let asked = &result["inputRequests"][&key];
            let method = ["elicitation/create", "elicitation/create", "sampling/createMessage"][round];
            assert_eq!(asked["method"], method, "{result}");
            state = Some(result["requestState"].as_str().unwrap().to_owned());
            response = json!({ key: next });
        }
        // The last answer: every question is answered, none is pending.
        let rounds =
            Rounds::begin(&sealer, Some(&everything()), &call(state.as_deref(), response), &bound).unwrap();
        assert!(matches!(poll(&mut rounds.elicit("Name?", &schema)), Poll::Ready(Ok(Answer::Accept(_)))));
        assert!(matches!(
            poll(&mut rounds.elicit_url("Sign in", "https://example.com/in")),
            Poll::Ready(Ok(Answer::Decline))
        ));
        assert!(matches!(poll(&mut rounds.sample("Say hi", 10)), Poll::Ready(Ok(text)) if text == "hi"));
        // A changed question is asked again, with no answer reused.
        let rounds =
            Rounds::begin(&sealer, Some(&everything()), &call(state.as_deref(), json!({})), &bound).unwrap();
        assert!(matches!(poll(&mut rounds.elicit("Name?", &schema)), Poll::Ready(Ok(_))));
        assert!(poll(&mut rounds.elicit_url("Sign in", "https://example.com/other")).is_pending());
        let result = serde_json::to_value(rounds.input_required(&sealer, &bound).unwrap()).unwrap();
        assert_eq!(result["inputRequests"]["q1"]["params"]["url"], "https://example.com/other");
    }

    #[test]
    fn a_state_opens_only_for_its_caller_tool_and_arguments_unaltered_and_in_time() {
        let sealer = Sealer::random(Duration::from_secs(60));
        let bound = binding("ada", "greet", &json!({"a": 1, "b": 2}));
        let rounds = Rounds::begin(&sealer, Some(&everything()), &call(None, json!(null)), &bound).unwrap();
        drop(rounds.elicit_url("Sign in", "https://example.com/in"));
        let state = rounds.input_required(&sealer, &bound).unwrap().request_state.unwrap();
        let answer = json!({"q0": {"action": "accept"}});
        let open = |sealer: &Sealer, state: &str, bound: &[u8]| {
            Rounds::begin(sealer, Some(&everything()), &call(Some(state), answer.clone()), bound)
                .map(|r| r.answers)
        };
        assert_eq!(
            open(&sealer, &state, &binding("ada", "greet", &json!({"b": 2, "a": 1}))).unwrap().len(),
            1
        );
        let mut tampered = state.clone().into_bytes();
        let middle = tampered.len() / 2;
        tampered[middle] = if tampered[middle] == b'A' { b'B' } else { b'A' };
        let tampered = String::from_utf8(tampered).unwrap();
        let others = [
            binding("grace", "greet", &json!({"a": 1, "b": 2})),
            binding("ada", "other", &json!({"a": 1, "b": 2})),
            binding("ada", "greet", &json!({"a": 1, "b": 3})),
        ];
        for (state, bound) in [(tampered.as_str(), bound.as_slice()), ("rs1.e30.e30", &bound), ("", &bound)]
            .into_iter()
            .chain(others.iter().map(|b| (state.as_str(), b.as_slice())))
        {
            let error = open(&sealer, state, bound).unwrap_err();
            assert_eq!(error.code, rmcp::model::ErrorCode::INVALID_PARAMS);
            assert!(
                error.message.contains("requestState was not issued by this server"),
                "{}",
                error.message
            );
        }
        // Another key; an expired state.
        assert!(open(&Sealer::random(Duration::from_secs(60)), &state, &bound).is_err());
        let brief = Sealer { ttl: Duration::from_millis(1), ..sealer.clone() };
        let rounds = Rounds::begin(&brief, Some(&everything()), &call(None, json!(null)), &bound).unwrap();
        drop(rounds.elicit_url("Sign in", "https://example.com/in"));
        let state = rounds.input_required(&brief, &bound).unwrap().request_state.unwrap();
        std::thread::sleep(Duration::from_millis(20));
        assert!(open(&sealer, &state, &bound).is_err(), "expired");
        // The same key opens another server's state.
        let shared = Sealer::with_key([7; 32], Duration::from_secs(60));
        let rounds = Rounds::begin(&shared, Some(&everything()), &call(None, json!(null)), &bound).unwrap();
        drop(rounds.elicit_url("Sign in", "https://example.com/in"));
        let state = rounds.input_required(&shared, &bound).unwrap().request_state.unwrap();
        assert!(open(&Sealer::with_key([7; 32], Duration::from_secs(5)), &state, &bound).is_ok());
    }

    #[test]
    fn responses_that_are_not_answers_are_refused_and_missing_ones_asked_again() {
        let sealer = Sealer::random(Duration::from_secs(60));
        let bound = binding("", "greet", &json!({}));
        let schema: Value = serde_json::from_str(SCHEMA).unwrap();
        let rounds = Rounds::begin(&sealer, Some(&everything()), &call(None, json!(null)), &bound).unwrap();
        drop(rounds.elicit("Name?", &schema));
        let state = rounds.input_required(&sealer, &bound).unwrap().request_state.unwrap();
        for (response, says) in [
            (json!("yes"), "expected an elicitation result"),
            (json!({"action": "maybe"}), r#"got action "maybe""#),
            (json!({"action": "accept", "content": [1]}), "must be an object"),
        ] {
            let request = call(Some(&state), json!({"q0": response}));
            let error = Rounds::begin(&sealer, Some(&everything()), &request, &bound).unwrap_err();
            assert!(error.message.starts_with("inputResponses.q0: "), "{}", error.message);
            assert!(error.message.contains(says), "{}", error.message);
        }
        // No response to q0 (another key instead): asked again.
        let request = call(Some(&state), json!({"other": {"action": "accept"}}));
        let rounds = Rounds::begin(&sealer, Some(&everything()), &request, &bound).unwrap();
        assert!(poll(&mut rounds.elicit("Name?", &schema)).is_pending());
    }

    #[test]
    fn a_client_that_cannot_be_asked_gets_unsupported_at_once() {
        let sealer = Sealer::random(Duration::from_secs(60));
        let bound = binding("", "greet", &json!({}));
        let forms: ClientCapabilities = serde_json::from_value(json!({"elicitation": {}})).unwrap();
        let rounds = Rounds::begin(&sealer, Some(&forms), &call(None, json!(null)), &bound).unwrap();
        let Poll::Ready(Err(AskError::Unsupported(why))) =
            poll(&mut rounds.elicit_url("Sign in", "https://x.y/"))
        else {
            panic!()
        };
        assert_eq!(why, "the client did not declare URL elicitation (sending the user to a page)");
        assert!(matches!(poll(&mut rounds.sample("hi", 5)), Poll::Ready(Err(AskError::Unsupported(_)))));
        let none = Rounds::begin(&sealer, None, &call(None, json!(null)), &bound).unwrap();
        let schema: Value = serde_json::from_str(SCHEMA).unwrap();
        assert!(matches!(
            poll(&mut none.elicit("Name?", &schema)),
            Poll::Ready(Err(AskError::Unsupported(_)))
        ));
        assert!(rounds.input_required(&sealer, &bound).is_err(), "nothing was asked");
    }

    #[test]
    fn arguments_bind_whatever_their_key_order() {
        let one = binding("a", "t", &json!({"x": {"q": 1, "p": [true, null]}, "w": "s"}));
        let two =
            binding("a", "t", &serde_json::from_str(r#"{"w":"s","x":{"p":[true,null],"q":1}}"#).unwrap());
        assert_eq!(one, two);
        assert_ne!(binding("a", "tb", &json!({})), binding("at", "b", &json!({})));
    }
}
