//! Defaults read from a function body: `let days = days.unwrap_or(3);`, wherever the body
//! applies one.
//!
//! Takes the body, the names of the parameters and the file (its consts and local enums);
//! gives, per parameter, what the body says its default is, with where it says it:
//!
//! * `x.unwrap_or(v)` anywhere in the body (in a macro's arguments too), on `x` itself or
//!   on `x.as_deref()`, `x.as_ref()`, `x.clone()`, `x.copied()`, `x.cloned()`, where `v`
//!   is a literal (negative ones too), a unit variant of a local enum (its wire string),
//!   `Default::default()` or `T::default()` of a type whose default is known, or a
//!   same-file `const` holding one of those: the default. Methods chained after it keep it
//!   only when they cannot change it (`.to_owned()`, `.into()`, `.min(50)` on 10).
//!   The `const` may be declared in the function itself.
//! * the same written other ways: `match x { Some(v) => v, None => 20 }`,
//!   `if let Some(v) = x { v } else { 20 }`, `x.map(|v| v.min(50)).unwrap_or(20)`,
//!   `x.map_or(20, |v| v)`, where the present value comes through as itself (or through
//!   methods that keep it a value of `x`, such as `min`, `trim` or a cast); a `None` arm
//!   that returns or panics applies no default. After a closure that makes the value
//!   something else (`x.map(|v| v * 2)`, `x.map_or(0, |d| d.as_secs())`) the fallback is
//!   not a value of `x`, so there is no default to send: like `unwrap_or_else`, on purpose.
//! * `x.unwrap_or_default()`: the type's own default.
//! * `x.unwrap_or_else(..)`, `x.map_or_else(..)`: computed at run time, deliberately no
//!   default.
//! * anything else (`unwrap_or(compute())`, a chain that changes the value, two different
//!   defaults): not read, with the reason, for a located warning once the parameter is
//!   known to be optional.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Span, TokenStream, TokenTree};
use serde_json::Value;
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};

use crate::ast::unraw;
use crate::ast::{Data, Style};

/// What a default may name beyond the function's body: the crate's consts and types, as
/// the tool's module sees them. The crate tree answers (`tree::resolve::Lookup`); the ast
/// stage only asks.
pub trait Names {
    /// The `const` `path` names, with where its own expression's names are looked up.
    fn constant(&self, path: &syn::Path) -> Option<(&syn::ItemConst, Box<dyn Names + '_>)>;
    /// The crate type `path` names.
    fn container(&self, path: &syn::Path) -> Option<&crate::ast::Container>;
}

/// What a body says about one optional parameter's default.
#[derive(Clone, Debug, PartialEq)]
pub enum DefaultFact {
    /// `unwrap_or(<literal, unit variant, const of one>)`: the value on the wire.
    Value(Value),
    /// `unwrap_or_default()`, `unwrap_or(Default::default())`: the type's own default.
    TypeDefault,
    /// `unwrap_or_else(..)`: computed when called; optional with no default, on purpose.
    Computed,
    /// A default the body applies but the build cannot read: why (a warning).
    Unread(String),
}

impl DefaultFact {
    /// How a message names this default.
    fn describe(&self) -> String {
        match self {
            DefaultFact::Value(value) => value.to_string(),
            DefaultFact::TypeDefault => "the type's default".to_owned(),
            DefaultFact::Computed | DefaultFact::Unread(_) => "a computed one".to_owned(),
        }
    }
}

/// A default and the place in the body that applies it.
#[derive(Clone, Debug)]
pub struct FoundDefault {
    /// What it is.
    pub fact: DefaultFact,
    /// Where it is applied (the `unwrap_or..` call).
    pub span: Span,
}

/// Every default `body` applies to one of `params` (binding names), by parameter.
/// Several places that agree give that default; places that disagree give
/// [`DefaultFact::Unread`].
pub fn body_defaults(
    body: &syn::Block,
    params: &[String],
    names: &dyn Names,
) -> BTreeMap<String, FoundDefault> {
    let mut consts = BodyConsts::default();
    consts.visit_block_mut(&mut body.clone());
    let scope = Scope { names, body_consts: consts.0 };
    let mut finder = Finder { params, scope: &scope, seen: BTreeSet::new(), found: Vec::new() };
    finder.visit_block_mut(&mut body.clone());
    let mut out: BTreeMap<String, FoundDefault> = BTreeMap::new();
    for (name, found) in finder.found {
        match out.get_mut(&name) {
            None => {
                out.insert(name, found);
            }
            Some(first) => merge(first, found),
        }
    }
    out
}

/// Two places applying a default to one parameter: kept when they agree.
fn merge(first: &mut FoundDefault, other: FoundDefault) {
    if matches!(first.fact, DefaultFact::Unread(_)) || first.fact == other.fact {
        return;
    }
    if matches!(other.fact, DefaultFact::Unread(_)) {
        *first = other;
        return;
    }
    let at = other.span.start();
    first.fact = DefaultFact::Unread(format!(
        "the body applies different defaults, {} here and {} at {}:{}",
        first.fact.describe(),
        other.fact.describe(),
        at.line,
        at.column + 1
    ));
}

/// Where a default's names are looked up: the consts declared in the function's body
/// (first), then the crate's consts and enums as the tool's module sees them.
struct Scope<'a> {
    names: &'a dyn Names,
    body_consts: BTreeMap<String, syn::ItemConst>,
}

/// The `const` items declared anywhere in a body (blocks inside it too, not other items'
/// bodies).
#[derive(Default)]
struct BodyConsts(BTreeMap<String, syn::ItemConst>);

impl VisitMut for BodyConsts {
    fn visit_item_mut(&mut self, item: &mut syn::Item) {
        if let syn::Item::Const(constant) = item {
            self.0.entry(constant.ident.to_string()).or_insert_with(|| constant.clone());
        }
    }
}

/// How a parameter reaches the default call: as itself, or through a closure that makes
/// it a value of something else (then the fallback is no value of the parameter).
enum Through {
    Same,
    Changed,
}

/// Walks a body in source order, recording each `param.unwrap_or..(..)` once.
struct Finder<'a> {
    params: &'a [String],
    scope: &'a Scope<'a>,
    /// Where recorded calls are (line, column of the method), so a call seen as the
    /// receiver of a chain is not recorded again on its own.
    seen: BTreeSet<(usize, usize)>,
    found: Vec<(String, FoundDefault)>,
}

impl VisitMut for Finder<'_> {
    fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
        self.record(expr);
        visit_mut::visit_expr_mut(self, expr);
    }

    /// Items inside a body are other functions: their `unwrap_or`s are not this one's.
    fn visit_item_mut(&mut self, _item: &mut syn::Item) {}

    /// Macro arguments are tokens: each `param.` sequence in them is read as an expression.
    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        self.scan_tokens(mac.tokens.clone());
    }
}

impl Finder<'_> {
    /// Records `expr` when it is a default call on a parameter, with the methods chained
    /// after it.
    fn record(&mut self, expr: &syn::Expr) {
        match expr {
            syn::Expr::Match(matched) => return self.record_match(matched),
            syn::Expr::If(branch) => return self.record_if_let(branch),
            _ => {}
        }
        let mut chain = Vec::new();
        let mut current = expr;
        let (call, (name, through)) = loop {
            match current {
                syn::Expr::MethodCall(call) => match self.default_call(call) {
                    Some(found) => break (call, found),
                    None => {
                        chain.push(call);
                        current = &call.receiver;
                    }
                },
                syn::Expr::Paren(paren) => current = &paren.expr,
                syn::Expr::Group(group) => current = &group.expr,
                _ => return,
            }
        };
        let start = call.method.span().start();
        if !self.seen.insert((start.line, start.column)) {
            return;
        }
        chain.reverse();
        let fact = match through {
            Through::Same => self.call_fact(call),
            Through::Changed => DefaultFact::Computed,
        };
        let fact = apply_chain(fact, call, &chain, self.scope);
        self.found.push((name, FoundDefault { fact, span: call.method.span() }));
    }

    /// `match param { Some(v) => v, None => default }`: a default when the `Some` arm
    /// gives the value itself (or a value of the parameter made of it, `v.min(50)`); the
    /// first arm that matches `None` says what. An arm that diverges applies none.
    fn record_match(&mut self, matched: &syn::ExprMatch) {
        let Some((name, Through::Same)) = self.param_receiver(&matched.expr) else { return };
        let identity = matched.arms.iter().any(|arm| {
            arm.guard.is_none()
                && some_binding(&arm.pat).is_some_and(|binding| keeps_domain(&arm.body, &binding))
        });
        let Some(absent) = matched.arms.iter().find(|arm| matches_none(&arm.pat)) else { return };
        if !identity {
            return;
        }
        let fact = match &absent.guard {
            Some(_) => Some(DefaultFact::Unread(
                "the arm for `None` has a guard, so what an absent value gives depends on it".to_owned(),
            )),
            None => self.value_fact(&absent.body),
        };
        self.push_at(name, fact, &absent.body);
    }

    /// `if let Some(v) = param { v } else { default }`.
    fn record_if_let(&mut self, branch: &syn::ExprIf) {
        let syn::Expr::Let(condition) = branch.cond.as_ref() else { return };
        let Some((name, Through::Same)) = self.param_receiver(&condition.expr) else { return };
        let Some(binding) = some_binding(&condition.pat) else { return };
        let Some((_, otherwise)) = &branch.else_branch else { return };
        let then = block_value(&branch.then_branch);
        if !then.is_some_and(|value| keeps_domain(value, &binding)) {
            return;
        }
        let fact = match otherwise.as_ref() {
            syn::Expr::If(_) => Some(DefaultFact::Unread(
                "the `else` is another `if`, so what an absent value gives is not one value".to_owned(),
            )),
            other => self.value_fact(other),
        };
        self.push_at(name, fact, otherwise);
    }

    /// Records `fact` for `name` at `at`, once per place.
    fn push_at(&mut self, name: String, fact: Option<DefaultFact>, at: &syn::Expr) {
        let Some(fact) = fact else { return };
        let span = at.span();
        let start = span.start();
        if self.seen.insert((start.line, start.column)) {
            self.found.push((name, FoundDefault { fact, span }));
        }
    }

    /// What a branch's value says as a default; `None` when it diverges (`return`,
    /// `panic!`, ..): then an absent value is refused or handled, not defaulted.
    fn value_fact(&self, expr: &syn::Expr) -> Option<DefaultFact> {
        let value = match expr {
            syn::Expr::Block(block) => match block_value(&block.block) {
                Some(value) => value,
                None => return (!diverges_block(&block.block)).then(|| unread_branch(expr)),
            },
            other => other,
        };
        if diverges(value) {
            return None;
        }
        Some(match default_expr(value, self.scope, 0) {
            Ok(fact) => fact,
            Err(why) => DefaultFact::Unread(format!("`{}` {why}", source_of(value))),
        })
    }

    /// The parameter `call` applies a default to, when it is `param.unwrap_or..(..)` (or
    /// `param.map_or(..)`), and how the parameter reaches it.
    fn default_call(&self, call: &syn::ExprMethodCall) -> Option<(String, Through)> {
        let method = call.method.to_string();
        let arity = match method.as_str() {
            "unwrap_or" | "unwrap_or_else" => 1,
            "unwrap_or_default" => 0,
            "map_or" | "map_or_else" => 2,
            _ => return None,
        };
        if call.args.len() != arity {
            return None;
        }
        let (name, through) = self.param_receiver(&call.receiver)?;
        match (method.as_str(), through, call.args.iter().nth(1)) {
            ("map_or", Through::Same, Some(closure)) if !closure_keeps_domain(closure) => {
                Some((name, Through::Changed))
            }
            (_, through, _) => Some((name, through)),
        }
    }

    /// `param`, or `param` through an adapter that keeps its value (`as_deref()`, ..),
    /// `filter(..)`, or `map(..)` with a closure that keeps it a value of the parameter.
    fn param_receiver(&self, expr: &syn::Expr) -> Option<(String, Through)> {
        match expr {
            syn::Expr::Path(path) if path.qself.is_none() => {
                let name = path.path.get_ident().map(unraw)?;
                self.params.contains(&name).then_some((name, Through::Same))
            }
            syn::Expr::Paren(paren) => self.param_receiver(&paren.expr),
            syn::Expr::Group(group) => self.param_receiver(&group.expr),
            syn::Expr::MethodCall(call) => {
                let method = call.method.to_string();
                let adapter = call.args.is_empty()
                    && matches!(method.as_str(), "as_deref" | "as_ref" | "clone" | "copied" | "cloned");
                let keeps = call.args.len() == 1 && matches!(method.as_str(), "filter" | "inspect");
                let maps = call.args.len() == 1 && matches!(method.as_str(), "map" | "and_then");
                if !(adapter || keeps || maps) {
                    return None;
                }
                let (name, through) = self.param_receiver(&call.receiver)?;
                let kept = call.args.first().is_none_or(|c| method == "map" && closure_keeps_domain(c));
                match through {
                    Through::Same if maps && !kept => Some((name, Through::Changed)),
                    through => Some((name, through)),
                }
            }
            _ => None,
        }
    }

    /// What one default call says, before any chain.
    fn call_fact(&self, call: &syn::ExprMethodCall) -> DefaultFact {
        match call.method.to_string().as_str() {
            "unwrap_or_default" => DefaultFact::TypeDefault,
            "unwrap_or_else" | "map_or_else" => DefaultFact::Computed,
            _ => match call.args.first().map(|arg| (arg, default_expr(arg, self.scope, 0))) {
                Some((_, Ok(fact))) => fact,
                Some((arg, Err(why))) => DefaultFact::Unread(format!("`{}` {why}", source_of(arg))),
                None => DefaultFact::Unread("`unwrap_or` has no argument".to_owned()),
            },
        }
    }

    /// Finds `param . ...` runs in macro tokens (up to the next `,` or `;` of their
    /// group), parses each as an expression and visits it; groups are scanned inside.
    fn scan_tokens(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        for (index, tree) in trees.iter().enumerate() {
            match tree {
                TokenTree::Group(group) => self.scan_tokens(group.stream()),
                TokenTree::Ident(ident) if self.params.contains(&unraw(ident)) => {
                    if follows_path(&trees[..index]) {
                        continue;
                    }
                    let run: TokenStream = trees[index..]
                        .iter()
                        .take_while(
                            |t| !matches!(t, TokenTree::Punct(p) if p.as_char() == ',' || p.as_char() == ';'),
                        )
                        .cloned()
                        .collect();
                    if let Ok(mut expr) = syn::parse2::<syn::Expr>(run) {
                        self.visit_expr_mut(&mut expr);
                    }
                }
                _ => {}
            }
        }
    }
}

/// Whether the tokens before an identifier make it a field or a path segment (`.x`, `::x`).
fn follows_path(before: &[TokenTree]) -> bool {
    let punct =
        |tree: Option<&TokenTree>, c: char| matches!(tree, Some(TokenTree::Punct(p)) if p.as_char() == c);
    let mut back = before.iter().rev();
    let (last, second) = (back.next(), back.next());
    punct(last, '.') || (punct(last, ':') && punct(second, ':'))
}

/// The binding of a `Some(v)` pattern.
fn some_binding(pat: &syn::Pat) -> Option<String> {
    let syn::Pat::TupleStruct(tuple) = pat else { return None };
    if !tuple.path.is_ident("Some") || tuple.elems.len() != 1 {
        return None;
    }
    match tuple.elems.first() {
        Some(syn::Pat::Ident(ident)) if ident.subpat.is_none() => Some(unraw(&ident.ident)),
        _ => None,
    }
}

/// Whether a pattern matches `None`: `None`, `_` or a plain binding.
fn matches_none(pat: &syn::Pat) -> bool {
    match pat {
        syn::Pat::Ident(ident) => ident.subpat.is_none(),
        syn::Pat::Path(path) => path.qself.is_none() && path.path.is_ident("None"),
        syn::Pat::Wild(_) => true,
        syn::Pat::Paren(paren) => matches_none(&paren.pat),
        syn::Pat::Or(or) => or.cases.iter().any(matches_none),
        _ => false,
    }
}

/// Methods that give back a value of the same parameter (bounded, trimmed, recased).
const KEEPS_DOMAIN: &[&str] = &[
    "min",
    "max",
    "clamp",
    "abs",
    "trim",
    "trim_start",
    "trim_end",
    "to_lowercase",
    "to_uppercase",
    "to_ascii_lowercase",
    "to_ascii_uppercase",
];

/// Whether `expr` is the value bound to `binding` (or a value of the same parameter made
/// of it: `v.min(50)`, `v.clone()`, `*v`, `v as usize`, `u64::from(v)`).
fn keeps_domain(expr: &syn::Expr, binding: &str) -> bool {
    match expr {
        syn::Expr::Path(path) => {
            path.qself.is_none() && path.path.get_ident().is_some_and(|i| unraw(i) == binding)
        }
        syn::Expr::Paren(paren) => keeps_domain(&paren.expr, binding),
        syn::Expr::Group(group) => keeps_domain(&group.expr, binding),
        syn::Expr::Unary(unary) if matches!(unary.op, syn::UnOp::Deref(_)) => {
            keeps_domain(&unary.expr, binding)
        }
        syn::Expr::Block(block) => {
            block_value(&block.block).is_some_and(|value| keeps_domain(value, binding))
        }
        syn::Expr::Cast(cast) => keeps_domain(&cast.expr, binding),
        syn::Expr::Call(call) if call.args.len() == 1 => {
            let from = matches!(call.func.as_ref(), syn::Expr::Path(path)
                if path.path.segments.last().is_some_and(|s| s.ident == "from"));
            from && call.args.first().is_some_and(|arg| keeps_domain(arg, binding))
        }
        syn::Expr::MethodCall(call) => {
            let method = call.method.to_string();
            let keeps =
                call.args.is_empty() && (KEEPS_VALUE.contains(&method.as_str()) || method == "to_string");
            (keeps || KEEPS_DOMAIN.contains(&method.as_str())) && keeps_domain(&call.receiver, binding)
        }
        _ => false,
    }
}

/// Whether a closure `|v| ..` gives back `v` (or a value of the same parameter made of it).
fn closure_keeps_domain(expr: &syn::Expr) -> bool {
    let syn::Expr::Closure(closure) = expr else { return false };
    match closure.inputs.first() {
        Some(pat) if closure.inputs.len() == 1 => {
            super::signature::binding_name(pat).is_some_and(|binding| keeps_domain(&closure.body, &binding))
        }
        _ => false,
    }
}

/// The value of a block: its last statement when that is an expression without `;`.
fn block_value(block: &syn::Block) -> Option<&syn::Expr> {
    match block.stmts.last() {
        Some(syn::Stmt::Expr(expr, None)) => Some(expr),
        _ => None,
    }
}

/// Whether evaluating `expr` leaves the function or the loop instead of giving a value.
fn diverges(expr: &syn::Expr) -> bool {
    match expr {
        syn::Expr::Return(_) | syn::Expr::Break(_) | syn::Expr::Continue(_) => true,
        syn::Expr::Macro(mac) => diverging_macro(&mac.mac),
        syn::Expr::Paren(paren) => diverges(&paren.expr),
        syn::Expr::Group(group) => diverges(&group.expr),
        syn::Expr::Block(block) => diverges_block(&block.block),
        _ => false,
    }
}

/// Whether a block ends by leaving (its last statement diverges).
fn diverges_block(block: &syn::Block) -> bool {
    match block.stmts.last() {
        Some(syn::Stmt::Expr(expr, _)) => diverges(expr),
        Some(syn::Stmt::Macro(mac)) => diverging_macro(&mac.mac),
        _ => false,
    }
}

fn diverging_macro(mac: &syn::Macro) -> bool {
    mac.path.get_ident().is_some_and(|name| {
        ["panic", "unreachable", "todo", "unimplemented", "bail"].iter().any(|m| name == m)
    })
}

/// A branch whose value the build cannot see (a block ending in a statement).
fn unread_branch(expr: &syn::Expr) -> DefaultFact {
    DefaultFact::Unread(format!(
        "`{}` does not end in a value the build can read; end it with one",
        source_of(expr)
    ))
}

/// Methods after `unwrap_or(..)` that give back the same value.
const KEEPS_VALUE: &[&str] = &["to_owned", "into", "clone", "as_str", "as_ref", "into_owned", "borrow"];

/// The default after the methods chained on the call: kept when they cannot change it,
/// evaluated for `min`/`max`/`clamp` of literals, else not read.
fn apply_chain(
    fact: DefaultFact,
    call: &syn::ExprMethodCall,
    chain: &[&syn::ExprMethodCall],
    file: &Scope<'_>,
) -> DefaultFact {
    let mut fact = fact;
    for link in chain {
        let method = link.method.to_string();
        let keeps = link.args.is_empty() && (KEEPS_VALUE.contains(&method.as_str()) || method == "to_string");
        fact = match fact {
            DefaultFact::Computed | DefaultFact::Unread(_) => return fact,
            DefaultFact::Value(value) if keeps => DefaultFact::Value(kept(value, &method)),
            DefaultFact::TypeDefault if keeps => DefaultFact::TypeDefault,
            DefaultFact::Value(value) => match clamp(&value, link, file) {
                Some(after) if after == value => DefaultFact::Value(value),
                Some(after) => {
                    return DefaultFact::Unread(format!(
                        "`.{method}(..)` after `{}` turns it into {after}; write `unwrap_or({after})`",
                        call.method
                    ));
                }
                None => return DefaultFact::Unread(changes(&method, &call.method)),
            },
            DefaultFact::TypeDefault => return DefaultFact::Unread(changes(&method, &call.method)),
        };
    }
    fact
}

/// `value` after a method that keeps it (`to_string` writes a number or bool as text).
fn kept(value: Value, method: &str) -> Value {
    match value {
        Value::Number(_) | Value::Bool(_) if method == "to_string" => Value::String(value.to_string()),
        other => other,
    }
}

fn changes(method: &str, call: &syn::Ident) -> String {
    format!("`.{method}(..)` after `{call}` may change it; bind the default first, then call it")
}

/// `value.min(a)`, `value.max(a)`, `value.clamp(a, b)` of numbers the build can read.
fn clamp(value: &Value, link: &syn::ExprMethodCall, file: &Scope<'_>) -> Option<Value> {
    let args = link
        .args
        .iter()
        .map(|arg| match default_expr(arg, file, 0) {
            Ok(DefaultFact::Value(bound @ Value::Number(_))) => Some(bound),
            _ => None,
        })
        .collect::<Option<Vec<Value>>>()?;
    let v = value.as_f64()?;
    match (link.method.to_string().as_str(), args.as_slice()) {
        ("min", [bound]) => Some(if v <= bound.as_f64()? { value.clone() } else { bound.clone() }),
        ("max", [bound]) => Some(if v >= bound.as_f64()? { value.clone() } else { bound.clone() }),
        ("clamp", [low, high]) => Some(if v < low.as_f64()? {
            low.clone()
        } else if v > high.as_f64()? {
            high.clone()
        } else {
            value.clone()
        }),
        _ => None,
    }
}

/// How deep a `const` may name another `const`.
const CONST_DEPTH: usize = 8;

/// Why an `unwrap_or` argument is not read, in general.
const UNREADABLE: &str = "is not a literal, a unit variant of a local enum, `Default::default()` of a \
     known type or a `const` holding one; write one of those, or `unwrap_or_else(|| ..)` for a default the \
     model need not know";

/// Why a `const` named as a default is not read: its value is not one the build reads.
const UNREADABLE_CONST: &str = "is a `const` whose value is not a literal, a unit variant of a local \
     enum or `Default::default()` of a known type, so the build cannot read it; give the `const` one of \
     those, or use `unwrap_or_else(|| ..)` for a default the model need not know";

/// Why a name is not read: no `const` the build sees has it.
const NO_CONST: &str = "names no `const` of this function or file, nor a unit variant of a local enum \
     (consts of other modules are not followed); write the value, declare the `const` in this file, or use \
     `unwrap_or_else(|| ..)` for a default the model need not know";

/// What an `unwrap_or` argument says: `Err` with why it cannot be read.
fn default_expr(expr: &syn::Expr, file: &Scope<'_>, depth: usize) -> Result<DefaultFact, &'static str> {
    match expr {
        syn::Expr::Lit(lit) => lit_value(&lit.lit).map(DefaultFact::Value).ok_or(UNREADABLE),
        syn::Expr::Paren(paren) => default_expr(&paren.expr, file, depth),
        syn::Expr::Group(group) => default_expr(&group.expr, file, depth),
        syn::Expr::Unary(unary) if matches!(unary.op, syn::UnOp::Neg(_)) => {
            match default_expr(&unary.expr, file, depth)? {
                DefaultFact::Value(value) => negate(value).map(DefaultFact::Value).ok_or(UNREADABLE),
                _ => Err(UNREADABLE),
            }
        }
        syn::Expr::Path(path) if path.qself.is_none() => path_default(&path.path, file, depth),
        syn::Expr::Call(call) if call.args.is_empty() => call_default(&call.func, file),
        syn::Expr::Call(call) if call.args.len() == 1 && is_string_from(&call.func) => {
            match call.args.first().map(|arg| default_expr(arg, file, depth)) {
                Some(Ok(DefaultFact::Value(text @ Value::String(_)))) => Ok(DefaultFact::Value(text)),
                _ => Err(UNREADABLE),
            }
        }
        syn::Expr::MethodCall(call) if call.args.is_empty() => {
            let method = call.method.to_string();
            let keeps = KEEPS_VALUE.contains(&method.as_str()) || method == "to_string";
            match default_expr(&call.receiver, file, depth)? {
                DefaultFact::Value(value) if keeps => Ok(DefaultFact::Value(kept(value, &method))),
                _ => Err(UNREADABLE),
            }
        }
        _ => Err(UNREADABLE),
    }
}

/// A const of the body or the crate (followed up to [`CONST_DEPTH`] deep, each in the
/// module that declares it) or a crate enum's unit variant.
fn path_default(path: &syn::Path, scope: &Scope<'_>, depth: usize) -> Result<DefaultFact, &'static str> {
    let body_const = path.get_ident().and_then(|ident| scope.body_consts.get(&ident.to_string()));
    let found = match body_const {
        Some(item) => Some((&item.expr, None)),
        None => scope.names.constant(path).map(|(item, there)| (&item.expr, Some(there))),
    };
    if let Some((expr, there)) = found {
        if depth >= CONST_DEPTH {
            return Err("names consts more than 8 deep");
        }
        let read = match there {
            // A const of another module reads its names there (the body's are not in scope).
            Some(names) => {
                default_expr(expr, &Scope { names: &*names, body_consts: BTreeMap::new() }, depth + 1)
            }
            None => default_expr(expr, scope, depth + 1),
        };
        return match read {
            Err(UNREADABLE) => Err(UNREADABLE_CONST),
            other => other,
        };
    }
    let (variant, ty) = split_last(path).ok_or(NO_CONST)?;
    let container = scope.names.container(&ty).ok_or(NO_CONST)?;
    unit_variant(container, |v| v.ident == variant).map(DefaultFact::Value)
}

/// `path` without its last segment, and that segment's name.
fn split_last(path: &syn::Path) -> Option<(String, syn::Path)> {
    let mut prefix = path.clone();
    let last = prefix.segments.pop()?.into_value();
    prefix.segments.pop_punct();
    (!prefix.segments.is_empty()).then(|| (last.ident.to_string(), prefix))
}

/// `Default::default()`, `T::default()`, `String::new()`, `Vec::new()` and the like.
fn call_default(func: &syn::Expr, scope: &Scope<'_>) -> Result<DefaultFact, &'static str> {
    let syn::Expr::Path(path) = func else { return Err(UNREADABLE) };
    if let Some((method, ty)) = split_last(&path.path)
        && method == "default"
        && let Some(container) = scope.names.container(&ty)
    {
        return enum_default(container).map(DefaultFact::Value);
    }
    let names: Vec<String> = path.path.segments.iter().map(|s| s.ident.to_string()).collect();
    let is_collection = |ty: &str| {
        matches!(ty, "String" | "Vec" | "VecDeque" | "HashSet" | "BTreeSet" | "HashMap" | "BTreeMap")
    };
    match names.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["Default", "default"] => Ok(DefaultFact::TypeDefault),
        [.., ty, "new"] if is_collection(ty) => Ok(DefaultFact::TypeDefault),
        [_, "default"] => Ok(DefaultFact::TypeDefault),
        _ => Err(UNREADABLE),
    }
}

/// The wire string of the `#[default]` unit variant of a crate enum.
pub fn enum_default(container: &crate::ast::Container) -> Result<Value, &'static str> {
    let Data::Enum(variants) = &container.data else {
        return Err("is a local struct or alias, whose default the build does not read");
    };
    let marked = variants.iter().find(|v| v.is_default).ok_or("has no `#[default]` variant")?;
    unit_variant(container, |v| v.ident == marked.ident)
}

/// The wire string (as the model sends it) of the unit variant of a crate enum that
/// `pick` selects.
fn unit_variant(
    container: &crate::ast::Container,
    pick: impl Fn(&crate::ast::Variant) -> bool,
) -> Result<Value, &'static str> {
    let Data::Enum(variants) = &container.data else { return Err(UNREADABLE) };
    match variants.iter().find(|v| pick(v)) {
        Some(variant) if variant.style == Style::Unit => Ok(Value::String(variant.name.deserialize.clone())),
        Some(_) => Err("is a variant with data"),
        None => Err("is not a variant of the local enum"),
    }
}

/// The text of `expr` as written (tokens joined when the source is not at hand), on one
/// line and cut at 40 characters.
fn source_of(expr: &syn::Expr) -> String {
    let text = expr.span().source_text().unwrap_or_else(|| quote::quote!(#expr).to_string());
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() > 40 { format!("{}..", line.chars().take(38).collect::<String>()) } else { line }
}

fn is_string_from(func: &syn::Expr) -> bool {
    let syn::Expr::Path(path) = func else { return false };
    let names: Vec<String> = path.path.segments.iter().map(|s| s.ident.to_string()).collect();
    names.ends_with(&["String".to_owned(), "from".to_owned()])
}

fn lit_value(lit: &syn::Lit) -> Option<Value> {
    match lit {
        syn::Lit::Str(s) => Some(Value::String(s.value())),
        syn::Lit::Char(c) => Some(Value::String(c.value().to_string())),
        syn::Lit::Bool(b) => Some(Value::Bool(b.value)),
        syn::Lit::Int(i) => i.base10_parse::<u64>().ok().map(Value::from),
        syn::Lit::Float(f) => {
            f.base10_parse::<f64>().ok().and_then(serde_json::Number::from_f64).map(Value::Number)
        }
        _ => None,
    }
}

fn negate(value: Value) -> Option<Value> {
    let Value::Number(n) = value else { return None };
    if let Some(u) = n.as_u64() {
        return i64::try_from(u).ok().map(|i| Value::from(-i));
    }
    if let Some(i) = n.as_i64() {
        return i.checked_neg().map(Value::from);
    }
    n.as_f64().and_then(|f| serde_json::Number::from_f64(-f)).map(Value::Number)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::diagnostics::Diagnostics;
    use serde_json::json;

    /// The defaults of the first function in `text`, for its parameter names.
    fn facts(text: &str) -> BTreeMap<String, DefaultFact> {
        let diags = Diagnostics::default();
        let parsed = crate::parse::parse_file(Path::new("t.rs"), vec![], text, &diags).unwrap();
        assert!(diags.into_sorted().is_empty());
        let function = parsed
            .ast
            .items
            .iter()
            .find_map(|i| match i {
                syn::Item::Fn(f) => Some(f),
                _ => None,
            })
            .unwrap();
        let params: Vec<String> = function
            .sig
            .inputs
            .iter()
            .filter_map(|i| match i {
                syn::FnArg::Typed(t) => crate::ast::signature::binding_name(&t.pat),
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        let tree = crate::tree::CrateTree::tools_only(
            &[(&[], std::slice::from_ref(&parsed))],
            &Diagnostics::default(),
        );
        let names = crate::tree::resolve::Lookup::new(&tree, &[]);
        body_defaults(&function.block, &params, &names).into_iter().map(|(k, v)| (k, v.fact)).collect()
    }

    fn unread(fact: &DefaultFact, words: &str) {
        match fact {
            DefaultFact::Unread(why) => assert!(why.contains(words), "{why}"),
            other => panic!("{other:?} is read"),
        }
    }

    #[test]
    fn literals_consts_and_type_defaults() {
        let got = facts(
            "const LIMIT: u32 = 10;
            fn f(days: O, unit: O, scale: O, limit: O, verbose: O, when: O, name: O, after: O) {
                let days = days.unwrap_or(3);
                let unit = unit.unwrap_or(\"celsius\");
                let scale = scale.unwrap_or(-1.5);
                let limit = limit.unwrap_or(LIMIT);
                let verbose = verbose.unwrap_or_default();
                let when = when.unwrap_or_else(now);
                let name = name.unwrap_or(String::from(\"x\"));
                let after = after.unwrap_or(9);
            }",
        );
        assert_eq!(got["days"], DefaultFact::Value(json!(3)));
        assert_eq!(got["unit"], DefaultFact::Value(json!("celsius")));
        assert_eq!(got["scale"], DefaultFact::Value(json!(-1.5)));
        assert_eq!(got["limit"], DefaultFact::Value(json!(10)));
        assert_eq!(got["verbose"], DefaultFact::TypeDefault);
        assert_eq!(got["when"], DefaultFact::Computed);
        assert_eq!(got["name"], DefaultFact::Value(json!("x")));
        assert_eq!(got["after"], DefaultFact::Value(json!(9)));
    }

    #[test]
    fn defaults_are_read_anywhere_in_the_body_and_in_macro_arguments() {
        let got = facts(
            "fn f(a: O, b: O, c: O, d: O, e: O) -> Value {
                println!(\"hi\");
                let b = if true { b.unwrap_or(2) } else { 0 };
                let x = c.as_deref().unwrap_or(\"none\").to_owned();
                let items = vec![d.unwrap_or(4), 1];
                json!({\"a\": a.unwrap_or(1), \"e\": e.clone().unwrap_or(5) + 1})
            }",
        );
        assert_eq!(got["a"], DefaultFact::Value(json!(1)));
        assert_eq!(got["b"], DefaultFact::Value(json!(2)));
        assert_eq!(got["c"], DefaultFact::Value(json!("none")));
        assert_eq!(got["d"], DefaultFact::Value(json!(4)));
        assert_eq!(got["e"], DefaultFact::Value(json!(5)));
    }

    #[test]
    fn local_unit_variants_enum_defaults_negatives_and_consts_of_them() {
        let got = facts(
            "#[derive(Default)]
            #[serde(rename_all = \"snake_case\")]
            pub enum Order { #[default] NewestFirst, Oldest, Near { km: u32 } }
            pub enum Plain { A, B }
            const ORDER: Order = Order::Oldest;
            const LOW: i32 = -5;
            const LOWER: i32 = LOW;
            fn f(a: O, b: O, c: O, d: O, e: O, g: O, h: O, i: O, j: O) {
                let a = a.unwrap_or(Order::Oldest);
                let b = b.unwrap_or(ORDER);
                let c = c.unwrap_or(Order::default());
                let d = d.unwrap_or(LOWER);
                let e = e.unwrap_or(-LOW);
                let g = g.unwrap_or(Plain::default());
                let h = h.unwrap_or(Order::Near { km: 1 });
                let i = i.unwrap_or(Default::default());
                let j = j.unwrap_or(Vec::new());
            }",
        );
        assert_eq!(got["a"], DefaultFact::Value(json!("oldest")));
        assert_eq!(got["b"], DefaultFact::Value(json!("oldest")));
        assert_eq!(got["c"], DefaultFact::Value(json!("newest_first")));
        assert_eq!(got["d"], DefaultFact::Value(json!(-5)));
        assert_eq!(got["e"], DefaultFact::Value(json!(5)));
        unread(&got["g"], "`Plain::default()` has no `#[default]` variant");
        unread(&got["h"], "`Order::Near { km: 1 }` is not a literal");
        assert_eq!(got["i"], DefaultFact::TypeDefault);
        assert_eq!(got["j"], DefaultFact::TypeDefault);
    }

    #[test]
    fn chains_keep_the_default_only_when_they_cannot_change_it() {
        let got = facts(
            "const MAX: u32 = 50;
            fn f(a: O, b: O, c: O, d: O, e: O, g: O) {
                let a = a.unwrap_or(10).min(50);
                let b = b.unwrap_or(100).min(MAX);
                let c = c.unwrap_or(5).clamp(1, 10);
                let d = d.unwrap_or(\"x\").to_string();
                let e = e.unwrap_or(3).pow(2);
                let g = g.unwrap_or_default().len();
            }",
        );
        assert_eq!(got["a"], DefaultFact::Value(json!(10)));
        unread(&got["b"], "`.min(..)` after `unwrap_or` turns it into 50; write `unwrap_or(50)`");
        assert_eq!(got["c"], DefaultFact::Value(json!(5)));
        assert_eq!(got["d"], DefaultFact::Value(json!("x")));
        unread(&got["e"], "`.pow(..)` after `unwrap_or` may change it");
        unread(&got["g"], "`.len(..)` after `unwrap_or_default` may change it");
    }

    #[test]
    fn unreadable_and_conflicting_defaults_say_why() {
        let got = facts(
            "const NOT_LITERAL: Vec<u8> = Vec::with_capacity(1);
            fn f(a: O, b: O, c: O, d: O, e: O) {
                let a = a.unwrap_or(compute());
                let b = b.unwrap_or(NOT_LITERAL);
                let c = if x { c.unwrap_or(1) } else { c.unwrap_or(2) };
                let d = if x { d.unwrap_or(1) } else { d.unwrap_or(1) };
                let e = e.unwrap_or(u8::MAX / 2);
            }",
        );
        unread(&got["a"], "`compute()` is not a literal");
        unread(&got["b"], "`NOT_LITERAL` is a `const` whose value is not a literal");
        unread(&got["c"], "different defaults, 1 here and 2 at 5:58");
        assert_eq!(got["d"], DefaultFact::Value(json!(1)));
        unread(&got["e"], "`u8::MAX / 2` is not a literal");
    }

    #[test]
    fn other_receivers_and_nested_functions_are_not_defaults() {
        let got = facts(
            "fn f(a: O, b: O) {
                let x = self.a.unwrap_or(1);
                fn inner(b: Option<u8>) -> u8 { b.unwrap_or(3) }
                let y = match a { Some(v) => v * 2, None => 0 };
                let z = if let Some(v) = b { v + 1 } else { 4 };
                if let Some(v) = b { log(v) }
                let w = match b { Some(v) => v, None => return Err(\"b is needed\") };
                let u = if let Some(v) = a { v } else { panic!(\"no\") };
            }",
        );
        assert!(got.is_empty(), "{got:?}");
    }

    #[test]
    fn match_and_if_let_that_unwrap_apply_the_other_arm_as_the_default() {
        let got = facts(
            "const TOP: u32 = 9;
            fn f(a: O, b: O, c: O, d: O, e: O, g: O, h: O, i: O) {
                let a = match a { Some(l) => l, None => 20 };
                let b = match b { None => { TOP } Some(l) => l.min(50) };
                let c = if let Some(l) = c { l } else { 30 };
                let d = match d { Some(l) => l, _ => compute() };
                let e = match e { Some(l) => l, None if flag => 1, None => 2 };
                let g = if let Some(l) = g { l } else if x { 1 } else { 2 };
                let h = match h.as_deref() { Some(s) => s, None => \"all\" };
                let i = if let Some(l) = i { l.clone() } else { let _x = 1; \"z\" };
            }",
        );
        assert_eq!(got["a"], DefaultFact::Value(json!(20)));
        assert_eq!(got["b"], DefaultFact::Value(json!(9)));
        assert_eq!(got["c"], DefaultFact::Value(json!(30)));
        unread(&got["d"], "`compute()` is not a literal");
        unread(&got["e"], "has a guard");
        unread(&got["g"], "the `else` is another `if`");
        assert_eq!(got["h"], DefaultFact::Value(json!("all")));
        assert_eq!(got["i"], DefaultFact::Value(json!("z")));
    }

    #[test]
    fn map_before_the_default_is_read_when_it_keeps_the_value_and_said_when_not() {
        let got = facts(
            "fn f(a: O, b: O, c: O, d: O, e: O, g: O, h: O, i: O) {
                let h = h.map(|o| o.trim().to_lowercase()).unwrap_or(\"asc\".to_owned());
                let i = i.map(|n| usize::from(n)).unwrap_or(3);
                let a = a.map(|l| l.min(100)).unwrap_or(20);
                let b = b.map(|l| l * 2).unwrap_or(20);
                let c = c.filter(|l| *l > 0).unwrap_or(5);
                let d = d.map_or(7, |l| l);
                let e = e.map_or(7, |l| l.len());
                let g = g.map_or_else(|| 1, |l| l);
            }",
        );
        assert_eq!(got["a"], DefaultFact::Value(json!(20)));
        // The fallback of a value made into something else is no value of the parameter.
        assert_eq!(got["b"], DefaultFact::Computed);
        assert_eq!(got["c"], DefaultFact::Value(json!(5)));
        assert_eq!(got["d"], DefaultFact::Value(json!(7)));
        assert_eq!(got["e"], DefaultFact::Computed);
        assert_eq!(got["g"], DefaultFact::Computed);
        assert_eq!(got["h"], DefaultFact::Value(json!("asc")));
        assert_eq!(got["i"], DefaultFact::Value(json!(3)));
    }

    #[test]
    fn consts_declared_in_the_function_are_read_and_unknown_names_say_so() {
        let got = facts(
            "fn f(a: O, b: O, c: O) {
                const LIMIT: u32 = 20;
                let a = a.unwrap_or(LIMIT);
                let b = { const INNER: &str = \"x\"; b.unwrap_or(INNER) };
                let c = c.unwrap_or(config::LIMIT);
                let d = c.unwrap_or(ELSEWHERE);
            }",
        );
        assert_eq!(got["a"], DefaultFact::Value(json!(20)));
        assert_eq!(got["b"], DefaultFact::Value(json!("x")));
        unread(&got["c"], "`config::LIMIT` names no `const` of this function or file");
        let elsewhere = facts("fn f(a: O) { let a = a.unwrap_or(ELSEWHERE); }");
        unread(&elsewhere["a"], "`ELSEWHERE` names no `const` of this function or file");
    }
}
