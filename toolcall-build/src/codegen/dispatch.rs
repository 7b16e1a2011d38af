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

/// Whether a tool has the one-pass fast decoder: it reads every parameter, and there are
/// few enough for the runtime's slot tuples.
pub fn is_fast(tool: &ToolDef) -> bool {
    tool.params.len() <= crate::types::MAX_SLOTS && tool.params.iter().all(|p| p.fast)
}

/// Two dispatchers, each a `match` on the tool name ([`name_match`]):
/// - `fn <ident>(ctx, name, args: &Value) -> Option<Dispatched>`: a sync tool's arm runs
///   it; an async tool's arm decodes its arguments and hands back its boxed body;
/// - `fn <ident>_text(ctx, name, text: Args) -> Option<Dispatched>`: the same straight
///   from argument text, for the tools with the fast decoder; `None` when the fast path
///   gives up (the caller parses the text and uses the first).
///
/// `target(tool, function)` is the path of one of the tool's generated functions.
pub fn dispatcher(
    tools: &[&ToolDef],
    target: impl Fn(&ToolDef, &syn::Ident) -> TokenStream,
    ident: &syn::Ident,
    context: &TokenStream,
) -> TokenStream {
    let value = quote!(::toolcall_runtime::serde_json::Value);
    let output = dispatched_output();
    let text_ident = format_ident!("{}_text", ident);
    // Text goes only to the tools that can read it; a value to every tool. A call
    // function returns what the dispatcher does, so an arm is a plain (tail) call.
    let arms = |input: TokenStream, only_fast: bool| {
        tools
            .iter()
            .filter(|tool| !only_fast || is_fast(tool))
            .map(|tool| {
                let call = target(tool, &call_ident(tool));
                (tool.ir.name.as_str(), quote!(#call(ctx, #input)))
            })
            .collect::<Vec<_>>()
    };
    let by_value = name_match(arms(quote!(args), false), quote!(args));
    let by_text = name_match(arms(quote!(text), true), quote!(text));
    quote! {
        fn #ident<'a>(ctx: &'a #context, name: &'a str, args: &'a #value) -> #output {
            let args = ::toolcall_runtime::__private::fast::Args::Value(args);
            #by_value
        }

        fn #text_ident<'a>(ctx: &'a #context, name: &'a str, text: ::toolcall_runtime::__private::fast::Args<'a>) -> #output {
            #by_text
        }
    }
}

/// What dispatchers and call functions return: `Option<Dispatched<'a>>`.
fn dispatched_output() -> TokenStream {
    quote!(::core::option::Option<::toolcall_runtime::__private::Dispatched<'a>>)
}

/// `Some(Dispatched::Ready(Err(error)))`: a call that ends in `error`.
fn failed(error: TokenStream) -> TokenStream {
    quote!(::core::option::Option::Some(::toolcall_runtime::__private::Dispatched::Ready(
        ::core::result::Result::Err(#error)
    )))
}

/// Up to this many tools, a dispatcher matches the name itself (a length test rules out
/// most arms at once); past it, the name's hash first.
const PLAIN_MATCH_MAX: usize = 8;

/// The `match` from a tool name to its arm's body, `None` for any other name (with the
/// unused inputs bound to `_` when there are no arms). Up to [`PLAIN_MATCH_MAX`] tools a
/// plain `match name`; past it `match (name_hash(name), name)`, an integer switch on the
/// hash and then one string comparison, so dispatch cost barely grows with the number of
/// tools.
fn name_match(arms: Vec<(&str, TokenStream)>, input: TokenStream) -> TokenStream {
    if arms.is_empty() {
        return quote! {
            let _ = (ctx, name, #input);
            ::core::option::Option::None
        };
    }
    if arms.len() <= PLAIN_MATCH_MAX {
        let arms = arms.iter().map(|(name, body)| quote!(#name => #body,));
        return quote! {
            match name {
                #(#arms)*
                _ => ::core::option::Option::None,
            }
        };
    }
    let arms = arms.iter().map(|(name, body)| {
        let hash = proc_macro2::Literal::u64_suffixed(toolcall_runtime::__private::name_hash(name));
        quote!((#hash, #name) => #body,)
    });
    quote! {
        match (::toolcall_runtime::__private::name_hash(name), name) {
            #(#arms)*
            _ => ::core::option::Option::None,
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

/// How a decoded call ends: a sync tool runs with panics caught (`Dispatched::Ready`);
/// an async tool's body is boxed, to be polled later (`Dispatched::Async`).
fn finish_call(tool: &ToolDef, module_path: &TokenStream, bindings: &[syn::Ident]) -> TokenStream {
    let name = &tool.ir.name;
    let function = &tool.ident;
    let inputs = call_inputs(tool, bindings);
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
    let dispatched = quote!(::toolcall_runtime::__private::Dispatched);
    if tool.is_async {
        quote!(#dispatched::Async(::toolcall_runtime::__private::boxed(async move { #encode })))
    } else {
        quote!(#dispatched::Ready(::toolcall_runtime::__private::invoke(#name, move || #encode)))
    }
}

/// `#[allow(non_snake_case)]` where the tool's name starts with `_`: `__call_` +
/// `_name` has a double underscore inside, which rustc's style lint flags.
fn allow_leading_underscore(tool: &ToolDef) -> Option<TokenStream> {
    tool.ident.to_string().trim_start_matches("r#").starts_with('_').then(|| quote!(#[allow(non_snake_case)]))
}

/// The call function of one tool, `fn(ctx, Args) -> Option<Dispatched>`: where the tool has
/// the fast decoder, one pass over the arguments (text or value), each key matched to its
/// parameter's slot; else, or when that gives up, the exact decoder on the value, which
/// reports every error. Then a sync tool runs with panics caught, or an async tool's body
/// is boxed (polled later, panics caught per poll). `None` only for text the fast path
/// gave up on: the caller parses it and calls again with the value.
pub fn call_fn(tool: &ToolDef, module_path: &TokenStream, context: &TokenStream) -> TokenStream {
    let ident = call_ident(tool);
    let bindings: Vec<syn::Ident> = (0..tool.params.len()).map(|i| format_ident!("arg{}", i)).collect();
    let exact = exact_decode(tool, &bindings);
    let decode = if is_fast(tool) {
        let fast = fast_decode(tool);
        quote! {
            let (#(#bindings,)*) = match #fast {
                ::core::option::Option::Some(decoded) => decoded,
                ::core::option::Option::None => { #exact }
            };
        }
    } else {
        quote!(let (#(#bindings,)*) = { #exact };)
    };
    let finish = finish_call(tool, module_path, &bindings);
    let output = dispatched_output();
    let ctx = if tool.context_at.is_empty() { quote!(_ctx) } else { quote!(ctx) };
    let allow = allow_leading_underscore(tool);
    quote! {
        #allow
        pub(crate) fn #ident<'a>(
            #ctx: &'a #context,
            args: ::toolcall_runtime::__private::fast::Args<'a>,
        ) -> #output {
            #decode
            ::core::option::Option::Some(#finish)
        }
    }
}

/// The fast decoder's expression: `Some((arg0, ..))`, or `None` when it gives up.
fn fast_decode(tool: &ToolDef) -> TokenStream {
    let fast = quote!(::toolcall_runtime::__private::fast);
    let index = key_index(tool.params.iter().map(|p| p.name.as_str()));
    if tool.params.is_empty() {
        // Nothing to bind: the read itself is the answer.
        return quote!(args.arguments(&mut (), #index));
    }
    let (fill, slots) = fill_slots(tool.params.len(), |slots| quote!(args.arguments(#slots, #index)?;));
    quote!((|| {
        #fill
        ::core::option::Option::Some((#(#fast::present(#slots)?,)*))
    })())
}

/// Statements that make `count` empty slots, fill them with `read(&mut slots)` and bind
/// them to `s0`, `s1`, ... (returned); no slots at all is `read(&mut ())`.
pub fn fill_slots(
    count: usize,
    read: impl FnOnce(TokenStream) -> TokenStream,
) -> (TokenStream, Vec<syn::Ident>) {
    if count == 0 {
        return (read(quote!(&mut ())), Vec::new());
    }
    let slots: Vec<syn::Ident> = (0..count).map(|i| format_ident!("s{}", i)).collect();
    let nones = slots.iter().map(|_| quote!(::core::option::Option::None));
    let read = read(quote!(&mut slots));
    let fill = quote! {
        let mut slots = (#(#nones,)*);
        #read
        let (#(#slots,)*) = slots;
    };
    (fill, slots)
}

/// The exact decoder's block, on the value: every parameter decoded, every error
/// collected and returned together (`return Some(Ready(Err(..)))`); its value is the tuple of
/// decoded parameters. Text returns `None` first (the caller parses it).
fn exact_decode(tool: &ToolDef, bindings: &[syn::Ident]) -> TokenStream {
    let known = tool.params.iter().map(|p| &p.name);
    let results: Vec<syn::Ident> = (0..tool.params.len()).map(|i| format_ident!("r{}", i)).collect();
    let decodes = tool.params.iter().zip(&results).map(|(param, result)| decode_param(param, result));
    let collect = collect_errors(bindings, &results);
    let args_binding = if tool.params.is_empty() { quote!(_) } else { quote!(arguments) };
    let fail = failed(quote!(error));
    quote! {
        let args = args.value()?;
        let (#args_binding, unknown) = match ::toolcall_runtime::__private::arguments(args, &[#(#known),*]) {
            ::core::result::Result::Ok(found) => found,
            ::core::result::Result::Err(error) => {
                return #fail;
            }
        };
        #(#decodes)*
        #collect
    }
}

/// `|key: &str| match key { "a" => Some(0), .. _ => None }`: a generated key `match`.
pub fn key_index<'n>(names: impl ExactSizeIterator<Item = &'n str>) -> TokenStream {
    if names.len() == 0 {
        return quote!(|_: &str| ::core::option::Option::None);
    }
    let arms = names.enumerate().map(|(i, name)| quote!(#name => ::core::option::Option::Some(#i),));
    quote!(|key: &str| match key {
        #(#arms)*
        _ => ::core::option::Option::None,
    })
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
    if bindings.is_empty() {
        let unknown = failed(quote!(unknown));
        return quote! {
            if let ::core::option::Option::Some(unknown) = unknown {
                return #unknown;
            }
        };
    }
    let all = failed(quote!(::toolcall_runtime::__private::several([unknown, #(#results.err(),)*])));
    quote! {
        match (unknown, #(#results,)*) {
            (::core::option::Option::None, #(::core::result::Result::Ok(#bindings),)*) => (#(#bindings,)*),
            (unknown, #(#results,)*) => {
                return #all;
            }
        }
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
