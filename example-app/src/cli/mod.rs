//! The command line, on clap: one [`Command`] enum, each command's arguments and code in
//! a module of its own (`demo`, `schema`, `call`, `serve`, `agent`). A new command is a
//! module with an `Args` struct and a `run`, and one variant here.
//!
//! No command runs the demo; `schema` prints the precomputed tool definitions; `call`
//! runs one tool the way a model's call would run; `serve` is an MCP server; `agent` runs
//! a tool loop against an OpenAI-compatible Chat Completions endpoint. `--db PATH|URL`,
//! before or after the command, puts the notes in a SQLite file or on Postgres. Exit
//! status: 0 on success, 1 when the command failed (for `call`, the tool error's JSON
//! object on stdout and its message on stderr), 2 for a bad command line (clap's error on
//! stderr).

mod agent;
mod call;
mod demo;
mod schema;
mod serve;

use std::ffi::OsString;
use std::io::{self, Write as _};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::app::{Location, Store};

pub use agent::{AgentArgs, Approval};
pub use call::CallArgs;
pub use demo::DemoArgs;
pub use schema::SchemaArgs;
pub use serve::ServeArgs;

/// `example-app [COMMAND]`.
#[derive(Debug, Parser)]
#[command(name = "example-app", version, about = "The seed's tools, end to end, with toolcall")]
pub struct Cli {
    /// The notes database: a SQLite file or a postgres:// URL [default: built-in, in memory]
    ///
    /// A SQLite file is created and migrated on first use, a Postgres database migrated.
    /// Without --db, the notes are in a built-in in-memory SQLite database with the demo's
    /// notes, gone when the command ends.
    #[arg(long, global = true, value_name = "PATH|URL")]
    pub db: Option<Location>,
    /// The command; none runs the demo.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// What the command line asks for.
// One value per process, parsed once: the size of `serve`'s flags costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, PartialEq, Subcommand)]
pub enum Command {
    /// Print the tool definitions and answer the seed's sample calls (the default).
    Demo(DemoArgs),
    /// Print the tool definitions.
    Schema(SchemaArgs),
    /// Run one tool call as the demo's signed-in user (user 1).
    Call(CallArgs),
    /// Serve every tool over MCP: stdio as user 1, or streamable HTTP at ADDR/mcp.
    Serve(ServeArgs),
    /// Ask a model at an OpenAI-compatible endpoint, running its tool calls as user 1.
    ///
    /// Prints each tool call and its answer as it goes, then the model's answer. The API
    /// key is OPENAI_API_KEY when set. A destructive tool (remove_note) runs only when
    /// approved: asked on the terminal, always with --yes, never without a terminal.
    Agent(AgentArgs),
    /// Bring the database named by --db to the newest schema version, then exit.
    ///
    /// Safe to run from many replicas at once: on Postgres the migrator holds a lock, and
    /// each run finds the work of the one before done.
    Migrate,
}

impl Command {
    /// Runs the command, its notes on the database at `db` (the built-in one when
    /// `None`), returning the process exit status.
    pub fn run(self, db: Option<&Location>) -> ExitCode {
        match self {
            Command::Demo(args) => args.run(db),
            Command::Schema(args) => args.run(),
            Command::Call(args) => args.run(db),
            Command::Serve(args) => args.run(db),
            Command::Agent(args) => args.run(db),
            Command::Migrate => migrate(db),
        }
    }
}

/// `migrate`: opens (and so migrates) the database at `db`; exit 2 without `--db`, 1 when
/// it cannot be opened.
fn migrate(db: Option<&Location>) -> ExitCode {
    let Some(location) = db else {
        eprintln!("error: migrate needs --db PATH|URL (the built-in database is made anew each time)");
        return ExitCode::from(2);
    };
    let runtime = match runtime() {
        Ok(runtime) => runtime,
        Err(exit) => return exit,
    };
    match runtime.block_on(Store::open(location)) {
        Ok(_) => {
            eprintln!("{location} is at schema version {}", crate::db::schema_version());
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Parses the arguments after the program name (`std::env::args_os().skip(1)`); no
/// command is the demo. `Err` is clap's: a usage error, or the help or version to print.
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Command, clap::Error> {
    parse_with_db(args).map(|(command, _)| command)
}

/// [`parse`], with `--db`'s location.
pub fn parse_with_db(
    args: impl IntoIterator<Item = OsString>,
) -> Result<(Command, Option<Location>), clap::Error> {
    let program = std::iter::once(OsString::from("example-app"));
    let cli = Cli::try_parse_from(program.chain(args))?;
    Ok((cli.command.unwrap_or(Command::Demo(DemoArgs {})), cli.db))
}

/// Parses and runs a command line (the arguments after the program name), returning the
/// process exit status: clap's help and version exit 0, its usage errors 2.
pub fn main(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    match parse_with_db(args) {
        Ok((command, db)) => command.run(db.as_ref()),
        Err(error) => {
            let _ = error.print();
            ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2))
        }
    }
}

/// A single-threaded tokio runtime with timers and sockets (Postgres), for the async
/// tools; when none can start, the exit status, after saying why on stderr.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, ExitCode> {
    tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|error| {
        eprintln!("error: cannot start the async runtime: {error}");
        ExitCode::FAILURE
    })
}

/// The store of a command that runs tools: the database at `db`, opened (and migrated)
/// before anything runs, or the built-in one, whose queries each wait 50 ms more. A
/// database that cannot be opened is one line on stderr and exit status 1.
pub(crate) fn open_store(
    runtime: &tokio::runtime::Runtime,
    db: Option<&Location>,
) -> Result<std::sync::Arc<Store>, ExitCode> {
    open_store_with(runtime, db, std::time::Duration::from_millis(50))
}

/// [`open_store`] whose built-in database's queries each wait `latency` more.
pub(crate) fn open_store_with(
    runtime: &tokio::runtime::Runtime,
    db: Option<&Location>,
    latency: std::time::Duration,
) -> Result<std::sync::Arc<Store>, ExitCode> {
    match runtime.block_on(Store::open_or_builtin(db, latency)) {
        Ok(store) => Ok(std::sync::Arc::new(store)),
        Err(error) => {
            eprintln!("error: {error}");
            Err(ExitCode::FAILURE)
        }
    }
}

/// Writes `text` and a newline to stdout. A reader that has gone away (`| head`) is not
/// an error: the writing just stops. Any other failure is reported on stderr (exit 1).
pub(crate) fn println_stdout(text: &str) -> ExitCode {
    let mut stdout = io::stdout().lock();
    match writeln!(stdout, "{text}").and_then(|()| stdout.flush()) {
        Err(error) if error.kind() != io::ErrorKind::BrokenPipe => {
            eprintln!("error: cannot write to stdout: {error}");
            ExitCode::FAILURE
        }
        _ => ExitCode::SUCCESS,
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;
    use clap::error::ErrorKind;
    use toolcall_runtime::Format;

    use super::*;

    fn parse_words(line: &str) -> Result<Command, clap::Error> {
        parse(line.split_whitespace().map(OsString::from))
    }

    /// The kind of error a command line gives, and its text.
    fn error(line: &str) -> (ErrorKind, String) {
        match parse_words(line) {
            Ok(command) => panic!("`{line}` parsed: {command:?}"),
            Err(error) => (error.kind(), error.to_string()),
        }
    }

    #[test]
    fn the_command_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn no_arguments_is_the_demo() {
        assert_eq!(parse_words("").unwrap(), Command::Demo(DemoArgs {}));
        assert_eq!(parse_words("demo").unwrap(), Command::Demo(DemoArgs {}));
    }

    #[test]
    fn schema_flags_in_any_order() {
        let schema = |format, strict| Command::Schema(SchemaArgs { format, strict });
        assert_eq!(parse_words("schema").unwrap(), schema(Format::OpenAi, false));
        assert_eq!(parse_words("schema --strict --format mcp").unwrap(), schema(Format::Mcp, true));
        assert_eq!(parse_words("schema --format anthropic").unwrap(), schema(Format::Anthropic, false));
        assert_eq!(parse_words("schema --format=responses").unwrap(), schema(Format::OpenAiResponses, false));
        assert_eq!(parse_words("schema --format gemini").unwrap(), schema(Format::Gemini, false));
    }

    #[test]
    fn bad_schema_flags_say_what_is_wrong() {
        let (kind, text) = error("schema --format");
        assert_eq!(kind, ErrorKind::InvalidValue);
        assert!(text.contains("a value is required for '--format <FORMAT>'"), "{text}");
        let (kind, text) = error("schema --format bard");
        assert_eq!(kind, ErrorKind::InvalidValue);
        assert!(text.contains("invalid value 'bard'"), "{text}");
        assert!(text.contains("openai, anthropic, mcp, responses, gemini"), "{text}");
        let (kind, text) = error("schema --pretty");
        assert_eq!(kind, ErrorKind::UnknownArgument);
        assert!(text.contains("unexpected argument '--pretty'"), "{text}");
    }

    #[test]
    fn call_takes_exactly_a_name_and_arguments() {
        let call = parse(["call", "add", r#"{"a": 1, "b": 2}"#].map(OsString::from)).unwrap();
        assert_eq!(call, Command::Call(CallArgs { name: "add".into(), json: r#"{"a": 1, "b": 2}"#.into() }));
        assert_eq!(error("call add").0, ErrorKind::MissingRequiredArgument);
        assert_eq!(error("call").0, ErrorKind::MissingRequiredArgument);
        assert_eq!(error("call add {} extra").0, ErrorKind::UnknownArgument);
        let negative = parse_words("call add -1").unwrap();
        assert_eq!(negative, Command::Call(CallArgs { name: "add".into(), json: "-1".into() }));
    }

    #[test]
    fn db_before_or_after_the_command() {
        let db = |line: &str| parse_with_db(line.split_whitespace().map(OsString::from)).map(|(_, db)| db);
        let file = Some(Location::Sqlite("notes.db".into()));
        assert_eq!(db("--db notes.db call list_notes {}").unwrap(), file);
        assert_eq!(db("call --db notes.db list_notes {}").unwrap(), file);
        assert_eq!(db("serve --db=notes.db").unwrap(), file);
        assert_eq!(db("--db notes.db").unwrap(), file, "the demo");
        assert_eq!(db("agent hi --base-url http://x").unwrap(), None);
        let pg = db("--db postgres://ada@db/notes demo").unwrap();
        assert_eq!(pg, Some(Location::Postgres("postgres://ada@db/notes".into())));
        assert_eq!(error("--db").0, ErrorKind::InvalidValue);
        let (kind, text) = error("--db mysql://db/notes demo");
        assert_eq!(kind, ErrorKind::ValueValidation);
        assert!(text.contains("`mysql://` is not supported"), "{text}");
    }

    #[test]
    fn serve_over_stdio_or_http() {
        assert_eq!(
            parse_words("serve").unwrap(),
            Command::Serve(ServeArgs { http: None, ..ServeArgs::default() })
        );
        assert_eq!(
            parse_words("serve --http 127.0.0.1:0").unwrap(),
            Command::Serve(ServeArgs { http: Some("127.0.0.1:0".parse().unwrap()), ..ServeArgs::default() })
        );
        assert_eq!(error("serve --http").0, ErrorKind::InvalidValue);
        let (kind, text) = error("serve --http nowhere");
        assert_eq!(kind, ErrorKind::ValueValidation);
        assert!(text.contains("invalid value 'nowhere' for '--http <ADDR>'"), "{text}");
        assert_eq!(error("serve --stdio").0, ErrorKind::UnknownArgument);
    }

    #[test]
    fn unknown_commands_are_errors_and_help_and_version_are_not() {
        assert_eq!(error("frobnicate").0, ErrorKind::InvalidSubcommand);
        for line in ["--help", "-h", "help", "schema --help", "call -h", "help serve"] {
            let (kind, _) = error(line);
            assert_eq!(kind, ErrorKind::DisplayHelp, "{line}");
            assert_eq!(parse_words(line).map_err(|e| e.exit_code()).unwrap_err(), 0, "{line}");
        }
        assert_eq!(error("--version").0, ErrorKind::DisplayVersion);
    }

    #[cfg(unix)]
    #[test]
    fn call_arguments_keep_their_bytes_but_names_must_be_utf8() {
        use std::os::unix::ffi::OsStringExt;
        let invalid = || OsString::from_vec(b"{\"city\":\"\xff\"}".to_vec());
        let call = parse([OsString::from("call"), OsString::from("get_weather"), invalid()]).unwrap();
        assert_eq!(call, Command::Call(CallArgs { name: "get_weather".into(), json: invalid() }));
        let Err(error) = parse([OsString::from("call"), invalid(), OsString::from("{}")]) else {
            panic!("a name that is not UTF-8 parsed");
        };
        assert_eq!(error.kind(), ErrorKind::InvalidUtf8);
    }
}
