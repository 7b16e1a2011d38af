//! Per-parameter overrides: the `TOOL_PARAMS` const of a tool file.
//!
//! ```text
//! pub(crate) const TOOL_PARAMS: &[ToolParam] = &[
//!     ToolParam::new("transfer", "user_id").string_integer().description("Snowflake id"),
//!     ToolParam::new("get_forecast", "region").header("Region"),
//! ];
//! ```
//! The compiler type-checks the const (generated code references it); this module reads
//! the same syntax. Anything it cannot read is a warning with its location.

use std::path::Path;

use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::diagnostics::Diagnostics;

/// The name of the const a tool file declares overrides in.
pub const CONST_NAME: &str = "TOOL_PARAMS";

/// One `toolcall_runtime::ToolParam` entry of `TOOL_PARAMS` as the build reads it: the
/// override of one parameter (not the runtime type itself, hence its own name).
#[derive(Clone, Debug)]
pub struct ParamOverride {
    /// The function it applies to.
    pub function: String,
    /// The parameter it applies to.
    pub param: String,
    /// `Some("")` clears the description; `None` leaves it.
    pub description: Option<String>,
    /// `.string_integer()` was called.
    pub string_integer: bool,
    /// `.range(min, _)` / `.min(min)`.
    pub minimum: Option<i64>,
    /// `.range(_, max)` / `.max(max)`.
    pub maximum: Option<i64>,
    /// `.length(min, max)`: characters of a string, items of an array.
    pub length: Option<(u64, u64)>,
    /// `.header(name)`: the HTTP header the parameter is mirrored into (SEP-2243).
    pub header: Option<HeaderOverride>,
    /// Where it is written.
    pub span: Span,
}

/// The `.header(name)` of an override, as written: checked when the parameter is lowered
/// (`crate::header`).
#[derive(Clone, Debug)]
pub struct HeaderOverride {
    /// The header's name after `Mcp-Param-`.
    pub name: String,
    /// Where the name is written.
    pub span: Span,
}

/// Reads the overrides from the `TOOL_PARAMS` const; duplicates warn (the first wins).
pub fn read_overrides(item: &syn::ItemConst, file: &Path, diags: &Diagnostics) -> Vec<ParamOverride> {
    let Some(elements) = array_elements(&item.expr) else {
        diags.warn(
            file,
            item.expr.span(),
            format!("`{CONST_NAME}` must be `&[ToolParam::new(..)..]`; it is ignored"),
        );
        return Vec::new();
    };
    let mut out: Vec<ParamOverride> = Vec::new();
    for element in elements {
        let Some(entry) = read_entry(element, file, diags) else { continue };
        if out.iter().any(|o| o.function == entry.function && o.param == entry.param) {
            let message = format!(
                "duplicate override for `{}` of `{}`; only the first is used",
                entry.param, entry.function
            );
            diags.warn(file, entry.span, message);
            continue;
        }
        out.push(entry);
    }
    out
}

/// `Type::new(..).a(..).b(..)` split into the constructor call and its method calls, in
/// the order they are written.
pub(crate) fn method_chain(expr: &syn::Expr) -> (&syn::Expr, Vec<&syn::ExprMethodCall>) {
    let mut calls = Vec::new();
    let mut current = expr;
    while let syn::Expr::MethodCall(call) = current {
        calls.push(call);
        current = &call.receiver;
    }
    calls.reverse();
    (current, calls)
}

/// The elements of `&[a, b, ..]` (or `[a, b, ..]`).
pub(crate) fn array_elements(expr: &syn::Expr) -> Option<Vec<&syn::Expr>> {
    match expr {
        syn::Expr::Reference(reference) => array_elements(&reference.expr),
        syn::Expr::Array(array) => Some(array.elems.iter().collect()),
        _ => None,
    }
}

/// Reads `ToolParam::new("f", "p").method(..)..`.
fn read_entry(expr: &syn::Expr, file: &Path, diags: &Diagnostics) -> Option<ParamOverride> {
    let (current, calls) = method_chain(expr);
    let (function, param) = constructor_args(current).or_else(|| {
        diags.warn(
            file,
            expr.span(),
            "expected `ToolParam::new(\"function\", \"param\")` with string literals; ignored",
        );
        None
    })?;
    let mut entry = ParamOverride {
        function,
        param,
        description: None,
        string_integer: false,
        minimum: None,
        maximum: None,
        length: None,
        header: None,
        span: expr.span(),
    };
    for call in calls {
        apply_method(&mut entry, call, file, diags);
    }
    Some(entry)
}

fn constructor_args(expr: &syn::Expr) -> Option<(String, String)> {
    let syn::Expr::Call(call) = expr else { return None };
    let syn::Expr::Path(func) = call.func.as_ref() else { return None };
    if func.path.segments.last()?.ident != "new" || call.args.len() != 2 {
        return None;
    }
    let mut args = call.args.iter().map(string_literal);
    Some((args.next()??, args.next()??))
}

/// The value of a string literal.
pub(crate) fn string_literal(expr: &syn::Expr) -> Option<String> {
    match expr {
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value()),
        _ => None,
    }
}

/// An integer literal, possibly negated (`-5`).
pub(crate) fn integer_literal(expr: &syn::Expr) -> Option<i64> {
    match expr {
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(n), .. }) => n.base10_parse().ok(),
        syn::Expr::Unary(syn::ExprUnary { op: syn::UnOp::Neg(_), expr, .. }) => {
            integer_literal(expr)?.checked_neg()
        }
        syn::Expr::Paren(p) => integer_literal(&p.expr),
        syn::Expr::Group(g) => integer_literal(&g.expr),
        _ => None,
    }
}

/// The integer literal arguments of `call`, or a warning naming the method.
fn integer_args(call: &syn::ExprMethodCall, file: &Path, diags: &Diagnostics) -> Option<Vec<i64>> {
    let values: Option<Vec<i64>> = call.args.iter().map(integer_literal).collect();
    if values.is_none() {
        let message = format!("`{}` needs integer literals; ignored", call.method);
        diags.warn(file, call.span(), message);
    }
    values
}

fn apply_method(entry: &mut ParamOverride, call: &syn::ExprMethodCall, file: &Path, diags: &Diagnostics) {
    match (call.method.to_string().as_str(), call.args.len()) {
        ("string_integer", 0) => entry.string_integer = true,
        ("range", 2) => {
            if let Some([min, max]) = integer_args(call, file, diags).as_deref() {
                (entry.minimum, entry.maximum) = (Some(*min), Some(*max));
            }
        }
        ("min", 1) => entry.minimum = integer_args(call, file, diags).and_then(|v| v.first().copied()),
        ("max", 1) => entry.maximum = integer_args(call, file, diags).and_then(|v| v.first().copied()),
        ("length", 2) => {
            if let Some([min, max]) = integer_args(call, file, diags).as_deref() {
                match (u64::try_from(*min), u64::try_from(*max)) {
                    (Ok(min), Ok(max)) => entry.length = Some((min, max)),
                    _ => diags.warn(file, call.span(), "`length` bounds cannot be negative; ignored"),
                }
            }
        }
        ("description", 1) => match call.args.first().and_then(string_literal) {
            Some(text) => entry.description = Some(text),
            None => diags.warn(file, call.span(), "`description` needs a string literal; ignored"),
        },
        ("header", 1) => apply_header(entry, call, file, diags),
        (other, _) => {
            diags.warn(file, call.method.span(), format!("unknown ToolParam method `{other}`; ignored"))
        }
    }
}

/// `.header(name)`: the first one of an entry is kept; a second is an error (a parameter
/// travels in one header), and a name that is no string literal a warning.
fn apply_header(entry: &mut ParamOverride, call: &syn::ExprMethodCall, file: &Path, diags: &Diagnostics) {
    let Some(argument) = call.args.first() else { return };
    let Some(name) = string_literal(argument) else {
        diags.warn(file, call.span(), "`header` needs a string literal; ignored");
        return;
    };
    let span = argument.span();
    match &entry.header {
        None => entry.header = Some(HeaderOverride { name, span }),
        Some(first) => {
            let message = format!(
                "`{CONST_NAME}`: `{}` of `{}` has a second `.header(..)` (`{name}` after `{}`); a parameter \
                 is mirrored into one header: keep one",
                entry.param, entry.function, first.name
            );
            diags.error(file, span, message);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_entries_and_warns_on_duplicates_and_unknown_methods() {
        let item: syn::ItemConst = syn::parse_quote! {
            pub(crate) const TOOL_PARAMS: &[ToolParam] = &[
                ToolParam::new("transfer", "user_id").string_integer().description("Snowflake id"),
                ToolParam::new("transfer", "note").description(""),
                ToolParam::new("transfer", "user_id"),
                ToolParam::new("transfer", "x").shout(),
                ToolParam::new("alarm", "hour").range(-1, 23).length(1, 2),
                ToolParam::new("alarm", "minute").min(0).max(two()),
            ];
        };
        let diags = Diagnostics::default();
        let got = read_overrides(&item, Path::new("t.rs"), &diags);
        assert_eq!(got.len(), 5);
        assert_eq!((got[3].minimum, got[3].maximum, got[3].length), (Some(-1), Some(23), Some((1, 2))));
        assert_eq!((got[4].minimum, got[4].maximum), (Some(0), None));
        assert!(got[0].string_integer);
        assert_eq!(got[0].description.as_deref(), Some("Snowflake id"));
        assert_eq!(got[1].description.as_deref(), Some(""));
        let messages: Vec<String> = diags.into_sorted().into_iter().map(|d| d.message).collect();
        assert!(messages.iter().any(|m| m.contains("duplicate override for `user_id`")), "{messages:?}");
        assert!(messages.iter().any(|m| m.contains("unknown ToolParam method `shout`")), "{messages:?}");
        assert!(messages.iter().any(|m| m.contains("`max` needs integer literals")), "{messages:?}");
    }

    #[test]
    fn reads_one_header_per_entry() {
        let item: syn::ItemConst = syn::parse_quote! {
            pub(crate) const TOOL_PARAMS: &[ToolParam] = &[
                ToolParam::new("get_forecast", "region").header("Region"),
                ToolParam::new("get_forecast", "days").header("Days").header("Span"),
                ToolParam::new("get_forecast", "units").header(UNITS),
            ];
        };
        let diags = Diagnostics::default();
        let got = read_overrides(&item, Path::new("t.rs"), &diags);
        let names: Vec<Option<&str>> =
            got.iter().map(|o| o.header.as_ref().map(|h| h.name.as_str())).collect();
        assert_eq!(names, [Some("Region"), Some("Days"), None]);
        let found = diags.into_sorted();
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].level, crate::diagnostics::Level::Error);
        assert!(
            found[0]
                .message
                .contains("`days` of `get_forecast` has a second `.header(..)` (`Span` after `Days`)")
        );
        assert!(found[1].message.contains("`header` needs a string literal"), "{found:?}");
    }
}
