//! Function signatures: which functions are tools, what their parameters are called,
//! and what they return.

use crate::ast::unraw;
use crate::model::Returns;

/// Whether `item` is a tool candidate: a `pub` or `pub(crate)` free function that is not
/// `#[doc(hidden)]`. Private functions are helpers and silently not tools.
pub fn is_candidate(item: &syn::ItemFn) -> bool {
    let visible = match &item.vis {
        syn::Visibility::Public(_) => true,
        syn::Visibility::Restricted(r) => r.path.is_ident("crate"),
        syn::Visibility::Inherited => false,
    };
    visible && !super::docs::is_doc_hidden(&item.attrs)
}

/// Why the library cannot serve this signature, if it cannot.
pub fn unsupported_reason(sig: &syn::Signature) -> Option<String> {
    if sig.generics.type_params().next().is_some() || sig.generics.const_params().next().is_some() {
        return Some("it has generic type parameters; tools need concrete types".to_owned());
    }
    if sig.unsafety.is_some() {
        return Some("it is `unsafe`; a model must not be able to call unsafe code".to_owned());
    }
    if sig.variadic.is_some() || sig.abi.is_some() {
        return Some("it uses a foreign ABI".to_owned());
    }
    for input in &sig.inputs {
        match input {
            syn::FnArg::Receiver(_) => return Some("it takes `self`; tools are free functions".to_owned()),
            syn::FnArg::Typed(typed) if contains_impl_trait(&typed.ty) => {
                return Some("a parameter uses `impl Trait`; tools need concrete types".to_owned());
            }
            syn::FnArg::Typed(_) => {}
        }
    }
    None
}

fn contains_impl_trait(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::ImplTrait(_) => true,
        syn::Type::Reference(r) => contains_impl_trait(&r.elem),
        syn::Type::Paren(p) => contains_impl_trait(&p.elem),
        syn::Type::Group(g) => contains_impl_trait(&g.elem),
        syn::Type::Slice(s) => contains_impl_trait(&s.elem),
        syn::Type::Array(a) => contains_impl_trait(&a.elem),
        syn::Type::Tuple(t) => t.elems.iter().any(contains_impl_trait),
        syn::Type::Path(p) => p.path.segments.iter().any(|s| match &s.arguments {
            syn::PathArguments::AngleBracketed(args) => args.args.iter().any(|a| match a {
                syn::GenericArgument::Type(t) => contains_impl_trait(t),
                _ => false,
            }),
            _ => false,
        }),
        _ => false,
    }
}

/// The binding name of a parameter pattern (`city`, `mut city`, `r#type` -> `type`), or
/// `None` for `_` and destructuring patterns, which are named later by position.
pub fn binding_name(pat: &syn::Pat) -> Option<String> {
    match pat {
        syn::Pat::Ident(ident) if ident.subpat.is_none() => Some(unraw(&ident.ident)),
        syn::Pat::Type(typed) => binding_name(&typed.pat),
        syn::Pat::Paren(paren) => binding_name(&paren.pat),
        _ => None,
    }
}

/// Whether the function returns nothing, a value, or a `Result` (by its last path segment, so `io::Result<T>`
/// and `anyhow::Result<T>` count).
pub fn returns(sig: &syn::Signature) -> Returns {
    let syn::ReturnType::Type(_, ty) = &sig.output else { return Returns::Unit };
    match ty.as_ref() {
        syn::Type::Tuple(t) if t.elems.is_empty() => Returns::Unit,
        syn::Type::Path(path) if path.path.segments.last().is_some_and(|s| s.ident == "Result") => {
            Returns::Result
        }
        _ => Returns::Value,
    }
}

/// The success type: `T` of `-> T` or of `-> Result<T, E>` (any `Result` by its last
/// segment, so `io::Result<T>` too); `None` for `()`.
pub fn success_type(sig: &syn::Signature) -> Option<&syn::Type> {
    let syn::ReturnType::Type(_, ty) = &sig.output else { return None };
    match returns(sig) {
        Returns::Unit => None,
        Returns::Value => Some(ty),
        Returns::Result => {
            let syn::Type::Path(path) = ty.as_ref() else { return None };
            match &path.path.segments.last()?.arguments {
                syn::PathArguments::AngleBracketed(args) => args.args.iter().find_map(|a| match a {
                    syn::GenericArgument::Type(t) => Some(t),
                    _ => None,
                }),
                _ => None,
            }
        }
    }
}

/// The tool name for a function: its identifier without `r#`.
pub fn tool_name(item: &syn::ItemFn) -> String {
    unraw(&item.sig.ident)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visibility_and_doc_hidden_decide_candidates() {
        let public: syn::ItemFn = syn::parse_quote!(
            pub fn a() {}
        );
        let krate: syn::ItemFn = syn::parse_quote!(
            pub(crate) fn b() {}
        );
        let private: syn::ItemFn = syn::parse_quote!(
            fn c() {}
        );
        let hidden: syn::ItemFn = syn::parse_quote!(
            #[doc(hidden)]
            pub fn d() {}
        );
        let sup: syn::ItemFn = syn::parse_quote!(
            pub(super) fn e() {}
        );
        assert!(is_candidate(&public) && is_candidate(&krate));
        assert!(!is_candidate(&private) && !is_candidate(&hidden) && !is_candidate(&sup));
    }

    #[test]
    fn unsupported_signatures_say_why() {
        let cases: Vec<(syn::ItemFn, &str)> = vec![
            (
                syn::parse_quote!(
                    pub fn a<T>(x: T) {}
                ),
                "generic",
            ),
            (
                syn::parse_quote!(
                    pub fn b(x: impl Into<String>) {}
                ),
                "impl Trait",
            ),
            (
                syn::parse_quote!(
                    pub fn c(x: Vec<impl Copy>) {}
                ),
                "impl Trait",
            ),
            (
                syn::parse_quote!(
                    pub unsafe fn e() {}
                ),
                "unsafe",
            ),
        ];
        for (item, word) in cases {
            let reason = unsupported_reason(&item.sig).unwrap_or_default();
            assert!(reason.contains(word), "{reason}");
        }
        let lifetimes: syn::ItemFn = syn::parse_quote!(
            pub fn f<'a>(x: &'a str) {}
        );
        assert_eq!(unsupported_reason(&lifetimes.sig), None);
        let asynchronous: syn::ItemFn = syn::parse_quote!(
            pub async fn g(x: u8) {}
        );
        assert_eq!(unsupported_reason(&asynchronous.sig), None);
    }

    #[test]
    fn binding_names_and_return_kinds() {
        let item: syn::ItemFn = syn::parse_quote!(
            pub fn f(mut city: String, r#type: u8, _: u8, (a, b): (u8, u8)) -> io::Result<()> {}
        );
        let names: Vec<Option<String>> = item
            .sig
            .inputs
            .iter()
            .map(|i| match i {
                syn::FnArg::Typed(t) => binding_name(&t.pat),
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        assert_eq!(names, vec![Some("city".into()), Some("type".into()), None, None]);
        assert_eq!(returns(&item.sig), Returns::Result);
        let plain: syn::ItemFn = syn::parse_quote!(
            pub fn g() -> u8 {
                1
            }
        );
        assert_eq!(returns(&plain.sig), Returns::Value);
        let success = |item: syn::ItemFn| success_type(&item.sig).map(|t| quote::quote!(#t).to_string());
        assert_eq!(success(item), Some("()".into()));
        assert_eq!(success(plain), Some("u8".into()));
        assert_eq!(
            success(syn::parse_quote!(
                pub fn h() -> Result<Vec<u8>, String> {
                    Ok(vec![])
                }
            )),
            Some("Vec < u8 >".into())
        );
        assert_eq!(
            success(syn::parse_quote!(
                pub fn i() {}
            )),
            None
        );
    }
}
