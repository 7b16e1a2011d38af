//! Module declarations: a tool, prompt or resource file that its parent module does not
//! declare is never compiled, so the generated code could not reach its functions and rustc
//! would fail inside `tools.rs` (E0433). This stage says so first, at the file, naming the
//! line to add. (A crate root without `mod tools;`, `mod prompts;` or `mod resources;` is
//! the crate tree's to report: `tree::CrateTree::walk`.)
//!
//! Takes every file of one directory (and its root's own module file when it lives outside
//! the directory, `src/tools.rs`); gives a located error for each file whose parent
//! module file (`mod.rs` or `parent.rs`, or an inline `mod parent { .. }`) has no
//! `mod name` item, and for a `mod name;` that is private. When the root module file is
//! not at hand (the tools root is declared inline elsewhere), top-level files are not
//! checked.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::diagnostics::{Diagnostics, Level};
use crate::parse::{module_ident, module_path};
use crate::records::SourceFile;

/// A module file as diagnostics name it, with its text.
#[derive(Clone, Debug)]
pub struct ModuleFile {
    /// The file (`src/tools.rs`).
    pub path: PathBuf,
    /// Its contents.
    pub text: String,
}

/// What is known about the items of one module.
#[derive(Clone)]
enum Scope {
    /// Its items, and the file they are written in.
    Known(PathBuf, Vec<syn::Item>),
    /// No file and no inline module holds it: nothing declares it.
    Missing,
    /// Not known here (no root module file, or one that does not parse).
    Unknown,
}

/// Reports every tool file its parent module does not declare (an error at the file) and
/// every private `mod name;` of a tool file (an error at the declaration).
pub fn check_declared(sources: &[SourceFile], root: Option<&ModuleFile>, diags: &Diagnostics) {
    let mut files: BTreeMap<Vec<String>, ModuleFile> = BTreeMap::new();
    for source in sources {
        let file = ModuleFile { path: source.path.clone(), text: source.text.clone() };
        files.entry(module_path(&source.relative)).or_insert(file);
    }
    if let Some(root) = root {
        files.entry(Vec::new()).or_insert_with(|| root.clone());
    }
    let mut scopes = BTreeMap::new();
    let mut checked = Vec::new();
    for source in sources {
        let module = module_path(&source.relative);
        let Some((name, parent)) = module.split_last() else { continue };
        if checked.contains(&module) || module.iter().any(|segment| module_ident(segment).is_none()) {
            continue;
        }
        checked.push(module.clone());
        let parent_scope = scope(parent, &files, &mut scopes);
        check_one(source, name, parent, &parent_scope, diags);
    }
}

/// Checks that the module of `source`, `name` inside `parent`, is declared and visible.
fn check_one(source: &SourceFile, name: &str, parent: &[String], scope: &Scope, diags: &Diagnostics) {
    let ident = module_ident(name).map_or_else(|| name.to_owned(), |i| i.to_string());
    let here = display(&source.path);
    match scope {
        Scope::Unknown => {}
        Scope::Known(file, items) => match declaration(items, name) {
            None => diags.at(
                Level::Error,
                &source.path,
                1,
                1,
                format!(
                    "`{here}` is not declared as a module, so it is not compiled and the generated \
                     code cannot reach its functions: add `pub mod {ident};` to `{}`",
                    display(file)
                ),
            ),
            Some(item) if matches!(item.vis, syn::Visibility::Inherited) && item.content.is_none() => {
                diags.error(
                    file,
                    item.ident.span(),
                    format!(
                        "`mod {ident};` is private, so the generated code cannot reach the functions \
                         of `{here}`: make it `pub mod {ident};`"
                    ),
                );
            }
            Some(_) => {}
        },
        Scope::Missing => {
            let dir = tools_dir(source).join(parent.join("/"));
            diags.at(
                Level::Error,
                &source.path,
                1,
                1,
                format!(
                    "`{here}` is in module `{}`, which no file declares, so it is not compiled: add \
                     `{}` holding `pub mod {ident};`, and declare `pub mod {};` in its parent",
                    parent.join("::"),
                    display(&dir.join("mod.rs")),
                    parent.last().map_or("", String::as_str),
                ),
            );
        }
    }
}

/// The `mod name` item among `items` (declared with `;` or inline).
fn declaration<'i>(items: &'i [syn::Item], name: &str) -> Option<&'i syn::ItemMod> {
    items.iter().find_map(|item| match item {
        syn::Item::Mod(m) if crate::ast::unraw(&m.ident) == name => Some(m),
        _ => None,
    })
}

/// The items of module `path`: its file's, or its inline body in its parent's.
fn scope(
    path: &[String],
    files: &BTreeMap<Vec<String>, ModuleFile>,
    memo: &mut BTreeMap<Vec<String>, Scope>,
) -> Scope {
    if let Some(known) = memo.get(path) {
        return known.clone();
    }
    let found = match files.get(path) {
        Some(file) => match syn::parse_file(&file.text) {
            Ok(ast) => Scope::Known(file.path.clone(), ast.items),
            Err(_) => Scope::Unknown,
        },
        None => match path.split_last() {
            None => Scope::Unknown,
            Some((name, parent)) => match scope(parent, files, memo) {
                Scope::Known(file, items) => match declaration(&items, name).and_then(|m| m.content.as_ref())
                {
                    Some((_, inline)) => Scope::Known(file, inline.clone()),
                    None => Scope::Missing,
                },
                other => other,
            },
        },
    };
    memo.insert(path.to_vec(), found.clone());
    found
}

/// The tools directory as diagnostics name it: the file's path less its relative part.
fn tools_dir(source: &SourceFile) -> PathBuf {
    let depth = source.relative.components().count();
    source.path.ancestors().nth(depth).map_or_else(PathBuf::new, Path::to_path_buf)
}

fn display(path: &Path) -> String {
    path.display().to_string().replace('\\', "/")
}
