//! Argument decoding: JSON values into Rust parameter types, with precise reasons.
//!
//! [`FromArg`] is the trait generated dispatchers call for every parameter. It borrows
//! from the arguments where it can (`&str` and `Cow<str>` do not copy), reports the
//! offending value and its path (`address.zip`, `items[3]`) when it cannot, and bounds
//! nesting with [`MAX_DEPTH`] so hostile input ends in an error, not a stack overflow.
//!
//! ```
//! use serde_json::json;
//! use toolcall_runtime::FromArg;
//! use toolcall_runtime::__private::decode::decode_arg;
//!
//! let args = json!({"days": 1.0, "city": "Oslo"});
//! let days: u8 = decode_arg(&args["days"], "days").unwrap();
//! let city: &str = decode_arg(&args["city"], "city").unwrap();
//! assert_eq!((days, city), (1, "Oslo"));
//! let err = decode_arg::<u8>(&json!("5"), "days").unwrap_err();
//! assert_eq!(err.to_string(), r#"days: expected an integer, got "5""#);
//! ```

mod arg;
mod collect;
mod helpers;
mod impls;

pub use arg::{ArgError, FromArg, MAX_DEPTH, MAX_PROBLEMS, Segment, decode_arg, decode_field, decode_slot};
pub use collect::{Collect, MAX_COLLECTED, all, one_problem};
pub(crate) use helpers::is_decimal_integer;
pub use helpers::{
    Integer, check_depth, decode_entries, decode_items, deserialize_arg, expect_object, integer_value,
    nesting_depth, object_and_unknown, parse_date, parse_formatted, tuple_items,
};
pub use impls::StringInteger;
