//! The command line, parsed by hand from `std::env::args_os` (see [`USAGE`]).
//!
//! No arguments runs the demo; `schema` prints the precomputed tool definitions; `call`
//! runs one tool the way a model's call would run. Exit status: 0 on success, 1 when the
//! tool call failed (the error's JSON object on stdout, its message on stderr), 2 for a
//! bad command line (the usage on stderr).

mod demo;

use std::ffi::OsString;
use std::process::ExitCode;

use toolcall_runtime::Format;

use crate::{App, toolset};

/// How to use the command line, printed for `--help` and after a usage error.
pub const USAGE: &str = "\
usage:
  example-app                                              run the demo
  example-app schema [--format openai|responses|anthropic|mcp|gemini] [--strict]
                                                           print the tool definitions
  example-app call NAME JSON                               run one tool call as user 1
  example-app serve [--http ADDR]                          serve every tool over MCP as user 1:
                                                           stdio, or streamable HTTP at ADDR/mcp
  example-app --help                                       print this help";

/// What the command line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// No arguments: print the schemas and answer the seed's sample calls.
    Demo,
    /// Print the tool definitions for `format`, strict or not.
    Schema {
        /// The provider format.
        format: Format,
        /// The strict variant.
        strict: bool,
    },
    /// Run tool `name` with `args` (JSON text, as OpenAI sends it).
    Call {
        /// The tool name.
        name: String,
        /// The arguments as JSON text, as bytes: text that is not UTF-8 is the
        /// dispatcher's to reject (`invalid_json`), like any other bad input.
        args: Vec<u8>,
    },
    /// Serve every tool as an MCP server: over stdio, or streamable HTTP on `http`.
    Serve {
        /// Where to listen for streamable HTTP (`/mcp`); stdio when `None`.
        http: Option<std::net::SocketAddr>,
    },
    /// Print the usage.
    Help,
}

/// Parses the arguments after the program name (`std::env::args_os().skip(1)`);
/// `Err` says what was wrong.
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Command, String> {
    let mut args = args.into_iter();
    let Some(command) = args.next() else { return Ok(Command::Demo) };
    match text(command)?.as_str() {
        "schema" => parse_schema(args),
        "call" => parse_call(args),
        "serve" => parse_serve(args),
        "help" | "--help" | "-h" => Ok(Command::Help),
        other => Err(format!("unknown command `{other}`")),
    }
}

fn parse_schema(mut args: impl Iterator<Item = OsString>) -> Result<Command, String> {
    let (mut format, mut strict) = (Format::OpenAi, false);
    while let Some(flag) = args.next() {
        match text(flag)?.as_str() {
            "--strict" => strict = true,
            "--format" => {
                let value = text(
                    args.next()
                        .ok_or("`--format` needs a value: openai, responses, anthropic, mcp or gemini")?,
                )?;
                format = Format::parse(&value).ok_or_else(|| {
                    format!("unknown format `{value}`: use openai, responses, anthropic, mcp or gemini")
                })?;
            }
            other => return Err(format!("unknown flag `{other}` for `schema`")),
        }
    }
    Ok(Command::Schema { format, strict })
}

fn parse_serve(mut args: impl Iterator<Item = OsString>) -> Result<Command, String> {
    let mut http = None;
    while let Some(flag) = args.next() {
        match text(flag)?.as_str() {
            "--http" => {
                let value = text(args.next().ok_or("`--http` needs an address, e.g. 127.0.0.1:8080")?)?;
                let addr = value.parse().map_err(|e| format!("`--http {value}` is not an address: {e}"))?;
                http = Some(addr);
            }
            other => return Err(format!("unknown flag `{other}` for `serve`")),
        }
    }
    Ok(Command::Serve { http })
}

fn parse_call(args: impl Iterator<Item = OsString>) -> Result<Command, String> {
    let args: Vec<OsString> = args.collect();
    match <[OsString; 2]>::try_from(args) {
        Ok([name, args]) => Ok(Command::Call { name: text(name)?, args: bytes(args) }),
        Err(args) => {
            Err(format!("`call` takes a tool name and its JSON arguments, got {} argument(s)", args.len()))
        }
    }
}

/// A command word, flag or tool name: it must be UTF-8.
fn text(arg: OsString) -> Result<String, String> {
    arg.into_string().map_err(|arg| format!("argument {arg:?} is not valid UTF-8"))
}

/// The raw bytes of an argument.
#[cfg(unix)]
fn bytes(arg: OsString) -> Vec<u8> {
    std::os::unix::ffi::OsStringExt::into_vec(arg)
}

/// The bytes of an argument; outside Unix, unpaired surrogates become U+FFFD.
#[cfg(not(unix))]
fn bytes(arg: OsString) -> Vec<u8> {
    arg.to_string_lossy().into_owned().into_bytes()
}

/// Parses and runs a command line, returning the process exit status.
pub fn main(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    match parse(args) {
        Ok(command) => run(command),
        Err(message) => {
            eprintln!("error: {message}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// Runs a parsed command.
pub fn run(command: Command) -> ExitCode {
    match command {
        Command::Demo => demo::run(),
        Command::Schema { format, strict } => println!("{}", toolset::ALL.emit(format, strict)),
        Command::Call { name, args } => return call(&name, &args),
        Command::Serve { http } => return serve(http),
        Command::Help => println!("{USAGE}"),
    }
    ExitCode::SUCCESS
}

/// A single-threaded tokio runtime with timers, for the async tools.
pub(crate) fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread().enable_time().build()
}

/// Serves every tool over MCP as Ada, until the client disconnects (stdio) or the
/// process ends (HTTP). Protocol messages only on stdout; everything else on stderr.
fn serve(http: Option<std::net::SocketAddr>) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let server = toolcall_mcp::McpServer::new(&toolset::ALL, App::demo())
        .name("example-app")
        .version(env!("CARGO_PKG_VERSION"))
        .instructions("Weather, arithmetic, orders, money and the signed-in user's notes.");
    let served = runtime.block_on(async move {
        match http {
            None => server.serve_stdio().await,
            Some(addr) => {
                let listener = tokio::net::TcpListener::bind(addr)
                    .await
                    .map_err(|e| toolcall_mcp::ServeError::Transport(format!("{addr}: {e}")))?;
                if let Ok(bound) = listener.local_addr() {
                    eprintln!("listening on http://{bound}/mcp");
                }
                server.serve_http_on(listener).await
            }
        }
    });
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Runs one call as Ada, the demo's signed-in user: the result on stdout (exit 0), or the
/// error's JSON object on stdout and its message on stderr (exit 1).
fn call(name: &str, args: &[u8]) -> ExitCode {
    let runtime = match runtime() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let app = App::demo();
    match runtime.block_on(toolset::ALL.call_bytes(&app, name, args)) {
        Ok(value) => {
            println!("{value}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            println!("{}", error.to_value());
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_words(line: &str) -> Result<Command, String> {
        parse(line.split_whitespace().map(OsString::from))
    }

    #[test]
    fn no_arguments_is_the_demo() {
        assert_eq!(parse_words(""), Ok(Command::Demo));
    }

    #[test]
    fn schema_flags_in_any_order() {
        assert_eq!(parse_words("schema"), Ok(Command::Schema { format: Format::OpenAi, strict: false }));
        assert_eq!(
            parse_words("schema --strict --format mcp"),
            Ok(Command::Schema { format: Format::Mcp, strict: true })
        );
        assert_eq!(
            parse_words("schema --format anthropic"),
            Ok(Command::Schema { format: Format::Anthropic, strict: false })
        );
    }

    #[test]
    fn bad_schema_flags_say_what_is_wrong() {
        assert!(parse_words("schema --format").unwrap_err().contains("needs a value"));
        assert!(parse_words("schema --format bard").unwrap_err().contains("unknown format `bard`"));
        assert_eq!(
            parse_words("schema --format gemini"),
            Ok(Command::Schema { format: Format::Gemini, strict: false })
        );
        assert!(parse_words("schema --pretty").unwrap_err().contains("unknown flag `--pretty`"));
    }

    #[test]
    fn call_takes_exactly_a_name_and_arguments() {
        let call = parse(["call", "add", r#"{"a": 1, "b": 2}"#].map(OsString::from));
        assert_eq!(call, Ok(Command::Call { name: "add".into(), args: br#"{"a": 1, "b": 2}"#.to_vec() }));
        assert!(parse_words("call add").unwrap_err().contains("got 1 argument(s)"));
        assert!(parse_words("call add {} extra").unwrap_err().contains("got 3 argument(s)"));
    }

    #[test]
    fn serve_over_stdio_or_http() {
        assert_eq!(parse_words("serve"), Ok(Command::Serve { http: None }));
        assert_eq!(
            parse_words("serve --http 127.0.0.1:0"),
            Ok(Command::Serve { http: Some("127.0.0.1:0".parse().unwrap()) })
        );
        assert!(parse_words("serve --http").unwrap_err().contains("needs an address"));
        assert!(parse_words("serve --http nowhere").unwrap_err().contains("is not an address"));
        assert!(parse_words("serve --stdio").unwrap_err().contains("unknown flag `--stdio`"));
    }

    #[test]
    fn unknown_commands_are_errors_and_help_is_not() {
        assert!(parse_words("frobnicate").unwrap_err().contains("unknown command `frobnicate`"));
        assert_eq!(parse_words("--help"), Ok(Command::Help));
    }

    #[cfg(unix)]
    #[test]
    fn call_arguments_keep_their_bytes_but_names_must_be_utf8() {
        use std::os::unix::ffi::OsStringExt;
        let invalid = || OsString::from_vec(b"{\"city\":\"\xff\"}".to_vec());
        let call = parse([OsString::from("call"), OsString::from("get_weather"), invalid()]);
        assert_eq!(
            call,
            Ok(Command::Call { name: "get_weather".into(), args: b"{\"city\":\"\xff\"}".to_vec() })
        );
        let error = parse([OsString::from("call"), invalid(), OsString::from("{}")]).unwrap_err();
        assert!(error.contains("not valid UTF-8"), "{error}");
    }
}
