//! The one type mapper: Rust types (as syn sees them) -> IR types + how to decode them.
//!
//! Built-in mappings (std, chrono, uuid, ...) come first and cannot be replaced; then
//! local structs, enums and aliases of the same file (inlined, generics instantiated, a
//! budget of [`INLINE_BUDGET`] inlinings); then type providers; anything else becomes `{}`
//! with a warning and is decoded with serde. A local type that contains itself (directly
//! or through others) is not inlined: it becomes a named [`Definition`] of the tool and
//! each use of it a [`Type::Ref`] ([`TypeMapper::definitions`] hands them over per tool).
//!
//! Four readers share these tables: the schema walk (`map`, here and in `builtin`,
//! `local`), the decoder's plan (`decoding`: how each field is decoded, no schema, no
//! reports), which types have the one-pass fast decoder (`fast`) and the serialize-side
//! view of return types (`output`).

mod builtin;
mod decoding;
mod fast;
mod local;
mod output;

pub use fast::MAX_SLOTS;
pub use output::OutputMapper;

use std::collections::BTreeMap;

use proc_macro2::Span;
use toolcall_runtime::ir::{Definition, Param, Type};

use crate::ast::Container;
use crate::diagnostics::{Diagnostics, FileDiagnostics};
use crate::model::{Decode, LocalImpl};
use crate::parse::ParsedFile;
use crate::provider::TypeProvider;
use crate::tree::CrateTree;
use crate::tree::resolve::Resolver;

/// How many local types one parameter may inline before the rest becomes `{}`.
pub const INLINE_BUDGET: usize = 100;

/// How a mapped type is decoded, before `Option` handling.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// `FromArg` (std types, local types with generated impls).
    FromArg,
    /// `serde::Deserialize`.
    Deserialize,
    /// A provider's decode function.
    Provider(String),
}

/// A parameter's or field's type, mapped.
#[derive(Clone, Debug, PartialEq)]
pub struct Mapped {
    /// The schema type (without the optional wrapper).
    pub ty: Type,
    /// How it is decoded.
    pub decode: Decode,
    /// Written as `Option<T>`: the slot may be absent.
    pub optional: bool,
    /// The doc of the local type used directly (typedoc fallback); "" when none.
    pub type_doc: String,
    /// The integer type under `Option`, when it is one (for the string-integer wire).
    pub integer: bool,
}

/// Maps the types of one file. Holds the lookups and collects the `FromArg` impls the
/// local types need.
pub struct TypeMapper<'a> {
    /// The crate's types, every path in them absolute.
    tree: &'a CrateTree,
    /// The module of the tool file, from the crate root.
    module: &'a [String],
    providers: &'a [Box<dyn TypeProvider + Send + Sync>],
    report: FileDiagnostics<'a>,
    impls: &'a mut BTreeMap<String, LocalImpl>,
    budget: usize,
    /// The local types being expanded, outermost first.
    stack: Vec<Expanding>,
    /// The recursive types met since the last [`TypeMapper::definitions`]: by type key
    /// (name and generic arguments), with their definition.
    defs: Vec<(String, Definition)>,
    /// The definition name given to each type key since the last
    /// [`TypeMapper::definitions`] (unique among them).
    def_names: BTreeMap<String, String>,
    /// Internally tagged newtype variants whose inner struct is a reference: each is a
    /// definition of its own, the struct's properties beside the tag, made once the
    /// struct's definition is known ([`TypeMapper::definitions`]).
    tagged: Vec<local::Tagged>,
    /// Generic parameters treated as "any `FromArg` type" (building generic impls).
    placeholders: Vec<String>,
    /// How each provided type (by its tokens) is decoded, as the schema walk resolved it.
    provided: BTreeMap<String, Strategy>,
    /// Strategy of each local struct/enum, computed once.
    strategies: BTreeMap<String, Result<Strategy, String>>,
    /// Local types whose strategy is being computed (cycle guard).
    in_progress: Vec<String>,
    /// Whether each local struct/enum has the fast decoder, once known.
    fast_locals: BTreeMap<String, bool>,
    /// The order `fast_locals` learned its answers in (to forget the ones that rested on
    /// an assumption that failed).
    fast_order: Vec<String>,
    /// Local types whose fast decoder is being read (cycle guard).
    fast_in_progress: Vec<String>,
    /// Where warnings point.
    span: Span,
}

impl<'a> TypeMapper<'a> {
    /// A mapper for the tool file `parsed` (module `module` of `tree`), recording the
    /// impls the crate's types need into `impls` (one table for the whole crate).
    pub fn new(
        parsed: &'a ParsedFile,
        (tree, module): (&'a CrateTree, &'a [String]),
        providers: &'a [Box<dyn TypeProvider + Send + Sync>],
        diags: &'a Diagnostics,
        impls: &'a mut BTreeMap<String, LocalImpl>,
    ) -> Self {
        TypeMapper {
            tree,
            module,
            providers,
            report: diags.in_file(&parsed.file),
            impls,
            budget: INLINE_BUDGET,
            stack: Vec::new(),
            defs: Vec::new(),
            def_names: BTreeMap::new(),
            tagged: Vec::new(),
            placeholders: Vec::new(),
            provided: BTreeMap::new(),
            strategies: BTreeMap::new(),
            in_progress: Vec::new(),
            fast_locals: BTreeMap::new(),
            fast_order: Vec::new(),
            fast_in_progress: Vec::new(),
            span: Span::call_site(),
        }
    }

    /// Records an error at `span` in this file.
    pub fn error_at(&mut self, span: Span, message: String) {
        self.report.error(span, message);
    }

    /// A warning at `span` about a type being mapped.
    fn warn_at(&mut self, span: Span, message: String) {
        self.report.warn(span, message);
    }

    /// A warning about the type being mapped, at the slot's span.
    fn warn(&mut self, message: String) {
        self.warn_at(self.span, message);
    }

    /// `ty`, written in the tool file, with every path made absolute (see
    /// [`Resolver::absolute`]): what [`TypeMapper::slot`] and [`TypeMapper::is_fast`] read.
    pub fn absolute(&self, ty: &syn::Type) -> syn::Type {
        let mut ty = ty.clone();
        Resolver::new(self.tree, self.module).absolute(&mut ty, &[]);
        ty
    }

    /// Maps a parameter type (made [`absolute`](TypeMapper::absolute) first); warnings
    /// point at `span`. Each call has its own budget.
    pub fn slot(&mut self, ty: &syn::Type, span: Span) -> Result<Mapped, String> {
        self.span = span;
        self.budget = INLINE_BUDGET;
        self.map_slot(ty)
    }

    /// Hands over the definitions `params` (one tool's parameters, as mapped since the last
    /// call) refer to, in the order they are first used, and forgets the rest: call it
    /// once per tool, after its parameters.
    pub fn definitions(&mut self, params: &[Param]) -> Vec<Definition> {
        let mut pending = std::mem::take(&mut self.defs);
        local::add_tagged(&mut pending, std::mem::take(&mut self.tagged));
        self.def_names.clear();
        let mut out: Vec<Definition> = Vec::new();
        let mut queue: Vec<String> = Vec::new();
        params.iter().for_each(|p| refs_in(&p.ty, &mut queue));
        queue.reverse();
        while let Some(name) = queue.pop() {
            if out.iter().any(|d| d.name == name) {
                continue;
            }
            let Some(index) = pending.iter().position(|(_, d)| d.name == name) else { continue };
            let (_, def) = pending.swap_remove(index);
            let mut inner = Vec::new();
            refs_in(&def.ty, &mut inner);
            queue.extend(inner.into_iter().rev());
            out.push(def);
        }
        out
    }

    /// Maps a slot (parameter or field): `Option<T>` makes it optional, and
    /// `Option<Option<T>>` optional and nullable.
    fn map_slot(&mut self, ty: &syn::Type) -> Result<Mapped, String> {
        let (inner, optional) = match builtin::option_inner(ty) {
            Some(inner) => (inner, true),
            None => (ty, false),
        };
        let type_doc = self.type_doc(inner);
        let integer = builtin::is_integer(inner);
        let (ir, strategy) = self.map(inner)?;
        let decode = Decode::of(strategy, optional);
        Ok(Mapped { ty: ir, decode, optional, type_doc, integer })
    }

    /// Maps any type to its schema and decoding strategy.
    fn map(&mut self, ty: &syn::Type) -> Result<(Type, Strategy), String> {
        match ty {
            syn::Type::Paren(p) => self.map(&p.elem),
            syn::Type::Group(g) => self.map(&g.elem),
            syn::Type::Reference(r) => self.reference(r),
            syn::Type::Tuple(t) if t.elems.is_empty() => Err("`()` carries no value".to_owned()),
            syn::Type::Tuple(t) => self.tuple(t.elems.iter()),
            syn::Type::Array(a) => self.array(a),
            syn::Type::Path(p) if p.qself.is_none() => self.path(&p.path),
            other => Err(format!("type `{}` has no JSON mapping", quote::quote!(#other))),
        }
    }

    fn reference(&mut self, r: &syn::TypeReference) -> Result<(Type, Strategy), String> {
        if r.mutability.is_none()
            && let syn::Type::Path(p) = r.elem.as_ref()
        {
            let last = p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
            if last == "str" {
                return Ok((Type::string(), Strategy::FromArg));
            }
            if last == "Value" && self.is_serde_json(&p.path) {
                return Ok((Type::Any, Strategy::FromArg));
            }
        }
        Err("borrowed parameters other than `&str` and `&serde_json::Value` are not supported; take it by value".to_owned())
    }

    fn tuple<'t>(&mut self, elems: impl Iterator<Item = &'t syn::Type>) -> Result<(Type, Strategy), String> {
        let mut items = Vec::new();
        let mut all_from_arg = true;
        for elem in elems {
            let (ty, strategy) = self.map_nested(elem)?;
            all_from_arg &= strategy == Strategy::FromArg;
            items.push(ty);
        }
        let strategy =
            if all_from_arg && items.len() <= 8 { Strategy::FromArg } else { Strategy::Deserialize };
        Ok((Type::Tuple(items), strategy))
    }

    fn array(&mut self, a: &syn::TypeArray) -> Result<(Type, Strategy), String> {
        let (items, strategy) = self.map_nested(&a.elem)?;
        let len = match &a.len {
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(n), .. }) => n.base10_parse::<u64>().ok(),
            _ => None,
        };
        let ty = Type::Array { items: Box::new(items), min_items: len, max_items: len, unique: false };
        Ok((ty, container_strategy(strategy)))
    }

    /// Maps a type nested in a container: `Option<T>` there means nullable.
    fn map_nested(&mut self, ty: &syn::Type) -> Result<(Type, Strategy), String> {
        match builtin::option_inner(ty) {
            Some(inner) => {
                let (ty, strategy) = self.map(inner)?;
                Ok((ty.nullable(), strategy))
            }
            None => self.map(ty),
        }
    }

    fn path(&mut self, path: &syn::Path) -> Result<(Type, Strategy), String> {
        let Some(last) = path.segments.last() else { return Err("empty type path".to_owned()) };
        let name = last.ident.to_string();
        if path.segments.len() == 1 && self.placeholders.contains(&name) {
            return Ok((Type::Any, Strategy::FromArg));
        }
        if let Some(found) = self.builtin(path)? {
            return Ok(found);
        }
        if let Some(item) = self.local_item(path) {
            if let Some(found) = self.provider_for(path)? {
                return Ok(found);
            }
            return self.local(&name, item, generic_args(last));
        }
        if let Some(why) = self.tree.explain_missing(path) {
            // A name declared nowhere may still be a provider's, as written.
            let written = syn::Path::from(last.ident.clone());
            if let Some(found) = self.provider_for(&written)? {
                return Ok(found);
            }
            // Reported once, here; the tool still lowers so the rest of it is checked.
            self.error_at(self.span, why);
            return Ok((Type::Any, Strategy::Deserialize));
        }
        self.provided(path)
    }

    /// Whether `path` names a type of this crate (a local `struct Duration` is not the
    /// built-in one).
    fn shadowed_by_local(&self, path: &syn::Path, _name: &str) -> bool {
        self.local_item(path).is_some()
    }

    /// The crate type an absolute path names (`crate::models::Task`).
    fn local_item(&self, path: &syn::Path) -> Option<&'a Container> {
        let tree: &'a CrateTree = self.tree;
        tree.find_type(path).map(|(_, container)| container)
    }

    /// The path as a string (every path the mapper sees is absolute).
    fn resolved(&self, path: &syn::Path) -> String {
        let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        names.join("::")
    }

    fn is_serde_json(&self, path: &syn::Path) -> bool {
        self.resolved(path).starts_with("serde_json::")
    }

    /// What a type provider says of `path`, if one knows it.
    fn provider_for(&mut self, path: &syn::Path) -> Result<Option<(Type, Strategy)>, String> {
        if self.providers.is_empty() {
            return Ok(None);
        }
        let resolved = self.resolved(path);
        let args = match path.segments.last() {
            Some(last) => generic_args(last),
            None => Vec::new(),
        };
        let mut mapped_args = Vec::with_capacity(args.len());
        for arg in &args {
            mapped_args.push(self.map_nested(arg)?.0);
        }
        for provider in self.providers {
            if let Some(found) = provider.resolve(&resolved, &mapped_args) {
                let strategy = found.decode.map_or(Strategy::Deserialize, Strategy::Provider);
                self.provided.insert(path_key(path), strategy.clone());
                return Ok(Some((found.ty, strategy)));
            }
        }
        Ok(None)
    }

    /// A type of another crate: a provider's, else `{}` decoded by serde, with a warning
    /// naming the two ways to describe it.
    fn provided(&mut self, path: &syn::Path) -> Result<(Type, Strategy), String> {
        if let Some(found) = self.provider_for(path)? {
            return Ok(found);
        }
        let resolved = self.resolved(path);
        self.warn(format!(
            "type `{resolved}` has no schema mapping: the model sees `{{}}` and it is decoded with \
             serde::Deserialize; describe it with a `TypeProvider` in build.rs, or wrap it in a \
             type of this crate (a struct or newtype deriving `Deserialize`)"
        ));
        Ok((Type::Any, Strategy::Deserialize))
    }

    /// How a provided type is decoded: as the schema walk resolved it, or (a generic
    /// declaration's field the walk saw only instantiated) as its provider resolves it with
    /// unknown type arguments; serde when no provider knows it.
    fn provided_strategy(&self, path: &syn::Path) -> Strategy {
        if let Some(known) = self.provided.get(&path_key(path)) {
            return known.clone();
        }
        let resolved = self.resolved(path);
        let args = path.segments.last().map_or(0, |last| generic_args(last).len());
        let unknown = vec![Type::Any; args];
        self.providers
            .iter()
            .find_map(|provider| provider.resolve(&resolved, &unknown))
            .and_then(|found| found.decode)
            .map_or(Strategy::Deserialize, Strategy::Provider)
    }

    /// The doc of the local type a slot names directly, following alias chains to the
    /// nearest documented type.
    fn type_doc(&self, ty: &syn::Type) -> String {
        let mut current = ty.clone();
        for _ in 0..INLINE_BUDGET {
            let syn::Type::Path(p) = &current else { return String::new() };
            let Some(item) = self.local_item(&p.path) else { return String::new() };
            if !item.doc.is_empty() {
                return item.doc.clone();
            }
            match item.alias() {
                Some(target) => current = target.clone(),
                None => return String::new(),
            }
        }
        String::new()
    }
}

/// A local type being expanded: its key, and whether it was met again inside itself.
struct Expanding {
    key: String,
    reentered: bool,
}

/// The names of the references in `ty`, in document order (not following them).
fn refs_in(ty: &Type, out: &mut Vec<String>) {
    match ty {
        Type::Ref(name) => out.push(name.clone()),
        other => other.children().into_iter().for_each(|child| refs_in(child, out)),
    }
}

/// The tokens of a type path, as a key.
fn path_key(path: &syn::Path) -> String {
    quote::quote!(#path).to_string()
}

/// Containers of `FromArg` types are `FromArg`; anything else goes through serde.
fn container_strategy(inner: Strategy) -> Strategy {
    match inner {
        Strategy::FromArg => Strategy::FromArg,
        _ => Strategy::Deserialize,
    }
}

/// The generic type arguments of a path segment, in order.
fn generic_args(segment: &syn::PathSegment) -> Vec<syn::Type> {
    match &segment.arguments {
        syn::PathArguments::AngleBracketed(args) => args
            .args
            .iter()
            .filter_map(|a| match a {
                syn::GenericArgument::Type(t) => Some(t.clone()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}
