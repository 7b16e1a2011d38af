//! Form types (`Builder::form_type("crate::Confirm")`): crate types a tool asks the user
//! to fill in mid-call, lowered to what their generated `toolcall_runtime::Form` impl
//! holds.
//!
//! A form type goes through the output types' lowering (`crate::output_type`: the one
//! type mapper, its generated `FromArg` as the decoder), then its properties are rendered
//! as MCP elicitation's flat schema: each one a string (with `format` `email`, `uri`,
//! `date` or `date-time`, and lengths), a number or integer (with bounds), a boolean, an
//! enum (titled with `oneOf` when its variants have docs, SEP-1330), or a list of enum
//! values (a multi-select). Anything else (a nested struct, a map, a list of strings) is
//! an error at the path's string in `build.rs`, naming the field: a client could not show
//! it as a form.

use std::collections::BTreeMap;
use std::path::Path;

use proc_macro2::Span;
use serde_json::{Map, Value, json};
use toolcall_runtime::ir::{Definition, EnumVariant, Param, Type, find_definition};

use crate::diagnostics::Diagnostics;
use crate::lower::Crate;
use crate::model::LocalImpl;
use crate::output_type::{Named, OutputDef, literal_spans, lower_named};

/// The string formats a form field may have (MCP's `StringSchema.format`).
const FORMATS: &[&str] = &["email", "uri", "date", "date-time"];

/// One form type, ready for codegen.
#[derive(Clone, Debug)]
pub struct FormDef {
    /// The path generated code names it by.
    pub path: syn::Path,
    /// Its flat object schema, as JSON text.
    pub schema: String,
    /// Decoded by its generated `FromArg` (else by serde).
    pub from_arg: bool,
}

/// Lowers the form types named by `paths`, in the order given, adding the `FromArg` impls
/// they need to `impls`; a type that is no flat form is an error at its string in
/// `build.rs` (`script`).
pub fn lower(
    paths: &[String],
    krate: &Crate<'_>,
    script: Option<&str>,
    impls: &mut BTreeMap<String, LocalImpl>,
    diags: &Diagnostics,
) -> Vec<FormDef> {
    let outputs = lower_named(Named::FORM, paths, krate, script, impls, diags);
    let spans = literal_spans(script.unwrap_or_default(), Named::FORM.method);
    let mut forms = Vec::with_capacity(outputs.len());
    for output in outputs {
        let shown = crate::tree::resolve::segment_names(&output.path).join("::");
        match form_schema(&output) {
            Ok(schema) => forms.push(FormDef { path: output.path, schema, from_arg: output.from_arg }),
            Err(why) => {
                let span = written_span(&spans, &shown);
                diags.error(Path::new("build.rs"), span, format!("form type `{shown}`: {why}"));
            }
        }
    }
    forms
}

/// Where `shown` (`crate::models::Confirm`) is written in `build.rs`, by its value or its
/// last segments.
fn written_span(spans: &BTreeMap<String, Span>, shown: &str) -> Span {
    spans
        .iter()
        .find(|(written, _)| shown == written.as_str() || shown.ends_with(&format!("::{written}")))
        .map_or_else(Span::call_site, |(_, span)| *span)
}

/// The flat object schema of `output`'s properties, or why it has none.
fn form_schema(output: &OutputDef) -> Result<String, String> {
    if output.wrapped {
        return Err("a form is a struct with named fields, one per question".to_owned());
    }
    let mut properties = Map::new();
    let mut required = Vec::new();
    for param in &output.tool.params {
        let (property, nullable) = field(param, &output.tool.defs)?;
        if !param.optional && !nullable {
            required.push(Value::String(param.name.clone()));
        }
        properties.insert(param.name.clone(), property);
    }
    let schema = json!({"type": "object", "properties": properties, "required": required});
    Ok(schema.to_string())
}

/// One property of a form, and whether `null` is a value of it (not required).
fn field(param: &Param, defs: &[Definition]) -> Result<(Value, bool), String> {
    let (mut ty, mut description, mut nullable) = (&param.ty, param.description.clone(), false);
    loop {
        match ty {
            Type::Nullable(inner) => (ty, nullable) = (inner, true),
            Type::Described(inner, text) => {
                if description.is_empty() {
                    description = text.clone();
                }
                ty = inner;
            }
            Type::Ref(name) => match find_definition(defs, name) {
                Some(def) => ty = &def.ty,
                None => {
                    return Err(format!("field `{}` refers to a type the build did not find", param.name));
                }
            },
            _ => break,
        }
    }
    let mut property = primitive(ty, defs).ok_or_else(|| {
        format!(
            "field `{}` is not a form field: a form holds strings, numbers, integers, booleans, enums of \
             unit variants and lists of such enums, which a client shows as inputs; nest no structs, maps \
             or other lists",
            param.name
        )
    })?;
    if !description.is_empty() {
        property.insert("description".to_owned(), Value::String(description));
    }
    if let Some(default) = &param.default {
        property.insert("default".to_owned(), default.clone());
    }
    Ok((Value::Object(property), nullable))
}

/// The schema of a primitive form field, `None` when `ty` is not one.
fn primitive(ty: &Type, defs: &[Definition]) -> Option<Map<String, Value>> {
    let mut out = Map::new();
    let mut set = |key: &str, value: Value| {
        out.insert(key.to_owned(), value);
    };
    match ty {
        Type::Boolean => set("type", json!("boolean")),
        Type::Integer { minimum, maximum, as_string: false, .. } => {
            set("type", json!("integer"));
            if let Some(m) = minimum {
                set("minimum", json!(m));
            }
            if let Some(m) = maximum {
                set("maximum", json!(m));
            }
        }
        Type::Number { minimum, maximum } => {
            set("type", json!("number"));
            if let Some(m) = minimum {
                set("minimum", json!(m));
            }
            if let Some(m) = maximum {
                set("maximum", json!(m));
            }
        }
        Type::String { format, min_length, max_length, .. } => {
            set("type", json!("string"));
            if let Some(m) = min_length {
                set("minLength", json!(m));
            }
            if let Some(m) = max_length {
                set("maxLength", json!(m));
            }
            if let Some(format) = format.as_deref().filter(|f| FORMATS.contains(f)) {
                set("format", json!(format));
            }
        }
        Type::Enum(variants) => {
            set("type", json!("string"));
            match titled(variants) {
                Some(options) => set("oneOf", options),
                None => set("enum", values(variants)),
            }
        }
        Type::Array { items, min_items, max_items, .. } => {
            let items = match items.as_ref() {
                Type::Ref(name) => &find_definition(defs, name)?.ty,
                other => other,
            };
            let Type::Enum(variants) = items else { return None };
            set("type", json!("array"));
            match titled(variants) {
                Some(options) => set("items", json!({"anyOf": options})),
                None => set("items", json!({"type": "string", "enum": values(variants)})),
            }
            if let Some(m) = min_items {
                set("minItems", json!(m));
            }
            if let Some(m) = max_items {
                set("maxItems", json!(m));
            }
        }
        _ => return None,
    }
    Some(out)
}

/// The variants' wire values.
fn values(variants: &[EnumVariant]) -> Value {
    variants.iter().map(|v| Value::String(v.value.clone())).collect()
}

/// `[{"const", "title"}]` when any variant has a doc (its title; the others their value).
fn titled(variants: &[EnumVariant]) -> Option<Value> {
    variants.iter().any(|v| !v.description.is_empty()).then(|| {
        variants
            .iter()
            .map(|v| {
                let title = if v.description.is_empty() { &v.value } else { &v.description };
                json!({"const": v.value, "title": title.trim_end_matches('.')})
            })
            .collect()
    })
}
