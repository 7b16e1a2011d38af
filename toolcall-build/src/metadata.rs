//! Tool metadata applied: a file's `TOOLS` entries (read by `parse::metadata`) checked
//! against its lowered tools and written into them. A renamed tool takes its wire name
//! everywhere the IR name goes (definitions, dispatch, `names()`, export, the duplicate
//! check); title, annotations and examples go where each format has a place for them; the
//! time limit and the OAuth scopes go to `ToolInfo` only (never into a definition).
//! Examples are checked by the tool's own decoder, scopes against RFC 6749's grammar.

use proc_macro2::Span;
use serde_json::Value;
use toolcall_runtime::ToolError;

use crate::ast::metadata::{TOOLS_CONST, ToolMetaEntry};
use crate::ast::signature::{is_candidate, tool_name};
use crate::ast::tool::ToolFile;
use crate::ast::tool::not_a_function;
use crate::check::is_provider_safe;
use crate::diagnostics::{Diagnostics, FileDiagnostics};
use crate::model::{ToolDef, ToolModule};
use crate::parse::ParsedFile;

/// Applies the `TOOLS` entries of the file (`read.metadata`, as the ast read them) to
/// `module`'s lowered tools.
pub fn apply(parsed: &ParsedFile, read: &ToolFile, module: &mut ToolModule, diags: &Diagnostics) {
    let report = diags.in_file(&parsed.file);
    module.tools_const = read.metadata_visible;
    for entry in read.metadata.iter().cloned() {
        match module.tools.iter_mut().find(|tool| function_name(tool) == entry.function) {
            Some(tool) => apply_entry(tool, entry, &report),
            None => no_such_tool(parsed, &entry, &report),
        }
    }
}

/// An entry whose function is not a tool: a warning when the function is one the build
/// skipped (its own warning says why), else an error at the entry with the closest tool
/// name, since a typo would drop what it sets (an annotation, a time limit) unseen.
fn no_such_tool(parsed: &ParsedFile, entry: &ToolMetaEntry, report: &FileDiagnostics<'_>) {
    let function = entry.function.as_str();
    let functions = parsed.ast.items.iter().filter_map(|item| match item {
        syn::Item::Fn(f) => Some(f),
        _ => None,
    });
    let candidates: Vec<String> = functions.clone().filter(|f| is_candidate(f)).map(tool_name).collect();
    if candidates.iter().any(|name| name == function) {
        let message = format!(
            "`{TOOLS_CONST}` entry for `{function}` applies to nothing: `{function}` is not a tool (its \
             warning says why)"
        );
        report.warn(entry.span, message);
    } else if functions.clone().any(|f| tool_name(f) == function) {
        let message = format!(
            "`{TOOLS_CONST}` names `{function}`, which is not a tool: only `pub` and `pub(crate)` \
             functions without `#[doc(hidden)]` are"
        );
        report.error(entry.span, message);
    } else {
        let names: Vec<&str> = candidates.iter().map(String::as_str).collect();
        report.error(entry.span, not_a_function(TOOLS_CONST, function, &names));
    }
}

/// The Rust name of a tool's function (`r#type` is `type`).
fn function_name(tool: &ToolDef) -> String {
    tool.ident.to_string().trim_start_matches("r#").to_owned()
}

fn apply_entry(tool: &mut ToolDef, entry: ToolMetaEntry, report: &FileDiagnostics<'_>) {
    if let Some((name, span)) = entry.name {
        if is_provider_safe(&name) {
            tool.ir.name = name;
        } else {
            let message = format!(
                "`{TOOLS_CONST}`: tool name `{name}` must match ^[a-zA-Z0-9_-]{{1,64}}$, the rule every provider shares"
            );
            report.error(span, message);
        }
    }
    tool.ir.title = entry.title.unwrap_or_default();
    tool.ir.annotations = entry.annotations;
    tool.timeout_ms = entry.timeout_ms;
    if let Some((policy, span)) = entry.task {
        if policy.at_detach && tool.progress_at.is_empty() {
            let message = format!(
                "`{TOOLS_CONST}`: `{}` is `task_from_detach` but takes no `&Progress`, so it cannot call \
                 `progress.detach()` and its task would never start; add a `progress: &Progress` parameter \
                 or use `.task()`",
                tool.ir.name
            );
            report.error(span, message);
        }
        tool.task = Some(policy);
    }
    tool.scopes = checked_scopes(&tool.ir.name, entry.scopes.unwrap_or_default(), report);
    for (json, span) in entry.examples {
        match checked_example(&tool.ir, &json) {
            Ok(example) => tool.ir.examples.push(example),
            Err(why) => report.error(span, format!("`{TOOLS_CONST}`: example for `{}` {why}", tool.ir.name)),
        }
    }
    for (src, mime_type, span) in entry.icons {
        let uri = src.starts_with("https://") || src.starts_with("http://") || src.starts_with("data:");
        if uri && mime_type.contains('/') {
            tool.ir.icons.push(toolcall_runtime::ir::Icon { src, mime_type });
        } else {
            let message = format!(
                "`{TOOLS_CONST}`: icon of `{}` needs an http(s) or data: URI and a MIME type (`image/png`), got `{src}` and `{mime_type}`",
                tool.ir.name
            );
            report.error(span, message);
        }
    }
    for (key, json, span) in entry.meta {
        match serde_json::from_str::<Value>(&json) {
            Ok(value) if !key.is_empty() => {
                tool.ir.meta.insert(key, value);
            }
            Ok(_) => {
                report.error(span, format!("`{TOOLS_CONST}`: a `meta` key of `{}` is empty", tool.ir.name))
            }
            Err(why) => report.error(
                span,
                format!("`{TOOLS_CONST}`: `meta` value `{key}` of `{}` is not JSON: {why}", tool.ir.name),
            ),
        }
    }
}

/// The scopes of tool `name` that are scope tokens (RFC 6749 §3.3: `1*( %x21 / %x23-5B /
/// %x5D-7E )`, printable ASCII but space, `"` and `\`), each once; an error at each that
/// is not (empty, with another character, or listed before).
fn checked_scopes(name: &str, scopes: Vec<(String, Span)>, report: &FileDiagnostics<'_>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(scopes.len());
    for (scope, span) in scopes {
        let problem = if scope.is_empty() {
            Some(format!("a scope of `{name}` is empty"))
        } else if let Some(c) = scope.chars().find(|&c| !is_scope_char(c)) {
            let what = if c == ' ' { "a space".to_owned() } else { format!("{c:?}") };
            Some(format!(
                "scope `{}` of `{name}` has {what}, which RFC 6749 §3.3 does not allow in a scope \
                 (printable ASCII but space, `\"` and `\\`; one scope per string)",
                scope.escape_debug()
            ))
        } else if out.contains(&scope) {
            Some(format!("scope `{}` of `{name}` is listed twice", scope.escape_debug()))
        } else {
            None
        };
        match problem {
            Some(problem) => report.error(span, format!("`{TOOLS_CONST}`: {problem}")),
            None => out.push(scope),
        }
    }
    out
}

/// Whether `c` may stand in a scope token: `%x21 / %x23-5B / %x5D-7E`.
fn is_scope_char(c: char) -> bool {
    matches!(c, '\x21' | '\x23'..='\x5B' | '\x5D'..='\x7E')
}

/// `json` parsed, when the tool's decoder accepts it as arguments.
fn checked_example(tool: &toolcall_runtime::ir::Tool, json: &str) -> Result<Value, String> {
    let value =
        toolcall_runtime::__private::parse_arguments(json.as_bytes()).map_err(|error| match error {
            ToolError::InvalidJson(why) => format!("is not JSON: {why}"),
            other => format!("is refused: {other}"),
        })?;
    match toolcall_runtime::__private::decode_arguments(tool, &value) {
        Ok(_) => Ok(value),
        Err(error) => Err(format!("is refused by the tool's decoder: {error}")),
    }
}
