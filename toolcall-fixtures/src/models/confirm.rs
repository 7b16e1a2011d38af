//! A form: no tool takes it; `build.rs` names it with `Builder::form_type`, so the
//! generated code implements `toolcall_runtime::Form` for it (`tests/form.rs` decodes
//! answers with it).

use serde::Deserialize;

/// Go ahead with the copies?
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Confirm {
    /// Whether to go ahead.
    pub confirm: bool,
    /// How many copies.
    pub copies: u8,
    /// Why, if you like.
    pub reason: Option<String>,
}
