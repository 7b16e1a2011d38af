//! The crate's module tree: every module the build reaches from `src/lib.rs` or
//! `src/main.rs`, with the types it declares and the names it imports.
//!
//! The walk follows `mod x;` the way rustc does (`x.rs`, `x/mod.rs`, `#[path]`, inline
//! `mod x { .. }`) and reads only the files it reaches. The tool files are not walked
//! again: they arrive as tool sources and join the tree under the tools' module root.
//! Once every module is known, each type written in a struct field or alias is resolved
//! in its own module ([`resolve`]) and rewritten as a path from the crate root, so the
//! later stages read one crate-wide table and never a file's imports.

pub mod resolve;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::ast::Container;
use crate::ast::docs::Scope;
use crate::diagnostics::{Diagnostics, Level};
use crate::parse::{MAX_BRACKET_DEPTH, ParsedFile};

/// A module path from the crate root: `["models", "task"]` is `crate::models::task`.
pub type ModPath = Vec<String>;

/// The most files one walk reads (a guard against `#[path]` loops and runaway trees).
pub const MAX_FILES: usize = 10_000;

/// Reads a file of the crate by its path relative to the crate (`src/models.rs`).
pub type Loader<'l> = &'l (dyn Fn(&Path) -> Option<String> + Sync);

/// Every module the build knows, by path.
#[derive(Debug, Default)]
pub struct CrateTree {
    modules: BTreeMap<ModPath, Module>,
    /// The crate root was read: a path into a module the tree lacks is a missing module,
    /// not one the build did not look at.
    rooted: bool,
    /// The files read by the walk (tool files aside), for `rerun-if-changed`.
    files: Vec<PathBuf>,
}

/// One module: where it is written, what it declares and imports.
#[derive(Debug, Default)]
pub struct Module {
    /// The file it is written in (inline modules: the file holding them).
    pub file: PathBuf,
    /// Structs, enums and aliases by name.
    pub types: BTreeMap<String, Container>,
    /// Its `use` items, flattened.
    pub imports: Vec<Import>,
    /// Its `const` items by name (what a tool's default may name).
    pub consts: BTreeMap<String, syn::ItemConst>,
    /// The submodules it declares, with whether each is visible outside it.
    pub children: BTreeMap<String, bool>,
    /// The line of the last `mod` item written for it in its file (0 when none): where a
    /// missing declaration is reported, beside the others.
    pub last_mod_line: usize,
    /// It holds item macros or glob imports of other crates: a name the build cannot
    /// find here may still be here.
    pub opaque: bool,
}

/// One name a `use` item brings in.
#[derive(Clone, Debug)]
pub struct Import {
    /// The name in scope (`as` applied); `None` for a glob (`use a::*`).
    pub name: Option<String>,
    /// The path it names, as written (`crate::models::Task`, `super::x`, `chrono::NaiveDate`).
    pub target: Vec<String>,
    /// `pub use` (any `pub(..)`): a re-export, visible through this module.
    pub public: bool,
}

impl CrateTree {
    /// A tree of the source files alone: the crate root was not read. Each group is a
    /// directory's module root (`["tools"]`) and its parsed files.
    pub fn tools_only(groups: &[(&[String], &[ParsedFile])], diags: &Diagnostics) -> CrateTree {
        let mut tree = CrateTree::default();
        for (root, files) in groups {
            tree.add_tool_files(files, root, diags);
        }
        tree.finish();
        tree
    }

    /// Walks the crate from its root file (`src/lib.rs`, else `src/main.rs`) through
    /// `loader`, skipping each group's module root (its files are the group's: tools,
    /// prompts, resources), then adds those files. Without a root file, the tree holds
    /// the groups' files alone. A group with files whose module root the crate does not
    /// declare (no `mod resources;` in `src/main.rs`) is an error there
    /// ([`CrateTree::check_roots_declared`]).
    pub fn walk(loader: Loader<'_>, groups: &[(&[String], &[ParsedFile])], diags: &Diagnostics) -> CrateTree {
        let skip: Vec<&[String]> = groups.iter().map(|(root, _)| *root).collect();
        let mut walk = Walk { loader, skip: &skip, diags, tree: CrateTree::default(), seen: BTreeSet::new() };
        for candidate in ["src/lib.rs", "src/main.rs"] {
            let file = PathBuf::from(candidate);
            if let Some(text) = loader(&file) {
                walk.tree.rooted = true;
                walk.file(&file, text, Vec::new(), PathBuf::from("src"));
                break;
            }
        }
        let mut tree = walk.tree;
        tree.check_roots_declared(loader, groups, diags);
        for (root, files) in groups {
            tree.add_tool_files(files, root, diags);
        }
        tree.finish();
        tree
    }

    /// Reports each group with files whose module root the crate does not declare: rustc
    /// would compile none of its files and fail inside the generated `tools.rs`, with a hint
    /// that names another module. The error is at the module that lacks the `mod` item
    /// (beside its other `mod` items) and names the line to add. A crate root that does not
    /// declare it is looked at in both `src/lib.rs` and `src/main.rs` (the generated file may
    /// be included by either). A module the build cannot see all of (item macros) is not
    /// judged.
    fn check_roots_declared(
        &self,
        loader: Loader<'_>,
        groups: &[(&[String], &[ParsedFile])],
        diags: &Diagnostics,
    ) {
        if !self.rooted {
            return;
        }
        for (root, files) in groups {
            let Some(first) = files.first() else { continue };
            for (depth, name) in root.iter().enumerate() {
                let parent = &root[..depth];
                let Some(module) = self.modules.get(parent) else { break };
                if module.children.contains_key(name) {
                    continue;
                }
                if module.opaque || (parent.is_empty() && other_root_declares(loader, &module.file, name)) {
                    break;
                }
                let keyword = if parent.is_empty() { "mod" } else { "pub mod" };
                let path = root.join("::");
                let message = format!(
                    "`{}` does not declare `{keyword} {name};`, so the files of `{}` (module `crate::{path}`) \
                     are not compiled and the generated code cannot reach them: add `{keyword} {name};` to `{}`",
                    display(&module.file),
                    display(&group_dir(first)),
                    display(&module.file),
                );
                diags.at(Level::Error, &module.file, module.last_mod_line.max(1), 1, message);
                break;
            }
        }
    }

    /// The files the walk read (tool files aside), in the order read.
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }

    /// The module at `path`, when the build read it.
    pub fn module(&self, path: &[String]) -> Option<&Module> {
        self.modules.get(path)
    }

    /// The type declared as `name` in `module`.
    pub fn type_in(&self, module: &[String], name: &str) -> Option<&Container> {
        self.modules.get(module)?.types.get(name)
    }

    /// Registers each tool file as the module `root::<its path>`, with its parents.
    fn add_tool_files(&mut self, tools: &[ParsedFile], root: &[String], diags: &Diagnostics) {
        for parsed in tools {
            let mut path = root.to_vec();
            path.extend(parsed.module.iter().cloned());
            self.declare_parents(&path);
            let module = self.modules.entry(path.clone()).or_default();
            module.file = parsed.file.clone();
            let mut reader = Items { file: &parsed.file, diags, follow: None, inline: false };
            reader.read(self, &path, &parsed.ast.items);
        }
    }

    /// Records `path`'s ancestors as holding it (visible: tool modules are `pub mod`).
    fn declare_parents(&mut self, path: &[String]) {
        for end in 1..=path.len() {
            let (parent, name) = (&path[..end - 1], &path[end - 1]);
            let entry = self.modules.entry(parent.to_vec()).or_default();
            entry.children.entry(name.clone()).or_insert(true);
        }
    }

    /// Rewrites every field and alias type as a path from the crate root, each in the
    /// scope of the module that declares it.
    fn finish(&mut self) {
        let opaque: Vec<ModPath> =
            self.modules.keys().filter(|path| self.has_outside_glob(path)).cloned().collect();
        for path in opaque {
            if let Some(module) = self.modules.get_mut(&path) {
                module.opaque = true;
            }
        }
        let mut rewritten: Vec<(ModPath, String, Container)> = Vec::new();
        for (path, module) in &self.modules {
            for (name, container) in &module.types {
                let mut container = container.clone();
                let generics: Vec<String> =
                    container.generics.type_params().map(|p| p.ident.to_string()).collect();
                container.rewrite_types(|ty| resolve::Resolver::new(self, path).absolute(ty, &generics));
                rewritten.push((path.clone(), name.clone(), container));
            }
        }
        for (path, name, container) in rewritten {
            if let Some(module) = self.modules.get_mut(&path) {
                module.types.insert(name, container);
            }
        }
    }
}

/// The walk's state: what it reads with, what it skips, what it has read.
struct Walk<'w> {
    loader: Loader<'w>,
    skip: &'w [&'w [String]],
    diags: &'w Diagnostics,
    tree: CrateTree,
    seen: BTreeSet<PathBuf>,
}

impl Walk<'_> {
    /// Reads module `module` from `file`; its `mod x;` files are looked for in `dir`.
    fn file(&mut self, file: &Path, text: String, module: ModPath, dir: PathBuf) {
        if !self.seen.insert(file.to_owned()) || self.seen.len() > MAX_FILES {
            return;
        }
        if crate::parse::bracket_depth(&text).0 > MAX_BRACKET_DEPTH {
            return;
        }
        // A file rustc cannot parse fails the build there; its types are not looked at.
        let Ok(ast) = syn::parse_file(&text) else { return };
        self.tree.files.push(file.to_owned());
        self.tree.modules.entry(module.clone()).or_default().file = file.to_owned();
        let mut pending = Vec::new();
        let mut reader = Items { file, diags: self.diags, follow: Some((&mut pending, dir)), inline: false };
        reader.read(&mut self.tree, &module, &ast.items);
        for (child, candidates, child_dir) in pending {
            if self.skip.iter().any(|root| !root.is_empty() && child.starts_with(root)) {
                continue;
            }
            let found = candidates.iter().find_map(|path| (self.loader)(path).map(|text| (path, text)));
            if let Some((path, text)) = found {
                self.file(path, text, child, child_dir);
            }
        }
    }
}

/// A `mod x;` to read: its module path, the files it may be in (the first found is it),
/// and where its own `mod`s are looked for.
type Pending = (ModPath, Vec<PathBuf>, PathBuf);

/// Reads the items of one module (file or inline block).
struct Items<'r> {
    file: &'r Path,
    diags: &'r Diagnostics,
    /// Where `mod x;` files are looked for, and the list they go to; `None` for tool
    /// files, whose submodules are tool files of their own.
    follow: Option<(&'r mut Vec<Pending>, PathBuf)>,
    /// Inside an inline `mod x { .. }` block (where `#[path]` is relative to `follow`'s folder).
    inline: bool,
}

impl Items<'_> {
    fn read(&mut self, tree: &mut CrateTree, module: &[String], items: &[syn::Item]) {
        // What the docs of its types may link to by name.
        let scope = Scope::of_items(items);
        for item in items {
            match item {
                syn::Item::Struct(_) | syn::Item::Enum(_) | syn::Item::Type(_) => {
                    if let Some(mut container) = Container::from_item(item, self.file, &scope, self.diags) {
                        container.module = module.to_vec();
                        container.file = self.file.to_owned();
                        let entry = tree.modules.entry(module.to_vec()).or_default();
                        entry.types.insert(container.ident.to_string(), container);
                    }
                }
                syn::Item::Use(u) => {
                    let public = visible_from_root(&u.vis, module);
                    let mut found = Vec::new();
                    flatten_use(&u.tree, Vec::new(), public, &mut found);
                    let entry = tree.modules.entry(module.to_vec()).or_default();
                    entry.imports.extend(found);
                }
                syn::Item::Const(c) => {
                    let entry = tree.modules.entry(module.to_vec()).or_default();
                    entry.consts.insert(c.ident.to_string(), c.clone());
                }
                syn::Item::Macro(m) if !m.mac.path.is_ident("macro_rules") => {
                    tree.modules.entry(module.to_vec()).or_default().opaque = true;
                }
                syn::Item::Mod(m) => self.module(tree, module, m),
                _ => {}
            }
        }
    }

    /// A `mod` item: inline ones are read here; file ones are queued with their files.
    fn module(&mut self, tree: &mut CrateTree, parent: &[String], item: &syn::ItemMod) {
        let name = crate::ast::unraw(&item.ident);
        let mut path = parent.to_vec();
        path.push(name.clone());
        let visible = visible_from_root(&item.vis, parent);
        let declaring = tree.modules.entry(parent.to_vec()).or_default();
        declaring.children.insert(name.clone(), visible);
        if !self.inline {
            declaring.last_mod_line = declaring.last_mod_line.max(item.ident.span().start().line);
        }
        match &item.content {
            Some((_, items)) => {
                tree.modules.entry(path.clone()).or_default().file = self.file.to_owned();
                let follow = self.follow.as_mut().map(|(pending, dir)| (&mut **pending, dir.join(&name)));
                let mut inner = Items { file: self.file, diags: self.diags, follow, inline: true };
                inner.read(tree, &path, items);
            }
            None => {
                let inline = self.inline;
                let Some((pending, dir)) = self.follow.as_mut() else { return };
                let queued = match path_attribute(&item.attrs) {
                    // Outside inline blocks a `#[path]` is relative to the file's folder;
                    // the file it names looks for its own `mod`s beside it, as a `mod.rs`.
                    Some(relative) => {
                        let base = if inline { dir.clone() } else { folder(self.file) };
                        let file = base.join(relative);
                        let child_dir = folder(&file);
                        (path, vec![file], child_dir)
                    }
                    None => {
                        let candidates = vec![dir.join(format!("{name}.rs")), dir.join(&name).join("mod.rs")];
                        (path, candidates, dir.join(&name))
                    }
                };
                pending.push(queued);
            }
        }
    }
}

/// Whether an item declared in `module` with visibility `vis` can be named from every
/// module of the crate (where the generated toolset is): `pub`, `pub(crate)`,
/// `pub(in crate)`, `pub(super)` one level down, or anything at the crate root.
fn visible_from_root(vis: &syn::Visibility, module: &[String]) -> bool {
    let scope: Option<usize> = match vis {
        syn::Visibility::Public(_) => Some(0),
        syn::Visibility::Inherited => Some(module.len()),
        syn::Visibility::Restricted(r) if r.path.is_ident("crate") => Some(0),
        syn::Visibility::Restricted(r) if r.path.is_ident("self") => Some(module.len()),
        syn::Visibility::Restricted(r) if r.path.is_ident("super") => module.len().checked_sub(1),
        syn::Visibility::Restricted(r) => {
            let names: Vec<String> = r.path.segments.iter().map(|s| s.ident.to_string()).collect();
            match names.split_first() {
                Some((first, rest)) if first == "crate" => Some(rest.len()),
                _ => None,
            }
        }
    };
    // The scope is the module `depth` names deep on this module's path: only the
    // crate root's (depth 0) holds every module.
    scope == Some(0)
}

/// Whether the crate root other than `read` (`src/main.rs` beside `src/lib.rs`, and back)
/// declares module `name`, or cannot be read all.
fn other_root_declares(loader: Loader<'_>, read: &Path, name: &str) -> bool {
    let other = if read == Path::new("src/lib.rs") { "src/main.rs" } else { "src/lib.rs" };
    let Some(text) = loader(Path::new(other)) else { return false };
    let Ok(ast) = syn::parse_file(&text) else { return true };
    ast.items.iter().any(|item| match item {
        syn::Item::Mod(m) => crate::ast::unraw(&m.ident) == name,
        syn::Item::Macro(m) => !m.mac.path.is_ident("macro_rules"),
        _ => false,
    })
}

/// The directory of a group whose file `first` is: its path less its module path below the
/// group's root (`src/resources/recipes.rs` -> `src/resources`).
fn group_dir(first: &ParsedFile) -> PathBuf {
    let is_mod_rs = first.file.file_name().is_some_and(|name| name == "mod.rs");
    let below = if is_mod_rs { first.module.len() } else { first.module.len().saturating_sub(1) };
    let folder = folder(&first.file);
    folder.ancestors().nth(below).map_or(folder.clone(), Path::to_path_buf)
}

/// A path as diagnostics write it (`/` on every platform).
fn display(path: &Path) -> String {
    path.display().to_string().replace('\\', "/")
}

/// The folder holding `file`.
fn folder(file: &Path) -> PathBuf {
    file.parent().map(Path::to_path_buf).unwrap_or_default()
}

/// The value of a `#[path = ".."]` attribute.
fn path_attribute(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find(|a| a.path().is_ident("path")).and_then(|a| match &a.meta {
        syn::Meta::NameValue(nv) => match &nv.value {
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// Every name a `use` tree brings in, with the path it names.
fn flatten_use(tree: &syn::UseTree, prefix: Vec<String>, public: bool, out: &mut Vec<Import>) {
    let with = |name: String| {
        let mut target = prefix.clone();
        target.push(name);
        target
    };
    match tree {
        syn::UseTree::Path(p) => flatten_use(&p.tree, with(p.ident.to_string()), public, out),
        syn::UseTree::Name(n) if n.ident == "self" => {
            if let Some(last) = prefix.last() {
                out.push(Import { name: Some(last.clone()), target: prefix.clone(), public });
            }
        }
        syn::UseTree::Name(n) => {
            out.push(Import { name: Some(n.ident.to_string()), target: with(n.ident.to_string()), public })
        }
        syn::UseTree::Rename(r) => {
            let target = if r.ident == "self" { prefix.clone() } else { with(r.ident.to_string()) };
            if r.rename != "_" {
                out.push(Import { name: Some(r.rename.to_string()), target, public });
            }
        }
        syn::UseTree::Glob(_) => out.push(Import { name: None, target: prefix, public }),
        syn::UseTree::Group(g) => {
            g.items.iter().for_each(|item| flatten_use(item, prefix.clone(), public, out))
        }
    }
}

/// The tree of a crate given as `(path, text)` pairs, tools under `crate::tools` (tests).
#[cfg(test)]
pub(crate) fn from_files(files: &[(&str, &str)]) -> CrateTree {
    let files: BTreeMap<PathBuf, String> =
        files.iter().map(|(p, t)| (PathBuf::from(p), (*t).to_owned())).collect();
    let loader = |path: &Path| files.get(path).cloned();
    let root = ["tools".to_owned()];
    CrateTree::walk(&loader, &[(&root, &[])], &Diagnostics::default())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn tree(files: &[(&str, &str)]) -> CrateTree {
        from_files(files)
    }

    fn names(tree: &CrateTree) -> Vec<String> {
        tree.modules.keys().map(|k| k.join("::")).collect()
    }

    #[test]
    fn the_walk_follows_every_module_layout() {
        let tree = tree(&[
            ("src/lib.rs", "mod models; #[path = \"other/place.rs\"] mod placed; mod inline { mod deep; }"),
            ("src/models/mod.rs", "pub mod task; pub struct Page;"),
            ("src/models/task.rs", "pub struct Task; mod sub;"),
            ("src/models/task/sub.rs", "pub struct Sub;"),
            ("src/other/place.rs", "pub struct Placed; mod near;"),
            ("src/other/near.rs", "pub struct Near;"),
            ("src/inline/deep.rs", "pub struct Deep;"),
            ("src/unreached.rs", "pub struct Never;"),
        ]);
        assert_eq!(
            names(&tree),
            [
                "",
                "inline",
                "inline::deep",
                "models",
                "models::task",
                "models::task::sub",
                "placed",
                "placed::near"
            ]
        );
        assert!(tree.type_in(&["models".into(), "task".into(), "sub".into()], "Sub").is_some());
        assert!(tree.type_in(&["placed".into(), "near".into()], "Near").is_some());
        assert!(tree.type_in(&["inline".into(), "deep".into()], "Deep").is_some());
        assert!(!tree.files().contains(&PathBuf::from("src/unreached.rs")));
    }

    #[test]
    fn the_tools_module_is_not_walked() {
        let tree = tree(&[("src/main.rs", "mod tools;"), ("src/tools/mod.rs", "pub struct X;")]);
        assert!(tree.module(&["tools".to_owned()]).is_none_or(|m| m.types.is_empty()));
    }

    #[test]
    fn use_trees_are_flattened() {
        let tree = tree(&[
            ("src/lib.rs", "mod m;"),
            ("src/m.rs", "use a::{b::{C, D as E}, f::*, g::{self}}; pub use h::I; use j::k as _;"),
        ]);
        // Outside the crate root, only a `pub use` is seen from the whole crate.
        let root = tree.module(&["m".to_owned()]).unwrap();
        let seen: Vec<String> = root
            .imports
            .iter()
            .map(|i| {
                format!(
                    "{}={}{}",
                    i.name.as_deref().unwrap_or("*"),
                    i.target.join("::"),
                    if i.public { "+" } else { "" }
                )
            })
            .collect();
        assert_eq!(seen, ["C=a::b::C", "E=a::b::D", "*=a::f", "g=a::g", "I=h::I+"]);
    }
}
