//! The example's tools. Every file here is a tool module: the build script reads it and
//! generates its toolset (`toolset::<file>::TOOLS`), so each is declared `pub mod`.

pub mod bank;
pub mod calendar;
pub mod math;
pub mod notes;
pub mod orders;
pub mod weather;
