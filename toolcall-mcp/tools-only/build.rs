//! Generates the toolset from `src/tools`.

fn main() {
    toolcall_build::Builder::new().compile();
}
