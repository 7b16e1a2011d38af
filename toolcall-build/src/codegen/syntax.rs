//! Builders for `syn` trees: generated code is assembled as a syntax tree and handed to
//! prettyplease directly. Building tokens with `quote!` and parsing them back with `syn`
//! (the usual way) was most of the generator's time; a tree built here prints the same.
//!
//! Each function builds one kind of node from its parts, named as the Rust it stands for:
//! `call(path("::a::f"), [var("x")])` is `::a::f(x)`, `method(var("x"), "get", [])` is
//! `x.get()`.

use proc_macro2::Span;
use syn::punctuated::Punctuated;
use syn::{Arm, Block, Expr, ExprLit, Lit, LitInt, LitStr, Pat, Stmt, Token};

/// An identifier (`r#`-prefixed names become raw identifiers).
pub fn ident(name: &str) -> syn::Ident {
    match name.strip_prefix("r#") {
        Some(raw) => syn::Ident::new_raw(raw, Span::call_site()),
        None => syn::Ident::new(name, Span::call_site()),
    }
}

/// A path from its text: `::core::option::Option::Some`, `self::m::f`, `x`. Segments
/// are plain identifiers (no generic arguments).
pub fn path(text: &str) -> syn::Path {
    let (leading_colon, rest) = match text.strip_prefix("::") {
        Some(rest) => (Some(Token![::](Span::call_site())), rest),
        None => (None, text),
    };
    syn::Path {
        leading_colon,
        segments: rest.split("::").map(|s| syn::PathSegment::from(ident(s))).collect(),
    }
}

/// `path` followed by more segments.
pub fn join(path: &syn::Path, segments: impl IntoIterator<Item = syn::Ident>) -> syn::Path {
    let mut joined = path.clone();
    joined.segments.extend(segments.into_iter().map(syn::PathSegment::from));
    joined
}

/// A path used as an expression.
pub fn path_expr(path: syn::Path) -> Expr {
    Expr::Path(syn::ExprPath { attrs: Vec::new(), qself: None, path })
}

/// A local variable (or any one-segment path) as an expression.
pub fn var(name: &str) -> Expr {
    path_expr(path(name))
}

/// `func(args..)`.
pub fn call(func: Expr, args: impl IntoIterator<Item = Expr>) -> Expr {
    Expr::Call(syn::ExprCall {
        attrs: Vec::new(),
        func: Box::new(func),
        paren_token: Default::default(),
        args: args.into_iter().collect(),
    })
}

/// `path(args..)`, the path given as text.
pub fn call_path(path_text: &str, args: impl IntoIterator<Item = Expr>) -> Expr {
    call(var(path_text), args)
}

/// `receiver.method(args..)`.
pub fn method(receiver: Expr, method: &str, args: impl IntoIterator<Item = Expr>) -> Expr {
    Expr::MethodCall(syn::ExprMethodCall {
        attrs: Vec::new(),
        receiver: Box::new(receiver),
        dot_token: Default::default(),
        method: ident(method),
        turbofish: None,
        paren_token: Default::default(),
        args: args.into_iter().collect(),
    })
}

/// A string literal's node.
fn string(value: &str) -> ExprLit {
    ExprLit { attrs: Vec::new(), lit: Lit::Str(LitStr::new(value, Span::call_site())) }
}

/// An integer literal's node, as written (`0`, `1usize`, `7u64`).
fn integer(text: &str) -> ExprLit {
    ExprLit { attrs: Vec::new(), lit: Lit::Int(LitInt::new(text, Span::call_site())) }
}

/// A string literal.
pub fn str_lit(value: &str) -> Expr {
    Expr::Lit(string(value))
}

/// An integer literal as written (`0`, `1usize`, `7u64`).
pub fn int_lit(text: &str) -> Expr {
    Expr::Lit(integer(text))
}

/// `(items..)` (a one-item tuple keeps its comma).
pub fn tuple(items: impl IntoIterator<Item = Expr>) -> Expr {
    Expr::Tuple(syn::ExprTuple {
        attrs: Vec::new(),
        paren_token: Default::default(),
        elems: items.into_iter().collect(),
    })
}

/// `[items..]`.
pub fn array(items: impl IntoIterator<Item = Expr>) -> Expr {
    Expr::Array(syn::ExprArray {
        attrs: Vec::new(),
        bracket_token: Default::default(),
        elems: items.into_iter().collect(),
    })
}

/// `&expr`, or `&mut expr`.
pub fn reference(expr: Expr, mutable: bool) -> Expr {
    Expr::Reference(syn::ExprReference {
        attrs: Vec::new(),
        and_token: Default::default(),
        mutability: mutable.then(Default::default),
        expr: Box::new(expr),
    })
}

/// `|inputs..| body`, or `move |inputs..| body`.
pub fn closure(capture: bool, inputs: impl IntoIterator<Item = Pat>, body: Expr) -> Expr {
    Expr::Closure(syn::ExprClosure {
        attrs: Vec::new(),
        lifetimes: None,
        constness: None,
        movability: None,
        asyncness: None,
        capture: capture.then(Default::default),
        or1_token: Default::default(),
        inputs: inputs.into_iter().collect(),
        or2_token: Default::default(),
        output: syn::ReturnType::Default,
        body: Box::new(body),
    })
}

/// `{ stmts.. }` as an expression.
pub fn block(stmts: Vec<Stmt>) -> Expr {
    Expr::Block(syn::ExprBlock { attrs: Vec::new(), label: None, block: braced(stmts) })
}

/// `{ stmts.. }`.
pub fn braced(stmts: Vec<Stmt>) -> Block {
    Block { brace_token: Default::default(), stmts }
}

/// `async move { stmts.. }`.
pub fn async_move(stmts: Vec<Stmt>) -> Expr {
    Expr::Async(syn::ExprAsync {
        attrs: Vec::new(),
        async_token: Default::default(),
        capture: Some(Default::default()),
        block: braced(stmts),
    })
}

/// `expr.await`.
pub fn await_(expr: Expr) -> Expr {
    Expr::Await(syn::ExprAwait {
        attrs: Vec::new(),
        base: Box::new(expr),
        dot_token: Default::default(),
        await_token: Default::default(),
    })
}

/// `match scrutinee { arms.. }`.
pub fn match_(scrutinee: Expr, arms: Vec<Arm>) -> Expr {
    Expr::Match(syn::ExprMatch {
        attrs: Vec::new(),
        match_token: Default::default(),
        expr: Box::new(scrutinee),
        brace_token: Default::default(),
        arms,
    })
}

/// `pat => body`.
pub fn arm(pat: Pat, body: Expr) -> Arm {
    Arm {
        attrs: Vec::new(),
        pat,
        guard: None,
        fat_arrow_token: Default::default(),
        body: Box::new(body),
        comma: Some(Default::default()),
    }
}

/// `let pat = init;`.
pub fn let_(pat: Pat, init: Expr) -> Stmt {
    Stmt::Local(syn::Local {
        attrs: Vec::new(),
        let_token: Default::default(),
        pat,
        init: Some(syn::LocalInit { eq_token: Default::default(), expr: Box::new(init), diverge: None }),
        semi_token: Default::default(),
    })
}

/// `expr;`.
pub fn semi(expr: Expr) -> Stmt {
    Stmt::Expr(expr, Some(Default::default()))
}

/// `expr` as a block's value (no semicolon).
pub fn tail(expr: Expr) -> Stmt {
    Stmt::Expr(expr, None)
}

/// A binding: `name`, or `mut name`.
pub fn bind(name: &str, mutable: bool) -> Pat {
    Pat::Ident(syn::PatIdent {
        attrs: Vec::new(),
        by_ref: None,
        mutability: mutable.then(Default::default),
        ident: ident(name),
        subpat: None,
    })
}

/// `_`.
pub fn wild() -> Pat {
    Pat::Wild(syn::PatWild { attrs: Vec::new(), underscore_token: Default::default() })
}

/// `(pats..)`: always a tuple pattern, a one-item one included (`(a,)`).
pub fn tuple_pat(pats: impl IntoIterator<Item = Pat>) -> Pat {
    let mut elems: Punctuated<Pat, Token![,]> = pats.into_iter().collect();
    if !elems.empty_or_trailing() {
        elems.push_punct(Default::default());
    }
    Pat::Tuple(syn::PatTuple { attrs: Vec::new(), paren_token: Default::default(), elems })
}

/// A string literal pattern.
pub fn str_pat(value: &str) -> Pat {
    Pat::Lit(string(value))
}

/// An integer literal pattern as written (`7u64`).
pub fn int_pat(text: &str) -> Pat {
    Pat::Lit(integer(text))
}

#[cfg(test)]
mod tests {
    use quote::ToTokens;

    use super::*;

    /// The Rust text of an expression, as prettyplease prints it inside a function.
    fn printed(expr: Expr) -> String {
        let function: syn::ItemFn = syn::parse_quote!(
            fn f() {}
        );
        let mut function = function;
        function.block.stmts = vec![tail(expr)];
        let text = prettyplease::unparse(&syn::File {
            shebang: None,
            attrs: Vec::new(),
            items: vec![function.into()],
        });
        text.trim().trim_start_matches("fn f() {").trim_end_matches('}').trim().to_owned()
    }

    #[test]
    fn paths_keep_their_leading_colons_and_raw_names() {
        assert_eq!(
            path("::core::option::Option::None").to_token_stream().to_string(),
            ":: core :: option :: Option :: None"
        );
        assert_eq!(path("self::r#type::f").to_token_stream().to_string(), "self :: r#type :: f");
    }

    #[test]
    fn built_expressions_print_as_the_rust_they_stand_for() {
        assert_eq!(printed(call_path("::a::f", [var("x"), str_lit("k\"y")])), r#"::a::f(x, "k\"y")"#);
        assert_eq!(printed(method(var("args"), "value", [])), "args.value()");
        assert_eq!(printed(closure(false, [], block(vec![tail(int_lit("1usize"))]))), "|| { 1usize }");
        assert_eq!(printed(tuple([var("a")])), "(a,)");
        assert_eq!(printed(reference(tuple([]), true)), "&mut ()");
        let arms = vec![arm(tuple_pat([int_pat("7u64"), str_pat("n")]), var("x")), arm(wild(), var("y"))];
        assert_eq!(
            printed(match_(var("k"), arms)),
            "match k {\n        (7u64, \"n\") => x,\n        _ => y,\n    }"
        );
    }

    #[test]
    fn a_one_item_tuple_pattern_keeps_its_comma() {
        let stmt = let_(tuple_pat([bind("a", false)]), var("b"));
        assert_eq!(stmt.to_token_stream().to_string(), "let (a ,) = b ;");
        let closure = closure(true, [tuple_pat([bind("a", false)])], var("a"));
        assert_eq!(closure.to_token_stream().to_string(), "move | (a ,) | a");
    }
}
