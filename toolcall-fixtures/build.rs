//! Generates the toolset of the fixture tools from `src/tools`.
fn main() {
    toolcall_build::Builder::new().compile();
}
