//! Protocol revisions: which one a client speaks decides the fields it is sent (a tool's
//! `icons` from 2025-11-25, `title`, `outputSchema` and `_meta` from 2025-06-18,
//! `annotations` from 2025-03-26) and how the server behaves (2026-07-28's caching hints
//! and logging rules).

use rmcp::model::{ProtocolVersion, Tool};

/// Whether `version` is revision `since` or a later one (revisions are dates, so their
/// text orders them).
pub(crate) fn is_at_least(version: &ProtocolVersion, since: &ProtocolVersion) -> bool {
    version.as_str() >= since.as_str()
}

/// A tool without the fields protocol `version` does not define: `icons` before
/// 2025-11-25; `outputSchema`, `title` and `_meta` before 2025-06-18; `annotations` before
/// 2025-03-26. `None` when it defines them all (the tool goes as it is).
pub(crate) fn without_newer_fields(tool: &Tool, version: &ProtocolVersion) -> Option<Tool> {
    if is_at_least(version, &ProtocolVersion::V_2025_11_25) {
        return None;
    }
    let mut tool = tool.clone();
    tool.icons = None;
    if !is_at_least(version, &ProtocolVersion::V_2025_06_18) {
        tool.output_schema = None;
        tool.title = None;
        tool.meta = None;
    }
    if !is_at_least(version, &ProtocolVersion::V_2025_03_26) {
        tool.annotations = None;
    }
    Some(tool)
}
