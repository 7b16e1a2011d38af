/// A tool in `private_decl.rs`.
pub fn private_decl_tool() -> bool {
    true
}
