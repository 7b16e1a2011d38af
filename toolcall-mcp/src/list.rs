//! `tools/list`: one page of the tools a caller sees, with the fields the client's
//! protocol revision defines (an `outputSchema` of any shape from 2026-07-28, only an
//! object schema before: [`crate::revision`]) and, from 2026-07-28, caching hints.
//!
//! A generated toolset's definitions are [`crate::revision::definitions`], with every
//! output schema; [`without_newer_fields`] takes the ones that are not objects out again
//! for a client before 2026-07-28.

use rmcp::model::{ErrorData, ListToolsResult, ProtocolVersion};

use crate::revision::{is_at_least, without_newer_fields};
use crate::server::McpServer;

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
