//! README "Writing tools": the `TOOL_PARAMS` snippet, with the tools it names.
use toolcall_runtime::ToolParam;

pub(crate) const TOOL_PARAMS: &[ToolParam] = &[
    ToolParam::new("transfer", "user_id").string_integer().description("Snowflake id"),
    ToolParam::new("set_alarm", "hour").range(0, 23),     // also .min(..), .max(..)
    ToolParam::new("set_alarm", "label").length(1, 40),   // strings: characters; arrays: items
];

/// Send money to a user.
///
/// # Arguments
///
/// * `user_id` - who gets it
/// * `cents` - how much
pub fn transfer(user_id: u64, cents: u32) -> String {
    format!("{cents} to {user_id}")
}

/// Set an alarm.
///
/// # Arguments
///
/// * `hour` - when
/// * `label` - what it says
pub fn set_alarm(hour: u8, label: String) -> String {
    format!("{hour}: {label}")
}
