//! `example-app agent PROMPT --provider openai|responses|anthropic|gemini --base-url URL
//! [--model M] [--max-turns N] [--max-requests N] [--max-tool-calls N] [--strict]
//! [--stream] [--tool-search] [--mcp CMD_OR_URL]..`: every tool,
//! as the demo's signed-in user, in a tool loop over the provider's API
//! ([`toolcall_agent`]), with the tools of each MCP server given beside them (`--mcp`,
//! repeatable: an `http://` or `https://` URL is a streamable HTTP endpoint, anything
//! else a command line started as a child process over stdio). The API
//! key is read from `OPENAI_API_KEY` (openai, responses), `ANTHROPIC_API_KEY` or
//! `GEMINI_API_KEY`; unset or empty, no key header is sent.
//!
//! stdout gets each tool call as the model asked for it (`-> ID NAME ARGUMENTS`), each
//! answer as sent back (`<- ID CONTENT`: the result, or the error's JSON object), then
//! the model's answer (with `--stream`, its text as it arrives). A run that ends without
//! an answer (the endpoint unreachable, an HTTP error, a reply that is not the
//! provider's, the turn limit, `--max-requests` or `--max-tool-calls` passed) is one
//! `error: ...` line on stderr and exit status 1.
//!
//! With `--tool-search` the model is sent `whoami` and a search tool instead of every
//! definition ([`toolcall_agent::Agent::tool_search`]): the other tools go deferred where
//! the provider defers natively (Anthropic, Responses), and the model finds them by
//! searching the app's compiled index; each search prints as a call of `search_tools`
//! and its answer.
//!
//! A call of a tool annotated destructive (`remove_note`) runs only when approved
//! ([`Approval`]): asked on the terminal (`run remove_note {"id":2}? [y/N]` on stderr,
//! an answer on stdin), every call with `--yes`, none when stdin is not a terminal and
//! `--yes` is not given; a declined call is answered to the model as declined. What the
//! tools report while they run (progress, log messages) goes to stderr.

use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;

use clap::Args;
use toolcall_agent::{
    Agent, DEFAULT_MAX_TURNS, Event, McpToolset, Provider, ToolCall, ToolSearch, UsageLimits,
};

use super::println_stdout;
use crate::app::Location;
use crate::models::User;
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
    /// The model to ask [default: gpt-5.5, claude-sonnet-5 or gemini-3.5-flash].
    #[arg(long, value_name = "M")]
    pub model: Option<String>,
    /// The most requests to send before giving up.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_TURNS, value_parser = turns)]
    pub max_turns: usize,
    /// The most requests the run may send; one more ends it with an error that says
    /// what it used.
    #[arg(long, value_name = "N")]
    pub max_requests: Option<usize>,
    /// The most tool calls the run may make; a reply whose calls would pass it ends the
    /// run, its calls not run.
    #[arg(long, value_name = "N")]
    pub max_tool_calls: Option<usize>,
    /// Send the strict tool definitions.
    #[arg(long)]
    pub strict: bool,
    /// Print the model's text as it streams.
    #[arg(long)]
    pub stream: bool,
    /// Send whoami and a search tool instead of every tool: the model finds the others
    /// by searching (deferred on Anthropic and Responses).
    #[arg(long)]
    pub tool_search: bool,
    /// Run destructive tools (remove_note) without asking. Without it they are asked
    /// about on the terminal, or declined when stdin is not a terminal.
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Offer an MCP server's tools too: an http(s):// URL (streamable HTTP), or a command
    /// line run over stdio (`"python server.py"`). Repeatable.
    #[arg(long, value_name = "CMD_OR_URL", value_parser = mcp_server)]
    pub mcp: Vec<String>,
}

/// How calls of destructive tools are decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Approval {
    /// Every call runs (`--yes`).
    Yes,
    /// Each call is asked about on the terminal.
    Ask,
    /// No destructive call runs: nobody is there to ask (stdin is not a terminal).
    Decline,
}

impl Approval {
    /// `--yes` approves every call; without it, a terminal on stdin is asked and no
    /// terminal declines.
    pub fn new(yes: bool, stdin_is_terminal: bool) -> Approval {
        match (yes, stdin_is_terminal) {
            (true, _) => Approval::Yes,
            (false, true) => Approval::Ask,
            (false, false) => Approval::Decline,
        }
    }

    /// This process's: `--yes`, and whether its stdin is a terminal.
    pub fn for_process(yes: bool) -> Approval {
        Approval::new(yes, std::io::stdin().is_terminal())
    }

    /// Whether `call` may run. [`Approval::Ask`] writes the question to `prompt` (the
    /// tool's name and arguments, control characters escaped) and reads one line from
    /// `answer`: `y` or `yes` in any case approves; anything else, an empty line, the
    /// end of input or an error declines.
    pub fn decide(self, call: &ToolCall, answer: &mut impl BufRead, prompt: &mut impl Write) -> bool {
        match self {
            Approval::Yes => true,
            Approval::Decline => false,
            Approval::Ask => {
                let question =
                    format!("run {} {}? [y/N] ", printable(&call.name), printable(&call.arguments));
                if prompt.write_all(question.as_bytes()).and_then(|()| prompt.flush()).is_err() {
                    return false;
                }
                let mut line = String::new();
                match answer.read_line(&mut line) {
                    Ok(0) | Err(_) => false,
                    Ok(_) => matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes"),
                }
            }
        }
    }
}

/// `text` with control characters escaped (`\u{1b}`), so a model's arguments cannot move
/// the cursor or rewrite the question on the terminal.
fn printable(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() })
        .collect()
}

/// A provider name.
fn provider(text: &str) -> Result<Provider, String> {
    text.parse()
}

/// An MCP server: a URL, or a command line that splits into words.
fn mcp_server(text: &str) -> Result<String, String> {
    McpToolset::parse(text).map(|_| text.to_owned()).map_err(|error| error.to_string())
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
        let mut limits = UsageLimits::new();
        if let Some(requests) = self.max_requests {
            limits = limits.requests(requests);
        }
        if let Some(calls) = self.max_tool_calls {
            limits = limits.tool_calls(calls);
        }
        agent = agent.limits(limits);
        if self.tool_search {
            agent = agent.tool_search(ToolSearch::new().always_visible(["whoami"]));
        }
        for server in &self.mcp {
            let connected = McpToolset::parse(server).map(McpToolset::connect);
            let tools = match connected {
                Ok(connecting) => runtime.block_on(connecting),
                Err(error) => Err(error),
            };
            match tools {
                Ok(tools) => {
                    for warning in tools.warnings() {
                        eprintln!("warning: {warning}");
                    }
                    agent = agent.mcp(tools);
                }
                Err(error) => {
                    eprintln!("error: {error}");
                    return ExitCode::FAILURE;
                }
            }
        }
        if let Some(model) = self.model {
            agent = agent.model(model);
        }
        let approval = Approval::for_process(self.yes);
        agent = agent.approve(move |call| {
            let call = call.clone();
            async move {
                // The terminal is read on a blocking thread, not on the runtime's.
                let asked = tokio::task::spawn_blocking(move || {
                    approval.decide(&call, &mut std::io::stdin().lock(), &mut std::io::stderr())
                });
                asked.await.unwrap_or(false)
            }
        });
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
/// before the next line. What a running tool reports goes to stderr, one line each:
/// `.. ID NAME 2/3 note 5` for progress, `.. ID NAME info: exported 3 notes` for a log
/// message.
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
            Event::Progress { id, name, done, total, message } => {
                let total = total.map(|total| format!("/{total}")).unwrap_or_default();
                eprintln!("{}", printable(format!(".. {id} {name} {done}{total} {message}").trim_end()));
                return;
            }
            Event::Log { id, name, level, message } => {
                eprintln!("{}", printable(&format!(".. {id} {name} {level}: {message}")));
                return;
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// What `approval` decides for a `remove_note` call when the terminal answers
    /// `typed`, and the question it wrote.
    fn decide(approval: Approval, typed: &str) -> (bool, String) {
        let call = ToolCall::new("c1", "remove_note", "{\"id\":2,\"why\":\"\u{1b}[2Jcleared\"}");
        let mut prompt = Vec::new();
        let approved = approval.decide(&call, &mut typed.as_bytes(), &mut prompt);
        (approved, String::from_utf8_lossy(&prompt).into_owned())
    }

    #[test]
    fn yes_approves_a_terminal_asks_and_no_terminal_declines() {
        assert_eq!(Approval::new(true, false), Approval::Yes);
        assert_eq!(Approval::new(true, true), Approval::Yes);
        assert_eq!(Approval::new(false, true), Approval::Ask);
        assert_eq!(Approval::new(false, false), Approval::Decline);
        assert_eq!(decide(Approval::Yes, ""), (true, String::new()), "--yes asks nothing");
        assert_eq!(decide(Approval::Decline, "y\n"), (false, String::new()), "no terminal: nobody to ask");
    }

    #[test]
    fn the_terminal_is_asked_with_the_name_and_arguments() {
        let question = r#"run remove_note {"id":2,"why":"\u{1b}[2Jcleared"}? [y/N] "#;
        for typed in ["y\n", "Y\n", "yes\n", " YES \r\n"] {
            assert_eq!(decide(Approval::Ask, typed), (true, question.to_owned()), "{typed:?}");
        }
        for typed in ["\n", "n\n", "no\n", "yep\n", ""] {
            assert_eq!(decide(Approval::Ask, typed), (false, question.to_owned()), "{typed:?}");
        }
    }
}
