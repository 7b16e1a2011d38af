//! Resources applied: a resource file's `RESOURCES` entries (read by `ast::resource`)
//! checked against its lowered functions and attached to them, and the checks that hold
//! across the crate's resources and prompts.
//!
//! Each resource function needs an entry (its URI); an entry must name a function of the
//! file; a URI template's variables and the function's parameters must be the same names;
//! two functions cannot serve one URI. Every failure is an error at its place: a resource
//! served at a URI that does not match its function would answer reads with the wrong
//! arguments or never be reachable.

use std::collections::BTreeMap;

use toolcall_runtime::{ResourceKind, UriTemplate};

use crate::ast::resource::{RESOURCES_CONST, ResourceEntry, read_resources};
use crate::ast::tool::{not_a_function, quoted_list};
use crate::diagnostics::{Diagnostics, FileDiagnostics};
use crate::model::{Kind, Resource, ToolDef, ToolModule};
use crate::parse::ParsedFile;

/// Attaches each resource function's entry to it; a function without one is an error
/// and is dropped, so `module.resources` is one entry per remaining function.
pub fn apply_resources(parsed: &ParsedFile, module: &mut ToolModule, diags: &Diagnostics) {
    let report = diags.in_file(&parsed.file);
    let entries = match parsed.consts.get(RESOURCES_CONST) {
        Some(item) => {
            module.resources_const = !matches!(item.vis, syn::Visibility::Inherited);
            if !module.resources_const {
                let message = format!(
                    "make `{RESOURCES_CONST}` `pub(crate)` so generated code references it and the compiler checks it"
                );
                report.warn(syn::spanned::Spanned::span(&item.ident), message);
            }
            read_resources(item, &parsed.file, diags)
        }
        None => Vec::new(),
    };
    let names: Vec<String> = module.tools.iter().map(function_name).collect();
    for entry in &entries {
        if !names.contains(&entry.function) {
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            report.error(entry.span, not_a_function(RESOURCES_CONST, &entry.function, &names));
        }
    }
    let tools = std::mem::take(&mut module.tools);
    for tool in tools {
        let function = function_name(&tool);
        let Some(entry) = entries.iter().find(|e| e.function == function) else {
            let message = format!(
                "resource function `{function}` has no URI: add `ResourceMeta::new(\"{function}\", \
                 \"scheme://...\")` to the file's `{RESOURCES_CONST}` const"
            );
            report.error(tool.span, message);
            continue;
        };
        if let Some(resource) = resource_of(&tool, entry, &report) {
            module.resources.push(resource);
            module.tools.push(tool);
        }
    }
}

/// The resource `entry` serves `tool` as, when its URI fits the function.
fn resource_of(tool: &ToolDef, entry: &ResourceEntry, report: &FileDiagnostics<'_>) -> Option<Resource> {
    let uri = entry.uri.as_str();
    if !has_scheme(uri) {
        report.error(entry.span, format!("`{uri}` is not a URI: it needs a scheme, as in `notes://{uri}`"));
        return None;
    }
    let template = UriTemplate::parse(uri);
    if let Some(why) = template.error() {
        report.error(entry.span, format!("URI template `{uri}`: {why}"));
        return None;
    }
    let variables: Vec<&str> = template.variables().collect();
    let params: Vec<&str> = tool.ir.params.iter().map(|p| p.name.as_str()).collect();
    let function = function_name(tool);
    let mut fits = true;
    for variable in variables.iter().filter(|v| !params.contains(v)) {
        let message = format!(
            "`{{{variable}}}` in `{uri}` is not a parameter of `{function}` (its parameters: {})",
            if params.is_empty() { "none".to_owned() } else { quoted_list(&params) }
        );
        report.error(entry.span, message);
        fits = false;
    }
    for param in params.iter().filter(|p| !variables.contains(p)) {
        let message = format!(
            "parameter `{param}` of resource `{function}` is not a variable of `{uri}`: a resource \
             function takes its URI's variables (and the context), so write `{{{param}}}` in the URI"
        );
        report.error(tool.span, message);
        fits = false;
    }
    fits.then(|| Resource {
        uri: uri.to_owned(),
        template: !variables.is_empty(),
        name: entry.name.clone().unwrap_or_else(|| tool.ir.name.clone()),
        title: entry.title.clone().unwrap_or_default(),
        mime_type: entry.mime_type.clone().unwrap_or_else(|| default_mime_type(tool.value_kind).to_owned()),
        kind: tool.value_kind,
    })
}

/// Whether `uri` starts with a scheme (`notes:`): letters, then letters, digits, `+`,
/// `-` or `.`, then `:`.
fn has_scheme(uri: &str) -> bool {
    let Some((scheme, _)) = uri.split_once(':') else { return false };
    scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// The MIME type of contents of `kind` when the entry names none.
fn default_mime_type(kind: ResourceKind) -> &'static str {
    match kind {
        ResourceKind::Text | ResourceKind::Content => "text/plain",
        ResourceKind::Bytes => "application/octet-stream",
        ResourceKind::Json => "application/json",
    }
}

/// The Rust name of a function (`r#type` is `type`).
fn function_name(tool: &ToolDef) -> String {
    tool.ident.to_string().trim_start_matches("r#").to_owned()
}

/// Two resources at one URI, or two prompts or resources of one name, are errors at the
/// second; tools are checked by `check`.
pub fn check_served(modules: &[ToolModule], diags: &Diagnostics) {
    for kind in [Kind::Prompt, Kind::Resource] {
        let mut names: BTreeMap<&str, &ToolModule> = BTreeMap::new();
        let mut uris: BTreeMap<&str, &ToolModule> = BTreeMap::new();
        for module in modules.iter().filter(|m| m.kind == kind) {
            for (i, tool) in module.tools.iter().enumerate() {
                let what = if kind == Kind::Prompt { "prompt" } else { "resource function" };
                if let Some(first) = names.insert(&tool.ir.name, module) {
                    let message = format!(
                        "a second {what} named `{}` (the first is in {}); give one another name",
                        tool.ir.name,
                        first.file.display()
                    );
                    diags.error(&module.file, tool.span, message);
                }
                let Some(resource) = module.resources.get(i) else { continue };
                if let Some(first) = uris.insert(&resource.uri, module) {
                    let message = format!(
                        "a second resource at `{}` (the first is in {}); a URI reads one resource",
                        resource.uri,
                        first.file.display()
                    );
                    diags.error(&module.file, tool.span, message);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::has_scheme;

    #[test]
    fn a_uri_needs_a_scheme() {
        assert!(has_scheme("notes://note/{id}"));
        assert!(has_scheme("urn:isbn:1"));
        assert!(!has_scheme("note/{id}"));
        assert!(!has_scheme("://x"));
        assert!(!has_scheme("1a://x"));
    }
}
