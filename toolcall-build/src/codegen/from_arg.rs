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
        None if reports_one_problem(&local.shape) => {
            let body = shape_body(&local.shape, &ident.to_string());
            quote!(__rt::decode::one_problem(|| -> Result<Self, __rt::ArgError> { #body }))
        }
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

/// Whether the type is an enum one of whose variants holds data, read by its tag: its
/// decoder keeps the first problem of the variant it read (`__rt::decode::one_problem`), as
/// the IR decoder, which tries each branch, reports one. (An untagged enum's error is one
/// already.)
fn reports_one_problem(shape: &Shape) -> bool {
    match shape {
        Shape::Enum { tagging: Tagging::Untagged, .. } => false,
        Shape::Enum { variants, .. } => variants.iter().any(|v| !matches!(v.payload, Payload::Unit)),
        _ => false,
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
///
/// Every field is read into a `Result`, and `__rt::decode::all` keeps every error (the
/// unknown keys first, then the fields in declaration order), so a struct reports all its
/// mistakes at once, as a call does. A field whose default is a function is read only when
/// present and not `null`: absent or `null`, the whole value goes to serde (only serde can
/// call that function) once the other fields decoded, without those `null`s.
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
    let members = match tag {
        Some(Tag::Runtime) => quote!(__rt::slot::members_tagged(#value, &[#(#known),*], tag, depth)),
        _ => in_context(quote!(__rt::slot::members(#value, &[#(#known),*], depth)), context),
    };
    let decoded: Vec<(&Field, &Decode)> =
        fields.iter().filter_map(|f| f.decode.as_ref().map(|decode| (f, decode))).collect();
    let bindings: Vec<syn::Ident> = (0..decoded.len()).map(|i| format_ident!("f{i}")).collect();
    let results = grouped(decoded.iter().map(|(field, decode)| field_result(field, decode)).collect());
    let pattern = grouped(bindings.iter().map(ToTokens::to_token_stream).collect());
    let collected = in_context(quote!(__rt::decode::all(unknown, #results)), context);
    let object = if decoded.is_empty() { quote!(_) } else { quote!(object) };
    let by_function: Vec<&syn::Ident> =
        decoded.iter().zip(&bindings).filter(|((field, _), _)| field.default_fn).map(|(_, b)| b).collect();
    let by_function_names = decoded
        .iter()
        .filter(|(field, _)| field.default_fn)
        .flat_map(|(field, _)| std::iter::once(&field.wire).chain(&field.aliases));
    let fallback = (!by_function.is_empty()).then(|| {
        quote! {
            let (#(Some(#by_function),)*) = (#(#by_function,)*) else {
                return __rt::slot::whole_defaulted(value, &[#(#by_function_names),*], depth);
            };
        }
    });
    let mut next = bindings.iter();
    let inits = fields.iter().map(|field| {
        let ident = &field.ident;
        match field.decode.as_ref().and_then(|_| next.next()) {
            Some(binding) => quote!(#ident: #binding),
            None => quote!(#ident: Default::default()),
        }
    });
    quote!({
        let (#object, unknown) = #members?;
        let #pattern = #collected?;
        #fallback
        #path { #(#inits),* }
    })
}

/// One field of a struct's object (`object`) read into a `Result<_, ArgError>` whose error
/// names the field.
fn field_result(field: &Field, decode: &Decode) -> TokenStream {
    let wire = &field.wire;
    // A field with aliases is read under any of its names (`get_aliased`), its value
    // then bound to `member`.
    let member = if field.aliases.is_empty() { quote!(object.get(#wire)) } else { quote!(member) };
    let result = if field.default_fn {
        let inner = slot_expr(decode, &quote!(present), &quote!(depth + 1));
        quote!(__rt::slot::if_present(#member, |present| #inner).map_err(|e| e.field(#wire)))
    } else if field.default {
        let inner = slot_expr(decode, &quote!(present), &quote!(depth + 1));
        quote!(__rt::slot::defaulted(#member, |present| #inner).map_err(|e| e.field(#wire)))
    } else if field.aliases.is_empty() && matches!(decode, Decode::FromArg) {
        // A plain field: one call reads, decodes and names it.
        quote!(object.field(#wire, depth))
    } else {
        let expr = slot_expr(decode, &member, &quote!(depth + 1));
        quote!(#expr.map_err(|e| e.field(#wire)))
    };
    match field.aliases.as_slice() {
        [] => result,
        aliases => quote!(object.get_aliased(#wire, &[#(#aliases),*]).and_then(|member| #result)),
    }
}

/// `items` as one tuple, or, past the runtime's `MAX_COLLECTED`, as tuples of tuples of at
/// most that many each: the shape `__rt::decode::Collect` has impls for.
fn grouped(items: Vec<TokenStream>) -> TokenStream {
    let most = toolcall_runtime::__private::decode::MAX_COLLECTED;
    if items.len() <= most {
        return quote!((#(#items,)*));
    }
    let mut rest = items.into_iter().peekable();
    let mut groups = Vec::new();
    while rest.peek().is_some() {
        let group: Vec<TokenStream> = rest.by_ref().take(most).collect();
        groups.push(quote!((#(#group,)*)));
    }
    grouped(groups)
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
