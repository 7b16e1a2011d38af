//! Any bytes as the arguments of any tool of example-app, sync or async: `call_bytes` must
//! return, never panic or overflow. The first byte picks the tool (one past the end picks
//! an unknown one). Each run gets a fresh seeded store, so notes do not pile up.
#![no_main]

use std::sync::{Arc, LazyLock};
use std::time::Duration;

use example_app::App;
use example_app::app::{Store, User};
use libfuzzer_sys::fuzz_target;

/// A current-thread runtime with timers: the async tools wait on tokio's timer.
static RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_current_thread().enable_time().build().expect("a tokio runtime")
});

fuzz_target!(|data: &[u8]| {
    let names: Vec<&str> = example_app::toolset::ALL.names().collect();
    let Some((&pick, args)) = data.split_first() else { return };
    let name = names.get(usize::from(pick) % (names.len() + 1)).copied().unwrap_or("no_such_tool");
    let store = Arc::new(Store::seeded(Duration::ZERO));
    let app = App::for_user(&store, User { id: 1, name: "fuzz".to_owned() });
    let _ = RUNTIME.block_on(example_app::toolset::ALL.call_bytes(&app, name, args));
});
