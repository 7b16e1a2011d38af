/// A tool in a directory with no module file.
pub fn lost() -> bool {
    true
}
