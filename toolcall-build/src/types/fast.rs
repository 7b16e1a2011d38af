//! The fast reader: a fold over the type tree saying whether values of a type have the
//! one-pass decoder (`toolcall_runtime::__private::fast::FastArg`), which reads an object
//! once with a generated key `match`, from argument text or a `Value`.
//!
//! Scalars marked fast in the built-in table, `&str`, `Option`, `Vec`, `Box`, and crate
//! structs with named fields (at most `MAX_SLOTS`) and enums of unit variants whose parts
//! all have it. Anything else (maps, sets, tuples, dates, serde-decoded or provided
//! types, tagged enums with data) keeps only the exact decoder: a tool with such a
//! parameter decodes through a `Value`. Reports nothing; builds no schema.

use super::ty::Ty;
use super::{Strategy, TypeMapper};
use crate::ast::{Container, Data, Style};
use crate::model::{Payload, Shape, Tagging};

/// The most parameters or fields one fast decoder fills (the runtime's slot tuples).
pub const MAX_SLOTS: usize = toolcall_runtime::__private::fast::MAX_SLOTS;

impl<'a> TypeMapper<'a> {
    /// Whether values of `ty` have the one-pass fast decoder.
    pub fn is_fast(&mut self, ty: &Ty) -> bool {
        match ty {
            Ty::Scalar { row, .. } => row.fast,
            Ty::Str { borrowed } => *borrowed,
            Ty::Param => true,
            Ty::Option(inner) => self.is_fast(inner),
            Ty::List { item, vec: true, .. } => self.is_fast(item),
            Ty::Pointer { inner, boxed: true } => self.is_fast(inner),
            Ty::Alias { target, .. } => self.is_fast(target),
            Ty::Local(id) => {
                let instance = self.types.instance(*id);
                let (item, args) = (instance.item, instance.arg_tys.clone());
                self.is_fast_local(item) && args.iter().all(|arg| self.is_fast(arg))
            }
            _ => false,
        }
    }

    /// Whether a crate struct or enum gets a `FastArg` impl (read from its generic
    /// declaration), computed once. A type met again while it is being read is assumed
    /// to have one; when a type turns out not to, every answer given since it started
    /// is forgotten, since it may have rested on that assumption.
    fn is_fast_local(&mut self, item: &'a Container) -> bool {
        let key = item.key();
        if let Some(known) = self.fast_locals.get(&key) {
            return *known;
        }
        if self.fast_reading.contains(&key) {
            return true;
        }
        if !matches!(self.local_strategy(item), Ok(Strategy::FromArg)) {
            self.fast_locals.insert(key, false);
            return false;
        }
        let started = self.fast_order.len();
        self.fast_reading.enter(key.clone());
        let fast = self.shape_is_fast(item);
        self.fast_reading.leave();
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
    fn shape_is_fast(&mut self, item: &'a Container) -> bool {
        let Some(shape) = self.impls.get(&item.key()).map(|local| local.shape.clone()) else { return false };
        match (&item.data, &shape) {
            (Data::Struct(Style::Named, fields), Shape::Struct(_)) => {
                let declaration = self.types.declaration(item);
                let types = self.types.fields(declaration);
                let decoded: Vec<&Ty> = fields
                    .iter()
                    .zip(&types[0])
                    .filter(|(field, _)| !field.attrs.skip_deserializing)
                    .map(|(_, ty)| ty)
                    .collect();
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
            local.merged |= self.merged.contains(key);
        }
    }
}
