//! Output types (`Builder::output_type("crate::Report")`): crate types a model answers
//! with, lowered to what their generated `toolcall_runtime::OutputType` impl holds.
//!
//! Takes the paths named in `build.rs` and the crate tree; gives, for each, the type's
//! path, its name and doc, its schema texts and how it is decoded. Nothing here is a
//! second schema or decoding path: the type goes through the one type mapper as a tool
//! parameter of that type would (recording its `FromArg` impl in the crate's table), and
//! its schemas are rendered by the runtime's renderer as a tool's input schema, from a
//! tool whose parameters are the type's properties. A type whose schema is not an object
//! (an enum, a newtype) is the one parameter [`WRAPPER`] of that tool: providers take
//! only an object at the root of a structured answer.
//!
//! Diagnostics point at the path's string literal in `build.rs` when the build can find
//! it (else at `build.rs:1:1`).

use std::collections::BTreeMap;
use std::path::PathBuf;

use proc_macro2::Span;
use syn::visit_mut::VisitMut;
use toolcall_runtime::ir::{Param, Tool, Type, find_definition};
use toolcall_runtime::render::{InputKind, render_input};

use crate::diagnostics::Diagnostics;
use crate::lower::Crate;
use crate::model::{Decode, LocalImpl};
use crate::parse::ParsedFile;
use crate::tree::resolve::Resolver;
use crate::types::TypeMapper;

pub use toolcall_runtime::__private::output::WRAPPER;

/// One output type, ready for codegen.
#[derive(Clone, Debug)]
pub struct OutputDef {
    /// The path generated code names it by (`crate::models::Report`).
    pub path: syn::Path,
    /// The schema's name: the type's name.
    pub name: String,
    /// The type's doc ("" when none).
    pub description: String,
    /// The input schema of its tool in OpenAI's strict form.
    pub schema: String,
    /// The same in Gemini's subset.
    pub gemini_schema: String,
    /// Wrapped in `{"response": ..}` (its schema is not an object).
    pub wrapped: bool,
    /// Decoded by its generated `FromArg` (else by serde).
    pub from_arg: bool,
    /// The tool whose parameters are its properties (one `response` when wrapped).
    pub tool: Tool,
}

impl OutputDef {
    /// What [`Generated::outputs`](crate::Generated::outputs) says of it.
    pub fn generated(&self) -> crate::records::GeneratedOutput {
        let path = crate::tree::resolve::segment_names(&self.path).join("::");
        crate::records::GeneratedOutput {
            path,
            name: self.name.clone(),
            description: self.description.clone(),
            schema: self.schema.clone(),
            gemini_schema: self.gemini_schema.clone(),
            wrapped: self.wrapped,
        }
    }
}

/// Lowers the output types named by `paths`, in the order given (a type named twice
/// once), adding the `FromArg` impls they need to `impls`. `script` is the text of
/// `build.rs`, where diagnostics point.
pub fn lower(
    paths: &[String],
    krate: &Crate<'_>,
    script: Option<&str>,
    impls: &mut BTreeMap<String, LocalImpl>,
    diags: &Diagnostics,
) -> Vec<OutputDef> {
    lower_named(Named::OUTPUT, paths, krate, script, impls, diags)
}

/// What a list of named types is, for its messages: the `Builder` method that names
/// them and what the message calls one.
#[derive(Clone, Copy, Debug)]
pub struct Named {
    /// The `Builder` method (`output_type`).
    pub method: &'static str,
    /// What one is called in messages (`output type`).
    pub what: &'static str,
}

impl Named {
    /// `Builder::output_type`.
    pub const OUTPUT: Named = Named { method: "output_type", what: "output type" };
    /// `Builder::form_type`.
    pub const FORM: Named = Named { method: "form_type", what: "form type" };
}

/// [`lower`] for the types `named` names.
pub fn lower_named(
    named: Named,
    paths: &[String],
    krate: &Crate<'_>,
    script: Option<&str>,
    impls: &mut BTreeMap<String, LocalImpl>,
    diags: &Diagnostics,
) -> Vec<OutputDef> {
    if paths.is_empty() {
        return Vec::new();
    }
    let spans = literal_spans(script.unwrap_or_default(), named.method);
    let parsed = ParsedFile {
        file: PathBuf::from("build.rs"),
        module: Vec::new(),
        ast: syn::File { shebang: None, attrs: Vec::new(), items: Vec::new() },
        consts: BTreeMap::new(),
        imports: BTreeMap::new(),
    };
    let root: Vec<String> = Vec::new();
    let mut outputs: Vec<OutputDef> = Vec::new();
    let mut mapper = TypeMapper::new(&parsed, (krate.tree, &root), krate.providers, diags, impls);
    for path in paths {
        let span = spans.get(path.trim()).copied().unwrap_or_else(Span::call_site);
        let report = |message: String| diags.error(&parsed.file, span, message);
        match lower_one(named, path, krate, &mut mapper, span) {
            Ok(def) if outputs.iter().any(|known| known.path == def.path) => {}
            Ok(def) => outputs.push(def),
            Err(message) => report(message),
        }
    }
    mapper.mark_fast_impls();
    outputs
}

/// One output type, or why it cannot be one.
fn lower_one(
    named: Named,
    written: &str,
    krate: &Crate<'_>,
    mapper: &mut TypeMapper<'_>,
    span: Span,
) -> Result<OutputDef, String> {
    let shown = written.trim();
    let what = named.what;
    let not_a_path = || {
        format!(
            "{what} `{shown}` given to `Builder::{method}` is not a Rust type path; write it \
             from the crate root, e.g. `crate::Report`",
            method = named.method
        )
    };
    let mut ty: syn::Type = syn::parse_str(shown).map_err(|_| not_a_path())?;
    let syn::Type::Path(typed) = &ty else { return Err(not_a_path()) };
    if typed.path.segments.iter().any(|s| !s.arguments.is_none()) {
        return Err(format!(
            "{what} `{shown}`: generic instances are not supported; name a struct or enum \
             without type arguments (wrap the instance in a struct of its own)"
        ));
    }
    Resolver::new(krate.tree, &[]).absolute(&mut ty, &[]);
    let syn::Type::Path(absolute) = &ty else { return Err(not_a_path()) };
    let Some((_, item)) = krate.tree.find_type(&absolute.path) else {
        return Err(missing(named, shown, &absolute.path, krate));
    };
    let name = item.ident.to_string();
    if item.alias().is_some() {
        return Err(format!("{what} `{shown}` is a type alias; name the struct or enum it stands for"));
    }
    if item.generics.type_params().next().is_some() {
        return Err(format!(
            "{what} `{shown}` is generic; name a struct or enum without type parameters (wrap \
             an instance in a struct of its own)"
        ));
    }
    if !crate::check::is_provider_safe(&name) {
        return Err(format!(
            "{what} `{shown}`: its name `{name}` does not match ^[a-zA-Z0-9_-]{{1,64}}$, which \
             providers require of a schema name"
        ));
    }
    let path = nameable(krate, &item.module, &name).ok_or_else(|| {
        format!(
            "{what} `{shown}` is in a module private to its parent, so generated code cannot \
             name it; make the module `pub(crate)` or re-export the type with `pub use`"
        )
    })?;
    let description = item.doc.clone();
    let resolved = mapper.resolve(&ty);
    let mapped =
        mapper.slot(&resolved, span).map_err(|why| format!("{what} `{shown}` cannot be decoded: {why}"))?;
    let from_arg = match mapped.decode {
        Decode::FromArg => true,
        Decode::Deserialize { .. } => false,
        _ => return Err(format!("{what} `{shown}` is decoded by a type provider")),
    };
    let answer = Param::new(WRAPPER, mapped.ty).description(description.clone());
    let defs = mapper.definitions(std::slice::from_ref(&answer));
    let mut tool = Tool::new(&name);
    let properties = match &answer.ty {
        Type::Object(properties) => Some(properties.clone()),
        Type::Ref(def) => match find_definition(&defs, def).map(|d| &d.ty) {
            Some(Type::Object(properties)) => Some(properties.clone()),
            _ => None,
        },
        _ => None,
    };
    let wrapped = properties.is_none();
    tool.params = properties.unwrap_or_else(|| vec![answer]);
    tool.defs = defs;
    let schema = render_input(&tool, InputKind::Strict);
    let gemini_schema = render_input(&tool, InputKind::Gemini);
    Ok(OutputDef { path, name, description, schema, gemini_schema, wrapped, from_arg, tool })
}

/// Why `path` names no type of the crate, with the closest name of the module it points
/// into when there is one.
fn missing(named: Named, shown: &str, path: &syn::Path, krate: &Crate<'_>) -> String {
    let what = named.what;
    let why = krate.tree.explain_missing(path).unwrap_or_else(|| {
        format!(
            "it is not a struct or enum of this crate (another crate's types, and types made by macros, \
             cannot be {what}s)"
        )
    });
    let names = crate::tree::resolve::segment_names(path);
    let (last, module) = match names.split_last() {
        Some((last, [_crate, module @ ..])) => (last.as_str(), module),
        _ => return format!("{what} `{shown}`: {why}"),
    };
    let known = krate.tree.module(module).map(|m| {
        let imported = m.imports.iter().filter_map(|i| i.name.as_deref());
        m.types.keys().map(String::as_str).chain(imported).collect::<Vec<&str>>()
    });
    let hint = known
        .and_then(|names| toolcall_runtime::closest_name(last, names))
        .map(|close| {
            let mut full = vec!["crate"];
            full.extend(module.iter().map(String::as_str));
            full.push(close);
            format!("; did you mean `{}`?", full.join("::"))
        })
        .unwrap_or_default();
    format!("{what} `{shown}`: {why}{hint}")
}

/// A path from the crate root generated code can name type `name` of `module` by.
fn nameable(krate: &Crate<'_>, module: &[String], name: &str) -> Option<syn::Path> {
    let names = krate.tree.nameable_path(module, name)?;
    let segments = names.iter().map(|name| match crate::parse::module_ident(name) {
        Some(ident) => ident,
        None => syn::Ident::new(name, Span::call_site()),
    });
    Some(syn::Path { leading_colon: None, segments: segments.map(syn::PathSegment::from).collect() })
}

/// The string literals given to `.output_type(..)` calls in `build.rs`, by value, with
/// where each is written (the first one of each value).
pub(crate) fn literal_spans(script: &str, method: &str) -> BTreeMap<String, Span> {
    struct Calls<'m>(BTreeMap<String, Span>, &'m str);
    impl VisitMut for Calls<'_> {
        fn visit_expr_method_call_mut(&mut self, call: &mut syn::ExprMethodCall) {
            syn::visit_mut::visit_expr_method_call_mut(self, call);
            if call.method != self.1 {
                return;
            }
            if let Some(syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(text), .. })) = call.args.first() {
                self.0.entry(text.value().trim().to_owned()).or_insert_with(|| text.span());
            }
        }
    }
    let Ok(mut file) = syn::parse_file(script) else { return BTreeMap::new() };
    let mut calls = Calls(BTreeMap::new(), method);
    calls.visit_file_mut(&mut file);
    calls.0
}
