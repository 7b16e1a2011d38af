//! What a call allocates, counted with a global allocator wrapper: `call` on a sync tool
//! allocates exactly what `run` does, and an async tool exactly one block more (its boxed
//! future). One test in this binary, so no other test allocates meanwhile.

use std::alloc::System;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use serde_json::{Value, json};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};
use toolcall_fixtures::{Ctx, context_toolset, toolset};
use toolcall_runtime::ToolError;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Polls once with a no-op waker: these tools never wait.
fn complete<F: Future<Output = Result<Value, ToolError>> + Unpin>(mut future: F) -> Result<Value, ToolError> {
    match Pin::new(&mut future).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(result) => result,
        Poll::Pending => panic!("the tool waited"),
    }
}

/// Allocations made by `f` (the result is dropped inside the count; frees are not counted).
fn allocations(f: impl FnOnce() -> Result<Value, ToolError>) -> usize {
    let region = Region::new(GLOBAL);
    let result = f();
    let counted = region.change().allocations;
    assert!(result.is_ok(), "{result:?}");
    counted
}

#[test]
fn call_allocates_what_run_does_and_an_async_tool_one_block_more() {
    let ctx = Ctx { user: "ada".into(), ..Ctx::default() };
    let sums = json!({"a": 2, "b": 40});
    let weather = json!({"city": "Oslo"});
    let all = &context_toolset::ALL;
    // Warm up once-only state (the panic hook, thread-locals) outside the counts.
    for _ in 0..2 {
        assert_eq!(all.run_with(&ctx, "add", &sums), Ok(json!(42)));
        assert_eq!(complete(all.call(&ctx, "add_later", &sums)), Ok(json!(42)));
        assert!(toolset::ALL.run("get_weather", &weather).is_ok());
    }

    let run = allocations(|| all.run_with(&ctx, "add", &sums));
    let call_sync = allocations(|| complete(all.call(&ctx, "add", &sums)));
    let call_async = allocations(|| complete(all.call(&ctx, "add_later", &sums)));
    assert_eq!(call_sync, run, "call on a sync tool allocates what run_with does");
    assert_eq!(call_async, call_sync + 1, "an async tool allocates its boxed future, once");

    let run = allocations(|| toolset::ALL.run("get_weather", &weather));
    let call = allocations(|| complete(toolset::ALL.call(&(), "get_weather", &weather)));
    assert!(run > 0, "the result map allocates");
    assert_eq!(call, run, "a context-free crate: call allocates what run does");
}
