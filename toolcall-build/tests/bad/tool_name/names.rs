//! Tool names outside ^[a-zA-Z0-9_-]{1,64}$: warned at build, refused at export.

/// A non-ASCII name.
pub fn naïve_lookup(key: String) -> String {
    key
}

/// 65 characters.
pub fn xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx() -> u8 {
    1
}

/// 64 characters is fine.
pub fn yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy() -> u8 {
    1
}
