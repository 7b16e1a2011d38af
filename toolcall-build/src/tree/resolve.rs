//! Path resolution, as rustc does it for types: `crate::`, `self::`, `super::`, a name
//! declared in the module, a submodule, a `use` import (renamed, grouped, glob, or a
//! `pub use` re-export of another module), else a path of another crate or the prelude.
//!
//! [`Resolver::absolute`] rewrites a type so every path in it is absolute: a type of this
//! crate becomes `crate::<module>::<Name>` (where it is declared), an imported type of
//! another crate its full path (`chrono::NaiveDate`), and a prelude name stays as written.
//! A name the build can prove missing also becomes a `crate::` path, so the type mapper
//! finds no type there and says where it looked ([`CrateTree::explain_missing`]).

use syn::visit_mut::VisitMut;

use super::{CrateTree, ModPath};

/// How deep imports may lead to imports before a path counts as unresolvable (a `use`
/// cycle, which rustc rejects too).
const MAX_HOPS: usize = 32;

/// Names every Rust module sees without a `use`: primitive types and the prelude's.
const PRELUDE: &[&str] = &[
    "bool", "char", "str", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128",
    "usize", "f32", "f64", "String", "Vec", "Option", "Result", "Box", "Self",
];

/// What a path names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entity {
    /// A module of this crate.
    Module(ModPath),
    /// A type declared in a module of this crate.
    Type(ModPath, String),
    /// A `const` declared in a module of this crate.
    Const(ModPath, String),
    /// Something the tree does not hold: another crate's item, the prelude's, or a
    /// module the build did not read. The path as far as it is known.
    Outside(Vec<String>),
    /// Nothing: `module` was read and has no item named the first of the names, which
    /// the path goes on with.
    Missing(ModPath, Vec<String>),
}

/// Resolves paths written in one module.
pub struct Resolver<'t> {
    tree: &'t CrateTree,
    scope: &'t [String],
}

impl<'t> Resolver<'t> {
    /// A resolver for paths written in module `scope`.
    pub fn new(tree: &'t CrateTree, scope: &'t [String]) -> Self {
        Resolver { tree, scope }
    }

    /// `ty` with every path made absolute; `generics` are the type parameters in scope,
    /// which stay as written.
    pub fn absolute(&self, ty: &mut syn::Type, generics: &[String]) {
        Absolute { resolver: self, generics }.visit_type_mut(ty);
    }

    /// What `segments` (as written in this module) name.
    pub fn resolve(&self, segments: &[String]) -> Entity {
        self.tree.resolve_in(self.scope, segments, 0)
    }
}

/// The visitor behind [`Resolver::absolute`].
struct Absolute<'r, 't> {
    resolver: &'r Resolver<'t>,
    generics: &'r [String],
}

impl VisitMut for Absolute<'_, '_> {
    fn visit_type_path_mut(&mut self, ty: &mut syn::TypePath) {
        syn::visit_mut::visit_type_path_mut(self, ty);
        if ty.qself.is_some() || ty.path.leading_colon.is_some() {
            return;
        }
        let names = segment_names(&ty.path);
        if let [only] = names.as_slice()
            && self.generics.contains(only)
        {
            return;
        }
        let absolute = match self.resolver.resolve(&names) {
            Entity::Type(module, name) => {
                std::iter::once("crate".to_owned()).chain(module).chain(std::iter::once(name)).collect()
            }
            Entity::Missing(module, names) => {
                std::iter::once("crate".to_owned()).chain(module).chain(names).collect()
            }
            Entity::Outside(path) => path,
            Entity::Module(_) | Entity::Const(..) => return,
        };
        rewrite(&mut ty.path, &absolute);
    }
}

/// Replaces `path`'s segments with `names`, keeping the last segment's generic arguments.
fn rewrite(path: &mut syn::Path, names: &[String]) {
    if names.is_empty() {
        return;
    }
    let arguments = path.segments.last().map(|s| s.arguments.clone()).unwrap_or_default();
    let span = path.segments.first().map_or_else(proc_macro2::Span::call_site, |s| s.ident.span());
    let mut segments = syn::punctuated::Punctuated::new();
    for (index, name) in names.iter().enumerate() {
        let ident = ident(name, span);
        let arguments = if index + 1 == names.len() { arguments.clone() } else { syn::PathArguments::None };
        segments.push(syn::PathSegment { ident, arguments });
    }
    path.segments = segments;
}

/// `name` as an identifier (raw when it is a keyword).
fn ident(name: &str, span: proc_macro2::Span) -> syn::Ident {
    match crate::parse::module_ident(name) {
        Some(_) if name == "crate" || name == "self" || name == "super" => syn::Ident::new(name, span),
        Some(mut ident) => {
            ident.set_span(span);
            ident
        }
        None => syn::Ident::new(name, span),
    }
}

impl CrateTree {
    /// What `segments`, written in module `scope`, name.
    pub(super) fn resolve_in(&self, scope: &[String], segments: &[String], hops: usize) -> Entity {
        let Some((first, rest)) = segments.split_first() else { return Entity::Outside(Vec::new()) };
        if hops > MAX_HOPS {
            return Entity::Outside(segments.to_vec());
        }
        let start = match first.as_str() {
            "crate" => Entity::Module(Vec::new()),
            "self" => Entity::Module(scope.to_vec()),
            "super" => match scope.split_last() {
                Some((_, parent)) => Entity::Module(parent.to_vec()),
                None => return Entity::Outside(segments.to_vec()),
            },
            name => match self.member(scope, name, hops) {
                Some(found) => found,
                // A single name that is nowhere here is missing; the first of several names
                // is another crate's.
                None if rest.is_empty() && self.proves_missing(scope, name) => {
                    return Entity::Missing(scope.to_vec(), vec![name.to_owned()]);
                }
                None => return Entity::Outside(segments.to_vec()),
            },
        };
        rest.iter().fold(start, |at, segment| self.step(at, segment, hops))
    }

    /// One segment further from `at`.
    fn step(&self, at: Entity, segment: &str, hops: usize) -> Entity {
        match at {
            Entity::Module(module) if segment == "super" => match module.split_last() {
                Some((_, parent)) => Entity::Module(parent.to_vec()),
                None => Entity::Outside(vec!["super".to_owned()]),
            },
            Entity::Module(module) => match self.member(&module, segment, hops) {
                Some(found) => found,
                None if self.proves_missing(&module, segment) => {
                    Entity::Missing(module, vec![segment.to_owned()])
                }
                None => {
                    let mut outside = vec!["crate".to_owned()];
                    outside.extend(module);
                    outside.push(segment.to_owned());
                    Entity::Outside(outside)
                }
            },
            Entity::Outside(mut path) => {
                path.push(segment.to_owned());
                Entity::Outside(path)
            }
            // A path through a missing name stays missing, where it went missing.
            Entity::Missing(module, mut names) => {
                names.push(segment.to_owned());
                Entity::Missing(module, names)
            }
            // Associated items name nothing the build can describe.
            Entity::Type(module, name) | Entity::Const(module, name) => {
                let mut outside = vec!["crate".to_owned()];
                outside.extend(module);
                outside.push(name);
                outside.push(segment.to_owned());
                Entity::Outside(outside)
            }
        }
    }

    /// Whether a name not found in `module` is surely absent: the module was read, is
    /// not opaque (item macros, glob imports of other crates), and the name is not the
    /// prelude's.
    fn proves_missing(&self, module: &[String], name: &str) -> bool {
        if PRELUDE.contains(&name) {
            return false;
        }
        match self.modules.get(module) {
            Some(found) => {
                !found.opaque && !found.file.as_os_str().is_empty() && (self.rooted || !module.is_empty())
            }
            None => false,
        }
    }

    /// The item `name` of `module`: a type, a submodule, a named import or a name that a
    /// glob import brings. `None` when the module has none of these.
    fn member(&self, module: &[String], name: &str, hops: usize) -> Option<Entity> {
        let found = self.modules.get(module)?;
        if found.types.contains_key(name) {
            return Some(Entity::Type(module.to_vec(), name.to_owned()));
        }
        if found.children.contains_key(name) {
            let mut child = module.to_vec();
            child.push(name.to_owned());
            return Some(Entity::Module(child));
        }
        if found.consts.contains_key(name) {
            return Some(Entity::Const(module.to_vec(), name.to_owned()));
        }
        if let Some(import) = found.imports.iter().find(|i| i.name.as_deref() == Some(name)) {
            return Some(self.resolve_in(module, &import.target, hops + 1));
        }
        for glob in found.imports.iter().filter(|i| i.name.is_none()) {
            if let Entity::Module(source) = self.resolve_in(module, &glob.target, hops + 1)
                && source != module
                && let Some(found) = self.member(&source, name, hops + 1)
            {
                return Some(found);
            }
        }
        None
    }

    /// Whether a glob import in `module` names another crate (its names are unknown).
    pub(super) fn has_outside_glob(&self, module: &[String]) -> bool {
        self.modules.get(module).is_some_and(|found| {
            found
                .imports
                .iter()
                .filter(|i| i.name.is_none())
                .any(|glob| !matches!(self.resolve_in(module, &glob.target, 1), Entity::Module(_)))
        })
    }

    /// The type an absolute path (`crate::models::Task`) names, with its module.
    pub fn find_type(&self, path: &syn::Path) -> Option<(ModPath, &crate::ast::Container)> {
        let names = segment_names(path);
        let (first, rest) = names.split_first()?;
        let (name, module) = rest.split_last()?;
        if first != "crate" {
            return None;
        }
        self.type_in(module, name).map(|container| (module.to_vec(), container))
    }

    /// Why an absolute path names no type, when the build can tell: where it looked.
    /// `None` when the path leads outside what the build read.
    pub fn explain_missing(&self, path: &syn::Path) -> Option<String> {
        let names = segment_names(path);
        let (first, rest) = names.split_first()?;
        if first != "crate" || rest.is_empty() {
            return None;
        }
        // The deepest module of the crate on the path, and the name missing from it.
        let mut module: ModPath = Vec::new();
        for name in &rest[..rest.len() - 1] {
            let found = self.modules.get(&module)?;
            if !found.children.contains_key(name) {
                break;
            }
            module.push(name.clone());
        }
        let name = &rest[module.len()];
        if !self.proves_missing(&module, name) {
            return None;
        }
        let found = self.modules.get(&module)?;
        let what = if module.len() + 1 < rest.len() { "module" } else { "type" };
        let shown = if module.is_empty() {
            "the crate root".to_owned()
        } else {
            format!("`crate::{}`", module.join("::"))
        };
        let looked = if found.imports.is_empty() {
            "its items".to_owned()
        } else {
            "its items and `use` imports".to_owned()
        };
        Some(format!(
            "cannot find {what} `{name}` in {shown} ({}): looked at {looked}; declare it there or import it with `use`",
            found.file.display()
        ))
    }

    /// A path from the crate root by which code anywhere in the crate can name the type
    /// `name` of `module`: through visible modules and `pub use` re-exports, the
    /// shortest first. `None` when it is private to its module's parents.
    pub fn nameable_path(&self, module: &[String], name: &str) -> Option<Vec<String>> {
        let target = Entity::Type(module.to_vec(), name.to_owned());
        let mut frontier: Vec<ModPath> = vec![Vec::new()];
        let mut seen: std::collections::BTreeSet<ModPath> = std::collections::BTreeSet::new();
        for _ in 0..MAX_HOPS {
            let mut next = Vec::new();
            for at in frontier {
                if !seen.insert(at.clone()) {
                    continue;
                }
                let Some(found) = self.modules.get(&at) else { continue };
                let here_public = |visible: bool| visible || at.is_empty();
                if found.types.contains_key(name) && at == module {
                    return Some(joined(&at, name));
                }
                for import in found.imports.iter().filter(|i| i.public || at.is_empty()) {
                    let Some(alias) = &import.name else { continue };
                    if self.resolve_in(&at, &import.target, 1) == target {
                        return Some(joined(&at, alias));
                    }
                }
                for (child, visible) in &found.children {
                    if here_public(*visible) {
                        let mut path = at.clone();
                        path.push(child.clone());
                        next.push(path);
                    }
                }
            }
            if next.is_empty() {
                return None;
            }
            frontier = next;
        }
        None
    }
}

/// What a tool's default may name, looked up where it is written: the crate's consts and
/// enums (`unwrap_or(LIMIT)`, `unwrap_or(Priority::High)`), wherever they are declared.
#[derive(Clone, Copy)]
pub struct Lookup<'t> {
    tree: &'t CrateTree,
    scope: &'t [String],
}

impl<'t> Lookup<'t> {
    /// Names as written in module `scope`.
    pub fn new(tree: &'t CrateTree, scope: &'t [String]) -> Self {
        Lookup { tree, scope }
    }
}

impl crate::ast::defaults::Names for Lookup<'_> {
    fn constant(
        &self,
        path: &syn::Path,
    ) -> Option<(&syn::ItemConst, Box<dyn crate::ast::defaults::Names + '_>)> {
        let names = segment_names(path);
        let Entity::Const(module, name) = self.tree.resolve_in(self.scope, &names, 0) else { return None };
        let (stored, found) = self.tree.modules.get_key_value(&module)?;
        Some((found.consts.get(&name)?, Box::new(Lookup { tree: self.tree, scope: stored })))
    }

    fn container(&self, path: &syn::Path) -> Option<&crate::ast::Container> {
        let names = segment_names(path);
        match self.tree.resolve_in(self.scope, &names, 0) {
            Entity::Type(module, name) => self.tree.type_in(&module, &name),
            _ => None,
        }
    }
}

/// The names of `path`'s segments, in order (`crate::models::Task` gives `crate`,
/// `models`, `Task`).
pub fn segment_names(path: &syn::Path) -> Vec<String> {
    path.segments.iter().map(|s| s.ident.to_string()).collect()
}

/// `crate::<module>::<name>` as names.
fn joined(module: &[String], name: &str) -> Vec<String> {
    std::iter::once("crate".to_owned())
        .chain(module.iter().cloned())
        .chain(std::iter::once(name.to_owned()))
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn tree(files: &[(&str, &str)]) -> CrateTree {
        super::super::from_files(files)
    }

    fn absolute(tree: &CrateTree, scope: &[&str], ty: &str) -> String {
        let scope: Vec<String> = scope.iter().map(|s| (*s).to_owned()).collect();
        let mut ty: syn::Type = syn::parse_str(ty).unwrap();
        Resolver::new(tree, &scope).absolute(&mut ty, &["T".to_owned()]);
        quote::quote!(#ty).to_string().replace(' ', "")
    }

    const CRATE: &[(&str, &str)] = &[
        ("src/lib.rs", "pub mod models; mod api; use chrono::NaiveDate; pub use models::task::Task as Job;"),
        ("src/models/mod.rs", "mod task; pub mod page; pub use task::{Task, Priority}; pub use page::*;"),
        ("src/models/task.rs", "pub struct Task; pub enum Priority { Low } use super::page::Page;"),
        ("src/models/page.rs", "pub struct Page<T> { pub items: Vec<T> }"),
        ("src/api.rs", "use crate::models::*; use super::models as m; use serde_json::*;"),
    ];

    #[test]
    fn paths_resolve_as_rustc_resolves_them() {
        let tree = tree(CRATE);
        assert_eq!(absolute(&tree, &[], "models::Task"), "crate::models::task::Task");
        assert_eq!(absolute(&tree, &[], "Job"), "crate::models::task::Task");
        assert_eq!(absolute(&tree, &[], "NaiveDate"), "chrono::NaiveDate");
        assert_eq!(
            absolute(&tree, &["models", "task"], "Page<Task>"),
            "crate::models::page::Page<crate::models::task::Task>"
        );
        assert_eq!(absolute(&tree, &["models", "task"], "super::Priority"), "crate::models::task::Priority");
        assert_eq!(absolute(&tree, &["api"], "Priority"), "crate::models::task::Priority");
        assert_eq!(absolute(&tree, &["api"], "m::page::Page<T>"), "crate::models::page::Page<T>");
        assert_eq!(absolute(&tree, &["api"], "Vec<Option<String>>"), "Vec<Option<String>>");
        // `api` has a glob of another crate: an unknown name may come from it.
        assert_eq!(absolute(&tree, &["api"], "Value"), "Value");
    }

    #[test]
    fn missing_names_are_located() {
        let tree = tree(CRATE);
        assert_eq!(absolute(&tree, &["models"], "Nope"), "crate::models::Nope");
        let path: syn::Path = syn::parse_str("crate::models::Nope").unwrap();
        let why = tree.explain_missing(&path).unwrap();
        assert!(why.contains("cannot find type `Nope` in `crate::models` (src/models/mod.rs)"), "{why}");
        // Another crate's path is not this crate's to judge.
        assert_eq!(absolute(&tree, &["models"], "uuid::Uuid"), "uuid::Uuid");
        assert_eq!(absolute(&tree, &["models"], "String"), "String");
    }

    #[test]
    fn private_modules_are_named_through_their_re_exports() {
        let crate_tree = tree(CRATE);
        let tree = &crate_tree;
        let task = ["models".to_owned(), "task".to_owned()];
        assert_eq!(tree.nameable_path(&task, "Task").unwrap().join("::"), "crate::Job");
        assert_eq!(tree.nameable_path(&task, "Priority").unwrap().join("::"), "crate::models::Priority");
        let page = ["models".to_owned(), "page".to_owned()];
        assert_eq!(tree.nameable_path(&page, "Page").unwrap().join("::"), "crate::models::page::Page");
        let hidden =
            self::tree(&[("src/lib.rs", "mod a;"), ("src/a.rs", "mod b;"), ("src/a/b.rs", "pub struct X;")]);
        assert_eq!(hidden.nameable_path(&["a".to_owned(), "b".to_owned()], "X"), None);
    }
}
