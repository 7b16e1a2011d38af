//! The decoder's reading of a type: how a value of it is decoded, read from the type
//! alone. It builds no schema and reports nothing: the schema walk of the same type says
//! what there is to say, and both read the same tables ([`scalar`], [`classify`]).

use super::builtin::{Generic, classify, map_key, option_inner, scalar};
use super::local::substituted;
use super::{Strategy, TypeMapper, container_strategy, generic_args};
use crate::model::Decode;

impl TypeMapper<'_> {
    /// How a field, payload or parameter of type `ty` is decoded (`Option<T>`: may be absent).
    pub(super) fn decode_of(&mut self, ty: &syn::Type) -> Result<Decode, String> {
        match option_inner(ty) {
            Some(inner) => Ok(Decode::of(self.strategy(inner)?, true)),
            None => Ok(Decode::of(self.strategy(ty)?, false)),
        }
    }

    /// How a value of `ty` is decoded.
    fn strategy(&mut self, ty: &syn::Type) -> Result<Strategy, String> {
        match ty {
            syn::Type::Paren(p) => self.strategy(&p.elem),
            syn::Type::Group(g) => self.strategy(&g.elem),
            syn::Type::Reference(r) => self.reference(r).map(|(_, strategy)| strategy),
            syn::Type::Tuple(t) if t.elems.is_empty() => Err("`()` carries no value".to_owned()),
            syn::Type::Tuple(t) => {
                let mut all_from_arg = t.elems.len() <= 8;
                for elem in &t.elems {
                    all_from_arg &= self.nested_strategy(elem)? == Strategy::FromArg;
                }
                Ok(if all_from_arg { Strategy::FromArg } else { Strategy::Deserialize })
            }
            syn::Type::Array(a) => Ok(container_strategy(self.nested_strategy(&a.elem)?)),
            syn::Type::Path(p) if p.qself.is_none() => self.path_strategy(&p.path),
            other => Err(format!("type `{}` has no JSON mapping", quote::quote!(#other))),
        }
    }

    /// A type nested in a container, where `Option<T>` means nullable: decoded as `T` is.
    fn nested_strategy(&mut self, ty: &syn::Type) -> Result<Strategy, String> {
        self.strategy(option_inner(ty).unwrap_or(ty))
    }

    /// A named type: a generic parameter, a built-in, a local type or a provided one, in
    /// the schema walk's order.
    fn path_strategy(&mut self, path: &syn::Path) -> Result<Strategy, String> {
        let Some(last) = path.segments.last() else { return Err("empty type path".to_owned()) };
        let name = last.ident.to_string();
        if path.segments.len() == 1 && self.placeholders.contains(&name) {
            return Ok(Strategy::FromArg);
        }
        let args = generic_args(last);
        if !self.shadowed_by_local(path, &name) {
            let resolved = self.resolved(path);
            if let Some((_, strategy)) = scalar(&name, &resolved) {
                return Ok(strategy);
            }
            if let Some(generic) = classify(&name, &resolved, &args) {
                return self.generic_strategy(generic);
            }
        }
        if let Some(known) = self.provided.get(&super::path_key(path)) {
            return Ok(known.clone());
        }
        if let Some(item) = self.local_item(path) {
            return match item.alias() {
                Some(target) => {
                    let env = super::local::generic_env(&item.generics, &args);
                    self.strategy(&substituted(target, &env))
                }
                None => self.local_strategy(&name, item),
            };
        }
        Ok(self.provided_strategy(path))
    }

    /// A built-in generic type is decoded as what it holds is.
    fn generic_strategy(&mut self, generic: Generic<'_>) -> Result<Strategy, String> {
        match generic {
            Generic::List(inner) | Generic::Set(inner) | Generic::Pointer(inner) | Generic::Option(inner) => {
                Ok(container_strategy(self.nested_strategy(inner)?))
            }
            Generic::Map(key, value) => {
                map_key(key)?;
                let value = value.ok_or("a map needs a value type")?;
                Ok(container_strategy(self.nested_strategy(value)?))
            }
            Generic::Untyped | Generic::Fixed(_) => Ok(Strategy::FromArg),
        }
    }
}
