/// A tool in `declared.rs`.
pub fn declared_tool() -> bool {
    true
}
