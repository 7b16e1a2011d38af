//! The command line of `cargo toolcall`, parsed by clap the way cargo subcommands are:
//! cargo runs `cargo-toolcall toolcall export ..`, so the top level is `enum Cargo` with
//! one `toolcall` subcommand, and usage and errors read `cargo toolcall export ..`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, ColorChoice, Parser, Subcommand};
use toolcall_runtime::Format;

use crate::term;

/// What cargo passes: `cargo-toolcall toolcall ARGS..`.
#[derive(Debug, Parser)]
#[command(name = "cargo", bin_name = "cargo", styles = term::STYLES)]
pub enum Cargo {
    /// Tool definitions as a crate's build generates them.
    Toolcall(Toolcall),
}

/// `cargo toolcall [--color WHEN] COMMAND`.
#[derive(Debug, Args)]
#[command(version, propagate_version = true)]
pub struct Toolcall {
    /// The command; none prints the help.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Coloring: auto, always, never.
    ///
    /// Without it, `CARGO_TERM_COLOR` decides, else auto (color on a terminal, unless
    /// `NO_COLOR` is set).
    #[arg(
        long,
        value_name = "WHEN",
        global = true,
        value_enum,
        hide_possible_values = true,
        display_order = 100
    )]
    pub color: Option<ColorChoice>,
}

/// The commands of `cargo toolcall`.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Write the tool definitions the crate's build generates.
    #[command(display_name = "cargo-toolcall")]
    Export(ExportArgs),
    /// Print the tools the build's search index finds for a query, best first.
    #[command(display_name = "cargo-toolcall")]
    Search(SearchArgs),
}

/// The long help of `search`, after the options.
const SEARCH_AFTER_HELP: &str = "\
Search runs the crate's own build script (as export does) and ranks the tools it generated
with the index `Builder::tool_search(true)` compiles into tools.rs: the same tokenizer,
weights and BM25 as the built crate's `toolset::ALL.search(QUERY, LIMIT)`, so what it
prints is what a model searching the crate's tools would find. A tool that shares no word
with the query is not listed.

Exit status: 0 when something was found, 1 when nothing was (or on an error), 2 for a bad
command line.";

/// The options of `cargo toolcall search`.
#[derive(Debug, PartialEq, Args)]
#[command(after_long_help = SEARCH_AFTER_HELP)]
pub struct SearchArgs {
    /// What a user or model would ask for, in words.
    #[arg(value_name = "QUERY", required = true)]
    pub query: Vec<String>,
    /// How many tools to print at most.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub limit: usize,
    /// The crate and its toolset.
    #[command(flatten)]
    pub krate: CrateArgs,
}

/// Which crate, and which toolset of its build: the options `export` and `search` share.
#[derive(Debug, PartialEq, Args)]
pub struct CrateArgs {
    /// The crate directory [default: the current one].
    #[arg(long, value_name = "DIR")]
    pub path: Option<PathBuf>,
    /// Path to the crate's Cargo.toml.
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
    /// The toolset, by the file build.rs writes it to (`Builder::out_file`).
    #[arg(long, value_name = "FILE", default_value = "tools.rs")]
    pub toolset: String,
}

impl CrateArgs {
    /// The crate directory from `--manifest-path` or `--path` (default: the current one);
    /// `Err` names a directory that does not exist.
    pub fn dir(&self) -> Result<PathBuf, String> {
        let dir = match (&self.manifest_path, &self.path) {
            (Some(manifest), _) => manifest.parent().map(Path::to_owned).unwrap_or_default(),
            (None, Some(path)) => path.clone(),
            (None, None) => PathBuf::from("."),
        };
        let dir = if dir.as_os_str().is_empty() { PathBuf::from(".") } else { dir };
        if !dir.is_dir() {
            return Err(format!("{}: no such directory", dir.display()));
        }
        Ok(dir)
    }
}

/// The long help of `export`, after the options.
const EXPORT_AFTER_HELP: &str = "\
MODULE names (e.g. `weather`, `billing::invoices`) restrict the output to those modules.

Export runs the crate's own build script (through `cargo build`, stopped once the script
has run) and writes what its `Builder::compile` generated: the same settings (context,
tools directory, output types, type providers), the same crate-wide types, the same
definitions. Without `--pretty` the output is the built crate's `emit(FORMAT, STRICT)`
text byte for byte, then a newline; `--pretty` indents it, every key where it was.

Warnings print as the build prints them (those its expected-warnings list holds are
left out); notes print only with `--notes`.

Exit status: 0 on success, 1 on an error (the build script failed, or the crate has no
such toolset) or when `--check` finds FILE out of date, 2 for a bad command line.";

/// The options of `cargo toolcall export`.
#[derive(Debug, PartialEq, Args)]
#[command(after_long_help = EXPORT_AFTER_HELP)]
pub struct ExportArgs {
    /// Definition format.
    #[arg(long, value_name = "FORMAT", default_value = "openai", value_parser = format_parser())]
    pub format: Format,
    /// Write the strict variant.
    #[arg(long)]
    pub strict: bool,
    /// Indent the JSON (two spaces, every key where the build put it).
    #[arg(long)]
    pub pretty: bool,
    /// Write to FILE instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Exit 1 with a diff when FILE is not what export writes now.
    #[arg(long, value_name = "FILE")]
    pub check: Option<PathBuf>,
    /// The crate and its toolset.
    #[command(flatten)]
    pub krate: CrateArgs,
    /// Also print notes: information that needs no action (how recursive types are
    /// written where a format takes no `$ref`).
    #[arg(long)]
    pub notes: bool,
    /// No longer read: the build's own `Builder::context` is used. Kept for a release so
    /// that scripts keep running; a warning says it is ignored.
    #[arg(long, value_name = "TYPE", hide = true)]
    pub context: Option<String>,
    /// No longer read: the build's own expected-warnings list is used (see `--context`).
    #[arg(long, value_name = "FILE", hide = true)]
    pub expect_warnings: Option<PathBuf>,
    /// Modules to export (all when none are named).
    #[arg(value_name = "MODULE")]
    pub modules: Vec<String>,
}

/// `--format`: one of [`Format::ALL`] by its command-line name.
fn format_parser() -> impl TypedValueParser<Value = Format> {
    PossibleValuesParser::new(Format::ALL.map(Format::as_str))
        .try_map(|name| Format::parse(&name).ok_or_else(|| format!("unknown format `{name}`")))
}

/// The arguments as clap should see them: cargo's `toolcall` word is added when the
/// binary is run directly (`cargo-toolcall export ..`).
pub fn normalize(args: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    let mut args: Vec<OsString> = args.into_iter().collect();
    if args.get(1).is_none_or(|word| word != "toolcall") {
        args.insert(args.len().min(1), OsString::from("toolcall"));
    }
    args
}

/// Parses a normalized command line (program name first).
pub fn parse(args: Vec<OsString>) -> Result<Cargo, clap::Error> {
    Cargo::try_parse_from(args)
}

/// The error that prints `cargo toolcall`'s help (on stdout, exit 0).
pub fn help() -> clap::Error {
    match Cargo::try_parse_from(["cargo", "toolcall", "--help"]) {
        Ok(_) => clap::Error::new(clap::error::ErrorKind::DisplayHelp),
        Err(error) => error,
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;
    use clap::error::ErrorKind;

    use super::*;

    fn parse_words(line: &str) -> Result<Cargo, clap::Error> {
        parse(normalize(std::iter::once("cargo-toolcall").chain(line.split_whitespace()).map(OsString::from)))
    }

    fn export(line: &str) -> ExportArgs {
        match parse_words(line) {
            Ok(Cargo::Toolcall(Toolcall { command: Some(Command::Export(args)), .. })) => args,
            other => panic!("expected export: {other:?}"),
        }
    }

    #[test]
    fn search_takes_a_query_of_words_and_a_limit() {
        let Ok(Cargo::Toolcall(Toolcall { command: Some(Command::Search(args)), .. })) =
            parse_words("search weather in Paris --limit 3")
        else {
            panic!("expected search");
        };
        assert_eq!(args.query, ["weather", "in", "Paris"]);
        assert_eq!(args.limit, 3);
        assert_eq!(args.krate.toolset, "tools.rs");
        assert_eq!(
            parse_words("search").map(|_| ()).map_err(|e| e.kind()),
            Err(ErrorKind::MissingRequiredArgument)
        );
    }

    #[test]
    fn the_command_is_well_formed() {
        Cargo::command().debug_assert();
    }

    #[test]
    fn parses_every_option() {
        let args = export(
            "toolcall export --format mcp --strict --pretty --out a.json --path app --toolset ctx.rs weather billing::invoices",
        );
        assert_eq!(args.format, Format::Mcp);
        assert!(args.strict);
        assert_eq!(args.out, Some(PathBuf::from("a.json")));
        assert_eq!(args.krate.path, Some(PathBuf::from("app")));
        assert_eq!((args.pretty, args.krate.toolset.as_str()), (true, "ctx.rs"));
        assert_eq!(args.modules, vec!["weather", "billing::invoices"]);
        let listed = export("export --expect-warnings w.txt --notes");
        assert_eq!((listed.expect_warnings, listed.notes), (Some(PathBuf::from("w.txt")), true));
        assert_eq!(
            export("export --manifest-path x/Cargo.toml").krate.manifest_path,
            Some("x/Cargo.toml".into())
        );
    }

    #[test]
    fn defaults_and_the_direct_form() {
        let args = export("export");
        assert_eq!((args.format, args.strict, args.modules.len()), (Format::OpenAi, false, 0));
        assert_eq!((args.pretty, args.krate.toolset.as_str()), (false, "tools.rs"));
        assert_eq!(export("toolcall export --format responses").format, Format::OpenAiResponses);
        assert_eq!(export("export --format gemini").format, Format::Gemini);
    }

    #[test]
    fn color_is_global() {
        let Ok(Cargo::Toolcall(toolcall)) = parse_words("toolcall export --color never") else {
            panic!("expected a parse");
        };
        assert_eq!(toolcall.color, Some(ColorChoice::Never));
    }

    #[test]
    fn rejects_bad_input() {
        let kind = |line: &str| parse_words(line).map(|_| ()).map_err(|e| e.kind());
        assert_eq!(kind("export --format xml"), Err(ErrorKind::InvalidValue));
        assert_eq!(kind("export --out"), Err(ErrorKind::InvalidValue));
        assert_eq!(kind("export --frobnicate"), Err(ErrorKind::UnknownArgument));
        assert_eq!(kind("import"), Err(ErrorKind::InvalidSubcommand));
        assert_eq!(kind("--help"), Err(ErrorKind::DisplayHelp));
        assert_eq!(kind("--version"), Err(ErrorKind::DisplayVersion));
        assert_eq!(help().kind(), ErrorKind::DisplayHelp);
    }
}
