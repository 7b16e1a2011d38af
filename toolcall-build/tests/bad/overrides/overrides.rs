//! Overrides naming unknown functions or parameters (errors, with the closest name),
//! duplicates, unknown methods, and an entry for a function the build skips.

use toolcall_runtime::ToolParam;

pub(crate) const TOOL_PARAMS: &[ToolParam] = &[
    ToolParam::new("transfer", "user_id").description("first"),
    ToolParam::new("transfer", "user_id").description("second"),
    ToolParam::new("transfr", "user_id"),
    ToolParam::new("transfer", "userid"),
    ToolParam::new("transfer", "amount").shout(),
    ToolParam::new("helper", "x"),
    ToolParam::new("list_task", "limit").range(1, 50),
    ToolParam::new("list_tasks", "limt").range(1, 50),
    ToolParam::new("generic", "x"),
];

/// Move money.
pub fn transfer(user_id: u64, amount: u32) -> u64 {
    user_id + u64::from(amount)
}

fn helper(x: u8) -> u8 {
    x
}

/// List tasks.
///
/// # Arguments
///
/// * `limit` - at most this many
pub fn list_tasks(limit: Option<u32>) -> u32 {
    limit.unwrap_or(10)
}

/// Not a tool: generic.
pub fn generic<T>(x: T) -> T {
    x
}
