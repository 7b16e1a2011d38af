//! Any text as a tool file: the generator must return code and diagnostics, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolcall_build::{Builder, SourceFile};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let source =
        SourceFile { path: "src/tools/fuzz.rs".into(), relative: "fuzz.rs".into(), text: text.to_owned() };
    let _ = Builder::new().generate_from(vec![source]);
});
