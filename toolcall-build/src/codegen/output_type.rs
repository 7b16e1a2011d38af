//! The typed answers named with `Builder::output_type`: one
//! `impl ::toolcall_runtime::OutputType` per type, holding its name, doc and schema texts
//! (rendered by the lowering, `crate::output_type`) and decoding through the type's
//! generated `FromArg` (or serde, for a type only serde can read).

use proc_macro2::TokenStream;
use quote::quote;

use crate::output_type::{OutputDef, WRAPPER};

/// The impls of every output type, in the order they were named.
pub fn impls(outputs: &[OutputDef]) -> TokenStream {
    let impls = outputs.iter().map(output_impl);
    quote! { #(#impls)* }
}

fn output_impl(output: &OutputDef) -> TokenStream {
    let OutputDef { path, name, description, schema, gemini_schema, .. } = output;
    let gemini = if gemini_schema.is_empty() {
        quote!(::core::option::Option::None)
    } else {
        quote!(::core::option::Option::Some(#gemini_schema))
    };
    let wrapper = if output.wrapped {
        quote!(::core::option::Option::Some(#WRAPPER))
    } else {
        quote!(::core::option::Option::None)
    };
    let read = if output.from_arg {
        quote!(|value| ::toolcall_runtime::FromArg::from_arg(value, 0))
    } else {
        quote!(|value| ::toolcall_runtime::__private::decode::deserialize_arg(value, 0))
    };
    quote! {
        impl ::toolcall_runtime::OutputType for #path {
            fn spec() -> ::toolcall_runtime::OutputSpec {
                ::toolcall_runtime::OutputSpec::from_texts(#name, #description, #schema, #gemini)
            }
            fn decode(json: &str) -> ::core::result::Result<Self, ::std::string::String> {
                ::toolcall_runtime::__private::output::decode_answer(json, #wrapper, #read)
            }
        }
    }
}
