/// A tool in `forgotten.rs`.
pub fn forgotten_tool() -> bool {
    true
}
