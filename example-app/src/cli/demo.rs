//! The demo: what the toolset emits for each provider, then the seed's good call and two
//! bad ones, each answered as an OpenAI tool message and as an Anthropic `tool_result`.

use serde_json::{Value, json};
use toolcall_runtime::Format;
use toolcall_runtime::glue::{answer_anthropic, answer_openai};

use crate::toolset;
use toolcall_runtime::json::pretty;

/// The seed's sample calls: the arguments a model sent to `get_weather`.
const CALLS: [&str; 3] = [
    r#"{"city":"Oslo","days":5}"#,
    // the model sent a string where the schema says integer
    r#"{"city":"Oslo","days":"5"}"#,
    // the model invented an argument
    r#"{"city":"Oslo","c":1}"#,
];

/// Prints the demo.
pub fn run() {
    print_sizes();
    println!("\n== OpenAI tool definitions, strict ==");
    println!("{}", pretty(toolset::ALL.emit(Format::OpenAi, true)));
    for (i, args) in CALLS.into_iter().enumerate() {
        print_call(i + 1, "get_weather", args);
    }
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
fn print_call(n: usize, name: &str, args: &str) {
    println!("\n== {name} {args} ==");
    // OpenAI: `arguments` is JSON text.
    let openai_call = json!({
        "id": format!("call_{n}"),
        "type": "function",
        "function": {"name": name, "arguments": args},
    });
    println!("OpenAI:    {}", answer_openai(&toolset::ALL, &openai_call));
    // Anthropic: `input` is already decoded.
    let input: Value = serde_json::from_str(args).unwrap_or(Value::Null);
    let anthropic_block =
        json!({"type": "tool_use", "id": format!("toolu_{n}"), "name": name, "input": input});
    println!("Anthropic: {}", answer_anthropic(&toolset::ALL, &anthropic_block));
}
