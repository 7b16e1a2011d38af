//! Running the generator on tool files given as text, and finding its diagnostics: the
//! fixtures of the build-time check tests (`check_stage.rs`, `build_checks.rs`).

use std::path::PathBuf;

use toolcall_build::{Builder, Diagnostic, Generated, Level, ProvidedType, SourceFile, TypeProvider};
use toolcall_runtime::ir::Type;

/// A type provider given as a function.
pub struct FnProvider(pub fn(&str, &[Type]) -> Option<ProvidedType>);

impl TypeProvider for FnProvider {
    fn resolve(&self, path: &str, args: &[Type]) -> Option<ProvidedType> {
        (self.0)(path, args)
    }
}

/// Generates from `files` (`(name relative to src/tools, text)`), with `provider` if given.
///
/// # Panics
///
/// When generation cannot start (it never should for valid module paths).
pub fn generate(files: &[(&str, &str)], provider: Option<FnProvider>) -> Generated {
    let sources = files
        .iter()
        .map(|(relative, text)| SourceFile {
            path: PathBuf::from("src/tools").join(relative),
            relative: PathBuf::from(relative),
            text: (*text).to_owned(),
        })
        .collect();
    let builder = match provider {
        Some(provider) => Builder::new().type_provider(provider),
        None => Builder::new(),
    };
    builder.generate_from(sources).unwrap_or_else(|e| panic!("generation did not start: {e}"))
}

/// The 1-based line of the first line of `text` containing `needle`.
///
/// # Panics
///
/// When no line contains it.
pub fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .map(|i| i + 1)
        .unwrap_or_else(|| panic!("no line has {needle:?}"))
}

/// The diagnostic of `level` at `file:line` whose message contains every needle; on
/// failure, a message listing every diagnostic there was.
pub fn find<'g>(
    generated: &'g Generated,
    level: Level,
    file: &str,
    line: usize,
    needles: &[&str],
) -> Result<&'g Diagnostic, String> {
    let wanted = PathBuf::from(file);
    generated
        .diagnostics
        .iter()
        .find(|d| {
            d.level == level
                && d.file == wanted
                && d.line == line
                && needles.iter().all(|n| d.message.contains(n))
        })
        .ok_or_else(|| {
            let all: Vec<String> =
                generated.diagnostics.iter().map(|d| format!("  {:?} {d}", d.level)).collect();
            format!(
                "no {level:?} at {file}:{line} containing {needles:?}; the diagnostics were:\n{}",
                all.join("\n")
            )
        })
}
