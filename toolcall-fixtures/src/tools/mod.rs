//! The fixture tool modules, one per rule.

pub mod aliases;
pub mod asynchronous;
pub mod billing;
pub mod defaults;
pub mod docs;
pub mod foreign;
pub mod local_types;
pub mod names;
pub mod outputs;
pub mod overrides;
pub mod private;
pub mod recursive;
pub mod results;
pub mod serde_names;
pub mod service;
pub mod shared;
pub mod skipped;
pub mod std_types;
pub mod tagged;
pub mod weather;
