//! The example app: the seed's tools written as plain Rust functions, the toolset
//! `toolcall-build` generates from them, and a small command line around it.
//!
//! The modules, each using only those before it: [`models`] (the domain types: users,
//! roles, notes), [`db`] (the notes database), [`app`] (the context every tool gets),
//! [`tools`] (the tool functions), [`toolset`] (generated from them; the only code that
//! names a tool module), [`resources`] (the notes as MCP resources) and [`cli`] (the
//! commands). [`money`] is a value type the tools use; [`telemetry`] sets up the request
//! log, and OpenTelemetry export when `OTEL_EXPORTER_OTLP_ENDPOINT` is set.
//!
//! ```
//! use example_app::{App, toolset};
//! use toolcall_runtime::Format;
//!
//! let tools = toolset::ALL.emit(Format::OpenAi, true); // precomputed JSON text
//! assert!(tools.contains(r#""name":"get_weather""#));
//! let app = App::demo(); // the context: the signed-in user and the store (in-memory SQLite)
//! # let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
//! # runtime.block_on(async {
//! let out = toolset::ALL.call_json(&app, "get_weather", r#"{"city":"Oslo"}"#).await.unwrap();
//! assert_eq!(out.to_string(), r#"{"city":"Oslo","days":3,"temp":21.5}"#);
//! let notes = toolset::ALL.call_json(&app, "list_notes", "{}").await.unwrap();
//! assert!(notes.as_array().unwrap().iter().all(|note| note["owner"] == 1));
//! # });
//! ```

pub mod app;
pub mod cli;
pub mod db;
pub mod models;
pub mod money;
pub mod oplog;
pub mod outage;
mod plain;
pub mod prompts;
pub mod resources;
pub mod served;
pub mod telemetry;
pub mod tools;

pub use app::App;

/// The generated toolsets: `toolset::<module>::TOOLS` per tool file and `toolset::ALL`;
/// `toolset::PROMPTS` and `toolset::RESOURCES` from `src/prompts` and `src/resources`.
pub mod toolset {
    include!(concat!(env!("OUT_DIR"), "/tools.rs"));
}
