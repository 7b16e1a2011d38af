//! The one type mapper: each Rust type a tool names is resolved once into a tree
//! ([`ty::Ty`]), and everything the build says about the type is a fold over that tree.
//!
//! - [`ty`]: `syn::Type` -> [`Ty`](ty::Ty): built-ins, crate types (generic arguments
//!   substituted, recursion as a reference to one instance), provided types, missing and
//!   foreign ones. The only place that matches `syn` types.
//! - [`builtin`]: the built-in table. **A new built-in type without type arguments is one
//!   row of `builtin::SCALARS`**; a new container is one arm of `builtin::container`.
//! - `schema`: the input schema (crate types inlined as serde deserializes them, recursive
//!   ones as `$defs`, a budget of [`INLINE_BUDGET`] inlinings per parameter), with the
//!   warnings about what a model cannot be told.
//! - `decoding`: how each value is decoded, and the wire shape of each crate type's
//!   generated `FromArg` impl.
//! - `fast`: which types the one-pass fast reader takes.
//! - `output`: the serialized shape of a result (the output schema).
//!
//! Every fold that follows crate types through each other guards against cycles with one
//! [`Guard`].

mod builtin;
mod decoding;
mod fast;
mod output;
mod schema;
pub mod ty;

pub use fast::MAX_SLOTS;

use std::collections::BTreeMap;
use std::path::Path;

use proc_macro2::Span;
use toolcall_runtime::ir::{Definition, Param, Type};

use crate::diagnostics::Diagnostics;
use crate::model::{Decode, LocalImpl};
use crate::parse::ParsedFile;
use crate::provider::TypeProvider;
use crate::tree::CrateTree;
use crate::tree::resolve::Resolver;
use ty::{Ty, TypeTree};

/// How many crate types one parameter may inline before the rest becomes `{}`.
pub const INLINE_BUDGET: usize = 100;

/// How a mapped type is decoded, before `Option` handling.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// `FromArg` (std types, crate types with generated impls).
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
    /// The doc of the crate type used directly (typedoc fallback); "" when none.
    pub type_doc: String,
    /// The integer type under `Option`, when it is one (for the string-integer wire).
    pub integer: bool,
}

/// The one cycle guard: the crate types a fold is inside, outermost first, and whether
/// each was met again inside itself.
#[derive(Debug, Default)]
struct Guard {
    open: Vec<(String, bool)>,
}

impl Guard {
    /// Whether `key` is open; if it is, it is marked as met again.
    fn reenter(&mut self, key: &str) -> bool {
        match self.open.iter_mut().find(|(open, _)| open == key) {
            Some((_, again)) => {
                *again = true;
                true
            }
            None => false,
        }
    }

    /// Whether `key` is open.
    fn contains(&self, key: &str) -> bool {
        self.open.iter().any(|(open, _)| open == key)
    }

    fn enter(&mut self, key: String) {
        self.open.push((key, false));
    }

    /// Closes the innermost type; `true` when it was met again inside itself.
    fn leave(&mut self) -> bool {
        self.open.pop().is_some_and(|(_, again)| again)
    }
}

/// Maps the types of one tool file: resolves them into the tree, folds the tree, and
/// collects the `FromArg` impls the crate's types need.
pub struct TypeMapper<'a> {
    types: TypeTree<'a>,
    crate_tree: &'a CrateTree,
    module: &'a [String],
    diags: &'a Diagnostics,
    file: &'a Path,
    impls: &'a mut BTreeMap<String, LocalImpl>,
    /// Where warnings about the parameter being mapped point.
    span: Span,
    /// The schema fold's state for one tool ([`schema`]).
    schema: schema::State,
    /// How each crate type (by declaration) is decoded, computed once.
    strategies: BTreeMap<String, Result<Strategy, String>>,
    /// Declarations whose strategy is being computed.
    deciding: Guard,
    /// Whether each crate type (by declaration) has the fast decoder, once known.
    fast_locals: BTreeMap<String, bool>,
    /// The order `fast_locals` learned its answers in (to forget the ones that rested on
    /// an assumption that failed).
    fast_order: Vec<String>,
    /// Declarations whose fast decoder is being read.
    fast_reading: Guard,
    /// Structs an internally tagged enum reads beside its tag.
    merged: std::collections::BTreeSet<String>,
    /// The features the crate's toolcall-runtime has, when the build knows them
    /// ([`crate::Builder::compile`] reads them from cargo); `None`: not checked.
    runtime_features: Option<&'a std::collections::BTreeSet<String>>,
}

impl<'a> TypeMapper<'a> {
    /// A mapper for the tool file `parsed` (module `module` of `tree`), recording the
    /// impls the crate's types need into `impls` (one table for the whole crate).
    pub fn new(
        parsed: &'a ParsedFile,
        (crate_tree, module): (&'a CrateTree, &'a [String]),
        providers: &'a [Box<dyn TypeProvider + Send + Sync>],
        diags: &'a Diagnostics,
        impls: &'a mut BTreeMap<String, LocalImpl>,
    ) -> Self {
        TypeMapper {
            types: TypeTree::new(crate_tree, providers),
            crate_tree,
            module,
            diags,
            file: &parsed.file,
            impls,
            span: Span::call_site(),
            schema: schema::State::default(),
            strategies: BTreeMap::new(),
            deciding: Guard::default(),
            fast_locals: BTreeMap::new(),
            fast_order: Vec::new(),
            fast_reading: Guard::default(),
            merged: std::collections::BTreeSet::new(),
            runtime_features: None,
        }
    }

    /// Checks every built-in type that needs a toolcall-runtime feature against
    /// `features`, the ones the crate's toolcall-runtime has.
    pub fn with_runtime_features(mut self, features: Option<&'a std::collections::BTreeSet<String>>) -> Self {
        self.runtime_features = features;
        self
    }

    /// An error at the parameter being mapped when `feature` of toolcall-runtime decodes
    /// `name` and the crate's toolcall-runtime does not have it (instead of a trait error
    /// inside the generated code).
    fn check_runtime_feature(&mut self, name: &str, feature: &str) {
        if self.runtime_features.is_some_and(|features| !features.contains(feature)) {
            self.error_at(
                self.span,
                format!(
                    "`{name}` is decoded by toolcall-runtime's `{feature}` feature, which this crate does not \
                     enable: add `features = [\"{feature}\"]` to its toolcall-runtime dependency"
                ),
            );
        }
    }

    /// Resolves a type written in the tool file: its paths made absolute, then the tree.
    pub fn resolve(&mut self, ty: &syn::Type) -> Ty {
        let mut ty = ty.clone();
        Resolver::new(self.crate_tree, self.module).absolute(&mut ty, &[]);
        self.types.resolve(&ty)
    }

    /// Records an error at `span` in the tool file.
    pub fn error_at(&mut self, span: Span, message: String) {
        self.diags.error(self.file, span, message);
    }

    /// A warning at `span` in the tool file.
    fn warn_at(&mut self, span: Span, message: String) {
        self.diags.warn(self.file, span, message);
    }

    /// A warning about the parameter being mapped, at its span.
    fn warn(&mut self, message: String) {
        self.warn_at(self.span, message);
    }

    /// Maps a parameter's type; warnings point at `span`. Each call has its own budget.
    pub fn slot(&mut self, ty: &Ty, span: Span) -> Result<Mapped, String> {
        self.span = span;
        self.schema.budget = INLINE_BUDGET;
        self.map_slot(ty)
    }

    /// Hands over the definitions `params` (one tool's parameters, as mapped since the
    /// last call) refer to, in the order they are first used, and forgets the rest: call
    /// it once per tool, after its parameters.
    pub fn definitions(&mut self, params: &[Param]) -> Vec<Definition> {
        self.schema.take_definitions(params)
    }

    /// Maps a slot (parameter or field): `Option<T>` makes it optional, and
    /// `Option<Option<T>>` optional and nullable.
    fn map_slot(&mut self, ty: &Ty) -> Result<Mapped, String> {
        let (inner, optional) = match ty {
            Ty::Option(inner) => (inner.as_ref(), true),
            other => (other, false),
        };
        let type_doc = self.type_doc(inner);
        let integer = matches!(inner, Ty::Scalar { row, .. } if row.integer);
        let (ir, strategy) = self.map(inner)?;
        let decode = strategy.in_slot(optional);
        Ok(Mapped { ty: ir, decode, optional, type_doc, integer })
    }

    /// The doc of the crate type a slot names directly, following aliases to the
    /// nearest documented type.
    fn type_doc(&self, ty: &Ty) -> String {
        match ty {
            Ty::Alias { doc, .. } if !doc.is_empty() => doc.clone(),
            Ty::Alias { target, .. } => self.type_doc(target),
            Ty::Local(id) => self.types.instance(*id).item.doc.clone(),
            _ => String::new(),
        }
    }
}

impl Strategy {
    /// How a slot of a type decoded this way is decoded (`optional`: `Option<_>`).
    fn in_slot(self, optional: bool) -> Decode {
        match self {
            Strategy::FromArg => Decode::FromArg,
            Strategy::Deserialize => Decode::Deserialize { optional },
            Strategy::Provider(function) => Decode::Provider { function, optional },
        }
    }
}

/// Containers of `FromArg` types are `FromArg`; anything else goes through serde.
fn container_strategy(inner: Strategy) -> Strategy {
    match inner {
        Strategy::FromArg => Strategy::FromArg,
        _ => Strategy::Deserialize,
    }
}
