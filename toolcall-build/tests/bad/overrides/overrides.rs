//! Overrides naming unknown functions or parameters, duplicates, and unknown methods.

use toolcall_runtime::ToolParam;

pub(crate) const TOOL_PARAMS: &[ToolParam] = &[
    ToolParam::new("transfer", "user_id").description("first"),
    ToolParam::new("transfer", "user_id").description("second"),
    ToolParam::new("transfr", "user_id"),
    ToolParam::new("transfer", "userid"),
    ToolParam::new("transfer", "amount").shout(),
    ToolParam::new("helper", "x"),
];

/// Move money.
pub fn transfer(user_id: u64, amount: u32) -> u64 {
    user_id + u64::from(amount)
}

fn helper(x: u8) -> u8 {
    x
}
