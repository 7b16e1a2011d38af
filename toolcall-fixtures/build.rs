//! Generates the toolset of the fixture tools from `src/tools`, and a second one, with a
//! context, from `src/context_tools`.
fn main() {
    toolcall_build::Builder::new().compile();
    toolcall_build::Builder::new()
        .tools_dir("src/context_tools")
        .module_root("crate::context_tools")
        .context("crate::Ctx")
        .out_file("context_tools.rs")
        .compile();
}
