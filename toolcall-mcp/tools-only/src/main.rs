//! An MCP server of tools alone, over stdio: toolcall-mcp built with
//! `default-features = false`, so it has no HTTP transport (`http`), no questions to the
//! client (`ask`), no resources and no prompts. `tests/stdio.rs` talks to it.

mod tools;
mod toolset {
    include!(concat!(env!("OUT_DIR"), "/tools.rs"));
}

#[tokio::main]
async fn main() -> Result<(), toolcall_mcp::ServeError> {
    toolcall_mcp::McpServer::new(&toolset::ALL, ()).serve_stdio().await
}
