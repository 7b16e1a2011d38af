//! A private local type with no `Deserialize`: the tool cannot be served.

struct Hidden {
    pub code: String,
}

/// A public type with a private field and no `Deserialize`.
pub struct Sealed {
    code: String,
}

/// Uses the private type.
pub fn reveal(hidden: Hidden) -> String {
    hidden.code
}

/// Uses the type with a private field.
pub fn unseal(sealed: Sealed) -> String {
    sealed.code
}

/// Still a tool.
pub fn fine(n: u8) -> u8 {
    n
}
