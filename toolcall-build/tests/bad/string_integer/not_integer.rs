//! `string_integer` on parameters that are not integers.

use toolcall_runtime::ToolParam;

pub(crate) const TOOL_PARAMS: &[ToolParam] = &[
    ToolParam::new("store", "name").string_integer(),
    ToolParam::new("store", "ratio").string_integer(),
    ToolParam::new("store", "ids").string_integer(),
];

/// Store something.
pub fn store(name: String, ratio: f64, ids: Vec<u64>) -> bool {
    !name.is_empty() && ratio > 0.0 && !ids.is_empty()
}
