//! `Toolset::call` and `CallFuture` with a hand-written dispatcher of the shape generated
//! code has, polled by hand: sync tools are ready at the first poll, async bodies are
//! polled with panics caught, and nothing panics when a finished call is polled again.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, Waker};

use serde_json::{Value, json};
use toolcall_runtime::__private::{Dispatched, ToolFuture, arguments, boxed, encode, invoke};
use toolcall_runtime::CallFuture;
use toolcall_runtime::{Emitted, ToolError, ToolInfo, Toolset};

/// The context: counts how often the async body was polled.
#[derive(Default)]
struct Counter {
    polls: AtomicUsize,
}

/// Pending `left` times, then ready; panics instead when `panic` is set.
struct Countdown<'a> {
    ctx: &'a Counter,
    left: usize,
    panic: bool,
}

impl Future for Countdown<'_> {
    type Output = Result<Value, ToolError>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.ctx.polls.fetch_add(1, Ordering::SeqCst);
        if self.left == 0 {
            assert!(!self.panic, "countdown exploded");
            return Poll::Ready(encode("done"));
        }
        self.left -= 1;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

fn call_count<'a>(ctx: &'a Counter, args: &'a Value) -> Result<ToolFuture<'a>, ToolError> {
    let map = match arguments(args, &["n", "panic"])? {
        (map, None) => map,
        (_, Some(unknown)) => return Err(unknown),
    };
    let left = map.get("n").and_then(Value::as_u64).unwrap_or(0) as usize;
    let panic = map.get("panic").is_some_and(|p| p == true);
    Ok(boxed(Countdown { ctx, left, panic }))
}

fn dispatch<'a>(ctx: &'a Counter, name: &'a str, args: &'a Value) -> Option<Dispatched<'a>> {
    Some(match name {
        "count" => match call_count(ctx, args) {
            Ok(body) => Dispatched::Async(body),
            Err(error) => Dispatched::Ready(Err(error)),
        },
        "polls" => Dispatched::Ready(invoke("polls", || encode(ctx.polls.load(Ordering::SeqCst)))),
        _ => return None,
    })
}

static INFO: [ToolInfo; 2] = [
    ToolInfo {
        module: "m",
        name: "count",
        description: "",
        parameters: "{}",
        strict_parameters: "{}",
        anthropic_strict_parameters: "{}",
        gemini_parameters: "",
        ..ToolInfo::EMPTY
    },
    ToolInfo {
        module: "m",
        name: "polls",
        description: "",
        parameters: "{}",
        strict_parameters: "{}",
        anthropic_strict_parameters: "{}",
        gemini_parameters: "",
        ..ToolInfo::EMPTY
    },
];
static EMITTED: Emitted = Emitted::new();
static TOOLS: Toolset<Counter> = Toolset::new(&INFO, &EMITTED, dispatch);

/// Polls `future` until ready with a no-op waker (the bodies here wake themselves);
/// returns the result and the number of polls.
fn drive<F: Future + Unpin>(mut future: F) -> (F::Output, usize) {
    let mut cx = Context::from_waker(Waker::noop());
    for polls in 1..1000 {
        if let Poll::Ready(out) = Pin::new(&mut future).poll(&mut cx) {
            return (out, polls);
        }
    }
    panic!("not ready after 1000 polls")
}

fn poll_once<F: Future + Unpin>(future: &mut F) -> Poll<F::Output> {
    Pin::new(future).poll(&mut Context::from_waker(Waker::noop()))
}

#[test]
fn a_sync_tool_is_ready_at_the_first_poll() {
    let ctx = Counter::default();
    let args = json!({});
    assert_eq!(drive(TOOLS.call(&ctx, "polls", &args)), (Ok(json!(0)), 1));
}

#[test]
fn an_async_body_runs_as_it_is_polled() {
    let ctx = Counter::default();
    let args = json!({"n": 3});
    let call = TOOLS.call(&ctx, "count", &args);
    assert_eq!(ctx.polls.load(Ordering::SeqCst), 0, "nothing runs before the first poll");
    assert_eq!(drive(call), (Ok(json!("done")), 4));
    assert_eq!(ctx.polls.load(Ordering::SeqCst), 4);
}

#[test]
fn a_panic_in_a_later_poll_ends_the_call_with_panicked() {
    let ctx = Counter::default();
    let args = json!({"n": 2, "panic": true});
    let (result, polls) = drive(TOOLS.call(&ctx, "count", &args));
    assert_eq!(result, Err(ToolError::Panicked("countdown exploded".into())));
    assert_eq!(polls, 3);
    let again = json!({"n": 1});
    assert_eq!(drive(TOOLS.call(&ctx, "count", &again)).0, Ok(json!("done")));
}

#[test]
fn a_finished_call_polled_again_is_an_error_not_a_panic() {
    let ctx = Counter::default();
    let args = json!({"n": 0});
    for name in ["count", "polls"] {
        let mut call = TOOLS.call(&ctx, name, &args);
        assert!(matches!(poll_once(&mut call), Poll::Ready(Ok(_))));
        match poll_once(&mut call) {
            Poll::Ready(Err(ToolError::Failed(message))) => {
                assert!(message.contains("polled again"), "{message}")
            }
            other => panic!("{name}: {other:?}"),
        }
    }
}

#[test]
fn argument_errors_and_unknown_tools_are_ready_at_once() {
    let ctx = Counter::default();
    let bad = json!({"x": 1});
    assert_eq!(
        drive(TOOLS.call(&ctx, "count", &bad)),
        (Err(ToolError::UnknownArguments(vec!["x".into()])), 1)
    );
    let (unknown, _) = drive(TOOLS.call(&ctx, "nope", &bad));
    assert_eq!(
        unknown,
        Err(ToolError::UnknownTool { name: "nope".into(), known: vec!["count".into(), "polls".into()] })
    );
    assert_eq!(ctx.polls.load(Ordering::SeqCst), 0);
}

#[test]
fn run_with_refuses_async_tools_without_polling_them() {
    let ctx = Counter::default();
    assert_eq!(TOOLS.run_with(&ctx, "count", &json!({"n": 1})), Err(ToolError::AsyncTool("count".into())));
    assert_eq!(ctx.polls.load(Ordering::SeqCst), 0);
    assert_eq!(TOOLS.run_with(&ctx, "polls", &json!({})), Ok(json!(0)));
}

#[test]
fn call_json_parses_first_and_its_future_is_send_for_a_sync_context() {
    fn assert_send<T: Send>(value: T) -> T {
        value
    }
    let ctx = Counter::default();
    let future = assert_send(TOOLS.call_json(&ctx, "count", r#"{"n": 2}"#));
    assert_eq!(drive(Box::pin(future)).0, Ok(json!("done")));
    let (bad, polls) = drive(Box::pin(TOOLS.call_json(&ctx, "count", "{")));
    assert!(matches!(bad, Err(ToolError::InvalidJson(_))) && polls == 1, "{bad:?}");
    let future: CallFuture<'_> = assert_send(TOOLS.call(&ctx, "polls", &Value::Null));
    assert!(format!("{future:?}").contains("tool: \"polls\""), "{future:?}");
}

#[test]
fn a_call_reports_its_state_and_an_unknown_tool_is_answered_once() {
    let ctx = Counter::default();
    let args = json!({"n": 1});
    let mut call = TOOLS.call(&ctx, "count", &args);
    assert!(format!("{call:?}").contains("state: \"running\""), "{call:?}");
    assert!(poll_once(&mut call).is_pending());
    assert!(format!("{call:?}").contains("state: \"running\""), "{call:?}");
    assert_eq!(poll_once(&mut call), Poll::Ready(Ok(json!("done"))));
    assert!(format!("{call:?}").contains("state: \"done\""), "{call:?}");

    let mut unknown = TOOLS.call(&ctx, "nope", &args);
    assert!(format!("{unknown:?}").contains("state: \"ready\""), "{unknown:?}");
    assert!(matches!(poll_once(&mut unknown), Poll::Ready(Err(ToolError::UnknownTool { .. }))));
    assert!(matches!(poll_once(&mut unknown), Poll::Ready(Err(ToolError::Failed(_)))));
}
