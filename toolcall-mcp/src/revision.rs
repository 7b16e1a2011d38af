//! Protocol revisions: which one a client speaks decides the fields it is sent (a tool's
//! `title` and `outputSchema` from 2025-06-18, `annotations` from 2025-03-26) and how the
//! server behaves (2026-07-28's caching hints and logging rules).

use rmcp::model::{ProtocolVersion, Tool};

/// Whether `version` is revision `since` or a later one (revisions are dates, so their
/// text orders them).
pub(crate) fn is_at_least(version: &ProtocolVersion, since: &ProtocolVersion) -> bool {
    version.as_str() >= since.as_str()
}

/// A tool without the fields a protocol version before 2025-06-18 does not define
/// (`outputSchema`, `title`), nor, before 2025-03-26, `annotations`.
pub(crate) fn without_newer_fields(tool: &Tool, version: &ProtocolVersion) -> Tool {
    let mut tool = tool.clone();
    tool.output_schema = None;
    tool.title = None;
    if !is_at_least(version, &ProtocolVersion::V_2025_03_26) {
        tool.annotations = None;
    }
    tool
}
