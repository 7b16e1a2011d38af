//! Signatures a context crate cannot serve: skipped with located warnings.

/// Something that is not the context.
pub struct Pool {
    /// Its size.
    pub size: usize,
}

/// A borrowed type that is not the context: skipped, pointing at the declared context.
pub fn pool_size(pool: &Pool) -> usize {
    pool.size
}
