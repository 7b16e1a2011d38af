//! Generates the toolset of the fixture tools from `src/tools`, and a second one, with a
//! context, from `src/context_tools`.
//!
//! The fixtures break rules on purpose, so their warnings are expected: each builder names
//! the snapshot that lists them (toolcall-build's tests check the snapshots against the
//! generator), and only a warning missing from it is printed. The first also names the
//! fixtures' typed answer, `models::Forecast`.
fn main() {
    toolcall_build::Builder::new()
        .output_type("crate::models::Forecast")
        .form_type("crate::models::Confirm")
        .expect_warnings("../snapshots/generator/diagnostics__fixtures.snap")
        .compile();
    toolcall_build::Builder::new()
        .tools_dir("src/context_tools")
        .module_root("crate::context_tools")
        .context("crate::Ctx")
        .out_file("context_tools.rs")
        .expect_warnings("../snapshots/generator/diagnostics__context_tools.snap")
        .compile();
}
