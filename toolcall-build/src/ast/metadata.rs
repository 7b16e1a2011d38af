//! Tool metadata: the `TOOLS` const of a tool file, read as written.
//!
//! ```text
//! pub(crate) const TOOLS: &[ToolMeta] = &[
//!     ToolMeta::new("delete_note").name("remove_note").title("Remove a note").destructive()
//!         .idempotent().timeout_ms(5_000).scopes(&["notes:write"]).example(r#"{"id": 3}"#),
//! ];
//! ```
//! The compiler type-checks the const (generated code references it); this module reads
//! the same syntax into [`ToolMetaEntry`] records with their places. Whether they fit the
//! tools is decided when they are applied (`crate::metadata`).

use std::path::Path;

use proc_macro2::Span;
use syn::spanned::Spanned;
use toolcall_runtime::Annotations;

use super::overrides::{array_elements, integer_literal, method_chain, string_literal};
use crate::diagnostics::Diagnostics;

/// The name of the const a tool file declares tool metadata in.
pub const TOOLS_CONST: &str = "TOOLS";

/// One `ToolMeta` entry of `TOOLS`, as written: the build-time reading of
/// `toolcall_runtime::ToolMeta`.
#[derive(Clone, Debug)]
pub struct ToolMetaEntry {
    /// The function it applies to.
    pub function: String,
    /// `.name(..)`: the wire name, with its place.
    pub name: Option<(String, Span)>,
    /// `.title(..)`.
    pub title: Option<String>,
    /// The MCP annotation hints set.
    pub annotations: Annotations,
    /// `.timeout_ms(..)`.
    pub timeout_ms: Option<u64>,
    /// `.task()`, `.task_required()`, `.task_from_detach()`: how it runs as a task, with
    /// the place of the last of those calls.
    pub task: Option<(toolcall_runtime::TaskPolicy, Span)>,
    /// `.scopes(&[..])`: each scope as written, with its place (checked when applied);
    /// `None` without a `scopes` call.
    pub scopes: Option<Vec<(String, Span)>>,
    /// Each `.example(..)`'s JSON text, with its place.
    pub examples: Vec<(String, Span)>,
    /// Each `.icon(src, mime_type)`, with its place.
    pub icons: Vec<(String, String, Span)>,
    /// Each `.meta(key, json)`, with the place of its JSON.
    pub meta: Vec<(String, String, Span)>,
    /// Where the entry is written.
    pub span: Span,
}

/// Reads the entries of the `TOOLS` const; duplicates warn (the first wins).
pub fn read_tool_meta(item: &syn::ItemConst, file: &Path, diags: &Diagnostics) -> Vec<ToolMetaEntry> {
    let Some(elements) = array_elements(&item.expr) else {
        let message = format!("`{TOOLS_CONST}` must be `&[ToolMeta::new(..)..]`; it is ignored");
        diags.warn(file, item.expr.span(), message);
        return Vec::new();
    };
    let mut out: Vec<ToolMetaEntry> = Vec::new();
    for element in elements {
        let Some(entry) = read_entry(element, file, diags) else { continue };
        if out.iter().any(|o| o.function == entry.function) {
            let message =
                format!("duplicate `{TOOLS_CONST}` entry for `{}`; only the first is used", entry.function);
            diags.warn(file, entry.span, message);
            continue;
        }
        out.push(entry);
    }
    out
}

/// Reads `ToolMeta::new("f").method(..)..`.
fn read_entry(expr: &syn::Expr, file: &Path, diags: &Diagnostics) -> Option<ToolMetaEntry> {
    let (current, calls) = method_chain(expr);
    let Some(function) = constructor_arg(current) else {
        let message = "expected `ToolMeta::new(\"function\")` with a string literal; ignored";
        diags.warn(file, expr.span(), message);
        return None;
    };
    let mut entry = ToolMetaEntry {
        function,
        name: None,
        title: None,
        annotations: Annotations::default(),
        timeout_ms: None,
        task: None,
        scopes: None,
        examples: Vec::new(),
        icons: Vec::new(),
        meta: Vec::new(),
        span: expr.span(),
    };
    for call in calls {
        apply_method(&mut entry, call, file, diags);
    }
    Some(entry)
}

fn constructor_arg(expr: &syn::Expr) -> Option<String> {
    let syn::Expr::Call(call) = expr else { return None };
    let syn::Expr::Path(func) = call.func.as_ref() else { return None };
    if func.path.segments.last()?.ident != "new" || call.args.len() != 1 {
        return None;
    }
    call.args.first().and_then(string_literal)
}

fn apply_method(entry: &mut ToolMetaEntry, call: &syn::ExprMethodCall, file: &Path, diags: &Diagnostics) {
    let method = call.method.to_string();
    let text = || call.args.first().and_then(string_literal);
    let hints = &mut entry.annotations;
    match (method.as_str(), call.args.len()) {
        ("read_only", 0) => hints.read_only = Some(true),
        ("destructive", 0) => hints.destructive = Some(true),
        ("non_destructive", 0) => hints.destructive = Some(false),
        ("idempotent", 0) => hints.idempotent = Some(true),
        ("open_world", 0) => hints.open_world = Some(true),
        ("closed_world", 0) => hints.open_world = Some(false),
        ("name", 1) => match text() {
            Some(name) => entry.name = Some((name, call.method.span())),
            None => diags.warn(file, call.span(), "`name` needs a string literal; ignored"),
        },
        ("title", 1) => match text() {
            Some(title) => entry.title = Some(title),
            None => diags.warn(file, call.span(), "`title` needs a string literal; ignored"),
        },
        ("example", 1) => match text() {
            Some(json) => entry.examples.push((json, call.method.span())),
            None => diags.warn(file, call.span(), "`example` needs a string literal of JSON; ignored"),
        },
        ("icon", 2) | ("meta", 2) => {
            let (first, second) =
                (call.args.first().and_then(string_literal), call.args.get(1).and_then(string_literal));
            match (first, second, method.as_str()) {
                (Some(src), Some(mime), "icon") => entry.icons.push((src, mime, call.method.span())),
                (Some(key), Some(json), _) => entry.meta.push((key, json, call.method.span())),
                _ => diags.warn(file, call.span(), format!("`{method}` needs two string literals; ignored")),
            }
        }
        ("scopes", 1) => read_scopes(entry, call, file, diags),
        ("task" | "task_required" | "task_from_detach", 0) => read_task(entry, &method, call.method.span()),
        ("timeout_ms", 1) => match call.args.first().and_then(integer_literal).map(u64::try_from) {
            Some(Ok(ms)) if ms > 0 => entry.timeout_ms = Some(ms),
            _ => diags.warn(file, call.span(), "`timeout_ms` needs a positive integer literal; ignored"),
        },
        (other, _) => {
            diags.warn(file, call.method.span(), format!("unknown ToolMeta method `{other}`; ignored"))
        }
    }
}

/// Reads `.task()`, `.task_required()` or `.task_from_detach()` as `ToolMeta` combines
/// them: the support level of the last of `task`/`task_required`, and whether any call
/// was `task_from_detach`.
fn read_task(entry: &mut ToolMetaEntry, method: &str, span: Span) {
    use toolcall_runtime::{TaskPolicy, TaskSupport};
    let before = entry.task.map(|(policy, _)| policy);
    let at_detach = before.is_some_and(|policy| policy.at_detach) || method == "task_from_detach";
    let support = match method {
        "task_required" => TaskSupport::Required,
        "task" => TaskSupport::Optional,
        _ => before.map_or(TaskSupport::Optional, |policy| policy.support),
    };
    entry.task = Some((TaskPolicy { support, at_detach }, span));
}

/// Reads `.scopes(&["a", "b"])`. Unlike the other methods, what cannot be read is an
/// error, not a warning: a scope dropped unseen would let a token without it call the tool.
fn read_scopes(entry: &mut ToolMetaEntry, call: &syn::ExprMethodCall, file: &Path, diags: &Diagnostics) {
    let function = &entry.function;
    if entry.scopes.is_some() {
        let message =
            format!("`{TOOLS_CONST}`: `scopes` of `{function}` is given twice; list every scope in one call");
        diags.error(file, call.method.span(), message);
        return;
    }
    let Some(elements) = call.args.first().and_then(array_elements) else {
        let message = format!(
            "`{TOOLS_CONST}`: `scopes` of `{function}` needs a list of string literals \
             (`.scopes(&[\"notes:write\"])`) for the build to read"
        );
        diags.error(file, call.span(), message);
        return;
    };
    let scopes = entry.scopes.insert(Vec::new());
    for element in elements {
        match string_literal(element) {
            Some(scope) => scopes.push((scope, element.span())),
            None => {
                let message = format!(
                    "`{TOOLS_CONST}`: a scope of `{function}` must be a string literal for the build to read it"
                );
                diags.error(file, element.span(), message);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_method_and_warns_on_the_rest() {
        let item: syn::ItemConst = syn::parse_quote! {
            pub(crate) const TOOLS: &[ToolMeta] = &[
                ToolMeta::new("delete_note").name("remove_note").title("Remove").destructive()
                    .idempotent().closed_world().timeout_ms(5_000).example("{}").example(r#"{"id":1}"#)
                    .scopes(&["notes:write", "notes:delete"]),
                ToolMeta::new("list_notes").read_only().open_world().non_destructive(),
                ToolMeta::new("delete_note").read_only(),
                ToolMeta::new("x").shout().timeout_ms(0).name(NAME),
                ToolMeta::new(NAME),
            ];
        };
        let diags = Diagnostics::default();
        let got = read_tool_meta(&item, Path::new("t.rs"), &diags);
        assert_eq!(got.len(), 3);
        let delete = &got[0];
        assert_eq!(delete.name.as_ref().map(|n| n.0.as_str()), Some("remove_note"));
        assert_eq!(delete.title.as_deref(), Some("Remove"));
        assert_eq!(
            delete.annotations,
            Annotations {
                read_only: None,
                destructive: Some(true),
                idempotent: Some(true),
                open_world: Some(false)
            }
        );
        assert_eq!(delete.timeout_ms, Some(5_000));
        assert_eq!(delete.examples.len(), 2);
        let scopes: Vec<&str> = delete.scopes.iter().flatten().map(|(scope, _)| scope.as_str()).collect();
        assert_eq!(scopes, ["notes:write", "notes:delete"]);
        assert!(got[1].scopes.is_none());
        assert_eq!(got[1].annotations.destructive, Some(false));
        let messages: Vec<String> = diags.into_sorted().into_iter().map(|d| d.message).collect();
        for expected in [
            "duplicate `TOOLS` entry for `delete_note`",
            "unknown ToolMeta method `shout`",
            "`timeout_ms` needs a positive integer literal",
            "`name` needs a string literal",
            "expected `ToolMeta::new(\"function\")`",
        ] {
            assert!(messages.iter().any(|m| m.contains(expected)), "{expected}: {messages:?}");
        }
    }

    #[test]
    fn task_methods_combine_as_tool_meta_does() {
        use toolcall_runtime::{TaskPolicy, TaskSupport, ToolMeta};
        let item: syn::ItemConst = syn::parse_quote! {
            pub(crate) const TOOLS: &[ToolMeta] = &[
                ToolMeta::new("a").task(),
                ToolMeta::new("b").task_required(),
                ToolMeta::new("c").task_required().task_from_detach(),
                ToolMeta::new("d").task_from_detach().task_required(),
                ToolMeta::new("e").task_from_detach(),
                ToolMeta::new("f"),
            ];
        };
        let diags = Diagnostics::default();
        let read: Vec<Option<TaskPolicy>> = read_tool_meta(&item, Path::new("t.rs"), &diags)
            .iter()
            .map(|entry| entry.task.map(|(policy, _)| policy))
            .collect();
        // What the compiler's reading of the same chains gives, one by one.
        let compiled = [
            ToolMeta::new("a").task(),
            ToolMeta::new("b").task_required(),
            ToolMeta::new("c").task_required().task_from_detach(),
            ToolMeta::new("d").task_from_detach().task_required(),
            ToolMeta::new("e").task_from_detach(),
            ToolMeta::new("f"),
        ]
        .map(|meta| meta.task_policy());
        assert_eq!(read, compiled);
        assert_eq!(read[3], Some(TaskPolicy { support: TaskSupport::Required, at_detach: true }));
        assert!(diags.into_sorted().is_empty());
    }

    #[test]
    fn scopes_the_build_cannot_read_are_errors() {
        let item: syn::ItemConst = syn::parse_quote! {
            pub(crate) const TOOLS: &[ToolMeta] = &[
                ToolMeta::new("a").scopes(WRITE),
                ToolMeta::new("b").scopes(&["notes:read", SCOPE]),
                ToolMeta::new("c").scopes(&["x"]).scopes(&["y"]),
            ];
        };
        let diags = Diagnostics::default();
        let got = read_tool_meta(&item, Path::new("t.rs"), &diags);
        assert_eq!(got.len(), 3);
        assert!(got[0].scopes.is_none());
        let kept = |entry: &ToolMetaEntry| -> Vec<String> {
            entry.scopes.iter().flatten().map(|(scope, _)| scope.clone()).collect()
        };
        assert_eq!(kept(&got[1]), ["notes:read"]);
        assert_eq!(kept(&got[2]), ["x"], "the first call is kept");
        let found = diags.into_sorted();
        assert!(found.iter().all(|d| d.level == crate::diagnostics::Level::Error), "{found:?}");
        let messages: Vec<&str> = found.iter().map(|d| d.message.as_str()).collect();
        for expected in [
            "`scopes` of `a` needs a list of string literals",
            "a scope of `b` must be a string literal",
            "`scopes` of `c` is given twice",
        ] {
            assert_eq!(
                messages.iter().filter(|m| m.contains(expected)).count(),
                1,
                "{expected}: {messages:?}"
            );
        }
    }
}
