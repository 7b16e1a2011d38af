//! Command-line parsing for `cargo toolcall export` (no dependencies: the surface is small).

use std::path::PathBuf;

use toolcall_runtime::Format;

/// The help text.
pub const HELP: &str = "\
cargo toolcall export: write tool definitions from src/tools, without compiling

USAGE:
    cargo toolcall export [OPTIONS] [MODULE]...

OPTIONS:
    --format <openai|responses|anthropic|mcp|gemini>  definition format (default: openai)
    --strict                          the strict variant
    --out <FILE>                      write to FILE (default: stdout)
    --check <FILE>                    exit 1 with a diff when FILE is not what export writes now
    --path <DIR>                      the crate directory (default: the current one)
    --manifest-path <PATH>            the crate's Cargo.toml
    --context <TYPE>                  the context type build.rs declares (e.g. crate::App)
    -h, --help                        this text

MODULE names (e.g. `weather`, `billing::invoices`) restrict the output to those modules.

The output is one JSON array with two-space indent, object keys sorted except inside
`properties` (declaration order), modules sorted, and a trailing newline.

Type providers are Rust code registered in build.rs; export does not compile or run it,
so types that only a provider knows are written as `{}` (with a warning), the same
fallback the build uses when no provider answers.
";

/// What to do.
#[derive(Debug, PartialEq)]
pub enum Command {
    /// Print the help.
    Help,
    /// Export.
    Export(ExportArgs),
}

/// The options of `export`.
#[derive(Debug, PartialEq)]
pub struct ExportArgs {
    /// Output format.
    pub format: Format,
    /// Strict variant.
    pub strict: bool,
    /// Output file.
    pub out: Option<PathBuf>,
    /// File to check against.
    pub check: Option<PathBuf>,
    /// Crate directory.
    pub path: Option<PathBuf>,
    /// Crate manifest.
    pub manifest_path: Option<PathBuf>,
    /// The context type the crate's build script declares with `Builder::context`.
    pub context: Option<String>,
    /// Modules to keep (all when empty).
    pub modules: Vec<String>,
}

/// Parses the arguments after the program name. Accepts the `toolcall` word cargo passes
/// when run as `cargo toolcall`.
pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Command, String> {
    let mut args = args.into_iter().peekable();
    if args.peek().is_some_and(|a| a == "toolcall") {
        args.next();
    }
    match args.next().as_deref() {
        Some("export") => {}
        Some("-h" | "--help") | None => return Ok(Command::Help),
        Some(other) => return Err(format!("unknown command `{other}`; expected `export`")),
    }
    let mut out = ExportArgs {
        format: Format::OpenAi,
        strict: false,
        out: None,
        check: None,
        path: None,
        manifest_path: None,
        context: None,
        modules: Vec::new(),
    };
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| args.next().ok_or_else(|| format!("`{flag}` needs a value"));
        match arg.as_str() {
            "-h" | "--help" => return Ok(Command::Help),
            "--strict" => out.strict = true,
            "--format" => {
                let name = value("--format")?;
                out.format = Format::parse(&name).ok_or_else(|| {
                    format!("unknown format `{name}`; use openai, responses, anthropic, mcp or gemini")
                })?;
            }
            "--out" => out.out = Some(PathBuf::from(value("--out")?)),
            "--check" => out.check = Some(PathBuf::from(value("--check")?)),
            "--path" => out.path = Some(PathBuf::from(value("--path")?)),
            "--manifest-path" => out.manifest_path = Some(PathBuf::from(value("--manifest-path")?)),
            "--context" => out.context = Some(value("--context")?),
            flag if flag.starts_with('-') => return Err(format!("unknown option `{flag}`")),
            module => out.modules.push(module.to_owned()),
        }
    }
    Ok(Command::Export(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_words(line: &str) -> Result<Command, String> {
        parse(line.split_whitespace().map(str::to_owned))
    }

    #[test]
    fn parses_every_option() {
        let Ok(Command::Export(args)) = parse_words(
            "toolcall export --format mcp --strict --out a.json --path app --context crate::App weather billing::invoices",
        ) else {
            panic!("expected export");
        };
        assert_eq!(args.format, Format::Mcp);
        assert!(args.strict);
        assert_eq!(args.out, Some(PathBuf::from("a.json")));
        assert_eq!(args.path, Some(PathBuf::from("app")));
        assert_eq!(args.context.as_deref(), Some("crate::App"));
        assert_eq!(args.modules, vec!["weather", "billing::invoices"]);
    }

    #[test]
    fn rejects_bad_input() {
        assert!(parse_words("export --format xml").unwrap_err().contains("unknown format"));
        assert!(parse_words("export --out").unwrap_err().contains("needs a value"));
        assert!(parse_words("export --frobnicate").unwrap_err().contains("unknown option"));
        assert!(parse_words("import").unwrap_err().contains("unknown command"));
        assert_eq!(parse_words("--help"), Ok(Command::Help));
    }
}
