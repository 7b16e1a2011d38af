//! Output schemas: a tool's success type as serde serializes it (MCP's `outputSchema`).
//!
//! A reader of the same ast as the input schema, from the other side: serialize names,
//! `skip_serializing` fields left out, `skip_serializing_if` fields optional, `flatten`ed
//! structs merged, enums per their tagging, floats nullable (serde_json writes NaN and
//! infinities as `null`). A part the build cannot see (a foreign type without a provider,
//! a custom `serialize_with`) is `{}`, which every value satisfies; a result whose shape
//! cannot be described at all has no output schema, and the caller says why.

use std::collections::BTreeMap;

use toolcall_runtime::ir::{Param, Type};

use super::builtin::scalar;
use super::local::{enum_schema, generic_env, substituted};
use super::{INLINE_BUDGET, generic_args};
use crate::ast::{Container, Data, Field, Style};
use crate::provider::TypeProvider;
use crate::tree::CrateTree;
use crate::tree::resolve::Resolver;

/// Maps result types of one tool file to their serialized schema.
pub struct OutputMapper<'a> {
    tree: &'a CrateTree,
    module: &'a [String],
    providers: &'a [Box<dyn TypeProvider + Send + Sync>],
    stack: Vec<String>,
    budget: usize,
}

impl<'a> OutputMapper<'a> {
    /// A mapper for the result types written in `module` of `tree`.
    pub fn new(
        tree: &'a CrateTree,
        module: &'a [String],
        providers: &'a [Box<dyn TypeProvider + Send + Sync>],
    ) -> Self {
        OutputMapper { tree, module, providers, stack: Vec::new(), budget: INLINE_BUDGET }
    }

    /// The serialized schema of a success type; `Err` says why it cannot be described.
    pub fn result(&mut self, ty: &syn::Type) -> Result<Type, String> {
        self.budget = INLINE_BUDGET;
        let mut ty = ty.clone();
        Resolver::new(self.tree, self.module).absolute(&mut ty, &[]);
        self.map(&ty)
    }

    /// A nested type: what cannot be described is `{}` (every value satisfies it).
    fn nested(&mut self, ty: &syn::Type) -> Type {
        self.map(ty).unwrap_or(Type::Any)
    }

    fn map(&mut self, ty: &syn::Type) -> Result<Type, String> {
        match ty {
            syn::Type::Paren(p) => self.map(&p.elem),
            syn::Type::Group(g) => self.map(&g.elem),
            syn::Type::Reference(r) => self.map(&r.elem),
            syn::Type::Tuple(t) if t.elems.is_empty() => Ok(Type::Null),
            syn::Type::Tuple(t) => Ok(Type::Tuple(t.elems.iter().map(|e| self.nested(e)).collect())),
            syn::Type::Slice(s) => Ok(Type::array(self.nested(&s.elem))),
            syn::Type::Array(a) => {
                let len = match &a.len {
                    syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(n), .. }) => {
                        n.base10_parse::<u64>().ok()
                    }
                    _ => None,
                };
                let items = Box::new(self.nested(&a.elem));
                Ok(Type::Array { items, min_items: len, max_items: len, unique: false })
            }
            syn::Type::Path(p) if p.qself.is_none() => self.path(&p.path),
            other => Err(format!("type `{}` has no JSON mapping", quote::quote!(#other))),
        }
    }

    fn path(&mut self, path: &syn::Path) -> Result<Type, String> {
        let Some(last) = path.segments.last() else { return Err("empty type path".to_owned()) };
        let name = last.ident.to_string();
        let tree: &'a CrateTree = self.tree;
        let resolved: String =
            path.segments.iter().map(|s| s.ident.to_string()).collect::<Vec<_>>().join("::");
        let args = generic_args(last);
        let mapped: Vec<Type> = if self.providers.is_empty() {
            Vec::new()
        } else {
            args.iter().map(|a| self.nested(a)).collect()
        };
        let provided =
            || self.providers.iter().find_map(|p| p.resolve(&resolved, &mapped)).map(|found| found.ty);
        if let Some((_, item)) = tree.find_type(path) {
            return match provided() {
                Some(ty) => Ok(ty),
                None => self.local(&name, item, args),
            };
        }
        if let Some(why) = tree.explain_missing(path) {
            // A name declared nowhere may still be a provider's, as written.
            let written = last.ident.to_string();
            return self.providers.iter().find_map(|p| p.resolve(&written, &mapped)).map(|f| f.ty).ok_or(why);
        }
        if let Some(found) = self.builtin(&name, &resolved, &args) {
            return found;
        }
        provided().ok_or_else(|| {
            format!(
                "type `{resolved}` has no schema mapping (describe it with a `TypeProvider`, or wrap it in a \
                 type of this crate that derives `Serialize`)"
            )
        })
    }

    /// Std, serde_json and date/id types, as they serialize.
    fn builtin(&mut self, name: &str, resolved: &str, args: &[syn::Type]) -> Option<Result<Type, String>> {
        let first = args.first();
        let found = match (name, first) {
            ("f32" | "f64", None) => Type::number().nullable(),
            // Without an offset, chrono writes no zone: not JSON Schema's `date-time`.
            ("NaiveDateTime", None) => Type::string(),
            (
                "Date" | "Time" | "OffsetDateTime" | "PrimitiveDateTime" | "UtcDateTime" | "Timestamp"
                | "Zoned",
                _,
            ) if resolved.starts_with("time::") || resolved.starts_with("jiff::") => Type::string(),
            ("DateTime", _) if resolved.starts_with("jiff::") => Type::string(),
            ("Vec" | "VecDeque" | "LinkedList", Some(item)) => Type::array(self.nested(item)),
            ("HashSet" | "BTreeSet", Some(item)) => Type::Array {
                items: Box::new(self.nested(item)),
                min_items: None,
                max_items: None,
                unique: true,
            },
            // serde_json writes every map key as a string.
            ("HashMap" | "BTreeMap", Some(_)) => {
                Type::Map(Box::new(args.get(1).map_or(Type::Any, |v| self.nested(v))))
            }
            ("Map", _) if resolved.starts_with("serde_json") => Type::Map(Box::new(Type::Any)),
            ("Value", None) if resolved.starts_with("serde_json") => Type::Any,
            ("Box" | "Rc" | "Arc" | "Cow", Some(inner)) => return Some(self.map(inner)),
            ("Option", Some(inner)) => self.nested(inner).nullable(),
            ("Result", _) => {
                return Some(Err(
                    "a nested `Result` serializes as `{\"Ok\": ..}` or `{\"Err\": ..}`".to_owned()
                ));
            }
            _ => return scalar(name, resolved).map(|(ty, _)| Ok(ty)),
        };
        Some(Ok(found))
    }

    /// A local struct, enum or alias, as it serializes.
    fn local(&mut self, name: &str, item: &'a Container, args: Vec<syn::Type>) -> Result<Type, String> {
        let env = generic_env(&item.generics, &args);
        if let Some(target) = item.alias() {
            return self.map(&substituted(target, &env));
        }
        if !item.derives_serialize {
            return Err(format!("`{name}` does not derive `Serialize`, so its serialized shape is its own"));
        }
        if let Some(how) = item.attrs.custom_serialize {
            return Err(format!("`{name}` serializes through `#[serde({how})]`"));
        }
        let key = item.key();
        if self.stack.contains(&key) || self.budget == 0 {
            return Ok(Type::Any);
        }
        self.budget -= 1;
        self.stack.push(key);
        let ty = match &item.data {
            Data::Struct(_, fields) if item.attrs.transparent => {
                let field = fields.iter().find(|f| !f.attrs.skip_serializing);
                field.map_or(Ok(Type::Null), |f| self.field_type(f, &env))
            }
            Data::Struct(style, fields) => self.fields(*style, fields, &env),
            Data::Enum(variants) => {
                let mut branches = Vec::new();
                for variant in variants.iter().filter(|v| !v.attrs.skip_serializing) {
                    let payload = match variant.style {
                        Style::Unit => None,
                        _ if variant.attrs.custom => Some(Type::Any),
                        style => Some(self.fields(style, &variant.fields, &env).unwrap_or(Type::Any)),
                    };
                    branches.push((variant.name.serialize.clone(), variant.doc.clone(), payload));
                }
                Ok(enum_schema(&item.attrs.tagging, branches))
            }
            Data::Alias(_) => Ok(Type::Any),
        };
        self.stack.pop();
        ty
    }

    /// Fields held in `style`, as they serialize.
    fn fields(
        &mut self,
        style: Style,
        fields: &[Field],
        env: &BTreeMap<String, syn::Type>,
    ) -> Result<Type, String> {
        match style {
            Style::Unit => Ok(Type::Null),
            Style::Newtype => self.field_type(&fields[0], env),
            Style::Tuple => {
                Ok(Type::Tuple(fields.iter().map(|f| self.field_type(f, env).unwrap_or(Type::Any)).collect()))
            }
            Style::Named => self.object(fields, env),
        }
    }

    /// A struct's properties: serialize names, skipped fields left out, `skip_serializing_if`
    /// fields optional, `flatten`ed structs merged.
    fn object(&mut self, fields: &[Field], env: &BTreeMap<String, syn::Type>) -> Result<Type, String> {
        let mut params = Vec::new();
        for field in fields.iter().filter(|f| !f.attrs.skip_serializing) {
            let ty = self.field_type(field, env).unwrap_or(Type::Any);
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

    fn field_type(&mut self, field: &Field, env: &BTreeMap<String, syn::Type>) -> Result<Type, String> {
        if field.attrs.custom_serialize {
            return Ok(Type::Any);
        }
        self.map(&substituted(&field.ty, env))
    }
}
