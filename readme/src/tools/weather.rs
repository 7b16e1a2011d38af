//! README "Quick start": `src/tools/weather.rs`, as written there.
use serde::Serialize;

#[derive(Serialize)]
pub struct Forecast {
    pub city: String,
    pub days: u32,
    pub temp: f64,
}

/// Get the forecast for a city.
///
/// # Arguments
///
/// * `city` - city name, e.g. "Oslo"
/// * `days` - how many days ahead (1-7)
pub fn get_weather(city: String, days: Option<u32>) -> Result<Forecast, String> {
    let days = days.unwrap_or(3); // read by the build: `"default": 3`
    Ok(Forecast { city, days, temp: 21.5 })
}
