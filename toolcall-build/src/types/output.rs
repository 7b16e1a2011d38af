//! Output schemas: a fold over the type tree giving a tool's success type as serde
//! serializes it (MCP's `outputSchema`).
//!
//! The other side of the same tree as the input schema: serialize names,
//! `skip_serializing` fields left out, `skip_serializing_if` fields optional, `flatten`ed
//! structs merged, enums per their tagging, floats nullable (serde_json writes NaN and
//! infinities as `null`). A part the build cannot see (another crate's type without a
//! provider, a custom `serialize_with`) is `{}`, which every value satisfies; a result
//! whose shape cannot be described at all has no output schema, and the caller says why.
//! A crate type met again inside itself is `{}` too.

use toolcall_runtime::ir::{Param, Type};

use super::schema::enum_schema;
use super::ty::{InstanceId, Ty};
use super::{Guard, INLINE_BUDGET, TypeMapper};
use crate::ast::{Data, Field, Style};
use crate::model::Tagging;

/// The output fold's state for one result type.
struct Walk {
    expanding: Guard,
    budget: usize,
}

/// An internally tagged enum as serde writes it: the tag beside the fields of a struct
/// payload. A payload whose fields the build cannot list here (a recursive struct, which
/// this fold writes as `{}`) is a branch any value satisfies, and the branches are then
/// `anyOf`: a `oneOf` would refuse the values that branch and a listed one both take.
fn internally_tagged(tag: &str, variants: Vec<(String, String, Option<Type>)>) -> Type {
    let mut open = false;
    let branches: Vec<Type> = variants
        .into_iter()
        .map(|(wire, doc, payload)| {
            let mut params = vec![Param::new(tag, Type::Const(wire))];
            let branch = match payload {
                None => Type::Object(params),
                Some(Type::Object(fields)) => {
                    params.extend(fields);
                    Type::Object(params)
                }
                Some(_) => {
                    open = true;
                    Type::Any
                }
            };
            if doc.is_empty() { branch } else { Type::Described(Box::new(branch), doc) }
        })
        .collect();
    if open { Type::AnyOf(branches) } else { Type::OneOf(branches) }
}

impl TypeMapper<'_> {
    /// The serialized schema of a success type written in the tool file; `Err` says why
    /// it cannot be described.
    pub fn output(&mut self, ty: &syn::Type) -> Result<Type, String> {
        let ty = self.resolve(ty);
        let mut walk = Walk { expanding: Guard::default(), budget: INLINE_BUDGET };
        self.out(&ty, &mut walk)
    }

    /// Whether a success type written in the tool file is `toolcall_runtime::Content` or
    /// a list of them: content blocks, which claim no output schema.
    pub fn returns_content(&mut self, ty: &syn::Type) -> bool {
        self.resolve(ty).is_content()
    }

    /// Whether a success type written in a prompt file is `toolcall_runtime::Message` or
    /// a list of them.
    pub fn returns_messages(&mut self, ty: &syn::Type) -> bool {
        self.resolve(ty).is_message()
    }

    /// What a success type written in a resource file serializes as, for its contents:
    /// text, bytes, content blocks or any other JSON, looking through `Option` (whose
    /// `None` is "no such resource"), references and aliases.
    pub fn value_kind(&mut self, ty: &syn::Type) -> toolcall_runtime::ResourceKind {
        use toolcall_runtime::ResourceKind;
        let ty = self.resolve(ty);
        if ty.is_content() {
            return ResourceKind::Content;
        }
        let mut at = &ty;
        loop {
            match at {
                Ty::Option(inner) | Ty::Ref(inner) => at = inner,
                Ty::Pointer { inner, .. } | Ty::Alias { target: inner, .. } => at = inner,
                Ty::Str { .. } => return ResourceKind::Text,
                Ty::Scalar { row, name } if (row.output)(name) == Type::string() => {
                    return ResourceKind::Text;
                }
                Ty::List { item, unique: false, .. } | Ty::Array { item, .. } if matches!(item.as_ref(), Ty::Scalar { name, .. } if name == "u8") =>
                {
                    return ResourceKind::Bytes;
                }
                _ if at.is_content() => return ResourceKind::Content,
                _ => return ResourceKind::Json,
            }
        }
    }

    fn out(&mut self, ty: &Ty, walk: &mut Walk) -> Result<Type, String> {
        Ok(match ty {
            Ty::Scalar { row, name } => (row.output)(name),
            Ty::Str { .. } => Type::string(),
            Ty::Untyped { .. } | Ty::Param => Type::Any,
            Ty::JsonMap => Type::Map(Box::new(Type::Any)),
            Ty::Option(inner) => self.nested(inner, walk).nullable(),
            Ty::List { item, unique, .. } => {
                let items = Box::new(self.nested(item, walk));
                Type::Array { items, min_items: None, max_items: None, unique: *unique }
            }
            // serde_json writes every map key as a string.
            Ty::Map { value, .. } => Type::Map(Box::new(match value {
                Some(value) => self.nested(value, walk),
                None => Type::Any,
            })),
            Ty::Pointer { inner, .. } | Ty::Ref(inner) | Ty::Alias { target: inner, .. } => {
                self.out(inner, walk)?
            }
            Ty::Split { output, .. } => self.out(output, walk)?,
            Ty::Tuple(items) => Type::Tuple(items.iter().map(|item| self.nested(item, walk)).collect()),
            Ty::Array { item, len } => {
                let items = Box::new(self.nested(item, walk));
                Type::Array { items, min_items: *len, max_items: *len, unique: false }
            }
            Ty::Unit => Type::Null,
            Ty::Refused(why) | Ty::Missing(why) => return Err(why.clone()),
            Ty::Local(id) => self.local_out(*id, walk)?,
            Ty::Provided { input, .. } => input.clone(),
            Ty::Foreign(path) => {
                return Err(format!(
                    "type `{path}` has no schema mapping (describe it with a `TypeProvider`, or wrap it in a \
                     type of this crate that derives `Serialize`)"
                ));
            }
            Ty::Unsupported(text) => return Err(format!("type `{text}` has no JSON mapping")),
        })
    }

    /// A nested type: what cannot be described is `{}` (every value satisfies it).
    fn nested(&mut self, ty: &Ty, walk: &mut Walk) -> Type {
        self.out(ty, walk).unwrap_or(Type::Any)
    }

    /// A crate struct or enum, as it serializes.
    fn local_out(&mut self, id: InstanceId, walk: &mut Walk) -> Result<Type, String> {
        let item = self.types.instance(id).item;
        let name = item.ident.to_string();
        if !item.derives_serialize {
            return Err(format!("`{name}` does not derive `Serialize`, so its serialized shape is its own"));
        }
        if let Some(how) = item.attrs.custom_serialize {
            return Err(format!("`{name}` serializes through `#[serde({how})]`"));
        }
        let key = item.key();
        if walk.expanding.contains(&key) || walk.budget == 0 {
            return Ok(Type::Any);
        }
        walk.budget -= 1;
        walk.expanding.enter(key);
        let types = self.types.fields(id);
        let ty = match &item.data {
            Data::Struct(_, fields) if item.attrs.transparent => {
                match fields.iter().zip(&types[0]).find(|(f, _)| !f.attrs.skip_serializing) {
                    Some((field, ty)) => self.field_out(field, ty, walk),
                    None => Ok(Type::Null),
                }
            }
            Data::Struct(style, fields) => self.fields_out(*style, fields, &types[0], walk),
            Data::Enum(variants) => {
                let mut branches = Vec::new();
                for (variant, fields) in
                    variants.iter().zip(&types).filter(|(v, _)| !v.attrs.skip_serializing)
                {
                    let payload = match variant.style {
                        Style::Unit => None,
                        _ if variant.attrs.custom => Some(Type::Any),
                        style => {
                            Some(self.fields_out(style, &variant.fields, fields, walk).unwrap_or(Type::Any))
                        }
                    };
                    branches.push((variant.name.serialize.clone(), variant.doc.clone(), payload));
                }
                Ok(match &item.attrs.tagging {
                    Tagging::Internal(tag) => internally_tagged(tag, branches),
                    tagging => enum_schema(tagging, branches),
                })
            }
            Data::Alias(_) => Ok(Type::Any),
        };
        walk.expanding.leave();
        ty
    }

    /// Fields held in `style`, as they serialize.
    fn fields_out(
        &mut self,
        style: Style,
        fields: &[Field],
        types: &[Ty],
        walk: &mut Walk,
    ) -> Result<Type, String> {
        match (style, fields.first().zip(types.first())) {
            (Style::Unit, _) | (Style::Newtype, None) => Ok(Type::Null),
            (Style::Newtype, Some((field, ty))) => self.field_out(field, ty, walk),
            (Style::Tuple, _) => Ok(Type::Tuple(
                fields
                    .iter()
                    .zip(types)
                    .map(|(f, ty)| self.field_out(f, ty, walk).unwrap_or(Type::Any))
                    .collect(),
            )),
            (Style::Named, _) => self.object_out(fields, types, walk),
        }
    }

    /// A struct's properties: serialize names, skipped fields left out, `skip_serializing_if`
    /// fields optional, `flatten`ed structs merged.
    fn object_out(&mut self, fields: &[Field], types: &[Ty], walk: &mut Walk) -> Result<Type, String> {
        let mut params = Vec::new();
        for (field, ty) in fields.iter().zip(types).filter(|(f, _)| !f.attrs.skip_serializing) {
            let ty = self.field_out(field, ty, walk).unwrap_or(Type::Any);
            if field.attrs.flatten {
                match ty {
                    Type::Object(inner) => params.extend(inner),
                    _ => {
                        return Err(
                            "a `flatten`ed field is not a struct, so the keys it adds are unknown".to_owned()
                        );
                    }
                }
                continue;
            }
            let mut param = Param::new(field.name.serialize.clone(), ty).description(field.doc.clone());
            param.optional = field.attrs.skip_serializing_if;
            params.push(param);
        }
        Ok(Type::Object(params))
    }

    fn field_out(&mut self, field: &Field, ty: &Ty, walk: &mut Walk) -> Result<Type, String> {
        if field.attrs.custom_serialize {
            return Ok(Type::Any);
        }
        self.out(ty, walk)
    }
}
