#![doc = include_str!("../README.md")]

mod arguments;
mod call;
pub mod capture;
mod content;
mod decode;
mod dynamic;
mod encode;
mod error;
mod failure;
mod fast;
mod form;
pub mod glue;
mod info;
pub mod ir;
pub mod json;
mod meta;
mod output;
mod params;
mod progress;
mod registry;
pub mod render;
pub mod search;
mod served;
mod slot;
mod suggest;
mod toolset;
mod uri_template;
mod validate;

pub use call::{CallFuture, Runner};
pub use content::{Content, ResourceBody, base64_decode, base64_encode};
pub use decode::{ArgError, FromArg, Segment, StringInteger};
pub use dynamic::DynTool;
pub use error::{Reason, ToolError, UnknownName};
pub use failure::ToolFailure;
pub use form::{Form, prefilled};
pub use info::{Names, ToolInfo};
pub use meta::{Annotations, TaskPolicy, TaskSupport, ToolMeta};
pub use output::{OutputSpec, OutputType};
pub use params::ToolParam;
pub use progress::{Answer, AskError, AskFuture, LogLevel, Progress, ProgressSink, Root};
pub use progress::{Confirmation, NotConfirmed};
pub use registry::{DuplicateTool, Registry, RegistryHit};
pub use render::Format;
pub use search::SearchHit;
pub use served::{Message, ResourceInfo, ResourceKind, ResourceMeta, ResourceSet, Role};
pub use suggest::closest_name;
pub use toolset::{Emitted, Toolset};
pub use uri_template::UriTemplate;

/// What generated code calls, and nothing a user should: decoding slots, dispatch
/// plumbing. Not a public API; it changes with the generator (serde's
/// `__private` convention).
#[doc(hidden)]
pub mod __private {
    pub use crate::call::{
        Decoded, Dispatched, MAX_DECODED, Params, Stop, ToolFuture, arguments, boxed, decode_exact,
        decode_exact_plain, decode_fast, decode_fast_plain, exact, invoke, name_hash, parse_arguments,
        pending, ready, then_pending, then_ready,
    };
    pub use crate::decode::ArgError;
    pub use crate::encode::{Fallback, Returned, encode, encode_result, returned};
    pub use crate::error::summarize;
    pub use crate::toolset::{DispatchFn, TextDispatchFn, concat_rows, rows, start_of, total_rows};
    pub use crate::validate::{decode_arguments, validate};
    pub use serde::Deserializer;
    pub use serde_json::Value;

    /// Decoding typed answers (`OutputType` impls) and forms (`Form` impls).
    pub mod output {
        pub use crate::form::decode_values;
        pub use crate::output::{WRAPPER, decode_answer};
    }

    /// Slot decoding for generated call functions and `FromArg` impls.
    pub mod slot {
        pub use crate::slot::*;
    }

    /// The one-pass fast path of argument decoding.
    pub mod fast {
        pub use crate::fast::*;
    }

    /// Decoding helpers behind `FromArg`.
    pub mod decode {
        pub use crate::decode::*;
    }
}

/// Re-exported so generated code can name `Serialize` bounds.
pub use serde;
/// Re-exported so generated code needs no other dependency.
pub use serde_json;
