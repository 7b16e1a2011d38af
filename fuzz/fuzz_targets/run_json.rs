//! Any bytes as the arguments of any tool of example-app, sync or async: `call_bytes` must
//! return, never panic or overflow. The first byte picks the tool (one past the end picks
//! an unknown one). Every call starts from the seeded notes: one store for the whole run,
//! `Store::plain` (the notes in a `Vec`, answering as the built-in SQLite database does;
//! `tests/store.rs` holds the two to the same answers), reset after a call that wrote (a
//! reset of an unwritten store is one atomic load). So the fuzzer spends its time in the
//! decoders, not in SQLite's connection thread, and no database thread outlives an input.
//!
//! Expectations beyond "returns":
//! - an object that holds a key twice is never answered with a result (the model
//!   contradicted itself). A separate key counter is the oracle: when the text has more
//!   object entries than the parsed `Value` keeps, a key was repeated;
//! - the text path (the one-pass decoder reading the bytes, handing over to the exact
//!   decoder at the first surprise) answers exactly as parsing the bytes and calling with
//!   the `Value` does, on a second fresh store.
#![no_main]

use std::fmt;
use std::sync::{Arc, LazyLock};

use example_app::App;
use example_app::app::Store;
use example_app::models::User;
use libfuzzer_sys::fuzz_target;
use toolcall_runtime::serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use toolcall_runtime::serde_json::{self, Value};
use toolcall_runtime::{Reason, ToolError};

/// A current-thread runtime with timers: the async tools wait on tokio's timer.
static RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_current_thread().enable_time().build().expect("a tokio runtime")
});

fuzz_target!(|data: &[u8]| {
    let names: Vec<&str> = example_app::toolset::ALL.names().collect();
    let Some((&pick, args)) = data.split_first() else { return };
    let name = names.get(usize::from(pick) % (names.len() + 1)).copied().unwrap_or("no_such_tool");
    // One trip into the runtime per input: every trip is thousands of edges libFuzzer
    // has to look at after the run.
    RUNTIME.block_on(async {
        let result = example_app::toolset::ALL.call_bytes(&seeded_app().await, name, args).await;
        if repeats_a_key(args) {
            assert!(is_duplicate_key(&result), "a repeated key was answered: {result:?}");
        }
        if let Ok(parsed) = toolcall_runtime::__private::parse_arguments(args) {
            let by_value = example_app::toolset::ALL.call(&seeded_app().await, name, &parsed).await;
            assert_eq!(result, by_value, "text and value disagree on {name} {parsed}");
        }
    });
});

/// The one store of the run.
static STORE: LazyLock<Arc<Store>> = LazyLock::new(|| Arc::new(Store::plain(true)));

/// The app on the run's store, put back to the seeded notes if the last call wrote.
async fn seeded_app() -> App {
    STORE.reset().await.expect("the built-in database resets");
    App::for_user(&STORE, User { id: 1, name: "fuzz".to_owned(), role: Default::default() })
}

/// Whether `bytes` is a JSON object some object of which holds a key twice.
fn repeats_a_key(bytes: &[u8]) -> bool {
    let Ok(value @ Value::Object(_)) = serde_json::from_slice::<Value>(bytes) else { return false };
    let mut entries = serde_json::Deserializer::from_slice(bytes);
    let Ok(written) = entries.deserialize_any(Entries) else { return false };
    written != kept(&value)
}

/// Object entries kept in a parsed value.
fn kept(value: &Value) -> usize {
    match value {
        Value::Object(map) => map.len() + map.values().map(kept).sum::<usize>(),
        Value::Array(items) => items.iter().map(kept).sum(),
        _ => 0,
    }
}

/// Counts every object entry as written, repeated keys included.
struct Entries;

impl<'de> Visitor<'de> for Entries {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("JSON")
    }

    fn visit_bool<E>(self, _: bool) -> Result<usize, E> {
        Ok(0)
    }
    fn visit_i64<E>(self, _: i64) -> Result<usize, E> {
        Ok(0)
    }
    fn visit_u64<E>(self, _: u64) -> Result<usize, E> {
        Ok(0)
    }
    fn visit_f64<E>(self, _: f64) -> Result<usize, E> {
        Ok(0)
    }
    fn visit_str<E>(self, _: &str) -> Result<usize, E> {
        Ok(0)
    }
    fn visit_unit<E>(self) -> Result<usize, E> {
        Ok(0)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<usize, A::Error> {
        let mut total = 0;
        while let Some(n) = seq.next_element_seed(Counted)? {
            total += n;
        }
        Ok(total)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<usize, A::Error> {
        let mut total = 0;
        while map.next_key::<IgnoredAny>()?.is_some() {
            total += 1 + map.next_value_seed(Counted)?;
        }
        Ok(total)
    }
}

/// [`Entries`] as a seed for nested values.
struct Counted;

impl<'de> toolcall_runtime::serde::de::DeserializeSeed<'de> for Counted {
    type Value = usize;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<usize, D::Error> {
        deserializer.deserialize_any(Entries)
    }
}

/// The refusal of a repeated key (alone, or among several).
fn is_duplicate_key(result: &Result<Value, ToolError>) -> bool {
    let one = |e: &ToolError| matches!(e, ToolError::InvalidArgument { reason, .. } if **reason == Reason::DuplicateKey {});
    match result {
        Err(ToolError::Several(errors)) => errors.iter().all(one),
        Err(error) => one(error),
        Ok(_) => false,
    }
}
