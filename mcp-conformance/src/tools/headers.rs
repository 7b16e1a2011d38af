//! The tool of the suite's SEP-2243 scenario `http-custom-header-server-validation`:
//! parameters mirrored into `Mcp-Param-*` HTTP headers (`ToolParam::header`), so its
//! listed input schema carries `x-mcp-header` on them and the server checks each header
//! a 2026-07-28 request sends against the body (Base64 values decoded, a missing or
//! different one refused with -32020).
//!
//! The scenario calls the first listed tool with an `x-mcp-header` and needs a string
//! parameter among its headers: `region` is one.

use toolcall_runtime::{Content, ToolParam};

/// The parameters mirrored into headers, read by the build.
pub(crate) const TOOL_PARAMS: &[ToolParam] = &[
    ToolParam::new("test_custom_headers", "region").header("Region"),
    ToolParam::new("test_custom_headers", "priority").header("Priority"),
    ToolParam::new("test_custom_headers", "verbose").header("Verbose"),
];

/// Says back the arguments it was called with; its region, priority and verbosity travel
/// in `Mcp-Param-*` headers too.
///
/// # Arguments
///
/// * `region` - where to route the call (header `Mcp-Param-Region`)
/// * `priority` - how urgent it is (header `Mcp-Param-Priority`)
/// * `verbose` - whether to say more (header `Mcp-Param-Verbose`)
/// * `query` - free text, in the body only
pub fn test_custom_headers(
    region: String,
    priority: Option<u32>,
    verbose: Option<bool>,
    query: Option<String>,
) -> Content {
    Content::text(format!("region={region} priority={priority:?} verbose={verbose:?} query={query:?}"))
}
