//! The ast stage: the syn trees read once into records that carry their spans. The
//! crate's types ([`Container`], read for the crate tree) hold their docs and their serde
//! attributes for both directions (serde_derive's `internals::ast` and `attr`); tool
//! functions ([`tool::ToolFn`]) hold each parameter's wire name, type, bullet, default and
//! override together. The readers are here: doc comments ([`docs`]), signatures
//! ([`signature`]), defaults the body applies ([`defaults`]), `TOOL_PARAMS` ([`overrides`]),
//! `TOOLS` ([`metadata`]) and a resource file's `RESOURCES` ([`resource`]). The schema, the decoder and the output schema read these
//! records; none goes back to the source.
//!
//! Attribute problems are reported here, once, into the shared [`Diagnostics`] context.

pub mod attr;
pub mod defaults;
pub mod docs;
pub mod metadata;
pub mod overrides;
pub mod resource;
pub mod signature;
pub mod tool;

use std::path::Path;

use crate::ast::docs::{Scope, doc_text, parse_docs_in};
use crate::diagnostics::Diagnostics;
use attr::{Both, RenameRule};

/// A struct, enum or type alias declared in a tool file.
#[derive(Clone, Debug)]
pub struct Container {
    /// Its identifier.
    pub ident: syn::Ident,
    /// The module declaring it, from the crate root (set when the crate tree takes it).
    pub module: Vec<String>,
    /// The file declaring it, where diagnostics about it point.
    pub file: std::path::PathBuf,
    /// `pub` or `pub(crate)`: generated code can name it.
    pub visible: bool,
    /// Its generics.
    pub generics: syn::Generics,
    /// The first paragraph of its docs ("" when none).
    pub doc: String,
    /// Its `#[serde(..)]` container attributes.
    pub attrs: attr::Container,
    /// Whether it derives `Deserialize`.
    pub derives_deserialize: bool,
    /// Whether it derives `Serialize`.
    pub derives_serialize: bool,
    /// Its fields, variants or aliased type.
    pub data: Data,
}

/// The body of a container.
#[derive(Clone, Debug)]
pub enum Data {
    /// A struct.
    Struct(Style, Vec<Field>),
    /// An enum, variants in declaration order.
    Enum(Vec<Variant>),
    /// `type Alias = Target;`.
    Alias(Box<syn::Type>),
}

/// How a struct or variant holds its fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// `{ a: A, .. }`.
    Named,
    /// `(A, B, ..)` with two or more fields.
    Tuple,
    /// `(A)`: serde's newtype.
    Newtype,
    /// No fields.
    Unit,
}

/// One field of a struct or variant.
#[derive(Clone, Debug)]
pub struct Field {
    /// The identifier (`None` in tuple fields).
    pub ident: Option<syn::Ident>,
    /// The wire name per direction (named fields; the index otherwise), after `rename`
    /// and the applicable `rename_all` rule.
    pub name: Both<String>,
    /// Its type as written.
    pub ty: syn::Type,
    /// `pub` or `pub(crate)`.
    pub visible: bool,
    /// The first paragraph of its docs.
    pub doc: String,
    /// Its serde attributes.
    pub attrs: attr::Field,
    /// Where its type is written.
    pub span: proc_macro2::Span,
}

/// One enum variant.
#[derive(Clone, Debug)]
pub struct Variant {
    /// The identifier.
    pub ident: syn::Ident,
    /// The wire name per direction.
    pub name: Both<String>,
    /// How it holds its fields.
    pub style: Style,
    /// Its fields.
    pub fields: Vec<Field>,
    /// The first paragraph of its docs.
    pub doc: String,
    /// Its serde attributes.
    pub attrs: attr::Variant,
    /// Marked `#[default]` (the enum's `Default`).
    pub is_default: bool,
}

impl Container {
    /// Reads a struct, enum or alias item; `None` for any other item. Its docs' bracketed
    /// names are read in `scope` (its module's). Attribute errors go to `diags`, located in
    /// `file`.
    pub fn from_item(item: &syn::Item, file: &Path, scope: &Scope, diags: &Diagnostics) -> Option<Container> {
        let mut errors = Vec::new();
        let container = match item {
            syn::Item::Struct(s) => {
                let attrs = attr::container(&s.attrs, false, &mut errors);
                let (style, fields) = fields(&s.fields, attrs.rename_all.clone(), scope, &mut errors);
                let data = Data::Struct(style, fields);
                Container::new(&s.ident, &s.vis, &s.generics, (&s.attrs, scope), attrs, data)
            }
            syn::Item::Enum(e) => {
                let attrs = attr::container(&e.attrs, true, &mut errors);
                let variants = e.variants.iter().map(|v| variant(v, &attrs, scope, &mut errors)).collect();
                Container::new(&e.ident, &e.vis, &e.generics, (&e.attrs, scope), attrs, Data::Enum(variants))
            }
            syn::Item::Type(t) => Container::new(
                &t.ident,
                &t.vis,
                &t.generics,
                (&t.attrs, scope),
                attr::Container::default(),
                Data::Alias(t.ty.clone()),
            ),
            _ => return None,
        };
        for error in errors {
            diags.error(file, error.span, error.message);
        }
        Some(container)
    }

    fn new(
        ident: &syn::Ident,
        vis: &syn::Visibility,
        generics: &syn::Generics,
        (attrs, scope): (&[syn::Attribute], &Scope),
        serde: attr::Container,
        data: Data,
    ) -> Self {
        Container {
            ident: ident.clone(),
            module: Vec::new(),
            file: std::path::PathBuf::new(),
            visible: is_crate_visible(vis),
            generics: generics.clone(),
            doc: doc_of(attrs, scope),
            attrs: serde,
            derives_deserialize: attr::derives(attrs, "Deserialize"),
            derives_serialize: attr::derives(attrs, "Serialize"),
            data,
        }
    }

    /// Its path from the crate root (`crate::models::Task`): what tells it from every
    /// other type of the crate.
    pub fn key(&self) -> String {
        let mut key = String::from("crate");
        for segment in self.module.iter().map(String::as_str).chain([self.ident.to_string().as_str()]) {
            key.push_str("::");
            key.push_str(segment);
        }
        key
    }

    /// Rewrites every type written in it (fields, payloads, the alias target) with `f`.
    pub fn rewrite_types(&mut self, mut f: impl FnMut(&mut syn::Type)) {
        match &mut self.data {
            Data::Struct(_, fields) => fields.iter_mut().for_each(|field| f(&mut field.ty)),
            Data::Enum(variants) => {
                variants.iter_mut().flat_map(|v| v.fields.iter_mut()).for_each(|field| f(&mut field.ty))
            }
            Data::Alias(target) => f(target),
        }
    }

    /// The alias target, for aliases.
    pub fn alias(&self) -> Option<&syn::Type> {
        match &self.data {
            Data::Alias(ty) => Some(ty),
            _ => None,
        }
    }
}

/// An identifier's name without the `r#` prefix.
pub fn unraw(ident: &syn::Ident) -> String {
    let text = ident.to_string();
    text.strip_prefix("r#").map(str::to_owned).unwrap_or(text)
}

/// `pub` or `pub(crate)`.
pub fn is_crate_visible(vis: &syn::Visibility) -> bool {
    match vis {
        syn::Visibility::Public(_) => true,
        syn::Visibility::Restricted(r) => r.path.is_ident("crate"),
        syn::Visibility::Inherited => false,
    }
}

/// The first paragraph of an item's docs, its bracketed names read in `scope`.
fn doc_of(attrs: &[syn::Attribute], scope: &Scope) -> String {
    parse_docs_in(&doc_text(attrs), scope).description
}

/// The fields of a struct or variant, named under `rules` (per direction).
fn fields(
    fields: &syn::Fields,
    rules: Both<Option<RenameRule>>,
    scope: &Scope,
    errors: &mut Vec<attr::AttrError>,
) -> (Style, Vec<Field>) {
    let style = match fields {
        syn::Fields::Named(_) => Style::Named,
        syn::Fields::Unnamed(u) if u.unnamed.len() == 1 => Style::Newtype,
        syn::Fields::Unnamed(_) => Style::Tuple,
        syn::Fields::Unit => Style::Unit,
    };
    let read = fields
        .iter()
        .enumerate()
        .map(|(index, field)| {
            let attrs = attr::field(&field.attrs, errors);
            let base = match &field.ident {
                Some(ident) => crate::ast::unraw(ident),
                None => index.to_string(),
            };
            let named = |rename: &Option<String>, rule: Option<RenameRule>| match (rename, rule) {
                (Some(rename), _) => rename.clone(),
                (None, Some(rule)) if field.ident.is_some() => rule.apply_to_field(&base),
                _ => base.clone(),
            };
            let name = Both {
                serialize: named(&attrs.rename.serialize, rules.serialize),
                deserialize: named(&attrs.rename.deserialize, rules.deserialize),
            };
            Field {
                ident: field.ident.clone(),
                name,
                ty: field.ty.clone(),
                visible: is_crate_visible(&field.vis),
                doc: doc_of(&field.attrs, scope),
                attrs,
                span: syn::spanned::Spanned::span(&field.ty),
            }
        })
        .collect();
    (style, read)
}

/// One variant: its name under the container's `rename_all`, its fields under its own
/// `rename_all` or else the container's `rename_all_fields`.
fn variant(
    v: &syn::Variant,
    container: &attr::Container,
    scope: &Scope,
    errors: &mut Vec<attr::AttrError>,
) -> Variant {
    let attrs = attr::variant(&v.attrs, errors);
    let base = v.ident.to_string();
    let named = |rename: &Option<String>, rule: Option<RenameRule>| match (rename, rule) {
        (Some(rename), _) => rename.clone(),
        (None, Some(rule)) => rule.apply_to_variant(&base),
        (None, None) => base.clone(),
    };
    let name = Both {
        serialize: named(&attrs.rename.serialize, container.rename_all.serialize),
        deserialize: named(&attrs.rename.deserialize, container.rename_all.deserialize),
    };
    let rules = Both {
        serialize: attrs.rename_all.serialize.or(container.rename_all_fields.serialize),
        deserialize: attrs.rename_all.deserialize.or(container.rename_all_fields.deserialize),
    };
    let (style, fields) = fields(&v.fields, rules, scope, errors);
    let is_default = v.attrs.iter().any(|a| a.path().is_ident("default"));
    Variant { ident: v.ident.clone(), name, style, fields, doc: doc_of(&v.attrs, scope), attrs, is_default }
}
