//! `tools/list`: one page of the tools a caller sees, with the fields the client's
//! protocol revision defines (an `outputSchema` of any shape from 2026-07-28, only an
//! object schema before: [`crate::revision`]) and, from 2026-07-28, caching hints.
//!
//! A generated toolset's definitions are [`definitions`]: `emit(Format::Mcp)`'s, which
//! every revision takes (an `outputSchema` only where it is an object schema), with the
//! output schema of every other tool whose result has one (`Vec<T>`, `u64`, `String`,
//! `Option<T>`, an enum) added from its [`ToolInfo::output`]; [`without_newer_fields`]
//! takes those out again for a client before 2026-07-28.

use std::sync::Arc;

use rmcp::model::{ErrorData, JsonObject, ListToolsResult, ProtocolVersion, Tool};
use toolcall_runtime::{Format, ToolInfo, Toolset};

use crate::revision::{is_at_least, without_newer_fields};
use crate::server::McpServer;

/// The MCP definitions of `toolset`'s tools as a client on the newest revision gets them:
/// each as `emit(Format::Mcp, false)` writes it, plus, for a tool the emitted definition
/// gives no `outputSchema`, the schema its [`ToolInfo::output`] holds (one that is not an
/// object schema, which `emit` leaves out so that its text is valid in every revision).
/// `Err` says why the texts are no MCP definitions.
pub(crate) fn definitions<C>(toolset: &Toolset<C>) -> Result<Vec<Tool>, String> {
    let mut tools: Vec<Tool> =
        serde_json::from_str(toolset.emit(Format::Mcp, false)).map_err(|e| e.to_string())?;
    let infos = toolset.describe();
    for (at, tool) in tools.iter_mut().enumerate() {
        if tool.output_schema.is_some() {
            continue;
        }
        // `emit` writes the rows in order: the row at the same place is the tool's.
        let info: Option<&ToolInfo> = infos
            .get(at)
            .filter(|info| info.name == tool.name)
            .or_else(|| infos.iter().find(|info| info.name == tool.name));
        let Some(text) = info.and_then(|info| info.output) else { continue };
        let schema: JsonObject = serde_json::from_str(text)
            .map_err(|e| format!("tool `{}`: its output schema is no JSON Schema object: {e}", tool.name))?;
        tool.output_schema = Some(Arc::new(schema));
    }
    Ok(tools)
}

impl<C: Send + Sync + 'static> McpServer<C> {
    /// One page of the definitions the caller whose context is `ctx` sees, for a client
    /// on `version`.
    pub(crate) fn page(
        &self,
        ctx: &C,
        cursor: Option<&str>,
        version: Option<&ProtocolVersion>,
    ) -> Result<ListToolsResult, ErrorData> {
        let visible = self.visible(ctx);
        let start = match cursor {
            None => 0,
            Some(text) => text
                .parse::<usize>()
                .ok()
                .filter(|start| *start <= visible.len())
                .ok_or_else(|| ErrorData::invalid_params(format!("invalid cursor {text:?}"), None))?,
        };
        let end = (start + self.page_size).min(visible.len());
        let tools = visible[start..end]
            .iter()
            .copied()
            .map(|tool| {
                version
                    .and_then(|version| without_newer_fields(tool, version))
                    .unwrap_or_else(|| tool.clone())
            })
            .collect();
        let mut result = ListToolsResult::with_all_items(tools);
        result.next_cursor = (end < visible.len()).then(|| end.to_string());
        if version.is_some_and(|v| is_at_least(v, &ProtocolVersion::V_2026_07_28)) {
            // Fixed at build time: cacheable long, and by anyone unless filtered per caller.
            result.ttl_ms = Some(u64::try_from(self.list_ttl.as_millis()).unwrap_or(u64::MAX));
            result.cache_scope = Some(if self.filter.is_some() {
                rmcp::model::CacheScope::Private
            } else {
                rmcp::model::CacheScope::Public
            });
        }
        Ok(result)
    }
}
