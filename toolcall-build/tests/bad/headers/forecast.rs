use toolcall_runtime::ToolParam;

pub(crate) const TOOL_PARAMS: &[ToolParam] = &[
    ToolParam::new("get_forecast", "region").header("Region"),
    ToolParam::new("get_forecast", "zone").header("region"),
    ToolParam::new("get_forecast", "city").header(""),
    ToolParam::new("get_forecast", "country").header("Country Code"),
    ToolParam::new("get_forecast", "town").header("Région"),
    ToolParam::new("get_forecast", "score").header("Score"),
    ToolParam::new("get_forecast", "days").header("Days").header("Span"),
    ToolParam::new("get_forecast", "note").header("Note"),
    ToolParam::new("get_forecast", "tags").header("Tags"),
    ToolParam::new("get_forecast", "station").header("Station"),
    ToolParam::new("get_forecast", "label").header("Label"),
];

/// Get the forecast of a place.
///
/// # Arguments
///
/// * `region` - where
/// * `zone` - which part of it
/// * `city` - the city
/// * `country` - its country
/// * `town` - a town near it
/// * `score` - how good a forecast to give
/// * `days` - how many days ahead
/// * `note` - a note, or null
/// * `tags` - what to tag it with
/// * `station` - the weather station's number
/// * `label` - a label
pub fn get_forecast(
    region: String,
    zone: String,
    city: String,
    country: String,
    town: String,
    score: f64,
    days: u8,
    note: Option<Option<String>>,
    tags: Vec<String>,
    station: u64,
    label: Option<String>,
) -> String {
    format!("{region} {zone} {city} {country} {town} {score} {days} {note:?} {tags:?} {station} {label:?}")
}
