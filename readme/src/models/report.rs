//! README "Run an agent loop": the typed answer, named in `build.rs` with
//! `Builder::output_type("crate::models::Report")`.
#[rustfmt::skip]
// src/models/report.rs
/// The weather in one city.
#[derive(Debug, serde::Deserialize)]
pub struct Report {
    pub city: String,
    /// Degrees Celsius.
    pub temp_c: f64,
    pub summary: Option<String>,
}
