//! A task's run, on the replica that started it: the task is written to the store before
//! the client gets its handle (so a `tasks/get` right after finds it, on any replica), the
//! call runs in a tokio task of its own, and everything it does lands in the task:
//!
//! - its progress reports become the task's `statusMessage`;
//! - each question it asks (`Progress::elicit`, `ask`, `elicit_url`, `sample`) is an
//!   input request of the task, keyed `q0`, `q1`, ..; while any is unanswered the task is
//!   `input_required`. The answers arrive with `tasks/update` on any replica, through the
//!   store, which the run reads every poll interval. Questions may be asked at once
//!   (`join!`): each is pending until answered, in any order;
//! - a `tasks/cancel` (on any replica) is read from the store as often: the call is
//!   dropped where it waits, and the task is `cancelled`;
//! - its end: `completed` with the result (a tool's error included, `isError`), or
//!   `failed` with the JSON-RPC error when the call could not run or its tool panicked.
//!
//! While it runs, the replica renews the task's lease; a task whose lease lapsed (its
//! replica stopped) is reported `failed` by whichever replica is asked about it
//! ([`super::methods`]).

#![allow(deprecated)] // rmcp marks sampling deprecated (SEP-2577); tasks still carry it.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolResult, ClientCapabilities, CreateMessageRequest, CreateTaskResult, ElicitRequest, ErrorData,
    InputRequest, ProtocolVersion, Task, TaskStatus,
};
use serde_json::{Value, json};
use tokio::sync::Notify;
use toolcall_runtime::{Answer, AskError, AskFuture, LogLevel, Progress, ProgressSink};

use super::store::{TaskRecord, TaskState, TaskStore};
use super::{TaskSettings, epoch_ms, millis};
use crate::arguments::Arguments;
use crate::ask::rounds::Rounds;
use crate::ask::{Can, Kind};
use crate::call::Job;
use crate::context::ErasedContext;
use crate::server::Server;

/// What a task run starts from: the call, as the request handler resolved it.
pub(crate) struct TaskCall {
    /// The tool's place among the server's tools, and its name.
    pub(crate) tool: usize,
    pub(crate) name: String,
    pub(crate) args: Arguments,
    pub(crate) context: ErasedContext,
    pub(crate) version: Option<ProtocolVersion>,
    /// A digest of the caller's identity: only that caller sees the task.
    pub(crate) owner: String,
    /// What the client declared it can be asked.
    pub(crate) capabilities: Option<ClientCapabilities>,
    /// The answers a 2026-07-28 call carried before the tool detached
    /// (`ToolMeta::task_from_detach`): the tool, run again, gets them at once.
    pub(crate) rounds: Option<Arc<Rounds>>,
}

impl Server {
    /// Starts `call` as a task: writes it to the store, spawns its run, and returns the
    /// handle to answer the request with. A store that cannot write it is the request's
    /// error (no handle to a task that is nowhere).
    pub(crate) async fn start_task(&self, call: TaskCall) -> Result<CreateTaskResult, ErrorData> {
        let settings = self.tasks.clone();
        let id = crate::ask::fresh_id()
            .map_err(|e| ErrorData::internal_error(format!("no task id: {e}"), None))?;
        let now = rmcp::task_manager::current_timestamp();
        let record = TaskRecord {
            id,
            owner: call.owner.clone(),
            tool: call.name.clone(),
            state: TaskState::Working,
            status_message: None,
            created_at: now.clone(),
            last_updated_at: now,
            ttl_ms: millis(settings.ttl),
            poll_interval_ms: millis(settings.poll_interval),
            input_requests: BTreeMap::new(),
            result: None,
            error: None,
            replica: settings.replica.clone(),
            lease_until_ms: epoch_ms().saturating_add(millis(settings.lease)),
        };
        settings.store.save(&record).await.map_err(|e| {
            log::warn!("a task could not be stored: {e}");
            ErrorData::internal_error(
                format!("the task could not be stored, so it was not started: {e}"),
                None,
            )
        })?;
        let handle = created(&record);
        let run = Arc::new(TaskRun {
            record: Mutex::new(record),
            store: Arc::clone(&settings.store),
            settings,
            changed: Notify::new(),
            writing: tokio::sync::Mutex::new(()),
            questions: AtomicUsize::new(0),
            next_key: Mutex::new(None),
        });
        let server = self.clone();
        tokio::spawn(async move { server.run_task(run, call).await });
        Ok(handle)
    }

    /// Runs `call` as the task `run`, to its end or its cancellation, and writes how it
    /// ended.
    async fn run_task(self, run: Arc<TaskRun>, call: TaskCall) {
        let sink = TaskSink {
            run: Arc::clone(&run),
            can: call.capabilities.as_ref().map(|c| (Can::of(c), c.elicitation.is_some())),
            rounds: call.rounds,
        };
        let limit = self.tool_timeouts.get(call.name.as_str()).copied().unwrap_or(run.settings.ttl);
        let job = Job {
            version: call.version.as_ref(),
            context: call.context,
            name: &call.name,
            tool: Some(call.tool),
            args: call.args,
            arrived: Instant::now(),
            limit: Some(limit),
            after_poll: None,
            progress: Progress::new(sink),
            talk: None,
        };
        let never = std::future::pending();
        let ended = tokio::select! {
            outcome = self.run_for(job, never) => Some(outcome),
            () = run.cancel_requested() => None,
            () = run.keep_written() => None,
        };
        run.finish(ended).await;
    }
}

/// The handle a request is answered with: the task as just created.
fn created(record: &TaskRecord) -> CreateTaskResult {
    CreateTaskResult::new(task_of(record))
}

/// The task's fields every answer about it carries.
pub(crate) fn task_of(record: &TaskRecord) -> Task {
    let mut task =
        Task::new(&record.id, status_of(record.state), &record.created_at, &record.last_updated_at)
            .with_ttl_ms(record.ttl_ms)
            .with_poll_interval_ms(record.poll_interval_ms);
    task.status_message = record.status_message.clone();
    task
}

/// rmcp's name for `state`.
pub(crate) fn status_of(state: TaskState) -> TaskStatus {
    match state {
        TaskState::Working => TaskStatus::Working,
        TaskState::InputRequired => TaskStatus::InputRequired,
        TaskState::Completed => TaskStatus::Completed,
        TaskState::Failed => TaskStatus::Failed,
        TaskState::Cancelled => TaskStatus::Cancelled,
    }
}

/// One running task on this replica: its record (this replica is its one writer), and
/// what writes it.
pub(crate) struct TaskRun {
    record: Mutex<TaskRecord>,
    store: Arc<dyn TaskStore>,
    settings: TaskSettings,
    /// Woken when the record changed and should be written.
    changed: Notify,
    /// Held while a write is under way, so writes land in order, each of the latest record.
    writing: tokio::sync::Mutex<()>,
    /// How many questions the tool asked: the next one's key.
    questions: AtomicUsize,
    /// The key the next question carries ([`toolcall_runtime::Progress::keyed`]).
    next_key: Mutex<Option<String>>,
}

impl TaskRun {
    /// Changes the record with `change` and has it written.
    fn change(&self, change: impl FnOnce(&mut TaskRecord)) {
        {
            let mut record = self.record.lock().unwrap_or_else(PoisonError::into_inner);
            change(&mut record);
            record.last_updated_at = rmcp::task_manager::current_timestamp();
        }
        self.changed.notify_one();
    }

    /// The task's id.
    fn id(&self) -> String {
        self.record.lock().unwrap_or_else(PoisonError::into_inner).id.clone()
    }

    /// Writes the latest record, its lease renewed.
    async fn write(&self) {
        let _writing = self.writing.lock().await;
        let record = {
            let mut record = self.record.lock().unwrap_or_else(PoisonError::into_inner);
            record.lease_until_ms = epoch_ms().saturating_add(millis(self.settings.lease));
            record.clone()
        };
        if let Err(error) = self.store.save(&record).await {
            log::warn!("task {} could not be written: {error}", record.id);
        }
    }

    /// Writes the record whenever it changes, and at least three times a lease; never
    /// resolves.
    async fn keep_written(&self) {
        let renew = self.settings.lease / 3;
        loop {
            let _ = tokio::time::timeout(renew, self.changed.notified()).await;
            self.write().await;
        }
    }

    /// Resolves once the client asked to cancel the task (read every poll interval).
    async fn cancel_requested(&self) {
        let id = self.id();
        loop {
            tokio::time::sleep(self.settings.poll_interval.min(Duration::from_millis(200))).await;
            if self.store.is_cancelled(&id).await.unwrap_or(false) {
                return;
            }
        }
    }

    /// The answer to question `key`, once the client gave it (read every poll interval).
    async fn answer_to(&self, key: &str) -> Value {
        let id = self.id();
        loop {
            if let Ok(mut answers) = self.store.answers(&id).await
                && let Some(answer) = answers.remove(key)
            {
                return answer;
            }
            tokio::time::sleep(self.settings.poll_interval.min(Duration::from_millis(100))).await;
        }
    }

    /// Writes how the task ended: its result, its error, or (`None`) its cancellation.
    async fn finish(&self, ended: Option<Result<CallToolResult, ErrorData>>) {
        self.change(|record| {
            record.input_requests.clear();
            match ended {
                None => record.state = TaskState::Cancelled,
                Some(Ok(result)) if panicked(&result) => {
                    record.state = TaskState::Failed;
                    let message = result.content.first().and_then(|c| c.as_text()).map(|t| t.text.clone());
                    record.error = Some(json!({"code": -32603, "message": message.unwrap_or_else(|| "the tool panicked".to_owned())}));
                }
                Some(Ok(result)) => {
                    record.state = TaskState::Completed;
                    record.result = Some(serde_json::to_value(&result).unwrap_or(Value::Null));
                }
                Some(Err(error)) => {
                    record.state = TaskState::Failed;
                    record.error = Some(serde_json::to_value(&error).unwrap_or(Value::Null));
                }
            }
        });
        self.write().await;
    }
}

/// Whether `result` is the error result of a tool that panicked: a failure of the call,
/// not a tool's answer, so the task fails.
fn panicked(result: &CallToolResult) -> bool {
    crate::error_json(result).and_then(|json| json.get("error")).and_then(Value::as_str) == Some("panicked")
}

/// A task's `Progress` sink: reports become its status message, questions its input
/// requests.
struct TaskSink {
    run: Arc<TaskRun>,
    /// What the client declared it can be asked; `None`: nothing.
    can: Option<(Can, bool)>,
    rounds: Option<Arc<Rounds>>,
}

impl TaskSink {
    /// Asks `request` (of `kind`, the question `question`): from the answers the request
    /// carried before the tool detached when one matches, else as the task's next input
    /// request, waiting for the client's answer; read with `read`.
    fn ask<T: Send + 'static>(
        &self,
        kind: Kind,
        question: Value,
        request: Result<InputRequest, AskError>,
        read: fn(&Value) -> Result<T, AskError>,
    ) -> AskFuture<T> {
        if let Some(answer) = self.rounds.as_ref().and_then(|rounds| rounds.answered(kind, &question)) {
            return Box::pin(std::future::ready(read(&answer)));
        }
        let refusal = match self.can {
            Some((can, elicitation)) => can.refusal(kind, elicitation),
            None => Some(format!("the client has not said what it supports; {}", crate::ask::can_not(kind))),
        };
        if let Some(why) = refusal {
            return Box::pin(std::future::ready(Err(AskError::Unsupported(why))));
        }
        let request = match request
            .and_then(|r| serde_json::to_value(r).map_err(|e| AskError::Failed(e.to_string())))
        {
            Ok(request) => request,
            Err(error) => return Box::pin(std::future::ready(Err(error))),
        };
        let number = self.run.questions.fetch_add(1, Ordering::SeqCst);
        let named = self.run.next_key.lock().unwrap_or_else(PoisonError::into_inner).take();
        let key = named.unwrap_or_else(|| format!("q{number}"));
        self.run.change(|record| {
            record.input_requests.insert(key.clone(), request);
            record.state = TaskState::InputRequired;
        });
        let run = Arc::clone(&self.run);
        Box::pin(async move {
            let answer = run.answer_to(&key).await;
            run.change(|record| {
                record.input_requests.remove(&key);
                if record.input_requests.is_empty() && record.state == TaskState::InputRequired {
                    record.state = TaskState::Working;
                }
            });
            let answer = crate::ask::rounds::read_response(kind, &answer).map_err(AskError::Failed)?;
            read(&answer)
        })
    }
}

impl ProgressSink for TaskSink {
    fn progress(&self, done: u64, total: Option<u64>, message: &str) {
        let text = match (message.is_empty(), total) {
            (false, _) => message.to_owned(),
            (true, Some(total)) => format!("{done} of {total}"),
            (true, None) => format!("{done} done"),
        };
        self.run.change(|record| record.status_message = Some(text));
    }

    fn log(&self, _: LogLevel, _: &str) {}

    fn elicit(&self, message: &str, schema: &Value) -> AskFuture<Answer> {
        let request = crate::ask::form_params(message, schema)
            .map(|p| InputRequest::Elicitation(ElicitRequest::new(p)));
        self.ask(Kind::Form, json!({"message": message, "schema": schema}), request, |a| {
            crate::ask::rounds::elicited(a, true)
        })
    }

    fn elicit_url(&self, message: &str, url: &str) -> AskFuture<Answer<()>> {
        let request = crate::ask::url_params(message, url, "")
            .map(|p| InputRequest::Elicitation(ElicitRequest::new(p)));
        self.ask(Kind::Url, json!({"message": message, "url": url}), request, crate::ask::rounds::visited)
    }

    fn name_next(&self, key: &str) {
        *self.run.next_key.lock().unwrap_or_else(PoisonError::into_inner) = Some(key.to_owned());
    }

    fn roots(&self) -> AskFuture<Vec<toolcall_runtime::Root>> {
        let request = Ok(InputRequest::ListRoots(rmcp::model::ListRootsRequest::default()));
        self.ask(Kind::Roots, json!({"roots": true}), request, crate::ask::rounds::read_roots)
    }

    fn sample(&self, prompt: &str, max_tokens: u32) -> AskFuture<String> {
        let request = crate::ask::sample_params(prompt, max_tokens)
            .map(|p| InputRequest::CreateMessage(CreateMessageRequest::new(p)));
        self.ask(
            Kind::Sample,
            json!({"prompt": prompt, "maxTokens": max_tokens}),
            request,
            crate::ask::rounds::sampled,
        )
    }
}
