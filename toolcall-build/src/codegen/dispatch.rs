//! Dispatcher tokens: one `match` per toolset, one call function per tool.
//!
//! A call function checks the arguments object, decodes each parameter through
//! `toolcall_runtime::__private::slot` (types are inferred from the function's signature, so
//! generated code never names a user type), then calls the function with panics caught
//! and encodes its result; for an `async fn` it boxes that body as a future instead. The
//! context (`&App`) is passed where the function takes it and is never decoded.

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote};
use toolcall_runtime::ir;

use crate::model::{self, Decode, Returns, ToolDef};

/// The identifier of a tool's call function.
pub fn call_ident(tool: &ToolDef) -> syn::Ident {
    format_ident!("__call_{}", tool.ident.to_string().trim_start_matches("r#"))
}

/// `fn <ident>(ctx, name, args) -> Option<Dispatched>`: a `match` over (name hash, name),
/// so dispatch cost barely grows with the number of tools. A sync tool's arm runs it; an
/// async tool's arm decodes its arguments and hands back its boxed body.
pub fn dispatcher(
    tools: &[&ToolDef],
    target: impl Fn(&ToolDef) -> TokenStream,
    ident: &syn::Ident,
    context: &TokenStream,
) -> TokenStream {
    let value = quote!(::toolcall_runtime::serde_json::Value);
    let output = quote!(::core::option::Option<::toolcall_runtime::__private::Dispatched<'a>>);
    if tools.is_empty() {
        return quote! {
            fn #ident<'a>(_ctx: &'a #context, _name: &'a str, _args: &'a #value) -> #output {
                ::core::option::Option::None
            }
        };
    }
    let arms = tools.iter().map(|tool| {
        let name = &tool.ir.name;
        let hash = proc_macro2::Literal::u64_suffixed(toolcall_runtime::__private::name_hash(name));
        let call = target(tool);
        let dispatched = if tool.is_async {
            quote!(::toolcall_runtime::__private::Dispatched::from_async(#call(ctx, args)))
        } else {
            quote!(::toolcall_runtime::__private::Dispatched::Ready(#call(ctx, args)))
        };
        quote!((#hash, #name) => #dispatched,)
    });
    quote! {
        fn #ident<'a>(ctx: &'a #context, name: &'a str, args: &'a #value) -> #output {
            // An integer switch on the name's hash, then one string comparison.
            ::core::option::Option::Some(match (::toolcall_runtime::__private::name_hash(name), name) {
                #(#arms)*
                _ => return ::core::option::Option::None,
            })
        }
    }
}

/// Tokens decoding one slot from `value` (an `Option<&Value>`) at `depth`.
pub fn slot_expr(decode: &Decode, value: &TokenStream, depth: &TokenStream) -> TokenStream {
    let slot = quote!(::toolcall_runtime::__private::slot);
    match decode {
        Decode::FromArg => quote!(#slot::from_arg(#value, #depth)),
        Decode::StringInteger { optional: false } => quote!(#slot::string_integer(#value, #depth)),
        Decode::StringInteger { optional: true } => quote!(#slot::string_integer_opt(#value, #depth)),
        Decode::Deserialize { optional: false } => quote!(#slot::serde(#value, #depth)),
        Decode::Deserialize { optional: true } => quote!(#slot::serde_opt(#value, #depth)),
        Decode::Provider { function, optional } => {
            let path: syn::Path =
                syn::parse_str(function).unwrap_or_else(|_| syn::parse_quote!(invalid_provider_path));
            if *optional {
                quote!(#slot::provided_opt(#value, #depth, #path))
            } else {
                quote!(#slot::provided(#value, #depth, #path))
            }
        }
    }
}

/// The call function of one tool: decode every parameter, then run a sync tool with
/// panics caught, or box an async tool's body (polled later, panics caught per poll).
pub fn call_fn(tool: &ToolDef, module_path: &TokenStream, context: &TokenStream) -> TokenStream {
    let ident = call_ident(tool);
    let name = &tool.ir.name;
    let known = tool.params.iter().map(|p| &p.name);
    let bindings: Vec<syn::Ident> = (0..tool.params.len()).map(|i| format_ident!("arg{}", i)).collect();
    let results: Vec<syn::Ident> = (0..tool.params.len()).map(|i| format_ident!("r{}", i)).collect();
    let decodes = tool.params.iter().zip(&results).map(|(param, result)| decode_param(param, result));
    let collect = collect_errors(&bindings, &results);
    let function = &tool.ident;
    let inputs = call_inputs(tool, &bindings);
    let call = if tool.is_async {
        quote!(#module_path::#function(#(#inputs),*).await)
    } else {
        quote!(#module_path::#function(#(#inputs),*))
    };
    let encode = match tool.returns {
        Returns::Unit => quote!({
            #call;
            ::toolcall_runtime::__private::encode(())
        }),
        Returns::Value => quote!(::toolcall_runtime::__private::encode(#call)),
        Returns::Result => quote!(::toolcall_runtime::__private::encode_result(#call)),
    };
    let args_binding = if tool.params.is_empty() { quote!(_) } else { quote!(arguments) };
    let ctx = if tool.context_at.is_empty() { quote!(_ctx) } else { quote!(ctx) };
    let value = quote!(::toolcall_runtime::serde_json::Value);
    let error = quote!(::toolcall_runtime::ToolError);
    // `__call_` + `_name` has a double underscore inside, which rustc's style lint flags.
    let allow = tool
        .ident
        .to_string()
        .trim_start_matches("r#")
        .starts_with('_')
        .then(|| quote!(#[allow(non_snake_case)]));
    let check = quote!(let (#args_binding, unknown) = ::toolcall_runtime::__private::arguments(args, &[#(#known),*])?;);
    if tool.is_async {
        quote! {
            #allow
            pub(crate) fn #ident<'a>(
                #ctx: &'a #context,
                args: &'a #value,
            ) -> ::core::result::Result<::toolcall_runtime::__private::ToolFuture<'a>, #error> {
                #check
                #(#decodes)*
                #collect
                ::core::result::Result::Ok(::toolcall_runtime::__private::boxed(async move { #encode }))
            }
        }
    } else {
        quote! {
            #allow
            pub(crate) fn #ident(#ctx: &#context, args: &#value) -> ::core::result::Result<#value, #error> {
                #check
                #(#decodes)*
                #collect
                ::toolcall_runtime::__private::invoke(#name, move || #encode)
            }
        }
    }
}

/// The function's arguments in declaration order: the context where it takes it, the
/// decoded parameters elsewhere.
fn call_inputs(tool: &ToolDef, bindings: &[syn::Ident]) -> Vec<TokenStream> {
    let mut params = bindings.iter();
    (0..bindings.len() + tool.context_at.len())
        .map(|position| {
            if tool.context_at.contains(&position) {
                quote!(ctx)
            } else {
                let binding = params.next();
                quote!(#binding)
            }
        })
        .collect()
}

/// Decodes one parameter into `result`, keeping its error for [`collect_errors`]; a
/// range from an override is checked first.
fn decode_param(param: &model::Param, result: &syn::Ident) -> TokenStream {
    let name = &param.name;
    let mut expr = slot_expr(&param.decode, &quote!(arguments.get(#name)), &quote!(0));
    if let Some(bounds) = param.bounds.as_ref().and_then(bounds_expr) {
        expr = quote!(::toolcall_runtime::__private::slot::bounded(arguments.get(#name), #bounds).and_then(|()| #expr));
    }
    quote! {
        let #result = #expr.map_err(|e| e.param(#name));
    }
}

/// Binds every decoded parameter when none failed and no argument was unknown; else
/// returns every error at once (the unknown arguments first, then the parameters in
/// declaration order).
fn collect_errors(bindings: &[syn::Ident], results: &[syn::Ident]) -> TokenStream {
    let error = quote!(::core::result::Result::Err);
    if bindings.is_empty() {
        return quote! {
            if let ::core::option::Option::Some(unknown) = unknown {
                return #error(unknown);
            }
        };
    }
    quote! {
        let (#(#bindings,)*) = match (unknown, #(#results,)*) {
            (::core::option::Option::None, #(::core::result::Result::Ok(#bindings),)*) => (#(#bindings,)*),
            (unknown, #(#results,)*) => {
                return #error(::toolcall_runtime::__private::several([unknown, #(#results.err(),)*]));
            }
        };
    }
}

/// The `slot::Bounds` value that checks a bounded IR type.
fn bounds_expr(ty: &ir::Type) -> Option<TokenStream> {
    let bounds = quote!(::toolcall_runtime::__private::slot::Bounds);
    let some = |value: TokenStream| quote!(::core::option::Option::Some(#value));
    let none = quote!(::core::option::Option::None);
    let int = |v: Option<i64>| v.map_or(none.clone(), |v| some(quote!(#v)));
    let len = |v: Option<u64>| v.map_or(none.clone(), |v| some(quote!(#v)));
    let float = |v: Option<f64>| {
        v.map_or(none.clone(), |v| some(proc_macro2::Literal::f64_suffixed(v).into_token_stream()))
    };
    Some(match ty {
        ir::Type::Integer { minimum, maximum, non_zero, as_string, width } => {
            let width = width.map_or(none.clone(), |w| {
                let variant = format_ident!("{}", format!("{w:?}"));
                some(quote!(::toolcall_runtime::ir::Width::#variant))
            });
            let (min, max) = (int(*minimum), int(*maximum));
            quote!(#bounds::Integer { min: #min, max: #max, non_zero: #non_zero, as_string: #as_string, width: #width })
        }
        ir::Type::Number { minimum, maximum } => {
            let (min, max) = (float(*minimum), float(*maximum));
            quote!(#bounds::Number { min: #min, max: #max })
        }
        ir::Type::String { min_length, max_length, .. } => {
            let (min, max) = (len(*min_length), len(*max_length));
            quote!(#bounds::Chars { min: #min, max: #max })
        }
        ir::Type::Array { min_items, max_items, .. } => {
            let (min, max) = (len(*min_items), len(*max_items));
            quote!(#bounds::Items { min: #min, max: #max })
        }
        _ => return None,
    })
}
