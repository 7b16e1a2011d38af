//! The Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) and
//! `subscriptions/listen` (2026-07-28) against real clients over streamable HTTP:
//! rmcp's client (its `call_tool_once`, `get_task`, `update_task`, `cancel_task` and
//! `listen`), in a 2026-07-28 client and in a 2025-11-25 session, and the official Python
//! SDK (2.3.0, `tests/clients/py_tasks_listen.py`).
//!
//! - example-app's `export_notes` (a `.task()` tool): a client that declared the extension
//!   gets a task handle (`resultType: "task"`, working, the server's TTL and poll
//!   interval), polls `tasks/get` to `completed` and reads the result inlined, the same
//!   resource a client that did not declare it gets as the call's plain result.
//! - `tasks/get`, `tasks/update` and `tasks/cancel` of an unknown id are -32602
//!   (`unknown_task`); from a client without the extension, -32021 with the extension in
//!   `requiredCapabilities`, even for a task that exists. `tasks/cancel` (and
//!   `tasks/update`) of a finished task acks and leaves it completed; `tasks/cancel` of a
//!   running one (example-app's store made slow) ends it `cancelled`, and it stays so
//!   after the call would have finished.
//! - With mcp-conformance's task tools (a dev-dependency already): `confirm_delete` goes
//!   `input_required` with its question in `inputRequests`, and the answer given with
//!   `tasks/update` reaches the tool, which completes with it; a tool's error completes
//!   its task with `isError`, a panic fails it (-32603 inlined); a `task_required` tool
//!   called without the extension is -32021.
//! - `subscriptions/listen`: the acknowledgment carries the accepted filter (a resource
//!   URI the server does not serve dropped); `Notifier::tools_list_changed` reaches a tools
//!   stream, tagged with its subscription id, and not a resources-only stream, which gets
//!   `resources_list_changed` and `resource_updated` of a served URI instead; a stream the
//!   client cancelled is told nothing more. A 2025-11-25 session, which cannot listen,
//!   hears tools and resources list changes on its session.
//! - The Python SDK, on 2026-07-28: `Client.listen` receives the tools list change the
//!   Rust side announces, and a `ClientExtension` claiming `resultType: "task"` (the SDK
//!   has no tasks client of its own) polls `tasks/get` through the session's raw request
//!   API to the inlined result; its errors and the cancel ack as above.
//!
//! The official clients are where `scripts/install-clients` puts them
//! (`TOOLCALL_CLIENTS_DIR`, else `~/.cache/toolcall-ci`); without them the Python test
//! prints SKIPPED, and fails under `CI`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use example_app::app::Store;
use example_app::models::User;
use example_app::{App, served, toolset};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ClientCapabilities,
    ClientConfig, CreateTaskResult, ErrorData, GetTaskParams, GetTaskResult, ProtocolVersion,
    ServerNotification, SubscriptionFilter, TaskPayload, TaskStatus, UpdateTaskParams,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, NotificationContext, RoleClient, RunningService, ServiceError,
};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, ServiceExt};
use serde_json::{Value, json};
use toolcall_mcp::{McpServer, Notifier, TaskSettings};

mod common;

use common::net::Era;

/// The extension's identifier.
const TASKS: &str = "io.modelcontextprotocol/tasks";

/// How often the test servers tell clients to poll (and read answers and cancellations).
const POLL: Duration = Duration::from_millis(20);

/// How long the test servers keep a task.
const TTL: Duration = Duration::from_secs(120);

/// Tasks kept in memory, polled every [`POLL`], kept [`TTL`].
fn task_settings() -> TaskSettings {
    TaskSettings { poll_interval: POLL, ttl: TTL, ..TaskSettings::default() }
}

/// example-app's server for Ada (tools, resources, prompts) on a seeded store whose
/// queries each take `latency`.
fn example_server(latency: Duration) -> McpServer<App> {
    let store = Arc::new(Store::seeded(latency));
    McpServer::new(&toolset::ALL, App::for_user(&store, User::ada()))
        .resources(served::resources())
        .prompts(served::prompts())
        .tasks(task_settings())
}

/// A client that declares `capabilities` on `version`, keeping the list changes its
/// session hears (outside `subscriptions/listen`).
#[derive(Clone)]
struct Declaring {
    version: ProtocolVersion,
    capabilities: Value,
    heard: Arc<Mutex<Vec<&'static str>>>,
}

impl ClientHandler for Declaring {
    fn get_info(&self) -> ClientConfig {
        let mut config = ClientConfig::default().with_protocol_version(self.version.clone());
        config.capabilities =
            serde_json::from_value::<ClientCapabilities>(self.capabilities.clone()).unwrap();
        config
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.heard.lock().unwrap().push("tools");
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.heard.lock().unwrap().push("resources");
    }
}

/// rmcp's client on `era` connected to `uri` over streamable HTTP, declaring the Tasks
/// extension when `tasks` (and form elicitation always).
async fn connect(uri: &str, era: Era, tasks: bool) -> RunningService<RoleClient, Declaring> {
    let mut capabilities = json!({"elicitation": {"form": {}}});
    if tasks {
        capabilities["extensions"] = json!({TASKS: {}});
    }
    let version = match era {
        Era::Legacy => ProtocolVersion::V_2025_11_25,
        Era::Stateless => ProtocolVersion::V_2026_07_28,
    };
    let handler = Declaring { version: version.clone(), capabilities, heard: Arc::default() };
    let transport = StreamableHttpClientTransport::from_uri(uri.to_owned());
    let client = match era {
        Era::Legacy => handler.serve(transport).await.expect("initializes"),
        Era::Stateless => {
            let lifecycle = ClientLifecycleMode::Discover { preferred_versions: vec![version.clone()] };
            handler.serve_with_lifecycle(transport, lifecycle).await.expect("discovers")
        }
    };
    assert_eq!(client.peer_info().map(|info| info.protocol_version.clone()), Some(version));
    client
}

/// Within 10 s.
async fn soon<T>(what: &str, future: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(10), future).await.unwrap_or_else(|_| panic!("{what}: hung"))
}

/// One `tools/call` of `name` with `args`, without driving anything after it.
async fn call_once(
    client: &RunningService<RoleClient, Declaring>,
    name: &str,
    args: Value,
) -> CallToolResponse {
    let params =
        CallToolRequestParams::new(name.to_owned()).with_arguments(args.as_object().cloned().unwrap());
    soon(name, client.call_tool_once(params)).await.unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The task handle a call was answered with.
fn task_handle(response: CallToolResponse) -> CreateTaskResult {
    match response {
        CallToolResponse::Task(created) => created,
        other => panic!("not a task handle: {other:?}"),
    }
}

/// The plain result a call was answered with.
fn plain(response: CallToolResponse) -> CallToolResult {
    match response {
        CallToolResponse::Complete(result) => result,
        other => panic!("not a plain result: {other:?}"),
    }
}

/// The JSON-RPC error of a request that should have failed with one.
fn rpc_error<T: std::fmt::Debug>(what: &str, answer: Result<T, ServiceError>) -> ErrorData {
    match answer {
        Err(ServiceError::McpError(error)) => error,
        other => panic!("{what}: not a JSON-RPC error: {other:?}"),
    }
}

/// `tasks/get` of `id` until its status is none of `passing` (within 10 s); every status
/// seen on the way, and the task then.
async fn poll_past(
    client: &RunningService<RoleClient, Declaring>,
    id: &str,
    passing: &[TaskStatus],
) -> (Vec<TaskStatus>, GetTaskResult) {
    let began = Instant::now();
    let mut seen = Vec::new();
    loop {
        let got = soon("tasks/get", client.get_task(GetTaskParams::new(id))).await.expect("tasks/get");
        assert_eq!(got.task.task.task_id, id);
        seen.push(got.task.status());
        if !passing.contains(&got.task.status()) {
            return (seen, got);
        }
        assert!(began.elapsed() < Duration::from_secs(10), "task {id} stayed {seen:?}");
        tokio::time::sleep(POLL).await;
    }
}

/// The export of Ada's seeded notes: one embedded Markdown resource.
fn assert_is_the_export(result: &CallToolResult) {
    assert_ne!(result.is_error, Some(true), "{result:?}");
    let content = serde_json::to_value(&result.content).unwrap();
    let resource = &content[0]["resource"];
    assert_eq!(content[0]["type"], "resource", "{content}");
    assert_eq!(resource["uri"], "notes://user/1/export.md", "{content}");
    assert_eq!(resource["mimeType"], "text/markdown", "{content}");
    assert!(resource["text"].as_str().unwrap().starts_with("# Ada's notes\n"), "{content}");
    let text = resource["text"].as_str().unwrap();
    assert!(text.contains("\n## Note 1\n\nbuy oat milk\n"), "{content}");
    assert!(text.contains("\n## Note 2\n") && !text.contains("Grace"), "{content}");
}

/// `result` as JSON without its `resultType` (2026-07-28's; a 2025-11-25 result has none,
/// and a task's inlined result has it whichever revision started the task).
fn without_result_type(result: &CallToolResult) -> Value {
    let mut value = serde_json::to_value(result).unwrap();
    value.as_object_mut().unwrap().remove("resultType");
    value
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn export_notes_is_a_task_polled_to_its_inlined_result_for_a_client_that_declared_the_extension() {
    let uri = common::net::serve(example_server(Duration::ZERO)).await;
    for era in [Era::Stateless, Era::Legacy] {
        let tasker = connect(&uri, era, true).await;
        let created = task_handle(call_once(&tasker, "export_notes", json!({})).await);
        let wire = serde_json::to_value(&created).unwrap();
        assert_eq!(wire["resultType"], "task", "{era:?}: {wire}");
        assert_eq!(created.task.status, TaskStatus::Working, "{era:?}: {wire}");
        assert_eq!(created.task.ttl_ms, Some(TTL.as_millis() as u64), "{era:?}: {wire}");
        assert_eq!(created.task.poll_interval_ms, Some(POLL.as_millis() as u64), "{era:?}: {wire}");
        assert_eq!(created.task.task_id.len(), 32, "{era:?}: {wire}");

        let id = created.task.task_id.clone();
        let (seen, done) = poll_past(&tasker, &id, &[TaskStatus::Working]).await;
        let TaskPayload::Completed { result } = &done.task.payload else {
            panic!("{era:?}: task ended {seen:?}: {done:?}");
        };
        let inlined: CallToolResult = serde_json::from_value(Value::Object(result.clone())).unwrap();
        assert_is_the_export(&inlined);
        // The reports of its run: the last one said the last note.
        assert_eq!(done.task.task.status_message.as_deref(), Some("note 2"), "{era:?}: {done:?}");

        // A client that did not declare the extension: the same result, plainly.
        let other = connect(&uri, era, false).await;
        let direct = plain(call_once(&other, "export_notes", json!({})).await);
        assert_is_the_export(&direct);
        assert_eq!(without_result_type(&direct), without_result_type(&inlined), "{era:?}");
        other.cancel().await.ok();
        tasker.cancel().await.ok();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn task_requests_name_an_unknown_task_and_a_client_without_the_extension() {
    let uri = common::net::serve(example_server(Duration::ZERO)).await;
    for era in [Era::Stateless, Era::Legacy] {
        let tasker = connect(&uri, era, true).await;
        let id = task_handle(call_once(&tasker, "export_notes", json!({})).await).task.task_id;
        let (_, done) = poll_past(&tasker, &id, &[TaskStatus::Working]).await;
        assert_eq!(done.task.status(), TaskStatus::Completed, "{era:?}");

        // An id no task has: -32602, whichever request.
        let unknown = "0123456789abcdef0123456789abcdef";
        let errors = [
            rpc_error("tasks/get", tasker.get_task(GetTaskParams::new(unknown)).await),
            rpc_error("tasks/cancel", tasker.cancel_task(CancelTaskParams::new(unknown)).await),
            rpc_error(
                "tasks/update",
                tasker
                    .update_task(UpdateTaskParams::new(unknown, [("q0".to_owned(), json!({}))].into()))
                    .await,
            ),
        ];
        for error in errors {
            assert_eq!(error.code.0, -32602, "{era:?}: {error:?}");
            assert_eq!(error.data, Some(json!({"error": "unknown_task"})), "{era:?}: {error:?}");
            assert!(error.message.contains(unknown), "{era:?}: {error:?}");
        }

        // A client that did not declare the extension: -32021, even for a task that exists.
        let other = connect(&uri, era, false).await;
        let errors = [
            ("tasks/get", rpc_error("tasks/get", other.get_task(GetTaskParams::new(&id)).await)),
            ("tasks/cancel", rpc_error("tasks/cancel", other.cancel_task(CancelTaskParams::new(&id)).await)),
            (
                "tasks/update",
                rpc_error(
                    "tasks/update",
                    other.update_task(UpdateTaskParams::new(&id, Default::default())).await,
                ),
            ),
        ];
        for (method, error) in errors {
            assert_eq!(error.code.0, -32021, "{era:?} {method}: {error:?}");
            assert_eq!(
                error.data,
                Some(json!({"requiredCapabilities": {"extensions": {TASKS: {}}}})),
                "{era:?} {method}: {error:?}"
            );
        }

        // The task is as it was: finished, with its result.
        let again = tasker.get_task(GetTaskParams::new(&id)).await.unwrap();
        assert_eq!(again, done, "{era:?}");
        other.cancel().await.ok();
        tasker.cancel().await.ok();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_or_answering_a_finished_task_acks_and_leaves_it_completed() {
    let uri = common::net::serve(example_server(Duration::ZERO)).await;
    for era in [Era::Stateless, Era::Legacy] {
        let tasker = connect(&uri, era, true).await;
        let id = task_handle(call_once(&tasker, "export_notes", json!({})).await).task.task_id;
        let (_, done) = poll_past(&tasker, &id, &[TaskStatus::Working]).await;
        assert_eq!(done.task.status(), TaskStatus::Completed, "{era:?}: {done:?}");

        soon("tasks/cancel", tasker.cancel_task(CancelTaskParams::new(&id))).await.expect("acks");
        let answers = [("q0".to_owned(), json!({"action": "accept", "content": {}}))].into();
        soon("tasks/update", tasker.update_task(UpdateTaskParams::new(&id, answers))).await.expect("acks");
        tokio::time::sleep(POLL * 3).await;
        let after = tasker.get_task(GetTaskParams::new(&id)).await.unwrap();
        assert_eq!(after, done, "{era:?}: still completed, the same result");
        tasker.cancel().await.ok();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_running_export_ends_it_cancelled_for_good() {
    // Every query of this store takes 2.5 s: the export runs that long.
    let latency = Duration::from_millis(2500);
    let uri = common::net::serve(example_server(latency)).await;
    for era in [Era::Stateless, Era::Legacy] {
        let tasker = connect(&uri, era, true).await;
        let started = Instant::now();
        let id = task_handle(call_once(&tasker, "export_notes", json!({})).await).task.task_id;
        let working = tasker.get_task(GetTaskParams::new(&id)).await.unwrap();
        assert_eq!(working.task.status(), TaskStatus::Working, "{era:?}: {working:?}");
        soon("tasks/cancel", tasker.cancel_task(CancelTaskParams::new(&id))).await.expect("acks");
        let (seen, over) = poll_past(&tasker, &id, &[TaskStatus::Working]).await;
        assert_eq!(over.task.payload, TaskPayload::Cancelled, "{era:?}: {seen:?}");
        assert!(started.elapsed() < latency, "{era:?}: cancelled before the export could finish");
        // Past the time the export would have taken: still cancelled, no late result.
        tokio::time::sleep(latency + POLL * 5 - started.elapsed().min(latency)).await;
        let later = tasker.get_task(GetTaskParams::new(&id)).await.unwrap();
        assert_eq!(later.task.payload, TaskPayload::Cancelled, "{era:?}: {later:?}");
        tasker.cancel().await.ok();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_that_asks_waits_in_input_required_until_tasks_update_answers() {
    let server = McpServer::new(&mcp_conformance::toolset::ALL, ()).tasks(task_settings());
    let uri = common::net::serve(server).await;
    for (era, confirm) in [(Era::Stateless, true), (Era::Legacy, true), (Era::Stateless, false)] {
        let tasker = connect(&uri, era, true).await;
        let args = json!({"filename": "a.txt"});
        let id = task_handle(call_once(&tasker, "confirm_delete", args).await).task.task_id;
        let (_, asking) = poll_past(&tasker, &id, &[TaskStatus::Working]).await;
        let TaskPayload::InputRequired { input_requests } = &asking.task.payload else {
            panic!("{era:?}: not asking: {asking:?}");
        };
        assert_eq!(input_requests.len(), 1, "{era:?}: {asking:?}");
        let (key, question) = input_requests.iter().next().unwrap();
        let question = serde_json::to_value(question).unwrap();
        assert_eq!(question["method"], "elicitation/create", "{era:?}: {question}");
        assert_eq!(question["params"]["message"], "Delete a.txt?", "{era:?}: {question}");
        assert_eq!(
            question["params"]["requestedSchema"]["required"],
            json!(["confirm"]),
            "{era:?}: {question}"
        );
        // Still asking until answered.
        tokio::time::sleep(POLL * 3).await;
        let waiting = tasker.get_task(GetTaskParams::new(&id)).await.unwrap();
        assert_eq!(waiting.task.status(), TaskStatus::InputRequired, "{era:?}: {waiting:?}");

        let answer = json!({"action": "accept", "content": {"confirm": confirm}});
        let answers = [(key.clone(), answer)].into();
        soon("tasks/update", tasker.update_task(UpdateTaskParams::new(&id, answers))).await.expect("acks");
        let (seen, done) = poll_past(&tasker, &id, &[TaskStatus::Working, TaskStatus::InputRequired]).await;
        let TaskPayload::Completed { result } = &done.task.payload else {
            panic!("{era:?}: ended {seen:?}: {done:?}");
        };
        let result: CallToolResult = serde_json::from_value(Value::Object(result.clone())).unwrap();
        let text = result.content[0].as_text().map(|t| t.text.clone()).unwrap_or_default();
        if confirm {
            assert_eq!((result.is_error, text.as_str()), (Some(false), "deleted a.txt"), "{era:?}");
        } else {
            // A tool's own error completes the task, with `isError`.
            assert_eq!(
                (result.is_error, text.as_str()),
                (Some(true), "tool failed: a.txt was not deleted: not confirmed"),
                "{era:?}"
            );
        }
        tasker.cancel().await.ok();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_error_completes_a_task_a_panic_fails_it_and_a_task_only_tool_needs_the_extension() {
    let server = McpServer::new(&mcp_conformance::toolset::ALL, ()).tasks(task_settings());
    let uri = common::net::serve(server).await;
    for era in [Era::Stateless, Era::Legacy] {
        // `failing_job` runs only as a task: without the extension, -32021 naming it.
        let other = connect(&uri, era, false).await;
        let params = CallToolRequestParams::new("failing_job").with_arguments(Default::default());
        let refused = rpc_error("failing_job", soon("failing_job", other.call_tool_once(params)).await);
        assert_eq!(refused.code.0, -32021, "{era:?}: {refused:?}");
        assert!(refused.message.contains("`failing_job` runs only as a task"), "{era:?}: {refused:?}");
        assert_eq!(
            refused.data,
            Some(json!({"requiredCapabilities": {"extensions": {TASKS: {}}}})),
            "{era:?}: {refused:?}"
        );
        other.cancel().await.ok();

        let tasker = connect(&uri, era, true).await;
        let failing = task_handle(call_once(&tasker, "failing_job", json!({})).await).task.task_id;
        let panicking = task_handle(call_once(&tasker, "protocol_error_job", json!({})).await).task.task_id;
        // The tool's own error: completed, the result saying it with `isError`.
        let (seen, done) = poll_past(&tasker, &failing, &[TaskStatus::Working]).await;
        let TaskPayload::Completed { result } = &done.task.payload else {
            panic!("{era:?}: ended {seen:?}: {done:?}");
        };
        assert_eq!(result["isError"], true, "{era:?}: {result:?}");
        assert_eq!(
            result["content"][0]["text"], "tool failed: the job failed: its input could not be processed",
            "{era:?}: {result:?}"
        );
        // A panic: failed, with the JSON-RPC error inlined.
        let (seen, over) = poll_past(&tasker, &panicking, &[TaskStatus::Working]).await;
        let TaskPayload::Failed { error } = &over.task.payload else {
            panic!("{era:?}: ended {seen:?}: {over:?}");
        };
        assert_eq!(error["code"], -32603, "{era:?}: {error:?}");
        assert!(error["message"].as_str().is_some_and(|m| !m.is_empty()), "{era:?}: {error:?}");
        tasker.cancel().await.ok();
    }
}

// subscriptions/listen

/// `notifier.METHOD()` (through `tell`) until it says it told `want` listeners (within 5 s):
/// rmcp acknowledges a subscription before the server's `listen` holds its stream, so a
/// change right after the acknowledgment may reach no one. A call that told no one sent
/// nothing.
async fn tell_until<F, Fut>(what: &str, want: usize, tell: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = usize>,
{
    let began = Instant::now();
    loop {
        let told = tell().await;
        if told == want {
            return;
        }
        assert!(told < want, "{what}: told {told}, want {want}");
        assert!(told == 0, "{what}: told {told} of {want}: one change sent twice would follow");
        assert!(began.elapsed() < Duration::from_secs(5), "{what}: told no one");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The next notification of `subscription`, within `within` (`None`: nothing came).
async fn next_within(
    subscription: &mut rmcp::service::Subscription,
    within: Duration,
) -> Option<ServerNotification> {
    match tokio::time::timeout(within, subscription.next()).await {
        Err(_) => None,
        Ok(next) => Some(next.expect("a valid notification").expect("the stream is open")),
    }
}

/// The subscription id a notification is tagged with.
fn tag_of(notification: &ServerNotification) -> Option<rmcp::model::RequestId> {
    use rmcp::model::GetMeta as _;
    notification.get_meta().subscription_id()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscriptions_listen_acks_the_accepted_filter_and_delivers_only_what_it_took() {
    let server = example_server(Duration::ZERO);
    let notifier: Notifier = server.notifier();
    let uri = common::net::serve(server).await;
    let client = connect(&uri, Era::Stateless, false).await;

    let tools_filter = SubscriptionFilter::builder().tools_list_changed().build();
    let mut tools = soon("listen", client.listen(tools_filter.clone())).await.expect("tools stream acked");
    assert_eq!(tools.acknowledged(), &tools_filter);
    let asked = SubscriptionFilter::builder()
        .resources_list_changed()
        .resource_subscriptions(["notes://note/1", "https://example.com/not-served"])
        .build();
    let mut resources = soon("listen", client.listen(asked)).await.expect("resources stream acked");
    let accepted = SubscriptionFilter::builder()
        .resources_list_changed()
        .resource_subscriptions(["notes://note/1"])
        .build();
    assert_eq!(resources.acknowledged(), &accepted, "the URI the server does not serve is dropped");
    assert_ne!(tools.id(), resources.id());

    // The tools change: one listener told, the tools stream, tagged with its id.
    tell_until("tools_list_changed", 1, || notifier.tools_list_changed()).await;
    let heard = next_within(&mut tools, Duration::from_secs(5)).await.expect("the tools stream hears it");
    assert!(matches!(heard, ServerNotification::ToolListChangedNotification(_)), "{heard:?}");
    assert_eq!(tag_of(&heard).as_ref(), Some(tools.id()), "{heard:?}");

    // The resources stream did not get it: the first thing it hears is its own kind.
    tell_until("resources_list_changed", 1, || notifier.resources_list_changed()).await;
    let heard =
        next_within(&mut resources, Duration::from_secs(5)).await.expect("the resources stream hears");
    assert!(matches!(heard, ServerNotification::ResourceListChangedNotification(_)), "{heard:?}");
    assert_eq!(tag_of(&heard).as_ref(), Some(resources.id()), "{heard:?}");
    assert_eq!(notifier.resource_updated("notes://note/1").await, 1);
    assert_eq!(notifier.resource_updated("notes://note/2").await, 0, "not subscribed");
    let heard = next_within(&mut resources, Duration::from_secs(5)).await.expect("the update");
    let ServerNotification::ResourceUpdatedNotification(updated) = &heard else { panic!("{heard:?}") };
    assert_eq!(updated.params.uri, "notes://note/1");
    assert_eq!(notifier.prompts_list_changed().await, 0, "no stream asked for prompts");
    assert!(next_within(&mut tools, Duration::from_millis(300)).await.is_none(), "nothing else");
    assert!(next_within(&mut resources, Duration::from_millis(300)).await.is_none(), "nothing else");

    // A stream the client cancelled is forgotten: told nothing more.
    tools.cancel().await.expect("cancels");
    let began = Instant::now();
    while notifier.tools_list_changed().await != 0 {
        assert!(began.elapsed() < Duration::from_secs(5), "the cancelled stream is still told");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(notifier.resources_list_changed().await, 1, "the other stream is still open");
    client.cancel().await.ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_11_25_session_hears_list_changes_without_listening() {
    let server = example_server(Duration::ZERO);
    let notifier = server.notifier();
    let uri = common::net::serve(server).await;
    let client = connect(&uri, Era::Legacy, false).await;
    // The session is told once it initialized (and its stream of server messages is open).
    tell_until("tools_list_changed", 1, || notifier.tools_list_changed()).await;
    assert_eq!(notifier.resources_list_changed().await, 1);
    let heard = || client.service().heard.lock().unwrap().clone();
    let began = Instant::now();
    while heard().len() < 2 {
        assert!(began.elapsed() < Duration::from_secs(5), "heard only {:?}", heard());
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(heard(), ["tools", "resources"]);
    client.cancel().await.ok();
}

// The official Python SDK.

/// The official Python SDK's interpreter, where `scripts/install-clients` put it
/// (`TOOLCALL_CLIENTS_DIR`, else `~/.cache/toolcall-ci`). `None` when it is not there; in
/// CI (`CI` set) that is a failure, never a skip.
fn python_sdk() -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("TOOLCALL_CLIENTS_DIR").map(std::path::PathBuf::from).or_else(|| {
        std::env::var_os("HOME").map(|home| std::path::Path::new(&home).join(".cache/toolcall-ci"))
    })?;
    let python = dir.join("py/bin/python");
    if python.is_file() {
        return Some(python);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "the official Python SDK is not in {}: run scripts/install-clients",
        dir.display()
    );
    eprintln!("SKIPPED: the official Python SDK is not in {}: run scripts/install-clients", dir.display());
    None
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_listens_for_tools_changes_and_polls_a_task_to_its_result() {
    use tokio::io::AsyncBufReadExt as _;

    let Some(python) = python_sdk() else { return };
    let server = example_server(Duration::ZERO);
    let notifier = server.notifier();
    let uri = common::net::serve(server).await;
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/py_tasks_listen.py");
    let mut child = tokio::process::Command::new(python)
        .arg(script)
        .arg(&uri)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("starts python");
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();

    // It listens; once acknowledged it says so, and the change is announced.
    let first = soon("the Python SDK listening", lines.next_line()).await.unwrap();
    let listening: Value = serde_json::from_str(first.as_deref().unwrap_or("null")).unwrap_or(Value::Null);
    if listening["honored"] != json!({"toolsListChanged": true}) {
        let output = child.wait_with_output().await.unwrap();
        panic!("not listening: {first:?}\n{}", String::from_utf8_lossy(&output.stderr));
    }
    tell_until("tools_list_changed", 1, || notifier.tools_list_changed()).await;

    // The rest of stdout read while it runs (its stderr is read by `wait_with_output`).
    let rest = async {
        let mut rest = String::new();
        while let Ok(Some(line)) = lines.next_line().await {
            rest.push_str(&line);
        }
        rest
    };
    let (rest, output) =
        tokio::time::timeout(Duration::from_secs(60), async { tokio::join!(rest, child.wait_with_output()) })
            .await
            .expect("the Python SDK hung");
    let output = output.unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{}\n{stderr}", output.status);
    let seen: Value = serde_json::from_str(&rest).unwrap_or_else(|e| panic!("{e}: {rest}\n{stderr}"));

    assert_eq!(seen["version"], "2026-07-28", "{seen}");
    assert_eq!(seen["event"], "ToolsListChanged", "{seen}");
    let handle = &seen["handle"];
    assert_eq!(handle["resultType"], "task", "{seen}");
    assert_eq!(handle["status"], "working", "{seen}");
    assert_eq!(handle["pollIntervalMs"], POLL.as_millis() as u64, "{seen}");
    assert_eq!(handle["ttlMs"], TTL.as_millis() as u64, "{seen}");
    assert_eq!(seen["statuses"].as_array().and_then(|s| s.last()), Some(&json!("completed")), "{seen}");
    let result: CallToolResult = serde_json::from_value(seen["result"].clone()).unwrap();
    assert_is_the_export(&result);
    let plain: CallToolResult = serde_json::from_value(seen["plain"].clone()).unwrap();
    assert_eq!(seen["plain"], seen["result"], "the same result without the extension: {seen}");
    assert_is_the_export(&plain);
    assert_eq!(seen["unknown"]["code"], -32602, "{seen}");
    assert_eq!(seen["without_extension"]["code"], -32021, "{seen}");
    assert_eq!(seen["cancel_finished"], json!({"resultType": "complete"}), "{seen}");
    assert_eq!(seen["after_cancel"], "completed", "{seen}");
}
