//! # toolcall-bench
//!
//! Benchmarks for toolcall (`cargo bench -p toolcall-bench`; `toolcall-bench/report.py`
//! runs them and writes `BENCHMARKS.md`). This library holds what the benchmarks call:
//!
//! - [`tools`]: three real tools, and [`toolset`], generated from them by the build script;
//! - [`big`]/[`big_toolset`]: 1,000 synthetic tools over 10 modules, and their toolset;
//! - [`small`]/[`small_toolset`]: 10 synthetic tools, and their toolset;
//! - [`baseline`]: the same three tools dispatched by hand with `#[derive(Deserialize)]`;
//! - [`mcp`]: our MCP server and an rmcp-macros server of the same three tools;
//! - [`synth`]: the synthetic source generator (shared with the build script).

pub mod baseline;
pub mod mcp;
pub mod synth;
pub mod tools;

/// The toolset generated from [`tools`].
pub mod toolset {
    include!(concat!(env!("OUT_DIR"), "/tools.rs"));
}

/// Declares `pub mod` blocks holding synthetic tool files written to `OUT_DIR`.
macro_rules! synthetic_modules {
    ($dir:literal: $($module:ident),+) => {$(
        #[doc = concat!("Synthetic tools `", $dir, "/", stringify!($module), ".rs`.")]
        pub mod $module {
            include!(concat!(env!("OUT_DIR"), "/", $dir, "/", stringify!($module), ".rs"));
        }
    )+};
}

/// 1,000 synthetic tool functions, 100 per module.
pub mod big {
    synthetic_modules!("big_tools": m00, m01, m02, m03, m04, m05, m06, m07, m08, m09);
}

/// The toolset generated from [`big`].
pub mod big_toolset {
    include!(concat!(env!("OUT_DIR"), "/big_toolset.rs"));
}

/// 10 synthetic tool functions.
pub mod small {
    synthetic_modules!("small_tools": m00);
}

/// The toolset generated from [`small`].
pub mod small_toolset {
    include!(concat!(env!("OUT_DIR"), "/small_toolset.rs"));
}

/// The arguments, as JSON text, that the profiling and budget cases call one of the three
/// [`tools`] with (`add`, `get_weather`; any other name: `create_order`).
pub fn sample_arguments(tool: &str) -> &'static str {
    match tool {
        "add" => r#"{"a":2,"b":40}"#,
        "get_weather" => r#"{"city":"Oslo"}"#,
        _ => {
            r#"{"order":{"customer":"Ada Lovelace","address":{"street":"Storgata 1","city":"Oslo","zip":"0155","country":"NO"},"items":[{"sku":"A-100","quantity":2,"unit_cents":1250},{"sku":"B-7","quantity":1,"unit_cents":499}],"note":"leave at the door"}}"#
        }
    }
}

/// The seed's weather tool, built at run time: what the benchmark and budget cases that
/// render a tool definition render.
pub fn weather_tool() -> toolcall_runtime::ir::Tool {
    use toolcall_runtime::ir::{Param, Tool, Type};
    Tool::new("get_weather")
        .description("Get the forecast for a city.")
        .param(Param::new("city", Type::string()).description("city name, e.g. \"Oslo\""))
        .param(
            Param::new("days", Type::integer_between(0, i64::from(u32::MAX)))
                .description("how many days ahead (1-7)")
                .default(3),
        )
}
