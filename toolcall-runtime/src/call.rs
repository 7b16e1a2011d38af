//! The pieces of a call that every dispatcher shares: checking the arguments object,
//! calling the function with panics caught, and encoding its result.
//!
//! Generated dispatchers call these; runtime-built tools use them too, so a call behaves
//! the same whichever way the tool was defined.
//!
//! A dispatcher answers a call with [`Dispatched`]: the finished result of a sync tool, or
//! the boxed future of an async one. [`CallFuture`] is what
//! [`Toolset::call`](crate::Toolset::call) returns over both; it polls an async tool with
//! panics caught, so a panic in any poll is [`ToolError::Panicked`].

use std::any::Any;
use std::backtrace::Backtrace;
use std::cell::{Cell, RefCell};
use std::fmt;
use std::future::Future;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::Once;
use std::task::{Context, Poll};

use serde_json::Value;

pub use crate::arguments::{arguments, parse_arguments};
use crate::error::ToolError;
use crate::fast::{Args, Filled};
use crate::info::{ToolInfo, unknown_tool};
use crate::slot::Fields;

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

/// The exact decoder of generated call functions: checks that `args` is an object (naming
/// every key `known` does not declare), then decodes every parameter with `decode` and
/// collects what it returns ([`Decoded`]). Every error comes back at once, the unknown
/// arguments first and then the parameters in declaration order.
#[inline]
pub fn exact<'v, D: Decoded>(
    args: &'v Value,
    known: &[&str],
    decode: impl FnOnce(Fields<'v>) -> D,
) -> Result<D::Values, ToolError> {
    let (arguments, unknown) = arguments(args, known)?;
    let mut errors = errors_from(unknown);
    match decode(Fields::new(arguments)).collect(&mut errors) {
        Some(values) if errors.is_empty() => Ok(values),
        _ => Err(one_error(errors)),
    }
}

/// Why a call function stops before its tool runs: `None` for text the one-pass reader
/// gave up on (the caller parses it and calls again with the value), or the finished call
/// of arguments that did not decode.
pub type Stop<'a> = Option<Dispatched<'a>>;

/// A generated call function's decoding where every parameter has the one-pass reader:
/// `args.read(index)` (each key matched to its slot), else the exact decoder
/// ([`decode_exact`]), which explains every error.
#[inline(always)]
pub fn decode_fast<'a, D: Decoded>(
    args: Args<'a>,
    index: impl Fn(&str) -> Option<usize>,
    known: &[&str],
    decode: impl FnOnce(Fields<'a>) -> D,
) -> Result<D::Values, Stop<'a>>
where
    D::Values: Filled<'a>,
{
    match args.read(index) {
        Some(values) => Ok(values),
        None => decode_exact(args, known, decode),
    }
}

/// A generated call function's exact decoding ([`exact`]) of the arguments as a value;
/// text stops with `None` (the caller parses it), an error with the finished call.
#[inline(always)]
pub fn decode_exact<'a, D: Decoded>(
    args: Args<'a>,
    known: &[&str],
    decode: impl FnOnce(Fields<'a>) -> D,
) -> Result<D::Values, Stop<'a>> {
    let Some(value) = args.value() else { return Err(None) };
    match exact(value, known, decode) {
        Ok(values) => Ok(values),
        Err(error) => Err(Some(Dispatched::Ready(Err(error)))),
    }
}

/// [`decode_fast`] for a tool whose parameters are all read plainly ([`Params`]): `known`
/// names them, in order.
#[inline(always)]
pub fn decode_fast_plain<'a, P: Params<'a> + Filled<'a>>(
    args: Args<'a>,
    index: impl Fn(&str) -> Option<usize>,
    known: &[&str],
) -> Result<P, Stop<'a>> {
    decode_fast(args, index, known, |fields| P::results(fields, known))
}

/// [`decode_exact`] for a tool whose parameters are all read plainly ([`Params`]).
#[inline(always)]
pub fn decode_exact_plain<'a, P: Params<'a>>(args: Args<'a>, known: &[&str]) -> Result<P, Stop<'a>> {
    decode_exact(args, known, |fields| P::results(fields, known))
}

/// A sync tool's finished call: `body` (the tool's call and its result's encoding) run
/// with panics caught ([`invoke`]).
#[inline(always)]
pub fn ready<'a>(name: &str, body: impl FnOnce() -> Result<Value, ToolError>) -> Option<Dispatched<'a>> {
    Some(Dispatched::Ready(invoke(name, body)))
}

/// An async tool's call: its body, boxed, polled later. A tool whose future is not
/// `Send` (it holds an `Rc` or a `RefCell` borrow across an `.await`) fails the build
/// here, with rustc naming the tool's future.
#[inline]
pub fn pending<'a>(
    body: impl Future<Output = Result<Value, ToolError>> + Send + 'a,
) -> Option<Dispatched<'a>> {
    Some(Dispatched::Async(Box::pin(body)))
}

/// A sync tool's call function after decoding: [`ready`] with the decoded parameters
/// handed to `body`, or how the call stopped. One expression per call function, so the
/// generated text holds only what differs between tools.
#[inline(always)]
pub fn then_ready<'a, P>(
    decoded: Result<P, Stop<'a>>,
    name: &str,
    body: impl FnOnce(P) -> Result<Value, ToolError>,
) -> Option<Dispatched<'a>> {
    match decoded {
        Ok(params) => ready(name, move || body(params)),
        Err(stop) => stop,
    }
}

/// An async tool's call function after decoding: [`pending`] with the future `body` makes
/// of the decoded parameters, or how the call stopped.
#[inline(always)]
pub fn then_pending<'a, P, F>(
    decoded: Result<P, Stop<'a>>,
    body: impl FnOnce(P) -> F,
) -> Option<Dispatched<'a>>
where
    F: Future<Output = Result<Value, ToolError>> + Send + 'a,
{
    match decoded {
        Ok(params) => pending(body(params)),
        Err(stop) => stop,
    }
}

// The exact decoder's error bookkeeping, shared by every tool's instance of it (out of
// line: the instances hold their parameters' decoding and calls to these).

/// The error list an exact decoder starts with: the unknown-argument error, if any.
#[inline(never)]
fn errors_from(unknown: Option<ToolError>) -> Vec<ToolError> {
    unknown.into_iter().collect()
}

/// Appends a parameter's error to the list.
#[cold]
#[inline(never)]
fn push_error(errors: &mut Vec<ToolError>, error: ToolError) {
    errors.push(error);
}

/// The one error of a decoder's list (never empty when this is called).
#[cold]
#[inline(never)]
fn one_error(errors: Vec<ToolError>) -> ToolError {
    ToolError::all(errors).unwrap_or(ToolError::Several(Vec::new()))
}

/// What an exact decoder's `decode` returns: each parameter's `Result`, as one tuple of up
/// to [`MAX_DECODED`] (tuples of tuples for longer lists), in declaration order.
pub trait Decoded {
    /// The decoded values, shaped as `Self` is.
    type Values;

    /// The values when every result is `Ok`; else `None`, with each error appended to
    /// `errors` in order.
    fn collect(self, errors: &mut Vec<ToolError>) -> Option<Self::Values>;
}

/// The most items one [`Decoded`] tuple has; generated code nests longer lists.
pub const MAX_DECODED: usize = 12;

impl<T> Decoded for Result<T, ToolError> {
    type Values = T;

    #[inline]
    fn collect(self, errors: &mut Vec<ToolError>) -> Option<T> {
        self.map_err(|error| push_error(errors, error)).ok()
    }
}

macro_rules! decoded_tuple {
    ($($part:ident)*) => {
        impl<$($part: Decoded),*> Decoded for ($($part,)*) {
            type Values = ($($part::Values,)*);

            #[inline]
            #[allow(non_snake_case, unused_variables, reason = "the type names name the parts")]
            fn collect(self, errors: &mut Vec<ToolError>) -> Option<Self::Values> {
                let ($($part,)*) = self;
                // Every part is collected before any is unwrapped, so every error is kept.
                $(let $part = $part.collect(errors);)*
                Some(($($part?,)*))
            }
        }
    };
}

decoded_tuple!();
decoded_tuple!(A);
decoded_tuple!(A B);
decoded_tuple!(A B C);
decoded_tuple!(A B C D);
decoded_tuple!(A B C D E);
decoded_tuple!(A B C D E F);
decoded_tuple!(A B C D E F G);
decoded_tuple!(A B C D E F G H);
decoded_tuple!(A B C D E F G H I);
decoded_tuple!(A B C D E F G H I J);
decoded_tuple!(A B C D E F G H I J K);
decoded_tuple!(A B C D E F G H I J K L);

/// The parameters of a tool whose every parameter is read plainly, each by its type's
/// [`FromArg`](crate::FromArg) under its name ([`Fields::arg`]): a tuple of up to
/// [`MAX_DECODED`] types. Generated call functions of such tools name only the
/// parameters ([`decode_fast_plain`], [`decode_exact_plain`]), not a decoder per
/// parameter.
pub trait Params<'a>: Sized {
    /// Each parameter's `Result`, as the exact decoder collects them.
    type Results: Decoded<Values = Self>;

    /// Reads the parameters named `names`, in order, from the arguments' members.
    fn results(fields: Fields<'a>, names: &[&str]) -> Self::Results;
}

macro_rules! params_tuple {
    ($($part:ident $index:tt)*) => {
        impl<'a, $($part: crate::decode::FromArg<'a>),*> Params<'a> for ($($part,)*) {
            type Results = ($(Result<$part, ToolError>,)*);

            #[inline]
            #[allow(unused_variables, clippy::unused_unit, reason = "no parameters read nothing")]
            fn results(fields: Fields<'a>, names: &[&str]) -> Self::Results {
                ($(fields.arg(names.get($index).copied().unwrap_or_default()),)*)
            }
        }
    };
}

params_tuple!();
params_tuple!(A 0);
params_tuple!(A 0 B 1);
params_tuple!(A 0 B 1 C 2);
params_tuple!(A 0 B 1 C 2 D 3);
params_tuple!(A 0 B 1 C 2 D 3 E 4);
params_tuple!(A 0 B 1 C 2 D 3 E 4 F 5);
params_tuple!(A 0 B 1 C 2 D 3 E 4 F 5 G 6);
params_tuple!(A 0 B 1 C 2 D 3 E 4 F 5 G 6 H 7);
params_tuple!(A 0 B 1 C 2 D 3 E 4 F 5 G 6 H 7 I 8);
params_tuple!(A 0 B 1 C 2 D 3 E 4 F 5 G 6 H 7 I 8 J 9);
params_tuple!(A 0 B 1 C 2 D 3 E 4 F 5 G 6 H 7 I 8 J 9 K 10);
params_tuple!(A 0 B 1 C 2 D 3 E 4 F 5 G 6 H 7 I 8 J 9 K 10 L 11);

/// A hash of a tool name. Generated dispatchers match on `(name_hash(name), name)`,
/// so finding a tool among 1,000 costs an integer switch and one string comparison.
///
/// It reads the name a word at a time (little-endian, the last word overlapping the one
/// before it; a name under 8 bytes as two overlapping halves, or its first, middle and
/// last bytes), each word multiplied in, seeded with the length: a few instructions
/// whatever the length. Two names may share a hash; the string comparison tells them
/// apart.
#[inline]
pub const fn name_hash(name: &str) -> u64 {
    let bytes = name.as_bytes();
    let len = bytes.len();
    let mut hash = mix(0, len as u64);
    if let Some(last) = bytes.last_chunk::<8>() {
        let mut rest = bytes;
        while let Some((word, after)) = rest.split_first_chunk::<8>() {
            if after.is_empty() {
                break;
            }
            hash = mix(hash, u64::from_le_bytes(*word));
            rest = after;
        }
        hash = mix(hash, u64::from_le_bytes(*last));
    } else if let (Some(first), Some(last)) = (bytes.first_chunk::<4>(), bytes.last_chunk::<4>()) {
        hash = mix(hash, ((u32::from_le_bytes(*first) as u64) << 32) | u32::from_le_bytes(*last) as u64);
    } else if let (Some(first), Some(last)) = (bytes.first(), bytes.last()) {
        hash = mix(hash, ((*first as u64) << 16) | ((bytes[len / 2] as u64) << 8) | *last as u64);
    }
    hash ^ (hash >> 32)
}

/// One step of [`name_hash`]: `word` multiplied into `hash`.
#[inline(always)]
const fn mix(hash: u64, word: u64) -> u64 {
    (hash ^ word).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29)
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
#[cold]
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
    guarded(name, f).unwrap_or_else(Err)
}

/// Runs `f` (a tool body, or one poll of a tool's future) with panics caught: a panic is
/// logged with its backtrace and returned as `Err(Panicked)`.
fn guarded<R>(name: &str, f: impl FnOnce() -> R) -> Result<R, ToolError> {
    if !HOOK.is_completed() {
        install_hook();
    }
    let outer = IN_TOOL.with(|flag| flag.replace(true));
    let outcome = panic::catch_unwind(AssertUnwindSafe(f));
    IN_TOOL.with(|flag| flag.set(outer));
    outcome.map_err(|payload| panicked(name, payload))
}

/// The error of tool `name`'s panic with `payload`, logged with the backtrace the hook
/// captured. Out of line: one copy for every tool's `guarded`.
#[cold]
#[inline(never)]
fn panicked(name: &str, payload: Box<dyn Any + Send>) -> ToolError {
    let message = panic_message(payload.as_ref());
    let backtrace = LAST_BACKTRACE.with(|slot| slot.borrow_mut().take());
    match backtrace {
        Some(bt) => log::error!("tool `{name}` panicked: {message}\n{bt}"),
        None => log::error!("tool `{name}` panicked: {message}"),
    }
    ToolError::Panicked(message)
}

/// The running body of an async tool: decoded arguments moved in, the result encoded.
/// `Send`, so a call can be spawned on a multi-threaded executor.
pub type ToolFuture<'a> = Pin<Box<dyn Future<Output = Result<Value, ToolError>> + Send + 'a>>;

/// Boxes an async tool's body. Generated code calls this; a tool whose future is not
/// `Send` (it holds an `Rc` or a `RefCell` borrow across an `.await`) fails the build here,
/// with rustc naming the tool's future.
pub fn boxed<'a>(body: impl Future<Output = Result<Value, ToolError>> + Send + 'a) -> ToolFuture<'a> {
    Box::pin(body)
}

/// What a dispatcher made of a call: the finished result of a sync tool (or of arguments
/// that did not decode), or the not-yet-polled body of an async tool.
pub enum Dispatched<'a> {
    /// The call is over.
    Ready(Result<Value, ToolError>),
    /// An async tool's body, to be polled through [`CallFuture`].
    Async(ToolFuture<'a>),
}

impl fmt::Debug for Dispatched<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dispatched::Ready(result) => f.debug_tuple("Ready").field(result).finish(),
            Dispatched::Async(_) => f.write_str("Async(..)"),
        }
    }
}

/// The future [`Toolset::call`](crate::Toolset::call) returns.
///
/// A sync tool has already run when this is created and the first poll hands its result
/// over (no allocation). An async tool's body is polled with panics caught: a panic in any
/// poll ends the call with [`ToolError::Panicked`]. Dropping this future drops the tool's
/// body, which cancels it at the `.await` it is suspended on; the toolset is unaffected.
/// It is `Send` whatever the context type, since the body is.
#[must_use = "a call does nothing unless it is awaited"]
pub struct CallFuture<'a> {
    name: &'a str,
    /// The tools of the toolset asked, for the error when its dispatcher did not know `name`.
    known: &'static [ToolInfo],
    state: CallState<'a>,
}

enum CallState<'a> {
    /// What the dispatcher answered, kept as it wrote it (`None`: `name` is not one of its
    /// tools): a sync tool's result is not moved again until the poll hands it over.
    Dispatched(Option<Dispatched<'a>>),
    /// The result was handed over, or the body finished or panicked and was dropped.
    Done,
}

impl<'a> CallFuture<'a> {
    /// A call of tool `name` as its dispatcher answered it.
    #[inline]
    pub fn new(name: &'a str, dispatched: Dispatched<'a>) -> Self {
        CallFuture { name, known: &[], state: CallState::Dispatched(Some(dispatched)) }
    }

    /// A call that is already over with `result`.
    #[inline]
    pub fn ready(name: &'a str, result: Result<Value, ToolError>) -> Self {
        CallFuture::new(name, Dispatched::Ready(result))
    }

    /// A call of tool `name` as the dispatcher of a toolset of `known` tools answered it;
    /// `None` ends in [`ToolError::UnknownTool`] at the first poll.
    #[inline]
    pub(crate) fn dispatched(
        name: &'a str,
        known: &'static [ToolInfo],
        dispatched: Option<Dispatched<'a>>,
    ) -> Self {
        CallFuture { name, known, state: CallState::Dispatched(dispatched) }
    }

    /// One poll of an async tool's body, with panics caught. Out of line: the ready path
    /// of [`CallFuture::poll`] stays a tag test and one move.
    #[inline(never)]
    fn poll_body(
        &mut self,
        mut body: ToolFuture<'a>,
        cx: &mut Context<'_>,
    ) -> Poll<Result<Value, ToolError>> {
        match guarded(self.name, || body.as_mut().poll(cx)) {
            Ok(Poll::Pending) => {
                self.state = CallState::Dispatched(Some(Dispatched::Async(body)));
                Poll::Pending
            }
            // The body is dropped here, finished or panicked: it is never polled again.
            Ok(Poll::Ready(result)) => Poll::Ready(result),
            Err(panicked) => Poll::Ready(Err(panicked)),
        }
    }
}

/// What a call polled again after it completed answers.
#[cold]
#[inline(never)]
fn polled_again() -> Poll<Result<Value, ToolError>> {
    Poll::Ready(Err(ToolError::Failed("the call was polled again after it completed".to_owned())))
}

impl Future for CallFuture<'_> {
    type Output = Result<Value, ToolError>;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        match std::mem::replace(&mut this.state, CallState::Done) {
            CallState::Dispatched(Some(Dispatched::Ready(result))) => Poll::Ready(result),
            CallState::Dispatched(Some(Dispatched::Async(body))) => this.poll_body(body, cx),
            CallState::Dispatched(None) => Poll::Ready(Err(unknown_tool(this.name, this.known))),
            CallState::Done => polled_again(),
        }
    }
}

impl fmt::Debug for CallFuture<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match &self.state {
            CallState::Dispatched(Some(Dispatched::Ready(_)) | None) => "ready",
            CallState::Dispatched(Some(Dispatched::Async(_))) => "running",
            CallState::Done => "done",
        };
        f.debug_struct("CallFuture").field("tool", &self.name).field("state", &state).finish()
    }
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
