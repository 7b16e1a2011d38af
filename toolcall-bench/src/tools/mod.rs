//! The real tools the benchmarks call: a scalar tool, a tool with a defaulted optional
//! argument returning a struct, and a tool whose argument is a nested struct.

pub mod math;
pub mod orders;
pub mod weather;
