//! Local types: structs, enums and aliases declared in the same tool file, inlined into
//! the schema as serde would (de)serialize them, with a `FromArg` impl recorded for codegen.

use std::collections::BTreeMap;

use syn::visit_mut::VisitMut;
use toolcall_runtime::ir::{EnumVariant, Param, Type};

use super::serde_attrs::{self, ContainerAttrs};
use super::{Strategy, TypeMapper};
use crate::model::{Decode, Field, LocalImpl, Payload, Shape, Tagging, Variant};
use crate::parse::LocalItem;
use crate::parse::docs::{doc_text, parse_docs};

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

fn substituted(ty: &syn::Type, env: &BTreeMap<String, syn::Type>) -> syn::Type {
    let mut ty = ty.clone();
    if !env.is_empty() {
        Substitute(env).visit_type_mut(&mut ty);
    }
    ty
}

fn docs_of(attrs: &[syn::Attribute]) -> String {
    parse_docs(&doc_text(attrs)).description
}

fn is_crate_visible(vis: &syn::Visibility) -> bool {
    match vis {
        syn::Visibility::Public(_) => true,
        syn::Visibility::Restricted(r) => r.path.is_ident("crate"),
        syn::Visibility::Inherited => false,
    }
}

/// The wire name of a field under the container's `rename_all`.
fn field_wire(ident: &syn::Ident, attrs: &serde_attrs::MemberAttrs, rule: Option<&str>) -> String {
    let name = crate::parse::defaults::unraw(ident);
    match (&attrs.rename, rule) {
        (Some(rename), _) => rename.clone(),
        (None, Some(rule)) => serde_attrs::rename_field(&name, rule),
        (None, None) => name,
    }
}

impl TypeMapper<'_> {
    /// Expands local item `name` with generic arguments `args`.
    pub(super) fn local(
        &mut self,
        name: &str,
        item: LocalItem,
        args: Vec<syn::Type>,
    ) -> Result<(Type, Strategy), String> {
        let env = generic_env(item.generics(), &args);
        if let LocalItem::Alias(alias) = &item {
            // Aliases cannot recurse (rustc rejects it); expanding one costs no budget.
            return self.map(&substituted(&alias.ty, &env));
        }
        if self.decode_only || self.stack.iter().any(|s| s == name) {
            // Decoding needs only the strategy; a recursive reference stops here and
            // accepts anything in the schema.
            return Ok((Type::Any, self.local_strategy(name, &item)?));
        }
        if self.budget == 0 {
            self.warn(format!(
                "inlining budget of {} local types exhausted at `{name}`: the rest is `{{}}`",
                super::INLINE_BUDGET
            ));
            return Ok((Type::Any, self.local_strategy(name, &item)?));
        }
        self.budget -= 1;
        self.stack.push(name.to_owned());
        let schema = match &item {
            LocalItem::Struct(s) => self.struct_schema(s, &env),
            LocalItem::Enum(e) => self.enum_schema(e, &env),
            LocalItem::Alias(_) => Ok(Type::Any),
        };
        self.stack.pop();
        Ok((schema?, self.local_strategy(name, &item)?))
    }

    /// How a local struct or enum is decoded, computed once per type (memoized): its
    /// generated `FromArg` impl when it can have one, else serde when it derives
    /// `Deserialize`. The impl is recorded for codegen.
    fn local_strategy(&mut self, name: &str, item: &LocalItem) -> Result<Strategy, String> {
        if let Some(known) = self.strategies.get(name) {
            return known.clone();
        }
        if self.in_progress.iter().any(|n| n == name) {
            // A cycle: assume the impl that is being built.
            return Ok(Strategy::FromArg);
        }
        self.in_progress.push(name.to_owned());
        let shape = self.shape_of(item);
        self.in_progress.pop();
        let result = self.finish_local(name, item, shape);
        self.strategies.insert(name.to_owned(), result.clone());
        result
    }

    /// The wire shape of a struct or enum, from its generic declaration (type
    /// parameters stand for "any `FromArg` type"), without touching the schema.
    fn shape_of(&mut self, item: &LocalItem) -> Result<Shape, String> {
        let params = item.generics().type_params().map(|p| p.ident.to_string()).collect();
        let saved = std::mem::replace(&mut self.placeholders, params);
        let shape = match item {
            LocalItem::Struct(s) => self.fields_shape(&s.fields, &serde_attrs::container(&s.attrs)),
            LocalItem::Enum(e) => self.enum_shape(e),
            LocalItem::Alias(_) => Err("aliases are expanded".to_owned()),
        };
        self.placeholders = saved;
        shape
    }

    /// Why no `FromArg` impl can be generated for `item`, if none can.
    fn impl_possible(&self, item: &LocalItem) -> Result<(), String> {
        let (vis, attrs, generics) = match item {
            LocalItem::Struct(s) => (&s.vis, &s.attrs, &s.generics),
            LocalItem::Enum(e) => (&e.vis, &e.attrs, &e.generics),
            LocalItem::Alias(_) => return Err("aliases are expanded".to_owned()),
        };
        if !is_crate_visible(vis) {
            return Err("it is private (make it `pub` or `pub(crate)`)".to_owned());
        }
        if generics.lifetimes().next().is_some() || generics.const_params().next().is_some() {
            return Err("it has lifetime or const parameters".to_owned());
        }
        let container = serde_attrs::container(attrs);
        if container.transparent {
            return Err("`#[serde(transparent)]` is decoded by serde".to_owned());
        }
        if let LocalItem::Struct(s) = item {
            for field in &s.fields {
                let attrs = serde_attrs::member(&field.attrs);
                if !attrs.skip && !is_crate_visible(&field.vis) {
                    return Err("a field is private (make fields `pub` or `pub(crate)`)".to_owned());
                }
                if attrs.flatten || attrs.custom {
                    return Err("a field uses `flatten` or `with`, decoded by serde".to_owned());
                }
            }
        }
        Ok(())
    }

    /// Decides the strategy for a local struct/enum and records its impl. A private type
    /// is an error whatever it derives: generated code calls the tool from outside its
    /// module, where the type cannot be named, not even by inference.
    fn finish_local(
        &mut self,
        name: &str,
        item: &LocalItem,
        shape: Result<Shape, String>,
    ) -> Result<Strategy, String> {
        let (ident, vis) = match item {
            LocalItem::Struct(s) => (&s.ident, &s.vis),
            LocalItem::Enum(e) => (&e.ident, &e.vis),
            LocalItem::Alias(a) => (&a.ident, &a.vis),
        };
        if !is_crate_visible(vis) {
            return Err(format!(
                "local type `{name}` is private; generated code calls tools from outside their module, so make it `pub` or `pub(crate)`"
            ));
        }
        let possible = self.impl_possible(item).and(shape.clone().map(|_| ()));
        match (possible, shape) {
            (Ok(()), Ok(shape)) => {
                let generics = item.generics().clone();
                self.impls.entry(name.to_owned()).or_insert(LocalImpl {
                    ident: ident.clone(),
                    generics,
                    shape,
                });
                Ok(Strategy::FromArg)
            }
            _ if serde_attrs::derives_deserialize(item.attrs()) => Ok(Strategy::Deserialize),
            (Err(why), _) | (_, Err(why)) => Err(format!(
                "local type `{name}` cannot be decoded: {why}, and it does not derive `Deserialize`"
            )),
        }
    }

    /// Two fields (or variants) with one wire name: serde would accept only one of them,
    /// and the schema would hold a duplicate key. An error at the type.
    fn check_unique<'n>(&mut self, ident: &syn::Ident, what: &str, names: impl Iterator<Item = &'n str>) {
        let mut seen = std::collections::BTreeSet::new();
        let repeated: std::collections::BTreeSet<&str> = names.filter(|n| !seen.insert(*n)).collect();
        for name in repeated {
            let message = format!(
                "`{ident}`: the {what} name `{name}` is used twice on the wire; rename one (serde would only ever see one)"
            );
            self.error_at(ident.span(), message);
        }
    }

    /// The schema of a local struct with generic arguments `env`.
    fn struct_schema(
        &mut self,
        s: &syn::ItemStruct,
        env: &BTreeMap<String, syn::Type>,
    ) -> Result<Type, String> {
        let container = serde_attrs::container(&s.attrs);
        Ok(match &s.fields {
            syn::Fields::Named(named) => {
                let params = self.object_params(named, &container, env)?;
                let names = params.iter().map(|p| p.name.as_str());
                self.check_unique(&s.ident, "field", names);
                Type::Object(params)
            }
            syn::Fields::Unnamed(unnamed) if unnamed.unnamed.len() == 1 => {
                self.map_nested(&substituted(&unnamed.unnamed[0].ty, env))?.0
            }
            syn::Fields::Unnamed(unnamed) => {
                let types: Vec<syn::Type> = unnamed.unnamed.iter().map(|f| substituted(&f.ty, env)).collect();
                self.tuple(types.iter())?.0
            }
            syn::Fields::Unit => Type::Null,
        })
    }

    /// The properties of a struct with named fields (or a struct variant).
    fn object_params(
        &mut self,
        fields: &syn::FieldsNamed,
        container: &ContainerAttrs,
        env: &BTreeMap<String, syn::Type>,
    ) -> Result<Vec<Param>, String> {
        let mut params = Vec::new();
        for field in &fields.named {
            let attrs = serde_attrs::member(&field.attrs);
            let Some(ident) = &field.ident else { continue };
            if attrs.skip {
                continue;
            }
            let mapped = self.map_slot(&substituted(&field.ty, env))?;
            let mut param = Param::new(field_wire(ident, &attrs, container.rename_all.as_deref()), mapped.ty);
            param.description = docs_of(&field.attrs);
            param.optional = mapped.optional || attrs.default || container.default;
            params.push(param);
        }
        Ok(params)
    }

    fn fields_shape(&mut self, fields: &syn::Fields, container: &ContainerAttrs) -> Result<Shape, String> {
        Ok(match fields {
            syn::Fields::Named(named) => {
                Shape::Struct(self.named_fields(named, container.rename_all.as_deref(), container.default)?)
            }
            syn::Fields::Unnamed(unnamed) if unnamed.unnamed.len() == 1 => {
                Shape::Newtype(self.decode_of(&unnamed.unnamed[0].ty)?)
            }
            syn::Fields::Unnamed(unnamed) => Shape::TupleStruct(
                unnamed.unnamed.iter().map(|f| self.decode_of(&f.ty)).collect::<Result<_, _>>()?,
            ),
            syn::Fields::Unit => Shape::Unit,
        })
    }

    fn named_fields(
        &mut self,
        named: &syn::FieldsNamed,
        rule: Option<&str>,
        all_default: bool,
    ) -> Result<Vec<Field>, String> {
        let mut out = Vec::new();
        for field in &named.named {
            let Some(ident) = &field.ident else { continue };
            let attrs = serde_attrs::member(&field.attrs);
            let decode = if attrs.skip { None } else { Some(self.decode_of(&field.ty)?) };
            let wire = field_wire(ident, &attrs, rule);
            out.push(Field { ident: ident.clone(), wire, decode, default: attrs.default || all_default });
        }
        Ok(out)
    }

    /// How a field type is decoded, without building its schema or printing warnings.
    fn decode_of(&mut self, ty: &syn::Type) -> Result<Decode, String> {
        let span = self.span;
        let quiet = std::mem::take(self.diags);
        let mode = std::mem::replace(&mut self.decode_only, true);
        let result = self.map_slot(ty).map(|m| m.decode);
        self.decode_only = mode;
        *self.diags = quiet;
        self.span = span;
        result
    }

    /// The schema of a local enum with generic arguments `env`, per its serde tagging.
    fn enum_schema(&mut self, e: &syn::ItemEnum, env: &BTreeMap<String, syn::Type>) -> Result<Type, String> {
        let container = serde_attrs::container(&e.attrs);
        let mut schemas = Vec::new();
        for variant in e.variants.iter().filter(|v| !serde_attrs::member(&v.attrs).skip) {
            let attrs = serde_attrs::member(&variant.attrs);
            let payload_ty = self.payload_type(&variant.fields, &attrs, env)?;
            schemas.push((variant_wire(variant, &container), docs_of(&variant.attrs), payload_ty));
        }
        let wires: Vec<&str> = schemas.iter().map(|(wire, _, _)| wire.as_str()).collect();
        self.check_unique(&e.ident, "variant", wires.into_iter());
        Ok(enum_schema(&tagging(&container), schemas))
    }

    /// How the generated impl tells an enum's variants apart and decodes their payloads.
    fn enum_shape(&mut self, e: &syn::ItemEnum) -> Result<Shape, String> {
        let container = serde_attrs::container(&e.attrs);
        let tagging = tagging(&container);
        let mut variants = Vec::new();
        for variant in e.variants.iter().filter(|v| !serde_attrs::member(&v.attrs).skip) {
            let payload = self.payload_shape(&variant.fields, &serde_attrs::member(&variant.attrs))?;
            let wire = variant_wire(variant, &container);
            variants.push(Variant { ident: variant.ident.clone(), wire, payload });
        }
        let payloads: Vec<Payload> = variants.iter().map(|v| v.payload.clone()).collect();
        internal_payloads_ok(&tagging, payloads)?;
        Ok(Shape::Enum { tagging, variants })
    }

    /// A variant payload's schema: `None` for unit variants.
    fn payload_type(
        &mut self,
        fields: &syn::Fields,
        attrs: &serde_attrs::MemberAttrs,
        env: &BTreeMap<String, syn::Type>,
    ) -> Result<Option<Type>, String> {
        let container = ContainerAttrs { rename_all: attrs.rename_all.clone(), ..ContainerAttrs::default() };
        Ok(match fields {
            syn::Fields::Unit => None,
            syn::Fields::Named(named) => Some(Type::Object(self.object_params(named, &container, env)?)),
            syn::Fields::Unnamed(unnamed) if unnamed.unnamed.len() == 1 => {
                Some(self.map_nested(&substituted(&unnamed.unnamed[0].ty, env))?.0)
            }
            syn::Fields::Unnamed(unnamed) => {
                let types: Vec<syn::Type> = unnamed.unnamed.iter().map(|f| substituted(&f.ty, env)).collect();
                Some(self.tuple(types.iter())?.0)
            }
        })
    }

    fn payload_shape(
        &mut self,
        fields: &syn::Fields,
        attrs: &serde_attrs::MemberAttrs,
    ) -> Result<Payload, String> {
        Ok(match fields {
            syn::Fields::Unit => Payload::Unit,
            syn::Fields::Named(named) => {
                Payload::Struct(self.named_fields(named, attrs.rename_all.as_deref(), false)?)
            }
            syn::Fields::Unnamed(unnamed) if unnamed.unnamed.len() == 1 => {
                Payload::Newtype(self.decode_of(&unnamed.unnamed[0].ty)?)
            }
            syn::Fields::Unnamed(unnamed) => Payload::Tuple(
                unnamed.unnamed.iter().map(|f| self.decode_of(&f.ty)).collect::<Result<_, _>>()?,
            ),
        })
    }
}

/// The wire name of a variant under the container's `rename_all`.
fn variant_wire(variant: &syn::Variant, container: &ContainerAttrs) -> String {
    match (serde_attrs::member(&variant.attrs).rename, &container.rename_all) {
        (Some(rename), _) => rename,
        (None, Some(rule)) => serde_attrs::rename_variant(&variant.ident.to_string(), rule),
        (None, None) => variant.ident.to_string(),
    }
}

/// serde merges an internally tagged newtype variant's fields with the tag; the generated
/// decoder does not, so such enums are decoded by serde.
fn internal_payloads_ok(tagging: &Tagging, payloads: Vec<Payload>) -> Result<Vec<Payload>, String> {
    let merged = payloads.iter().any(|p| matches!(p, Payload::Newtype(_) | Payload::Tuple(_)));
    if matches!(tagging, Tagging::Internal(_)) && merged {
        return Err("an internally tagged enum has tuple variants".to_owned());
    }
    Ok(payloads)
}

fn tagging(container: &ContainerAttrs) -> Tagging {
    match (&container.tag, &container.content, container.untagged) {
        (_, _, true) => Tagging::Untagged,
        (Some(tag), Some(content), false) => Tagging::Adjacent(tag.clone(), content.clone()),
        (Some(tag), None, false) => Tagging::Internal(tag.clone()),
        (None, _, false) => Tagging::External,
    }
}

/// The schema of an enum under its serde representation.
fn enum_schema(tagging: &Tagging, variants: Vec<(String, String, Option<Type>)>) -> Type {
    let all_unit = variants.iter().all(|(_, _, payload)| payload.is_none());
    if all_unit && matches!(tagging, Tagging::External) {
        let variants =
            variants.into_iter().map(|(value, description, _)| EnumVariant { value, description }).collect();
        return Type::Enum(variants);
    }
    let mut branches = Vec::new();
    let mut units = Vec::new();
    for (wire, doc, payload) in variants {
        let branch = match (tagging, payload) {
            (Tagging::External, None) => {
                units.push(EnumVariant { value: wire, description: doc });
                continue;
            }
            (Tagging::External, Some(payload)) => Type::Object(vec![Param::new(wire, payload)]),
            (Tagging::Internal(tag), payload) => {
                let mut params = vec![Param::new(tag.clone(), Type::Const(wire))];
                match payload {
                    Some(Type::Object(fields)) => params.extend(fields),
                    Some(other) => params.push(Param::new("value", other)),
                    None => {}
                }
                Type::Object(params)
            }
            (Tagging::Adjacent(tag, content), payload) => {
                let mut params = vec![Param::new(tag.clone(), Type::Const(wire))];
                params.extend(payload.map(|p| Param::new(content.clone(), p)));
                Type::Object(params)
            }
            (Tagging::Untagged, payload) => payload.unwrap_or(Type::Null),
        };
        branches.push(if doc.is_empty() { branch } else { Type::Described(Box::new(branch), doc) });
    }
    if !units.is_empty() {
        branches.insert(0, Type::Enum(units));
    }
    match tagging {
        Tagging::Untagged => Type::AnyOf(branches),
        _ => Type::OneOf(branches),
    }
}

/// Generic parameter name -> concrete argument.
fn generic_env(generics: &syn::Generics, args: &[syn::Type]) -> BTreeMap<String, syn::Type> {
    generics.type_params().zip(args).map(|(p, a)| (p.ident.to_string(), a.clone())).collect()
}
