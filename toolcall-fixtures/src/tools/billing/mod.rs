//! A nested tool directory: `billing/invoices.rs` is module `tools::billing::invoices`.

pub mod invoices;
