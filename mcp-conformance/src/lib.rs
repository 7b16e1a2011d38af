//! The test server of the official MCP conformance suite (`@modelcontextprotocol/conformance`),
//! written the toolcall way: its tools, resources and prompts are plain functions in
//! `src/tools`, `src/resources` and `src/prompts` that the build script turns into
//! toolsets.
//! `tests/suite.rs` starts the binary and runs the suite against it.

pub mod media;
pub mod prompts;
pub mod resources;
pub mod schema_tool;
pub mod tools;

/// The generated toolsets of `src/tools` (`ALL`), `src/prompts` (`PROMPTS`) and
/// `src/resources` (`RESOURCES`).
pub mod toolset {
    include!(concat!(env!("OUT_DIR"), "/tools.rs"));
}

use std::sync::OnceLock;

use toolcall_mcp::{McpServer, Notifier, Prompts, Resources};

/// The notifier of the server [`server`] built last, for the tools that change what it
/// lists (`test_trigger_tool_change`).
static NOTIFIER: OnceLock<Notifier> = OnceLock::new();

/// The notifier of the server, once [`server`] built it.
pub fn notifier() -> Option<&'static Notifier> {
    NOTIFIER.get()
}

/// The server the suite tests: the tools, resources and prompts it asks for.
pub fn server() -> McpServer<()> {
    let server = built();
    let _ = NOTIFIER.set(server.notifier());
    server
}

/// The server, before its notifier is kept.
fn built() -> McpServer<()> {
    McpServer::new(&toolset::ALL, ())
        .name("toolcall-mcp-conformance")
        .tool(schema_tool::definition(), schema_tool::run)
        .resources(Resources::from_set(&toolset::RESOURCES))
        .prompts(
            // A completion function named at run time, beside the generated prompts.
            Prompts::from_set(&toolset::PROMPTS).complete(
                "test_prompt_with_arguments",
                "arg1",
                |_, typed, _| {
                    toolcall_mcp::resources::starting_with(&["test", "testValue", "example"], typed)
                },
            ),
        )
}
