//! Any bytes as the arguments of any tool of example-app: `run_bytes` must return, never
//! panic or overflow. The first byte picks the tool (one past the end picks an unknown one).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let names: Vec<&str> = example_app::toolset::ALL.names().collect();
    let Some((&pick, args)) = data.split_first() else { return };
    let name = names.get(usize::from(pick) % (names.len() + 1)).copied().unwrap_or("no_such_tool");
    let _ = example_app::toolset::ALL.run_bytes(name, args);
});
