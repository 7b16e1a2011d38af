//! What example-app offers as MCP prompts, written as tools are: each function's name,
//! doc comment and parameters are the prompt's name, description and arguments.

pub mod notes;
