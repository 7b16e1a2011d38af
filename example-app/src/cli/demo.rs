//! The demo: what the toolset emits for each provider, the seed's good call and two bad
//! ones answered as an OpenAI tool message and as an Anthropic `tool_result`, then one
//! model message with three tool calls (two of them async) answered concurrently.

use std::process::ExitCode;
use std::time::Instant;

use clap::Args;
use serde_json::{Value, json};
use toolcall_runtime::Format;
use toolcall_runtime::glue::{answer_anthropic_message, answer_openai_message};
use toolcall_runtime::json::pretty;

use crate::app::Location;
use crate::models::User;
use crate::{App, toolset};

/// The seed's sample calls: the arguments a model sent to `get_weather`.
const CALLS: [&str; 3] = [
    r#"{"city":"Oslo","days":5}"#,
    // the model sent a string where the schema says integer
    r#"{"city":"Oslo","days":"5"}"#,
    // the model invented an argument
    r#"{"city":"Oslo","c":1}"#,
];

/// `demo`, also what no command runs: it takes no options.
#[derive(Clone, Debug, Default, PartialEq, Eq, Args)]
pub struct DemoArgs {}

impl DemoArgs {
    /// Prints the demo, its notes on the database at `db` (or the built-in one).
    pub fn run(self, db: Option<&Location>) -> ExitCode {
        let runtime = match super::runtime() {
            Ok(runtime) => runtime,
            Err(exit) => return exit,
        };
        let store = match super::open_store(&runtime, db) {
            Ok(store) => store,
            Err(exit) => return exit,
        };
        let app = App::for_user(&store, User::ada());
        print_sizes();
        println!("\n== OpenAI tool definitions, strict ==");
        println!("{}", pretty(toolset::ALL.emit(Format::OpenAi, true)));
        for note in unusable_in_strict(toolset::ALL.emit(Format::OpenAi, true)) {
            println!("note: {note}");
        }
        for (i, args) in CALLS.into_iter().enumerate() {
            runtime.block_on(print_call(&app, i + 1, "get_weather", args));
        }
        runtime.block_on(print_concurrent_calls(&app));
        ExitCode::SUCCESS
    }
}

/// The parameters a strict definition leaves the model no way to fill: an open map
/// becomes a closed object with no properties, so only `{}` fits (the build warns about
/// each; the demo says so beside the schema it prints).
fn unusable_in_strict(definitions: &str) -> Vec<String> {
    let Ok(Value::Array(tools)) = serde_json::from_str::<Value>(definitions) else {
        return Vec::new();
    };
    let mut notes = Vec::new();
    for tool in &tools {
        let function = &tool["function"];
        let Some(properties) = function["parameters"]["properties"].as_object() else { continue };
        for (name, schema) in properties {
            let closed_empty = schema["additionalProperties"] == false
                && schema["properties"].as_object().is_some_and(serde_json::Map::is_empty);
            if closed_empty {
                notes.push(format!(
                    "in strict mode `{}`'s `{name}` (an open map) can only be {{}}: the model cannot send \
                     its entries (see the build's warning for the fix)",
                    function["name"].as_str().unwrap_or_default()
                ));
            }
        }
    }
    notes
}

/// The tool names, then the size of every precomputed definition array.
fn print_sizes() {
    let names: Vec<&str> = toolset::ALL.names().collect();
    println!("== {} tools ==\n{}", names.len(), names.join(", "));
    println!("\n== Tool definitions per format ==");
    for format in Format::ALL {
        for strict in [false, true] {
            let mode = if strict { "strict" } else { "lax" };
            let bytes = toolset::ALL.emit(format, strict).len();
            println!("{:<10} {mode:<6} {bytes:>6} bytes", format.as_str());
        }
    }
}

/// Answers one call the way each provider sends it.
async fn print_call(app: &App, n: usize, name: &str, args: &str) {
    println!("\n== {name} {args} ==");
    // OpenAI: `arguments` is JSON text.
    let message = json!({"role": "assistant", "tool_calls": [{
        "id": format!("call_{n}"),
        "type": "function",
        "function": {"name": name, "arguments": args},
    }]});
    for answer in answer_openai_message(&toolset::ALL, app, &message).await {
        println!("OpenAI:    {answer}");
    }
    // Anthropic: `input` is already decoded.
    let input: Value = serde_json::from_str(args).unwrap_or(Value::Null);
    let message = json!({"role": "assistant", "content": [
        {"type": "tool_use", "id": format!("toolu_{n}"), "name": name, "input": input},
    ]});
    for answer in answer_anthropic_message(&toolset::ALL, app, &message).await {
        println!("Anthropic: {answer}");
    }
}

/// One assistant message asking for three tools at once: two async ones that each query
/// the database, and a sync one. They run concurrently, as the signed-in user: the model
/// cannot name another user, so Grace's note never shows.
async fn print_concurrent_calls(app: &App) {
    let message = json!({"role": "assistant", "tool_calls": [
        {"id": "call_a", "type": "function", "function": {"name": "list_notes", "arguments": "{}"}},
        {"id": "call_b", "type": "function",
         "function": {"name": "add_note", "arguments": r#"{"text":"water the plants"}"#}},
        {"id": "call_c", "type": "function", "function": {"name": "whoami", "arguments": "{}"}},
    ]});
    let store = match app.store.location() {
        Some(location) => format!("notes in {location}"),
        None => format!(
            "notes in the built-in in-memory SQLite database, each query {} ms slower, standing for a network",
            app.store.latency.as_millis()
        ),
    };
    println!("\n== one message, three tool calls, as {} ({store}) ==", app.user.name);
    let started = Instant::now();
    let answers = answer_openai_message(&toolset::ALL, app, &message).await;
    let elapsed = started.elapsed().as_millis();
    for answer in &answers {
        println!("OpenAI:    {answer}");
    }
    println!("answered {} calls concurrently in {elapsed} ms", answers.len());
}
