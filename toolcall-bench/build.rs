//! Generates three toolsets into `OUT_DIR`:
//!
//! - `tools.rs` from the crate's own `src/tools` (the real tools the benchmarks call);
//! - `big_tools/*.rs` (1,000 synthetic tool functions over 10 files) and `big_toolset.rs`;
//! - `small_tools/*.rs` (10 synthetic tools in one file) and `small_toolset.rs`.
//!
//! `src/lib.rs` includes the synthetic tool files as `crate::big::mNN` and
//! `crate::small::m00`, which is the module root the generator is given.

use std::path::{Path, PathBuf};
use std::process::exit;

#[allow(dead_code, reason = "build.rs uses only part of the generator")]
#[path = "src/synth.rs"]
mod synth;

/// The synthetic sets: (name, tools, module files).
const SETS: [(&str, usize, usize); 2] = [("big", 1000, 10), ("small", 10, 1)];

fn main() {
    toolcall_build::Builder::new().compile();
    println!("cargo:rerun-if-changed=src/synth.rs");
    let Some(out_dir) = std::env::var_os("OUT_DIR").map(PathBuf::from) else {
        fail("OUT_DIR is not set");
    };
    for (name, tools, modules) in SETS {
        if let Err(message) = synthetic(&out_dir, name, tools, modules) {
            fail(&message);
        }
    }
}

fn fail(message: &str) -> ! {
    eprintln!("error: toolcall-bench build script: {message}");
    exit(1);
}

/// Writes the tool files of one synthetic set and the toolset generated from them.
fn synthetic(out_dir: &Path, name: &str, tools: usize, modules: usize) -> Result<(), String> {
    let tools_dir = format!("{name}_tools");
    let dir = out_dir.join(&tools_dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for (file, text) in synth::sources(tools, modules) {
        write_if_changed(&dir.join(file), &text)?;
    }
    let generated = toolcall_build::Builder::new()
        .crate_dir(out_dir)
        .tools_dir(&tools_dir)
        .module_root(format!("crate::{name}"))
        .generate()
        .map_err(|e| e.to_string())?;
    for diagnostic in &generated.diagnostics {
        // The provider per-request limits (tool counts) are expected for a synthetic set.
        if !diagnostic.to_string().contains("send a subset") {
            println!("cargo:warning={diagnostic}");
        }
    }
    if generated.has_errors() {
        return Err(format!("the synthetic `{name}` set has errors"));
    }
    write_if_changed(&out_dir.join(format!("{name}_toolset.rs")), &generated.code)
}

/// Writes only when the content changed, so an unchanged set does not trigger a rebuild.
fn write_if_changed(path: &Path, text: &str) -> Result<(), String> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}
