//! Expected warnings ([`crate::Builder::expect_warnings`]): the list a crate keeps of the
//! warnings it knows about, so its build prints only new ones.
//!
//! Takes the list's text and the build's diagnostics; gives the lines to print: every
//! diagnostic the list does not expect (errors always), and the listed warnings that no
//! longer occur. A warning is matched by file and message, not by line and column.

use std::collections::BTreeSet;

use crate::diagnostics::{Diagnostic, Level};

/// The warnings a crate expects, by (file, message).
#[derive(Debug, Default)]
pub struct Expected {
    listed: BTreeSet<(String, String)>,
}

impl Expected {
    /// Reads every `path:line:col: message` line of `text` (not `error:` ones); other lines
    /// are ignored.
    pub fn parse(text: &str) -> Self {
        let listed = text
            .lines()
            .filter_map(parse_line)
            .filter(|(_, message)| !message.starts_with("error: "))
            .collect();
        Expected { listed }
    }

    /// The diagnostics to print: errors, and warnings the list does not expect.
    pub fn unexpected<'d>(&self, diagnostics: &'d [Diagnostic]) -> impl Iterator<Item = &'d Diagnostic> {
        diagnostics.iter().filter(|d| d.level == Level::Error || !self.listed.contains(&key(d)))
    }

    /// Listed warnings no diagnostic matches, as `file: message`.
    pub fn gone(&self, diagnostics: &[Diagnostic]) -> Vec<String> {
        let given: BTreeSet<(String, String)> =
            diagnostics.iter().filter(|d| d.level == Level::Warning).map(key).collect();
        self.listed.difference(&given).map(|(file, message)| format!("{file}: {message}")).collect()
    }
}

/// A diagnostic's file (with `/` separators) and message.
fn key(diagnostic: &Diagnostic) -> (String, String) {
    (diagnostic.file.display().to_string().replace('\\', "/"), diagnostic.message.clone())
}

/// `path:line:col: message` -> (path, message).
fn parse_line(line: &str) -> Option<(String, String)> {
    let (place, message) = line.trim_end().split_once(": ")?;
    let mut parts = place.rsplitn(3, ':');
    let (column, row, file) = (parts.next()?, parts.next()?, parts.next()?);
    let numbers = [column, row].iter().all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    (numbers && !file.is_empty()).then(|| (file.to_owned(), message.to_owned()))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn warning(file: &str, line: usize, message: &str) -> Diagnostic {
        Diagnostic {
            level: Level::Warning,
            file: PathBuf::from(file),
            line,
            column: 1,
            message: message.into(),
        }
    }

    #[test]
    fn listed_warnings_match_by_file_and_message_wherever_they_are() {
        let list = "---\nsource: tests/x.rs\n---\n# reviewed\nsrc/tools/a.rs:3:5: old news\n\
                    src/tools/a.rs:9:1: gone now\nsrc/tools/a.rs:1:1: error: never expected\n";
        let expected = Expected::parse(list);
        let mut error = warning("src/tools/a.rs", 1, "never expected");
        error.level = Level::Error;
        let given = [warning("src/tools/a.rs", 40, "old news"), warning("src/tools/a.rs", 3, "new"), error];
        let printed: Vec<String> = expected.unexpected(&given).map(ToString::to_string).collect();
        assert_eq!(printed, ["src/tools/a.rs:3:1: new", "src/tools/a.rs:1:1: error: never expected"]);
        assert_eq!(expected.gone(&given), ["src/tools/a.rs: gone now"]);
    }

    #[test]
    fn lines_that_are_not_diagnostics_are_ignored() {
        for line in ["source: tests/x.rs", "(no diagnostics)", "a:b:c: d", ":1:2: x", "expression: f(a: b)"] {
            assert!(parse_line(line).is_none(), "{line}");
        }
        assert_eq!(parse_line("src/a.rs:1:2: x: y"), Some(("src/a.rs".into(), "x: y".into())));
    }
}
