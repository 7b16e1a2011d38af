//! The second `lookup`, in another module.

/// Look something else up.
pub fn lookup(id: u32) -> u32 {
    id
}
