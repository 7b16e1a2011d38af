//! Async tools for cancellation and panics: a guard counts live calls in the context.

use std::sync::atomic::Ordering;

use toolcall_runtime::ToolMeta;

use crate::Ctx;

/// `hold_limited` has its own time limit, which servers and agents use instead of theirs.
pub(crate) const TOOLS: &[ToolMeta] = &[ToolMeta::new("hold_limited").timeout_ms(80)];

/// Counts itself in `ctx.live` while alive.
struct LiveGuard<'a>(&'a Ctx);

impl<'a> LiveGuard<'a> {
    fn new(ctx: &'a Ctx) -> Self {
        ctx.live.fetch_add(1, Ordering::SeqCst);
        LiveGuard(ctx)
    }
}

impl Drop for LiveGuard<'_> {
    fn drop(&mut self) {
        self.0.live.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Holds a guard and waits forever: only dropping the call ends it.
pub async fn hold(ctx: &Ctx) -> u8 {
    let _guard = LiveGuard::new(ctx);
    std::future::pending::<()>().await;
    0
}

/// Like `hold`, under its own time limit of 80 ms.
pub async fn hold_limited(ctx: &Ctx) -> u8 {
    hold(ctx).await
}

/// Holds a guard, yields, then panics: the guard is dropped while unwinding.
///
/// # Arguments
///
/// * `message` - the panic message
pub async fn explode(ctx: &Ctx, message: String) -> u8 {
    let _guard = LiveGuard::new(ctx);
    crate::yield_now().await;
    panic!("{message}")
}
