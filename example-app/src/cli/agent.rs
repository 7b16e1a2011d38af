//! `example-app agent PROMPT --base-url URL [--model M] [--max-turns N] [--strict]`: every
//! tool, as the demo's signed-in user, in a tool loop over an OpenAI-compatible Chat
//! Completions endpoint ([`toolcall_agent`]). The API key is `OPENAI_API_KEY` when set.
//!
//! stdout gets each tool call as the model asked for it (`-> ID NAME ARGUMENTS`), each
//! answer as sent back (`<- ID CONTENT`: the result, or the error's JSON object), then
//! the model's answer. A run that ends without an answer (the endpoint unreachable, an
//! HTTP error, a reply that is not a chat completion, the turn limit) is one
//! `error: ...` line on stderr and exit status 1.

use std::process::ExitCode;

use clap::Args;
use toolcall_agent::{Agent, DEFAULT_MAX_TURNS, DEFAULT_MODEL, Event};

use super::println_stdout;
use crate::{App, toolset};

/// `agent PROMPT --base-url URL [--model M] [--max-turns N] [--strict]`.
#[derive(Clone, Debug, PartialEq, Eq, Args)]
pub struct AgentArgs {
    /// What to ask the model.
    pub prompt: String,
    /// The endpoint's base URL; requests go to URL/chat/completions
    /// (e.g. http://127.0.0.1:11434/v1).
    #[arg(long, value_name = "URL")]
    pub base_url: String,
    /// The model to ask.
    #[arg(long, value_name = "M", default_value = DEFAULT_MODEL)]
    pub model: String,
    /// The most requests to send before giving up.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_TURNS, value_parser = turns)]
    pub max_turns: usize,
    /// Send the strict tool definitions.
    #[arg(long)]
    pub strict: bool,
}

/// A turn limit: a whole number of at least 1.
fn turns(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("the model needs at least 1 turn".to_owned()),
        Ok(turns) => Ok(turns),
        Err(error) => Err(error.to_string()),
    }
}

impl AgentArgs {
    /// Runs the loop until the model answers (exit 0) or the run fails (exit 1).
    pub fn run(self) -> ExitCode {
        let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
            Ok(runtime) => runtime,
            Err(error) => {
                eprintln!("error: cannot start the async runtime: {error}");
                return ExitCode::FAILURE;
            }
        };
        let agent = Agent::new(&toolset::ALL, App::demo(), self.base_url)
            .model(self.model)
            .max_turns(self.max_turns)
            .strict(self.strict);
        match runtime.block_on(agent.run(&self.prompt, print_event)) {
            Ok(outcome) => println_stdout(&outcome.answer),
            Err(error) => {
                eprintln!("error: {error}");
                ExitCode::FAILURE
            }
        }
    }
}

/// One line per tool call and per answer.
fn print_event(event: Event<'_>) {
    let line = match event {
        Event::ToolCall { id, name, arguments } => format!("-> {id} {name} {arguments}"),
        Event::ToolResult { id, content, .. } => format!("<- {id} {content}"),
        _ => return,
    };
    // A reader that went away (`| head`) stops the printing, not the run.
    let _ = println_stdout(&line);
}
