//! Resource metadata: the `RESOURCES` const of a resource file, read as written.
//!
//! ```text
//! pub(crate) const RESOURCES: &[ResourceMeta] = &[
//!     ResourceMeta::new("note", "notes://note/{id}").mime_type("text/plain"),
//! ];
//! ```
//! The compiler type-checks the const (generated code references it); this module reads
//! the same syntax into [`ResourceEntry`] records with their places. Whether they fit the
//! functions is decided when they are applied (`crate::served`).

use std::path::Path;

use proc_macro2::Span;
use syn::spanned::Spanned;

use super::overrides::{array_elements, method_chain, string_literal};
use crate::diagnostics::Diagnostics;

/// The name of the const a resource file declares its URIs in.
pub const RESOURCES_CONST: &str = "RESOURCES";

/// One `ResourceMeta` entry of `RESOURCES`, as written.
#[derive(Clone, Debug)]
pub struct ResourceEntry {
    /// The function it applies to.
    pub function: String,
    /// The URI or URI template.
    pub uri: String,
    /// `.name(..)`.
    pub name: Option<String>,
    /// `.title(..)`.
    pub title: Option<String>,
    /// `.mime_type(..)`.
    pub mime_type: Option<String>,
    /// Where the entry is written.
    pub span: Span,
}

/// Reads the entries of the `RESOURCES` const; an entry that cannot be read is an
/// error at it (a resource with no URI cannot be served), a duplicate one too.
pub fn read_resources(item: &syn::ItemConst, file: &Path, diags: &Diagnostics) -> Vec<ResourceEntry> {
    let Some(elements) = array_elements(&item.expr) else {
        let message = format!("`{RESOURCES_CONST}` must be `&[ResourceMeta::new(\"function\", \"uri\")..]`");
        diags.error(file, item.expr.span(), message);
        return Vec::new();
    };
    let mut out: Vec<ResourceEntry> = Vec::new();
    for element in elements {
        let Some(entry) = read_entry(element, file, diags) else { continue };
        if out.iter().any(|o| o.function == entry.function) {
            let message = format!(
                "a second `{RESOURCES_CONST}` entry for `{}`; give each function one",
                entry.function
            );
            diags.error(file, entry.span, message);
            continue;
        }
        out.push(entry);
    }
    out
}

/// Reads `ResourceMeta::new("f", "uri").method(..)..`.
fn read_entry(expr: &syn::Expr, file: &Path, diags: &Diagnostics) -> Option<ResourceEntry> {
    let (current, calls) = method_chain(expr);
    let Some((function, uri)) = constructor_args(current) else {
        let message = "expected `ResourceMeta::new(\"function\", \"uri\")` with string literals";
        diags.error(file, expr.span(), message);
        return None;
    };
    let mut entry =
        ResourceEntry { function, uri, name: None, title: None, mime_type: None, span: expr.span() };
    for call in calls {
        let text = call.args.first().and_then(string_literal);
        let method = call.method.to_string();
        let slot = match method.as_str() {
            "name" => &mut entry.name,
            "title" => &mut entry.title,
            "mime_type" => &mut entry.mime_type,
            other => {
                let message = format!("unknown ResourceMeta method `{other}` (name, title, mime_type)");
                diags.error(file, call.method.span(), message);
                continue;
            }
        };
        match (text, call.args.len()) {
            (Some(text), 1) => *slot = Some(text),
            _ => diags.error(file, call.span(), format!("`{method}` needs one string literal")),
        }
    }
    Some(entry)
}

/// The two string literals of `ResourceMeta::new(function, uri)`.
fn constructor_args(expr: &syn::Expr) -> Option<(String, String)> {
    let syn::Expr::Call(call) = expr else { return None };
    let syn::Expr::Path(func) = call.func.as_ref() else { return None };
    if func.path.segments.last()?.ident != "new" || call.args.len() != 2 {
        return None;
    }
    Some((string_literal(call.args.first()?)?, string_literal(call.args.get(1)?)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_each_entry_and_refuses_what_it_cannot_read() {
        let item: syn::ItemConst = syn::parse_quote! {
            pub(crate) const RESOURCES: &[ResourceMeta] = &[
                ResourceMeta::new("note", "notes://note/{id}").mime_type("text/plain").title("A note"),
                ResourceMeta::new("note", "notes://other"),
                ResourceMeta::new("about", URI),
                ResourceMeta::new("x", "x://").colour("red"),
            ];
        };
        let diags = Diagnostics::default();
        let got = read_resources(&item, Path::new("r.rs"), &diags);
        assert_eq!(got.len(), 2);
        assert_eq!(
            (got[0].uri.as_str(), got[0].mime_type.as_deref()),
            ("notes://note/{id}", Some("text/plain"))
        );
        assert_eq!(got[0].title.as_deref(), Some("A note"));
        let messages: Vec<String> = diags.into_sorted().into_iter().map(|d| d.message).collect();
        for expected in ["a second `RESOURCES` entry for `note`", "with string literals", "`colour`"] {
            assert!(messages.iter().any(|m| m.contains(expected)), "{expected}: {messages:?}");
        }
    }
}
