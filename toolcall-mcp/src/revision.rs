//! Protocol revisions: which one a client speaks decides the fields it is sent (a tool's
//! `icons` from 2025-11-25, `title`, `outputSchema` and `_meta` from 2025-06-18,
//! `annotations` from 2025-03-26), the output schemas and structured results it may get
//! (any JSON from 2026-07-28, objects before), and how the server behaves (2026-07-28's
//! caching hints and logging rules). [`definitions`] are a toolset's MCP definitions as the
//! newest revision takes them, what the others are cut from.

use std::sync::Arc;

use rmcp::model::{JsonObject, ProtocolVersion, Tool};
use serde_json::Value;
use toolcall_runtime::ToolInfo;

use crate::context::Tools;

/// Whether `version` is revision `since` or a later one (revisions are dates, so their
/// text orders them).
pub(crate) fn is_at_least(version: &ProtocolVersion, since: &ProtocolVersion) -> bool {
    version.as_str() >= since.as_str()
}

/// The known revision named `text`: one of rmcp's constants.
#[cfg_attr(not(any(feature = "http", feature = "otel")), allow(dead_code))]
fn known_constant(text: &str) -> Option<&'static ProtocolVersion> {
    ProtocolVersion::KNOWN_VERSIONS.iter().find(|known| known.as_str() == text)
}

/// The known revision (one of rmcp's constants, cloned without an allocation) named
/// `text`.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) fn known(text: &str) -> Option<ProtocolVersion> {
    known_constant(text).cloned()
}

/// The name of the known revision named `text`, as a static string (an attribute's value
/// without an allocation).
#[cfg_attr(not(any(feature = "http", feature = "otel")), allow(dead_code))]
pub(crate) fn known_name(text: &str) -> Option<&'static str> {
    known_constant(text).map(ProtocolVersion::as_str)
}

/// Whether a request on `version` (as [`version_of`] reads it) is on 2026-07-28 or later:
/// stateless, asking through input-required rounds, cancelled by a disconnect, sent log
/// messages only at its own level.
pub(crate) fn speaks_stateless(version: Option<&ProtocolVersion>) -> bool {
    version.is_some_and(|version| is_at_least(version, &ProtocolVersion::V_2026_07_28))
}

/// The revision a request speaks, once read: the HTTP hot path, which has read it from the
/// request already, leaves it in the request context's extensions for the call path, which
/// asks several times (rmcp's `RequestContext::protocol_version` decodes it from `_meta`
/// each time: a hash of the key and an allocation).
#[derive(Clone, Debug)]
pub(crate) struct Spoken(pub(crate) Option<ProtocolVersion>);

/// The revision the request of `context` speaks: the one [`Spoken`] says, else rmcp's
/// reading of its `_meta` or its session.
pub(crate) fn version_of(
    context: &rmcp::service::RequestContext<rmcp::service::RoleServer>,
) -> Option<ProtocolVersion> {
    match context.extensions.get::<Spoken>() {
        Some(Spoken(version)) => version.clone(),
        None => context.protocol_version(),
    }
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

/// The MCP definitions of `toolset`'s tools as a client on the newest revision gets them:
/// each as `emit(Format::Mcp, false)` writes it, plus, for a tool the emitted definition
/// gives no `outputSchema`, the schema its [`ToolInfo::output`] holds (one that is not an
/// object schema, which `emit` leaves out so that its text is valid in every revision).
/// `Err` says why the texts are no MCP definitions.
pub(crate) fn definitions(toolset: &dyn Tools) -> Result<Vec<Tool>, String> {
    let mut tools: Vec<Tool> = serde_json::from_str(toolset.mcp_definitions()).map_err(|e| e.to_string())?;
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

/// `result` as rmcp's handler sends it to a client on `version`: from 2026-07-28 with the
/// caching hints it lacks filled in; before, without `resultType` and without a
/// `structuredContent` that is not an object (SEP-2106). The HTTP layer's hot path, which
/// answers without rmcp's handler, shapes its results with this.
#[cfg(feature = "http")]
pub(crate) fn shape_result(result: &mut rmcp::model::ServerResult, version: Option<&ProtocolVersion>) {
    if version.is_some_and(|v| is_at_least(v, &ProtocolVersion::V_2026_07_28)) {
        result.fill_missing_cache_hints();
    } else {
        result.strip_result_type_for_legacy_peer();
        result.strip_non_object_output_for_legacy_peer();
    }
}
