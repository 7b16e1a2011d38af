//! The MCP protocol side of [`McpServer`]: rmcp's `ServerHandler`, answering
//! `initialize`/`server/discover`, `tools/list`, `tools/call` and `logging/setLevel`.

use rmcp::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ErrorData, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;

use crate::call::arrival;
use crate::server::McpServer;
use crate::talk;

impl<C: Send + Sync + 'static> ServerHandler for McpServer<C> {
    fn get_info(&self) -> ServerConfig {
        // rmcp marks MCP logging deprecated (SEP-2577, a future protocol); every version
        // up to 2025-11-25 has it.
        #[allow(deprecated)]
        let capabilities = ServerCapabilities::builder().enable_tools().enable_logging().build();
        let mut config = ServerConfig::new(capabilities)
            .with_server_info(Implementation::new(self.name.clone(), self.version.clone()));
        if let Some(text) = &self.instructions {
            config = config.with_instructions(text.clone());
        }
        config
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let caller = self.context_of(&context)?;
        let cursor = request.as_ref().and_then(|r| r.cursor.as_deref());
        self.page(&caller, cursor, context.protocol_version().as_ref())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let caller = self.context_of(&context)?;
        let arrived = arrival(&context);
        let shown = self.tools.iter().position(|t| t.name == request.name);
        if !shown.is_some_and(|i| self.shows(&caller, self.infos[i])) {
            return Err(self.unknown_tool(&caller, &request.name));
        }
        let args = Value::Object(request.arguments.unwrap_or_default());
        let (progress, talk) =
            talk::Talk::new(&context, &self.log_level, self.default_log_level, &request.name);
        let cancelled = context.ct.cancelled_owned();
        self.run(caller, &request.name, args, arrived, cancelled, progress, Some(talk)).await.map(Into::into)
    }

    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let level = talk::level_of(request.level)
            .ok_or_else(|| ErrorData::invalid_params("unknown log level", None))?;
        self.log_level.set(level);
        Ok(())
    }

    /// A tool's definition, for rmcp's checks of a request's `Mcp-Param-*` headers. With a
    /// [`McpServer::tool_filter`] this knows no caller, so it names no tool (the checks
    /// then read the headers alone): a hidden tool answers as an unknown one here too.
    fn get_tool(&self, name: &str) -> Option<Tool> {
        if self.filter.is_some() {
            return None;
        }
        self.tools.iter().find(|t| t.name == name).cloned()
    }
}
