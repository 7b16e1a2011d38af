//! Tool metadata applied: a file's `TOOLS` entries (read by `parse::metadata`) checked
//! against its lowered tools and written into them. A renamed tool takes its wire name
//! everywhere the IR name goes (definitions, dispatch, `names()`, export, the duplicate
//! check); title, annotations and examples go where each format has a place for them; the
//! time limit goes to `ToolInfo`. Examples are checked by the tool's own decoder.

use serde_json::Value;
use toolcall_runtime::ToolError;

use crate::check::is_provider_safe;
use crate::diagnostics::{Diagnostics, FileDiagnostics};
use crate::model::{ToolDef, ToolModule};
use crate::parse::ParsedFile;
use crate::parse::metadata::{TOOLS_CONST, ToolMetaEntry, read_tool_meta};

/// Applies the `TOOLS` const of `parsed`, if it has one, to `module`'s tools.
pub fn apply(parsed: &ParsedFile, module: &mut ToolModule, diags: &Diagnostics) {
    let Some(item) = parsed.consts.get(TOOLS_CONST) else { return };
    let report = diags.in_file(&parsed.file);
    module.tools_const = !matches!(item.vis, syn::Visibility::Inherited);
    if !module.tools_const {
        let message = format!(
            "make `{TOOLS_CONST}` `pub(crate)` so generated code references it and the compiler checks it"
        );
        report.warn(syn::spanned::Spanned::span(&item.ident), message);
    }
    for entry in read_tool_meta(item, &parsed.file, diags) {
        match module.tools.iter_mut().find(|tool| function_name(tool) == entry.function) {
            Some(tool) => apply_entry(tool, entry, &report),
            None => report.warn(
                entry.span,
                format!("`{TOOLS_CONST}` names `{}`, which is not a tool in this file", entry.function),
            ),
        }
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
    for (json, span) in entry.examples {
        match checked_example(&tool.ir, &json) {
            Ok(example) => tool.ir.examples.push(example),
            Err(why) => report.error(span, format!("`{TOOLS_CONST}`: example for `{}` {why}", tool.ir.name)),
        }
    }
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
