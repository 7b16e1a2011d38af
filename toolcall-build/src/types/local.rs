//! Local types: structs, enums and aliases declared in the same tool file, inlined into
//! the schema as serde deserializes them, with a `FromArg` impl recorded for codegen.
//! Everything about a type is read from its [`ast::Container`](crate::ast::Container):
//! wire names, skips, defaults and tagging were decided once, in the ast stage.
//!
//! A type met again while it is being expanded (`struct Tree { children: Vec<Tree> }`, or
//! a pair that contain each other) is recursive: every use of it, the outermost included,
//! becomes a [`Type::Ref`] to one [`Definition`] of the tool, so the schema states the
//! whole shape. A type is its name with its generic arguments: `Wrap<Wrap<u8>>` nests two
//! different types, `Tree<T>` holding `Vec<Tree<T>>` is one.

use std::collections::BTreeMap;

use syn::visit_mut::VisitMut;
use toolcall_runtime::ir::{Definition, EnumVariant, Param, Type};

use super::{Expanding, Strategy, TypeMapper};
use crate::ast::{Container, Data, Field as FieldAst, Style, Variant as VariantAst};
use crate::model::{Field, LocalImpl, Payload, Shape, Tagging, Variant};

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

pub(super) fn substituted(ty: &syn::Type, env: &BTreeMap<String, syn::Type>) -> syn::Type {
    let mut ty = ty.clone();
    if !env.is_empty() {
        Substitute(env).visit_type_mut(&mut ty);
    }
    ty
}

impl<'a> TypeMapper<'a> {
    /// Expands local item `name` with generic arguments `args`.
    pub(super) fn local(
        &mut self,
        name: &str,
        item: &'a Container,
        args: Vec<syn::Type>,
    ) -> Result<(Type, Strategy), String> {
        let env = generic_env(&item.generics, &args);
        if let Some(target) = item.alias() {
            // Aliases cannot recurse (rustc rejects it); expanding one costs no budget.
            return self.map(&substituted(target, &env));
        }
        let key = type_key(&item.key(), &args);
        if let Some(frame) = self.stack.iter_mut().find(|frame| frame.key == key) {
            // Met again inside itself: recursive. Refer to the definition it will become.
            frame.reentered = true;
            return Ok((Type::Ref(self.def_name(&key, name, &args)), self.local_strategy(name, item)?));
        }
        if let Some((_, def)) = self.defs.iter().find(|(known, _)| *known == key) {
            // Already defined for this tool (by another parameter, or earlier in this one).
            let reference = Type::Ref(def.name.clone());
            return Ok((reference, self.local_strategy(name, item)?));
        }
        if self.budget == 0 {
            self.warn(format!(
                "inlining budget of {} local types exhausted at `{name}`: the rest is `{{}}`",
                super::INLINE_BUDGET
            ));
            return Ok((Type::Any, self.local_strategy(name, item)?));
        }
        if let Some(how) = item.attrs.custom_deserialize {
            self.warn_at(
                item.ident.span(),
                format!(
                    "`{name}` deserializes through `#[serde({how})]`, whose input the build cannot see: \
                     the model sees `{{}}` for it"
                ),
            );
            return Ok((Type::Any, self.local_strategy(name, item)?));
        }
        self.budget -= 1;
        self.stack.push(Expanding { key: key.clone(), reentered: false });
        let schema = match &item.data {
            Data::Struct(style, fields) => self.struct_schema(item, *style, fields, &env),
            Data::Enum(variants) => self.enum_schema(item, variants, &env),
            Data::Alias(_) => Ok(Type::Any),
        };
        let recursive = self.stack.pop().is_some_and(|frame| frame.reentered);
        let schema = schema?;
        let strategy = self.local_strategy(name, item)?;
        if !recursive {
            return Ok((schema, strategy));
        }
        let def = Definition { name: self.def_name(&key, name, &args), ty: schema };
        if loops_without_nesting(&def, &self.defs) {
            return Err(format!(
                "local type `{name}` contains itself with no JSON nesting in between (through a newtype, \
                 `untagged` or `Option` wrapper), so no value ends it and decoding it would never \
                 finish; put the inner value in a named field or a tagged variant"
            ));
        }
        let reference = Type::Ref(def.name.clone());
        self.defs.push((key, def));
        Ok((reference, strategy))
    }

    /// The definition name of the type `key` (`name` with `args`): the name, with the
    /// arguments' identifiers for a generic instance (`Tree_u8`), unique among the
    /// definitions of this tool.
    fn def_name(&mut self, key: &str, name: &str, args: &[syn::Type]) -> String {
        if let Some(known) = self.def_names.get(key) {
            return known.clone();
        }
        let mut base = name.to_owned();
        for arg in args {
            let text = quote::quote!(#arg).to_string();
            let words =
                text.split(|c: char| !c.is_ascii_alphanumeric() && c != '_').filter(|w| !w.is_empty());
            words.for_each(|word| {
                base.push('_');
                base.push_str(word);
            });
        }
        let taken = |candidate: &str| self.def_names.values().any(|n| n == candidate);
        let mut unique = base.clone();
        let mut n = 2;
        while taken(&unique) {
            unique = format!("{base}_{n}");
            n += 1;
        }
        self.def_names.insert(key.to_owned(), unique.clone());
        unique
    }

    /// How a local struct or enum is decoded, computed once per type (memoized): its
    /// generated `FromArg` impl when it can have one, else serde when it derives
    /// `Deserialize`. The impl is recorded for codegen.
    pub(super) fn local_strategy(&mut self, name: &str, item: &'a Container) -> Result<Strategy, String> {
        let key = item.key();
        if let Some(known) = self.strategies.get(&key) {
            return known.clone();
        }
        if self.in_progress.contains(&key) {
            // A cycle: assume the impl that is being built.
            return Ok(Strategy::FromArg);
        }
        self.in_progress.push(key.clone());
        let shape = self.shape_of(item);
        self.in_progress.pop();
        let result = self.finish_local(name, item, shape);
        self.strategies.insert(key, result.clone());
        result
    }

    /// The path generated code names `item` by, from the crate root; `Err` says why
    /// there is none.
    fn nameable(&self, item: &Container) -> Result<syn::Path, String> {
        let ident = item.ident.to_string();
        let names = self.tree.nameable_path(&item.module, &ident).ok_or_else(|| {
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

    /// The wire shape of a struct or enum, from its generic declaration (type
    /// parameters stand for "any `FromArg` type"), without touching the schema.
    fn shape_of(&mut self, item: &'a Container) -> Result<Shape, String> {
        let params = item.generics.type_params().map(|p| p.ident.to_string()).collect();
        let saved = std::mem::replace(&mut self.placeholders, params);
        let shape = match &item.data {
            Data::Struct(style, fields) => self.fields_shape(*style, fields, item.attrs.default),
            Data::Enum(variants) => self.enum_shape(item, variants),
            Data::Alias(_) => Err("aliases are expanded".to_owned()),
        };
        self.placeholders = saved;
        shape
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

    /// Decides the strategy for a local struct/enum and records its impl. A private type
    /// is an error whatever it derives: generated code calls the tool from outside its
    /// module, where the type cannot be named, not even by inference.
    fn finish_local(
        &mut self,
        name: &str,
        item: &Container,
        shape: Result<Shape, String>,
    ) -> Result<Strategy, String> {
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
                });
                Ok(Strategy::FromArg)
            }
            _ if item.derives_deserialize => Ok(Strategy::Deserialize),
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
        item: &Container,
        style: Style,
        fields: &[FieldAst],
        env: &BTreeMap<String, syn::Type>,
    ) -> Result<Type, String> {
        let params = self.payload_type(style, fields, item.attrs.default, env)?;
        if let Type::Object(params) = &params {
            self.check_unique(&item.ident, "field", params.iter().map(|p| p.name.as_str()));
        }
        Ok(params)
    }

    /// The properties of a struct with named fields (or a struct variant), as read.
    fn object_params(
        &mut self,
        fields: &[FieldAst],
        all_default: bool,
        env: &BTreeMap<String, syn::Type>,
    ) -> Result<Vec<Param>, String> {
        let mut params = Vec::new();
        for field in fields.iter().filter(|f| !f.attrs.skip_deserializing) {
            if field.attrs.custom_deserialize {
                let message = format!(
                    "field `{}` is read by a custom `deserialize_with`/`with` function: its schema is \
                     its Rust type, which may not be what the function accepts",
                    field.name.deserialize
                );
                self.warn_at(field.span, message);
            }
            let mapped = self.map_slot(&substituted(&field.ty, env))?;
            let mut param = Param::new(field.name.deserialize.clone(), mapped.ty);
            param.description = field.doc.clone();
            param.optional = mapped.optional || field.attrs.default || all_default;
            params.push(param);
        }
        Ok(params)
    }

    fn fields_shape(
        &mut self,
        style: Style,
        fields: &[FieldAst],
        all_default: bool,
    ) -> Result<Shape, String> {
        Ok(match style {
            Style::Named => Shape::Struct(self.named_fields(fields, all_default)?),
            Style::Newtype => Shape::Newtype(self.decode_of(&fields[0].ty)?),
            Style::Tuple => {
                Shape::TupleStruct(fields.iter().map(|f| self.decode_of(&f.ty)).collect::<Result<_, _>>()?)
            }
            Style::Unit => Shape::Unit,
        })
    }

    fn named_fields(&mut self, fields: &[FieldAst], all_default: bool) -> Result<Vec<Field>, String> {
        let mut out = Vec::new();
        for field in fields {
            let Some(ident) = &field.ident else { continue };
            let decode = if field.attrs.skip_deserializing { None } else { Some(self.decode_of(&field.ty)?) };
            let wire = field.name.deserialize.clone();
            out.push(Field {
                ident: ident.clone(),
                wire,
                aliases: field.attrs.aliases.clone(),
                decode,
                default: field.attrs.default || all_default,
            });
        }
        Ok(out)
    }

    /// The schema of a local enum with generic arguments `env`, per its serde tagging.
    fn enum_schema(
        &mut self,
        item: &Container,
        variants: &[VariantAst],
        env: &BTreeMap<String, syn::Type>,
    ) -> Result<Type, String> {
        let mut schemas = Vec::new();
        for variant in variants.iter().filter(|v| !v.attrs.skip_deserializing) {
            let payload_ty = match variant.style {
                Style::Unit => None,
                style => Some(self.payload_type(style, &variant.fields, false, env)?),
            };
            schemas.push((variant.name.deserialize.clone(), variant.doc.clone(), payload_ty));
        }
        let wires: Vec<&str> = schemas.iter().map(|(wire, _, _)| wire.as_str()).collect();
        self.check_unique(&item.ident, "variant", wires.into_iter());
        if let Tagging::Internal(tag) = &item.attrs.tagging {
            for (wire, _, payload) in &mut schemas {
                if let Some(Type::Ref(inner)) = payload {
                    let name = self.tagged_def(tag, wire, inner);
                    *payload = Some(Type::Ref(name));
                }
            }
        }
        Ok(enum_schema(&item.attrs.tagging, schemas))
    }

    /// The definition of an internally tagged newtype variant whose struct is the
    /// definition `inner`: serde reads the struct's fields beside the tag, so the variant
    /// is the struct's object with the tag added, a definition of its own (the struct may
    /// contain the variant again, so it cannot be written out in place).
    fn tagged_def(&mut self, tag: &str, wire: &str, inner: &str) -> String {
        let key = format!("{inner} tagged {tag}={wire}");
        let name = self.def_name(&key, &format!("{inner}_{wire}"), &[]);
        if !self.tagged.iter().any(|t| t.name == name) {
            let tagged = Tagged {
                name: name.clone(),
                tag: tag.to_owned(),
                wire: wire.to_owned(),
                inner: inner.to_owned(),
            };
            self.tagged.push(tagged);
        }
        name
    }

    /// How the generated impl tells an enum's variants apart and decodes their payloads.
    fn enum_shape(&mut self, item: &Container, variants: &[VariantAst]) -> Result<Shape, String> {
        let tagging = item.attrs.tagging.clone();
        let mut out = Vec::new();
        for variant in variants.iter().filter(|v| !v.attrs.skip_deserializing) {
            let payload = self.payload_shape(variant.style, &variant.fields)?;
            out.push(Variant {
                ident: variant.ident.clone(),
                wire: variant.name.deserialize.clone(),
                aliases: variant.attrs.aliases.clone(),
                payload,
            });
        }
        let payloads: Vec<Payload> = out.iter().map(|v| v.payload.clone()).collect();
        internal_payloads_ok(&tagging, payloads)?;
        Ok(Shape::Enum { tagging, variants: out })
    }

    /// The schema of fields held in `style`: an object, the newtype's value, a tuple, or
    /// `null` for a unit struct.
    fn payload_type(
        &mut self,
        style: Style,
        fields: &[FieldAst],
        all_default: bool,
        env: &BTreeMap<String, syn::Type>,
    ) -> Result<Type, String> {
        Ok(match style {
            Style::Unit => Type::Null,
            Style::Named => Type::Object(self.object_params(fields, all_default, env)?),
            Style::Newtype => self.map_nested(&substituted(&fields[0].ty, env))?.0,
            Style::Tuple => {
                let types: Vec<syn::Type> = fields.iter().map(|f| substituted(&f.ty, env)).collect();
                self.tuple(types.iter())?.0
            }
        })
    }

    fn payload_shape(&mut self, style: Style, fields: &[FieldAst]) -> Result<Payload, String> {
        Ok(match style {
            Style::Unit => Payload::Unit,
            Style::Named => Payload::Struct(self.named_fields(fields, false)?),
            Style::Newtype => Payload::Newtype(self.decode_of(&fields[0].ty)?),
            Style::Tuple => {
                Payload::Tuple(fields.iter().map(|f| self.decode_of(&f.ty)).collect::<Result<_, _>>()?)
            }
        })
    }
}

/// An internally tagged newtype variant over the definition `inner` (a struct): its own
/// definition `name`, `inner`'s properties beside the tag `tag: wire`.
#[derive(Clone, Debug)]
pub(super) struct Tagged {
    name: String,
    tag: String,
    wire: String,
    inner: String,
}

/// Adds the definitions of `tagged` variants to `defs`, each made from its struct's
/// definition: the tag first, then the struct's properties. A struct whose schema is not
/// an object (serde takes maps and structs only) gives `{}`, which does not lie about
/// what the decoder takes.
pub(super) fn add_tagged(defs: &mut Vec<(String, Definition)>, tagged: Vec<Tagged>) {
    for variant in tagged {
        let inner = defs.iter().find(|(_, d)| d.name == variant.inner).map(|(_, d)| d.ty.clone());
        let ty = match inner {
            Some(Type::Object(fields)) => {
                let mut params = vec![Param::new(variant.tag.clone(), Type::Const(variant.wire.clone()))];
                params.extend(fields.into_iter().filter(|field| field.name != variant.tag));
                Type::Object(params)
            }
            _ => Type::Any,
        };
        defs.push((format!("tagged {}", variant.name), Definition { name: variant.name, ty }));
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

/// The schema of an enum under its serde representation.
pub(super) fn enum_schema(tagging: &Tagging, variants: Vec<(String, String, Option<Type>)>) -> Type {
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
            // A reference here is a variant definition that holds the tag already
            // (`tagged_def`).
            (Tagging::Internal(_), Some(Type::Ref(name))) => Type::Ref(name),
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

/// What tells one local type from another: its name, with its generic arguments.
fn type_key(name: &str, args: &[syn::Type]) -> String {
    if args.is_empty() {
        return name.to_owned();
    }
    let args: Vec<String> = args.iter().map(|a| quote::quote!(#a).to_string()).collect();
    format!("{name}<{}>", args.join(", "))
}

/// Whether `def` reaches itself through references alone, with no JSON nesting between
/// (`#[serde(untagged)] enum E { A(Box<E>), B(u8) }`): a decoder of it would recurse
/// without consuming input. `known` holds the definitions made before it.
fn loops_without_nesting(def: &Definition, known: &[(String, Definition)]) -> bool {
    let mut queue = Vec::new();
    unguarded_refs(&def.ty, &mut queue);
    let mut seen: Vec<&str> = Vec::new();
    while let Some(name) = queue.pop() {
        if name == def.name {
            return true;
        }
        if seen.contains(&name) {
            continue;
        }
        seen.push(name);
        if let Some((_, next)) = known.iter().find(|(_, d)| d.name == name) {
            unguarded_refs(&next.ty, &mut queue);
        }
    }
    false
}

/// The references a value of `ty` may be, as a whole (not inside an array or object).
fn unguarded_refs<'t>(ty: &'t Type, out: &mut Vec<&'t str>) {
    match ty {
        Type::Ref(name) => out.push(name),
        Type::Described(inner, _) | Type::Nullable(inner) => unguarded_refs(inner, out),
        Type::AnyOf(branches) | Type::OneOf(branches) => {
            branches.iter().for_each(|branch| unguarded_refs(branch, out))
        }
        _ => {}
    }
}

/// Generic parameter name -> concrete argument.
pub(super) fn generic_env(generics: &syn::Generics, args: &[syn::Type]) -> BTreeMap<String, syn::Type> {
    generics.type_params().zip(args).map(|(p, a)| (p.ident.to_string(), a.clone())).collect()
}
