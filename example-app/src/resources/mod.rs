//! What example-app serves as MCP resources, written as tools are: each function is read
//! by the build script and served at the URI its file's `RESOURCES` const gives it.

pub mod notes;
