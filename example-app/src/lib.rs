//! The example app: the seed's tools written as plain Rust functions, the toolset
//! `toolcall-build` generates from them, and a small command line around it.
//!
//! ```
//! use example_app::toolset;
//! use toolcall_runtime::Format;
//!
//! let tools = toolset::ALL.emit(Format::OpenAi, true); // precomputed JSON text
//! assert!(tools.contains(r#""name":"get_weather""#));
//! let out = toolset::ALL.run_json("get_weather", r#"{"city":"Oslo"}"#).unwrap();
//! assert_eq!(out.to_string(), r#"{"city":"Oslo","days":3,"temp":21.5}"#);
//! ```

pub mod cli;
pub mod money;
pub mod tools;

/// The generated toolsets: `toolset::<module>::TOOLS` per tool file and `toolset::ALL`.
pub mod toolset {
    include!(concat!(env!("OUT_DIR"), "/tools.rs"));
}
