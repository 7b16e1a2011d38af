//! Defaults read from a function body: the leading `let days = days.unwrap_or(3);`
//! statements.
//!
//! Takes the body and the file's consts; gives, per parameter binding, what the default
//! is: a JSON literal, the type's own default (`unwrap_or_default()`), or unknown
//! (`unwrap_or_else(..)`, a non-literal), which keeps the parameter optional with no
//! `default` in the schema.

use std::collections::BTreeMap;

use serde_json::Value;

/// What a body says about one optional parameter's default.
#[derive(Clone, Debug, PartialEq)]
pub enum DefaultFact {
    /// `unwrap_or(<literal or JSON-literal const>)`.
    Value(Value),
    /// `unwrap_or_default()`.
    TypeDefault,
    /// Anything else: optional, no default emitted.
    Unknown,
}

/// Scans the leading `let x = x.unwrap_or..(..);` statements of `body`.
/// Stops at the first statement of another shape.
pub fn leading_defaults(
    body: &syn::Block,
    consts: &BTreeMap<String, syn::ItemConst>,
) -> BTreeMap<String, DefaultFact> {
    let mut out = BTreeMap::new();
    for stmt in &body.stmts {
        let Some((name, fact)) = default_statement(stmt, consts) else { break };
        out.entry(name).or_insert(fact);
    }
    out
}

/// `let x = x.unwrap_or(..);` -> (`x`, fact).
fn default_statement(
    stmt: &syn::Stmt,
    consts: &BTreeMap<String, syn::ItemConst>,
) -> Option<(String, DefaultFact)> {
    let syn::Stmt::Local(local) = stmt else { return None };
    let init = local.init.as_ref()?;
    let syn::Expr::MethodCall(call) = init.expr.as_ref() else { return None };
    let receiver = path_ident(&call.receiver)?;
    let method = call.method.to_string();
    let fact = match (method.as_str(), call.args.len()) {
        ("unwrap_or", 1) => call
            .args
            .first()
            .and_then(|arg| literal_value(arg, consts))
            .map_or(DefaultFact::Unknown, DefaultFact::Value),
        ("unwrap_or_default", 0) => DefaultFact::TypeDefault,
        ("unwrap_or_else", 1) => DefaultFact::Unknown,
        _ => return None,
    };
    Some((receiver, fact))
}

fn path_ident(expr: &syn::Expr) -> Option<String> {
    match expr {
        syn::Expr::Path(path) if path.qself.is_none() => path.path.get_ident().map(unraw),
        _ => None,
    }
}

/// An identifier's name without the `r#` prefix.
pub fn unraw(ident: &syn::Ident) -> String {
    let text = ident.to_string();
    text.strip_prefix("r#").map(str::to_owned).unwrap_or(text)
}

/// A literal (or a same-file const whose value is a literal) as JSON.
pub fn literal_value(expr: &syn::Expr, consts: &BTreeMap<String, syn::ItemConst>) -> Option<Value> {
    match expr {
        syn::Expr::Lit(lit) => lit_value(&lit.lit),
        syn::Expr::Unary(unary) if matches!(unary.op, syn::UnOp::Neg(_)) => {
            negate(literal_value(&unary.expr, consts)?)
        }
        syn::Expr::Group(group) => literal_value(&group.expr, consts),
        syn::Expr::Paren(paren) => literal_value(&paren.expr, consts),
        syn::Expr::Path(_) => {
            let name = path_ident(expr)?;
            let item = consts.get(&name)?;
            // A const that names another const is followed once; no cycles possible.
            match item.expr.as_ref() {
                syn::Expr::Path(_) => None,
                other => literal_value(other, consts),
            }
        }
        syn::Expr::MethodCall(call)
            if call.args.is_empty()
                && matches!(call.method.to_string().as_str(), "to_string" | "to_owned" | "into") =>
        {
            match literal_value(&call.receiver, consts)? {
                text @ Value::String(_) => Some(text),
                _ => None,
            }
        }
        syn::Expr::Call(call) if call.args.len() == 1 && is_string_from(&call.func) => {
            call.args.first().and_then(|arg| literal_value(arg, consts)).filter(Value::is_string)
        }
        _ => None,
    }
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
    n.as_f64().and_then(|f| serde_json::Number::from_f64(-f)).map(Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn facts(body: syn::Block, consts: &str) -> BTreeMap<String, DefaultFact> {
        let file: syn::File = syn::parse_str(consts).unwrap();
        let consts = file
            .items
            .into_iter()
            .filter_map(|i| match i {
                syn::Item::Const(c) => Some((c.ident.to_string(), c)),
                _ => None,
            })
            .collect();
        leading_defaults(&body, &consts)
    }

    #[test]
    fn literals_consts_and_type_defaults() {
        let body: syn::Block = syn::parse_quote!({
            let days = days.unwrap_or(3);
            let unit = unit.unwrap_or("celsius");
            let scale = scale.unwrap_or(-1.5);
            let limit = limit.unwrap_or(LIMIT);
            let verbose = verbose.unwrap_or_default();
            let when = when.unwrap_or_else(now);
            let name = name.unwrap_or(String::from("x"));
            let after = after.unwrap_or(9);
        });
        let got = facts(body, "const LIMIT: u32 = 10;");
        assert_eq!(got["days"], DefaultFact::Value(json!(3)));
        assert_eq!(got["unit"], DefaultFact::Value(json!("celsius")));
        assert_eq!(got["scale"], DefaultFact::Value(json!(-1.5)));
        assert_eq!(got["limit"], DefaultFact::Value(json!(10)));
        assert_eq!(got["verbose"], DefaultFact::TypeDefault);
        assert_eq!(got["when"], DefaultFact::Unknown);
        assert_eq!(got["name"], DefaultFact::Value(json!("x")));
        assert_eq!(got["after"], DefaultFact::Value(json!(9)));
    }

    #[test]
    fn scanning_stops_at_the_first_other_statement() {
        let body: syn::Block = syn::parse_quote!({
            let a = a.unwrap_or(1);
            println!("hi");
            let b = b.unwrap_or(2);
        });
        let got = facts(body, "");
        assert!(got.contains_key("a"));
        assert!(!got.contains_key("b"));
    }

    #[test]
    fn non_literal_values_are_unknown() {
        let body: syn::Block = syn::parse_quote!({
            let a = a.unwrap_or(compute());
            let b = b.unwrap_or(NOT_LITERAL);
        });
        let got = facts(body, "const NOT_LITERAL: Vec<u8> = Vec::new();");
        assert_eq!(got["a"], DefaultFact::Unknown);
        assert_eq!(got["b"], DefaultFact::Unknown);
    }
}
