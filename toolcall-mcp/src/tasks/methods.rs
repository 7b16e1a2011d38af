//! `tasks/get`, `tasks/update` and `tasks/cancel`, answered by any replica from the store:
//! each needs a client that declared the extension (else error -32021), and a task id
//! this caller started (else -32602, the same whether the task never existed, expired or
//! is another caller's). A task that is not over and whose lease lapsed (the replica
//! running it stopped) is written and reported `failed`, saying so.

use std::collections::BTreeMap;

use rmcp::model::{
    CancelTaskParams, DetailedTask, ErrorData, GetTaskParams, GetTaskResult, InputRequests, JsonObject,
    TaskPayload, UpdateTaskParams,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Value, json};

use super::run::task_of;
use super::store::{TaskRecord, TaskState};
use super::{client_takes_tasks, epoch_ms, missing_extension};
use crate::server::Server;

impl Server {
    /// `tasks/get`: the task as it stands, its pending questions, result or error inlined.
    pub(crate) async fn task_get(
        &self,
        params: GetTaskParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        if !client_takes_tasks(context) {
            return Err(missing_extension("tasks/get"));
        }
        let record = self.owned_task(&params.task_id, context).await?;
        let answered = self.tasks.store.answers(&record.id).await.map_err(store_failed)?;
        Ok(GetTaskResult::new(detailed(record, &answered)))
    }

    /// `tasks/update`: the client's answers to pending questions (answers to questions the
    /// task does not wait for are ignored, as the extension says).
    pub(crate) async fn task_update(
        &self,
        params: UpdateTaskParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if !client_takes_tasks(context) {
            return Err(missing_extension("tasks/update"));
        }
        let record = self.owned_task(&params.task_id, context).await?;
        let answers: BTreeMap<String, Value> = params
            .input_responses
            .into_iter()
            .filter(|(key, _)| record.input_requests.contains_key(key))
            .collect();
        if !record.state.is_terminal() && !answers.is_empty() {
            self.tasks.store.answer(&record.id, &answers).await.map_err(store_failed)?;
        }
        Ok(())
    }

    /// `tasks/cancel`: asks the running replica to stop the task; a task already over is
    /// left as it is (the same empty answer).
    pub(crate) async fn task_cancel(
        &self,
        params: CancelTaskParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if !client_takes_tasks(context) {
            return Err(missing_extension("tasks/cancel"));
        }
        let record = self.owned_task(&params.task_id, context).await?;
        if !record.state.is_terminal() {
            self.tasks.store.cancel(&record.id).await.map_err(store_failed)?;
        }
        Ok(())
    }

    /// The task `id` of the caller of `context`, failed first if its lease lapsed.
    async fn owned_task(
        &self,
        id: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<TaskRecord, ErrorData> {
        let unknown = || {
            ErrorData::invalid_params(
                format!(
                    "unknown task {:?}: no task of this caller has that id (it may have expired)",
                    crate::error::cut(id, 80)
                ),
                Some(json!({"error": "unknown_task"})),
            )
        };
        let record = self.tasks.store.load(id).await.map_err(store_failed)?.ok_or_else(unknown)?;
        if record.owner != super::owner_of(context) {
            return Err(unknown());
        }
        if record.state.is_terminal() || epoch_ms() <= record.lease_until_ms {
            return Ok(record);
        }
        let mut failed = record;
        failed.state = TaskState::Failed;
        failed.input_requests.clear();
        failed.last_updated_at = rmcp::task_manager::current_timestamp();
        failed.error = Some(json!({
            "code": -32603,
            "message": format!(
                "the server replica running this task ({}) stopped: it has not renewed the task for longer than its lease",
                failed.replica,
            ),
            "data": {"error": "replica_lost", "replica": failed.replica},
        }));
        log::warn!("task {} is failed: its replica {} stopped renewing it", failed.id, failed.replica);
        self.tasks.store.save(&failed).await.map_err(store_failed)?;
        Ok(failed)
    }
}

/// The error of a request the task store could not serve.
fn store_failed(error: super::TaskStoreError) -> ErrorData {
    log::warn!("{error}");
    ErrorData::internal_error(format!("{error}; try again"), Some(json!({"error": "task_store"})))
}

/// What `tasks/get` answers for `record`, the client's `answered` questions taken out of
/// its pending ones (a task whose every question is answered is working again).
pub(crate) fn detailed(record: TaskRecord, answered: &BTreeMap<String, Value>) -> DetailedTask {
    let pending: InputRequests = record
        .input_requests
        .iter()
        .filter(|(key, _)| !answered.contains_key(*key))
        .filter_map(|(key, request)| Some((key.clone(), serde_json::from_value(request.clone()).ok()?)))
        .collect();
    let object = |value: &Option<Value>| match value {
        Some(Value::Object(object)) => object.clone(),
        _ => JsonObject::new(),
    };
    let payload = match record.state {
        TaskState::InputRequired if !pending.is_empty() => {
            TaskPayload::InputRequired { input_requests: pending }
        }
        TaskState::Working | TaskState::InputRequired => TaskPayload::Working,
        TaskState::Completed => TaskPayload::Completed { result: object(&record.result) },
        TaskState::Failed => TaskPayload::Failed { error: object(&record.error) },
        TaskState::Cancelled => TaskPayload::Cancelled,
    };
    DetailedTask::new(task_of(&record), payload)
}
