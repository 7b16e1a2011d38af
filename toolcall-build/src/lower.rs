//! Lowering: the ast's tool records -> the model (IR tools plus decoding facts).
//!
//! A pure reader of the ast: each parameter's type is mapped to its schema and decoder,
//! its description picked (override > bullet > type doc), its default checked against the
//! type, its HTTP header checked ([`crate::header`]), and the result's output schema
//! built. Nothing here reads the source again.

use std::collections::BTreeMap;

use serde_json::Value;
use toolcall_runtime::ir::{Param, Tool, Type};

use crate::ast::defaults::{DefaultFact, FoundDefault};
use crate::ast::overrides::{CONST_NAME, ParamOverride};
use crate::ast::tool::{Param as ParamAst, ToolFile, ToolFn, quoted_list};
use crate::diagnostics::{Diagnostics, FileDiagnostics, Level};
use crate::model::LocalImpl;
use crate::model::{self, Decode, ToolDef, ToolModule};
use crate::parse::ParsedFile;
use crate::provider::TypeProvider;
use crate::tree::CrateTree;
use crate::types::{Mapped, TypeMapper};

/// What every file is lowered against: the crate's types and the type providers.
pub struct Crate<'c> {
    /// The crate's module tree, every type in it resolved.
    pub tree: &'c CrateTree,
    /// The module path of the directory's root (`["tools"]`).
    pub root: &'c [String],
    /// What the directory's functions are served as.
    pub kind: model::Kind,
    /// The build script's type providers.
    pub providers: &'c [Box<dyn TypeProvider + Send + Sync>],
    /// The features of the crate's toolcall-runtime, when known (see
    /// [`crate::Builder::compile`]).
    pub runtime_features: Option<&'c std::collections::BTreeSet<String>>,
}

/// Lowers one file's tools into a tool module, adding the `FromArg` impls its types need
/// to `impls` (one table for the crate: a type used by two files gets one impl). A tool
/// or parameter without any description is reported at `missing_docs` (a warning, or an
/// error when the crate denies missing docs).
pub fn lower_file(
    parsed: &ParsedFile,
    read: &ToolFile,
    krate: &Crate<'_>,
    impls: &mut BTreeMap<String, LocalImpl>,
    missing_docs: Level,
    diags: &Diagnostics,
) -> ToolModule {
    let mut tools = Vec::new();
    let module: Vec<String> = krate.root.iter().chain(&parsed.module).cloned().collect();
    {
        let mut mapper = TypeMapper::new(parsed, (krate.tree, &module), krate.providers, diags, impls)
            .with_runtime_features(krate.runtime_features);
        let report = diags.in_file(&parsed.file);
        for function in &read.tools {
            if let Some((tool, bare)) = lower_fn(function, krate.kind, &mut mapper, &report) {
                check_descriptions(function, &tool.ir, &bare, missing_docs, &report);
                tools.push(tool);
            }
        }
        mapper.mark_fast_impls();
    }
    check_override_targets(parsed, &read.overrides, &tools, diags);
    let mut lowered = ToolModule {
        kind: krate.kind,
        path: parsed.module.clone(),
        file: parsed.file.clone(),
        tools,
        overrides_const: read.overrides_visible,
        tools_const: false,
        resources: Vec::new(),
        resources_const: false,
    };
    // `TOOL_PARAMS` went into the parameters above; `TOOLS` goes into the tools here.
    crate::metadata::apply(parsed, read, &mut lowered, diags);
    // Every schema text is rendered once, here: the checks and codegen read these.
    lowered.tools = lowered.tools.into_iter().map(rendered).collect();
    lowered
}

/// Overrides naming a function that is not a tool, or a parameter it does not have, warn.
fn check_override_targets(
    parsed: &ParsedFile,
    overrides: &[ParamOverride],
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

/// A tool without a description, and the parameters of one without any (no override,
/// bullet or type doc), are one diagnostic each at the tool's name. An override that sets
/// an empty description says "none" on purpose.
fn check_descriptions(
    function: &ToolFn,
    tool: &Tool,
    bare: &[String],
    level: Level,
    report: &FileDiagnostics<'_>,
) {
    let denied = if level == Level::Error { " (`Builder::deny_missing_docs`)" } else { "" };
    let name = &tool.name;
    if tool.description.trim().is_empty() {
        let message = format!(
            "tool `{name}` has no description{denied}: models choose tools by it; add a `///` doc comment \
             whose first paragraph says what it does"
        );
        report.emit(level, function.ident.span(), message);
    }
    let bare: Vec<&str> = bare.iter().map(String::as_str).collect();
    let (what, first) = match bare.as_slice() {
        [] => return,
        [one] => (format!("parameter `{one}` of `{name}` has no description{denied}; add a bullet"), *one),
        [first, ..] => (
            format!(
                "parameters {} of `{name}` have no description{denied}; add a bullet for each",
                quoted_list(&bare)
            ),
            *first,
        ),
    };
    let message = format!("{what} under `# Arguments` in the doc comment (`* `{first}` - what it is`)");
    report.emit(level, function.ident.span(), message);
}

/// Lowers one tool; `None` (with a warning) when a parameter type cannot be served.
/// Lowers one tool, with the wire names of its parameters that have no description at
/// all (none from an override, a bullet or a type's doc).
fn lower_fn(
    function: &ToolFn,
    kind: model::Kind,
    mapper: &mut TypeMapper<'_>,
    report: &FileDiagnostics<'_>,
) -> Option<(ToolDef, Vec<String>)> {
    let name = &function.name;
    let mut tool = Tool::new(name).description(function.description.clone());
    let mut decodes = Vec::new();
    let mut bare = Vec::new();
    let mut headers = Vec::new();
    for param in &function.params {
        let ty = mapper.resolve(&param.ty);
        let mapped = match mapper.slot(&ty, param.ty_span) {
            Ok(mapped) => mapped,
            Err(why) => {
                let message = format!("`{name}` is not a tool: parameter `{}`: {why}", param.wire);
                report.warn(param.ty_span, message);
                return None;
            }
        };
        let (ir, decode, bounded) = lower_param(param, mapped, report);
        // An override that sets an empty description says "none" on purpose.
        if ir.description.trim().is_empty() && param.over.as_ref().is_none_or(|o| o.description.is_none()) {
            bare.push(ir.name.clone());
        }
        let bounds = bounded.then(|| ir.ty.clone());
        // A range is checked on the `Value` before decoding: only the exact decoder does.
        let fast = !bounded && decode == Decode::FromArg && mapper.is_fast(&ty);
        if let Some(over) = param.over.as_ref().and_then(|o| o.header.as_ref())
            && let Some(header) = crate::header::checked(over, &ir, name, kind, &headers, report)
        {
            headers.push(header);
        }
        tool.params.push(ir);
        decodes.push(model::Param { name: param.wire.clone(), span: param.span, decode, bounds, fast });
    }
    tool.defs = mapper.definitions(&tool.params);
    let returns_content = function.success.as_ref().is_some_and(|success| mapper.returns_content(success));
    let value_kind = function
        .success
        .as_ref()
        .map_or(toolcall_runtime::ResourceKind::Json, |success| mapper.value_kind(success));
    if kind == model::Kind::Prompt {
        check_prompt_value(function, value_kind, mapper, report);
    }
    // A prompt's or resource's value is messages or contents, never a tool's output.
    if !returns_content && kind == model::Kind::Tool {
        tool = with_output(tool, function, mapper, report);
    }
    let def = ToolDef {
        ir: tool,
        ident: function.ident.clone(),
        span: function.ident.span(),
        params: decodes,
        returns: function.returns,
        is_async: function.is_async,
        context_at: function.context_at.clone(),
        progress_at: function.progress_at.clone(),
        returns_content,
        timeout_ms: None,
        task: None,
        scopes: Vec::new(),
        value_kind,
        texts: model::Texts::default(),
        headers,
    };
    Some((def, bare))
}

/// A prompt function must give messages: its text (one user message), `Content`, a
/// `Message`, or a list of them; anything else is an error at its return type.
fn check_prompt_value(
    function: &ToolFn,
    kind: toolcall_runtime::ResourceKind,
    mapper: &mut TypeMapper<'_>,
    report: &FileDiagnostics<'_>,
) {
    use toolcall_runtime::ResourceKind;
    let Some(success) = &function.success else {
        let message =
            format!("prompt `{}` returns nothing; a prompt returns its text or its messages", function.name);
        report.error(function.ident.span(), message);
        return;
    };
    if matches!(kind, ResourceKind::Text | ResourceKind::Content) || mapper.returns_messages(success) {
        return;
    }
    let span = syn::spanned::Spanned::span(success);
    let message = format!(
        "prompt `{}` returns `{}`; a prompt returns its text (`String`), `toolcall_runtime::Message`, \
         `Content`, or a `Vec` of them",
        function.name,
        quote::ToTokens::to_token_stream(success).to_string().replace(' ', "")
    );
    report.error(span, message);
}

/// The tool with its output schema, whatever shape its success type serializes to (an
/// object, an array, a number, a string, a union; `Tool::output` leaves out `{}` and
/// `null`, which say nothing); a located warning when the type cannot be described at
/// all. Only MCP 2026-07-28 takes a schema other than an object's: the emitted MCP
/// definitions carry object schemas alone (`Tool::object_output`), and `ToolInfo::output`
/// every one.
fn with_output(
    tool: Tool,
    function: &ToolFn,
    mapper: &mut TypeMapper<'_>,
    report: &FileDiagnostics<'_>,
) -> Tool {
    let Some(success) = &function.success else { return tool };
    match mapper.output(success) {
        Ok(ty) => tool.output(ty),
        Err(why) => {
            let span = syn::spanned::Spanned::span(success);
            report.warn(span, format!("`{}` has no output schema: {why}", function.name));
            tool
        }
    }
}

/// Builds one parameter: description precedence override > bullet > type doc; default
/// from the body; the string-integer wire and ranges when overridden (`true`: a range
/// the decoder must check).
fn lower_param(param: &ParamAst, mapped: Mapped, report: &FileDiagnostics<'_>) -> (Param, Decode, bool) {
    let wire = param.wire.as_str();
    let entry = param.over.as_ref();
    let description = match (entry.and_then(|e| e.description.clone()), param.bullet.clone()) {
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
                param.ty_span,
                format!("`string_integer` applies to integer parameters; `{wire}` is not one"),
            ),
        }
    }
    let bounded = entry.is_some_and(|e| apply_bounds(&mut ty, e, wire, report));
    let mut ir = Param::new(wire, ty).description(description);
    ir.optional = mapped.optional;
    if mapped.optional {
        ir.default = param.default.as_ref().and_then(|found| default_value(found, &ir.ty, wire, report));
    }
    (ir, decode, bounded)
}

/// Narrows `ty` by the override's `range`/`min`/`max` (numbers) and `length` (strings,
/// arrays); `true` when it did. A bound outside the Rust type's own range, `min > max`, or
/// a bound on a type it does not apply to is an error at the override.
fn apply_bounds(ty: &mut Type, entry: &ParamOverride, wire: &str, report: &FileDiagnostics<'_>) -> bool {
    let span = entry.span;
    let range = entry.minimum.is_some() || entry.maximum.is_some();
    let mut applied = false;
    if range {
        if let (Some(min), Some(max)) = (entry.minimum, entry.maximum)
            && min > max
        {
            report.error(span, format!("`{CONST_NAME}`: range {min}..={max} of `{wire}` is empty"));
            return false;
        }
        match ty {
            Type::Integer { minimum, maximum, width, .. } => {
                let (low, high) = width.map_or((i128::MIN, i128::MAX), toolcall_runtime::ir::Width::range);
                let outside = [entry.minimum, entry.maximum]
                    .into_iter()
                    .flatten()
                    .find(|bound| !(low..=high).contains(&i128::from(*bound)));
                if let Some(bound) = outside {
                    let message = format!(
                        "`{CONST_NAME}`: bound {bound} of `{wire}` is outside what its Rust type holds ({low} to {high})"
                    );
                    report.error(span, message);
                    return false;
                }
                *minimum = entry.minimum.or(*minimum);
                *maximum = entry.maximum.or(*maximum);
                applied = true;
            }
            Type::Number { minimum, maximum } => {
                *minimum = entry.minimum.map(|m| m as f64).or(*minimum);
                *maximum = entry.maximum.map(|m| m as f64).or(*maximum);
                applied = true;
            }
            _ => report.error(
                span,
                format!("`{CONST_NAME}`: `range`, `min` and `max` apply to numbers; `{wire}` is not one"),
            ),
        }
    }
    if let Some((min, max)) = entry.length {
        if min > max {
            report.error(span, format!("`{CONST_NAME}`: length {min}..={max} of `{wire}` is empty"));
            return applied;
        }
        match ty {
            Type::String { min_length, max_length, .. } => {
                (*min_length, *max_length) = (Some(min), Some(max));
                applied = true;
            }
            Type::Array { min_items, max_items, .. } if min_items.is_none() && max_items.is_none() => {
                (*min_items, *max_items) = (Some(min), Some(max));
                applied = true;
            }
            Type::Array { .. } => report.error(
                span,
                format!("`{CONST_NAME}`: `{wire}` is a fixed-size array; its length is its type's"),
            ),
            _ => report.error(
                span,
                format!("`{CONST_NAME}`: `length` applies to strings and arrays; `{wire}` is neither"),
            ),
        }
    }
    applied
}

/// The JSON default the body applies, checked against the parameter's value domain; a
/// default the body applies but the build cannot read is a warning where it is applied.
fn default_value(found: &FoundDefault, ty: &Type, wire: &str, report: &FileDiagnostics<'_>) -> Option<Value> {
    let unread = |why: &str| {
        report.warn(found.span, format!("default of `{wire}` not read, so the schema shows none: {why}"));
        None
    };
    let value = match &found.fact {
        DefaultFact::Value(value) => value.clone(),
        DefaultFact::TypeDefault => match type_default(ty) {
            Some(value) => value,
            None => return unread("the build does not know the default of its type"),
        },
        DefaultFact::Computed => return None,
        DefaultFact::Unread(why) => return unread(why),
    };
    if fits(&value, ty) {
        Some(value)
    } else {
        report.warn(
            found.span,
            format!(
                "default {value} of `{wire}` is not a valid value of its type; it is not sent to the model"
            ),
        );
        None
    }
}

/// `Default::default()` of primitives, plain strings and collections, as JSON.
fn type_default(ty: &Type) -> Option<Value> {
    match ty {
        Type::Integer { as_string: true, .. } => Some(Value::from("0")),
        Type::Integer { .. } => Some(Value::from(0)),
        Type::Number { .. } => Some(Value::from(0.0)),
        Type::Boolean => Some(Value::Bool(false)),
        Type::String { min_length: None, format: None, pattern: None, .. } => Some(Value::from("")),
        Type::Array { min_items: None | Some(0), .. } => Some(Value::Array(Vec::new())),
        Type::Map(_) => Some(Value::Object(serde_json::Map::new())),
        Type::Described(inner, _) => type_default(inner),
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
        (Type::Array { min_items, .. }, Value::Array(items)) => {
            items.is_empty() && min_items.is_none_or(|m| m == 0)
        }
        (Type::Map(_), Value::Object(map)) => map.is_empty(),
        (Type::Nullable(inner), value) => value.is_null() || fits(value, inner),
        (Type::Described(inner, _), value) => fits(value, inner),
        (Type::Any, _) => true,
        _ => false,
    }
}

/// `tool` with its texts rendered from its IR (what lowering does last), its plain input
/// schema annotated with its parameter headers (`crate::header`).
pub(crate) fn rendered(mut tool: ToolDef) -> ToolDef {
    tool.texts = model::Texts::of(&tool.ir);
    if !tool.headers.is_empty() {
        tool.texts.parameters = crate::header::annotate(&tool.texts.parameters, &tool.headers);
    }
    tool
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_outside_the_domain_do_not_fit() {
        assert!(fits(&Value::from(3), &Type::integer_between(0, 255)));
        assert!(!fits(&Value::from(300), &Type::integer_between(0, 255)));
        assert!(!fits(&Value::from("x"), &Type::integer()));
        assert!(fits(&Value::from("red"), &Type::enumeration(["red", "green"])));
        assert!(!fits(&Value::from("blue"), &Type::enumeration(["red", "green"])));
    }
}
