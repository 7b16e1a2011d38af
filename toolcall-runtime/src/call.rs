//! The pieces of a call that every dispatcher shares: checking the arguments object,
//! calling the function with panics caught, and encoding its result.
//!
//! Generated dispatchers call these; runtime-built tools use them too, so a call behaves
//! the same whichever way the tool was defined.

use std::any::Any;
use std::backtrace::Backtrace;
use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::{ToolError, summarize};

/// Anything that runs tools by name: [`Toolset`](crate::Toolset),
/// [`Registry`](crate::Registry). The provider glue in [`crate::glue`] works with any.
pub trait Runner {
    /// Decodes `args`, calls tool `name`, returns its result as JSON.
    fn run(&self, name: &str, args: &Value) -> Result<Value, ToolError>;

    /// Like `run`, with the arguments as JSON text.
    fn run_json(&self, name: &str, args: &str) -> Result<Value, ToolError> {
        let args = parse_arguments(args.as_bytes())?;
        self.run(name, &args)
    }
}

/// Parses argument text (or bytes): malformed JSON, invalid UTF-8 and lone surrogate
/// escapes are all `InvalidJson`. Nesting is bounded by `serde_json`'s recursion limit.
pub fn parse_arguments(bytes: &[u8]) -> Result<Value, ToolError> {
    serde_json::from_slice(bytes).map_err(|e| ToolError::InvalidJson(e.to_string()))
}

/// The arguments object, after checking it is an object with only `known` keys.
/// Every unknown key is reported, in the order the object holds them.
pub fn arguments<'a>(args: &'a Value, known: &[&str]) -> Result<&'a Map<String, Value>, ToolError> {
    let map = args.as_object().ok_or_else(|| ToolError::InvalidArguments(summarize(args)))?;
    if map.len() <= known.len() && map.keys().all(|k| known.contains(&k.as_str())) {
        return Ok(map);
    }
    let unknown = map.keys().filter(|k| !known.contains(&k.as_str())).cloned().collect();
    Err(ToolError::UnknownArguments(unknown))
}

/// FNV-1a hash of a tool name. Generated dispatchers match on `(name_hash(name), name)`,
/// so finding a tool among 1,000 costs an integer switch and one string comparison.
pub const fn name_hash(name: &str) -> u64 {
    let bytes = name.as_bytes();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < bytes.len() {
        hash ^= bytes[i] as u64;
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        i += 1;
    }
    hash
}

/// Encodes a tool's plain return value.
pub fn encode<T: Serialize>(value: T) -> Result<Value, ToolError> {
    serde_json::to_value(value)
        .map_err(|e| ToolError::Failed(format!("result could not be encoded as JSON: {e}")))
}

/// Encodes a tool's `Result`: `Err(e)` becomes `Failed(e.to_string())`.
pub fn encode_result<T: Serialize, E: std::fmt::Display>(result: Result<T, E>) -> Result<Value, ToolError> {
    match result {
        Ok(value) => encode(value),
        Err(error) => Err(ToolError::Failed(error.to_string())),
    }
}

thread_local! {
    /// Set while a tool function runs on this thread, so the panic hook knows to capture.
    static IN_TOOL: Cell<bool> = const { Cell::new(false) };
    /// The backtrace of the last panic inside a tool on this thread.
    static LAST_BACKTRACE: RefCell<Option<Backtrace>> = const { RefCell::new(None) };
}

static HOOK: Once = Once::new();

/// Installs (once) a panic hook that captures a backtrace for panics inside tools and
/// defers to the previous hook for every other panic.
fn install_hook() {
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if IN_TOOL.with(Cell::get) {
                LAST_BACKTRACE.with(|slot| *slot.borrow_mut() = Some(Backtrace::force_capture()));
            } else {
                previous(info);
            }
        }));
    });
}

/// Calls tool `name`'s body `f`, catching a panic and returning it as `Panicked`.
/// The panic is logged at error level with its backtrace through `log`.
pub fn invoke(name: &str, f: impl FnOnce() -> Result<Value, ToolError>) -> Result<Value, ToolError> {
    install_hook();
    let outer = IN_TOOL.with(|flag| flag.replace(true));
    let outcome = panic::catch_unwind(AssertUnwindSafe(f));
    IN_TOOL.with(|flag| flag.set(outer));
    outcome.unwrap_or_else(|payload| {
        let message = panic_message(payload.as_ref());
        let backtrace = LAST_BACKTRACE.with(|slot| slot.borrow_mut().take());
        match backtrace {
            Some(bt) => log::error!("tool `{name}` panicked: {message}\n{bt}"),
            None => log::error!("tool `{name}` panicked: {message}"),
        }
        Err(ToolError::Panicked(message))
    })
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "panic with a non-string payload".to_owned()
    }
}
