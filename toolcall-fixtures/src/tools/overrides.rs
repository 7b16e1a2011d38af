//! Per-parameter overrides in a typed `TOOL_PARAMS` const.

use serde::Serialize;
use serde_json::{Value, json};
use toolcall_runtime::ToolParam;

/// Overrides the build reads (and the compiler checks through generated code).
pub(crate) const TOOL_PARAMS: &[ToolParam] = &[
    ToolParam::new("transfer", "user_id").string_integer().description("Snowflake id"),
    ToolParam::new("transfer", "note").description(""),
    ToolParam::new("transfer", "memo_id").string_integer(),
    ToolParam::new("tag_account", "account").description(""),
    ToolParam::new("tag_account", "label").description("Override beats the bullet"),
];

/// A bank account.
#[derive(Debug, Serialize)]
pub struct Account {
    /// Its number.
    pub number: u32,
}

/// Move money to a user.
///
/// # Arguments
///
/// * `user_id` - replaced by the override
/// * `amount` - in cents
/// * `note` - cleared by an empty override
/// * `memo_id` - a big optional id
pub fn transfer(user_id: u64, amount: u32, note: Option<String>, memo_id: Option<u64>) -> Value {
    json!({"user_id": user_id.to_string(), "amount": amount, "note": note, "memo_id": memo_id.map(|m| m.to_string())})
}

/// Tag an account; the empty override suppresses the type-doc fallback.
///
/// # Arguments
///
/// * `label` - the bullet text
pub fn tag_account(account: Account, label: String) -> Value {
    json!({"account": account, "label": label})
}
