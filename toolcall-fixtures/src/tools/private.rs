//! A private local type: the tool is skipped with a warning naming the type (generated code
//! calls tools from outside their module, where the type cannot be named).

use serde::Deserialize;

/// A private type: no generated decoder, so it is decoded with its `Deserialize`.
#[derive(Debug, Deserialize)]
struct Secret {
    code: String,
}

/// A private local type decoded with serde.
#[allow(private_interfaces)]
pub fn reveal(secret: Secret) -> String {
    secret.code
}
