//! Money: a user id too large for a JSON number (the string-integer wire, declared in
//! `TOOL_PARAMS`) and an amount resolved through the build script's type provider.

use serde::Serialize;
use toolcall_runtime::ToolParam;

use crate::money::Money;

/// Per-parameter overrides, read by the build script and checked by the compiler.
pub(crate) const TOOL_PARAMS: &[ToolParam] =
    &[ToolParam::new("transfer", "user_id").string_integer().description("Snowflake id")];

/// A completed transfer.
#[derive(Debug, Serialize)]
pub struct Receipt {
    /// The receiving user, as a decimal string (it may exceed 2^53).
    pub user_id: String,
    /// The amount moved.
    pub amount: Money,
    /// The text shown to the receiver.
    pub memo: Option<String>,
}

/// Move money to a user's account.
///
/// # Arguments
///
/// * `user_id` - the receiving user
/// * `amount` - how much, e.g. "12.50"
/// * `memo` - text shown to the receiver
///
/// # Errors
///
/// When the amount is not positive.
pub fn transfer(user_id: u64, amount: Money, memo: Option<String>) -> Result<Receipt, String> {
    if amount.cents() <= 0 {
        return Err(format!("amount must be positive, got {amount}"));
    }
    Ok(Receipt { user_id: user_id.to_string(), amount, memo })
}

/// Echo a price back: the seed's custom-type example.
///
/// # Arguments
///
/// * `amount` - a price with two decimals, e.g. "12.50"
pub fn price(amount: Money) -> Money {
    amount
}
