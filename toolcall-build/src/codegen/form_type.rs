//! The forms named with `Builder::form_type`: one `impl ::toolcall_runtime::Form` per
//! type, holding its flat schema (rendered by the lowering, `crate::form_type`) and
//! decoding through the type's generated `FromArg` (or serde, for a type only serde can
//! read).

use proc_macro2::TokenStream;
use quote::quote;

use crate::form_type::FormDef;

/// The impls of every form type, in the order they were named.
pub fn impls(forms: &[FormDef]) -> TokenStream {
    let impls = forms.iter().map(form_impl);
    quote! { #(#impls)* }
}

fn form_impl(form: &FormDef) -> TokenStream {
    let FormDef { path, .. } = form;
    // A raw string, as the info table's schemas are: reviewable in the generated file.
    let schema: TokenStream = super::data::literal(&form.schema).parse().unwrap_or_else(|_| {
        let schema = &form.schema;
        quote!(#schema)
    });
    let read = if form.from_arg {
        quote!(|value| ::toolcall_runtime::FromArg::from_arg(value, 0))
    } else {
        quote!(|value| ::toolcall_runtime::__private::decode::deserialize_arg(value, 0))
    };
    quote! {
        impl ::toolcall_runtime::Form for #path {
            fn schema() -> &'static str {
                #schema
            }
            fn decode(
                values: &::toolcall_runtime::__private::Value,
            ) -> ::core::result::Result<Self, ::std::string::String> {
                ::toolcall_runtime::__private::output::decode_values(values, #read)
            }
        }
    }
}
