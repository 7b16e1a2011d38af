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
  example-app schema [--format openai|anthropic|mcp] [--strict]
                                                           print the tool definitions
  example-app call NAME JSON                               run one tool call as user 1
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
                let value = text(args.next().ok_or("`--format` needs a value: openai, anthropic or mcp")?)?;
                format = Format::parse(&value)
                    .ok_or_else(|| format!("unknown format `{value}`: use openai, anthropic or mcp"))?;
            }
            other => return Err(format!("unknown flag `{other}` for `schema`")),
        }
    }
    Ok(Command::Schema { format, strict })
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
        Command::Help => println!("{USAGE}"),
    }
    ExitCode::SUCCESS
}

/// A single-threaded tokio runtime with timers, for the async tools.
pub(crate) fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread().enable_time().build()
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
        assert!(parse_words("schema --format gemini").unwrap_err().contains("unknown format `gemini`"));
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
    fn unknown_commands_are_errors_and_help_is_not() {
        assert!(parse_words("serve").unwrap_err().contains("unknown command `serve`"));
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
