//! Billing: declares no submodule.
