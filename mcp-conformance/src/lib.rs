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

use toolcall_mcp::{McpServer, Prompts, Resources};

/// The server the suite tests: the tools, resources and prompts it asks for.
pub fn server() -> McpServer<()> {
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
