//! README.md's Rust snippets, compiled. Each block of the README sits here as a user would
//! write it (a tool file as a tool file, a `build.rs` as a function, statements in a
//! function whose parameters are the names the snippet takes from its surroundings), and
//! `tests/readme.rs` checks that every ```rust block of the README appears in this crate,
//! line for line: a README change that does not compile fails CI.
//!
//! The snippets are not run (servers, endpoints and models are the user's); what they do
//! is tested where the code lives.
// Snippets are written for reading: they bind values they do not use, and their items
// carry no docs.
#![allow(missing_docs, unused, clippy::all)]

use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;
use toolcall_runtime::ToolError;

/// README "Writing tools": types from anywhere in the crate.
pub mod models;

// README "Quick start": src/main.rs (or src/lib.rs).
mod tools;
mod toolset {
    include!(concat!(env!("OUT_DIR"), "/tools.rs"));
}

/// "State and async"'s toolset: the same `toolset::ALL` name, for the crate with a context.
pub mod app_tools;

/// README "Talking back": a tool list per caller, approval in the agent loop.
mod talking_back;

mod with_context {
    pub mod toolset {
        include!(concat!(env!("OUT_DIR"), "/app_tools.rs"));
    }
}

/// README "Quick start" and "State and async": the two `build.rs` files.
#[rustfmt::skip]
mod build_scripts {
    mod plain {
fn main() {
    toolcall_build::Builder::new().compile(); // reads src/tools, writes $OUT_DIR/tools.rs
}
    }

    mod with_context {
// build.rs
fn main() {
    toolcall_build::Builder::new().context("crate::App").compile(); // path from the crate root
}
    }

    // "Run an agent loop": a typed answer (this crate's build.rs names it too).
    mod typed_output {
// build.rs
fn main() {
    toolcall_build::Builder::new().output_type("crate::models::Report").compile();
}
    }
}

// README "State and async": the context.
#[rustfmt::skip]
// src/main.rs (or lib.rs): the context, built per request
pub struct App {
    pub user: User,               // who is asking: from authentication
    pub db: std::sync::Arc<Pool>, // shared: cloned per request, cheap
}

/// The signed-in user.
#[derive(Clone)]
pub struct User {
    pub id: u64,
    pub name: String,
}

/// A note.
#[derive(Serialize)]
pub struct Note {
    pub id: u64,
    pub text: String,
}

/// The database pool the snippets' context holds.
pub struct Pool;

impl Pool {
    pub async fn notes_of(&self, owner: u64, limit: u32) -> Result<Vec<Note>, String> {
        Ok(Vec::new())
    }
}

impl App {
    /// The context of the local user (stdio, or HTTP without authentication).
    pub fn local() -> App {
        App { user: User { id: 1, name: "local".into() }, db: Arc::new(Pool) }
    }

    /// The context of a signed-in user.
    pub fn for_user(user: User) -> App {
        App { user, db: Arc::new(Pool) }
    }
}

/// The users a server signs in.
pub struct Users;

impl Users {
    pub fn sign_in(&self, token: &str) -> Option<User> {
        None
    }
}

/// README "Quick start": emit the definitions and dispatch calls.
#[rustfmt::skip]
fn quick_start(tool_call: &Value, tool_use: &Value) -> Result<(), ToolError> {
use toolcall_runtime::{Format, glue};

// The "tools" field of a request: a JSON array rendered at build time, strict or not.
let tools: &'static str = toolset::ALL.emit(Format::OpenAi, true);
let tools = toolset::ALL.emit(Format::Anthropic, false);
let tools = toolset::weather::TOOLS.emit(Format::Mcp, false); // one module only

// A call of a sync tool: Ok(Value) or Err(ToolError). Async tools and tools with state
// are called with `call(..).await`: see "State and async" below.
let out = toolset::ALL.run_json("get_weather", r#"{"city":"Oslo"}"#)?; // JSON text (OpenAI)
let out = toolset::ALL.run("get_weather", &serde_json::json!({"city": "Oslo"}))?; // decoded (Anthropic)
assert_eq!(out.to_string(), r#"{"city":"Oslo","days":3,"temp":21.5}"#);

// Provider glue: answer a model's tool call with the message the provider expects.
// OpenAI: an element of `message.tool_calls` -> {"role":"tool","tool_call_id",..,"content"}
let message = glue::answer_openai(&toolset::ALL, &tool_call);
// Anthropic: a `tool_use` block -> {"type":"tool_result","tool_use_id",..,"content"},
// with "is_error": true when the call failed
let block = glue::answer_anthropic(&toolset::ALL, &tool_use);
    Ok(())
}

/// README "State and async": every tool through one entry point, with the context.
#[rustfmt::skip]
async fn with_state(
    signed_in_user: User,
    pool: Arc<Pool>,
    choice: Value,
    response_message: Value,
) -> Result<(), ToolError> {
    use serde_json::json;
    use toolcall_runtime::glue;
    use with_context::toolset;
let app = App { user: signed_in_user, db: Arc::clone(&pool) };
let out = toolset::ALL.call(&app, "list_notes", &json!({"limit": 5})).await?;
let out = toolset::ALL.call_json(&app, "list_notes", r#"{"limit":5}"#).await?;
// Every tool call of one model message, concurrently, answers in call order:
let answers = glue::answer_openai_message(&toolset::ALL, &app, &choice["message"]).await;
let blocks = glue::answer_anthropic_message(&toolset::ALL, &app, &response_message).await;
    Ok(())
}

/// README "Serve as an MCP server".
#[rustfmt::skip]
async fn serve_one_way(app: App, over_http: bool) -> Result<(), Box<dyn std::error::Error>> {
    use with_context::toolset;
let server = toolcall_mcp::McpServer::new(&toolset::ALL, app) // app: your context, or ()
    .name("my-tools")
    .version(env!("CARGO_PKG_VERSION")); // defaults: "toolcall" and toolcall-mcp's version
if over_http {
    server.serve_http("127.0.0.1:8080".parse()?).await?; // streamable HTTP at /mcp
} else {
    server.serve_stdio().await?; // a stdio server
}
    Ok(())
}

/// README "Over HTTP".
#[rustfmt::skip]
async fn serve(app: App, users: Users, addr: std::net::SocketAddr) -> Result<(), Box<dyn std::error::Error>> {
    use with_context::toolset;
use toolcall_mcp::{Caller, McpServer, Rejection, bearer_token};

McpServer::new(&toolset::ALL, App::local())
    .context_from_request(move |req| {
        let token = bearer_token(req).ok_or_else(|| Rejection::unauthorized("no token"))?;
        let user = users.sign_in(token).ok_or_else(|| Rejection::unauthorized("unknown token"))?;
        Ok(Caller::new(user.id.to_string(), App::for_user(user)))
    })
    .serve_http(addr)
    .await?;
    Ok(())
}

/// README "Run an agent loop".
#[rustfmt::skip]
async fn agent(app: App) -> Result<(), Box<dyn std::error::Error>> {
    use with_context::toolset;
use toolcall_agent::{Agent, Event, Provider};

// app: your context, or (). Agent::new(.., base_url) is Provider::OpenAi.
let agent = Agent::for_provider(&toolset::ALL, app, Provider::Anthropic, "https://api.anthropic.com/v1")
    .model("claude-sonnet-4-5")
    .max_turns(8) // defaults: the provider's model, 10 turns, non-strict, 120 s per request
    .stream(true); // text as Event::Text deltas
let outcome = agent
    .run("What's the weather in Oslo?", |event| match event {
        Event::Text(delta) => print!("{delta}"),
        Event::ToolCall { name, arguments, .. } => println!("-> {name} {arguments}"),
        Event::ToolResult { name, content, .. } => println!("<- {name} {content}"),
        _ => {}
    })
    .await?;
println!("{} ({} turns, {} tokens in, {} out)", outcome.answer, outcome.turns,
    outcome.usage.input_tokens, outcome.usage.output_tokens);
// Continue the conversation (Vec<Message> serializes with serde: store it, resume it later).
let next = agent.run_with_history(&outcome.messages, "And tomorrow?", |_| {}).await?;
    Ok(())
}

/// README "Run an agent loop": a typed answer (its `build.rs` line is in `build_scripts`).
#[rustfmt::skip]
async fn typed(app: App) -> Result<(), Box<dyn std::error::Error>> {
    use with_context::toolset;
use crate::models::Report;
use toolcall_agent::Agent;

let agent = Agent::new(&toolset::ALL, app, "https://api.openai.com/v1");
let (report, outcome) = agent.run_output::<Report>("How is the weather in Oslo?", |_| {}).await?;
println!("{}: {} °C ({} turns)", report.city, report.temp_c, outcome.turns);
    Ok(())
}

/// README "Run an agent loop": testing an agent without a server.
#[rustfmt::skip]
async fn scripted(app: App) -> Result<(), Box<dyn std::error::Error>> {
    use with_context::toolset;
use toolcall_agent::{Agent, ModelResponse, ScriptedModel, ToolCall};

let model = ScriptedModel::new([
    ModelResponse::calls([ToolCall::new("c1", "add", r#"{"a":1,"b":2}"#)]),
    ModelResponse::text("3").with_usage(12, 1),
]);
let outcome = Agent::with_model(&toolset::ALL, app, model.clone()).run("1 + 2?", |_| {}).await?;
assert_eq!(outcome.answer, "3");
assert_eq!(model.requests().len(), 2); // each with its messages, tool names, stream flag
    Ok(())
}

/// What the built crate's two toolsets emit, by the file build.rs writes each to
/// (`tools.rs`, `app_tools.rs`): `cargo toolcall export` must give the same bytes.
#[doc(hidden)]
pub fn emitted(toolset: &str, format: toolcall_runtime::Format, strict: bool) -> Option<&'static str> {
    match toolset {
        "tools.rs" => Some(toolset::ALL.emit(format, strict)),
        "app_tools.rs" => Some(with_context::toolset::ALL.emit(format, strict)),
        _ => None,
    }
}
