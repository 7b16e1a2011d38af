//! When a `tools/call` becomes a task: at once, for a task tool called by a client that
//! takes tasks; where its tool detaches, for a `task_from_detach` tool called by a
//! 2026-07-28 client that takes tasks (its questions before went through input-required
//! rounds, whose answers the task's run gets again); never otherwise. A `task_required`
//! tool called by a client that does not take tasks is error -32021.

use std::sync::Arc;

use rmcp::model::{CallToolResponse, ErrorData};
use rmcp::service::{RequestContext, RoleServer};
use toolcall_runtime::TaskSupport;

use super::run::TaskCall;
use super::{client_takes_tasks, missing_extension, owner_of};
use crate::arguments::Arguments;
use crate::ask::rounds::Rounds;
use crate::context::ErasedContext;
use crate::server::Server;

/// When a call becomes a task.
pub(crate) enum TaskStart {
    /// Now: the client gets the task's handle.
    Now,
    /// Where its tool detaches (`Progress::detach`).
    AtDetach,
    /// Never: it runs as any call.
    Never,
}

impl Server {
    /// When the call of `name` (at `tool` among the server's tools) by the client of
    /// `context` becomes a task; `stateless`: the client is on 2026-07-28.
    pub(crate) fn task_of(
        &self,
        tool: Option<usize>,
        stateless: bool,
        name: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<TaskStart, ErrorData> {
        let Some(policy) = tool.and_then(|i| self.infos.get(i).copied().flatten()).and_then(|info| info.task)
        else {
            return Ok(TaskStart::Never);
        };
        if !client_takes_tasks(context) {
            return match policy.support {
                TaskSupport::Required => Err(missing_extension(&format!(
                    "tool `{}` runs only as a task, so its call",
                    crate::error::cut(name, 120)
                ))),
                TaskSupport::Optional => Ok(TaskStart::Never),
            };
        }
        // Before 2026-07-28 a tool's questions go to the client as requests, which a task's
        // run cannot send: its task starts at once.
        Ok(if policy.at_detach && stateless { TaskStart::AtDetach } else { TaskStart::Now })
    }

    /// The task run of the call of `name` with `args` by `caller`, with the answers of its
    /// `rounds` before it detached.
    pub(crate) fn task_call(
        &self,
        tool: Option<usize>,
        name: &str,
        args: Arguments,
        caller: ErasedContext,
        rounds: Option<Arc<Rounds>>,
        context: &RequestContext<RoleServer>,
    ) -> Result<TaskCall, ErrorData> {
        let tool = tool.ok_or_else(|| ErrorData::internal_error("a task of no tool", None))?;
        Ok(TaskCall {
            tool,
            name: name.to_owned(),
            args,
            context: caller,
            version: context.protocol_version(),
            owner: owner_of(context),
            capabilities: context.client_capabilities(),
            rounds,
        })
    }

    /// A call whose tool detached: run again from its start as a task, its questions up to
    /// there answered from `rounds`.
    pub(crate) async fn continue_as_task(
        &self,
        rounds: &Arc<Rounds>,
        args: &Arguments,
        name: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        rounds.rewind();
        let caller = self.context_of(context)?;
        let tool = self.place_of(name);
        let call = self.task_call(tool, name, args.clone(), caller, Some(Arc::clone(rounds)), context)?;
        self.start_task(call).await.map(Into::into)
    }
}
