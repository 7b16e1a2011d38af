//! The context in every position, written every way, and tools that do not take it.

use crate::Ctx as Session;

/// Who is calling: read from the context, never from the model.
pub fn whoami(ctx: &crate::Ctx) -> String {
    ctx.user.clone()
}

/// Greet as the calling user; the context is the second parameter, named by its last
/// segment.
///
/// # Arguments
///
/// * `greeting` - the greeting
/// * `punctuation` - what ends it
pub fn greet(greeting: String, ctx: &Ctx, punctuation: Option<char>) -> String {
    format!("{greeting}, {}{}", ctx.user, punctuation.unwrap_or('!'))
}

/// Look a note up for the calling user, asynchronously; the context through a `use`.
///
/// # Arguments
///
/// * `id` - which note
pub async fn note(id: u64, session: &Session) -> Result<String, String> {
    crate::yield_now().await;
    session.hits.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    match id {
        0 => Err("no note 0".to_owned()),
        _ => Ok(format!("note {id} of {}", session.user)),
    }
}

/// Add two numbers: no context at all.
///
/// # Arguments
///
/// * `a` - left
/// * `b` - right
pub fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Add two numbers, as an `async fn` that never waits: `add`'s twin, for counting what
/// the boxed future costs.
///
/// # Arguments
///
/// * `a` - left
/// * `b` - right
pub async fn add_later(a: i64, b: i64) -> i64 {
    a + b
}

/// The context twice, around a borrowed argument.
///
/// # Arguments
///
/// * `label` - a label
pub fn twice(first: &Ctx, label: &str, second: &Ctx) -> String {
    format!("{label}: {} {}", first.user, std::ptr::eq(first, second))
}

use crate::Ctx;
