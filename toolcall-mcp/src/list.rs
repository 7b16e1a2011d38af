//! `tools/list`: one page of the tools a caller sees, with the fields the client's
//! protocol revision defines (an `outputSchema` of any shape from 2026-07-28, only an
//! object schema before: [`crate::revision`]) and, from 2026-07-28, caching hints.
//!
//! A generated toolset's definitions are [`crate::revision::definitions`], with every
//! output schema; [`without_newer_fields`] takes the ones that are not objects out again
//! for a client before 2026-07-28.

use rmcp::model::{ErrorData, ListToolsResult, ProtocolVersion};

use crate::context::ErasedContext;
use crate::revision::{is_at_least, without_newer_fields};
use crate::server::Server;

impl Server {
    /// One page of the definitions the caller whose context is `ctx` sees, for a client
    /// on `version`.
    pub(crate) fn page(
        &self,
        ctx: &ErasedContext,
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

#[cfg(feature = "http")]
/// The `tools/list` answers already written, as the JSON text of their `result`: one per
/// protocol revision, set of tools shown and cursor. The list is fixed at build time, so
/// a page is rendered once; with a [`McpServer::tool_filter`](crate::McpServer::tool_filter) the set a caller sees is
/// part of the key (two callers who see the same tools share the text, as they would
/// share the answer), so no caller ever gets a page rendered for another's set.
#[derive(Debug, Default)]
pub(crate) struct ListCache {
    pages: std::sync::Mutex<std::collections::HashMap<PageKey, bytes::Bytes>>,
}

#[cfg(feature = "http")]
/// What one rendered page depends on.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct PageKey {
    version: Option<String>,
    /// The tools shown, one bit per tool in the server's order; `None`: no filter.
    shown: Option<Box<[u64]>>,
    cursor: Option<String>,
}

#[cfg(feature = "http")]
/// The most pages kept (past it, a page is rendered for each request).
const MAX_PAGES: usize = 1024;

#[cfg(feature = "http")]
impl ListCache {
    fn get(&self, key: &PageKey) -> Option<bytes::Bytes> {
        self.pages.lock().ok()?.get(key).cloned()
    }

    fn put(&self, key: PageKey, page: bytes::Bytes) {
        if let Ok(mut pages) = self.pages.lock()
            && pages.len() < MAX_PAGES
        {
            pages.insert(key, page);
        }
    }
}

#[cfg(feature = "http")]
impl Server {
    /// [`Server::page`] as the JSON text of a `tools/list` result for a client on
    /// `version` (what rmcp would write for it), from `cache` when it was rendered before.
    pub(crate) fn page_text(
        &self,
        ctx: &ErasedContext,
        cursor: Option<&str>,
        version: Option<&ProtocolVersion>,
        cache: &ListCache,
    ) -> Result<bytes::Bytes, ErrorData> {
        let key = PageKey {
            version: version.map(|v| v.as_str().to_owned()),
            shown: self.filter.as_ref().map(|_| self.shown_bits(ctx)),
            cursor: cursor.map(str::to_owned),
        };
        if let Some(page) = cache.get(&key) {
            return Ok(page);
        }
        let mut result = rmcp::model::ServerResult::ListToolsResult(self.page(ctx, cursor, version)?);
        crate::revision::shape_result(&mut result, version);
        let text = serde_json::to_vec(&result)
            .map_err(|e| ErrorData::internal_error(format!("tools/list: {e}"), None))?;
        let page = bytes::Bytes::from(text);
        cache.put(key, page.clone());
        Ok(page)
    }

    /// Which tools the caller whose context is `ctx` sees, one bit per tool.
    fn shown_bits(&self, ctx: &ErasedContext) -> Box<[u64]> {
        let mut bits = vec![0u64; self.tools.len().div_ceil(64)];
        for (at, info) in self.infos.iter().enumerate() {
            if self.listed(at) && self.shows(ctx, *info) {
                bits[at / 64] |= 1 << (at % 64);
            }
        }
        bits.into_boxed_slice()
    }
}
