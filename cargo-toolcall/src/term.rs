//! The terminal, as cargo uses it: cargo's help colors, `--color WHEN` (else
//! `CARGO_TERM_COLOR`, else auto) for clap's output and ours, `error:`/`warning:`/`note:`
//! prefixes on stderr, and stdout writes that stop quietly when the reader has gone
//! (`cargo toolcall export | head`).

use std::ffi::OsString;
use std::io::{self, Write as _};

use clap::ColorChoice;
use clap::builder::styling::{AnsiColor, Effects, Style, Styles};

/// `error:`, as cargo writes it.
const ERROR: Style = AnsiColor::Red.on_default().effects(Effects::BOLD);
/// `warning:`, as cargo writes it.
const WARNING: Style = AnsiColor::Yellow.on_default().effects(Effects::BOLD);

/// Cargo's help and error colors.
pub const STYLES: Styles = Styles::styled()
    .header(AnsiColor::Green.on_default().effects(Effects::BOLD))
    .usage(AnsiColor::Green.on_default().effects(Effects::BOLD))
    .literal(AnsiColor::Cyan.on_default().effects(Effects::BOLD))
    .placeholder(AnsiColor::Cyan.on_default())
    .error(ERROR)
    .valid(AnsiColor::Cyan.on_default().effects(Effects::BOLD))
    .invalid(AnsiColor::Yellow.on_default().effects(Effects::BOLD));

/// Sets the color choice for everything written from now on, clap's help and errors
/// included: the last `--color WHEN` before `--`, else `CARGO_TERM_COLOR`, else auto. Read
/// before clap parses, because clap renders its errors during the parse; a bad WHEN is
/// left for clap to report.
pub fn init_color(args: &[OsString]) {
    let env = std::env::var("CARGO_TERM_COLOR").ok();
    let choice = color_flag(args).or(env.as_deref()).and_then(|when| when.parse().ok());
    let choice = match choice {
        Some(ColorChoice::Always) => anstream::ColorChoice::Always,
        Some(ColorChoice::Never) => anstream::ColorChoice::Never,
        Some(ColorChoice::Auto) | None => anstream::ColorChoice::Auto,
    };
    choice.write_global();
}

/// The value of the last `--color WHEN` or `--color=WHEN` before `--`.
fn color_flag(args: &[OsString]) -> Option<&str> {
    let mut words = args.iter().skip(1).map(|arg| arg.to_str().unwrap_or_default());
    let mut when = None;
    while let Some(word) = words.next() {
        match word {
            "--" => break,
            "--color" => when = words.next(),
            _ => when = word.strip_prefix("--color=").or(when),
        }
    }
    when
}

/// Prints `error: MESSAGE` on stderr.
pub fn error(message: &str) {
    prefixed(ERROR, "error", message);
}

/// Prints `warning: MESSAGE` on stderr.
pub fn warning(message: &str) {
    prefixed(WARNING, "warning", message);
}

/// Prints `MESSAGE` on stderr, a line of its own.
pub fn message(message: &str) {
    let _ = writeln!(anstream::stderr(), "{message}");
}

/// One styled `LABEL:` and the message; a closed stderr is ignored.
fn prefixed(style: Style, label: &str, message: &str) {
    let _ = writeln!(anstream::stderr(), "{style}{label}:{style:#} {message}");
}

/// Writes `text` to stdout. A reader that has gone away (`| head`) is not an error:
/// the writing just stops. Any other failure is.
pub fn print(text: &str) -> Result<(), String> {
    let mut stdout = io::stdout().lock();
    match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        Err(error) if error.kind() != io::ErrorKind::BrokenPipe => {
            Err(format!("cannot write to stdout: {error}"))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flag(line: &str) -> Option<String> {
        let args: Vec<OsString> = line.split_whitespace().map(OsString::from).collect();
        color_flag(&args).map(str::to_owned)
    }

    #[test]
    fn the_last_color_flag_before_the_separator_wins() {
        assert_eq!(flag("cargo-toolcall toolcall export"), None);
        assert_eq!(flag("cargo-toolcall toolcall --color never export").as_deref(), Some("never"));
        assert_eq!(flag("c export --color=always --color never").as_deref(), Some("never"));
        assert_eq!(flag("c export --color never --color=always").as_deref(), Some("always"));
        assert_eq!(flag("c export --color=never -- --color always").as_deref(), Some("never"));
    }
}
