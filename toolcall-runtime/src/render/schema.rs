//! The schema walk: a [`Type`] written as the JSON schema a format's settings allow, with
//! what a format cannot express said in the description (notes), recursive types as
//! `$defs` and references, or written out where the format takes none.

use std::cell::Cell;

use serde_json::Value;

use super::format::{Format, INLINED_LEVELS, InputKind, JSON_VALUE, JSON_VALUE_SCHEMA, Settings};
use crate::ir::{
    Definition, EnumVariant, MAX_SAFE_INTEGER, MIN_SAFE_INTEGER, Param, Tool, Type, Width, find_definition,
};
use crate::json::write::{Obj, write_array, write_escaped, write_f64, write_str, write_value};

/// Renders only the input schema of `tool` (the `parameters` object, with its `$defs`).
pub fn render_input_schema(tool: &Tool, format: Format, strict: bool) -> String {
    let mut out = String::with_capacity(256);
    write_input(Settings::new(format, strict), tool, &mut out);
    out
}

/// Writes `tool`'s input schema in `settings`' format to `out`; whether every schema in
/// it says what it holds (a strict definition that has an untyped one is not marked strict).
pub(super) fn write_input(settings: Settings, tool: &Tool, out: &mut String) -> bool {
    let cx = Context::new(&tool.defs);
    Renderer::new(Scope::new(settings, &cx), out).root(&tool.params);
    !cx.untyped.get()
}

/// Renders a result type as MCP's `outputSchema`: plain JSON Schema (never strict: it
/// describes what the tool returns, not what a model generates).
pub fn render_output_schema(ty: &Type) -> String {
    render_type(ty, Format::Mcp, false)
}

/// Renders a type alone as a schema (no tool envelope). It has no definitions to refer
/// to: a [`Type::Ref`] in it is a dangling `$ref` (or `{}` where the format inlines).
pub fn render_type(ty: &Type, format: Format, strict: bool) -> String {
    let mut out = String::with_capacity(64);
    let cx = Context::new(&[]);
    let mut renderer = Renderer::new(Scope::new(Settings::new(format, strict), &cx), &mut out);
    renderer.schema(ty, "", None);
    renderer.definitions();
    out
}

/// Renders `tool`'s input schema of `kind` as [`ToolInfo`](crate::ToolInfo) stores it:
/// Gemini's is `""` for a tool without parameters (its declaration then has none).
pub fn render_input(tool: &Tool, kind: InputKind) -> String {
    if kind == InputKind::Gemini && tool.params.is_empty() {
        return String::new();
    }
    let (format, strict) = kind.representative();
    render_input_schema(tool, format, strict)
}

/// Whether every schema in `schema` says what it holds: a `type`, `$ref`, `anyOf`,
/// `oneOf`, `allOf`, a non-empty `enum` or a `const`, in the places Anthropic's SDK reads
/// (`properties`, `items`, the branches, `$defs`). Anthropic's `transform_schema` refuses
/// a strict schema with a node that has none ("Schema must have a 'type', 'anyOf',
/// 'oneOf', or 'allOf' field"), and a strict mode cannot constrain such a node anyway: a
/// definition whose strict schema is not typed throughout goes out without `strict`.
pub fn every_node_typed(schema: &Value) -> bool {
    let mut stack = vec![schema];
    while let Some(node) = stack.pop() {
        let Some(map) = node.as_object() else { return false };
        let says = ["type", "$ref", "anyOf", "oneOf", "allOf", "const"].iter().any(|k| map.contains_key(*k))
            || map.get("enum").and_then(Value::as_array).is_some_and(|values| !values.is_empty());
        if !says {
            return false;
        }
        if map.contains_key("$ref") {
            continue;
        }
        for key in ["properties", "$defs"] {
            if let Some(children) = map.get(key).and_then(Value::as_object) {
                stack.extend(children.values());
            }
        }
        for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
            if let Some(children) = map.get(key).and_then(Value::as_array) {
                stack.extend(children);
            }
        }
        if let Some(items) = map.get("items").filter(|items| items.is_object()) {
            stack.push(items);
        }
    }
    true
}

/// Writes the JSON string of a reference to definition `name`: `"#/$defs/<key>"`.
pub(super) fn write_pointer(out: &mut String, name: &str) {
    out.push_str("\"#/$defs/");
    push_def_key(out, name);
    out.push('"');
}

/// Writes definition `name` as its `$defs` key: letters, digits, `_`, `.` and `-` as they
/// are, any other character as `_`. A key then needs no escaping in a JSON pointer or a
/// URI fragment, which not every consumer decodes (llguidance does not).
pub(super) fn push_def_key(out: &mut String, name: &str) {
    out.extend(
        name.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') { c } else { '_' }),
    );
}

/// Constraints a target cannot express, gathered for the description.
#[derive(Default)]
pub(super) struct Notes {
    /// Constraints the format cannot state as keywords: always appended.
    notes: Vec<String>,
    /// What the wire looks like, for a parameter nobody described: used only when the
    /// description is empty (a description written by hand is emitted as written).
    hint: Option<&'static str>,
}

impl Notes {
    fn push(&mut self, note: String) {
        self.notes.push(note);
    }

    fn hint(&mut self, hint: &'static str) {
        self.hint = Some(hint);
    }

    /// Writes the `description` entry: `base` with the notes after it (see
    /// [`Notes::description`]), escaped piece by piece; nothing when both are empty.
    fn write_description(&self, obj: &mut Obj<'_>, base: &str) {
        let hint = self.hint.filter(|_| base.is_empty());
        if hint.is_none() && self.notes.is_empty() {
            if !base.is_empty() {
                obj.str("description", base);
            }
            return;
        }
        let out = obj.key("description");
        out.push('"');
        if !base.is_empty() {
            write_escaped(out, base);
            out.push_str(" (");
        }
        let notes = hint.into_iter().chain(self.notes.iter().map(String::as_str));
        for (i, note) in notes.enumerate() {
            if i > 0 {
                out.push_str("; ");
            }
            write_escaped(out, note);
        }
        if !base.is_empty() {
            out.push(')');
        }
        out.push('"');
    }

    fn description(&self, base: &str) -> Option<String> {
        let hint = self.hint.filter(|_| base.is_empty());
        let mut notes = hint.into_iter().chain(self.notes.iter().map(String::as_str));
        let Some(first) = notes.next() else { return (!base.is_empty()).then(|| base.to_owned()) };
        let mut out = String::with_capacity(base.len() + first.len() + 3);
        if !base.is_empty() {
            out.push_str(base);
            out.push_str(" (");
        }
        out.push_str(first);
        for note in notes {
            out.push_str("; ");
            out.push_str(note);
        }
        if !base.is_empty() {
            out.push(')');
        }
        Some(out)
    }
}

/// What every renderer of one schema shares: the definitions references resolve to, and
/// whether an untyped value referred to [`JSON_VALUE`] (which then joins the `$defs`).
pub(super) struct Context<'d> {
    defs: &'d [Definition],
    json_value: Cell<bool>,
    /// Whether a schema without `type` was written (an untyped value, or a recursive
    /// definition cut off where the format takes no `$ref`).
    untyped: Cell<bool>,
}

impl<'d> Context<'d> {
    fn new(defs: &'d [Definition]) -> Self {
        Context { defs, json_value: Cell::new(false), untyped: Cell::new(false) }
    }
}

/// The definitions being written out on the current path, innermost first (formats
/// without `$ref`). A list on the stack: no allocation.
pub(super) struct Chain<'c> {
    name: &'c str,
    parent: Option<&'c Chain<'c>>,
}

impl Chain<'_> {
    /// How many times `name` is on the path.
    fn count(chain: Option<&Chain<'_>>, name: &str) -> usize {
        std::iter::successors(chain, |link| link.parent).filter(|link| link.name == name).count()
    }
}

/// What a renderer knows besides where it writes: the settings, the schema's shared
/// context, and the definitions being written out on its path.
#[derive(Clone, Copy)]
pub(super) struct Scope<'c> {
    settings: Settings,
    cx: &'c Context<'c>,
    chain: Option<&'c Chain<'c>>,
}

impl<'c> Scope<'c> {
    fn new(settings: Settings, cx: &'c Context<'c>) -> Self {
        Scope { settings, cx, chain: None }
    }
}

/// The one schema renderer.
pub(super) struct Renderer<'o, 'c> {
    scope: Scope<'c>,
    out: &'o mut String,
}

impl<'o, 'c> Renderer<'o, 'c> {
    fn new(scope: Scope<'c>, out: &'o mut String) -> Self {
        Renderer { scope, out }
    }

    /// Writes the schema of `ty`, with `description` (and any moved constraints) attached.
    fn schema(&mut self, ty: &Type, description: &str, default: Option<&Value>) {
        match ty {
            Type::Described(inner, text) => {
                let text = if description.is_empty() { text } else { description };
                self.schema(inner, text, default)
            }
            Type::Object(params) => self.object_with(params, description, default),
            Type::Nullable(inner) => self.nullable(inner, description, default),
            Type::Ref(name) => self.reference(name, description, default),
            Type::Any if self.scope.settings.typed_any => {
                self.scope.cx.json_value.set(true);
                self.reference(JSON_VALUE, description, default)
            }
            _ => self.simple(ty, None, description, default),
        }
    }

    /// A use of definition `name`: a `$ref` (alone, beside a description or default, or as
    /// a one-branch `anyOf` when it must stand alone), or the definition written out.
    fn reference(&mut self, name: &str, description: &str, default: Option<&Value>) {
        let s = self.scope.settings;
        if !s.refs {
            return self.inline(name, description, default);
        }
        let dropped = with_dropped_default(s, description, default);
        let description = dropped.as_deref().unwrap_or(description);
        let default = default.filter(|_| s.defaults);
        if description.is_empty() && default.is_none() {
            self.out.push_str(r#"{"$ref":"#);
            write_pointer(self.out, name);
            self.out.push('}');
            return;
        }
        let mut obj = Obj::open(self.out);
        if s.ref_siblings {
            write_pointer(obj.key("$ref"), name);
        }
        if !description.is_empty() {
            obj.str("description", description);
        }
        if !s.ref_siblings {
            let out = obj.key("anyOf");
            out.push_str(r#"[{"$ref":"#);
            write_pointer(out, name);
            out.push_str("}]");
        }
        write_default(s, &mut obj, default);
        obj.close();
    }

    /// Definition `name` written out where it is used, until it is [`INLINED_LEVELS`]
    /// deep on this path; past that (or when the tool has no such definition) `{}`, with
    /// a note saying what belongs there.
    fn inline(&mut self, name: &str, description: &str, default: Option<&Value>) {
        let found = find_definition(self.scope.cx.defs, name);
        match found {
            Some(def) if Chain::count(self.scope.chain, name) < INLINED_LEVELS => {
                let link = Chain { name, parent: self.scope.chain };
                let scope = Scope { chain: Some(&link), ..self.scope };
                Renderer::new(scope, self.out).schema(&def.ty, description, default);
            }
            _ => {
                let mut notes = Notes::default();
                if found.is_some() {
                    notes.push(format!("same shape as the enclosing {name}"));
                }
                let text = notes.description(description).unwrap_or_default();
                self.simple(&Type::Any, None, &text, default);
            }
        }
    }

    /// `inner` or null: a type array where `inner` is a single plain type, else `anyOf`;
    /// with the OpenAPI keyword, `inner` with `"nullable": true` first.
    fn nullable(&mut self, inner: &Type, description: &str, default: Option<&Value>) {
        if self.scope.settings.nullable_keyword {
            let mut schema = String::with_capacity(64);
            Renderer::new(self.scope, &mut schema).schema(inner, description, default);
            self.out.push_str(r#"{"nullable":true"#);
            if schema.len() > 2 {
                self.out.push(',');
            }
            self.out.push_str(schema.get(1..).unwrap_or("}"));
            return;
        }
        let plain = plain_type_name(inner.undescribed());
        // A plain type's own description describes the value, null or not: it stays
        // beside the type array or the `anyOf`, not inside a branch.
        let (inner, description) = match inner {
            Type::Described(ty, text) if plain.is_some() && description.is_empty() => (&**ty, text.as_str()),
            _ => (inner, description),
        };
        if let Some(name) = plain.filter(|_| self.scope.settings.type_arrays) {
            return self.simple(inner, Some(or_null(name)), description, default);
        }
        let dropped = with_dropped_default(self.scope.settings, description, default);
        let description = dropped.as_deref().unwrap_or(description);
        let mut obj = Obj::open(self.out);
        if !description.is_empty() {
            obj.str("description", description);
        }
        let out = obj.key("anyOf");
        out.push('[');
        match inner.undescribed() {
            // A union gains a null branch rather than nesting inside another `anyOf`.
            Type::AnyOf(branches) | Type::OneOf(branches) => {
                for (i, branch) in branches.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    Renderer::new(self.scope, out).schema(branch, "", None);
                }
            }
            _ => Renderer::new(self.scope, out).schema(inner, "", None),
        }
        out.push_str(r#",{"type":"null"}]"#);
        write_default(self.scope.settings, &mut obj, default);
        obj.close();
    }

    /// Every non-object, non-nullable type. `type_name` overrides the `type` keyword.
    /// Written in one pass: what goes into the description is gathered first, then the
    /// keywords are written after it.
    fn simple(&mut self, ty: &Type, type_name: Option<&str>, description: &str, default: Option<&Value>) {
        let scope = self.scope;
        let mut notes = Notes::default();
        let name = scope.notes(ty, &mut notes);
        if let Some(value) = default.filter(|_| !scope.settings.defaults) {
            notes.push(default_note(value));
        }
        let mut obj = Obj::open(self.out);
        match type_name.or(name) {
            Some(name) if name.starts_with('[') => obj.raw("type", name),
            Some(name) => obj.word("type", name),
            None if matches!(ty, Type::Any) => scope.cx.untyped.set(true),
            None => {}
        }
        notes.write_description(&mut obj, description);
        scope.keywords(ty, &mut obj);
        write_default(scope.settings, &mut obj, default);
        obj.close();
    }
}

impl<'c> Scope<'c> {
    /// The `type` name of `ty` (for [`Renderer::simple`]), and into `notes` what its
    /// keywords cannot say in this format.
    fn notes(&self, ty: &Type, notes: &mut Notes) -> Option<&'static str> {
        let s = self.settings;
        match ty {
            Type::Any => None,
            Type::Null => Some("null"),
            Type::Boolean => Some("boolean"),
            Type::Integer { as_string: true, minimum, maximum, width, .. } => {
                notes.hint("an integer written as a decimal string");
                // A pattern cannot bound a number: bounds narrower than the sign and the
                // Rust type's own range go in words.
                let (low, high) = width.map_or((i128::MIN, i128::MAX), Width::range);
                let min = minimum.filter(|m| *m > 0 && i128::from(*m) > low);
                let max = maximum.filter(|m| *m < i64::MAX && i128::from(*m) < high);
                limit_notes(notes, min.map(|m| m.to_string()), max.map(|m| m.to_string()));
                Some("string")
            }
            Type::Integer { minimum, maximum, non_zero, .. } => {
                if !s.numeric_limits {
                    let (min, max) = (minimum.map(clamp_safe), maximum.map(clamp_safe));
                    limit_notes(notes, min.map(|v| v.to_string()), max.map(|v| v.to_string()));
                }
                if *non_zero {
                    notes.push("must not be 0".to_owned());
                }
                Some("integer")
            }
            Type::Number { minimum, maximum } => {
                if !s.numeric_limits {
                    limit_notes(notes, minimum.map(|v| v.to_string()), maximum.map(|v| v.to_string()));
                }
                Some("number")
            }
            Type::String { format, min_length, max_length, .. } => {
                self.string_notes(notes, format, *min_length, *max_length);
                Some("string")
            }
            Type::Const(_) => Some("string"),
            Type::Enum(variants) => {
                enum_notes(variants, notes);
                Some("string")
            }
            Type::Array { min_items, max_items, unique, .. } => {
                self.item_limit_notes(notes, *min_items, *max_items);
                if *unique && !s.unique_items {
                    notes.push("items must be unique".to_owned());
                }
                Some("array")
            }
            Type::Tuple(items) => {
                if !s.prefix_items {
                    let len = items.len() as u64;
                    let shapes: Vec<&str> = items.iter().map(|t| shape_name(t.undescribed())).collect();
                    notes.push(format!(
                        "exactly {len} {}: [{}]",
                        plural(&len.to_string(), "item"),
                        shapes.join(", ")
                    ));
                }
                Some("array")
            }
            Type::Map(_) => {
                if !s.additional_properties {
                    notes.push("an object whose keys are free".to_owned());
                }
                Some("object")
            }
            // `AnyOf`, `OneOf`; the rest is handled by `schema` (kept total for safety).
            Type::AnyOf(_)
            | Type::OneOf(_)
            | Type::Object(_)
            | Type::Nullable(_)
            | Type::Described(..)
            | Type::Ref(_) => None,
        }
    }

    /// Writes the keywords of `ty` after `type` and `description` into `obj`: everything
    /// [`Scope::notes`] did not move into the description.
    fn keywords(&self, ty: &Type, obj: &mut Obj<'_>) {
        let s = self.settings;
        match ty {
            Type::Integer { as_string: true, minimum, .. } => {
                let pattern = if minimum.is_some_and(|m| m >= 0) { "^[0-9]+$" } else { "^-?[0-9]+$" };
                obj.word("pattern", pattern);
            }
            Type::Integer { minimum, maximum, .. } => {
                if s.numeric_limits {
                    if let Some(v) = *minimum {
                        obj.int("minimum", clamp_safe(v));
                    }
                    if let Some(v) = *maximum {
                        obj.int("maximum", clamp_safe(v));
                    }
                }
            }
            Type::Number { minimum, maximum } => {
                if s.numeric_limits {
                    if let Some(v) = minimum {
                        write_f64(obj.key("minimum"), *v);
                    }
                    if let Some(v) = maximum {
                        write_f64(obj.key("maximum"), *v);
                    }
                }
            }
            Type::String { format, pattern, min_length, max_length } => {
                if let Some(format) = format.as_deref().filter(|f| self.format_allowed(f)) {
                    obj.str("format", format);
                }
                if let Some(pattern) = pattern {
                    obj.str("pattern", pattern);
                }
                if s.length_limits {
                    if let Some(v) = *min_length {
                        obj.int("minLength", v as i64);
                    }
                    if let Some(v) = *max_length {
                        obj.int("maxLength", v as i64);
                    }
                }
            }
            Type::Const(value) => {
                let out = obj.key("enum");
                out.push('[');
                write_str(out, value);
                out.push(']');
            }
            Type::Enum(variants) => {
                write_array(obj.key("enum"), variants, |out, variant| write_str(out, &variant.value));
            }
            Type::Array { items, min_items, max_items, unique } => {
                Renderer::new(*self, obj.key("items")).schema(items, "", None);
                self.item_limits(obj, *min_items, *max_items);
                if *unique && s.unique_items {
                    obj.raw("uniqueItems", "true");
                }
            }
            Type::Tuple(items) => self.tuple(obj, items),
            Type::Map(values) => {
                if !s.additional_properties {
                    // Said in the description (`Scope::notes`).
                } else if s.close_maps {
                    // OpenAI strict rejects an object schema without `properties` and `required`.
                    obj.raw("properties", "{}");
                    obj.raw("required", "[]");
                    obj.raw("additionalProperties", "false");
                } else {
                    Renderer::new(*self, obj.key("additionalProperties")).schema(values, "", None);
                }
            }
            Type::AnyOf(branches) => self.branches(obj, "anyOf", branches),
            Type::OneOf(branches) => self.branches(obj, if s.one_of { "oneOf" } else { "anyOf" }, branches),
            Type::Any
            | Type::Null
            | Type::Boolean
            | Type::Object(_)
            | Type::Nullable(_)
            | Type::Described(..)
            | Type::Ref(_) => {}
        }
    }

    /// Whether the format keeps the string `format` value `format`.
    fn format_allowed(&self, format: &str) -> bool {
        self.settings.formats.is_none_or(|allowed| allowed.contains(&format))
    }

    fn string_notes(&self, notes: &mut Notes, format: &Option<String>, min: Option<u64>, max: Option<u64>) {
        if let Some(format) = format.as_deref().filter(|f| !self.format_allowed(f)) {
            notes.push(format!("format: {format}"));
        }
        if self.settings.length_limits {
            return;
        }
        match (min.map(|v| v.to_string()), max.map(|v| v.to_string())) {
            (Some(a), Some(b)) if a == b => notes.push(format!("exactly {a} {}", plural(&a, "character"))),
            (min, max) => {
                min.into_iter().for_each(|v| notes.push(format!("at least {v} {}", plural(&v, "character"))));
                max.into_iter().for_each(|v| notes.push(format!("at most {v} {}", plural(&v, "character"))));
            }
        }
    }

    /// `minItems`/`maxItems` where the format keeps them; else only a minimum of 0 or 1.
    fn item_limits(&self, obj: &mut Obj<'_>, min: Option<u64>, max: Option<u64>) {
        if self.settings.item_limits {
            min.into_iter().for_each(|v| obj.int("minItems", v as i64));
            max.into_iter().for_each(|v| obj.int("maxItems", v as i64));
        } else if let Some(v @ (0 | 1)) = min {
            obj.int("minItems", v as i64);
        }
    }

    /// The item limits [`Scope::item_limits`] does not write, in words.
    fn item_limit_notes(&self, notes: &mut Notes, min: Option<u64>, max: Option<u64>) {
        if self.settings.item_limits {
            return;
        }
        if let Some(v) = min.filter(|v| *v > 1) {
            notes.push(format!("at least {v} items"));
        }
        max.into_iter().for_each(|v| notes.push(format!("at most {v} {}", plural(&v.to_string(), "item"))));
    }

    fn tuple(&self, obj: &mut Obj<'_>, items: &[Type]) {
        let len = items.len() as u64;
        if self.settings.prefix_items {
            write_array(obj.key("prefixItems"), items, |out, item| {
                Renderer::new(*self, out).schema(item, "", None)
            });
        } else {
            // The length is in the description (`Scope::notes`). OpenAI strict rejects an
            // array schema without `items`: the items' one schema, or `anyOf` of their
            // distinct schemas.
            let mut schemas: Vec<String> = Vec::with_capacity(items.len());
            for item in items {
                let mut schema = String::with_capacity(32);
                Renderer::new(*self, &mut schema).schema(item, "", None);
                if !schemas.contains(&schema) {
                    schemas.push(schema);
                }
            }
            match schemas.as_slice() {
                [] => {}
                [one] => obj.raw("items", one),
                many => obj.raw("items", &format!(r#"{{"anyOf":[{}]}}"#, many.join(","))),
            }
        }
        if self.settings.item_limits {
            self.item_limits(obj, Some(len), Some(len));
        } else if len <= 1 {
            // The note says "exactly N items"; only a 0/1 minimum is kept.
            obj.int("minItems", len as i64);
        }
    }

    fn branches(&self, obj: &mut Obj<'_>, key: &str, branches: &[Type]) {
        write_array(obj.key(key), branches, |out, branch| Renderer::new(*self, out).schema(branch, "", None));
    }
}

impl Renderer<'_, '_> {
    /// The tool's root object (no description, no default), with the `$defs` its
    /// references need.
    fn root(&mut self, params: &[Param]) {
        self.object_with(params, "", None);
        self.definitions();
    }

    /// Reopens the root schema just written and adds `$defs`: the tool's definitions, and
    /// [`JSON_VALUE`] when an untyped value referred to it. Nothing when there are none or
    /// the format takes no references.
    fn definitions(&mut self) {
        let (s, cx) = (self.scope.settings, self.scope.cx);
        if !s.refs || (cx.defs.is_empty() && !cx.json_value.get()) || !self.out.ends_with('}') {
            return;
        }
        self.out.pop();
        if !self.out.ends_with('{') {
            self.out.push(',');
        }
        self.out.push_str(r#""$defs":{"#);
        for (i, def) in cx.defs.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            self.out.push('"');
            push_def_key(self.out, &def.name);
            self.out.push_str("\":");
            Renderer::new(Scope::new(s, cx), self.out).schema(&def.ty, "", None);
        }
        // Read after the definitions: an untyped value inside one refers to it too.
        if cx.json_value.get() {
            if !cx.defs.is_empty() {
                self.out.push(',');
            }
            write_str(self.out, JSON_VALUE);
            self.out.push(':');
            self.out.push_str(JSON_VALUE_SCHEMA);
        }
        self.out.push_str("}}");
    }

    /// A closed object: properties in order, `required`, `additionalProperties: false`.
    fn object_with(&mut self, params: &[Param], description: &str, default: Option<&Value>) {
        let s = self.scope.settings;
        let dropped = with_dropped_default(s, description, default);
        let description = dropped.as_deref().unwrap_or(description);
        let mut obj = Obj::open(self.out);
        obj.word("type", "object");
        if !description.is_empty() {
            obj.str("description", description);
        }
        let out = obj.key("properties");
        out.push('{');
        for (i, param) in params.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_str(out, &param.name);
            out.push(':');
            // Widened to nullable as `Type::nullable` would, without building that type.
            let widen = s.all_required && param.optional && !param.ty.accepts_null();
            let mut renderer = Renderer::new(self.scope, out);
            if widen {
                renderer.nullable(&param.ty, &param.description, param.default.as_ref());
            } else {
                renderer.schema(&param.ty, &param.description, param.default.as_ref());
            }
        }
        out.push('}');
        let required = params.iter().filter(|p| s.all_required || !p.optional);
        write_array(obj.key("required"), required, |out, param| write_str(out, &param.name));
        if s.additional_properties {
            obj.raw("additionalProperties", "false");
        }
        write_default(self.scope.settings, &mut obj, default);
        obj.close();
    }
}

/// The note that says a default the format cannot write as a keyword (strict modes make
/// every property required): `default: 20`, so the model still learns it.
pub(super) fn default_note(value: &Value) -> String {
    format!("default: {value}")
}

/// `description` with the [`default_note`] of a default these settings drop; `None` when
/// nothing is dropped (the description stands as it is).
pub(super) fn with_dropped_default(
    settings: Settings,
    description: &str,
    default: Option<&Value>,
) -> Option<String> {
    let value = default.filter(|_| !settings.defaults)?;
    let mut notes = Notes::default();
    notes.push(default_note(value));
    notes.description(description)
}

pub(super) fn write_default(settings: Settings, obj: &mut Obj<'_>, default: Option<&Value>) {
    if let (true, Some(value)) = (settings.defaults, default) {
        write_value(obj.key("default"), value);
    }
}

/// The documented variants of an enum, as one note: `value: description; ...`.
pub(super) fn enum_notes(variants: &[EnumVariant], notes: &mut Notes) {
    let documented: Vec<String> = variants
        .iter()
        .filter(|v| !v.description.is_empty())
        .map(|v| format!("{}: {}", v.value, v.description.trim_end_matches('.')))
        .collect();
    if !documented.is_empty() {
        notes.push(documented.join("; "));
    }
}

/// An integer bound as a JSON number a model can write exactly.
pub(super) fn clamp_safe(value: i64) -> i64 {
    value.clamp(MIN_SAFE_INTEGER, MAX_SAFE_INTEGER)
}

/// `word` or `words` for the count written in `count`.
pub(crate) fn plural(count: &str, word: &str) -> String {
    if count == "1" { word.to_owned() } else { format!("{word}s") }
}

pub(super) fn limit_notes(notes: &mut Notes, min: Option<String>, max: Option<String>) {
    match (min, max) {
        (Some(a), Some(b)) => notes.push(format!("between {a} and {b}")),
        (Some(a), None) => notes.push(format!("at least {a}")),
        (None, Some(b)) => notes.push(format!("at most {b}")),
        (None, None) => {}
    }
}

/// The JSON type name when `ty` renders as a single `"type"` with no `enum`, else `None`.
pub(super) fn plain_type_name(ty: &Type) -> Option<&'static str> {
    match ty {
        Type::Boolean => Some("boolean"),
        Type::Integer { as_string: false, .. } => Some("integer"),
        Type::Integer { as_string: true, .. } | Type::String { .. } => Some("string"),
        Type::Number { .. } => Some("number"),
        Type::Array { .. } | Type::Tuple(_) => Some("array"),
        Type::Map(_) => Some("object"),
        _ => None,
    }
}

/// The `type` array of a [`plain_type_name`] or null.
pub(super) fn or_null(name: &'static str) -> &'static str {
    match name {
        "boolean" => r#"["boolean","null"]"#,
        "integer" => r#"["integer","null"]"#,
        "string" => r#"["string","null"]"#,
        "number" => r#"["number","null"]"#,
        "array" => r#"["array","null"]"#,
        _ => r#"["object","null"]"#,
    }
}

/// A short human name for a type, used in descriptions.
pub(super) fn shape_name(ty: &Type) -> &'static str {
    match ty {
        Type::Object(_) | Type::Map(_) => "object",
        Type::Enum(_) | Type::Const(_) => "string",
        Type::Nullable(_) => "nullable",
        Type::Any | Type::AnyOf(_) | Type::OneOf(_) | Type::Described(..) => "any",
        Type::Null => "null",
        other => plain_type_name(other).unwrap_or("any"),
    }
}
