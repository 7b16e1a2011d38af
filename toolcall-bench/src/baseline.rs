//! The hand-written baseline: what a careful engineer writes without toolcall.
//!
//! One `#[derive(Deserialize)]` argument struct per tool (`deny_unknown_fields`, like the
//! generated dispatcher's unknown-argument check), decoded straight from the arguments
//! (`Deserialize::deserialize(&Value)`, which is `serde_json::from_value` without taking
//! ownership, or `serde_json::from_str` from text, with no intermediate `Value`), a
//! `match` on the name, and the result encoded with `serde_json::to_value`. It calls the
//! same tool functions as the generated dispatcher, so the two differ only in decoding,
//! dispatch and error handling. It does not catch panics and its errors are serde's.

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::tools::{math, orders, weather};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AddArgs {
    a: i64,
    b: i64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WeatherArgs {
    city: String,
    days: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OrderArgs {
    order: orders::Order,
}

/// Why a baseline call failed.
#[derive(Debug)]
pub enum BaselineError {
    /// No tool has this name.
    UnknownTool,
    /// The arguments did not decode.
    Arguments(serde_json::Error),
    /// The result did not encode.
    Encode(serde_json::Error),
}

/// Where the arguments come from: a parsed `Value` or JSON text.
trait Source {
    fn decode<T: DeserializeOwned>(self) -> Result<T, serde_json::Error>;
}

impl Source for &Value {
    fn decode<T: DeserializeOwned>(self) -> Result<T, serde_json::Error> {
        T::deserialize(self)
    }
}

impl Source for &str {
    fn decode<T: DeserializeOwned>(self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self)
    }
}

fn encode<T: serde::Serialize>(value: T) -> Result<Value, BaselineError> {
    serde_json::to_value(value).map_err(BaselineError::Encode)
}

fn dispatch(name: &str, args: impl Source) -> Result<Value, BaselineError> {
    match name {
        "add" => {
            let AddArgs { a, b } = args.decode().map_err(BaselineError::Arguments)?;
            encode(math::add(a, b))
        }
        "get_weather" => {
            let WeatherArgs { city, days } = args.decode().map_err(BaselineError::Arguments)?;
            encode(weather::get_weather(city, days))
        }
        "create_order" => {
            let OrderArgs { order } = args.decode().map_err(BaselineError::Arguments)?;
            encode(orders::create_order(order))
        }
        _ => Err(BaselineError::UnknownTool),
    }
}

/// Runs tool `name` on parsed arguments.
pub fn run(name: &str, args: &Value) -> Result<Value, BaselineError> {
    dispatch(name, args)
}

/// Runs tool `name` on arguments given as JSON text.
pub fn run_json(name: &str, args: &str) -> Result<Value, BaselineError> {
    dispatch(name, args)
}
