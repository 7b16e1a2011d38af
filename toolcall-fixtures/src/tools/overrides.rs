//! Per-parameter overrides in a typed `TOOL_PARAMS` const.

use serde::Serialize;
use serde_json::{Value, json};
use toolcall_runtime::{ToolMeta, ToolParam};

/// Tool metadata the build reads (and the compiler checks through generated code).
pub(crate) const TOOLS: &[ToolMeta] = &[
    ToolMeta::new("tag_account").name("label_account").title("Label an account").non_destructive(),
    ToolMeta::new("set_alarm")
        .title("Set an alarm")
        .idempotent()
        .closed_world()
        .timeout_ms(250)
        .example(r#"{"hour": 7, "label": "wake", "snooze": [], "volume": 3, "ticket": "1000"}"#)
        .example(r#"{"hour": 23, "minute": 59, "label": "sleep", "snooze": [5, 10], "volume": 0.5, "ticket": "2048"}"#),
];

/// Overrides the build reads (and the compiler checks through generated code).
pub(crate) const TOOL_PARAMS: &[ToolParam] = &[
    ToolParam::new("transfer", "user_id").string_integer().description("Snowflake id"),
    ToolParam::new("transfer", "note").description(""),
    ToolParam::new("transfer", "memo_id").string_integer(),
    ToolParam::new("tag_account", "account").description(""),
    ToolParam::new("tag_account", "label").description("Override beats the bullet"),
    ToolParam::new("set_alarm", "hour").range(0, 23),
    ToolParam::new("set_alarm", "minute").max(59),
    ToolParam::new("set_alarm", "label").length(1, 12),
    ToolParam::new("set_alarm", "snooze").length(0, 3),
    ToolParam::new("set_alarm", "volume").range(0, 10),
    ToolParam::new("set_alarm", "ticket").string_integer().min(1_000),
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

/// Set an alarm; every parameter is narrowed by a range override.
///
/// # Arguments
///
/// * `hour` - 0 to 23
/// * `minute` - 0 to 59, on the hour when absent
/// * `label` - a short name
/// * `snooze` - up to three snooze lengths in minutes
/// * `volume` - 0 to 10
/// * `ticket` - a big id
pub fn set_alarm(
    hour: u8,
    minute: Option<u8>,
    label: String,
    snooze: Vec<u32>,
    volume: f64,
    ticket: u64,
) -> Value {
    let minute = minute.unwrap_or(0);
    json!({"hour": hour, "minute": minute, "label": label, "snooze": snooze, "volume": volume, "ticket": ticket.to_string()})
}
