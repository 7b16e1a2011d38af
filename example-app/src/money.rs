//! [`Money`]: an amount in cents that travels as a decimal string such as `"12.50"`.
//!
//! The build script's type provider tells the generator that `Money` is a string with
//! pattern `^-?\d+\.\d{2}$` and that [`Money::from_wire`] decodes it, so a tool can take
//! `Money` directly and the model gets a message it can act on when it sends `"12.5"`.

use std::fmt;

use serde::{Serialize, Serializer};
use serde_json::Value;

/// An amount of money in cents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Money {
    cents: i64,
}

/// Why a wire value is not [`Money`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoneyError(String);

impl fmt::Display for MoneyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for MoneyError {}

impl Money {
    /// An amount of `cents` cents.
    pub const fn from_cents(cents: i64) -> Self {
        Money { cents }
    }

    /// The amount in cents.
    pub const fn cents(self) -> i64 {
        self.cents
    }

    /// Decodes the wire form: a JSON string of digits, a point and exactly two decimals,
    /// optionally negative (`"12.50"`, `"-3.00"`).
    pub fn from_wire(value: &Value) -> Result<Money, MoneyError> {
        let text = value
            .as_str()
            .ok_or_else(|| MoneyError(format!("expected a string like \"12.50\", got {value}")))?;
        text.parse()
    }
}

impl std::str::FromStr for Money {
    type Err = MoneyError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let malformed = || MoneyError(format!("{text:?} is not an amount with two decimals, like \"12.50\""));
        let (negative, digits) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (whole, fraction) = digits.split_once('.').ok_or_else(malformed)?;
        let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !all_digits(whole) || fraction.len() != 2 || !all_digits(fraction) {
            return Err(malformed());
        }
        let too_large = || MoneyError(format!("{text:?} is too large"));
        let whole: i64 = whole.parse().map_err(|_| too_large())?;
        let fraction: i64 = fraction.parse().map_err(|_| malformed())?;
        let cents = whole.checked_mul(100).and_then(|c| c.checked_add(fraction)).ok_or_else(too_large)?;
        Ok(Money { cents: if negative { -cents } else { cents } })
    }
}

impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.cents < 0 { "-" } else { "" };
        let abs = self.cents.unsigned_abs();
        write!(f, "{sign}{}.{:02}", abs / 100, abs % 100)
    }
}

/// Serializes as the wire form, so a tool's result round-trips (`"12.50"`).
impl Serialize for Money {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn two_decimals_round_trip() {
        for text in ["12.50", "0.05", "-3.00", "1000000.99"] {
            let money = Money::from_wire(&json!(text)).unwrap();
            assert_eq!(money.to_string(), text);
        }
        assert_eq!(Money::from_wire(&json!("-0.07")).unwrap().cents(), -7);
    }

    #[test]
    fn other_shapes_are_refused_with_a_message() {
        for bad in ["12.5", "12", ".50", "12.500", "1e3", "--1.00", "12,50", ""] {
            let error = Money::from_wire(&json!(bad)).unwrap_err();
            assert!(error.to_string().contains("two decimals"), "{bad}: {error}");
        }
        assert!(Money::from_wire(&json!(12.5)).unwrap_err().to_string().contains("expected a string"));
        assert!(
            Money::from_wire(&json!("99999999999999999999.00"))
                .unwrap_err()
                .to_string()
                .contains("too large")
        );
    }
}
