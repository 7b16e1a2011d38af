//! A tool asks mid-call through `&Progress` (#44 item 3), against rmcp's client in process
//! and raw JSON-RPC over HTTP.
//!
//! A 2026-07-28 client gets an `InputRequiredResult` (the question, a sealed
//! `requestState`); calling again with its answer runs the tool from the start, and the tool
//! reads the answer (accept with values, decline, cancel) as a typed value. A state that was
//! altered, issued for another tool, arguments or caller, or sealed under another key is a
//! JSON-RPC error and the tool does not run; servers sharing a key open each other's
//! states. A client that did not declare the capability gets an error result at once.
//! `remove_note` asks before it removes, so a round that ends on its question removes
//! nothing. A 2025-11-25 client that declared `elicitation.url` is sent to the page with
//! `elicitation/create` in URL mode and a fresh `elicitationId`; one that did not gets an
//! error result at once, and its forms are asked as before.
#![allow(clippy::unwrap_used, clippy::expect_used, deprecated)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use example_app::app::Store;
use example_app::models::{Role, User};
use example_app::{App, toolset};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ClientConfig,
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult, ElicitationAction,
    ErrorCode, ErrorData, InputRequiredResult, InputResponses, ProtocolVersion, SamplingMessage, Tool,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, RequestContext, RoleClient, RunningService, ServiceError,
};
use rmcp::{ClientHandler, ServiceExt};
use serde_json::{Value, json};
use toolcall_mcp::{Caller, McpServer, Rejection, bearer_token};
use toolcall_runtime::{Answer, Progress, ToolError};

mod common;

fn object(value: Value) -> serde_json::Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

fn ada() -> User {
    User { id: 1, name: "Ada".to_owned(), role: Role::Editor }
}

/// The tools of this test, added to example-app's (whose `remove_note` asks too), counting
/// how many times a tool body started: `greet` asks a name; `profile` a name, then an age;
/// `sign_in` sends the user to a page; `ask_model` asks the client's model.
fn server(store: &Arc<Store>, runs: &Arc<AtomicUsize>) -> McpServer<App> {
    let schema = |value: Value| Arc::new(object(value));
    let no_args = || schema(json!({"type": "object", "properties": {}}));
    let with_name = schema(json!({"type": "object", "properties": {"greeting": {"type": "string"}}}));
    let counted = |runs: &Arc<AtomicUsize>| {
        let runs = Arc::clone(runs);
        move || runs.fetch_add(1, Ordering::SeqCst)
    };
    let (greet, profile) = (counted(runs), counted(runs));
    McpServer::new(&toolset::ALL, App::for_user(store, ada()))
        .tool(Tool::new("greet", "Greet the user by name.", with_name), move |_, args, progress: Progress| {
            greet();
            async move {
                let greeting = args.get("greeting").and_then(Value::as_str).unwrap_or("hello").to_owned();
                let form = json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
                match progress.elicit("What is your name?", &form).await {
                    Ok(Answer::Accept(values)) => Ok(json!(format!("{greeting} {}", values["name"].as_str().unwrap_or("?")))),
                    Ok(Answer::Decline) => Ok(json!("declined")),
                    Ok(Answer::Cancel) => Ok(json!("cancelled")),
                    Err(error) => Err(ToolError::Failed(error.to_string())),
                }
            }
        })
        .tool(Tool::new("profile", "Ask a name, then an age.", no_args()), move |_, _, progress: Progress| {
            profile();
            async move {
                let ask = |field: &str, kind: &str| {
                    json!({"type": "object", "properties": {field: {"type": kind}}, "required": [field]})
                };
                let failed = |e: toolcall_runtime::AskError| ToolError::Failed(e.to_string());
                let Answer::Accept(name) = progress.elicit("Name?", &ask("name", "string")).await.map_err(failed)? else {
                    return Ok(json!("no name"));
                };
                let Answer::Accept(age) = progress.elicit("Age?", &ask("age", "integer")).await.map_err(failed)? else {
                    return Ok(json!("no age"));
                };
                Ok(json!(format!("{}, {}", name["name"].as_str().unwrap_or("?"), age["age"])))
            }
        })
        .tool(Tool::new("sign_in", "Sign in on the service's page.", no_args()), |_, _, progress: Progress| async move {
            match progress.elicit_url("Sign in to Example to go on", "https://example.com/sign-in?state=7").await {
                Ok(Answer::Accept(())) => Ok(json!("accept")),
                Ok(Answer::Decline) => Ok(json!("decline")),
                Ok(Answer::Cancel) => Ok(json!("cancel")),
                Err(error) => Err(ToolError::Failed(error.to_string())),
            }
        })
        .tool(Tool::new("ask_model", "Ask the client's model.", no_args()), |_, _, progress: Progress| async move {
            progress.sample("6 times 7?", 50).await.map(Value::String).map_err(|e| ToolError::Failed(e.to_string()))
        })
        .tool(Tool::new("form", "Ask with the form in `schema`.", no_args()), |_, args, progress: Progress| async move {
            let schema = args.get("schema").cloned().unwrap_or_default();
            match progress.elicit("Fill in the form", &schema).await {
                Ok(Answer::Accept(values)) => Ok(Value::Object(values)),
                Ok(other) => Ok(json!(format!("{other:?}"))),
                Err(error) => Err(ToolError::Failed(error.to_string())),
            }
        })
        .tool(Tool::new("forget", "Forget note 2, once the user confirms.", no_args()), |app: Arc<App>, _, progress: Progress| async move {
            // Only a yes goes on; anything else is the tool's error (`NotConfirmed` into `ToolError`).
            progress.confirm("Forget note 2?").await.required()?;
            let forgotten = app.store.remove(app.user.id, 2).await.map_err(|e| ToolError::Failed(e.to_string()))?;
            Ok(json!(format!("forgot {}", forgotten.map_or(0, |note| note.id))))
        })
}

/// A client that declares `capabilities` on `version` and answers every question with
/// `action` (accepting with a name of Ada and an age of 36) and the model with
/// "forty-two", keeping every question it is asked.
#[derive(Clone)]
struct Answering {
    version: ProtocolVersion,
    capabilities: Value,
    action: ElicitationAction,
    asked: Arc<Mutex<Vec<Value>>>,
}

impl Answering {
    fn new(version: ProtocolVersion, capabilities: Value, action: ElicitationAction) -> Self {
        Answering { version, capabilities, action, asked: Arc::default() }
    }

    fn asked(&self) -> Vec<Value> {
        self.asked.lock().unwrap().clone()
    }
}

impl ClientHandler for Answering {
    fn get_info(&self) -> ClientConfig {
        let mut config = ClientConfig::default().with_protocol_version(self.version.clone());
        config.capabilities =
            serde_json::from_value::<ClientCapabilities>(self.capabilities.clone()).unwrap();
        config
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let asked = serde_json::to_value(&request).unwrap();
        self.asked.lock().unwrap().push(asked.clone());
        let mut result = ElicitResult::new(self.action.clone());
        if self.action == ElicitationAction::Accept && asked["mode"] == "form" {
            let fields = asked["requestedSchema"]["properties"].as_object().unwrap();
            let mut content = serde_json::Map::new();
            for name in fields.keys() {
                content.insert(name.clone(), if name == "age" { json!(36) } else { json!("Ada") });
            }
            result.content = Some(Value::Object(content));
        }
        Ok(result)
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.asked.lock().unwrap().push(serde_json::to_value(&params).unwrap());
        Ok(CreateMessageResult::new(SamplingMessage::assistant_text("forty-two"), "test-model".to_owned()))
    }
}

/// `handler` connected to `server` in process: `server/discover` on 2026-07-28, else
/// `initialize`.
async fn connect<H: ClientHandler + Clone>(
    server: McpServer<App>,
    handler: &H,
    modern: bool,
) -> RunningService<RoleClient, H> {
    let (server_side, client_side) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_side).await {
            let _ = running.waiting().await;
        }
    });
    if modern {
        let lifecycle =
            ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
        handler.clone().serve_with_lifecycle(client_side, lifecycle).await.expect("discovers")
    } else {
        handler.clone().serve(client_side).await.expect("initializes")
    }
}

fn modern(capabilities: Value, action: ElicitationAction) -> Answering {
    Answering::new(ProtocolVersion::V_2026_07_28, capabilities, action)
}

fn everything() -> Value {
    json!({"elicitation": {"form": {}, "url": {}}, "sampling": {}})
}

/// The text a result says: its one text block (a string result's own text).
fn said(result: &CallToolResult) -> (bool, String) {
    let text = result.content[0].as_text().map(|t| t.text.clone()).unwrap_or_default();
    (result.is_error == Some(true), text)
}

/// Calls `name` through rmcp's client, which answers every round itself; within 10 s.
async fn call<H: ClientHandler>(
    client: &RunningService<RoleClient, H>,
    name: &str,
    args: Value,
) -> (bool, String) {
    let params = CallToolRequestParams::new(name.to_owned()).with_arguments(object(args));
    let result = tokio::time::timeout(Duration::from_secs(10), client.call_tool(params))
        .await
        .expect("answered, not hung");
    match result {
        Ok(result) => said(&result),
        // A JSON-RPC error, as `code: message` (a 2026-07-28 call that needs a capability
        // the client did not declare is -32021).
        Err(ServiceError::McpError(error)) => (true, format!("{}: {}", error.code.0, error.message)),
        Err(other) => panic!("neither a result nor a JSON-RPC error: {other}"),
    }
}

/// One round: the call of `name` with `args`, and the answers and state of the round before.
async fn round<H: ClientHandler>(
    client: &RunningService<RoleClient, H>,
    name: &str,
    args: Value,
    answers: Option<(Value, &str)>,
) -> Result<CallToolResponse, ServiceError> {
    let mut params = CallToolRequestParams::new(name.to_owned()).with_arguments(object(args));
    if let Some((responses, state)) = answers {
        let responses: InputResponses = serde_json::from_value(responses).unwrap();
        params = params.with_input_responses(responses).with_request_state(state);
    }
    tokio::time::timeout(Duration::from_secs(10), client.call_tool_once(params))
        .await
        .expect("answered, not hung")
}

fn input_required(response: Result<CallToolResponse, ServiceError>) -> InputRequiredResult {
    match response {
        Ok(CallToolResponse::InputRequired(result)) => result,
        other => panic!("not an input-required result: {other:?}"),
    }
}

fn complete(response: Result<CallToolResponse, ServiceError>) -> (bool, String) {
    match response {
        Ok(CallToolResponse::Complete(result)) => said(&result),
        other => panic!("not a tool result: {other:?}"),
    }
}

fn refused(response: Result<CallToolResponse, ServiceError>) -> ErrorData {
    match response {
        Err(ServiceError::McpError(error)) => error,
        other => panic!("not a JSON-RPC error: {other:?}"),
    }
}

/// The one question of `result`, as JSON, and its state.
fn question(result: &InputRequiredResult) -> (String, Value, String) {
    let requests = result.input_requests.as_ref().expect("inputRequests");
    assert_eq!(requests.len(), 1, "one question per round: {requests:?}");
    let (key, request) = requests.iter().next().unwrap();
    let state = result.request_state.clone().expect("requestState");
    (key.clone(), serde_json::to_value(request).unwrap(), state)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_client_gets_the_question_then_the_result_of_its_answer() {
    let (store, runs) = (Arc::new(Store::seeded(Duration::ZERO)), Arc::new(AtomicUsize::new(0)));
    let handler = modern(everything(), ElicitationAction::Accept);
    let client = connect(server(&store, &runs), &handler, true).await;
    let args = json!({"greeting": "welcome"});

    let first = input_required(round(&client, "greet", args.clone(), None).await);
    let (key, asked, state) = question(&first);
    assert_eq!(key, "q0");
    assert_eq!(asked["method"], "elicitation/create");
    assert_eq!(asked["params"]["mode"], "form");
    assert_eq!(asked["params"]["message"], "What is your name?");
    assert_eq!(asked["params"]["requestedSchema"]["required"], json!(["name"]));
    assert!(state.starts_with("rs1."), "rmcp's sealed format: {state}");
    assert_eq!(runs.load(Ordering::SeqCst), 1);

    // The answer: the tool runs again from its start and reads it.
    let answer = json!({"q0": {"action": "accept", "content": {"name": "Ada"}}});
    let done = complete(round(&client, "greet", args.clone(), Some((answer, &state))).await);
    assert_eq!(done, (false, "welcome Ada".to_owned()));
    assert_eq!(runs.load(Ordering::SeqCst), 2);
    // Decline and cancel reach the tool as themselves.
    for (action, says) in [("decline", "declined"), ("cancel", "cancelled")] {
        let answer = json!({"q0": {"action": action}});
        assert_eq!(
            complete(round(&client, "greet", args.clone(), Some((answer, &state))).await),
            (false, says.into())
        );
    }
    // No answer to the question: it is asked again, not an error.
    let again = input_required(round(&client, "greet", args.clone(), Some((json!({}), &state))).await);
    assert_eq!(question(&again).1, asked);

    // Two questions, two rounds: the second round answers the first question from the state.
    let first = input_required(round(&client, "profile", json!({}), None).await);
    let (_, _, state) = question(&first);
    let answer = json!({"q0": {"action": "accept", "content": {"name": "Grace"}}});
    let second = input_required(round(&client, "profile", json!({}), Some((answer, &state))).await);
    let (key, asked, state) = question(&second);
    assert_eq!((key.as_str(), &asked["params"]["message"]), ("q1", &json!("Age?")));
    let answer = json!({"q1": {"action": "accept", "content": {"age": 85}}});
    assert_eq!(
        complete(round(&client, "profile", json!({}), Some((answer, &state))).await),
        (false, "Grace, 85".into())
    );
    assert!(handler.asked().is_empty(), "call_tool_once answers nothing itself");
    client.cancel().await.ok();
}

/// rmcp's client answers each round through its handler and calls again, as a host does:
/// every kind of question and every answer reaches the tool.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcps_client_drives_the_rounds_and_every_answer_reaches_the_tool() {
    let (store, runs) = (Arc::new(Store::seeded(Duration::ZERO)), Arc::new(AtomicUsize::new(0)));
    for (action, greeted, signed) in [
        (ElicitationAction::Accept, "hello Ada", "accept"),
        (ElicitationAction::Decline, "declined", "decline"),
        (ElicitationAction::Cancel, "cancelled", "cancel"),
    ] {
        let handler = modern(everything(), action);
        let client = connect(server(&store, &runs), &handler, true).await;
        assert_eq!(call(&client, "greet", json!({})).await, (false, greeted.to_owned()));
        assert_eq!(call(&client, "sign_in", json!({})).await, (false, signed.to_owned()));
        let page = handler.asked()[1].clone();
        assert_eq!(page["mode"], "url");
        assert_eq!(page["url"], "https://example.com/sign-in?state=7");
        assert_eq!(page["message"], "Sign in to Example to go on");
        assert_eq!(page["elicitationId"], "", "2026-07-28 has none; rmcp writes it empty");
        client.cancel().await.ok();
    }
    let handler = modern(everything(), ElicitationAction::Accept);
    let client = connect(server(&store, &runs), &handler, true).await;
    assert_eq!(call(&client, "profile", json!({})).await, (false, "Ada, 36".to_owned()));
    assert_eq!(call(&client, "ask_model", json!({})).await, (false, "forty-two".to_owned()));
    let sampled = handler.asked().last().cloned().unwrap();
    assert_eq!(sampled["messages"][0]["content"]["text"], "6 times 7?");
    assert_eq!(sampled["maxTokens"], 50);
    client.cancel().await.ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_altered_or_misplaced_state_is_a_json_rpc_error_and_the_tool_does_not_run() {
    let (store, runs) = (Arc::new(Store::seeded(Duration::ZERO)), Arc::new(AtomicUsize::new(0)));
    let handler = modern(everything(), ElicitationAction::Accept);
    let client = connect(server(&store, &runs), &handler, true).await;
    let args = json!({"greeting": "hi"});
    let (_, _, state) = question(&input_required(round(&client, "greet", args.clone(), None).await));
    let answer = json!({"q0": {"action": "accept", "content": {"name": "Mallory"}}});

    // Each part of `rs1.BODY.TAG` changed in turn; the state of another call; no state.
    let parts: Vec<&str> = state.split('.').collect();
    let flip = |part: &str| {
        let mut bytes = part.as_bytes().to_vec();
        bytes[3] = if bytes[3] == b'A' { b'B' } else { b'A' };
        String::from_utf8(bytes).unwrap()
    };
    let tampered = [
        format!("{}.{}.{}", parts[0], flip(parts[1]), parts[2]),
        format!("{}.{}.{}", parts[0], parts[1], flip(parts[2])),
        format!("rs1.{}.{}", "eyJ2IjoxLCJhbnN3ZXJzIjpbXX0", parts[2]),
        "forged".to_owned(),
    ];
    let before = runs.load(Ordering::SeqCst);
    for state in &tampered {
        let error = refused(round(&client, "greet", args.clone(), Some((answer.clone(), state))).await);
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{state}");
        assert!(error.message.contains("requestState was not issued by this server"), "{}", error.message);
        assert_eq!(error.data, Some(json!({"error": "invalid_request_state"})));
    }
    // Issued for other arguments, or another tool.
    let other_args = json!({"greeting": "bye"});
    assert!(
        refused(round(&client, "greet", other_args, Some((answer.clone(), &state))).await)
            .message
            .contains("requestState")
    );
    assert!(
        refused(round(&client, "profile", json!({}), Some((answer.clone(), &state))).await)
            .message
            .contains("requestState")
    );
    assert_eq!(runs.load(Ordering::SeqCst), before, "no refused round ran the tool");
    // An answer that is not one is refused too, naming it.
    let error = refused(
        round(&client, "greet", args.clone(), Some((json!({"q0": {"action": "maybe"}}), &state))).await,
    );
    assert!(error.message.starts_with("inputResponses.q0: "), "{}", error.message);
    // The untouched state still opens.
    assert_eq!(
        complete(round(&client, "greet", args, Some((answer, &state))).await),
        (false, "hi Mallory".into())
    );
    client.cancel().await.ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_client_that_cannot_answer_gets_an_error_result_at_once() {
    let (store, runs) = (Arc::new(Store::seeded(Duration::ZERO)), Arc::new(AtomicUsize::new(0)));
    let nothing = modern(json!({}), ElicitationAction::Accept);
    let client = connect(server(&store, &runs), &nothing, true).await;
    // SEP-2575: a request that needs a capability the client did not declare is error
    // -32021, naming it, with what the tool said.
    let (error, text) = call(&client, "greet", json!({})).await;
    assert!(error && text.starts_with("-32021: the tool needs the client capability elicitation"), "{text}");
    assert!(text.contains("the client did not declare elicitation (asking the user)"), "{text}");
    let (error, text) = call(&client, "ask_model", json!({})).await;
    assert!(error && text.starts_with("-32021: the tool needs the client capability sampling"), "{text}");
    client.cancel().await.ok();
    let forms = modern(json!({"elicitation": {}}), ElicitationAction::Accept);
    let client = connect(server(&store, &runs), &forms, true).await;
    let (error, text) = call(&client, "sign_in", json!({})).await;
    assert!(
        error && text.starts_with("-32021: the tool needs the client capability elicitation (url)"),
        "{text}"
    );
    assert!(text.contains("the client did not declare URL elicitation"), "{text}");
    assert_eq!(call(&client, "greet", json!({})).await, (false, "hello Ada".to_owned()));
    client.cancel().await.ok();
}

/// `remove_note` asks before it removes: a round that ends on its question changes nothing,
/// and only the answer "yes" removes the note.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remove_note_removes_nothing_until_the_answer_says_so() {
    let (store, runs) = (Arc::new(Store::seeded(Duration::ZERO)), Arc::new(AtomicUsize::new(0)));
    let handler = modern(everything(), ElicitationAction::Accept);
    let client = connect(server(&store, &runs), &handler, true).await;
    let args = json!({"id": 1});
    let first = input_required(round(&client, "remove_note", args.clone(), None).await);
    let (key, asked, state) = question(&first);
    assert_eq!(asked["params"]["message"], "Remove note 1 for good?");
    assert_eq!(asked["params"]["requestedSchema"]["properties"]["confirm"]["default"], false);
    assert_eq!(store.notes_of(1, 10).await.unwrap().len(), 2, "asked before removing");
    let no = json!({key.clone(): {"action": "decline"}});
    let (error, text) = complete(round(&client, "remove_note", args.clone(), Some((no, &state))).await);
    assert!(error && text.ends_with("note 1 was not removed: the user declined; nothing was done"), "{text}");
    assert_eq!(store.notes_of(1, 10).await.unwrap().len(), 2);
    let dismissed = json!({key.clone(): {"action": "cancel"}});
    let (error, text) =
        complete(round(&client, "remove_note", args.clone(), Some((dismissed, &state))).await);
    let says = "note 1 was not removed: the user dismissed the question without answering; nothing was done";
    assert!(error && text.ends_with(says), "{text}");
    let unticked = json!({key.clone(): {"action": "accept", "content": {"confirm": false}}});
    let (error, text) = complete(round(&client, "remove_note", args.clone(), Some((unticked, &state))).await);
    assert!(error && text.ends_with("the user declined; nothing was done"), "{text}");
    assert_eq!(store.notes_of(1, 10).await.unwrap().len(), 2);
    let yes = json!({key: {"action": "accept", "content": {"confirm": true}}});
    let (error, text) = complete(round(&client, "remove_note", args, Some((yes, &state))).await);
    assert!(!error, "{text}");
    assert_eq!(store.notes_of(1, 10).await.unwrap().len(), 1, "removed once confirmed");
    client.cancel().await.ok();
}

/// `Progress::confirm` (#62): a yes/no question, a form with no field, asked with an
/// `elicitation/create` request (2025-11-25) or an input-required round (2026-07-28). Only
/// an accept goes on; a decline, a dismissed question and a client that cannot ask are each
/// the tool's error, saying which, and nothing is done.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_confirmation_goes_on_only_after_a_yes_and_never_when_the_client_cannot_ask() {
    let refused = [
        (ElicitationAction::Decline, "the user declined; nothing was done"),
        (ElicitationAction::Cancel, "the user dismissed the question without answering; nothing was done"),
    ];
    for (action, says) in refused {
        let (store, runs) = (Arc::new(Store::seeded(Duration::ZERO)), Arc::new(AtomicUsize::new(0)));
        let handler = legacy(json!({"elicitation": {}}), action);
        let client = connect(server(&store, &runs), &handler, false).await;
        assert_eq!(call(&client, "forget", json!({})).await, (true, format!("tool failed: {says}")));
        assert_eq!(store.notes_of(1, 10).await.unwrap().len(), 2, "{says}: nothing was done");
        client.cancel().await.ok();
    }
    // A client without elicitation is not asked, and its call does nothing.
    let (store, runs) = (Arc::new(Store::seeded(Duration::ZERO)), Arc::new(AtomicUsize::new(0)));
    for cannot in [legacy(json!({}), ElicitationAction::Accept), modern(json!({}), ElicitationAction::Accept)]
    {
        let modern = cannot.version == ProtocolVersion::V_2026_07_28;
        let client = connect(server(&store, &runs), &cannot, modern).await;
        let cannot_ask = "tool failed: it needs the user's confirmation, and the user cannot be asked \
             (the client did not declare elicitation (asking the user)); nothing was done";
        // A 2026-07-28 request that needs elicitation it did not declare is -32021, with
        // what the tool said; an earlier revision's call is the tool's error result.
        let expected = if modern {
            format!(
                "-32021: the tool needs the client capability elicitation, which this request did not declare: {cannot_ask}"
            )
        } else {
            cannot_ask.to_owned()
        };
        assert_eq!(call(&client, "forget", json!({})).await, (true, expected), "modern: {modern}");
        assert!(cannot.asked().is_empty());
        client.cancel().await.ok();
    }
    assert_eq!(store.notes_of(1, 10).await.unwrap().len(), 2, "a client that cannot ask removed nothing");
    // A yes, over a request and over a round.
    let handler = legacy(json!({"elicitation": {}}), ElicitationAction::Accept);
    let client = connect(server(&store, &runs), &handler, false).await;
    assert_eq!(call(&client, "forget", json!({})).await, (false, "forgot 2".to_owned()));
    let asked = handler.asked();
    assert_eq!(asked[0]["message"], "Forget note 2?");
    assert_eq!(asked[0]["requestedSchema"], json!({"type": "object", "properties": {}}));
    client.cancel().await.ok();
    let store = Arc::new(Store::seeded(Duration::ZERO));
    let client = connect(server(&store, &runs), &modern(everything(), ElicitationAction::Accept), true).await;
    let first = input_required(round(&client, "forget", json!({}), None).await);
    let (key, asked, state) = question(&first);
    assert_eq!(asked["params"]["requestedSchema"], json!({"type": "object", "properties": {}}));
    assert_eq!(store.notes_of(1, 10).await.unwrap().len(), 2, "asked before forgetting");
    let yes = json!({key: {"action": "accept", "content": {}}});
    assert_eq!(
        complete(round(&client, "forget", json!({}), Some((yes, &state))).await),
        (false, "forgot 2".into())
    );
    assert_eq!(store.notes_of(1, 10).await.unwrap().len(), 1);
    client.cancel().await.ok();
}

/// Servers with one key (replicas) open each other's states; a server with another key
/// refuses them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn servers_sharing_a_key_open_each_others_states() {
    let (store, runs) = (Arc::new(Store::seeded(Duration::ZERO)), Arc::new(AtomicUsize::new(0)));
    let key = *b"shared by every replica: 32 byte";
    let handler = modern(everything(), ElicitationAction::Accept);
    let one = connect(server(&store, &runs).request_state_key(key), &handler, true).await;
    let two = connect(
        server(&store, &runs).request_state_key(key).request_state_ttl(Duration::from_secs(5)),
        &handler,
        true,
    )
    .await;
    let other = connect(server(&store, &runs), &handler, true).await;
    let (_, _, state) = question(&input_required(round(&one, "greet", json!({}), None).await));
    let answer = json!({"q0": {"action": "accept", "content": {"name": "Ada"}}});
    assert_eq!(
        complete(round(&two, "greet", json!({}), Some((answer.clone(), &state))).await),
        (false, "hello Ada".into())
    );
    assert_eq!(
        refused(round(&other, "greet", json!({}), Some((answer, &state))).await).code,
        ErrorCode::INVALID_PARAMS
    );
    for client in [one, two, other] {
        client.cancel().await.ok();
    }
}

/// The JSON-RPC message in an HTTP response body (plain JSON, or an SSE event's data).
fn message_of(body: &str) -> Value {
    body.lines()
        .map(|line| line.strip_prefix("data:").unwrap_or(line).trim())
        .find_map(|line| serde_json::from_str::<Value>(line).ok().filter(|v| v.get("jsonrpc").is_some()))
        .unwrap_or_else(|| panic!("no JSON-RPC message in {body}"))
}

/// Over HTTP, raw JSON-RPC: the state is bound to the caller the request function named,
/// so another user cannot answer with it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_a_state_answers_only_for_its_caller() {
    let (store, runs) = (Arc::new(Store::seeded(Duration::ZERO)), Arc::new(AtomicUsize::new(0)));
    let users = Arc::clone(&store);
    let server = server(&store, &runs).context_from_request(move |parts| {
        let user = match bearer_token(parts) {
            Some("ada") => ada(),
            Some("grace") => User { id: 2, name: "Grace".to_owned(), role: Role::Editor },
            _ => return Err(Rejection::unauthorized("unknown token")),
        };
        Ok(Caller::new(user.name.clone(), App::for_user(&users, user)))
    });
    let uri = common::net::serve(server).await;
    let call = |id: u64, token: &str, extra: Value| {
        let mut params = json!({
            "name": "greet",
            "arguments": {},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
            },
        });
        params.as_object_mut().unwrap().extend(object(extra));
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).to_string();
        let (uri, bearer) = (uri.clone(), format!("Bearer {token}"));
        async move {
            let headers = [
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "greet"),
                ("authorization", bearer.as_str()),
            ];
            let (status, _, body) = common::net::post(&uri, body, &headers).await;
            assert_eq!(status, 200, "{body}");
            message_of(&body)
        }
    };
    let first = call(1, "ada", json!({})).await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    assert_eq!(first["result"]["inputRequests"]["q0"]["params"]["mode"], "form");
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();
    let retry = json!({"inputResponses": {"q0": {"action": "accept", "content": {"name": "Ada"}}}, "requestState": state});
    let stolen = call(2, "grace", retry.clone()).await;
    assert_eq!(stolen["error"]["code"], -32602, "{stolen}");
    assert!(stolen["error"]["message"].as_str().unwrap().contains("requestState"), "{stolen}");
    let answered = call(3, "ada", retry).await;
    assert_eq!(answered["result"]["content"][0]["text"], "hello Ada", "{answered}");
    assert_ne!(answered["result"]["resultType"], "input_required");
}

fn legacy(capabilities: Value, action: ElicitationAction) -> Answering {
    Answering::new(ProtocolVersion::V_2025_11_25, capabilities, action)
}

/// 2025-11-25: a client that declared `elicitation.url` is sent to the page over
/// `elicitation/create` (URL mode, a fresh `elicitationId` each time); one that did not
/// gets an error result at once and is still asked its forms.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_11_25_client_is_sent_to_the_page_only_when_it_declared_url_elicitation() {
    let (store, runs) = (Arc::new(Store::seeded(Duration::ZERO)), Arc::new(AtomicUsize::new(0)));
    for (action, says) in [
        (ElicitationAction::Accept, "accept"),
        (ElicitationAction::Decline, "decline"),
        (ElicitationAction::Cancel, "cancel"),
    ] {
        let handler = legacy(json!({"elicitation": {"form": {}, "url": {}}}), action);
        let client = connect(server(&store, &runs), &handler, false).await;
        assert_eq!(
            client.peer_info().map(|i| i.protocol_version.clone()),
            Some(ProtocolVersion::V_2025_11_25)
        );
        assert_eq!(call(&client, "sign_in", json!({})).await, (false, says.to_owned()));
        assert_eq!(call(&client, "sign_in", json!({})).await, (false, says.to_owned()));
        let asked = handler.asked();
        let ids: Vec<&str> = asked.iter().map(|a| a["elicitationId"].as_str().unwrap()).collect();
        assert_eq!(asked[0]["mode"], "url");
        assert_eq!(asked[0]["url"], "https://example.com/sign-in?state=7");
        assert_eq!(asked[0]["message"], "Sign in to Example to go on");
        assert!(ids.iter().all(|id| id.len() == 32 && id.chars().all(|c| c.is_ascii_hexdigit())), "{ids:?}");
        assert_ne!(ids[0], ids[1], "a fresh id each time");
        client.cancel().await.ok();
    }
    let forms = legacy(json!({"elicitation": {}}), ElicitationAction::Accept);
    let client = connect(server(&store, &runs), &forms, false).await;
    let (error, text) = call(&client, "sign_in", json!({})).await;
    assert!(
        error && text.contains("the client did not declare URL elicitation (sending the user to a page)"),
        "{text}"
    );
    assert_eq!(call(&client, "greet", json!({})).await, (false, "hello Ada".to_owned()));
    assert_eq!(forms.asked().len(), 1, "only the form was asked");
    client.cancel().await.ok();
}

/// Where `scripts/install-clients` put the official clients: `TOOLCALL_CLIENTS_DIR`, else
/// `~/.cache/toolcall-ci`. `None` when they are not there; in CI (`CI` set) that is a
/// failure, never a skip.
fn official_clients() -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("TOOLCALL_CLIENTS_DIR").map(std::path::PathBuf::from).or_else(|| {
        std::env::var_os("HOME").map(|home| std::path::Path::new(&home).join(".cache/toolcall-ci"))
    })?;
    let present = dir.join("node/node_modules/@modelcontextprotocol/sdk/package.json").is_file()
        && dir.join("py/bin/python").is_file();
    if present {
        return Some(dir);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "the official MCP clients are not in {}: run scripts/install-clients",
        dir.display()
    );
    eprintln!("SKIPPED: the official MCP clients are not in {}: run scripts/install-clients", dir.display());
    None
}

/// What one official client printed: the tools' results and the questions it was asked.
async fn run_client(client: &str, command: &mut tokio::process::Command) -> Value {
    let output = tokio::time::timeout(Duration::from_secs(60), command.output())
        .await
        .unwrap_or_else(|_| panic!("{client}: hung"))
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{client}: {}\n{stderr}", output.status);
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{client}: {e}: {}\n{stderr}", String::from_utf8_lossy(&output.stdout)))
}

/// `(isError, text)` of each tool result an official client printed, in order.
fn results_of(client: &str, seen: &Value) -> Vec<(bool, String)> {
    let results = seen["results"].as_array().unwrap_or_else(|| panic!("{client}: {seen}"));
    results
        .iter()
        .map(|r| {
            assert!(r.get("threw").is_none(), "{client}: {} threw: {}", r["name"], r["threw"]);
            let text = r["result"]["content"][0]["text"].as_str().unwrap_or_default().to_owned();
            (r["result"]["isError"] == true, text)
        })
        .collect()
}

/// The official TypeScript SDK (1.32.2: protocol 2025-11-25, URL mode, no multi
/// round-trip requests) is sent to the page when it declared URL mode, answers forms as
/// before, and gets an error result at once when it declared forms only. The official
/// Python SDK (2.3.0) on 2026-07-28 answers the input-required results itself and calls
/// again: the tools read its answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_sdks_answer_forms_and_pages() {
    let Some(clients) = official_clients() else { return };
    let (store, runs) = (Arc::new(Store::seeded(Duration::ZERO)), Arc::new(AtomicUsize::new(0)));
    let uri = common::net::serve(server(&store, &runs)).await;
    let script =
        |file: &str| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients").join(file);
    let typescript = |modes: &str, action: &str| {
        let mut command = tokio::process::Command::new("node");
        command.arg(script("ts_elicitation.cjs")).arg(clients.join("node")).args([
            &uri,
            modes,
            action,
            "sign_in,greet",
        ]);
        command
    };

    let seen = run_client("TypeScript SDK", &mut typescript("form,url", "accept")).await;
    assert_eq!(seen["version"], "2025-11-25", "{seen}");
    assert_eq!(
        results_of("TypeScript SDK", &seen),
        [(false, "accept".to_owned()), (false, "hello Ada".to_owned())]
    );
    let page = &seen["asked"][0];
    assert_eq!((&page["mode"], &page["url"]), (&json!("url"), &json!("https://example.com/sign-in?state=7")));
    assert_eq!(page["elicitationId"].as_str().map(str::len), Some(32), "{page}");
    assert_eq!(seen["asked"][1]["mode"], "form");
    let seen = run_client("TypeScript SDK", &mut typescript("form,url", "decline")).await;
    assert_eq!(
        results_of("TypeScript SDK", &seen),
        [(false, "decline".to_owned()), (false, "declined".to_owned())]
    );
    let seen = run_client("TypeScript SDK", &mut typescript("form", "accept")).await;
    let results = results_of("TypeScript SDK", &seen);
    assert!(
        results[0].0 && results[0].1.contains("the client did not declare URL elicitation"),
        "{results:?}"
    );
    assert_eq!(results[1], (false, "hello Ada".to_owned()));
    assert_eq!(seen["asked"].as_array().map(Vec::len), Some(1), "only the form was asked: {seen}");

    let python = |mode: &str, action: &str| {
        let mut command = tokio::process::Command::new(clients.join("py/bin/python"));
        command.arg(script("py_elicitation.py")).args([&uri, mode, action, "greet,sign_in,profile"]);
        command
    };
    // How many times `greet` and `profile` ran: once per round (twice and three times
    // when every answer is yes), or once each over requests.
    for (mode, action, want, rounds) in [
        ("2026-07-28", "accept", ["hello Ada", "accept", "Ada, 36"], 5),
        ("2026-07-28", "decline", ["declined", "decline", "no name"], 4),
        ("legacy", "accept", ["hello Ada", "accept", "Ada, 36"], 2),
    ] {
        let client = format!("Python SDK {mode} {action}");
        let before = runs.load(Ordering::SeqCst);
        let seen = run_client(&client, &mut python(mode, action)).await;
        assert_eq!(runs.load(Ordering::SeqCst) - before, rounds, "{client}: {seen}");
        let spoken = if mode == "legacy" { "2025-11-25" } else { mode };
        assert_eq!(seen["version"], spoken, "{client}: {seen}");
        let want: Vec<(bool, String)> = want.iter().map(|w| (false, (*w).to_owned())).collect();
        assert_eq!(results_of(&client, &seen), want, "{client}: {seen}");
        let modes: Vec<&str> =
            seen["asked"].as_array().unwrap().iter().map(|a| a["mode"].as_str().unwrap_or("form")).collect();
        let all = if action == "accept" {
            &["form", "url", "form", "form"][..]
        } else {
            &["form", "url", "form"][..]
        };
        assert_eq!(modes, all, "{client}: {seen}");
    }
}

/// What a hand-written form (`Progress::elicit`) may hold, as the README's "Asking" says:
/// the root's `$schema`, `title`, `description`, `properties` and `required`; string
/// fields with `title`, `description`, `minLength`, `maxLength`, `format` (email, uri,
/// date, date-time) and `default`; numbers and integers with `minimum`, `maximum` and
/// `default`; booleans with `default`; enums (`enum`, titled `oneOf` of `const`/`title`,
/// the deprecated `enumNames` passed as written) and multi-selects (`type: array` of
/// `enum` or `anyOf` items, `minItems`, `maxItems`). Other keywords (`pattern`,
/// `multipleOf`, `additionalProperties`, `$defs`) are dropped; a field of another kind (a
/// nested object, a list of strings, another format, a type array) is the tool's error,
/// naming the field, and nothing is asked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hand_written_form_keeps_what_elicitation_takes_and_names_what_it_cannot() {
    let (store, runs) = (Arc::new(Store::seeded(Duration::ZERO)), Arc::new(AtomicUsize::new(0)));
    let asked = async |schema: Value| {
        let handler = legacy(json!({"elicitation": {}}), ElicitationAction::Decline);
        let client = connect(server(&store, &runs), &handler, false).await;
        let answer = call(&client, "form", json!({"schema": schema})).await;
        client.cancel().await.ok();
        (handler.asked().first().map(|question| question["requestedSchema"].clone()), answer)
    };
    let name = json!({"type": "string", "title": "Name", "description": "Yours.", "minLength": 1,
                      "maxLength": 40, "format": "email", "default": "ada@example.com"});
    let root = |properties: Value| {
        json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "title": "Sign up",
               "description": "Who you are.", "properties": properties, "required": ["name"]})
    };
    let mut with_extras = root(json!({"name": name}));
    with_extras["properties"]["name"]["pattern"] = json!("^[a-z]");
    with_extras["additionalProperties"] = json!(false);
    with_extras["$defs"] = json!({"unused": {}});
    assert_eq!(asked(with_extras).await, (Some(root(json!({"name": name}))), (false, "Decline".to_owned())));
    let kinds = json!({
        "ratio": {"type": "number", "minimum": 0.0, "maximum": 1.0, "default": 0.5},
        "count": {"type": "integer", "minimum": 0, "maximum": 9},
        "agree": {"type": "boolean", "default": true},
        "plan": {"type": "string", "enum": ["free", "pro"], "enumNames": ["Free", "Pro"]},
        "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
        "tags": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"type": "string", "enum": ["x", "y"]}},
        "picks": {"type": "array", "items": {"anyOf": [{"const": "x", "title": "X"}]}},
    });
    let form = json!({"type": "object", "properties": kinds});
    let mut dropped = form.clone();
    dropped["properties"]["ratio"]["multipleOf"] = json!(0.1);
    assert_eq!(asked(dropped).await.0, Some(form));
    for (field, schema) in [
        ("nested", json!({"type": "object", "properties": {}})),
        ("list", json!({"type": "array", "items": {"type": "string"}})),
        ("address", json!({"type": "string", "format": "ipv4"})),
        ("maybe", json!({"type": ["string", "null"]})),
    ] {
        let (question, answer) = asked(json!({"type": "object", "properties": {field: schema}})).await;
        assert_eq!(question, None, "{field}: nothing is asked");
        let says = format!(
            "tool failed: asking failed: the form's schema is not one MCP elicitation takes: field \"{field}\" \
             is none of a string (formats email, uri, date, date-time), number, integer, boolean, enum or \
             multi-select of enum values"
        );
        assert_eq!(answer, (true, says));
    }
    let (question, answer) = asked(json!({"properties": {}})).await;
    assert!(question.is_none() && answer.1.ends_with(r#"its root must say "type": "object""#), "{answer:?}");
}
