//! Dispatcher tokens: one `match` per toolset, one call function per tool.
//!
//! A call function checks the arguments object, decodes each parameter through
//! `toolcall_runtime::slot` (types are inferred from the function's signature, so
//! generated code never names a user type), then calls the function with panics caught
//! and encodes its result.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::model::{Decode, ParamDecode, Returns, ToolDef};

/// The identifier of a tool's call function.
pub fn call_ident(tool: &ToolDef) -> syn::Ident {
    format_ident!("__call_{}", tool.ident.to_string().trim_start_matches("r#"))
}

/// `fn <ident>(name, args) -> Option<Result<..>>`: a `match` over (name hash, name), so
/// dispatch cost barely grows with the number of tools.
pub fn dispatcher(
    tools: &[&ToolDef],
    target: impl Fn(&ToolDef) -> TokenStream,
    ident: &syn::Ident,
) -> TokenStream {
    if tools.is_empty() {
        return quote! {
            fn #ident(
                _name: &str,
                _args: &::toolcall_runtime::serde_json::Value,
            ) -> ::core::option::Option<::core::result::Result<::toolcall_runtime::serde_json::Value, ::toolcall_runtime::ToolError>> {
                ::core::option::Option::None
            }
        };
    }
    let arms = tools.iter().map(|tool| {
        let name = &tool.ir.name;
        let hash = proc_macro2::Literal::u64_suffixed(toolcall_runtime::call::name_hash(name));
        let call = target(tool);
        quote!((#hash, #name) => #call(args),)
    });
    quote! {
        fn #ident(
            name: &str,
            args: &::toolcall_runtime::serde_json::Value,
        ) -> ::core::option::Option<::core::result::Result<::toolcall_runtime::serde_json::Value, ::toolcall_runtime::ToolError>> {
            // An integer switch on the name's hash, then one string comparison.
            ::core::option::Option::Some(match (::toolcall_runtime::call::name_hash(name), name) {
                #(#arms)*
                _ => return ::core::option::Option::None,
            })
        }
    }
}

/// Tokens decoding one slot from `value` (an `Option<&Value>`) at `depth`.
pub fn slot_expr(decode: &Decode, value: &TokenStream, depth: &TokenStream) -> TokenStream {
    let slot = quote!(::toolcall_runtime::slot);
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

/// The call function of one tool.
pub fn call_fn(tool: &ToolDef, module_path: &TokenStream) -> TokenStream {
    let ident = call_ident(tool);
    let name = &tool.ir.name;
    let known = tool.params.iter().map(|p| &p.name);
    let bindings: Vec<syn::Ident> = (0..tool.params.len()).map(|i| format_ident!("arg{}", i)).collect();
    let decodes = tool.params.iter().zip(&bindings).map(|(param, binding)| decode_param(param, binding));
    let function = &tool.ident;
    let call = quote!(#module_path::#function(#(#bindings),*));
    let encode = match tool.returns {
        Returns::Unit => quote!({
            #call;
            ::toolcall_runtime::call::encode(())
        }),
        Returns::Value => quote!(::toolcall_runtime::call::encode(#call)),
        Returns::Result => quote!(::toolcall_runtime::call::encode_result(#call)),
    };
    let args_binding = if tool.params.is_empty() { quote!(_) } else { quote!(arguments) };
    quote! {
        pub(crate) fn #ident(
            args: &::toolcall_runtime::serde_json::Value,
        ) -> ::core::result::Result<::toolcall_runtime::serde_json::Value, ::toolcall_runtime::ToolError> {
            let #args_binding = ::toolcall_runtime::call::arguments(args, &[#(#known),*])?;
            #(#decodes)*
            ::toolcall_runtime::call::invoke(#name, move || #encode)
        }
    }
}

fn decode_param(param: &ParamDecode, binding: &syn::Ident) -> TokenStream {
    let name = &param.name;
    let expr = slot_expr(&param.decode, &quote!(arguments.get(#name)), &quote!(0));
    quote! {
        let #binding = #expr.map_err(|e| e.param(#name))?;
    }
}
