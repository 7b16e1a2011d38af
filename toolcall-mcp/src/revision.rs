//! Protocol revisions: which one a client speaks decides the fields it is sent (a tool's
//! `icons` from 2025-11-25, `title`, `outputSchema` and `_meta` from 2025-06-18,
//! `annotations` from 2025-03-26), the output schemas and structured results it may get
//! (any JSON from 2026-07-28, objects before), and how the server behaves (2026-07-28's
//! caching hints and logging rules).

use rmcp::model::{JsonObject, ProtocolVersion, Tool};
use serde_json::Value;

/// Whether `version` is revision `since` or a later one (revisions are dates, so their
/// text orders them).
pub(crate) fn is_at_least(version: &ProtocolVersion, since: &ProtocolVersion) -> bool {
    version.as_str() >= since.as_str()
}

/// Whether a client on `version` takes any JSON Schema as a tool's `outputSchema` and any
/// JSON value as a result's `structuredContent` (2026-07-28, SEP-2106). Before it, both
/// must be objects. `None` (no revision known) is the newest.
pub(crate) fn takes_any_output(version: Option<&ProtocolVersion>) -> bool {
    version.is_none_or(|version| is_at_least(version, &ProtocolVersion::V_2026_07_28))
}

/// Whether `schema` describes JSON objects only: its root says `"type": "object"` (what
/// revisions before 2026-07-28 require of an `outputSchema`, and the test rmcp applies
/// when it answers a client on one of them). A generated tool's schema is one exactly
/// when its result is a struct or a map.
pub(crate) fn is_object_schema(schema: &JsonObject) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

/// A tool without the fields protocol `version` does not define: `icons` before
/// 2025-11-25; `outputSchema`, `title` and `_meta` before 2025-06-18; `annotations` before
/// 2025-03-26; and, before 2026-07-28, an `outputSchema` that is not an object schema
/// ([`is_object_schema`]). `None` when it defines them all (the tool goes as it is).
pub(crate) fn without_newer_fields(tool: &Tool, version: &ProtocolVersion) -> Option<Tool> {
    let other_output = tool.output_schema.as_deref().is_some_and(|schema| !is_object_schema(schema));
    if is_at_least(version, &ProtocolVersion::V_2026_07_28)
        || (is_at_least(version, &ProtocolVersion::V_2025_11_25) && !other_output)
    {
        return None;
    }
    let mut tool = tool.clone();
    if other_output {
        tool.output_schema = None;
    }
    if !is_at_least(version, &ProtocolVersion::V_2025_11_25) {
        tool.icons = None;
    }
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
