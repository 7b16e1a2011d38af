//! The tool modules.

pub mod billing;
pub mod declared;
mod private_decl;
pub mod inline {
    pub mod nested;
}
