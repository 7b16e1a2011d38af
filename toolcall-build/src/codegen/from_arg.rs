//! `FromArg` impls for local structs and enums, following their serde representation.
//!
//! Field types are never named: each field is decoded through `toolcall_runtime::__private::slot` (`__rt::slot`)
//! and its type is inferred from the struct literal. Generic types get a generic impl
//! with a `FromArg` bound on each type parameter.

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote};

use super::dispatch::{KeyFns, KeyList};
use crate::model::{Decode, Field, LocalImpl, Payload, Shape, Tagging, Variant};

/// Tokens decoding one slot from `value` (an `Option<&Value>`) at `depth`: the call
/// functions' [`slot_expr`](super::dispatch::slot_expr), over tokens.
fn slot_expr(decode: &Decode, value: &TokenStream, depth: &TokenStream) -> TokenStream {
    let value = syn::Expr::Verbatim(value.clone());
    let depth = syn::Expr::Verbatim(depth.clone());
    super::dispatch::slot_expr(decode, value, depth).into_token_stream()
}

/// The type's generics with `bound` added to each type parameter: an impl's parameters.
fn bounded_generics(local: &LocalImpl, bound: syn::TypeParamBound) -> syn::Generics {
    let mut generics = local.generics.clone();
    for param in generics.type_params_mut() {
        param.bounds.push(bound.clone());
    }
    generics
}

/// The `impl FromArg` of one type of the crate.
pub fn local_impl(local: &LocalImpl) -> TokenStream {
    let ident = &local.ident;
    let type_path = &local.path;
    let generics = bounded_generics(local, syn::parse_quote!(::toolcall_runtime::FromArg<'__t>));
    let (_, type_generics, where_clause) = local.generics.split_for_impl();
    let impl_params = generics.params.iter();
    let body = match unit_enum_names(local) {
        // The names checked, then picked by the type's `FastArg` impl (no second `match`).
        Some(names) => quote!(__rt::slot::unit_enum(value, &[#(#names),*], depth)),
        None => shape_body(&local.shape, &ident.to_string()),
    };
    let accepts_null = matches!(local.shape, Shape::Unit).then(|| {
        quote!(
            const ACCEPTS_NULL: bool = true;
        )
    });
    // A struct an internally tagged enum holds in a newtype variant is also read beside
    // the enum's tag.
    let from_tagged = match &local.shape {
        Shape::Struct(fields) if local.merged => {
            let build = struct_literal(quote!(Self), fields, &quote!(value), Some(Tag::Runtime), None);
            Some(quote! {
                fn from_tagged(value: &'__t __rt::Value, depth: usize, tag: &str) -> Result<Self, __rt::ArgError> {
                    Ok(#build)
                }
            })
        }
        _ => None,
    };
    quote! {
        // `'__t`: a lifetime no user type names.
        impl<'__t, #(#impl_params),*> ::toolcall_runtime::FromArg<'__t> for #type_path #type_generics #where_clause {
            #accepts_null
            fn from_arg(value: &'__t __rt::Value, depth: usize) -> Result<Self, __rt::ArgError> {
                #body
            }
            #from_tagged
        }
    }
}

/// Every name of an externally tagged enum whose variants are all units, where the
/// type has a `FastArg` impl and no type parameters: its exact decoder checks the name and
/// leaves the pick to that impl (`__rt::slot::unit_enum`).
fn unit_enum_names(local: &LocalImpl) -> Option<Vec<String>> {
    let Shape::Enum { tagging: Tagging::External, variants } = &local.shape else { return None };
    let all_units = variants.iter().all(|v| matches!(v.payload, Payload::Unit));
    let fits = local.fast && all_units && local.generics.type_params().next().is_none();
    fits.then(|| variant_names(&variants.iter().collect::<Vec<_>>()))
}

/// The extra key an object may hold beside a struct's fields: an internally tagged enum's
/// tag, known when generating (`Fixed`) or passed in (`Runtime`, the `tag` variable).
#[derive(Clone, Copy)]
enum Tag<'t> {
    Fixed(&'t str),
    Runtime,
}

fn shape_body(shape: &Shape, type_name: &str) -> TokenStream {
    match shape {
        Shape::Struct(fields) => {
            let build = struct_literal(quote!(Self), fields, &quote!(value), None, None);
            quote!(Ok(#build))
        }
        Shape::Newtype(decode) => {
            let expr = nested(decode, &quote!(value), &quote!(depth));
            quote!(Ok(Self(#expr)))
        }
        Shape::TupleStruct(decodes) => {
            let build = tuple_literal(quote!(Self), decodes, &quote!(value), None);
            quote!(Ok(#build))
        }
        Shape::Unit => quote! {
            let _ = depth;
            __rt::slot::unit(value)?;
            Ok(Self)
        },
        Shape::Enum { tagging, variants } => enum_body(tagging, variants, type_name),
    }
}

/// Decodes a payload that is always present (`Some(value)`), mapping errors inward.
fn nested(decode: &Decode, value: &TokenStream, depth: &TokenStream) -> TokenStream {
    let expr = slot_expr(decode, &quote!(Some(#value)), depth);
    quote!(#expr.map_err(|e| match e {
        __rt::slot::SlotError::Invalid(e) => e,
        missing => missing.field("value"),
    })?)
}

/// Where a payload sits, for error paths: a variant's key (`{"Circle": {..}}`), or nothing.
type Context<'c> = Option<&'c str>;

/// Appends the context key to an error expression (`Result<_, ArgError>`).
fn in_context(expr: TokenStream, context: Context<'_>) -> TokenStream {
    match context {
        Some(key) => quote!(#expr.map_err(|e| e.at_key(#key))),
        None => expr,
    }
}

/// `Path { a: .., b: .. }` decoded from the object in `value`. `tag` is an extra key the
/// object may hold (an internally tagged enum's tag).
fn struct_literal(
    path: TokenStream,
    fields: &[Field],
    value: &TokenStream,
    tag: Option<Tag<'_>>,
    context: Context<'_>,
) -> TokenStream {
    let fixed = match tag {
        Some(Tag::Fixed(tag)) => Some(tag),
        _ => None,
    };
    let known = fields
        .iter()
        .filter(|f| f.decode.is_some())
        .flat_map(|f| std::iter::once(&f.wire).chain(&f.aliases))
        .map(String::as_str)
        .chain(fixed);
    let inits = fields.iter().map(|field| {
        let ident = &field.ident;
        let Some(decode) = &field.decode else {
            return quote!(#ident: Default::default());
        };
        let wire = &field.wire;
        // A field with aliases is read under any of its names (`get_aliased`).
        let member = match field.aliases.as_slice() {
            [] => quote!(object.get(#wire)),
            aliases => {
                let read = in_context(quote!(object.get_aliased(#wire, &[#(#aliases),*])), context);
                quote!(#read?)
            }
        };
        let expr = if field.default {
            let inner = slot_expr(decode, &quote!(present), &quote!(depth + 1));
            quote!(__rt::slot::defaulted(#member, |present| #inner).map_err(|e| e.field(#wire)))
        } else if field.aliases.is_empty() && matches!(decode, Decode::FromArg) {
            // A plain field: one call reads, decodes and names it.
            quote!(object.field(#wire, depth))
        } else {
            let expr = slot_expr(decode, &member, &quote!(depth + 1));
            quote!(#expr.map_err(|e| e.field(#wire)))
        };
        let expr = in_context(expr, context);
        quote!(#ident: #expr?)
    });
    let object = match tag {
        Some(Tag::Runtime) => quote!(__rt::slot::object_tagged(#value, &[#(#known),*], tag, depth)),
        _ => in_context(quote!(__rt::slot::object(#value, &[#(#known),*], depth)), context),
    };
    // A field whose default is a function: when it is absent, serde decodes the whole
    // value, since only serde can call that function. The keys are checked above, and a
    // field given under two of its names is refused first, as the decoder below would.
    let read = |field: &Field| {
        let wire = &field.wire;
        let aliases = &field.aliases;
        in_context(quote!(object.get_aliased(#wire, &[#(#aliases),*])), context)
    };
    let by_function: Vec<TokenStream> =
        fields.iter().filter(|f| f.default_fn && f.decode.is_some()).map(read).collect();
    let aliased: Vec<TokenStream> =
        fields.iter().filter(|f| !f.aliases.is_empty() && f.decode.is_some()).map(read).collect();
    let fallback = (!by_function.is_empty()).then(|| {
        quote! {
            if #(#by_function?.is_none())||* {
                #(#aliased?;)*
                return __rt::slot::whole(value, depth);
            }
        }
    });
    quote!({
        let object = #object?;
        #fallback
        #path { #(#inits),* }
    })
}

/// `Path(a, b)` decoded from the array in `value`.
fn tuple_literal(
    path: TokenStream,
    decodes: &[Decode],
    value: &TokenStream,
    context: Context<'_>,
) -> TokenStream {
    let len = decodes.len();
    let items = decodes.iter().enumerate().map(|(i, decode)| {
        let item = if i == 0 { quote!(items.first()) } else { quote!(items.get(#i)) };
        let expr = slot_expr(decode, &item, &quote!(depth + 1));
        let expr = in_context(quote!(#expr.map_err(|e| e.item(#i))), context);
        quote!(#expr?)
    });
    let tuple = in_context(quote!(__rt::slot::tuple(#value, #len, depth)), context);
    quote!({
        let items = #tuple?;
        #path(#(#items),*)
    })
}

/// Builds a variant from its payload in `payload` (a `&Value`); errors name `context`.
fn variant_value(variant: &Variant, payload: &TokenStream, context: Context<'_>) -> TokenStream {
    let ident = &variant.ident;
    match &variant.payload {
        Payload::Unit => quote!(Self::#ident),
        Payload::Newtype(decode) => match context {
            Some(key) => {
                let expr = slot_expr(decode, &quote!(Some(#payload)), &quote!(depth + 1));
                quote!(Self::#ident(#expr.map_err(|e| e.field(#key))?))
            }
            // Untagged: the payload is the value itself, so errors keep their path.
            None => {
                let expr = nested(decode, payload, &quote!(depth + 1));
                quote!(Self::#ident(#expr))
            }
        },
        Payload::Tuple(decodes) => tuple_literal(quote!(Self::#ident), decodes, payload, context),
        Payload::Struct(fields) => struct_literal(quote!(Self::#ident), fields, payload, None, context),
        // Only internally tagged enums merge a payload (`internal_body`).
        Payload::Merged => quote!(unreachable!()),
    }
}

fn enum_body(tagging: &Tagging, variants: &[Variant], type_name: &str) -> TokenStream {
    match tagging {
        Tagging::External => external_body(variants),
        Tagging::Internal(tag) => internal_body(tag, variants),
        Tagging::Adjacent(tag, content) => adjacent_body(tag, content, variants),
        Tagging::Untagged => untagged_body(variants, type_name),
    }
}

fn unreachable_arm() -> TokenStream {
    quote!(_ => Err(::toolcall_runtime::ArgError::invalid("unknown variant")),)
}

/// Every name a variant is read under: its wire name, then its aliases.
fn variant_names(variants: &[&Variant]) -> Vec<String> {
    variants.iter().flat_map(|v| std::iter::once(&v.wire).chain(&v.aliases)).cloned().collect()
}

/// The pattern matching a variant's names: `"circle" | "round"`.
fn variant_pattern(variant: &Variant) -> TokenStream {
    let wire = &variant.wire;
    let aliases = &variant.aliases;
    quote!(#wire #(| #aliases)*)
}

fn external_body(variants: &[Variant]) -> TokenStream {
    let (units, datas): (Vec<&Variant>, Vec<&Variant>) =
        variants.iter().partition(|v| matches!(v.payload, Payload::Unit));
    let (units, datas) = (variant_names(&units), variant_names(&datas));
    let arms = variants.iter().map(|v| {
        let wire = &v.wire;
        let pattern = variant_pattern(v);
        let build = variant_value(v, &quote!(payload), Some(wire));
        quote!(#pattern => Ok(#build),)
    });
    let fallback = unreachable_arm();
    quote! {
        let (name, payload) = __rt::slot::external(value, &[#(#units),*], &[#(#datas),*], depth)?;
        let _ = payload;
        match name {
            #(#arms)*
            #fallback
        }
    }
}

fn internal_body(tag: &str, variants: &[Variant]) -> TokenStream {
    let names = variant_names(&variants.iter().collect::<Vec<_>>());
    let arms = variants.iter().map(|v| {
        let pattern = variant_pattern(v);
        let build = match &v.payload {
            Payload::Struct(fields) => {
                let ident = &v.ident;
                struct_literal(quote!(Self::#ident), fields, &quote!(value), Some(Tag::Fixed(tag)), None)
            }
            // The struct's fields sit beside the tag, as serde writes them.
            Payload::Merged => {
                let ident = &v.ident;
                quote!(Self::#ident(::toolcall_runtime::FromArg::from_tagged(value, depth, #tag)?))
            }
            _ => {
                let ident = &v.ident;
                quote!({
                    __rt::slot::object(value, &[#tag], depth)?;
                    Self::#ident
                })
            }
        };
        quote!(#pattern => Ok(#build),)
    });
    let fallback = unreachable_arm();
    quote! {
        let (name, _) = __rt::slot::internal(value, #tag, &[#(#names),*], depth)?;
        match name {
            #(#arms)*
            #fallback
        }
    }
}

fn adjacent_body(tag: &str, content: &str, variants: &[Variant]) -> TokenStream {
    let names = variant_names(&variants.iter().collect::<Vec<_>>());
    let arms = variants.iter().map(|v| {
        let pattern = variant_pattern(v);
        let build = match &v.payload {
            // A unit variant has no content: absent or `null` (serde's unit), nothing else.
            Payload::Unit => {
                let ident = &v.ident;
                quote!({
                    if let Some(content) = content {
                        __rt::slot::unit(content).map_err(|e| e.at_key(#content))?;
                    }
                    Self::#ident
                })
            }
            _ => {
                let inner = variant_value(v, &quote!(payload), Some(content));
                quote!({
                    let payload = content.ok_or_else(|| ::toolcall_runtime::ArgError::new(
                        ::toolcall_runtime::Reason::MissingField { field: #content.to_owned() },
                    ))?;
                    #inner
                })
            }
        };
        quote!(#pattern => Ok(#build),)
    });
    let fallback = unreachable_arm();
    quote! {
        let (name, content) = __rt::slot::adjacent(value, #tag, #content, &[#(#names),*], depth)?;
        let _ = content;
        match name {
            #(#arms)*
            #fallback
        }
    }
}

fn untagged_body(variants: &[Variant], type_name: &str) -> TokenStream {
    let attempts = variants.iter().map(|v| {
        let build = match &v.payload {
            Payload::Unit => {
                let ident = &v.ident;
                quote!({
                    __rt::slot::unit(value)?;
                    Self::#ident
                })
            }
            _ => variant_value(v, &quote!(value), None),
        };
        let attempt = format_ident!("attempt");
        quote! {
            let #attempt = (|| -> Result<Self, ::toolcall_runtime::ArgError> {
                Ok(#build)
            })();
            match #attempt {
                Ok(found) => return Ok(found),
                Err(error) => {
                    first.get_or_insert(error);
                }
            }
        }
    });
    quote! {
        let mut first: Option<::toolcall_runtime::ArgError> = None;
        #(#attempts)*
        Err(__rt::slot::no_variant(value, #type_name, first))
    }
}

/// The `impl FastArg` of a local type the fast path reads (`LocalImpl::fast`): a struct's
/// object in one pass, each key matched to its field's slot; a unit enum's name by a
/// `match`. Anything unexpected gives up, and the `FromArg` impl above explains it.
/// `None` for the other shapes, which `types::fast` never marks.
pub fn fast_impl(local: &LocalImpl, keys: &KeyFns) -> Option<TokenStream> {
    let fast = quote!(__rt::fast);
    let body = match &local.shape {
        Shape::Struct(fields) => fast_struct_body(fields, keys),
        Shape::Enum { variants, .. } => fast_unit_enum_body(variants),
        _ => return None,
    };
    let type_path = &local.path;
    let generics = bounded_generics(local, syn::parse_quote!(#fast::FastArg<'de>));
    let (_, type_generics, where_clause) = local.generics.split_for_impl();
    let impl_params = generics.params.iter();
    Some(quote! {
        impl<'de, #(#impl_params),*> #fast::FastArg<'de> for #type_path #type_generics #where_clause {
            fn fast<D: __rt::Deserializer<'de>>(de: D, depth: usize) -> Result<Self, D::Error> {
                #body
            }
        }
    })
}

/// The keys a struct's one-pass decoder reads: each decoded field's name and aliases, with
/// the field's slot.
fn struct_keys(fields: &[Field]) -> KeyList {
    let decoded = fields.iter().filter(|f| f.decode.is_some());
    decoded
        .enumerate()
        .flat_map(|(slot, f)| {
            std::iter::once(&f.wire).chain(&f.aliases).map(move |name| (name.clone(), slot))
        })
        .collect()
}

/// The key lists of the `FastArg` impls [`fast_impl`] writes for `local`: its struct's, if
/// it is a struct the one-pass reader fills.
pub fn fast_keys(local: &LocalImpl) -> Option<KeyList> {
    match &local.shape {
        Shape::Struct(fields) if local.fast => Some(struct_keys(fields)),
        _ => None,
    }
}

/// Fills one slot per decoded field (each key matched to its slot by the file's shared
/// key function for the struct's keys), then builds `Self` (skipped fields default).
fn fast_struct_body(fields: &[Field], keys: &KeyFns) -> TokenStream {
    let fast = quote!(__rt::fast);
    let decoded: Vec<&Field> = fields.iter().filter(|f| f.decode.is_some()).collect();
    let index = keys.ident(&struct_keys(fields));
    let (fill, slots) = super::dispatch::fill_slots(decoded.len(), |slots| {
        syn::Stmt::Expr(
            syn::Expr::Verbatim(quote!(#fast::fields(de, #slots, depth, #index)?)),
            Some(Default::default()),
        )
    });
    let mut next = slots.iter();
    let inits = fields.iter().map(|field| {
        let ident = &field.ident;
        if field.decode.is_none() {
            return quote!(#ident: Default::default());
        }
        let slot = next.next();
        // A default only serde can call: absent, the fast path gives up and the exact
        // decoder hands the value to serde.
        if field.default && !field.default_fn {
            quote!(#ident: #fast::defaulted(#slot))
        } else {
            quote!(#ident: #fast::required(#slot)?)
        }
    });
    quote! {
        #(#fill)*
        Ok(Self { #(#inits),* })
    }
}

/// A unit variant picked by its wire name.
fn fast_unit_enum_body(variants: &[Variant]) -> TokenStream {
    let arms = variants.iter().map(|v| {
        let (pattern, ident) = (variant_pattern(v), &v.ident);
        quote!(#pattern => Some(Self::#ident),)
    });
    quote! {
        let _ = depth;
        __rt::fast::unit_variant(de, |name: &str| match name {
            #(#arms)*
            _ => None,
        })
    }
}
