//! The seed's weather tool: an optional argument with a default, a struct result.

use serde::Serialize;

/// A forecast.
#[derive(Debug, Serialize)]
pub struct Forecast {
    /// The city.
    pub city: String,
    /// Days ahead.
    pub days: u32,
    /// Temperature in °C.
    pub temp: f64,
}

/// Get the forecast for a city.
///
/// # Arguments
///
/// * `city` - city name, e.g. "Oslo"
/// * `days` - how many days ahead (1-7)
pub fn get_weather(city: String, days: Option<u32>) -> Forecast {
    let days = days.unwrap_or(3);
    Forecast { city, days, temp: 21.5 }
}
