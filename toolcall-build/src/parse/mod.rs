//! Parse stage: tool files -> syn trees, with the file's consts and imports at hand.
//!
//! Takes the text of every `.rs` file under the tools directory and gives a [`ParsedFile`]
//! per file. It only parses: what a tool, a type or a default is, is read from these trees
//! in the ast stage.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::diagnostics::{Diagnostics, Level};

/// One tool file after parsing.
#[derive(Clone, Debug)]
pub struct ParsedFile {
    /// The file as the build names it (relative to the crate).
    pub file: PathBuf,
    /// Module path below the tools root.
    pub module: Vec<String>,
    /// The syn tree.
    pub ast: syn::File,
    /// `const` items by name.
    pub consts: BTreeMap<String, syn::ItemConst>,
    /// Imported names: `NaiveDate` -> `chrono::NaiveDate`.
    pub imports: BTreeMap<String, String>,
}

/// The module path for a file relative to the tools dir: `billing/invoices.rs` ->
/// `["billing", "invoices"]`, `billing/mod.rs` -> `["billing"]`, `mod.rs` -> `[]`.
pub fn module_path(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> =
        relative.iter().map(|p| p.to_string_lossy().trim_end_matches(".rs").to_owned()).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// Brackets nested deeper than this are refused before syn sees the file: syn parses
/// recursively, and hostile input must end in a diagnostic, not a stack overflow.
pub const MAX_BRACKET_DEPTH: usize = 256;

/// The deepest nesting of `(`, `[` and `{` in `text` (an over-estimate: brackets inside
/// strings and comments count too), with the 1-based line where it is first exceeded.
pub(crate) fn bracket_depth(text: &str) -> (usize, usize) {
    let (mut depth, mut deepest, mut line, mut at) = (0usize, 0usize, 1usize, 1usize);
    for byte in text.bytes() {
        match byte {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > deepest {
                    deepest = depth;
                    at = line;
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b'\n' => line += 1,
            _ => {}
        }
    }
    (deepest, at)
}

/// The words syn refuses as identifiers (Rust's keywords but `gen`, which syn reads as
/// one): a module or type named so is written raw (`r#type`), or cannot be written at all
/// (`self`, `super`, `crate`, `Self`, `_`).
const KEYWORDS: &[&str] = &[
    "_", "Self", "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "if", "impl", "in", "let", "loop",
    "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref", "return", "self", "static",
    "struct", "super", "trait", "true", "try", "type", "typeof", "unsafe", "unsized", "use", "virtual",
    "where", "while", "yield",
];

/// Whether `name` is an ASCII identifier that is no keyword: what almost every module and
/// type is called, told apart without running syn's lexer (this is asked for every path
/// segment the build resolves).
fn is_plain_ident(name: &str) -> bool {
    let bytes = name.as_bytes();
    let starts_well = bytes.first().is_some_and(|&b| b == b'_' || b.is_ascii_alphabetic());
    starts_well && bytes.iter().all(|&b| b == b'_' || b.is_ascii_alphanumeric()) && !KEYWORDS.contains(&name)
}

/// A module path segment as an identifier: `type` becomes `r#type`; names that are not
/// identifiers (`my-tools`, `2fa`) give `None`.
pub fn module_ident(segment: &str) -> Option<syn::Ident> {
    if is_plain_ident(segment) {
        return Some(syn::Ident::new(segment, proc_macro2::Span::call_site()));
    }
    if KEYWORDS.contains(&segment) {
        let unnameable = matches!(segment, "self" | "super" | "crate" | "Self" | "_");
        return (!unnameable).then(|| syn::Ident::new_raw(segment, proc_macro2::Span::call_site()));
    }
    if let Ok(ident) = syn::parse_str::<syn::Ident>(segment) {
        return Some(ident);
    }
    let raw = format!("r#{segment}");
    match syn::parse_str::<syn::Ident>(&raw) {
        Ok(_) if !matches!(segment, "self" | "super" | "crate" | "Self" | "_") => {
            Some(syn::Ident::new_raw(segment, proc_macro2::Span::call_site()))
        }
        _ => None,
    }
}

/// Parses one file. A syntax error is reported at its line and the file is skipped.
pub fn parse_file(file: &Path, module: Vec<String>, text: &str, diags: &Diagnostics) -> Option<ParsedFile> {
    if let Some(bad) = module.iter().find(|segment| module_ident(segment).is_none()) {
        diags.at(
            Level::Warning,
            file,
            1,
            1,
            format!("`{bad}` is not a Rust module name; this file is skipped"),
        );
        return None;
    }
    let (depth, line) = bracket_depth(text);
    if depth > MAX_BRACKET_DEPTH {
        let message = format!(
            "brackets nest {depth} deep; toolcall reads at most {MAX_BRACKET_DEPTH} levels, so this file is skipped"
        );
        diags.at(Level::Error, file, line, 1, message);
        return None;
    }
    let ast = match syn::parse_file(text) {
        Ok(ast) => ast,
        Err(error) => {
            diags.error(
                file,
                error.span(),
                format!("cannot parse this tool file: {}", explain_parse_error(&error)),
            );
            return None;
        }
    };
    let mut parsed =
        ParsedFile { file: file.to_owned(), module, consts: BTreeMap::new(), imports: BTreeMap::new(), ast };
    collect_items(&mut parsed);
    Some(parsed)
}

/// syn's message, made actionable where the lexer's own is not.
fn explain_parse_error(error: &syn::Error) -> String {
    let message = error.to_string();
    if message.contains("cannot parse string into token stream") {
        "unbalanced delimiters or an invalid token (an unclosed `(`, `[`, `{`, string or comment?)".to_owned()
    } else {
        message
    }
}

fn collect_items(parsed: &mut ParsedFile) {
    for item in &parsed.ast.items {
        match item {
            syn::Item::Const(c) => {
                parsed.consts.insert(c.ident.to_string(), c.clone());
            }
            syn::Item::Use(u) => collect_imports(&u.tree, String::new(), &mut parsed.imports),
            _ => {}
        }
    }
}

/// `path` with the file's `use` imports (name -> full path) applied to its first segment:
/// `NaiveDate` -> `chrono::NaiveDate`, `state::App` -> `crate::state::App`.
pub fn resolve(imports: &BTreeMap<String, String>, path: &syn::Path) -> String {
    let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    match names.first().and_then(|first| imports.get(first)) {
        Some(full) => {
            std::iter::once(full.clone()).chain(names[1..].iter().cloned()).collect::<Vec<_>>().join("::")
        }
        None => names.join("::"),
    }
}

/// Records every name a `use` tree brings into scope with its full path.
fn collect_imports(tree: &syn::UseTree, prefix: String, out: &mut BTreeMap<String, String>) {
    let join = |name: &str| if prefix.is_empty() { name.to_owned() } else { format!("{prefix}::{name}") };
    match tree {
        syn::UseTree::Path(path) => collect_imports(&path.tree, join(&path.ident.to_string()), out),
        syn::UseTree::Name(name) => {
            out.insert(name.ident.to_string(), join(&name.ident.to_string()));
        }
        syn::UseTree::Rename(rename) => {
            out.insert(rename.rename.to_string(), join(&rename.ident.to_string()));
        }
        syn::UseTree::Group(group) => {
            for item in &group.items {
                collect_imports(item, prefix.clone(), out);
            }
        }
        syn::UseTree::Glob(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_paths_mirror_the_file_tree() {
        assert_eq!(module_path(Path::new("weather.rs")), vec!["weather"]);
        assert_eq!(module_path(Path::new("billing/invoices.rs")), vec!["billing", "invoices"]);
        assert_eq!(module_path(Path::new("billing/mod.rs")), vec!["billing"]);
        assert!(module_path(Path::new("mod.rs")).is_empty());
    }

    #[test]
    fn imports_are_resolved_to_full_paths() {
        let diags = Diagnostics::default();
        let text = "use chrono::{NaiveDate, DateTime as Dt}; use crate::money::Money;";
        let parsed = parse_file(Path::new("t.rs"), vec![], text, &diags).unwrap();
        assert_eq!(parsed.imports["NaiveDate"], "chrono::NaiveDate");
        assert_eq!(parsed.imports["Dt"], "chrono::DateTime");
        assert_eq!(parsed.imports["Money"], "crate::money::Money");
    }

    #[test]
    fn a_syntax_error_is_an_error_with_its_line() {
        let diags = Diagnostics::default();
        assert!(parse_file(Path::new("bad.rs"), vec![], "pub fn f( {", &diags).is_none());
        let all = diags.into_sorted();
        assert_eq!(all.len(), 1);
        assert!(all[0].to_string().starts_with("bad.rs:1:"), "{}", all[0]);
    }

    #[test]
    fn module_names_become_identifiers() {
        assert_eq!(module_ident("weather").unwrap().to_string(), "weather");
        assert_eq!(module_ident("type").unwrap().to_string(), "r#type");
        assert!(module_ident("my-tools").is_none());
        assert!(module_ident("self").is_none());
        assert!(module_ident("2fa").is_none());
    }

    /// What syn alone makes of a name: the path `module_ident` took for every name before
    /// plain identifiers were told apart without it.
    fn ident_by_syn(segment: &str) -> Option<String> {
        if let Ok(ident) = syn::parse_str::<syn::Ident>(segment) {
            return Some(ident.to_string());
        }
        let raw = syn::parse_str::<syn::Ident>(&format!("r#{segment}")).ok()?;
        (!matches!(segment, "self" | "super" | "crate" | "Self" | "_")).then(|| raw.to_string())
    }

    #[test]
    fn plain_identifiers_read_as_syn_reads_them() {
        let words = [
            "weather",
            "_private",
            "x1",
            "Tools",
            "r",
            "union",
            "default",
            "auto",
            "raw",
            "safe",
            "macro_rules",
            "gen",
            "static_",
            "type2",
            "__",
            "é",
            "ünï",
            "r#type",
            "a-b",
            "1a",
            "",
        ];
        for word in words.iter().chain(KEYWORDS) {
            assert_eq!(module_ident(word).map(|i| i.to_string()), ident_by_syn(word), "{word:?}");
        }
        // Every word syn refuses as an identifier is a keyword here, so no plain name passes
        // that syn would write raw.
        let lowercase = ('a'..='z').map(|c| c.to_string());
        let two_letters = ('a'..='z').flat_map(|a| ('a'..='z').map(move |b| format!("{a}{b}")));
        for word in lowercase.chain(two_letters) {
            assert_eq!(module_ident(&word).map(|i| i.to_string()), ident_by_syn(&word), "{word:?}");
        }
    }

    #[test]
    fn deep_nesting_is_refused_before_parsing() {
        let diags = Diagnostics::default();
        let text = format!("pub fn f() {{ let x = {}1{}; }}", "(".repeat(100_000), ")".repeat(100_000));
        assert!(parse_file(Path::new("deep.rs"), vec![], &text, &diags).is_none());
        let all = diags.into_sorted();
        assert!(all[0].message.contains("brackets nest"), "{}", all[0]);
        assert!(all[0].level == Level::Error);
    }

    #[test]
    fn files_that_are_not_modules_are_skipped_with_a_warning() {
        let diags = Diagnostics::default();
        assert!(
            parse_file(Path::new("my-tools.rs"), vec!["my-tools".into()], "pub fn f() {}", &diags).is_none()
        );
        assert!(diags.into_sorted()[0].message.contains("not a Rust module name"));
    }
}
