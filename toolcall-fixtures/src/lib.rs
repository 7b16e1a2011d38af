//! Fixture tools for `toolcall-build`: one file per rule of DESIGN.md's "Writing tools"
//! and "Types" tables. The generated code is compiled here for real, and the tests in
//! `tests/` run the dispatch contract against it; `toolcall-build`'s snapshot tests read
//! the same files.

pub mod tools;

/// The generated toolsets: one module per tool file, plus `ALL`.
pub mod toolset {
    include!(concat!(env!("OUT_DIR"), "/tools.rs"));
}
