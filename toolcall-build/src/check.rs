//! Check stage: rules across tools and modules, run on the lowered model.
//!
//! Duplicate tool names (an error naming both places), provider-safe names, and what
//! strict mode cannot express (open objects, untyped values, tuples), each with its
//! file:line.

use std::collections::BTreeMap;

use toolcall_runtime::ir::Type;

use crate::diagnostics::Diagnostics;
use crate::model::{ToolDef, ToolModule};

/// Whether `name` matches `^[a-zA-Z0-9_-]{1,64}$`, the rule of OpenAI and Anthropic.
pub fn is_provider_safe(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Runs every check over all modules.
pub fn check(modules: &[ToolModule], diags: &mut Diagnostics) {
    check_duplicates(modules, diags);
    for module in modules {
        for tool in &module.tools {
            check_name(module, tool, diags);
            check_strict(module, tool, diags);
        }
    }
}

fn check_duplicates(modules: &[ToolModule], diags: &mut Diagnostics) {
    let mut first: BTreeMap<&str, (&ToolModule, &ToolDef)> = BTreeMap::new();
    for module in modules {
        for tool in &module.tools {
            match first.get(tool.ir.name.as_str()) {
                Some((other_module, other)) => {
                    let start = other.span.start();
                    let message = format!(
                        "tool name `{}` is defined twice: here and at {}:{}:{}; tool names must be unique across the crate",
                        tool.ir.name,
                        other_module.file.display(),
                        start.line,
                        start.column + 1
                    );
                    diags.error(&module.file, tool.span, message);
                }
                None => {
                    first.insert(&tool.ir.name, (module, tool));
                }
            }
        }
    }
}

fn check_name(module: &ToolModule, tool: &ToolDef, diags: &mut Diagnostics) {
    if !is_provider_safe(&tool.ir.name) {
        let message = format!(
            "tool name `{}` does not match ^[a-zA-Z0-9_-]{{1,64}}$: OpenAI and Anthropic reject it (export refuses to write it)",
            tool.ir.name
        );
        diags.warn(&module.file, tool.span, message);
    }
}

fn check_strict(module: &ToolModule, tool: &ToolDef, diags: &mut Diagnostics) {
    for param in &tool.ir.params {
        let mut found = Vec::new();
        strict_losses(&param.ty, &mut found, 0);
        found.sort_unstable();
        found.dedup();
        for loss in found {
            let message = format!("`{}` parameter `{}`: {loss}", tool.ir.name, param.name);
            diags.warn(&module.file, tool.span, message);
        }
    }
}

/// What strict schemas lose for `ty`.
fn strict_losses(ty: &Type, out: &mut Vec<&'static str>, depth: usize) {
    if depth > 64 {
        return;
    }
    match ty {
        Type::Map(_) => {
            out.push("open object: strict mode closes every object, so the model can only send {}")
        }
        Type::Any => out.push("untyped value `{}`: strict mode cannot constrain it"),
        Type::Tuple(items) => {
            out.push("tuple: strict mode drops prefixItems and keeps only the length");
            items.iter().for_each(|t| strict_losses(t, out, depth + 1));
        }
        Type::Array { items, .. } | Type::Nullable(items) | Type::Described(items, _) => {
            strict_losses(items, out, depth + 1)
        }
        Type::Object(params) => params.iter().for_each(|p| strict_losses(&p.ty, out, depth + 1)),
        Type::AnyOf(branches) | Type::OneOf(branches) => {
            branches.iter().for_each(|t| strict_losses(t, out, depth + 1))
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_safe_names() {
        assert!(is_provider_safe("get_weather"));
        assert!(is_provider_safe("a-b_C9"));
        assert!(!is_provider_safe("find?"));
        assert!(!is_provider_safe("naïve"));
        assert!(!is_provider_safe(""));
        assert!(!is_provider_safe(&"x".repeat(65)));
        assert!(is_provider_safe(&"x".repeat(64)));
    }
}
