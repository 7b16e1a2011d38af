//! A private `TOOL_PARAMS` is still read, with a warning to make it `pub(crate)`.

use toolcall_runtime::ToolParam;

const TOOL_PARAMS: &[ToolParam] = &[ToolParam::new("echo", "text").description("Said back")];

/// Echo.
pub fn echo(text: String) -> String {
    text
}
