//! Tools that talk back (#32): `&Progress` in any position (written as the path or through
//! a `use`), never in a schema; results of `Content` blocks, which claim no output schema.

use std::sync::atomic::Ordering;

use toolcall_runtime::{Content, LogLevel, Progress, ToolMeta};

use crate::Ctx;

/// `erase` is destructive: an agent asks before running it.
pub(crate) const TOOLS: &[ToolMeta] = &[ToolMeta::new("erase").destructive()];

/// Erases an item (counts the call in `ctx.hits`).
///
/// # Arguments
///
/// * `item` - what to erase
pub fn erase(ctx: &Ctx, item: String) -> String {
    ctx.hits.fetch_add(1, Ordering::SeqCst);
    format!("erased {item}")
}

/// Reports each step, logs, and returns the signed-in user's items as one embedded
/// markdown resource.
///
/// # Arguments
///
/// * `count` - how many items
pub async fn export(
    count: u32,
    progress: &toolcall_runtime::Progress,
    ctx: &Ctx,
) -> Result<Vec<Content>, String> {
    let mut text = format!("# {}\n", ctx.user);
    for done in 1..=count {
        crate::yield_now().await;
        text.push_str(&format!("- item {done}\n"));
        progress.report(u64::from(done), Some(u64::from(count)), format!("item {done}"));
    }
    progress.log(LogLevel::Info, format!("exported {count} items"));
    let resource = Content::resource_text(format!("items://{}", ctx.user), "text/markdown", text);
    Ok(vec![Content::text(format!("{count} items")), resource])
}

/// A one-pixel image, after a warning.
pub fn pixel(progress: &Progress) -> Content {
    progress.log(LogLevel::Warning, "only one pixel");
    Content::image("image/png", vec![0x89, b'P', b'N', b'G'])
}

/// Counts to `to`, reporting without a total; sync, with the progress first.
///
/// # Arguments
///
/// * `to` - the last number
pub fn count_up(progress: &Progress, to: u8) -> u8 {
    for done in 1..=to {
        progress.report(u64::from(done), None, "");
    }
    to
}
