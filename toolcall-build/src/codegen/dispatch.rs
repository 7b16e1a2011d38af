//! Dispatchers and call functions, as `syn` trees: one `match` per toolset, one call function per tool.
//!
//! A call function checks the arguments object, decodes each parameter through
//! `toolcall_runtime::__private::slot` (types are inferred from the function's signature, so
//! generated code never names a user type), then calls the function with panics caught
//! and encodes its result; for an `async fn` it boxes that body as a future instead. The
//! context (`&App`) is passed where the function takes it and is never decoded.

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote};
use syn::{Expr, Pat, Stmt};
use toolcall_runtime::ir;

use super::syntax::{
    arm, array, async_move, await_, bind, block, call, call_path, closure, int_lit, int_pat, let_, match_,
    method, path, path_expr, reference, semi, str_lit, str_pat, tail, tuple, tuple_pat, var, wild,
};
use crate::model::{self, Decode, Returns, ToolDef};

// The prelude's names, and the runtime's generated-code API under the alias every
// generated module declares (`use ::toolcall_runtime::__private as __rt;`).
const SOME: &str = "Some";
const NONE: &str = "None";
const PRIVATE: &str = "__rt";

/// `__rt::<item>` (`::toolcall_runtime::__private::<item>`) as an expression.
fn private(item: &str) -> Expr {
    var(&format!("{PRIVATE}::{item}"))
}

/// The signatures every call function and dispatcher of one file shares, parsed once:
/// each function is one of these with its name and body filled in.
pub struct Skeletons {
    /// A call function's, indexed by whether the tool takes the context (`_ctx`, then
    /// `ctx`) and then whether it takes the progress handle (`_progress`, then `progress`).
    call_fn: [[syn::ItemFn; 2]; 2],
    dispatcher: syn::ItemFn,
}

impl Skeletons {
    /// The skeletons for a toolset whose context type is `context`.
    pub fn new(context: &TokenStream) -> Skeletons {
        let args = quote!(__rt::fast::Args<'a>);
        let progress = quote!(&'a ::toolcall_runtime::Progress);
        let output = quote!(Option<__rt::Dispatched<'a>>);
        let call_fn = |ctx: &str, takes: &str| -> syn::ItemFn {
            let (ctx, takes) = (format_ident!("{ctx}"), format_ident!("{takes}"));
            syn::parse_quote!(pub(crate) fn f<'a>(#ctx: &'a #context, args: #args, #takes: #progress) -> #output {})
        };
        Skeletons {
            call_fn: [
                [call_fn("_ctx", "_progress"), call_fn("_ctx", "progress")],
                [call_fn("ctx", "_progress"), call_fn("ctx", "progress")],
            ],
            dispatcher: syn::parse_quote!(
                fn f<'a>(c: &'a #context, name: &'a str, a: #args, p: #progress) -> #output {}
            ),
        }
    }
}

/// A `///` line on a generated item.
fn doc(text: &str) -> syn::Attribute {
    let text = format!(" {text}");
    syn::parse_quote!(#[doc = #text])
}

/// `skeleton` named `ident`, with `body`.
fn function(skeleton: &syn::ItemFn, ident: syn::Ident, body: Vec<Stmt>) -> syn::ItemFn {
    let mut function = skeleton.clone();
    function.sig.ident = ident;
    function.block.stmts = body;
    function
}

/// The identifier of a tool's call function.
pub fn call_ident(tool: &ToolDef) -> syn::Ident {
    format_ident!("__call_{}", tool.ident.to_string().trim_start_matches("r#"))
}

/// Whether a tool has the one-pass fast decoder: it reads every parameter, and there are
/// few enough for the runtime's slot tuples.
pub fn is_fast(tool: &ToolDef) -> bool {
    tool.params.len() <= crate::types::MAX_SLOTS && tool.params.iter().all(|p| p.fast)
}

/// A dispatcher, `fn <ident>(c: &Context, name, a: Args, p: &Progress) -> Option<Dispatched>`
/// (short names: each arm passes them on, and keeps to one line): a `match` on the tool
/// name ([`name_match`]) whose arms are `arms`' expressions, each a plain (tail) call
/// ([`call_tool`] or [`forward`]); any other name is `None`.
///
/// The crate's dispatcher of a set (`ALL`'s) calls each tool's call function in its module:
/// one hop per call. (It once asked each module's dispatcher in turn: every call then moved
/// its answer out of the module's, about 40 instructions of a 260-instruction call.) A
/// module's dispatcher (its `TOOLS`') forwards its own names to the crate's, so each call
/// function has one caller and is inlined there.
pub fn dispatcher(
    arms: Vec<(&str, Expr)>,
    ident: &str,
    doc_line: &str,
    skeletons: &Skeletons,
) -> syn::ItemFn {
    let mut dispatcher = function(&skeletons.dispatcher, super::syntax::ident(ident), name_match(arms));
    dispatcher.attrs.push(doc(doc_line));
    dispatcher
}

/// A dispatcher arm calling a tool's call function `function` with the arguments. A sync
/// tool's call runs it; an async tool's decodes its arguments and hands back its boxed
/// body; text a tool cannot read in one pass is `None` (the caller parses it and
/// dispatches the `Value`).
pub fn call_tool(function: syn::Path) -> Expr {
    call(path_expr(function), [var("c"), var("a"), var("p")])
}

/// A dispatcher arm handing the call on to the dispatcher `dispatcher`.
pub fn forward(dispatcher: &syn::Path) -> Expr {
    call(path_expr(dispatcher.clone()), [var("c"), var("name"), var("a"), var("p")])
}

/// Up to this many tools, a dispatcher matches the name itself (a length test rules out
/// most arms at once); past it, the name's hash first.
const PLAIN_MATCH_MAX: usize = 8;

/// The `match` from a tool name to its arm's body, `None` for any other name (with the
/// unused inputs bound to `_` when there are no arms). Up to [`PLAIN_MATCH_MAX`] tools a
/// plain `match name`; past it `match (name_hash(name), name)`, an integer switch on the
/// hash and then one string comparison, so dispatch cost barely grows with the number of
/// tools.
fn name_match(arms: Vec<(&str, Expr)>) -> Vec<Stmt> {
    if arms.is_empty() {
        return vec![let_(wild(), tuple([var("c"), var("name"), var("a"), var("p")])), tail(var(NONE))];
    }
    let (scrutinee, pattern): (Expr, fn(&str) -> Pat) = if arms.len() <= PLAIN_MATCH_MAX {
        (var("name"), str_pat)
    } else {
        (tuple([call(private("name_hash"), [var("name")]), var("name")]), |name| {
            let hash = toolcall_runtime::__private::name_hash(name);
            // Unsuffixed: `name_hash` returns a `u64`.
            tuple_pat([int_pat(&hash.to_string()), str_pat(name)])
        })
    };
    let mut arms: Vec<syn::Arm> = arms.into_iter().map(|(name, body)| arm(pattern(name), body)).collect();
    arms.push(arm(wild(), var(NONE)));
    vec![tail(match_(scrutinee, arms))]
}

/// The expression decoding one slot from `value` (an `Option<&Value>`) at `depth`.
pub fn slot_expr(decode: &Decode, value: Expr, depth: Expr) -> Expr {
    let slot = |function: &str| private(&format!("slot::{function}"));
    match decode {
        Decode::FromArg => call(slot("from_arg"), [value, depth]),
        Decode::StringInteger { optional: false } => call(slot("string_integer"), [value, depth]),
        Decode::StringInteger { optional: true } => call(slot("string_integer_opt"), [value, depth]),
        Decode::Deserialize { optional: false } => call(slot("serde"), [value, depth]),
        Decode::Deserialize { optional: true } => call(slot("serde_opt"), [value, depth]),
        Decode::Provider { function, optional } => {
            let provider = syn::parse_str(function).unwrap_or_else(|_| path("invalid_provider_path"));
            let function = if *optional { "provided_opt" } else { "provided" };
            call(slot(function), [value, depth, path_expr(provider)])
        }
    }
}

/// How a decoded call ends, given `decoded` (the decoding, `Result<params, Stop>`): a sync
/// tool runs with panics caught (`__rt::then_ready`); an async tool's body is boxed, to be
/// polled later (`__rt::then_pending`). Either way a closure takes the decoded parameters
/// (`params`, a tuple pattern) and calls the tool.
fn finish_call(
    tool: &ToolDef,
    module_path: &syn::Path,
    params: Pat,
    decoded: Expr,
    bindings: &[syn::Ident],
) -> Expr {
    let function = super::syntax::join(module_path, [tool.ident.clone()]);
    let mut call_tool = call(path_expr(function), call_inputs(tool, bindings));
    if tool.is_async {
        call_tool = await_(call_tool);
    }
    let encode = match tool.returns {
        Returns::Unit => block(vec![semi(call_tool), tail(call(private("encode"), [tuple([])]))]),
        Returns::Value => call(private("encode"), [call_tool]),
        // A method call: which `encode` applies is chosen on the error's concrete type.
        Returns::Result => method(call(private("returned"), [call_tool]), "encode", []),
    };
    if tool.is_async {
        let body = closure(true, [params], async_move(vec![tail(encode)]));
        call(private("then_pending"), [decoded, body])
    } else {
        call(private("then_ready"), [decoded, str_lit(&tool.ir.name), closure(true, [params], encode)])
    }
}

/// `#[allow(non_snake_case)]` where the tool's name starts with `_`: `__call_` +
/// `_name` has a double underscore inside, which rustc's style lint flags.
fn allow_leading_underscore(tool: &ToolDef) -> Option<syn::Attribute> {
    tool.ident
        .to_string()
        .trim_start_matches("r#")
        .starts_with('_')
        .then(|| syn::parse_quote!(#[allow(non_snake_case)]))
}

/// The call function of one tool, `fn(ctx, Args) -> Option<Dispatched>`: where the tool has
/// the fast decoder, one pass over the arguments (text or value), each key matched to its
/// parameter's slot by the file's shared key function for its parameters' names (`keys`,
/// the path of the file's root, which holds [`KeyFns`]); else, or when that gives up, the
/// exact decoder on the value, which reports every error. Then a sync tool runs with
/// panics caught, or an async tool's body is boxed (polled later, panics caught per poll).
/// `None` only for text the fast path gave up on: the caller parses it and calls again
/// with the value.
pub fn call_fn(
    tool: &ToolDef,
    module_path: &syn::Path,
    skeletons: &Skeletons,
    keys: &KeyFns,
    root: &syn::Path,
) -> syn::ItemFn {
    let names: Vec<String> = (0..tool.params.len()).map(|i| format!("arg{i}")).collect();
    let bindings: Vec<syn::Ident> = names.iter().map(|n| super::syntax::ident(n)).collect();
    let params = grouped(names.iter().map(|n| bind(n, false)).collect(), &tuple_pat);
    let finish = finish_call(tool, module_path, params, decode(tool, keys, root), &bindings);
    let skeleton = &skeletons.call_fn[usize::from(!tool.context_at.is_empty())]
        [usize::from(!tool.progress_at.is_empty())];
    let mut function = function(skeleton, call_ident(tool), vec![tail(finish)]);
    let how = if is_fast(tool) { "in one pass, else by the exact decoder" } else { "by the exact decoder" };
    function.attrs.push(doc(&format!("`{}`: decodes its arguments ({how}), then calls it.", tool.ir.name)));
    function.attrs.extend(allow_leading_underscore(tool));
    if is_fast(tool) {
        // The key lookup goes through a closure on purpose (see `decode`), which clippy
        // would have the user's crate replace by the function itself.
        function.attrs.push(syn::parse_quote!(#[allow(clippy::redundant_closure)]));
    }
    function
}

/// `items` as one tuple (`tuple(items)`), or, past the runtime's `MAX_DECODED`, as tuples
/// of tuples of at most that many each: the shape `Decoded` has impls for.
fn grouped<T>(items: Vec<T>, tuple: &impl Fn(Vec<T>) -> T) -> T {
    let most = toolcall_runtime::__private::MAX_DECODED;
    if items.len() <= most {
        return tuple(items);
    }
    let mut rest = items.into_iter().peekable();
    let mut groups = Vec::new();
    while rest.peek().is_some() {
        groups.push(tuple(rest.by_ref().take(most).collect()));
    }
    grouped(groups, tuple)
}

/// The decoding of a call's arguments: `__rt::decode_fast(args, <key index>, &[names],
/// <exact>)` where every parameter has the one-pass reader (each key's index is its
/// parameter's place in the tuple), else `__rt::decode_exact(args, &[names], <exact>)`;
/// `Ok` with the tuple of decoded parameters, or `Err` with how the call stops.
///
/// A tool whose parameters are all read plainly (each by its `FromArg`, under its name)
/// names only them: `decode_fast_plain(args, <key index>, &[names])` or
/// `decode_exact_plain(args, &[names])`, the runtime reading each (`Params`).
fn decode(tool: &ToolDef, keys: &KeyFns, root: &syn::Path) -> Expr {
    let known = reference(array(tool.params.iter().map(|p| str_lit(&p.name))), false);
    let plain =
        tool.params.len() <= toolcall_runtime::__private::MAX_DECODED && tool.params.iter().all(is_plain);
    // Through a closure of its own: each tool keeps its own instance of the one-pass
    // reader, which is inlined into its call function where optimized (an instance shared
    // by tools of one signature stays out of line, a call on every call).
    let index = || {
        let function = path_expr(super::syntax::join(root, [keys.ident(&tool_keys(tool))]));
        closure(false, [bind("key", false)], call(function, [var("key")]))
    };
    if plain && is_fast(tool) {
        call(private("decode_fast_plain"), [var("args"), index(), known])
    } else if plain {
        call(private("decode_exact_plain"), [var("args"), known])
    } else if is_fast(tool) {
        call(private("decode_fast"), [var("args"), index(), known, exact_decode(tool)])
    } else {
        call(private("decode_exact"), [var("args"), known, exact_decode(tool)])
    }
}

/// Statements that make `count` empty slots, fill them with `read(&mut slots)` and bind
/// them to `s0`, `s1`, ... (returned); no slots at all is `read(&mut ())`.
pub fn fill_slots(count: usize, read: impl FnOnce(Expr) -> Stmt) -> (Vec<Stmt>, Vec<syn::Ident>) {
    if count == 0 {
        return (vec![read(reference(tuple([]), true))], Vec::new());
    }
    let names: Vec<String> = (0..count).map(|i| format!("s{i}")).collect();
    let fill = vec![
        let_(bind("slots", true), tuple((0..count).map(|_| var(NONE)))),
        read(reference(var("slots"), true)),
        let_(tuple_pat(names.iter().map(|n| bind(n, false))), var("slots")),
    ];
    (fill, names.iter().map(|n| super::syntax::ident(n)).collect())
}

/// The exact decoder's closure over the arguments' members: every parameter decoded, in
/// declaration order, as one tuple (of tuples past the runtime's `MAX_DECODED`); the
/// runtime collects every error together.
fn exact_decode(tool: &ToolDef) -> Expr {
    let results = tool.params.iter().map(decode_param).collect();
    let input = if tool.params.is_empty() { wild() } else { bind("arguments", false) };
    closure(false, [input], grouped(results, &|items| tuple(items)))
}

/// A list of keys, each with the slot it fills (a field and its aliases fill one).
pub type KeyList = Vec<(String, usize)>;

/// A stable hash of a key list's text (each key and its slot).
fn list_hash(list: &KeyList) -> u64 {
    let text: String = list.iter().map(|(name, slot)| format!("{name}\u{0}{slot}\u{0}")).collect();
    toolcall_runtime::__private::name_hash(&text)
}

/// The keys a fast tool's one-pass decoder reads: its parameters' names, in order.
pub fn tool_keys(tool: &ToolDef) -> KeyList {
    tool.params.iter().enumerate().map(|(slot, p)| (p.name.clone(), slot)).collect()
}

/// The key functions of one generated file: `fn __keys_<hash>(key: &str) -> Option<usize>`,
/// a `match` from each key to its slot, one per distinct list of keys, shared by every call
/// function and `FastArg` impl that reads those keys. Sharing the function also shares the
/// one-pass reader's instances between types with the same slots and keys. Each is named
/// by a hash of its list, so a list keeps its name whatever other lists come and go (the
/// generated text of the code that uses it does not change); written in the lists' sorted
/// order.
pub struct KeyFns {
    names: BTreeMap<KeyList, String>,
}

impl KeyFns {
    /// The functions for `lists` (repeats count once).
    pub fn new(lists: impl IntoIterator<Item = KeyList>) -> KeyFns {
        let lists: std::collections::BTreeSet<KeyList> = lists.into_iter().collect();
        let mut taken = std::collections::BTreeSet::new();
        let names = lists
            .into_iter()
            .map(|list| {
                let mut name = format!("__keys_{:016x}", list_hash(&list));
                // Two lists with one hash (never seen): the later one in sorted order gets a
                // suffix, the same in every run.
                while !taken.insert(name.clone()) {
                    name.push('_');
                }
                (list, name)
            })
            .collect();
        KeyFns { names }
    }

    /// The name of the function for `list` (one of the lists it was made with).
    pub fn ident(&self, list: &KeyList) -> syn::Ident {
        super::syntax::ident(self.names.get(list).map_or("__keys_missing", String::as_str))
    }

    /// Whether there are no functions to write.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The functions, in their lists' sorted order.
    pub fn items(&self) -> Vec<syn::Item> {
        self.names.keys().map(|list| syn::Item::Fn(self.function(list))).collect()
    }

    /// `fn __keys_<n>(key: &str) -> Option<usize> { match key { "a" => Some(0), .. _ => None } }`.
    fn function(&self, list: &KeyList) -> syn::ItemFn {
        let ident = self.ident(list);
        let mut arms: Vec<syn::Arm> = list
            .iter()
            .map(|(name, i)| arm(str_pat(name), call_path(SOME, [int_lit(&format!("{i}usize"))])))
            .collect();
        let mut function: syn::ItemFn = if arms.is_empty() {
            syn::parse_quote!(fn #ident(_: &str) -> Option<usize> {})
        } else {
            syn::parse_quote!(fn #ident(key: &str) -> Option<usize> {})
        };
        let body = if arms.is_empty() {
            var(NONE)
        } else {
            arms.push(arm(wild(), var(NONE)));
            match_(var("key"), arms)
        };
        function.block.stmts = vec![tail(body)];
        let names: Vec<String> = list.iter().map(|(name, _)| format!("`{name}`")).collect();
        let what = if names.is_empty() { "no key".to_owned() } else { names.join(", ") };
        function.attrs.push(doc(&format!("The slot each key fills: {what}.")));
        function
    }
}

/// The function's arguments in declaration order: the context and the progress handle
/// where it takes them, the decoded parameters elsewhere.
fn call_inputs(tool: &ToolDef, bindings: &[syn::Ident]) -> Vec<Expr> {
    let mut params = bindings.iter();
    (0..bindings.len() + tool.context_at.len() + tool.progress_at.len())
        .filter_map(|position| {
            if tool.context_at.contains(&position) {
                Some(var("ctx"))
            } else if tool.progress_at.contains(&position) {
                Some(var("progress"))
            } else {
                params.next().map(|binding| path_expr(binding.clone().into()))
            }
        })
        .collect()
}

/// Decodes one parameter (its error names it); a range from an override is checked first.
fn decode_param(param: &model::Param) -> Expr {
    let name = &param.name;
    if is_plain(param) {
        return method(var("arguments"), "arg", [str_lit(name)]);
    }
    let bounded = param.bounds.as_ref().and_then(bounds_expr);
    let get = || method(var("arguments"), "get", [str_lit(name)]);
    let mut expr = slot_expr(&param.decode, get(), int_lit("0"));
    if let Some(bounds) = bounded {
        let bounds = syn::parse2(bounds.clone()).unwrap_or(Expr::Verbatim(bounds));
        let checked = call(private("slot::bounded"), [get(), bounds]);
        expr = method(checked, "and_then", [closure(false, [tuple_pat([])], expr)]);
    }
    let error = closure(false, [bind("e", false)], method(var("e"), "param", [str_lit(name)]));
    method(expr, "map_err", [error])
}

/// Whether a parameter is read plainly: by its type's `FromArg`, with no range to check
/// (`arguments.arg(name)`).
fn is_plain(param: &model::Param) -> bool {
    matches!(param.decode, Decode::FromArg) && param.bounds.as_ref().and_then(bounds_expr).is_none()
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

#[cfg(test)]
mod tests {
    use quote::ToTokens;

    use super::{KeyFns, KeyList};

    fn list(keys: &[(&str, usize)]) -> KeyList {
        keys.iter().map(|(name, slot)| ((*name).to_owned(), *slot)).collect()
    }

    #[test]
    fn a_key_list_has_one_function_named_by_its_keys_whatever_else_is_there() {
        let (a, b) = (list(&[("name", 0), ("count", 1)]), list(&[("label", 0), ("alias", 0)]));
        let alone = KeyFns::new([a.clone()]);
        let both = KeyFns::new([b.clone(), a.clone(), b.clone()]);
        assert_eq!(alone.ident(&a), both.ident(&a));
        assert_ne!(both.ident(&a), both.ident(&b));
        assert_eq!(both.items().len(), 2);
        // The same keys in another order fill other slots: another function.
        assert_ne!(
            both.ident(&a),
            KeyFns::new([list(&[("count", 0), ("name", 1)])]).ident(&list(&[("count", 0), ("name", 1)]))
        );
        let text = alone.items()[0].to_token_stream().to_string();
        assert!(text.contains("\"name\" => Some (0usize)") && text.contains("_ => None"), "{text}");
    }
}
