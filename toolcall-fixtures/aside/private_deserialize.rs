//! Put aside: the generated code fails with "type `Secret` is private".

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
