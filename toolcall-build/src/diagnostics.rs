//! Diagnostics: warnings and errors with their source location, accumulated across every
//! stage and reported together (the way serde_derive's `Ctxt` does), never a panic on bad
//! input.
//!
//! [`Diagnostics`] is one shared context, passed by `&` to every stage (interior
//! mutability), so no stage owns it and none reports through another. It must be read
//! with [`Diagnostics::into_sorted`] before it is dropped: dropping one that still holds
//! diagnostics is a bug in toolcall-build (they would be lost), and panics like serde's.

use std::cell::RefCell;
use std::fmt;
use std::path::{Path, PathBuf};

use proc_macro2::Span;

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Information that needs no action (how a recursive type is written where a format
    /// takes no `$ref`): recorded with the rest (`$OUT_DIR/<out_file>.diagnostics`,
    /// [`crate::Generated::diagnostics`], `cargo toolcall export --notes`), never printed as
    /// a `cargo:warning`, so it does not fill every build's output.
    Note,
    /// The build goes on; the tool may be skipped or changed.
    Warning,
    /// The build fails once every diagnostic has been printed.
    Error,
}

/// One message about a place in a tool file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Warning or error.
    pub level: Level,
    /// The file, as the build names it (relative to the crate, e.g. `src/tools/weather.rs`).
    pub file: PathBuf,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What is wrong and what to do about it.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    /// `path:line:col: message`, the form editors and `cargo:warning` understand.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.level {
            Level::Note => "note: ",
            Level::Warning => "",
            Level::Error => "error: ",
        };
        let file = self.file.display().to_string().replace('\\', "/");
        write!(f, "{file}:{}:{}: {level}{}", self.line, self.column, self.message)
    }
}

/// Diagnostics gathered while generating: one context shared by `&`.
#[derive(Debug, Default)]
pub struct Diagnostics {
    list: RefCell<Vec<Diagnostic>>,
}

impl Diagnostics {
    /// Records a warning at `span` in `file`.
    pub fn warn(&self, file: &Path, span: Span, message: impl Into<String>) {
        self.push(Level::Warning, file, span, message.into());
    }

    /// Records an error at `span` in `file`.
    pub fn error(&self, file: &Path, span: Span, message: impl Into<String>) {
        self.push(Level::Error, file, span, message.into());
    }

    /// Records a note (information needing no action) at `span` in `file`.
    pub fn note(&self, file: &Path, span: Span, message: impl Into<String>) {
        self.push(Level::Note, file, span, message.into());
    }

    /// This context, for diagnostics about one file.
    pub fn in_file<'d>(&'d self, file: &'d Path) -> FileDiagnostics<'d> {
        FileDiagnostics { file, diags: self }
    }

    /// Records a diagnostic at an explicit line and column.
    pub fn at(&self, level: Level, file: &Path, line: usize, column: usize, message: impl Into<String>) {
        let message = message.into();
        self.list.borrow_mut().push(Diagnostic { level, file: file.to_owned(), line, column, message });
    }

    fn push(&self, level: Level, file: &Path, span: Span, message: String) {
        let start = span.start();
        self.at(level, file, start.line.max(1), start.column + 1, message);
    }

    /// Everything recorded, sorted by file, line and column (deterministic output). This
    /// is how the context is checked; it is empty afterwards.
    pub fn into_sorted(self) -> Vec<Diagnostic> {
        let mut list = self.list.take();
        list.sort_by(|a, b| {
            (&a.file, a.line, a.column, &a.message).cmp(&(&b.file, b.line, b.column, &b.message))
        });
        list.dedup();
        list
    }
}

/// The shared context seen from one file: where a stage reports about that file.
#[derive(Clone, Copy, Debug)]
pub struct FileDiagnostics<'d> {
    file: &'d Path,
    diags: &'d Diagnostics,
}

impl FileDiagnostics<'_> {
    /// Records a warning at `span` in this file.
    pub fn warn(&self, span: Span, message: impl Into<String>) {
        self.diags.warn(self.file, span, message);
    }

    /// Records an error at `span` in this file.
    pub fn error(&self, span: Span, message: impl Into<String>) {
        self.diags.error(self.file, span, message);
    }

    /// Records a diagnostic of `level` at `span` in this file (for rules a crate can make
    /// errors, such as `Builder::deny_missing_docs`).
    pub fn emit(&self, level: Level, span: Span, message: impl Into<String>) {
        self.diags.push(level, self.file, span, message.into());
    }
}

impl Drop for Diagnostics {
    fn drop(&mut self) {
        let lost = self.list.get_mut().len();
        if lost > 0 && !std::thread::panicking() {
            panic!("toolcall-build bug: {lost} diagnostic(s) dropped without being reported");
        }
    }
}
