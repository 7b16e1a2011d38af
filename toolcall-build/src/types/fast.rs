//! The fast decoder's reading of a type: whether values of it have the one-pass decoder
//! (`toolcall_runtime::__private::fast::FastArg`), which reads an object once with a
//! generated key `match`, from argument text or a `Value`.
//!
//! Scalars, `String`, `&str`, `char`, `Option`, `Vec`, `Box`, and local structs with
//! named fields (at most `MAX_SLOTS`) and enums of unit variants whose parts all have it.
//! Anything else (maps, sets, tuples, dates, serde-decoded or provided types, tagged
//! enums with data) keeps only the exact decoder: a tool with such a parameter decodes
//! through a `Value`, as before. Reports nothing; builds no schema.

use super::builtin::{Generic, classify, scalar};
use super::local::{generic_env, substituted};
use super::{Strategy, TypeMapper, generic_args};
use crate::ast::{Container, Data, Style};
use crate::model::{Payload, Shape, Tagging};

/// The most parameters or fields one fast decoder fills (the runtime's slot tuples).
pub const MAX_SLOTS: usize = toolcall_runtime::__private::fast::MAX_SLOTS;

/// Scalars with a `FastArg` impl in the runtime.
const FAST_SCALARS: &[&str] = &[
    "bool", "i8", "i16", "i32", "i64", "isize", "u8", "u16", "u32", "u64", "usize", "f32", "f64", "String",
    "char",
];

impl<'a> TypeMapper<'a> {
    /// Whether values of `ty` have the one-pass fast decoder.
    pub fn is_fast(&mut self, ty: &syn::Type) -> bool {
        match ty {
            syn::Type::Paren(p) => self.is_fast(&p.elem),
            syn::Type::Group(g) => self.is_fast(&g.elem),
            syn::Type::Reference(r) => {
                r.mutability.is_none() && matches!(&*r.elem, syn::Type::Path(p) if p.path.is_ident("str"))
            }
            syn::Type::Path(p) if p.qself.is_none() => self.is_fast_path(&p.path),
            _ => false,
        }
    }

    /// A named type: a generic parameter of the impl being read, a built-in, or a local.
    fn is_fast_path(&mut self, path: &syn::Path) -> bool {
        let Some(last) = path.segments.last() else { return false };
        let name = last.ident.to_string();
        if path.segments.len() == 1 && self.placeholders.contains(&name) {
            return true;
        }
        let args = generic_args(last);
        if !self.shadowed_by_local(path, &name) {
            let resolved = self.resolved(path);
            if scalar(&name, &resolved).is_some() {
                return args.is_empty() && FAST_SCALARS.contains(&name.as_str());
            }
            if let Some(generic) = classify(&name, &resolved, &args) {
                return match generic {
                    Generic::Option(inner) => self.is_fast(inner),
                    Generic::List(inner) if name == "Vec" => self.is_fast(inner),
                    Generic::Pointer(inner) if name == "Box" => self.is_fast(inner),
                    _ => false,
                };
            }
        }
        if self.provided.contains_key(&super::path_key(path)) {
            return false;
        }
        let Some(item) = self.local_item(path) else { return false };
        match &item.data {
            Data::Alias(target) => {
                let env = generic_env(&item.generics, &args);
                self.is_fast(&substituted(target, &env))
            }
            _ => self.is_fast_local(&name, item) && args.iter().all(|arg| self.is_fast(arg)),
        }
    }

    /// Whether a local struct or enum gets a `FastArg` impl (read from its generic
    /// declaration), computed once. A type met again while it is being read is assumed
    /// to have one; when a type turns out not to, every answer given since it started
    /// is forgotten, since it may have rested on that assumption.
    fn is_fast_local(&mut self, name: &str, item: &'a Container) -> bool {
        let key = item.key();
        if let Some(known) = self.fast_locals.get(&key) {
            return *known;
        }
        if self.fast_in_progress.contains(&key) {
            return true;
        }
        if !matches!(self.local_strategy(name, item), Ok(Strategy::FromArg)) {
            self.fast_locals.insert(key, false);
            return false;
        }
        let started = self.fast_order.len();
        self.fast_in_progress.push(key.clone());
        let params = item.generics.type_params().map(|p| p.ident.to_string()).collect();
        let saved = std::mem::replace(&mut self.placeholders, params);
        let fast = self.shape_is_fast(item);
        self.placeholders = saved;
        self.fast_in_progress.pop();
        if !fast {
            for forgotten in self.fast_order.drain(started..) {
                self.fast_locals.remove(&forgotten);
            }
        }
        self.fast_locals.insert(key.clone(), fast);
        self.fast_order.push(key);
        fast
    }

    /// Named-field structs whose decoded fields are all fast, and unit-only enums with
    /// serde's default (external) tagging, as their generated `FromArg` impl reads them.
    fn shape_is_fast(&mut self, item: &Container) -> bool {
        let Some(local) = self.impls.get(&item.key()) else { return false };
        match (&item.data, &local.shape) {
            (Data::Struct(Style::Named, fields), Shape::Struct(_)) => {
                let decoded: Vec<&syn::Type> =
                    fields.iter().filter(|f| !f.attrs.skip_deserializing).map(|f| &f.ty).collect();
                decoded.len() <= MAX_SLOTS && decoded.into_iter().all(|ty| self.is_fast(ty))
            }
            (Data::Enum(_), Shape::Enum { tagging: Tagging::External, variants }) => {
                !variants.is_empty() && variants.iter().all(|v| matches!(v.payload, Payload::Unit))
            }
            _ => false,
        }
    }

    /// Marks the impls this file's tools made or met that get a `FastArg` impl (call
    /// once, after the file's tools). Whether a type has one is the type's own property,
    /// so every file that meets it gives the same answer.
    pub fn mark_fast_impls(&mut self) {
        for (key, local) in self.impls.iter_mut() {
            if let Some(fast) = self.fast_locals.get(key) {
                local.fast = *fast;
            }
        }
    }
}
