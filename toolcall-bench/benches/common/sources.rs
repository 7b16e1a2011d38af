//! The synthetic tool files as the generator receives them, shared by the `generate`
//! benchmark (`benches/toolcall.rs`) and the generator's scaling figure
//! (`examples/generator_scale.rs`), so both time the same input.

use std::path::PathBuf;

use toolcall_bench::synth;
use toolcall_build::SourceFile;

/// `n` synthetic tools over `files` module files (`synth::sources`), each as a
/// [`SourceFile`] under `src/tools`.
pub fn synthetic_sources(n: usize, files: usize) -> Vec<SourceFile> {
    synth::sources(n, files)
        .into_iter()
        .map(|(file, text)| SourceFile {
            path: PathBuf::from("src/tools").join(&file),
            relative: PathBuf::from(file),
            text,
        })
        .collect()
}
