//! The type tree: each type a tool names, resolved once from its `syn` tree into a [`Ty`].
//!
//! This is the only place in the build that matches `syn` types. A path is a type of the
//! crate (a [`Ty::Local`] instance, generic arguments substituted, or an alias), a
//! provider's, a built-in ([`builtin`](super::builtin)), a name the build can prove
//! missing, or another crate's. A crate type's fields are resolved the first time a
//! reader asks for them, and a type met again inside itself is the same instance: the
//! tree is finite however the types recurse, and recursion is a reference (an
//! [`InstanceId`]).
//!
//! The readers are folds over this tree: the input schema (`schema`), the decoding
//! strategy and generated decoders (`decoding`), fast-path eligibility (`fast`) and the
//! output schema (`output`).

use std::collections::BTreeMap;

use syn::visit_mut::VisitMut;
use toolcall_runtime::ir::Type;

use super::Strategy;
use super::builtin::{self, Container as Kind, Row};
use crate::ast::{Container, Data};
use crate::provider::TypeProvider;
use crate::tree::CrateTree;
use crate::tree::resolve::segment_names;

/// An instance of a crate type in the tree's table.
pub type InstanceId = usize;

/// A resolved type.
#[derive(Clone, Debug)]
pub enum Ty {
    /// A built-in type without type arguments (a row of the built-in table), with the
    /// name it was written with.
    Scalar {
        /// Its row.
        row: &'static Row,
        /// The name it was written with (`u8`, `NonZeroU32`).
        name: String,
    },
    /// A string borrowed or held (`&str`, `Box<str>`, `Cow<str>`, ...).
    Str {
        /// `&str`.
        borrowed: bool,
    },
    /// `serde_json::Value` or `&serde_json::Value`: any JSON value.
    Untyped {
        /// `&Value`.
        borrowed: bool,
    },
    /// `serde_json::Map`: an object of anything.
    JsonMap,
    /// `Option<T>`.
    Option(Box<Ty>),
    /// `Vec<T>`, `VecDeque<T>`, `Box<[T]>`, a set.
    List {
        /// The items.
        item: Box<Ty>,
        /// A set: items are distinct.
        unique: bool,
        /// A `Vec` (what the fast reader takes).
        vec: bool,
    },
    /// `HashMap<K, V>`, `BTreeMap<K, V>`.
    Map {
        /// The key type.
        key: Box<Ty>,
        /// The value type (a map written without one has none).
        value: Option<Box<Ty>>,
    },
    /// `Box<T>`, `Rc<T>`, `Arc<T>`: the `T` itself.
    Pointer {
        /// The `T`.
        inner: Box<Ty>,
        /// A `Box` (what the fast reader takes).
        boxed: bool,
    },
    /// `(A, B, ..)`.
    Tuple(Vec<Ty>),
    /// `[T; N]`.
    Array {
        /// The items.
        item: Box<Ty>,
        /// `N`, when it is a literal.
        len: Option<u64>,
    },
    /// `()`.
    Unit,
    /// `&T` (other than `&str` and `&Value`), `&mut T`: serialized as `T`; no input.
    Ref(Box<Ty>),
    /// A type the two directions read differently (`[T]`, `Cow<T>`, `LinkedList<T>`, a
    /// nested `Result`): one tree for each.
    Split {
        /// What the input side reads.
        input: Box<Ty>,
        /// What the output side reads.
        output: Box<Ty>,
    },
    /// No mapping on the side that meets it, and why.
    Refused(String),
    /// A type alias of the crate, expanded (its doc serves as a parameter's description).
    Alias {
        /// The alias's doc.
        doc: String,
        /// What it stands for.
        target: Box<Ty>,
    },
    /// A struct or enum of the crate, with its generic arguments.
    Local(InstanceId),
    /// A type provider's type.
    Provided {
        /// Its schema.
        input: Type,
        /// How it is decoded.
        strategy: Strategy,
    },
    /// Another crate's type no provider knows, by its path.
    Foreign(String),
    /// A path of this crate that names nothing: where the build looked.
    Missing(String),
    /// A type parameter of a generic declaration being read ("any decodable type").
    Param,
    /// A type with no JSON mapping at all (function pointers, `impl Trait`, ...), as
    /// written.
    Unsupported(String),
}

/// The runtime's content block type, as the resolver writes its path.
const CONTENT_PATH: &str = "toolcall_runtime::Content";

/// A prompt's message, as a prompt function may return it.
const MESSAGE_PATH: &str = "toolcall_runtime::Message";

impl Ty {
    /// `toolcall_runtime::Content` or a list of them (`Vec<Content>`, boxed or aliased):
    /// a result of content blocks.
    pub fn is_content(&self) -> bool {
        match self {
            Ty::Foreign(path) => path == CONTENT_PATH,
            Ty::List { item, .. } => matches!(item.as_ref(), Ty::Foreign(path) if path == CONTENT_PATH),
            Ty::Pointer { inner, .. } | Ty::Alias { target: inner, .. } => inner.is_content(),
            _ => false,
        }
    }

    /// Whether this is `toolcall_runtime::Message` or a list of them (through `Option`,
    /// pointers and aliases): what a prompt function may return beside text and content.
    pub fn is_message(&self) -> bool {
        match self {
            Ty::Foreign(path) => path == MESSAGE_PATH,
            Ty::List { item, .. } => item.is_message(),
            Ty::Option(inner) | Ty::Ref(inner) => inner.is_message(),
            Ty::Pointer { inner, .. } | Ty::Alias { target: inner, .. } => inner.is_message(),
            _ => false,
        }
    }
}

/// One instance of a crate struct or enum.
#[derive(Debug)]
pub struct Instance<'a> {
    /// The declaration.
    pub item: &'a Container,
    /// What tells it from every other instance: the type's path with its arguments.
    pub key: String,
    /// Its generic arguments as written (absolute paths), for definition names.
    pub args: Vec<syn::Type>,
    /// Its generic arguments, resolved.
    pub arg_tys: Vec<Ty>,
    /// Generic parameter name -> argument.
    env: BTreeMap<String, syn::Type>,
    /// The type parameters in scope that stand for "any type" (a declaration's own).
    params: Vec<String>,
    /// The field types, by variant (a struct: one list), once resolved.
    fields: Option<Vec<Vec<Ty>>>,
}

/// The table of resolved crate-type instances, and the resolver that fills it.
pub struct TypeTree<'a> {
    crate_tree: &'a CrateTree,
    providers: &'a [Box<dyn TypeProvider + Send + Sync>],
    instances: Vec<Instance<'a>>,
    by_key: BTreeMap<String, InstanceId>,
}

impl<'a> TypeTree<'a> {
    /// A tree over the crate's types and the build script's providers.
    pub fn new(crate_tree: &'a CrateTree, providers: &'a [Box<dyn TypeProvider + Send + Sync>]) -> Self {
        TypeTree { crate_tree, providers, instances: Vec::new(), by_key: BTreeMap::new() }
    }

    /// Resolves a type whose paths are absolute (see `Resolver::absolute`).
    pub fn resolve(&mut self, ty: &syn::Type) -> Ty {
        self.resolve_in(ty, &[])
    }

    /// The instance `id`.
    pub fn instance(&self, id: InstanceId) -> &Instance<'a> {
        &self.instances[id]
    }

    /// The declaration `item` with its type parameters standing for "any type": what the
    /// generated decoder of a generic type reads.
    pub fn declaration(&mut self, item: &'a Container) -> InstanceId {
        let params: Vec<String> = item.generics.type_params().map(|p| p.ident.to_string()).collect();
        let args: Vec<syn::Type> = item
            .generics
            .type_params()
            .map(|p| syn::Type::Path(syn::TypePath { qself: None, path: p.ident.clone().into() }))
            .collect();
        self.instance_of(item, args, &params)
    }

    /// The field types of instance `id`, by variant (a struct: one list, in field
    /// order, skipped fields included).
    pub fn fields(&mut self, id: InstanceId) -> Vec<Vec<Ty>> {
        if let Some(known) = &self.instances[id].fields {
            return known.clone();
        }
        let instance = &self.instances[id];
        let (item, env, params) = (instance.item, instance.env.clone(), instance.params.clone());
        let lists: Vec<Vec<syn::Type>> = match &item.data {
            Data::Struct(_, fields) => vec![fields.iter().map(|f| substituted(&f.ty, &env)).collect()],
            Data::Enum(variants) => {
                variants.iter().map(|v| v.fields.iter().map(|f| substituted(&f.ty, &env)).collect()).collect()
            }
            Data::Alias(_) => Vec::new(),
        };
        let resolved: Vec<Vec<Ty>> =
            lists.iter().map(|list| list.iter().map(|ty| self.resolve_in(ty, &params)).collect()).collect();
        self.instances[id].fields = Some(resolved.clone());
        resolved
    }

    fn resolve_in(&mut self, ty: &syn::Type, params: &[String]) -> Ty {
        match ty {
            syn::Type::Paren(p) => self.resolve_in(&p.elem, params),
            syn::Type::Group(g) => self.resolve_in(&g.elem, params),
            syn::Type::Reference(r) => self.reference(r, params),
            syn::Type::Tuple(t) if t.elems.is_empty() => Ty::Unit,
            syn::Type::Tuple(t) => Ty::Tuple(t.elems.iter().map(|e| self.resolve_in(e, params)).collect()),
            syn::Type::Array(a) => {
                let len = match &a.len {
                    syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(n), .. }) => {
                        n.base10_parse::<u64>().ok()
                    }
                    _ => None,
                };
                Ty::Array { item: Box::new(self.resolve_in(&a.elem, params)), len }
            }
            syn::Type::Slice(s) => {
                let item = Box::new(self.resolve_in(&s.elem, params));
                let input = Box::new(Ty::Unsupported(text(ty)));
                Ty::Split { input, output: Box::new(Ty::List { item, unique: false, vec: false }) }
            }
            syn::Type::Path(p) if p.qself.is_none() => self.path(&p.path, params),
            other => Ty::Unsupported(text(other)),
        }
    }

    /// `&str` and `&serde_json::Value` are inputs; any other reference only serializes.
    fn reference(&mut self, r: &syn::TypeReference, params: &[String]) -> Ty {
        if r.mutability.is_none()
            && let syn::Type::Path(p) = r.elem.as_ref()
        {
            let last = p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
            if last == "str" {
                return Ty::Str { borrowed: true };
            }
            if last == "Value" && joined(&p.path).starts_with("serde_json::") {
                return Ty::Untyped { borrowed: true };
            }
        }
        Ty::Ref(Box::new(self.resolve_in(&r.elem, params)))
    }

    /// A named type: a parameter, a crate type (a provider may claim it), a built-in, a
    /// missing name, or another crate's type.
    fn path(&mut self, path: &syn::Path, params: &[String]) -> Ty {
        let Some(last) = path.segments.last() else { return Ty::Unsupported(String::new()) };
        let name = last.ident.to_string();
        if path.segments.len() == 1 && params.contains(&name) {
            return Ty::Param;
        }
        let resolved = joined(path);
        let args = generic_args(last);
        if let Some((_, item)) = self.crate_tree.find_type(path) {
            if let Some(provided) = self.provided(&resolved, &args, params) {
                return provided;
            }
            return self.local(item, args, params);
        }
        if name == "str" && args.is_empty() {
            return Ty::Str { borrowed: false };
        }
        if let Some(row) = builtin::scalar(&name, &resolved, args.len()) {
            return Ty::Scalar { row, name };
        }
        if let Some(kind) = builtin::container(&name, &resolved, &args) {
            return self.container(kind, path, params);
        }
        self.outside(path, params)
    }

    /// A path no crate type and no built-in answers: a provider's, a missing name of the
    /// crate, or another crate's type.
    fn outside(&mut self, path: &syn::Path, params: &[String]) -> Ty {
        let resolved = joined(path);
        let args = path.segments.last().map(generic_args).unwrap_or_default();
        if let Some(why) = self.crate_tree.explain_missing(path) {
            // A name declared nowhere may still be a provider's, as written.
            let written = path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
            return self.provided(&written, &args, params).unwrap_or(Ty::Missing(why));
        }
        self.provided(&resolved, &args, params).unwrap_or(Ty::Foreign(resolved))
    }

    /// A crate struct, enum or alias with arguments `args`.
    fn local(&mut self, item: &'a Container, args: Vec<syn::Type>, params: &[String]) -> Ty {
        if let Some(target) = item.alias() {
            // Aliases cannot recurse (rustc rejects it): expanded in place.
            let env = generic_env(&item.generics, &args);
            let target = self.resolve_in(&substituted(target, &env), params);
            return Ty::Alias { doc: item.doc.clone(), target: Box::new(target) };
        }
        Ty::Local(self.instance_of(item, args, params))
    }

    fn instance_of(&mut self, item: &'a Container, args: Vec<syn::Type>, params: &[String]) -> InstanceId {
        let key = type_key(&item.key(), &args);
        if let Some(id) = self.by_key.get(&key) {
            return *id;
        }
        let arg_tys = args.iter().map(|arg| self.resolve_in(arg, params)).collect();
        let env = generic_env(&item.generics, &args);
        let id = self.instances.len();
        let params = params.to_vec();
        self.instances.push(Instance { item, key: key.clone(), args, arg_tys, env, params, fields: None });
        self.by_key.insert(key, id);
        id
    }

    /// A built-in type that holds others.
    fn container(&mut self, kind: Kind<'_>, path: &syn::Path, params: &[String]) -> Ty {
        let mut resolve = |ty: &syn::Type| Box::new(self.resolve_in(ty, params));
        match kind {
            Kind::List(item, vec) => Ty::List { item: resolve(item), unique: false, vec },
            Kind::Set(item) => Ty::List { item: resolve(item), unique: true, vec: false },
            Kind::BoxedSlice(item) => Ty::List { item: resolve(item), unique: false, vec: false },
            Kind::Map(key, value) => Ty::Map { key: resolve(key), value: value.map(resolve) },
            Kind::Pointer(inner, boxed) => Ty::Pointer { inner: resolve(inner), boxed },
            Kind::Option(inner) => Ty::Option(resolve(inner)),
            Kind::Str => Ty::Str { borrowed: false },
            Kind::Untyped => Ty::Untyped { borrowed: false },
            Kind::JsonMap => Ty::JsonMap,
            Kind::OutputList(item) => {
                let output = Box::new(Ty::List { item: resolve(item), unique: false, vec: false });
                Ty::Split { input: Box::new(self.outside(path, params)), output }
            }
            Kind::Cow(inner) => {
                let output = resolve(inner);
                Ty::Split { input: Box::new(self.outside(path, params)), output }
            }
            Kind::Result => {
                let refused = "a nested `Result` serializes as `{\"Ok\": ..}` or `{\"Err\": ..}`".to_owned();
                Ty::Split {
                    input: Box::new(self.outside(path, params)),
                    output: Box::new(Ty::Refused(refused)),
                }
            }
        }
    }

    /// What a type provider says of `resolved` with `args`, if one knows it. Providers
    /// see the arguments' input schemas ([`args_schema`]).
    fn provided(&mut self, resolved: &str, args: &[syn::Type], params: &[String]) -> Option<Ty> {
        if self.providers.is_empty() {
            return None;
        }
        let schemas: Vec<Type> = args.iter().map(|arg| args_schema(&self.resolve_in(arg, params))).collect();
        self.providers.iter().find_map(|provider| provider.resolve(resolved, &schemas)).map(|found| {
            let strategy = found.decode.map_or(Strategy::Deserialize, Strategy::Provider);
            Ty::Provided { input: found.ty, strategy }
        })
    }
}

/// The input schema of a provided type's argument, as far as it can be told without
/// expanding crate types (which are `{}` to a provider).
fn args_schema(ty: &Ty) -> Type {
    match ty {
        Ty::Scalar { row, name } => (row.input)(name),
        Ty::Str { .. } => Type::string(),
        Ty::JsonMap => Type::Map(Box::new(Type::Any)),
        Ty::Option(inner) => args_schema(inner).nullable(),
        Ty::List { item, unique, .. } => Type::Array {
            items: Box::new(args_schema(item)),
            min_items: None,
            max_items: None,
            unique: *unique,
        },
        Ty::Map { value, .. } => Type::Map(Box::new(value.as_deref().map_or(Type::Any, args_schema))),
        Ty::Pointer { inner, .. } => args_schema(inner),
        Ty::Tuple(items) => Type::Tuple(items.iter().map(args_schema).collect()),
        Ty::Array { item, len } => Type::Array {
            items: Box::new(args_schema(item)),
            min_items: *len,
            max_items: *len,
            unique: false,
        },
        Ty::Alias { target, .. } => args_schema(target),
        Ty::Provided { input, .. } => input.clone(),
        _ => Type::Any,
    }
}

/// A path's segments joined with `::` (paths here are absolute).
pub fn joined(path: &syn::Path) -> String {
    segment_names(path).join("::")
}

/// A type as written, for messages.
fn text(ty: &syn::Type) -> String {
    quote::quote!(#ty).to_string()
}

/// What tells one instance from another: the type's path, with its generic arguments.
fn type_key(path: &str, args: &[syn::Type]) -> String {
    if args.is_empty() {
        return path.to_owned();
    }
    let args: Vec<String> = args.iter().map(text).collect();
    format!("{path}<{}>", args.join(", "))
}

/// The generic type arguments of a path segment, in order.
pub fn generic_args(segment: &syn::PathSegment) -> Vec<syn::Type> {
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

/// Replaces generic parameter names with concrete types.
struct Substitute<'s>(&'s BTreeMap<String, syn::Type>);

impl VisitMut for Substitute<'_> {
    fn visit_type_mut(&mut self, ty: &mut syn::Type) {
        if let syn::Type::Path(p) = ty
            && let Some(found) = p.path.get_ident().and_then(|i| self.0.get(&i.to_string()))
        {
            *ty = found.clone();
            return;
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}

/// `ty` with the generic parameters of `env` replaced by their arguments.
fn substituted(ty: &syn::Type, env: &BTreeMap<String, syn::Type>) -> syn::Type {
    let mut ty = ty.clone();
    if !env.is_empty() {
        Substitute(env).visit_type_mut(&mut ty);
    }
    ty
}

/// Generic parameter name -> concrete argument.
fn generic_env(generics: &syn::Generics, args: &[syn::Type]) -> BTreeMap<String, syn::Type> {
    generics.type_params().zip(args).map(|(p, a)| (p.ident.to_string(), a.clone())).collect()
}

/// The words of a type as a definition name reads them: each path by its last segment
/// (`Tree<crate::models::Leaf>` gives `Leaf`).
pub fn name_words(ty: &syn::Type) -> Vec<String> {
    struct Short;
    impl VisitMut for Short {
        fn visit_path_mut(&mut self, path: &mut syn::Path) {
            syn::visit_mut::visit_path_mut(self, path);
            if let Some(last) = path.segments.pop() {
                path.segments = std::iter::once(last.into_value()).collect();
            }
            path.leading_colon = None;
        }
    }
    let mut short = ty.clone();
    Short.visit_type_mut(&mut short);
    text(&short)
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}
