//! Expected warnings ([`crate::Builder::expect_warnings`]): the list a crate keeps of the
//! warnings it knows about, so its build prints only new ones.
//!
//! Takes the list's text and the build's diagnostics; gives the lines to print: every
//! diagnostic the list does not expect (errors always, notes never), and the listed
//! warnings that no longer occur. A warning is matched by file and message, not by line
//! and column. `cargo toolcall export` prints the lines the build printed (they are in its
//! [`crate::export::Record`]), so both print the same warnings.

use std::collections::BTreeSet;
use std::path::Path;

use crate::diagnostics::{Diagnostic, Level};

/// The warnings a crate expects, by (file, message).
#[derive(Debug, Default)]
pub struct Expected {
    listed: BTreeSet<(String, String)>,
}

impl Expected {
    /// Reads every `path:line:col: message` line of `text` (not `error:` or `note:` ones);
    /// other lines are ignored.
    pub fn parse(text: &str) -> Self {
        let listed = text
            .lines()
            .filter_map(parse_line)
            .filter(|(_, message)| !message.starts_with("error: ") && !message.starts_with("note: "))
            .collect();
        Expected { listed }
    }

    /// The diagnostics to print: errors, and warnings the list does not expect (notes
    /// need no action and are not printed).
    pub fn unexpected<'d>(&self, diagnostics: &'d [Diagnostic]) -> impl Iterator<Item = &'d Diagnostic> {
        diagnostics.iter().filter(|d| match d.level {
            Level::Error => true,
            Level::Warning => !self.listed.contains(&key(d)),
            Level::Note => false,
        })
    }

    /// Listed warnings no diagnostic matches, as `file: message`.
    pub fn gone(&self, diagnostics: &[Diagnostic]) -> Vec<String> {
        let given: BTreeSet<(String, String)> =
            diagnostics.iter().filter(|d| d.level == Level::Warning).map(key).collect();
        self.listed.difference(&given).map(|(file, message)| format!("{file}: {message}")).collect()
    }
}

/// The diagnostics the build prints as `cargo:warning`: errors, and warnings the
/// expected list (when there is one) does not hold; then one line per listed warning the
/// build no longer gives.
pub(crate) fn printed_lines(diagnostics: &[Diagnostic], expected: Option<(&Path, &Expected)>) -> Vec<String> {
    let Some((list, expected)) = expected else {
        return diagnostics.iter().filter(|d| d.level != Level::Note).map(ToString::to_string).collect();
    };
    let mut lines: Vec<String> = expected.unexpected(diagnostics).map(ToString::to_string).collect();
    for line in expected.gone(diagnostics) {
        lines.push(format!("{}: lists a warning the build no longer gives: {line}", list.display()));
    }
    lines
}

/// The expected-warnings file a build script names, when it can be read from its text:
/// the argument of `.expect_warnings(..)`, a string literal or a `const` (or `static`) of
/// the script holding one. (`cargo toolcall export` now runs `build.rs` and prints the
/// build's own lines; this stays for tools that read a script without running it.)
pub fn declared_list(build_script: &str) -> Option<String> {
    let file = syn::parse_file(build_script).ok()?;
    let mut finder = ListFinder { argument: None };
    syn::visit_mut::VisitMut::visit_file_mut(&mut finder, &mut file.clone());
    match finder.argument? {
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(text), .. }) => Some(text.value()),
        syn::Expr::Path(path) => {
            let name = path.path.get_ident()?;
            file.items.iter().find_map(|item| {
                let (ident, expr) = match item {
                    syn::Item::Const(c) => (&c.ident, &c.expr),
                    syn::Item::Static(s) => (&s.ident, &s.expr),
                    _ => return None,
                };
                match expr.as_ref() {
                    syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(text), .. }) if ident == name => {
                        Some(text.value())
                    }
                    _ => None,
                }
            })
        }
        _ => None,
    }
}

/// Finds the first `.expect_warnings(arg)` call.
struct ListFinder {
    argument: Option<syn::Expr>,
}

impl syn::visit_mut::VisitMut for ListFinder {
    fn visit_expr_method_call_mut(&mut self, call: &mut syn::ExprMethodCall) {
        if self.argument.is_none() && call.method == "expect_warnings" && call.args.len() == 1 {
            self.argument = call.args.first().cloned();
        }
        syn::visit_mut::visit_expr_method_call_mut(self, call);
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
    fn notes_are_never_printed_nor_listed() {
        let expected = Expected::parse("src/a.rs:1:1: note: how it is written\nsrc/a.rs:2:1: listed\n");
        let mut note = warning("src/a.rs", 1, "how it is written");
        note.level = Level::Note;
        let given = [note, warning("src/a.rs", 2, "listed")];
        assert_eq!(expected.unexpected(&given).count(), 0);
        assert!(expected.gone(&given).is_empty(), "a listed note is not a warning gone");
        assert_eq!(given[0].to_string(), "src/a.rs:1:1: note: how it is written");
    }

    #[test]
    fn the_list_a_build_script_names_is_found() {
        let literal = "fn main() { toolcall_build::Builder::new().expect_warnings(\"w.txt\").compile(); }";
        assert_eq!(declared_list(literal).as_deref(), Some("w.txt"));
        let constant = "const LIST: &str = \"toolcall-warnings.txt\";\nfn main() {\n    \
                        toolcall_build::Builder::new()\n        .context(\"crate::App\")\n        \
                        .expect_warnings(LIST)\n        .compile();\n}\n";
        assert_eq!(declared_list(constant).as_deref(), Some("toolcall-warnings.txt"));
        for none in ["fn main() { toolcall_build::Builder::new().compile(); }", "fn main( {", ""] {
            assert_eq!(declared_list(none), None, "{none}");
        }
        assert_eq!(declared_list("fn main() { b.expect_warnings(format!(\"x\")); }"), None);
    }

    #[test]
    fn lines_that_are_not_diagnostics_are_ignored() {
        for line in ["source: tests/x.rs", "(no diagnostics)", "a:b:c: d", ":1:2: x", "expression: f(a: b)"] {
            assert!(parse_line(line).is_none(), "{line}");
        }
        assert_eq!(parse_line("src/a.rs:1:2: x: y"), Some(("src/a.rs".into(), "x: y".into())));
    }
}
