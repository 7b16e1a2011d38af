//! Decoding: a fold over the type tree saying how a value is decoded, and the wire shape
//! of each crate type's generated `FromArg` impl (read from its generic declaration, type
//! parameters standing for "any decodable type"). It builds no schema and reports
//! nothing: the schema fold of the same type says what there is to say.

use super::ty::{InstanceId, Ty};
use super::{Strategy, TypeMapper, container_strategy};
use crate::ast::{Container, Data, Style, Variant as VariantAst};
use crate::model::{Decode, Field, LocalImpl, Payload, Shape, Tagging, Variant};

/// Why `()` is no parameter.
pub(super) const UNIT: &str = "`()` carries no value";

/// Why a borrowed parameter other than `&str` and `&Value` is refused.
pub(super) const BORROWED: &str =
    "borrowed parameters other than `&str` and `&serde_json::Value` are not supported; take it by value";

/// Whether a field of `item` (or `item` itself) takes its default from a function.
fn uses_default_fn(item: &Container) -> bool {
    let fields: Vec<&crate::ast::Field> = match &item.data {
        Data::Struct(_, fields) => fields.iter().collect(),
        Data::Enum(variants) => variants.iter().flat_map(|v| &v.fields).collect(),
        Data::Alias(_) => Vec::new(),
    };
    item.attrs.default_fn || fields.iter().any(|f| f.attrs.default_fn)
}

/// Map keys must be strings on the wire.
pub(super) fn map_key(key: &Ty) -> Result<(), String> {
    if matches!(key, Ty::Scalar { name, .. } if name == "String") {
        Ok(())
    } else {
        Err("map keys must be `String` (JSON object keys are strings)".to_owned())
    }
}

impl<'a> TypeMapper<'a> {
    /// How a field, payload or parameter of type `ty` is decoded (`Option<T>`: may be absent).
    fn decode_of(&mut self, ty: &Ty) -> Result<Decode, String> {
        match ty {
            Ty::Option(inner) => Ok(self.strategy(inner)?.in_slot(true)),
            other => Ok(self.strategy(other)?.in_slot(false)),
        }
    }

    /// How a value of `ty` is decoded.
    fn strategy(&mut self, ty: &Ty) -> Result<Strategy, String> {
        Ok(match ty {
            Ty::Scalar { row, .. } => row.strategy(),
            Ty::Str { .. } | Ty::Untyped { .. } | Ty::JsonMap | Ty::Param => Strategy::FromArg,
            Ty::Option(inner)
            | Ty::List { item: inner, .. }
            | Ty::Pointer { inner, .. }
            | Ty::Array { item: inner, .. } => container_strategy(self.nested_strategy(inner)?),
            Ty::Map { key, value } => {
                map_key(key)?;
                let value = value.as_deref().ok_or("a map needs a value type")?;
                container_strategy(self.nested_strategy(value)?)
            }
            Ty::Tuple(items) => {
                let mut all_from_arg = items.len() <= 8;
                for item in items {
                    all_from_arg &= self.nested_strategy(item)? == Strategy::FromArg;
                }
                if all_from_arg { Strategy::FromArg } else { Strategy::Deserialize }
            }
            Ty::Unit => return Err(UNIT.to_owned()),
            Ty::Ref(_) => return Err(BORROWED.to_owned()),
            Ty::Split { input, .. } => self.strategy(input)?,
            Ty::Refused(why) => return Err(why.clone()),
            Ty::Alias { target, .. } => self.strategy(target)?,
            Ty::Local(id) => self.local_strategy(self.types.instance(*id).item)?,
            Ty::Provided { strategy, .. } => strategy.clone(),
            Ty::Foreign(_) | Ty::Missing(_) => Strategy::Deserialize,
            Ty::Unsupported(text) => return Err(format!("type `{text}` has no JSON mapping")),
        })
    }

    /// A type nested in a container, where `Option<T>` means nullable: decoded as `T` is.
    fn nested_strategy(&mut self, ty: &Ty) -> Result<Strategy, String> {
        match ty {
            Ty::Option(inner) => self.strategy(inner),
            other => self.strategy(other),
        }
    }

    /// How a crate struct or enum is decoded, computed once per declaration: its
    /// generated `FromArg` impl when it can have one (recorded for codegen), else serde
    /// when it derives `Deserialize`.
    pub(super) fn local_strategy(&mut self, item: &'a Container) -> Result<Strategy, String> {
        let key = item.key();
        if let Some(known) = self.strategies.get(&key) {
            return known.clone();
        }
        if self.deciding.contains(&key) {
            // A cycle: assume the impl that is being built.
            return Ok(Strategy::FromArg);
        }
        self.deciding.enter(key.clone());
        let declaration = self.types.declaration(item);
        let shape = self.shape_of(item, declaration);
        self.deciding.leave();
        let result = self.finish_local(item, shape);
        self.strategies.insert(key, result.clone());
        result
    }

    /// The wire shape of a struct or enum, from its generic declaration.
    fn shape_of(&mut self, item: &Container, declaration: InstanceId) -> Result<Shape, String> {
        let types = self.types.fields(declaration);
        match &item.data {
            Data::Struct(style, fields) => {
                let all = (item.attrs.default, item.attrs.default_fn);
                self.fields_shape(*style, fields, &types[0], all)
            }
            Data::Enum(variants) => self.enum_shape(item, variants, &types),
            Data::Alias(_) => Err("aliases are expanded".to_owned()),
        }
    }

    /// The path generated code names `item` by, from the crate root; `Err` says why
    /// there is none.
    fn nameable(&self, item: &Container) -> Result<syn::Path, String> {
        let ident = item.ident.to_string();
        let names = self.crate_tree.nameable_path(&item.module, &ident).ok_or_else(|| {
            format!(
                "it is declared in `{}`, a module private to its parent, so generated code cannot name \
                 it; make the module `pub(crate)` or re-export the type with `pub use`",
                item.key().trim_end_matches(&format!("::{ident}"))
            )
        })?;
        let segments = names.iter().map(|name| match crate::parse::module_ident(name) {
            Some(ident) => ident,
            None => syn::Ident::new(name, proc_macro2::Span::call_site()),
        });
        Ok(syn::Path { leading_colon: None, segments: segments.map(syn::PathSegment::from).collect() })
    }

    /// Why no `FromArg` impl can be generated for `item`, if none can.
    fn impl_possible(&self, item: &Container) -> Result<(), String> {
        if !item.visible {
            return Err("it is private (make it `pub` or `pub(crate)`)".to_owned());
        }
        if item.generics.lifetimes().next().is_some() || item.generics.const_params().next().is_some() {
            return Err("it has lifetime or const parameters".to_owned());
        }
        if item.attrs.transparent {
            return Err("`#[serde(transparent)]` is decoded by serde".to_owned());
        }
        self.nameable(item)?;
        if let Some(how) = item.attrs.custom_deserialize {
            return Err(format!("`#[serde({how})]` is decoded by serde"));
        }
        if uses_default_fn(item) && !item.derives_deserialize {
            return Err("a `#[serde(default = \"..\")]` function is called by serde only, and it does not derive `Deserialize`".to_owned());
        }
        if let Data::Struct(_, fields) = &item.data {
            for field in fields {
                if !field.attrs.skip_deserializing && !field.visible {
                    let which = field
                        .ident
                        .as_ref()
                        .map_or_else(|| field.name.deserialize.clone(), ToString::to_string);
                    return Err(format!("field `{which}` is private (make it `pub` or `pub(crate)`)"));
                }
                if field.attrs.flatten || field.attrs.custom_deserialize {
                    return Err("a field uses `flatten` or `with`, decoded by serde".to_owned());
                }
            }
        }
        Ok(())
    }

    /// Decides the strategy for a crate struct/enum and records its impl. A private type
    /// is an error whatever it derives: generated code calls the tool from outside its
    /// module, where the type cannot be named, not even by inference.
    fn finish_local(&mut self, item: &Container, shape: Result<Shape, String>) -> Result<Strategy, String> {
        let name = item.ident.to_string();
        if !item.visible {
            return Err(format!(
                "local type `{name}` is private; generated code calls tools from outside their module, so make it `pub` or `pub(crate)`"
            ));
        }
        let possible = self.impl_possible(item).and(shape.clone().map(|_| ()));
        match (possible, shape) {
            (Ok(()), Ok(shape)) => {
                let path = self.nameable(item)?;
                self.impls.entry(item.key()).or_insert(LocalImpl {
                    path,
                    ident: item.ident.clone(),
                    generics: item.generics.clone(),
                    shape,
                    fast: false,
                    merged: false,
                });
                Ok(Strategy::FromArg)
            }
            _ if item.derives_deserialize => Ok(Strategy::Deserialize),
            (Err(why), _) | (_, Err(why)) => Err(format!(
                "local type `{name}` cannot be decoded: {why}, and it does not derive `Deserialize`"
            )),
        }
    }

    fn fields_shape(
        &mut self,
        style: Style,
        fields: &[crate::ast::Field],
        types: &[Ty],
        all_default: (bool, bool),
    ) -> Result<Shape, String> {
        Ok(match (style, types) {
            (Style::Named, _) => Shape::Struct(self.named_fields(fields, types, all_default)?),
            (Style::Newtype, [ty, ..]) => Shape::Newtype(self.decode_of(ty)?),
            (Style::Tuple, _) => {
                Shape::TupleStruct(types.iter().map(|ty| self.decode_of(ty)).collect::<Result<_, _>>()?)
            }
            (Style::Unit, _) | (Style::Newtype, []) => Shape::Unit,
        })
    }

    /// The fields as the generated decoder reads them; `all_default` is the container's
    /// `default` and whether it names a function.
    fn named_fields(
        &mut self,
        fields: &[crate::ast::Field],
        types: &[Ty],
        (all_default, all_default_fn): (bool, bool),
    ) -> Result<Vec<Field>, String> {
        let mut out = Vec::new();
        for (field, ty) in fields.iter().zip(types) {
            let Some(ident) = &field.ident else { continue };
            let decode = if field.attrs.skip_deserializing { None } else { Some(self.decode_of(ty)?) };
            out.push(Field {
                ident: ident.clone(),
                wire: field.name.deserialize.clone(),
                aliases: field.attrs.aliases.clone(),
                decode,
                default: field.attrs.default || all_default,
                default_fn: field.attrs.default_fn || all_default_fn,
            });
        }
        Ok(out)
    }

    /// How the generated impl tells an enum's variants apart and decodes their payloads.
    fn enum_shape(
        &mut self,
        item: &Container,
        variants: &[VariantAst],
        types: &[Vec<Ty>],
    ) -> Result<Shape, String> {
        let tagging = item.attrs.tagging.clone();
        let mut out = Vec::new();
        let internal = matches!(tagging, Tagging::Internal(_));
        for (variant, fields) in variants.iter().zip(types).filter(|(v, _)| !v.attrs.skip_deserializing) {
            let payload = match (internal, variant.style, fields.as_slice()) {
                (true, Style::Newtype, [inner]) if self.reads_beside_a_tag(inner) => Payload::Merged,
                _ => self.payload_shape(variant.style, &variant.fields, fields)?,
            };
            out.push(Variant {
                ident: variant.ident.clone(),
                wire: variant.name.deserialize.clone(),
                aliases: variant.attrs.aliases.clone(),
                payload,
            });
        }
        let unmerged = out.iter().any(|v| matches!(v.payload, Payload::Newtype(_) | Payload::Tuple(_)));
        if internal && unmerged {
            // serde merges a newtype variant's payload with the tag; the generated
            // decoder does it for structs of the crate only, so other such enums are
            // decoded by serde.
            return Err("an internally tagged enum has a tuple variant, or a newtype variant over something other than a struct of the crate".to_owned());
        }
        Ok(Shape::Enum { tagging, variants: out })
    }

    /// Whether an internally tagged newtype variant over `ty` is read by the generated
    /// decoder: `ty` is a struct of the crate with named fields and a generated decoder,
    /// which then also reads it beside a tag.
    fn reads_beside_a_tag(&mut self, ty: &Ty) -> bool {
        let Ty::Local(id) = ty else { return false };
        let item = self.types.instance(*id).item;
        if !matches!(item.data, Data::Struct(Style::Named, _)) {
            return false;
        }
        let reads = matches!(self.local_strategy(item), Ok(Strategy::FromArg));
        if reads {
            self.merged.insert(item.key());
        }
        reads
    }

    fn payload_shape(
        &mut self,
        style: Style,
        fields: &[crate::ast::Field],
        types: &[Ty],
    ) -> Result<Payload, String> {
        Ok(match (style, types) {
            (Style::Named, _) => Payload::Struct(self.named_fields(fields, types, (false, false))?),
            (Style::Newtype, [ty, ..]) => Payload::Newtype(self.decode_of(ty)?),
            (Style::Tuple, _) => {
                Payload::Tuple(types.iter().map(|ty| self.decode_of(ty)).collect::<Result<_, _>>()?)
            }
            (Style::Unit, _) | (Style::Newtype, []) => Payload::Unit,
        })
    }
}
