/// Declared by an inline module: fine.
pub fn nested() -> bool {
    true
}
