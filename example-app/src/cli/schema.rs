//! `example-app schema`: the precomputed tool definitions for one provider format.

use std::process::ExitCode;

use clap::Args;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use toolcall_runtime::Format;

use crate::toolset;

/// `schema [--format FORMAT] [--strict]`.
#[derive(Clone, Debug, PartialEq, Eq, Args)]
pub struct SchemaArgs {
    /// The provider format.
    #[arg(long, value_name = "FORMAT", default_value = "openai", value_parser = format_parser())]
    pub format: Format,
    /// The strict variant.
    #[arg(long)]
    pub strict: bool,
}

impl SchemaArgs {
    /// Prints the definitions on one line.
    pub fn run(self) -> ExitCode {
        super::println_stdout(toolset::ALL.emit(self.format, self.strict))
    }
}

/// `--format`: one of [`Format::ALL`] by its command-line name.
fn format_parser() -> impl TypedValueParser<Value = Format> {
    PossibleValuesParser::new(Format::ALL.map(Format::as_str))
        .try_map(|name| Format::parse(&name).ok_or_else(|| format!("unknown format `{name}`")))
}
