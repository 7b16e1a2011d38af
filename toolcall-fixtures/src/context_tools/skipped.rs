//! Signatures a context crate cannot serve: skipped with located warnings.

use crate::Ctx;

/// Something that is not the context.
pub struct Pool {
    /// Its size.
    pub size: usize,
}

/// The context taken mutably: calls share it, so this is skipped.
pub fn reset(ctx: &mut Ctx) -> usize {
    ctx.user.clear();
    0
}

/// A borrowed type that is not the context: skipped, pointing at the declared context.
pub fn pool_size(pool: &Pool) -> usize {
    pool.size
}
