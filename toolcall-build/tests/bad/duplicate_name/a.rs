//! The first `lookup`.

/// Look something up.
pub fn lookup(key: String) -> String {
    key
}
