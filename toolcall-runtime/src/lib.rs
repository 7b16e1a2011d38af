//! # toolcall-runtime
//!
//! What a binary using toolcall links: the tool [IR](ir), the one schema
//! [renderer](render), argument [decoding](decode), [`ToolError`], the static
//! [`Toolset`] that generated code defines, runtime-built tools ([`DynTool`]), a
//! [`Registry`] combining both, and provider [glue].
//!
//! Most users never name these items: `toolcall-build` generates the code that does, and
//! the user calls `toolset::ALL.emit(..)` and `toolset::ALL.call(&ctx, name, &args).await`
//! (or `run(..)` for the sync tools of a crate without a context). The runtime needs no
//! particular executor: [`call::CallFuture`] is a plain `Future`.
//!
//! ```
//! use serde_json::json;
//! use toolcall_runtime::ir::{Param, Tool, Type};
//! use toolcall_runtime::{DynTool, Format};
//!
//! let weather = DynTool::new(
//!     Tool::new("get_weather")
//!         .description("Get the forecast for a city.")
//!         .param(Param::new("city", Type::string()))
//!         .param(Param::new("days", Type::integer_between(0, 255)).default(3)),
//!     |args| Ok(json!({"city": args["city"], "days": args["days"], "temp": 21.5})),
//! );
//! assert!(weather.render(Format::OpenAi, true).contains(r#""strict":true"#));
//! let out = weather.run(&json!({"city": "Oslo"})).unwrap();
//! assert_eq!(out, json!({"city": "Oslo", "days": 3, "temp": 21.5}));
//! ```

pub mod call;
pub mod decode;
pub mod dynamic;
pub mod error;
pub mod glue;
pub mod ir;
pub mod json;
pub mod params;
pub mod registry;
pub mod render;
pub mod slot;
pub mod toolset;

pub use call::Runner;
pub use decode::{ArgError, FromArg, StringInteger};
pub use dynamic::DynTool;
pub use error::{Reason, ToolError};
pub use params::ToolParam;
pub use registry::{DuplicateTool, Registry};
pub use render::Format;
pub use toolset::{ToolInfo, Toolset};

/// Re-exported so generated code can name `Serialize` bounds.
pub use serde;
/// Re-exported so generated code needs no other dependency.
pub use serde_json;
