//! A typed answer: no tool takes it; `build.rs` names it with `Builder::output_type`, so
//! the generated code implements `toolcall_runtime::OutputType` for it (toolcall-agent's
//! `tests/typed_output.rs` runs it through `Agent::run_output`).

use serde::Deserialize;

/// The forecast for one city, as the agent answers it.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Forecast {
    /// The city.
    pub city: String,
    /// The temperature, in degrees Celsius.
    pub temp_c: f64,
    /// Anything worth knowing (also read as `notes`).
    #[serde(default, alias = "notes")]
    pub remarks: Vec<String>,
}
