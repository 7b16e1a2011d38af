//! The MCP protocol side of [`McpServer`]: rmcp's `ServerHandler`, answering
//! `initialize`/`server/discover`, `tools/list`, `tools/call`, `logging/setLevel`, and,
//! when the server has them, resources, prompts and completions. A 2026-07-28 call whose
//! tool asks the client ends with an input-required result ([`crate::ask::rounds`]).
//!
//! Each request it answers runs in a server span ([`crate::telemetry::Served`]): its
//! method, its target (tool, prompt, resource) and how it ended.

use rmcp::ServerHandler;
#[cfg(any(feature = "resources", feature = "prompts"))]
use std::collections::BTreeMap;
#[cfg(feature = "ask")]
use std::sync::Arc;

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, DiscoverResult, ErrorData, Implementation,
    InitializeRequestParams, InitializeResult, ListToolsResult, PaginatedRequestParams, ProtocolVersion,
    ServerCapabilities, ServerConfig, Tool,
};
#[cfg(any(feature = "resources", feature = "prompts"))]
use rmcp::model::{CompleteRequestParams, CompleteResult, CompletionInfo, Reference};
#[cfg(feature = "prompts")]
use rmcp::model::{
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, ListPromptsResult, PromptsCapability,
};
#[cfg(feature = "resources")]
use rmcp::model::{
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, ResourcesCapability, SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;

use crate::arguments::Arguments;
#[cfg(feature = "ask")]
use crate::ask::rounds;
use crate::call::{Job, arrival};
use crate::server::{McpServer, Server};
use crate::talk;
#[cfg(feature = "tasks")]
use crate::tasks::start::TaskStart;
use crate::telemetry::Served;

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        // rmcp marks MCP logging deprecated (SEP-2577, a future protocol); every version
        // up to 2025-11-25 has it.
        #[allow(deprecated)]
        #[cfg_attr(not(any(feature = "resources", feature = "prompts")), allow(unused_mut))]
        let mut capabilities = ServerCapabilities::builder().enable_tools().enable_logging().build();
        #[cfg(feature = "resources")]
        if self.resources.is_some() {
            let mut resources = ResourcesCapability::default();
            resources.subscribe = Some(true);
            resources.list_changed = Some(true);
            capabilities.resources = Some(resources);
            capabilities.completions = Some(Default::default());
        }
        #[cfg(feature = "prompts")]
        if self.prompts.is_some() {
            let mut prompts = PromptsCapability::default();
            // Told through the server's `Notifier` (sessions of earlier revisions hear it
            // with feature `resources`, which keeps them).
            prompts.list_changed = cfg!(feature = "resources").then_some(true);
            capabilities.prompts = Some(prompts);
            capabilities.completions = Some(Default::default());
        }
        #[cfg(feature = "resources")]
        if let Some(tools) = &mut capabilities.tools {
            tools.list_changed = Some(true);
        }
        #[cfg(feature = "tasks")]
        if self.infos.iter().flatten().any(|info| info.task.is_some()) {
            let extensions = capabilities.extensions.get_or_insert_with(Default::default);
            extensions.insert(crate::tasks::TASKS_EXTENSION.to_owned(), Default::default());
        }
        let mut config = ServerConfig::new(capabilities)
            .with_server_info(Implementation::new(self.name.clone(), self.version.clone()));
        if let Some(text) = &self.instructions {
            config = config.with_instructions(text.clone());
        }
        config
    }

    /// A session that initialized is told when the lists change
    /// ([`Notifier`](crate::Notifier)).
    #[cfg(feature = "resources")]
    async fn on_initialized(&self, context: rmcp::service::NotificationContext<RoleServer>) {
        self.subscriptions.listen(context.peer);
    }

    /// What a `subscriptions/listen` stream gets of what it asked for: list changes, and
    /// updates of resources this server serves (rmcp keeps what the capabilities declare).
    fn accepted_subscription_filter(
        &self,
        requested: &rmcp::model::SubscriptionFilter,
    ) -> Option<rmcp::model::SubscriptionFilter> {
        #[cfg(feature = "resources")]
        let serves = |uri: &str| self.resources.as_ref().is_some_and(|r| r.knows(uri));
        #[cfg(not(feature = "resources"))]
        let serves = |_: &str| false;
        Some(crate::listen::accepted(requested, serves))
    }

    /// One `subscriptions/listen` stream, open until the client ends it.
    async fn listen(&self, context: rmcp::service::SubscriptionContext) -> Result<(), ErrorData> {
        self.listeners.serve(context).await;
        Ok(())
    }

    /// rmcp's `initialize` (the peer's info kept, the version negotiated), in a span.
    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        let served = Served::begin("initialize", &context).protocol(&request.protocol_version);
        served
            .run(async move {
                context.peer.set_peer_info(request.clone());
                let negotiated = self.negotiate_initialize(&request);
                if let Ok(result) = &negotiated {
                    // Over HTTP, the session's calls may now be answered without rmcp's
                    // session worker (`streamable_http::hot`).
                    self.log_level.initialized(
                        &context.peer,
                        &result.protocol_version,
                        &request.capabilities,
                    );
                }
                negotiated
            })
            .await
    }

    /// rmcp's `ping`, in a span.
    async fn ping(&self, context: RequestContext<RoleServer>) -> Result<(), ErrorData> {
        Served::begin("ping", &context).run(async { Ok(()) }).await
    }

    /// 2026-07-28's `server/discover`: what `initialize` says (capabilities, server info,
    /// instructions), cacheable as `tools/list` is (the server's answer is fixed at
    /// start: [`McpServer::list_ttl`], public).
    async fn discover(&self, context: RequestContext<RoleServer>) -> Result<DiscoverResult, ErrorData> {
        Served::begin("server/discover", &context)
            .run(async {
                let mut result = DiscoverResult::from_server_info(
                    self.supported_protocol_versions().into_owned(),
                    self.get_info(),
                );
                result.ttl_ms = u64::try_from(self.list_ttl.as_millis()).unwrap_or(u64::MAX);
                result.cache_scope = CacheScope::Public;
                Ok(result)
            })
            .await
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Served::begin("tools/list", &context)
            .run(async {
                let caller = self.context_of(&context)?;
                let cursor = request.as_ref().and_then(|r| r.cursor.as_deref());
                self.page(&caller, cursor, context.protocol_version().as_ref())
            })
            .await
    }

    async fn call_tool(
        &self,
        mut request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = Arguments::Value(Value::Object(request.arguments.take().unwrap_or_default()));
        self.call_tool_with(request, args, &self.log_level, context).await
    }

    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Served::begin("logging/setLevel", &context)
            .run(async {
                let level = talk::level_of(request.level)
                    .ok_or_else(|| ErrorData::invalid_params("unknown log level", None))?;
                self.log_level.set(level);
                Ok(())
            })
            .await
    }

    #[cfg(feature = "resources")]
    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Served::begin("resources/list", &context)
            .run(async {
                let caller = self.context_of(&context)?;
                let resources = match &self.resources {
                    Some(resources) => resources.list(caller).await,
                    None => Vec::new(),
                };
                Ok(ListResourcesResult::with_all_items(resources))
            })
            .await
    }

    #[cfg(feature = "resources")]
    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Served::begin("resources/templates/list", &context)
            .run(async {
                let templates = self.resources.as_ref().map(|r| r.templates()).unwrap_or_default();
                Ok(ListResourceTemplatesResult::with_all_items(templates))
            })
            .await
    }

    #[cfg(feature = "resources")]
    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        Served::begin("resources/read", &context)
            .resource(&request.uri)
            .run(async {
                let caller = self.context_of(&context)?;
                let Some(resources) = &self.resources else {
                    return Err(crate::resources::not_found(&request.uri));
                };
                let contents = resources.read(caller, &request.uri).await?;
                Ok(ReadResourceResult::new(contents).into())
            })
            .await
    }

    #[cfg(feature = "resources")]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let served = Served::begin("resources/subscribe", &context).resource(&request.uri);
        served
            .run(async {
                match &self.resources {
                    Some(resources) if resources.knows(&request.uri) => {
                        self.subscriptions.subscribe(self.session, &request.uri, context.peer.clone());
                        Ok(())
                    }
                    _ => Err(crate::resources::not_found(&request.uri)),
                }
            })
            .await
    }

    #[cfg(feature = "resources")]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Served::begin("resources/unsubscribe", &context)
            .resource(&request.uri)
            .run(async {
                self.subscriptions.unsubscribe(self.session, &request.uri);
                Ok(())
            })
            .await
    }

    #[cfg(feature = "prompts")]
    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Served::begin("prompts/list", &context)
            .run(async {
                Ok(ListPromptsResult::with_all_items(
                    self.prompts.as_ref().map(|p| p.list()).unwrap_or_default(),
                ))
            })
            .await
    }

    #[cfg(feature = "prompts")]
    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let served = Served::begin("prompts/get", &context);
        // Whether the prompt exists, asked only when the span is recorded (the list is
        // cloned to answer).
        let known = (served.is_recording() || cfg!(feature = "otel"))
            && self
                .prompts
                .as_ref()
                .is_some_and(|p| p.list().iter().any(|prompt| prompt.name == request.name));
        let served = served.prompt(&request.name, known);
        served.run(self.get_prompt_untraced(request, context)).await
    }

    #[cfg(any(feature = "resources", feature = "prompts"))]
    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        Served::begin("completion/complete", &context).run(self.complete_untraced(request, context)).await
    }

    /// A tool's definition, for rmcp's checks of a request's `Mcp-Param-*` headers. With a
    /// [`McpServer::tool_filter`] this knows no caller, so it names no tool (the checks
    /// then read the headers alone): a hidden tool answers as an unknown one here too.
    fn get_tool(&self, name: &str) -> Option<Tool> {
        if self.filter.is_some() {
            return None;
        }
        self.place_of(name).and_then(|at| self.tools.get(at)).cloned()
    }

    /// The Tasks extension's `tasks/get` ([`crate::tasks::methods`]), in a span.
    #[cfg(feature = "tasks")]
    async fn get_task(
        &self,
        request: rmcp::model::GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetTaskResult, ErrorData> {
        Served::begin("tasks/get", &context).run(self.task_get(request, &context)).await
    }

    /// The Tasks extension's `tasks/update`, in a span.
    #[cfg(feature = "tasks")]
    async fn update_task(
        &self,
        request: rmcp::model::UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Served::begin("tasks/update", &context).run(self.task_update(request, &context)).await
    }

    /// The Tasks extension's `tasks/cancel`, in a span.
    #[cfg(feature = "tasks")]
    async fn cancel_task(
        &self,
        request: rmcp::model::CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Served::begin("tasks/cancel", &context).run(self.task_cancel(request, &context)).await
    }
}

impl Server {
    /// `tools/call` of `request` with `args` (its arguments, taken out of it: parsed by
    /// rmcp, or the text of the HTTP layer's hot path), in a server span, for a session
    /// whose log level is `session`.
    pub(crate) fn call_tool_with(
        &self,
        request: CallToolRequestParams,
        args: Arguments,
        session: &talk::SessionLevel,
        context: RequestContext<RoleServer>,
    ) -> impl std::future::Future<Output = Result<CallToolResponse, ErrorData>> {
        async move {
            // The tool's place among the server's tools and the revision the request speaks,
            // each found once for the span and the call (a revision's reading is a lookup and
            // a clone).
            let tool = self.place_of(&request.name);
            let version = crate::revision::version_of(&context);
            let known = || tool.map(|at| self.name_of(Some(at), &request.name));
            let served =
                Served::begin_on("tools/call", &context, version.as_ref()).tool(&request.name, known);
            // Boxed: the call's future is large, and handed down by value it would be copied
            // into each future that holds it on the way.
            let call = crate::boxed::boxed(|| {
                self.call_tool_untraced(request, (tool, version), args, session, context)
            });
            served.run_judged(call, tool_error).await
        }
    }

    /// `tools/call`, in the span [`Server::call_tool_with`] opens, of `tool` (the place of
    /// the tool `request` names among the server's tools, if any) by a client on `version`.
    fn call_tool_untraced(
        &self,
        request: CallToolRequestParams,
        (tool, version): (Option<usize>, Option<ProtocolVersion>),
        args: Arguments,
        session: &talk::SessionLevel,
        context: RequestContext<RoleServer>,
    ) -> impl std::future::Future<Output = Result<CallToolResponse, ErrorData>> {
        async move {
            let caller = self.context_of(&context)?;
            let arrived = arrival(&context);
            if !tool.is_some_and(|i| self.shows(&caller, self.infos[i])) {
                return Err(self.unknown_tool(&caller, &request.name));
            }
            // 2026-07-28: a client's disconnect cancels its request. Earlier revisions say the
            // opposite (a disconnect is not a cancellation; the client may resume the stream
            // with Last-Event-ID), so their calls go on.
            let stateless = crate::revision::speaks_stateless(version.as_ref());
            #[cfg(feature = "tasks")]
            let detachable = match self.task_of(tool, stateless, &request.name, &context)? {
                TaskStart::Now => {
                    let call = self.task_call(tool, &request.name, args, caller, None, &context);
                    // Boxed, as the other rare branches: the future of a call that is not a task
                    // stays small.
                    return Box::pin(self.start_task(call?)).await.map(Into::into);
                }
                TaskStart::AtDetach => true,
                TaskStart::Never => false,
            };
            #[cfg(feature = "ask")]
            let rounds = self.rounds(stateless, &request, &args, &context)?;
            #[cfg(feature = "tasks")]
            if let (true, Some((rounds, _))) = (detachable, &rounds) {
                rounds.detach_into_task();
            }
            #[cfg(feature = "ask")]
            let asking = rounds.as_ref().map(|(rounds, _)| Arc::clone(rounds));
            #[cfg(not(feature = "ask"))]
            let asking = ();
            let name = self.name_of(tool, &request.name);
            let (progress, talk) =
                talk::Talk::new(&context, stateless, session, self.default_log_level, name, asking);
            let disconnect = context
                .extensions
                .get::<http::request::Parts>()
                .and_then(|parts| parts.extensions.get::<crate::request::Arrived>()?.disconnect.as_ref())
                .filter(|_| stateless)
                .cloned();
            let cancelled = cancelled_or_gone(context.ct.clone().cancelled_owned(), disconnect);
            let job = Job {
                version: version.as_ref(),
                context: caller,
                name: &request.name,
                tool,
                args,
                arrived,
                limit: None,
                #[cfg(feature = "ask")]
                after_poll: after_poll(&rounds),
                #[cfg(not(feature = "ask"))]
                after_poll: None,
                progress,
                talk: Some(talk),
            };
            #[cfg(feature = "ask")]
            // Boxed where it is made: this future (kilobytes) would be built apart and
            // copied into this one's.
            return crate::boxed::boxed(|| self.run_asking(job, cancelled, rounds, &request.name, &context))
                .await;
            #[cfg(not(feature = "ask"))]
            crate::boxed::boxed(|| self.run_for(job, cancelled)).await.map(Into::into)
        }
    }

    /// The rounds of a 2026-07-28 call (`stateless`), whose tool's questions end the call
    /// with an input-required result, and whose retry answers them (`ask::rounds`), with
    /// the call's arguments; `None` before 2026-07-28. Its `requestState` is opened here,
    /// before the tool runs. The state is bound to the arguments' digest, worked out only
    /// when a state is opened or sealed.
    #[cfg(feature = "ask")]
    fn rounds(
        &self,
        stateless: bool,
        request: &CallToolRequestParams,
        args: &Arguments,
        context: &RequestContext<RoleServer>,
    ) -> Result<Option<(Arc<rounds::Rounds>, Arguments)>, ErrorData> {
        if !stateless {
            return Ok(None);
        }
        let binding = request
            .request_state
            .is_some()
            .then(|| rounds::binding(&crate::request::identity(context), &request.name, &args.to_value()));
        let capabilities = crate::meta::client_capabilities_of(context);
        let binding = binding.unwrap_or_default();
        let rounds = rounds::Rounds::begin(&self.request_states, capabilities.as_ref(), request, &binding)?;
        Ok(Some((Arc::new(rounds), args.clone())))
    }

    /// The rounds of a 2026-07-28 `prompts/get` (`None` before 2026-07-28), and what its
    /// state is bound to: the caller, the prompt and its arguments.
    #[cfg(all(feature = "ask", feature = "prompts"))]
    #[allow(clippy::type_complexity)]
    fn prompt_rounds(
        &self,
        request: &GetPromptRequestParams,
        arguments: &BTreeMap<String, String>,
        context: &RequestContext<RoleServer>,
    ) -> Result<Option<(Arc<rounds::Rounds>, Vec<u8>)>, ErrorData> {
        if !crate::revision::speaks_stateless(crate::revision::version_of(context).as_ref()) {
            return Ok(None);
        }
        let arguments = serde_json::to_value(arguments).unwrap_or(Value::Null);
        let binding = rounds::binding(
            &crate::request::identity(context),
            &format!("prompts/get {}", request.name),
            &arguments,
        );
        let capabilities = context.client_capabilities();
        let (state, responses) = (request.request_state.as_ref(), request.input_responses.as_ref());
        let rounds = rounds::Rounds::begin_with(
            &self.request_states,
            capabilities.as_ref(),
            state,
            responses,
            &binding,
        )?;
        Ok(Some((Arc::new(rounds), binding)))
    }

    /// Runs `job` until it ends or its tool asks a question its `rounds` cannot answer:
    /// then the call's future is dropped (the tool stops at the question) and the client
    /// gets the question to answer. (One `select!` whether or not there are rounds: the
    /// call's future, which is large, has one place in this one.)
    #[cfg(feature = "ask")]
    fn run_asking(
        &self,
        job: Job<'_>,
        cancelled: impl std::future::Future<Output = ()>,
        rounds: Option<(Arc<rounds::Rounds>, Arguments)>,
        tool: &str,
        context: &RequestContext<RoleServer>,
    ) -> impl std::future::Future<Output = Result<CallToolResponse, ErrorData>> {
        async move {
            let asked = async {
                match &rounds {
                    Some(round) => {
                        round.0.asked().await;
                        round
                    }
                    None => std::future::pending().await,
                }
            };
            // A tool that detached (`ToolMeta::task_from_detach`) goes on as a task.
            let detached = async {
                #[cfg(feature = "tasks")]
                if let Some(round) = &rounds {
                    round.0.detached().await;
                    return round;
                }
                std::future::pending().await
            };
            tokio::select! {
                biased;
                outcome = self.run_for(job, cancelled) => match (outcome, &rounds) {
                    // A tool that failed after asking for what the client lacks: -32021.
                    (Ok(result), Some((rounds, _))) if result.is_error == Some(true) => {
                        let failed = result.content.first().and_then(|c| c.as_text()).map_or("", |t| t.text.as_str());
                        rounds.missing(failed).map_or(Ok(result.into()), Err)
                    }
                    (outcome, _) => outcome.map(Into::into),
                },
                (rounds, args) = asked => {
                    let binding = rounds::binding(&crate::request::identity(context), tool, &args.to_value());
                    rounds.input_required(&self.request_states, &binding).map(Into::into)
                }
                (rounds, args) = detached => Box::pin(self.continue_as_task(rounds, args, tool, context)).await,
            }
        }
    }

    /// Without feature `tasks` no call detaches into a task.
    #[cfg(all(feature = "ask", not(feature = "tasks")))]
    async fn continue_as_task(
        &self,
        _: &std::sync::Arc<rounds::Rounds>,
        _: &Arguments,
        _: &str,
        _: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        Err(ErrorData::internal_error("no call becomes a task without feature `tasks`", None))
    }

    /// `prompts/get`, in the span [`ServerHandler::get_prompt`] opens.
    #[cfg(feature = "prompts")]
    async fn get_prompt_untraced(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let caller = self.context_of(&context)?;
        let Some(prompts) = &self.prompts else {
            return Err(ErrorData::invalid_params(
                format!("unknown prompt {:?}; this server has none", request.name),
                None,
            ));
        };
        let mut arguments = BTreeMap::new();
        for (name, value) in request.arguments.clone().unwrap_or_default() {
            let text = match value {
                Value::String(text) => text,
                other => other.to_string(),
            };
            arguments.insert(name, text);
        }
        #[cfg(feature = "ask")]
        if let Some((rounds, binding)) = self.prompt_rounds(&request, &arguments, &context)? {
            let progress = toolcall_runtime::Progress::new(rounds::RoundsSink(Arc::clone(&rounds)));
            let mut get = Box::pin(prompts.get(caller, &request.name, arguments, progress));
            // The round ends once the poll that asked is over (as a tool's call does).
            let polled = std::future::poll_fn(|cx| {
                let polled = get.as_mut().poll(cx);
                rounds.polled();
                polled
            });
            return tokio::select! {
                biased;
                messages = polled => Ok(GetPromptResult::new(messages?).into()),
                () = rounds.asked() => rounds.input_required(&self.request_states, &binding).map(Into::into),
            };
        }
        let messages =
            prompts.get(caller, &request.name, arguments, toolcall_runtime::Progress::default()).await?;
        Ok(GetPromptResult::new(messages).into())
    }

    /// `completion/complete`, in the span [`ServerHandler::complete`] opens.
    #[cfg(any(feature = "resources", feature = "prompts"))]
    async fn complete_untraced(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let caller = self.context_of(&context)?;
        let given: BTreeMap<String, String> =
            request.context.and_then(|c| c.arguments).unwrap_or_default().into_iter().collect();
        let (name, typed) = (&request.argument.name, &request.argument.value);
        let values = match &request.r#ref {
            #[cfg(feature = "prompts")]
            Reference::Prompt(prompt) => {
                self.prompts.as_ref().and_then(|p| p.completions(caller, &prompt.name, name, typed, &given))
            }
            #[cfg(feature = "resources")]
            Reference::Resource(template) => self
                .resources
                .as_ref()
                .and_then(|r| r.completions(caller, &template.uri, name, typed, &given)),
            // A kind of reference this server does not serve, or one a later revision may
            // add: nothing to complete.
            _ => None,
        };
        let mut values = values.unwrap_or_default();
        let total = values.len();
        values.truncate(CompletionInfo::MAX_VALUES);
        let mut completion = CompletionInfo::default();
        completion.has_more = Some(total > values.len());
        completion.total = u32::try_from(total).ok();
        completion.values = values;
        Ok(CompleteResult::new(completion))
    }
}

/// The typed server is a `ServerHandler` too, for rmcp's own service loop
/// (`server.serve(transport)` over any transport rmcp has): each request goes to the
/// server behind it. Served so, rmcp's loop and the handler's futures are compiled in the
/// crate that serves it; the transports of this crate serve the `Server` itself, boxed
/// here, and compile once.
impl<C: Send + Sync + 'static> ServerHandler for McpServer<C> {
    fn get_info(&self) -> ServerConfig {
        self.server.get_info()
    }

    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [ProtocolVersion]> {
        self.server.supported_protocol_versions()
    }

    fn negotiate_initialize(&self, request: &InitializeRequestParams) -> Result<InitializeResult, ErrorData> {
        self.server.negotiate_initialize(request)
    }

    async fn on_initialized(&self, context: rmcp::service::NotificationContext<RoleServer>) {
        self.server.on_initialized(context).await
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        self.server.initialize(request, context).await
    }

    async fn ping(&self, context: RequestContext<RoleServer>) -> Result<(), ErrorData> {
        self.server.ping(context).await
    }

    async fn discover(&self, context: RequestContext<RoleServer>) -> Result<DiscoverResult, ErrorData> {
        self.server.discover(context).await
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.server.list_tools(request, context).await
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.server.call_tool(request, context).await
    }

    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.server.set_level(request, context).await
    }

    #[cfg(feature = "resources")]
    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.server.list_resources(request, context).await
    }

    #[cfg(feature = "resources")]
    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.server.list_resource_templates(request, context).await
    }

    #[cfg(feature = "resources")]
    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.server.read_resource(request, context).await
    }

    #[allow(deprecated)]
    #[cfg(feature = "resources")]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.server.subscribe(request, context).await
    }

    #[allow(deprecated)]
    #[cfg(feature = "resources")]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.server.unsubscribe(request, context).await
    }

    #[cfg(feature = "prompts")]
    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.server.list_prompts(request, context).await
    }

    #[cfg(feature = "prompts")]
    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        self.server.get_prompt(request, context).await
    }

    #[cfg(any(feature = "resources", feature = "prompts"))]
    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        self.server.complete(request, context).await
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.server.get_tool(name)
    }

    fn accepted_subscription_filter(
        &self,
        requested: &rmcp::model::SubscriptionFilter,
    ) -> Option<rmcp::model::SubscriptionFilter> {
        self.server.accepted_subscription_filter(requested)
    }

    async fn listen(&self, context: rmcp::service::SubscriptionContext) -> Result<(), ErrorData> {
        self.server.listen(context).await
    }

    #[cfg(feature = "tasks")]
    async fn get_task(
        &self,
        request: rmcp::model::GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetTaskResult, ErrorData> {
        self.server.get_task(request, context).await
    }

    #[cfg(feature = "tasks")]
    async fn update_task(
        &self,
        request: rmcp::model::UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.server.update_task(request, context).await
    }

    #[cfg(feature = "tasks")]
    async fn cancel_task(
        &self,
        request: rmcp::model::CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.server.cancel_task(request, context).await
    }
}

/// The error result of a call's `response`, if it is one (`isError`).
fn tool_error(response: &CallToolResponse) -> Option<&rmcp::model::CallToolResult> {
    match response {
        CallToolResponse::Complete(result) if result.is_error == Some(true) => Some(result),
        _ => None,
    }
}

/// What ends a round of questions once the poll that asked them is over: nothing without
/// rounds.
#[cfg(feature = "ask")]
fn after_poll(rounds: &Option<(Arc<rounds::Rounds>, Arguments)>) -> Option<crate::call::AfterPoll> {
    let rounds = Arc::clone(&rounds.as_ref()?.0);
    Some(Arc::new(move || rounds.polled()))
}

/// Resolves when the client cancels the request (`notifications/cancelled`) or, over
/// HTTP, goes away before reading its response.
async fn cancelled_or_gone(
    cancelled: impl Future<Output = ()>,
    disconnect: Option<crate::request::Disconnect>,
) {
    match disconnect {
        Some(disconnect) => tokio::select! {
            () = cancelled => {}
            () = disconnect.fired() => {}
        },
        None => cancelled.await,
    }
}
