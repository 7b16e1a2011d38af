//! Lowering: parsed files -> the model (IR tools plus decoding facts).
//!
//! This is where the rules of "Writing tools" meet: which functions are tools, how each
//! parameter is named, described, typed and defaulted, and which overrides apply.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use syn::spanned::Spanned;
use toolcall_runtime::ir::{Param, Tool, Type};

use crate::context::{ContextType, ContextUse};
use crate::diagnostics::Diagnostics;
use crate::model::{Decode, ParamDecode, ToolDef, ToolModule};
use crate::parse::defaults::{DefaultFact, leading_defaults};
use crate::parse::docs::{Docs, doc_text, parse_docs};
use crate::parse::overrides::{CONST_NAME, Override, read_overrides};
use crate::parse::{ParsedFile, signature};
use crate::provider::TypeProvider;
use crate::types::{Mapped, OutputMapper, TypeMapper};

/// Where lowering reports: the file's warnings go straight into the shared context.
struct Report<'d> {
    file: &'d std::path::Path,
    diags: &'d Diagnostics,
}

impl Report<'_> {
    fn warn(&self, span: proc_macro2::Span, message: String) {
        self.diags.warn(self.file, span, message);
    }
}

/// Lowers one parsed file into a tool module. `context` is the crate's declared context
/// type, if any.
pub fn lower_file(
    parsed: &ParsedFile,
    providers: &[Box<dyn TypeProvider + Send + Sync>],
    context: Option<&ContextType>,
    diags: &Diagnostics,
) -> ToolModule {
    let overrides = file_overrides(parsed, diags);
    let mut impls = BTreeMap::new();
    let mut tools = Vec::new();
    {
        let mut mapper = TypeMapper::new(parsed, providers, diags, &mut impls);
        let report = Report { file: &parsed.file, diags };
        for item in &parsed.ast.items {
            let syn::Item::Fn(function) = item else { continue };
            if signature::is_candidate(function)
                && let Some(tool) =
                    lower_fn(function, parsed, &overrides, context, providers, &mut mapper, &report)
            {
                tools.push(tool);
            }
        }
    }
    check_override_targets(parsed, &overrides, &tools, diags);
    ToolModule {
        path: parsed.module.clone(),
        file: parsed.file.clone(),
        tools,
        impls: impls.into_values().collect(),
        overrides_const: overrides_visible(parsed),
    }
}

fn file_overrides(parsed: &ParsedFile, diags: &Diagnostics) -> Vec<Override> {
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

/// Overrides naming a function that is not a tool, or a parameter it does not have, warn.
fn check_override_targets(
    parsed: &ParsedFile,
    overrides: &[Override],
    tools: &[ToolDef],
    diags: &Diagnostics,
) {
    for entry in overrides {
        let message = match tools.iter().find(|t| t.ir.name == entry.function) {
            None => format!("`{CONST_NAME}` names `{}`, which is not a tool in this file", entry.function),
            Some(tool) if !tool.ir.params.iter().any(|p| p.name == entry.param) => {
                format!("`{CONST_NAME}`: tool `{}` has no parameter `{}`", entry.function, entry.param)
            }
            Some(_) => continue,
        };
        diags.warn(&parsed.file, entry.span, message);
    }
}

/// Lowers one candidate function; `None` (with a warning) when it cannot be served.
fn lower_fn(
    function: &syn::ItemFn,
    parsed: &ParsedFile,
    overrides: &[Override],
    context: Option<&ContextType>,
    providers: &[Box<dyn TypeProvider + Send + Sync>],
    mapper: &mut TypeMapper<'_>,
    report: &Report<'_>,
) -> Option<ToolDef> {
    let name = signature::tool_name(function);
    let skip = |span: proc_macro2::Span, why: String| {
        report.warn(span, format!("`{name}` is not a tool: {why}"));
        None
    };
    if let Some(why) = signature::unsupported_reason(&function.sig) {
        return skip(function.sig.ident.span(), why);
    }
    let Inputs { context_at, params: inputs } = match split_context(function, parsed, context) {
        Ok(split) => split,
        Err((span, why)) => return skip(span, why),
    };
    let docs = parse_docs(&doc_text(&function.attrs));
    let defaults = leading_defaults(&function.block, &parsed.consts);
    let names = param_names(&inputs, &docs, report);
    let mut tool = Tool::new(&name).description(docs.description.clone());
    let mut decodes = Vec::new();
    for (input, (wire, binding)) in inputs.into_iter().zip(names) {
        let mapped = match mapper.slot(&input.ty, input.ty.span()) {
            Ok(mapped) => mapped,
            Err(why) => return skip(input.ty.span(), format!("parameter `{wire}`: {why}")),
        };
        let entry = overrides.iter().find(|o| o.function == name && o.param == wire);
        let (param, decode) =
            lower_param(&wire, mapped, &docs, entry, binding.and_then(|b| defaults.get(&b)), report, input);
        tool.params.push(param);
        decodes.push(ParamDecode { name: wire, span: input.span(), decode });
    }
    tool = with_output(tool, function, parsed, providers, report);
    Some(ToolDef {
        ir: tool,
        ident: function.sig.ident.clone(),
        span: function.sig.ident.span(),
        params: decodes,
        returns: signature::returns(&function.sig),
        is_async: function.sig.asyncness.is_some(),
        context_at,
    })
}

/// The tool with its output schema, when its success type serializes to an object; a
/// located warning when the type cannot be described at all.
fn with_output(
    tool: Tool,
    function: &syn::ItemFn,
    parsed: &ParsedFile,
    providers: &[Box<dyn TypeProvider + Send + Sync>],
    report: &Report<'_>,
) -> Tool {
    let Some(success) = signature::success_type(&function.sig) else { return tool };
    match OutputMapper::new(parsed, providers).result(success) {
        Ok(ty) => tool.output(ty),
        Err(why) => {
            let name = tool.name.clone();
            report.warn(success.span(), format!("`{name}` has no output schema: {why}"));
            tool
        }
    }
}

fn typed_inputs(function: &syn::ItemFn) -> impl Iterator<Item = &syn::PatType> {
    function.sig.inputs.iter().filter_map(|input| match input {
        syn::FnArg::Typed(typed) => Some(typed),
        syn::FnArg::Receiver(_) => None,
    })
}

/// Where the context goes among a function's inputs, and the model's parameters.
struct Inputs<'f> {
    context_at: Vec<usize>,
    params: Vec<&'f syn::PatType>,
}

/// Splits the inputs into the context's positions and the model's parameters. A borrowed
/// parameter that is neither the context, `&str` nor `&serde_json::Value` cannot be
/// served: `Err` with where and why, pointing at `Builder::context`.
fn split_context<'f>(
    function: &'f syn::ItemFn,
    parsed: &ParsedFile,
    context: Option<&ContextType>,
) -> Result<Inputs<'f>, (proc_macro2::Span, String)> {
    let mut context_at = Vec::new();
    let mut params = Vec::new();
    for (position, input) in typed_inputs(function).enumerate() {
        match context.map_or(ContextUse::No, |c| c.classify(&input.ty, &parsed.imports)) {
            ContextUse::Shared => context_at.push(position),
            ContextUse::Mutable => {
                return Err((
                    input.ty.span(),
                    "it takes the context as `&mut`; calls share it, so take `&` and put what \
                     changes behind a lock"
                        .to_owned(),
                ));
            }
            ContextUse::No => {
                if let Some(why) = unservable_borrow(&input.ty, parsed, context) {
                    return Err((input.ty.span(), why));
                }
                params.push(input);
            }
        }
    }
    Ok(Inputs { context_at, params })
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
        let first = path.path.segments.first().map(|s| s.ident.to_string()).unwrap_or_default();
        let root = parsed.imports.get(&first).cloned().unwrap_or(first);
        let is_value = last.ident == "Value" && root.starts_with("serde_json");
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
fn param_names(inputs: &[&syn::PatType], docs: &Docs, report: &Report<'_>) -> Vec<(String, Option<String>)> {
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

/// Builds one parameter: description precedence override > bullet > type doc; default
/// from the body; the string-integer wire when overridden.
fn lower_param(
    wire: &str,
    mapped: Mapped,
    docs: &Docs,
    entry: Option<&Override>,
    default: Option<&DefaultFact>,
    report: &Report<'_>,
    input: &syn::PatType,
) -> (Param, Decode) {
    let bullet = docs.params.iter().find(|p| p.name == wire).map(|p| p.text.clone());
    let description = match (entry.and_then(|e| e.description.clone()), bullet) {
        (Some(text), _) => text,
        (None, Some(text)) if !text.is_empty() => text,
        _ => mapped.type_doc.clone(),
    };
    let mut ty = mapped.ty;
    let mut decode = mapped.decode;
    if entry.is_some_and(|e| e.string_integer) {
        match (&mut ty, mapped.integer) {
            (Type::Integer { as_string, .. }, true) => {
                *as_string = true;
                decode = Decode::StringInteger { optional: mapped.optional };
            }
            _ => report.warn(
                input.ty.span(),
                format!("`string_integer` applies to integer parameters; `{wire}` is not one"),
            ),
        }
    }
    let mut param = Param::new(wire, ty).description(description);
    param.optional = mapped.optional;
    if mapped.optional {
        param.default = default.and_then(|fact| default_value(fact, &param.ty, wire, report, input));
    }
    (param, decode)
}

/// The JSON default for `fact`, checked against the parameter's value domain.
fn default_value(
    fact: &DefaultFact,
    ty: &Type,
    wire: &str,
    report: &Report<'_>,
    input: &syn::PatType,
) -> Option<Value> {
    let value = match fact {
        DefaultFact::Value(value) => value.clone(),
        DefaultFact::TypeDefault => type_default(ty)?,
        DefaultFact::Unknown => return None,
    };
    if fits(&value, ty) {
        Some(value)
    } else {
        report.warn(
            input.ty.span(),
            format!(
                "default {value} of `{wire}` is not a valid value of its type; it is not sent to the model"
            ),
        );
        None
    }
}

/// `Default::default()` of primitives and strings, as JSON.
fn type_default(ty: &Type) -> Option<Value> {
    match ty {
        Type::Integer { as_string: true, .. } => Some(Value::from("0")),
        Type::Integer { .. } => Some(Value::from(0)),
        Type::Number { .. } => Some(Value::from(0.0)),
        Type::Boolean => Some(Value::Bool(false)),
        Type::String { min_length: None, .. } => Some(Value::from("")),
        _ => None,
    }
}

/// Whether a default belongs to the type's value domain.
fn fits(value: &Value, ty: &Type) -> bool {
    match (ty, value) {
        (Type::Integer { as_string: true, .. }, Value::String(_)) => true,
        (Type::Integer { minimum, maximum, .. }, Value::Number(n)) => {
            n.as_i64().is_some_and(|i| minimum.is_none_or(|m| i >= m) && maximum.is_none_or(|m| i <= m))
                || (n.as_u64().is_some() && maximum.is_none())
        }
        (Type::Number { .. }, Value::Number(_)) => true,
        (Type::Boolean, Value::Bool(_)) => true,
        (Type::String { min_length, max_length, .. }, Value::String(s)) => {
            let len = s.chars().count() as u64;
            min_length.is_none_or(|m| len >= m) && max_length.is_none_or(|m| len <= m)
        }
        (Type::Enum(variants), Value::String(s)) => variants.iter().any(|v| &v.value == s),
        (Type::Nullable(inner), value) => value.is_null() || fits(value, inner),
        (Type::Described(inner, _), value) => fits(value, inner),
        (Type::Any, _) => true,
        _ => false,
    }
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

    #[test]
    fn defaults_outside_the_domain_do_not_fit() {
        assert!(fits(&Value::from(3), &Type::integer_between(0, 255)));
        assert!(!fits(&Value::from(300), &Type::integer_between(0, 255)));
        assert!(!fits(&Value::from("x"), &Type::integer()));
        assert!(fits(&Value::from("red"), &Type::enumeration(["red", "green"])));
        assert!(!fits(&Value::from("blue"), &Type::enumeration(["red", "green"])));
    }
}
