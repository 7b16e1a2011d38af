//! No circle of files in a product crate: each crate's module tree is read with `syn` from
//! its root (`mod` declarations, `#[path]` honoured), every path a file names through
//! `crate::`, `super::`, `self::` or a child module (in `use` items and in code) becomes an
//! arrow from that file to the file defining the module it reaches, and the arrows must
//! not close a circle. Records go below the code that uses them; a circle means a file
//! and one it depends on each need the other, and grows unseen.
//!
//! Left out, as they are no dependency between files: `#[cfg(test)]` items (tests reach
//! anywhere), a module's own `mod` declarations, and arrows from a module into one of its
//! ancestors (the crate root, a folder's `mod.rs`): a folder's front re-exports and
//! dispatches to what is inside it, and what is inside may use the records it defines; a
//! circle is between files that are not nested in one another.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// The crates users depend on or run, by their folder in the workspace.
const PRODUCT_CRATES: &[&str] = &[
    "toolcall-runtime",
    "toolcall-build",
    "toolcall-mcp",
    "toolcall-agent",
    "cargo-toolcall",
    "example-app",
];

/// One module of a crate: where it is written and the modules declared in it.
struct Module {
    file: PathBuf,
    children: BTreeMap<String, Vec<String>>,
}

/// A crate's modules by path (`[]` is the root, `["call", "arguments"]` a nested one).
struct Tree {
    modules: BTreeMap<Vec<String>, Module>,
    /// Parsed files, with the module each one is.
    files: Vec<(Vec<String>, syn::File)>,
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap_or(Path::new("..")).to_path_buf()
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("cfg")
            && attr.meta.require_list().is_ok_and(|list| list.tokens.to_string() == "test")
    })
}

fn path_attribute(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|attr| {
        let syn::Meta::NameValue(nv) = &attr.meta else { return None };
        if !nv.path.is_ident("path") {
            return None;
        }
        match &nv.value {
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value()),
            _ => None,
        }
    })
}

/// The folder a module's `mod x;` children live in.
fn child_dir(file: &Path, is_root_like: bool) -> PathBuf {
    let dir = file.parent().unwrap_or(Path::new(".")).to_path_buf();
    if is_root_like { dir } else { dir.join(file.file_stem().unwrap_or_default()) }
}

fn read_tree(root_file: &Path) -> Tree {
    let mut tree = Tree { modules: BTreeMap::new(), files: Vec::new() };
    let mut stack = vec![(Vec::<String>::new(), root_file.to_path_buf(), true)];
    while let Some((path, file, root_like)) = stack.pop() {
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let parsed = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let dir = child_dir(&file, root_like);
        let mut children = BTreeMap::new();
        collect_mods(&parsed.items, &path, &dir, &mut children, &mut stack, &mut tree.modules, &file);
        tree.modules.insert(path.clone(), Module { file: file.clone(), children });
        tree.files.push((path, parsed));
    }
    tree
}

/// Reads the `mod` items of one module (inline ones are folded into the same file).
fn collect_mods(
    items: &[syn::Item],
    path: &[String],
    dir: &Path,
    children: &mut BTreeMap<String, Vec<String>>,
    stack: &mut Vec<(Vec<String>, PathBuf, bool)>,
    modules: &mut BTreeMap<Vec<String>, Module>,
    file: &Path,
) {
    for item in items {
        let syn::Item::Mod(m) = item else { continue };
        if is_cfg_test(&m.attrs) {
            continue;
        }
        let name = m.ident.to_string();
        let mut child = path.to_vec();
        child.push(name.clone());
        children.insert(name.clone(), child.clone());
        match &m.content {
            Some((_, inner)) => {
                let mut inner_children = BTreeMap::new();
                collect_mods(inner, &child, &dir.join(&name), &mut inner_children, stack, modules, file);
                modules.insert(child, Module { file: file.to_path_buf(), children: inner_children });
            }
            None => {
                let found = match path_attribute(&m.attrs) {
                    Some(p) => (dir.join(p), false),
                    None if dir.join(format!("{name}.rs")).exists() => {
                        (dir.join(format!("{name}.rs")), false)
                    }
                    None => (dir.join(&name).join("mod.rs"), true),
                };
                stack.push((child, found.0, found.1));
            }
        }
    }
}

/// Collects the module paths a file's code names.
struct Names<'t> {
    tree: &'t Tree,
    here: Vec<String>,
    reached: BTreeSet<PathBuf>,
}

impl Names<'_> {
    /// The file of the deepest module `segments` (read from module `self.here`) names.
    fn reach(&mut self, segments: &[String]) {
        let Some(first) = segments.first() else { return };
        let (from, mut rest) = match first.as_str() {
            "crate" => (Vec::new(), &segments[1..]),
            "self" => (self.here.clone(), &segments[1..]),
            "super" => (self.here.clone(), segments),
            child => match self.tree.modules.get(&self.here).and_then(|m| m.children.get(child)) {
                Some(module) => (module.clone(), &segments[1..]),
                None => return,
            },
        };
        let mut from = from;
        while rest.first().map(String::as_str) == Some("super") {
            from.pop();
            rest = &rest[1..];
        }
        self.walk(from, rest);
    }

    fn walk(&mut self, mut at: Vec<String>, rest: &[String]) {
        for segment in rest {
            match self.tree.modules.get(&at).and_then(|m| m.children.get(segment)) {
                Some(child) => at = child.clone(),
                None => break,
            }
        }
        if let Some(module) = self.tree.modules.get(&at)
            && !at.is_empty()
        {
            self.reached.insert(module.file.clone());
        }
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                prefix.push(n.ident.to_string());
                self.reach(prefix);
                prefix.pop();
            }
            syn::UseTree::Rename(r) => {
                prefix.push(r.ident.to_string());
                self.reach(prefix);
                prefix.pop();
            }
            syn::UseTree::Glob(_) => self.reach(prefix),
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| self.use_tree(prefix, t)),
        }
    }
}

impl<'ast> Visit<'ast> for Names<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs = match item {
            syn::Item::Mod(m) => &m.attrs,
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Use(u) => &u.attrs,
            syn::Item::Const(c) => &c.attrs,
            syn::Item::Static(s) => &s.attrs,
            syn::Item::Struct(s) => &s.attrs,
            syn::Item::Enum(e) => &e.attrs,
            _ => return syn::visit::visit_item(self, item),
        };
        if is_cfg_test(attrs) {
            return;
        }
        match item {
            syn::Item::Mod(m) if m.content.is_some() => {
                self.here.push(m.ident.to_string());
                syn::visit::visit_item_mod(self, m);
                self.here.pop();
            }
            syn::Item::Use(u) => self.use_tree(&mut Vec::new(), &u.tree),
            _ => syn::visit::visit_item(self, item),
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if segments.len() > 1 {
            self.reach(&segments);
        }
        syn::visit::visit_path(self, path);
    }
}

/// Arrows between the crate's files (a file's arrows to itself left out).
fn arrows(tree: &Tree) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let mut out: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for (path, file) in &tree.files {
        let mut names = Names { tree, here: path.clone(), reached: BTreeSet::new() };
        names.visit_file(file);
        let from = tree.modules[path].file.clone();
        let ancestors: BTreeSet<&PathBuf> =
            (0..path.len()).filter_map(|n| tree.modules.get(&path[..n]).map(|m| &m.file)).collect();
        let to = out.entry(from.clone()).or_default();
        to.extend(names.reached.into_iter().filter(|f| *f != from && !ancestors.contains(f)));
    }
    out
}

/// The circles of `graph`: its strongly connected components of more than one file.
fn circles(graph: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<PathBuf>> {
    // Kosaraju: order by finish time, then collect components on the reversed graph.
    let nodes: Vec<&PathBuf> =
        graph.keys().chain(graph.values().flatten()).collect::<BTreeSet<_>>().into_iter().collect();
    let mut seen = BTreeSet::new();
    let mut order = Vec::new();
    for start in &nodes {
        if seen.contains(*start) {
            continue;
        }
        let mut stack = vec![(*start, false)];
        while let Some((node, done)) = stack.pop() {
            if done {
                order.push(node);
                continue;
            }
            if !seen.insert(node) {
                continue;
            }
            stack.push((node, true));
            for next in graph.get(node).into_iter().flatten() {
                if !seen.contains(next) {
                    stack.push((next, false));
                }
            }
        }
    }
    let mut reversed: BTreeMap<&PathBuf, Vec<&PathBuf>> = BTreeMap::new();
    for (from, tos) in graph {
        for to in tos {
            reversed.entry(to).or_default().push(from);
        }
    }
    let mut assigned = BTreeSet::new();
    let mut found = Vec::new();
    for node in order.into_iter().rev() {
        if assigned.contains(node) {
            continue;
        }
        let mut component = Vec::new();
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            if !assigned.insert(n) {
                continue;
            }
            component.push(n.clone());
            stack.extend(reversed.get(n).into_iter().flatten().filter(|m| !assigned.contains(*m)));
        }
        if component.len() > 1 {
            component.sort();
            found.push(component);
        }
    }
    found
}

fn crate_root(dir: &Path) -> PathBuf {
    let lib = dir.join("src/lib.rs");
    if lib.exists() { lib } else { dir.join("src/main.rs") }
}

/// The arrows inside one circle, for the message.
fn describe(circle: &[PathBuf], graph: &BTreeMap<PathBuf, BTreeSet<PathBuf>>, base: &Path) -> String {
    let inside: BTreeSet<&PathBuf> = circle.iter().collect();
    let short = |p: &Path| p.strip_prefix(base).unwrap_or(p).display().to_string();
    let mut lines = Vec::new();
    for from in circle {
        for to in graph.get(from).into_iter().flatten().filter(|t| inside.contains(t)) {
            lines.push(format!("  {} -> {}", short(from), short(to)));
        }
    }
    lines.join("\n")
}

#[test]
fn no_product_crate_has_a_circle_of_files() {
    let base = workspace_root();
    let mut report = Vec::new();
    for name in PRODUCT_CRATES {
        let tree = read_tree(&crate_root(&base.join(name)));
        assert!(
            tree.files.len() > 1,
            "{name}: read {} file(s); the module walk found nothing",
            tree.files.len()
        );
        let graph = arrows(&tree);
        for circle in circles(&graph) {
            report.push(format!(
                "{name}: a circle of {} files:\n{}",
                circle.len(),
                describe(&circle, &graph, &base)
            ));
        }
    }
    assert!(
        report.is_empty(),
        "modules import each other in a circle; move the shared record below both, or the \
         code that closes the circle up:\n{}",
        report.join("\n")
    );
}

/// The checker sees a circle where there is one: two modules naming each other through
/// `crate::`, `super::` and a `use` group, in a tree written to a temporary folder.
#[test]
fn a_circle_written_on_purpose_is_found() {
    let dir = std::env::temp_dir().join(format!("toolcall-module-cycles-{}", std::process::id()));
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("b")).unwrap_or_else(|e| panic!("{e}"));
    let write = |p: &str, t: &str| std::fs::write(src.join(p), t).unwrap_or_else(|e| panic!("{p}: {e}"));
    write("lib.rs", "mod a; mod b; mod c; pub use a::A;");
    write("a.rs", "use crate::{b::B, c};\npub struct A(B);\n#[cfg(test)] mod tests { use crate::c::C; }");
    write("b/mod.rs", "mod inner; pub struct B;");
    write("b/inner.rs", "fn f() -> super::super::a::A { todo!() }");
    write("c.rs", "pub struct C; fn g(_: crate::A) {}");
    let tree = read_tree(&src.join("lib.rs"));
    let graph = arrows(&tree);
    let found = circles(&graph);
    std::fs::remove_dir_all(&dir).ok();
    let names: Vec<Vec<String>> = found
        .iter()
        .map(|c| c.iter().map(|p| p.strip_prefix(&src).unwrap_or(p).display().to_string()).collect())
        .collect();
    // a -> b/mod.rs, b/inner.rs -> a: no circle through b/mod.rs (inner's arrow leaves
    // from inner.rs); c names the root only, an ancestor, which is left out.
    assert!(names.is_empty(), "{names:?}");
    let a = src.join("a.rs");
    assert!(graph[&a].contains(&src.join("b/mod.rs")) && graph[&a].contains(&src.join("c.rs")), "{graph:?}");
    assert!(graph[&src.join("b/inner.rs")].contains(&a), "{graph:?}");

    // Now b's own file names a: a circle of two.
    std::fs::create_dir_all(src.join("b")).unwrap_or_else(|e| panic!("{e}"));
    write("lib.rs", "mod a; mod b;");
    write("a.rs", "use crate::b::B; pub struct A(B);");
    write("b/mod.rs", "pub struct B; fn f(_: super::a::A) {}");
    let tree = read_tree(&src.join("lib.rs"));
    let graph = arrows(&tree);
    let found = circles(&graph);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].len(), 2, "{found:?}");
}
