//! The input schema: a fold over the type tree, crate types inlined as serde
//! deserializes them (wire names, skips, defaults and tagging as the ast read them).
//!
//! A crate type met again while it is being expanded (`struct Tree { children:
//! Vec<Tree> }`, or a pair that contain each other) is recursive: every use of it, the
//! outermost included, becomes a [`Type::Ref`] to one [`Definition`] of the tool, so the
//! schema states the whole shape. An instance is its type with its generic arguments:
//! `Wrap<Wrap<u8>>` nests two different types, `Tree<T>` holding `Vec<Tree<T>>` is one.
//!
//! This fold says what a model cannot be told: an untyped value, another crate's type
//! without a provider, an exhausted budget, a custom deserializer.

use std::collections::{BTreeMap, BTreeSet};

use toolcall_runtime::ir::{Definition, EnumVariant, Param, Type};

use super::ty::{InstanceId, Ty, name_words};
use super::{Guard, INLINE_BUDGET, Strategy, TypeMapper, container_strategy};
use crate::ast::{Container, Data, Style, Variant as VariantAst};
use crate::model::Tagging;

/// The schema fold's state for the tool being mapped.
#[derive(Debug, Default)]
pub(super) struct State {
    /// Inlinings left for the parameter being mapped.
    pub(super) budget: usize,
    /// The instances being expanded.
    expanding: Guard,
    /// The recursive instances met since the last [`State::take_definitions`], by key.
    defs: Vec<(String, Definition)>,
    /// The definition name given to each key since then (unique among them).
    def_names: BTreeMap<String, String>,
    /// Internally tagged newtype variants over a referenced struct: a definition each.
    tagged: Vec<Tagged>,
}

/// An internally tagged newtype variant over the definition `inner` (a struct): its own
/// definition `name`, `inner`'s properties beside the tag `tag: wire`.
#[derive(Clone, Debug)]
struct Tagged {
    name: String,
    tag: String,
    wire: String,
    inner: String,
}

impl State {
    /// The definitions `params` refer to, in the order they are first used; the rest
    /// are forgotten.
    pub(super) fn take_definitions(&mut self, params: &[Param]) -> Vec<Definition> {
        let mut pending = std::mem::take(&mut self.defs);
        add_tagged(&mut pending, std::mem::take(&mut self.tagged));
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

    /// The definition name of the instance `key` (type `name`, arguments `args`): the
    /// name, with the arguments' words for a generic instance (`Tree_u8`), unique among
    /// this tool's definitions.
    fn def_name(&mut self, key: &str, name: &str, args: &[syn::Type]) -> String {
        if let Some(known) = self.def_names.get(key) {
            return known.clone();
        }
        let mut base = name.to_owned();
        for word in args.iter().flat_map(name_words) {
            base.push('_');
            base.push_str(&word);
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
}

impl TypeMapper<'_> {
    /// The schema and decoding strategy of any type.
    pub(super) fn map(&mut self, ty: &Ty) -> Result<(Type, Strategy), String> {
        Ok(match ty {
            Ty::Scalar { row, name } => {
                if let Some(feature) = row.feature {
                    self.check_runtime_feature(name, feature);
                }
                ((row.input)(name), row.strategy())
            }
            Ty::Str { .. } => (Type::string(), Strategy::FromArg),
            Ty::Untyped { borrowed } => {
                if !borrowed {
                    self.warn("`serde_json::Value` has no type at all: the model sees `{}`".to_owned());
                }
                (Type::Any, Strategy::FromArg)
            }
            Ty::JsonMap => (Type::Map(Box::new(Type::Any)), Strategy::FromArg),
            Ty::Option(inner) => {
                let (ty, strategy) = self.map_nested(inner)?;
                (ty.nullable(), container_strategy(strategy))
            }
            Ty::List { item, unique, .. } => {
                let (items, strategy) = self.map_nested(item)?;
                let ty =
                    Type::Array { items: Box::new(items), min_items: None, max_items: None, unique: *unique };
                (ty, container_strategy(strategy))
            }
            Ty::Map { key, value } => {
                super::decoding::map_key(key)?;
                let value = value.as_deref().ok_or("a map needs a value type")?;
                let (values, strategy) = self.map_nested(value)?;
                (Type::Map(Box::new(values)), container_strategy(strategy))
            }
            Ty::Pointer { inner, .. } => {
                let (ty, strategy) = self.map_nested(inner)?;
                (ty, container_strategy(strategy))
            }
            Ty::Tuple(items) => self.tuple(items)?,
            Ty::Array { item, len } => {
                let (items, strategy) = self.map_nested(item)?;
                let ty =
                    Type::Array { items: Box::new(items), min_items: *len, max_items: *len, unique: false };
                (ty, container_strategy(strategy))
            }
            Ty::Unit => return Err(super::decoding::UNIT.to_owned()),
            Ty::Ref(_) => return Err(super::decoding::BORROWED.to_owned()),
            Ty::Split { input, .. } => self.map(input)?,
            Ty::Refused(why) => return Err(why.clone()),
            Ty::Alias { target, .. } => self.map(target)?,
            Ty::Local(id) => self.local(*id)?,
            Ty::Provided { input, strategy } => (input.clone(), strategy.clone()),
            Ty::Foreign(path) => {
                self.warn(format!(
                    "type `{path}` has no schema mapping: the model sees `{{}}` and it is decoded with \
                     serde::Deserialize; describe it with a `TypeProvider` in build.rs, or wrap it in a \
                     type of this crate (a struct or newtype deriving `Deserialize`)"
                ));
                (Type::Any, Strategy::Deserialize)
            }
            Ty::Missing(why) => {
                // Reported once, here; the tool still lowers so the rest of it is checked.
                self.error_at(self.span, why.clone());
                (Type::Any, Strategy::Deserialize)
            }
            Ty::Param => (Type::Any, Strategy::FromArg),
            Ty::Unsupported(text) => return Err(format!("type `{text}` has no JSON mapping")),
        })
    }

    /// A type nested in a container: `Option<T>` there means nullable.
    fn map_nested(&mut self, ty: &Ty) -> Result<(Type, Strategy), String> {
        match ty {
            Ty::Option(inner) => {
                let (ty, strategy) = self.map(inner)?;
                Ok((ty.nullable(), strategy))
            }
            other => self.map(other),
        }
    }

    /// A tuple: decoded by `FromArg` when every item is, up to 8 items.
    fn tuple(&mut self, items: &[Ty]) -> Result<(Type, Strategy), String> {
        let mut types = Vec::new();
        let mut all_from_arg = true;
        for item in items {
            let (ty, strategy) = self.map_nested(item)?;
            all_from_arg &= strategy == Strategy::FromArg;
            types.push(ty);
        }
        let strategy =
            if all_from_arg && types.len() <= 8 { Strategy::FromArg } else { Strategy::Deserialize };
        Ok((Type::Tuple(types), strategy))
    }

    /// Expands the crate type instance `id`, or refers to its definition.
    fn local(&mut self, id: InstanceId) -> Result<(Type, Strategy), String> {
        let instance = self.types.instance(id);
        let (item, key, args) = (instance.item, instance.key.clone(), instance.args.clone());
        let name = item.ident.to_string();
        if self.schema.expanding.reenter(&key) {
            // Met again inside itself: recursive. Refer to the definition it will become.
            let reference = Type::Ref(self.schema.def_name(&key, &name, &args));
            return Ok((reference, self.local_strategy(item)?));
        }
        if let Some((_, def)) = self.schema.defs.iter().find(|(known, _)| *known == key) {
            // Already defined for this tool (by another parameter, or earlier in this one).
            let reference = Type::Ref(def.name.clone());
            return Ok((reference, self.local_strategy(item)?));
        }
        if self.schema.budget == 0 {
            self.warn(format!(
                "inlining budget of {INLINE_BUDGET} local types exhausted at `{name}`: the rest is `{{}}`"
            ));
            return Ok((Type::Any, self.local_strategy(item)?));
        }
        if let Some(how) = item.attrs.custom_deserialize {
            let message = format!(
                "`{name}` deserializes through `#[serde({how})]`, whose input the build cannot see: \
                 the model sees `{{}}` for it"
            );
            self.diags.warn(&item.file, item.ident.span(), message);
            return Ok((Type::Any, self.local_strategy(item)?));
        }
        self.schema.budget -= 1;
        self.schema.expanding.enter(key.clone());
        let fields = self.types.fields(id);
        let schema = match &item.data {
            Data::Struct(style, _) => self.struct_schema(item, *style, &fields[0]),
            Data::Enum(variants) => self.enum_schema(item, variants, &fields),
            Data::Alias(_) => Ok(Type::Any),
        };
        let recursive = self.schema.expanding.leave();
        let schema = schema?;
        let strategy = self.local_strategy(item)?;
        if !recursive {
            return Ok((schema, strategy));
        }
        let def = Definition { name: self.schema.def_name(&key, &name, &args), ty: schema };
        if loops_without_nesting(&def, &self.schema.defs) {
            return Err(format!(
                "local type `{name}` contains itself with no JSON nesting in between (through a newtype, \
                 `untagged` or `Option` wrapper), so no value ends it and decoding it would never \
                 finish; put the inner value in a named field or a tagged variant"
            ));
        }
        let reference = Type::Ref(def.name.clone());
        self.schema.defs.push((key, def));
        Ok((reference, strategy))
    }

    /// Two fields (or variants) with one wire name: serde would accept only one of them,
    /// and the schema would hold a duplicate key. An error at the type.
    fn check_unique<'n>(&mut self, item: &Container, what: &str, names: impl Iterator<Item = &'n str>) {
        let mut seen = BTreeSet::new();
        let repeated: BTreeSet<&str> = names.filter(|n| !seen.insert(*n)).collect();
        for name in repeated {
            let message = format!(
                "`{}`: the {what} name `{name}` is used twice on the wire; rename one (serde would only ever see one)",
                item.ident
            );
            self.diags.error(&item.file, item.ident.span(), message);
        }
    }

    /// The schema of a crate struct whose field types are `types`.
    fn struct_schema(&mut self, item: &Container, style: Style, types: &[Ty]) -> Result<Type, String> {
        let Data::Struct(_, fields) = &item.data else { return Ok(Type::Any) };
        let schema = self.payload_type(item, style, fields, types, item.attrs.default)?;
        if let Type::Object(params) = &schema {
            self.check_unique(item, "field", params.iter().map(|p| p.name.as_str()));
        }
        Ok(schema)
    }

    /// The properties of a struct with named fields (or a struct variant).
    fn object_params(
        &mut self,
        item: &Container,
        fields: &[crate::ast::Field],
        types: &[Ty],
        all_default: bool,
    ) -> Result<Vec<Param>, String> {
        let mut params = Vec::new();
        for (field, ty) in fields.iter().zip(types).filter(|(f, _)| !f.attrs.skip_deserializing) {
            if field.attrs.custom_deserialize {
                let message = format!(
                    "field `{}` is read by a custom `deserialize_with`/`with` function: its schema is \
                     its Rust type, which may not be what the function accepts",
                    field.name.deserialize
                );
                self.diags.warn(&item.file, field.span, message);
            }
            let mapped = self.map_slot(ty)?;
            let mut param = Param::new(field.name.deserialize.clone(), mapped.ty);
            param.description = field.doc.clone();
            param.optional = mapped.optional || field.attrs.default || all_default;
            params.push(param);
        }
        Ok(params)
    }

    /// The schema of fields held in `style`: an object, the newtype's value, a tuple, or
    /// `null` for a unit struct.
    fn payload_type(
        &mut self,
        item: &Container,
        style: Style,
        fields: &[crate::ast::Field],
        types: &[Ty],
        all_default: bool,
    ) -> Result<Type, String> {
        Ok(match (style, types) {
            (Style::Unit, _) => Type::Null,
            (Style::Named, _) => Type::Object(self.object_params(item, fields, types, all_default)?),
            (Style::Newtype, [ty, ..]) => self.map_nested(ty)?.0,
            (Style::Tuple, _) => self.tuple(types)?.0,
            (Style::Newtype, []) => Type::Null,
        })
    }

    /// The schema of a crate enum whose variants' field types are `types`, per its serde
    /// tagging.
    fn enum_schema(
        &mut self,
        item: &Container,
        variants: &[VariantAst],
        types: &[Vec<Ty>],
    ) -> Result<Type, String> {
        let mut schemas = Vec::new();
        for (variant, fields) in variants.iter().zip(types).filter(|(v, _)| !v.attrs.skip_deserializing) {
            let payload = match variant.style {
                Style::Unit => None,
                style => Some(self.payload_type(item, style, &variant.fields, fields, false)?),
            };
            schemas.push((variant.name.deserialize.clone(), variant.doc.clone(), payload));
        }
        let wires: Vec<&str> = schemas.iter().map(|(wire, _, _)| wire.as_str()).collect();
        self.check_unique(item, "variant", wires.into_iter());
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
        let name = self.schema.def_name(&key, &format!("{inner}_{wire}"), &[]);
        if !self.schema.tagged.iter().any(|t| t.name == name) {
            let tagged = Tagged {
                name: name.clone(),
                tag: tag.to_owned(),
                wire: wire.to_owned(),
                inner: inner.to_owned(),
            };
            self.schema.tagged.push(tagged);
        }
        name
    }
}

/// Adds the definitions of `tagged` variants to `defs`, each made from its struct's
/// definition: the tag first, then the struct's properties. A struct whose schema is not
/// an object (serde takes maps and structs only) gives `{}`, which does not lie about
/// what the decoder takes.
fn add_tagged(defs: &mut Vec<(String, Definition)>, tagged: Vec<Tagged>) {
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

/// The schema of an enum under its serde representation (both directions).
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
    // A variant that is a definition (an internally tagged newtype over a referenced
    // struct) hides its tag behind the `$ref`, so a validator cannot see the branches
    // exclude each other (llguidance refuses such a `oneOf`); the tags still do, so
    // `anyOf` says the same.
    let behind_ref = |branch: &Type| match branch {
        Type::Described(inner, _) => matches!(**inner, Type::Ref(_)),
        other => matches!(other, Type::Ref(_)),
    };
    match tagging {
        Tagging::Untagged => Type::AnyOf(branches),
        _ if branches.iter().any(behind_ref) => Type::AnyOf(branches),
        _ => Type::OneOf(branches),
    }
}

/// The names of the references in `ty`, in document order (not following them).
fn refs_in(ty: &Type, out: &mut Vec<String>) {
    match ty {
        Type::Ref(name) => out.push(name.clone()),
        other => other.children().into_iter().for_each(|child| refs_in(child, out)),
    }
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
