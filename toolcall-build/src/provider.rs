//! Type providers: teach the build how a type from another crate looks on the wire.
//!
//! Built-in mappings (std, chrono, uuid, url, ...) are tried first and cannot be
//! replaced; a provider is asked about every other path type.
//!
//! ```
//! use toolcall_build::{ProvidedType, TypeProvider};
//! use toolcall_runtime::ir::Type;
//!
//! /// `Money` travels as a decimal string with two places.
//! struct MoneyProvider;
//!
//! impl TypeProvider for MoneyProvider {
//!     fn resolve(&self, path: &str, _args: &[Type]) -> Option<ProvidedType> {
//!         (path == "Money" || path.ends_with("::Money")).then(|| {
//!             ProvidedType::new(Type::string_pattern(r"^-?\d+\.\d{2}$"))
//!                 .decode_with("crate::money::Money::from_wire")
//!         })
//!     }
//! }
//! ```

use toolcall_runtime::ir::Type;

/// What a provider says about a type.
#[derive(Clone, Debug, PartialEq)]
pub struct ProvidedType {
    /// The schema of the type.
    pub ty: Type,
    /// Path of a function `fn(&serde_json::Value) -> Result<T, E>` (`E: Display`) that
    /// decodes it, valid from anywhere in the crate (start it with `crate::` or a crate
    /// name). Without one the type is decoded with `serde::Deserialize`.
    pub decode: Option<String>,
}

impl ProvidedType {
    /// A type decoded with `serde::Deserialize`.
    pub fn new(ty: Type) -> Self {
        ProvidedType { ty, decode: None }
    }

    /// Decodes the type with the function at `path`.
    pub fn decode_with(mut self, path: impl Into<String>) -> Self {
        self.decode = Some(path.into());
        self
    }
}

/// Resolves type paths the built-in mappings do not know.
pub trait TypeProvider {
    /// `path` is the type's path with `use` imports of the tool file applied
    /// (`crate::money::Money`, or `Money` when it was not imported); `args` are its
    /// generic arguments, already resolved. Return `None` to let other providers try;
    /// when none answers, the type becomes `{}` with a warning.
    fn resolve(&self, path: &str, args: &[Type]) -> Option<ProvidedType>;
}
