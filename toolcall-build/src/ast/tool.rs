//! Tool functions read once: which functions are tools, where the context goes, and for
//! each parameter its wire name, type, `# Arguments` bullet, default and `TOOL_PARAMS`
//! override together, with its spans. Signature problems and naming warnings are
//! reported here; `lower` maps the types and never reads the source again.

use std::collections::BTreeSet;

use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::ast::defaults::{DefaultFact, FoundDefault, Names, body_defaults, enum_default};
use crate::ast::docs::{Docs, Scope, doc_text, parse_docs_in};
use crate::ast::overrides::{CONST_NAME, ParamOverride, read_overrides};
use crate::ast::signature;
use crate::context::{ContextType, ContextUse, progress_use};
use crate::diagnostics::{Diagnostics, FileDiagnostics};
use crate::model::Returns;
use crate::parse::ParsedFile;

/// The tool functions of one file, its `TOOL_PARAMS` overrides and its `TOOLS` metadata:
/// everything the file says about its tools, applied together when it is lowered.
#[derive(Clone, Debug)]
pub struct ToolFile {
    /// Candidate functions the library can serve, in declaration order.
    pub tools: Vec<ToolFn>,
    /// The overrides, as written.
    pub overrides: Vec<ParamOverride>,
    /// Whether `TOOL_PARAMS` is visible to generated code (which then references it).
    pub overrides_visible: bool,
    /// The `TOOLS` entries, as written (empty without the const).
    pub metadata: Vec<crate::ast::metadata::ToolMetaEntry>,
    /// Whether the file declares `TOOLS`, visible to generated code.
    pub metadata_visible: bool,
}

/// One tool function, as read.
#[derive(Clone, Debug)]
pub struct ToolFn {
    /// The tool name (the identifier without `r#`).
    pub name: String,
    /// The function's identifier.
    pub ident: syn::Ident,
    /// The first paragraph of its docs.
    pub description: String,
    /// The model's parameters, in declaration order (the context is not one).
    pub params: Vec<Param>,
    /// Positions among the function's inputs where the context is passed.
    pub context_at: Vec<usize>,
    /// Positions among the function's inputs where `&Progress` is passed.
    pub progress_at: Vec<usize>,
    /// An `async fn`.
    pub is_async: bool,
    /// What it returns.
    pub returns: Returns,
    /// The success type (`T` of `-> T` or `-> Result<T, E>`), when there is one.
    pub success: Option<syn::Type>,
}

/// One parameter with everything the source says about it.
#[derive(Clone, Debug)]
pub struct Param {
    /// The name on the wire.
    pub wire: String,
    /// Its type as written.
    pub ty: syn::Type,
    /// Where the whole parameter is.
    pub span: Span,
    /// Where its type is.
    pub ty_span: Span,
    /// Its `# Arguments` bullet text, when it has one.
    pub bullet: Option<String>,
    /// The default its body gives it (`let x = x.unwrap_or(3);`), and where.
    pub default: Option<FoundDefault>,
    /// Its `TOOL_PARAMS` entry.
    pub over: Option<ParamOverride>,
}

/// Reads the tool functions of `parsed`. A candidate the library cannot serve is left out
/// with a located warning.
pub fn read_tools(
    parsed: &ParsedFile,
    names: &dyn Names,
    context: Option<&ContextType>,
    diags: &Diagnostics,
) -> ToolFile {
    let report = diags.in_file(&parsed.file);
    let overrides = file_overrides(parsed, diags);
    let scope = Scope::of_items(&parsed.ast.items);
    let tools: Vec<ToolFn> = parsed
        .ast
        .items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Fn(function) if signature::is_candidate(function) => Some(function),
            _ => None,
        })
        .filter_map(|function| read_tool(function, (parsed, &scope), names, &overrides, context, &report))
        .collect();
    let overrides = overrides_with_targets(overrides, parsed, &tools, &report);
    let (metadata, metadata_visible) = file_metadata(parsed, diags);
    ToolFile { tools, overrides, overrides_visible: overrides_visible(parsed), metadata, metadata_visible }
}

/// The file's `TOOLS` entries and whether the const is visible; a private one warns.
fn file_metadata(
    parsed: &ParsedFile,
    diags: &Diagnostics,
) -> (Vec<crate::ast::metadata::ToolMetaEntry>, bool) {
    use crate::ast::metadata::{TOOLS_CONST, read_tool_meta};
    let Some(item) = parsed.consts.get(TOOLS_CONST) else { return (Vec::new(), false) };
    let visible = !matches!(item.vis, syn::Visibility::Inherited);
    if !visible {
        let message = format!(
            "make `{TOOLS_CONST}` `pub(crate)` so generated code references it and the compiler checks it"
        );
        diags.warn(&parsed.file, syn::spanned::Spanned::span(&item.ident), message);
    }
    (read_tool_meta(item, &parsed.file, diags), visible)
}

/// The overrides whose tool and parameter exist. One naming no function of the file, or
/// a parameter its tool does not have, is an error at the entry with the closest name (a
/// typo would otherwise drop the guard it meant, such as a range); one for a function
/// that is not a tool (its own warning says why) warns that it applies to nothing.
fn overrides_with_targets(
    overrides: Vec<ParamOverride>,
    parsed: &ParsedFile,
    tools: &[ToolFn],
    report: &FileDiagnostics<'_>,
) -> Vec<ParamOverride> {
    let functions: Vec<&syn::ItemFn> = parsed
        .ast
        .items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Fn(function) => Some(function),
            _ => None,
        })
        .collect();
    let mut kept = Vec::with_capacity(overrides.len());
    for entry in overrides {
        let (function, param) = (entry.function.as_str(), entry.param.as_str());
        if let Some(tool) = tools.iter().find(|t| t.name == function) {
            let wires: Vec<&str> = tool.params.iter().map(|p| p.wire.as_str()).collect();
            if wires.contains(&param) {
                kept.push(entry);
                continue;
            }
            let hint = match toolcall_runtime::closest_name(param, wires.iter().copied()) {
                Some(close) => format!("did you mean `{close}`?"),
                None if wires.is_empty() => "it takes none".to_owned(),
                None => format!("its parameters are {}", quoted_list(&wires)),
            };
            let message = format!("`{CONST_NAME}`: tool `{function}` has no parameter `{param}`; {hint}");
            report.error(entry.span, message);
            continue;
        }
        match functions.iter().find(|f| signature::tool_name(f) == function) {
            Some(found) if signature::is_candidate(found) => report.warn(
                entry.span,
                format!(
                    "`{CONST_NAME}` entry for `{param}` of `{function}` applies to nothing: `{function}` \
                     is not a tool (its warning says why)"
                ),
            ),
            Some(_) => report.error(
                entry.span,
                format!(
                    "`{CONST_NAME}` names `{function}`, which is not a tool: only `pub` and `pub(crate)` \
                     functions without `#[doc(hidden)]` are"
                ),
            ),
            None => {
                let names: Vec<String> = functions
                    .iter()
                    .filter(|f| signature::is_candidate(f))
                    .map(|f| signature::tool_name(f))
                    .collect();
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                report.error(entry.span, not_a_function(CONST_NAME, function, &names));
            }
        }
    }
    kept
}

/// "`CONST` names `f`, which is not a function of this file", with the closest tool name.
pub(crate) fn not_a_function(constant: &str, function: &str, tools: &[&str]) -> String {
    let hint = match toolcall_runtime::closest_name(function, tools.iter().copied()) {
        Some(close) => format!("did you mean `{close}`?"),
        None if tools.is_empty() => "this file has no tools".to_owned(),
        None => format!("its tools are {}", quoted_list(tools)),
    };
    format!("`{constant}` names `{function}`, which is not a function of this file; {hint}")
}

fn file_overrides(parsed: &ParsedFile, diags: &Diagnostics) -> Vec<ParamOverride> {
    let Some(item) = parsed.consts.get(CONST_NAME) else { return Vec::new() };
    if !overrides_visible(parsed) {
        diags.warn(
            &parsed.file,
            item.ident.span(),
            format!(
                "make `{CONST_NAME}` `pub(crate)` so generated code references it and the compiler checks it"
            ),
        );
    }
    read_overrides(item, &parsed.file, diags)
}

fn overrides_visible(parsed: &ParsedFile) -> bool {
    parsed.consts.get(CONST_NAME).is_some_and(|c| !matches!(c.vis, syn::Visibility::Inherited))
}

/// Reads one candidate function of `parsed` (whose items are `scope`, what its docs may link
/// to by name); `None` (with a warning) when its signature cannot be served.
fn read_tool(
    function: &syn::ItemFn,
    (parsed, scope): (&ParsedFile, &Scope),
    lookup: &dyn Names,
    overrides: &[ParamOverride],
    context: Option<&ContextType>,
    report: &FileDiagnostics<'_>,
) -> Option<ToolFn> {
    let name = signature::tool_name(function);
    let skip = |span: Span, why: String| {
        report.warn(span, format!("`{name}` is not a tool: {why}"));
        None
    };
    if let Some(why) = signature::unsupported_reason(&function.sig) {
        return skip(function.sig.ident.span(), why);
    }
    let Inputs { context_at, progress_at, params: inputs } = match split_context(function, parsed, context) {
        Ok(split) => split,
        Err(Unservable::Skip(span, why)) => return skip(span, why),
        Err(Unservable::Error(span, why)) => {
            report.error(span, format!("`{name}`: {why}"));
            return None;
        }
    };
    let docs = parse_docs_in(&doc_text(&function.attrs), scope);
    let names = param_names(&inputs, &docs, report);
    let bindings: Vec<String> = names.iter().filter_map(|(_, binding)| binding.clone()).collect();
    let defaults = body_defaults(&function.block, &bindings, lookup);
    let passed: Vec<usize> = context_at.iter().chain(&progress_at).copied().collect();
    check_bullets(function, &name, &docs, &names, &passed, report);
    let params = inputs
        .into_iter()
        .zip(names)
        .map(|(input, (wire, binding))| Param {
            bullet: docs.params.iter().find(|p| p.name == wire).map(|p| p.text.clone()),
            default: binding
                .and_then(|b| defaults.get(&b).cloned())
                .map(|d| local_default(d, &input.ty, lookup)),
            over: overrides.iter().find(|o| o.function == name && o.param == wire).cloned(),
            ty: (*input.ty).clone(),
            span: input.span(),
            ty_span: input.ty.span(),
            wire,
        })
        .collect();
    Some(ToolFn {
        ident: function.sig.ident.clone(),
        description: docs.description,
        params,
        context_at,
        progress_at,
        is_async: function.sig.asyncness.is_some(),
        returns: signature::returns(&function.sig),
        success: signature::success_type(&function.sig).cloned(),
        name,
    })
}

/// `unwrap_or_default()` of an `Option<E>` where `E` is a crate enum: its `#[default]`
/// variant.
fn local_default(found: FoundDefault, ty: &syn::Type, names: &dyn Names) -> FoundDefault {
    if found.fact != DefaultFact::TypeDefault {
        return found;
    }
    let Some(container) = option_of_path(ty).and_then(|path| names.container(path)) else {
        return found;
    };
    let fact = match enum_default(container) {
        Ok(value) => DefaultFact::Value(value),
        Err(why) => DefaultFact::Unread(format!("`{}` {why}", container.ident)),
    };
    FoundDefault { fact, ..found }
}

/// The path `X` of `Option<X>`.
fn option_of_path(ty: &syn::Type) -> Option<&syn::Path> {
    let syn::Type::Path(path) = ty else { return None };
    let last = path.path.segments.last().filter(|s| s.ident == "Option")?;
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else { return None };
    match args.args.first() {
        Some(syn::GenericArgument::Type(syn::Type::Path(inner))) if inner.qself.is_none() => {
            Some(&inner.path)
        }
        _ => None,
    }
}

/// `# Arguments` bullets naming no parameter warn, at their doc line, with the closest
/// parameter name when one is near. A bullet naming the context's binding is fine.
fn check_bullets(
    function: &syn::ItemFn,
    tool: &str,
    docs: &Docs,
    names: &[(String, Option<String>)],
    context_at: &[usize],
    report: &FileDiagnostics<'_>,
) {
    let context: Vec<String> = typed_inputs(function)
        .enumerate()
        .filter(|(position, _)| context_at.contains(position))
        .filter_map(|(_, input)| signature::binding_name(&input.pat))
        .collect();
    let wires: Vec<&str> = names.iter().map(|(wire, _)| wire.as_str()).collect();
    for bullet in &docs.params {
        if wires.contains(&bullet.name.as_str()) || context.contains(&bullet.name) {
            continue;
        }
        let hint = match toolcall_runtime::closest_name(&bullet.name, wires.iter().copied()) {
            Some(close) => format!("did you mean `{close}`?"),
            None if wires.is_empty() => "it takes none".to_owned(),
            None => format!("its parameters are {}", quoted_list(&wires)),
        };
        report.warn(
            bullet_span(function, &bullet.name),
            format!(
                "`# Arguments` of `{tool}` names `{}`, which is not one of its parameters; {hint}",
                bullet.name
            ),
        );
    }
}

/// `a`, `b` and `c`, each in backticks.
pub fn quoted_list(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => quoted.concat(),
    }
}

/// Where the bullet naming `name` is written: the `///` line whose list item starts with
/// it, else the first doc line, else the function's name.
fn bullet_span(function: &syn::ItemFn, name: &str) -> Span {
    let names_it = |line: &str| {
        let line = line.trim_start();
        let item = match line.strip_prefix(['*', '-', '+']) {
            Some(rest) => rest,
            None if line.starts_with(|c: char| c.is_ascii_digit()) => {
                line.trim_start_matches(|c: char| c.is_ascii_digit()).trim_start_matches(['.', ')'])
            }
            None => return false,
        };
        let item = item.trim_start().trim_start_matches('`').trim_start_matches("r#");
        item.starts_with(name) && !item[name.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
    };
    let docs = function.attrs.iter().filter(|a| a.path().is_ident("doc"));
    docs.clone()
        .find(|attr| match &attr.meta {
            syn::Meta::NameValue(nv) => matches!(
                &nv.value,
                syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(text), .. }) if text.value().lines().any(&names_it)
            ),
            _ => false,
        })
        .or_else(|| docs.clone().next())
        .map_or_else(|| function.sig.ident.span(), Spanned::span)
}

fn typed_inputs(function: &syn::ItemFn) -> impl Iterator<Item = &syn::PatType> {
    function.sig.inputs.iter().filter_map(|input| match input {
        syn::FnArg::Typed(typed) => Some(typed),
        syn::FnArg::Receiver(_) => None,
    })
}

/// Where the context and the progress handle go among a function's inputs, and the
/// model's parameters.
struct Inputs<'f> {
    context_at: Vec<usize>,
    progress_at: Vec<usize>,
    params: Vec<&'f syn::PatType>,
}

/// Why a function cannot be served: skipped with a warning, or an error (a signature
/// that is meant as a tool and cannot work).
enum Unservable {
    Skip(Span, String),
    Error(Span, String),
}

/// Splits the inputs into the context's and the progress handle's positions and the
/// model's parameters. A borrowed parameter that is neither of those, `&str` nor
/// `&serde_json::Value` cannot be served: `Err` with where and why, pointing at
/// `Builder::context`; `&mut Progress` is an error at the parameter.
fn split_context<'f>(
    function: &'f syn::ItemFn,
    parsed: &ParsedFile,
    context: Option<&ContextType>,
) -> Result<Inputs<'f>, Unservable> {
    let mut inputs = Inputs { context_at: Vec::new(), progress_at: Vec::new(), params: Vec::new() };
    for (position, input) in typed_inputs(function).enumerate() {
        match progress_use(&input.ty, &parsed.imports) {
            ContextUse::Shared => {
                inputs.progress_at.push(position);
                continue;
            }
            ContextUse::Mutable => {
                return Err(Unservable::Error(
                    input.ty.span(),
                    "takes `&mut Progress`; reporting needs no `mut`, take `&Progress`".to_owned(),
                ));
            }
            ContextUse::Owned => {
                return Err(Unservable::Error(
                    input.ty.span(),
                    "takes `Progress` by value; the caller lends it for the call, take `&Progress`"
                        .to_owned(),
                ));
            }
            ContextUse::No => {}
        }
        match context.map_or(ContextUse::No, |c| c.classify(&input.ty, &parsed.imports)) {
            ContextUse::Shared => inputs.context_at.push(position),
            ContextUse::Mutable => {
                return Err(Unservable::Error(
                    input.ty.span(),
                    "takes the context as `&mut`; calls share it, so take `&` and put what \
                     changes behind a lock"
                        .to_owned(),
                ));
            }
            ContextUse::Owned => {
                return Err(Unservable::Error(
                    input.ty.span(),
                    "takes the context by value; the caller lends it to every call, take it as `&`"
                        .to_owned(),
                ));
            }
            ContextUse::No => {
                if let Some(why) = unservable_borrow(&input.ty, parsed, context) {
                    return Err(Unservable::Skip(input.ty.span(), why));
                }
                inputs.params.push(input);
            }
        }
    }
    Ok(inputs)
}

/// Why a top-level `&T` parameter cannot be served, when it cannot: only `&str`,
/// `&serde_json::Value` and the context may be borrowed.
fn unservable_borrow(ty: &syn::Type, parsed: &ParsedFile, context: Option<&ContextType>) -> Option<String> {
    let syn::Type::Reference(reference) = ty else { return None };
    let elem = &reference.elem;
    if let syn::Type::Path(path) = elem.as_ref()
        && reference.mutability.is_none()
        && let Some(last) = path.path.segments.last()
    {
        let is_value = last.ident == "Value"
            && crate::parse::resolve(&parsed.imports, &path.path).starts_with("serde_json::");
        if last.ident == "str" || is_value {
            return None;
        }
    }
    let written = quote::quote!(#elem).to_string().replace(' ', "");
    let std_type = matches!(
        written.split('<').next().unwrap_or_default(),
        "String" | "Vec" | "Option" | "HashMap" | "BTreeMap" | "HashSet" | "BTreeSet" | "Box" | "[u8]"
    );
    let hint = match context {
        _ if std_type => format!("take it by value (`{written}`) if the model sends it"),
        None => format!(
            "if the model sends it, take it by value; if it is shared state such as a database \
             handle, declare a context in build.rs with \
             `toolcall_build::Builder::new().context(\"crate::{written}\")` and take it as `&{written}`"
        ),
        Some(context) => format!(
            "if the model sends it, take it by value; if it is shared state, put it in the crate's \
             context `{}` (declared with `Builder::context`) and take `&{}`",
            context.display(),
            context.display().rsplit("::").next().unwrap_or_default()
        ),
    };
    Some(format!(
        "parameter `&{written}` is borrowed, and only `&str`, `&serde_json::Value` and the context \
         can be; {hint}"
    ))
}

/// Wire names and binding names of every parameter. Unnamed patterns take the name of
/// the `# Arguments` bullet at their position, else `argN`, with a warning; a repeated
/// name becomes `name_2`, with a warning.
fn param_names(
    inputs: &[&syn::PatType],
    docs: &Docs,
    report: &FileDiagnostics<'_>,
) -> Vec<(String, Option<String>)> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for (index, input) in inputs.iter().enumerate() {
        let binding = signature::binding_name(&input.pat);
        let wire = match (&binding, docs.params.get(index)) {
            (Some(name), _) => name.clone(),
            (None, Some(bullet)) => {
                report.warn(
                    input.pat.span(),
                    format!(
                        "unnamed parameter {} takes the name `{}` from its `# Arguments` bullet",
                        index + 1,
                        bullet.name
                    ),
                );
                bullet.name.clone()
            }
            (None, None) => {
                let name = format!("arg{}", index + 1);
                report.warn(input.pat.span(), format!("unnamed parameter {} is called `{name}`; bind it to a name or document it in `# Arguments`", index + 1));
                name
            }
        };
        let wire = unique_name(wire, &mut seen, |old, new| {
            report.warn(input.pat.span(), format!("duplicate parameter name `{old}` is exposed as `{new}`"));
        });
        out.push((wire, binding));
    }
    out
}

fn unique_name(name: String, seen: &mut BTreeSet<String>, mut warn: impl FnMut(&str, &str)) -> String {
    if seen.insert(name.clone()) {
        return name;
    }
    let fresh = (2..).map(|n| format!("{name}_{n}")).find(|n| !seen.contains(n)).unwrap_or_default();
    warn(&name, &fresh);
    seen.insert(fresh.clone());
    fresh
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unique_names_get_suffixes() {
        let mut seen = BTreeSet::new();
        let mut warned = Vec::new();
        let a = unique_name("city".into(), &mut seen, |o, n| warned.push(format!("{o}->{n}")));
        let b = unique_name("city".into(), &mut seen, |o, n| warned.push(format!("{o}->{n}")));
        assert_eq!((a.as_str(), b.as_str()), ("city", "city_2"));
        assert_eq!(warned, vec!["city->city_2"]);
    }
}
