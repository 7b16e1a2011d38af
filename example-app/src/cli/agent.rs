//! `example-app agent PROMPT --provider openai|responses|anthropic|gemini --base-url URL
//! [--model M] [--max-turns N] [--strict] [--stream]`: every tool, as the demo's
//! signed-in user, in a tool loop over the provider's API ([`toolcall_agent`]). The API
//! key is read from `OPENAI_API_KEY` (openai, responses), `ANTHROPIC_API_KEY` or
//! `GEMINI_API_KEY`; unset or empty, no key header is sent.
//!
//! stdout gets each tool call as the model asked for it (`-> ID NAME ARGUMENTS`), each
//! answer as sent back (`<- ID CONTENT`: the result, or the error's JSON object), then
//! the model's answer (with `--stream`, its text as it arrives). A run that ends without
//! an answer (the endpoint unreachable, an HTTP error, a reply that is not the
//! provider's, the turn limit) is one `error: ...` line on stderr and exit status 1.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;
use toolcall_agent::{Agent, DEFAULT_MAX_TURNS, Event, Provider};

use super::println_stdout;
use crate::app::{Location, User};
use crate::{App, toolset};

/// `agent PROMPT --provider P --base-url URL [--model M] [--max-turns N] [--strict] [--stream]`.
#[derive(Clone, Debug, PartialEq, Eq, Args)]
pub struct AgentArgs {
    /// What to ask the model.
    pub prompt: String,
    /// The API: openai (Chat Completions), responses (OpenAI Responses), anthropic
    /// (Messages) or gemini (generateContent).
    #[arg(long, value_name = "P", default_value = "openai", value_parser = provider)]
    pub provider: Provider,
    /// The API's base URL (e.g. http://127.0.0.1:11434/v1, https://api.anthropic.com/v1,
    /// https://generativelanguage.googleapis.com/v1beta).
    // The help shows these as written; in rustdoc they are plain text too.
    #[allow(rustdoc::bare_urls)]
    #[arg(long, value_name = "URL")]
    pub base_url: String,
    /// The model to ask [default: gpt-4o-mini, claude-sonnet-4-5 or gemini-2.5-flash].
    #[arg(long, value_name = "M")]
    pub model: Option<String>,
    /// The most requests to send before giving up.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_TURNS, value_parser = turns)]
    pub max_turns: usize,
    /// Send the strict tool definitions.
    #[arg(long)]
    pub strict: bool,
    /// Print the model's text as it streams.
    #[arg(long)]
    pub stream: bool,
}

/// A provider name.
fn provider(text: &str) -> Result<Provider, String> {
    text.parse()
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
    /// Runs the loop, the notes on the database at `db` (or the built-in one), until the
    /// model answers (exit 0) or the run fails (exit 1).
    pub fn run(self, db: Option<&Location>) -> ExitCode {
        let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
            Ok(runtime) => runtime,
            Err(error) => {
                eprintln!("error: cannot start the async runtime: {error}");
                return ExitCode::FAILURE;
            }
        };
        let store = match super::open_store(&runtime, db) {
            Ok(store) => store,
            Err(exit) => return exit,
        };
        let app = App::for_user(&store, User::ada());
        let mut agent = Agent::for_provider(&toolset::ALL, app, self.provider, self.base_url)
            .max_turns(self.max_turns)
            .strict(self.strict)
            .stream(self.stream);
        if let Some(model) = self.model {
            agent = agent.model(model);
        }
        let mut printer = Printer::default();
        let outcome = runtime.block_on(agent.run(&self.prompt, |event| printer.event(event)));
        printer.end_text();
        match outcome {
            Ok(_) if self.stream => ExitCode::SUCCESS,
            Ok(outcome) => println_stdout(&outcome.answer),
            Err(error) => {
                eprintln!("error: {error}");
                ExitCode::FAILURE
            }
        }
    }
}

/// One line per tool call and per answer; streamed text as it comes, ended by a newline
/// before the next line.
#[derive(Default)]
struct Printer {
    in_text: bool,
}

impl Printer {
    fn event(&mut self, event: Event<'_>) {
        let line = match event {
            Event::Text(text) => {
                self.in_text = true;
                let mut out = std::io::stdout().lock();
                // A reader that went away (`| head`) stops the printing, not the run.
                let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
                return;
            }
            Event::ToolCall { id, name, arguments } => format!("-> {id} {name} {arguments}"),
            Event::ToolResult { id, content, .. } => format!("<- {id} {content}"),
            _ => return,
        };
        self.end_text();
        let _ = println_stdout(&line);
    }

    /// Ends a line of streamed text, if one is open.
    fn end_text(&mut self) {
        if std::mem::take(&mut self.in_text) {
            let _ = println_stdout("");
        }
    }
}
