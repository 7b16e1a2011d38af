//! The two toolsets the README's snippets use: the quick start's, without a context
//! (`src/tools`), and "State and async"'s, with the context `crate::App`
//! (`src/app_tools`). Their warnings are part of the check: none are expected. The first
//! also names the typed answer of "Run an agent loop", `models::Report`.
fn main() {
    toolcall_build::Builder::new().output_type("crate::models::Report").compile();
    toolcall_build::Builder::new()
        .tools_dir("src/app_tools")
        .module_root("crate::app_tools")
        .context("crate::App")
        .out_file("app_tools.rs")
        .compile();
}
