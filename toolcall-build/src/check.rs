//! Check stage: rules across tools and modules, run on the lowered model.
//!
//! Duplicate tool names (an error naming both places), provider-safe names, what strict
//! mode cannot express (open objects, untyped values, tuples), recursive types where a
//! format takes no `$ref`, and the providers' documented limits (provider-rules §2, §3),
//! each with its file:line. Provider limits are warnings naming the provider: every format
//! is generated, and a crate may only use some. Every walk over a parameter's type follows
//! its references into the tool's definitions (each once).

use std::collections::BTreeMap;

use toolcall_runtime::ir::{
    Definition, MAX_SAFE_INTEGER, MIN_SAFE_INTEGER, Param, Tool, Type, find_definition,
};
use toolcall_runtime::render::{INLINED_LEVELS, InputKind, OPENAI_STRICT_FORMATS, every_node_typed};

use crate::diagnostics::{Diagnostics, Level};
use crate::model::{ToolDef, ToolModule};

/// Whether `name` matches `^[a-zA-Z0-9_-]{1,64}$`, the rule of OpenAI and Anthropic.
pub fn is_provider_safe(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Runs every check over all modules.
pub fn check(modules: &[ToolModule], diags: &Diagnostics) {
    check_duplicates(modules, diags);
    for module in modules {
        for tool in &module.tools {
            check_name(module, tool, diags);
            check_gemini_names(module, tool, diags);
            check_strict(module, tool, diags);
            check_recursion(module, tool, diags);
            check_anthropic_strict(module, tool, diags);
            check_values(module, tool, diags);
            check_limits(module, tool, diags);
            check_schema_depth(module, tool, diags);
        }
    }
    check_crate_limits(modules, diags);
}

/// The fewest words of description search finds a tool well by: shorter, the tool is found
/// only when a query names it.
pub const SEARCHABLE_WORDS: usize = 4;

/// With tool search on (`Builder::tool_search`), a warning for each tool whose description
/// is missing or under [`SEARCHABLE_WORDS`] words: search matches a query against what a
/// tool's texts say, and a name alone rarely holds the words a user asks with.
pub fn check_searchable(modules: &[ToolModule], diags: &Diagnostics) {
    for module in modules {
        for tool in &module.tools {
            let words = tool.ir.description.split_whitespace().count();
            if words >= SEARCHABLE_WORDS {
                continue;
            }
            let said = if words == 0 {
                "has no description".to_owned()
            } else {
                format!("has a description of {words} word{}", if words == 1 { "" } else { "s" })
            };
            let message = format!(
                "tool search will find `{}` poorly: it {said}; say what it does in a sentence in its doc comment (the words a user would ask with)",
                tool.ir.name
            );
            diags.warn(&module.file, tool.span, message);
        }
    }
}

/// The deepest a tool's schema may nest: serde_json (like most JSON parsers) refuses a
/// document nested past 128 levels, and the definitions a provider or an MCP client reads
/// wrap the schema in up to 8 more (the tools array, the tool, `function`, `result`...).
pub const MAX_SCHEMA_DEPTH: usize = 120;

/// The deepest an OpenAI strict input schema may nest: OpenAI's Agents SDK
/// (`openai-agents`, `agents/strict_schema.py`, `_MAX_SCHEMA_DEPTH`) refuses a strict
/// schema whose objects and arrays nest past 100 levels ("JSON schema is too deeply nested
/// to process safely"), counted as `json_depth` counts them, the schema itself being 1.
pub const OPENAI_STRICT_MAX_DEPTH: usize = 100;

/// A schema nested past [`MAX_SCHEMA_DEPTH`] (types such as `Vec<Vec<...>>` hundreds deep)
/// is emitted as text no client could parse: an error at the tool. One whose OpenAI strict
/// schema nests past [`OPENAI_STRICT_MAX_DEPTH`] is a warning at the tool: OpenAI's own
/// tooling refuses it strict.
fn check_schema_depth(module: &ToolModule, tool: &ToolDef, diags: &Diagnostics) {
    let input = tool.texts.inputs().iter().map(|(_, text)| json_depth(text)).max().unwrap_or(0);
    let strict = json_depth(&tool.texts.strict_parameters);
    if strict > OPENAI_STRICT_MAX_DEPTH && input <= MAX_SCHEMA_DEPTH {
        diags.warn(
            &module.file,
            tool.span,
            format!(
                "`{}`: its OpenAI strict schema nests {strict} levels deep; OpenAI's Agents SDK refuses \
                 strict schemas nested past {OPENAI_STRICT_MAX_DEPTH} levels: send this tool without strict \
                 there, or flatten the types",
                tool.ir.name
            ),
        );
    }
    let output = tool.texts.output.as_deref().map_or(0, json_depth);
    for (what, depth) in [("input", input), ("output", output)] {
        if depth > MAX_SCHEMA_DEPTH {
            diags.error(
                &module.file,
                tool.span,
                format!(
                    "`{}`: its {what} schema nests {depth} levels deep; JSON parsers refuse documents \
                     nested past 128 levels, so no client could read this tool's definition (at most \
                     {MAX_SCHEMA_DEPTH}, which leaves room for the definition around it): flatten the types",
                    tool.ir.name
                ),
            );
        }
    }
}

/// The deepest nesting of objects and arrays in JSON `text` (brackets inside strings do
/// not count).
fn json_depth(text: &str) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for byte in text.bytes() {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

fn check_duplicates(modules: &[ToolModule], diags: &Diagnostics) {
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

fn check_name(module: &ToolModule, tool: &ToolDef, diags: &Diagnostics) {
    if !is_provider_safe(&tool.ir.name) {
        let message = format!(
            "tool name `{}` does not match ^[a-zA-Z0-9_-]{{1,64}}$: OpenAI and Anthropic reject it (export refuses to write it)",
            tool.ir.name
        );
        diags.warn(&module.file, tool.span, message);
    }
}

/// Whether Gemini accepts `name` as a parameter (or property) name:
/// `^[A-Za-z_][A-Za-z0-9_]{0,63}$`.
pub fn is_gemini_parameter_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.len() <= 64
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Gemini's name rules (provider-rules §5, §8): a declaration name starts with a letter or
/// `_`, and every parameter and property name matches `^[A-Za-z_][A-Za-z0-9_]{0,63}$`. One
/// warning per tool, naming what breaks them.
fn check_gemini_names(module: &ToolModule, tool: &ToolDef, diags: &Diagnostics) {
    if tool.ir.name.starts_with(|c: char| !(c.is_ascii_alphabetic() || c == '_')) {
        let message =
            format!("tool name `{}`: Gemini needs a name that starts with a letter or `_`", tool.ir.name);
        diags.warn(&module.file, tool.span, message);
    }
    let mut bad = std::collections::BTreeSet::new();
    for param in &tool.ir.params {
        if !is_gemini_parameter_name(&param.name) {
            bad.insert(param.name.clone());
        }
        property_names(&param.ty, &tool.ir.defs, &mut bad);
    }
    if !bad.is_empty() {
        let names: Vec<String> = bad.iter().map(|n| format!("`{n}`")).collect();
        let message = format!(
            "`{}`: Gemini refuses the parameter or property names {} (they must match \
             ^[A-Za-z_][A-Za-z0-9_]{{0,63}}$); rename them before sending this tool to Gemini",
            tool.ir.name,
            names.join(", ")
        );
        diags.warn(&module.file, tool.span, message);
    }
}

/// Calls `visit` on `ty` and every type inside it, following references into `defs` (each
/// definition once), at most 64 levels deep; `visit` says whether to go inside a type.
fn walk<'t>(ty: &'t Type, defs: &'t [Definition], visit: &mut dyn FnMut(&'t Type) -> bool) {
    fn inner<'t>(
        ty: &'t Type,
        defs: &'t [Definition],
        seen: &mut Vec<&'t str>,
        depth: usize,
        visit: &mut dyn FnMut(&'t Type) -> bool,
    ) {
        if depth > 64 || !visit(ty) {
            return;
        }
        if let Type::Ref(name) = ty {
            if !seen.contains(&name.as_str()) {
                seen.push(name);
                if let Some(def) = find_definition(defs, name) {
                    inner(&def.ty, defs, seen, depth + 1, visit);
                }
            }
            return;
        }
        ty.children().into_iter().for_each(|child| inner(child, defs, seen, depth + 1, visit));
    }
    inner(ty, defs, &mut Vec::new(), 0, visit);
}

/// Property names anywhere inside `ty` that Gemini refuses.
fn property_names(ty: &Type, defs: &[Definition], out: &mut std::collections::BTreeSet<String>) {
    walk(ty, defs, &mut |ty| {
        if let Type::Object(params) = ty {
            out.extend(params.iter().filter(|p| !is_gemini_parameter_name(&p.name)).map(|p| p.name.clone()));
        }
        true
    });
}

/// JSON Schema 2020-12's defined `format` values; anything else is non-standard.
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// What is wrong with the values a type admits, whatever the format: a warning or an error.
fn value_problems(ty: &Type, defs: &[Definition], out: &mut Vec<(Level, String)>) {
    walk(ty, defs, &mut |ty| {
        type_problems(ty, out);
        true
    });
}

/// What is wrong with the values of `ty` itself (not looking inside it).
fn type_problems(ty: &Type, out: &mut Vec<(Level, String)>) {
    match ty {
        Type::String { format, pattern, min_length, max_length } => {
            if let Some(format) = format.as_deref().filter(|f| !STANDARD_FORMATS.contains(f)) {
                out.push((Level::Warning, format!("format `{format}` is not a JSON Schema format; validators and grammar engines such as llguidance reject it")));
            }
            if let Some(pattern) = pattern {
                pattern_problems(pattern, out);
            }
            if let (Some(min), Some(max)) = (min_length, max_length)
                && min > max
            {
                out.push((
                    Level::Error,
                    format!("minLength {min} and maxLength {max}: no string satisfies both"),
                ));
            }
        }
        Type::Integer { minimum: Some(min), maximum: Some(max), .. } if min > max => {
            out.push((Level::Error, format!("minimum {min} and maximum {max}: no integer satisfies both")));
        }
        Type::Number { minimum: Some(min), maximum: Some(max) } if min > max => {
            out.push((Level::Error, format!("minimum {min} and maximum {max}: no number satisfies both")));
        }
        Type::Array { min_items: Some(min), max_items: Some(max), .. } if min > max => {
            out.push((Level::Error, format!("minItems {min} and maxItems {max}: no array satisfies both")));
        }
        _ => {}
    }
}

/// Lookarounds and backreferences: Anthropic strict and llguidance reject them.
fn pattern_problems(pattern: &str, out: &mut Vec<(Level, String)>) {
    let lookaround = ["(?=", "(?!", "(?<=", "(?<!"].iter().any(|l| pattern.contains(l));
    let backreference =
        pattern.as_bytes().windows(2).any(|w| w[0] == b'\\' && w[1].is_ascii_digit() && w[1] != b'0');
    if lookaround {
        out.push((Level::Warning, format!("pattern `{pattern}` uses a lookahead or lookbehind, which Anthropic strict and llguidance reject")));
    }
    if backreference {
        out.push((
            Level::Warning,
            format!("pattern `{pattern}` uses a backreference, which Anthropic strict and llguidance reject"),
        ));
    }
}

fn check_values(module: &ToolModule, tool: &ToolDef, diags: &Diagnostics) {
    for (index, param) in tool.ir.params.iter().enumerate() {
        let span = tool.params.get(index).map_or(tool.span, |p| p.span);
        let mut found = Vec::new();
        value_problems(&param.ty, &tool.ir.defs, &mut found);
        found.sort();
        found.dedup();
        for (level, problem) in found {
            let message = format!("`{}` parameter `{}`: {problem}", tool.ir.name, param.name);
            match level {
                Level::Note => diags.note(&module.file, span, message),
                Level::Warning => diags.warn(&module.file, span, message),
                Level::Error => diags.error(&module.file, span, message),
            }
        }
    }
}

fn check_strict(module: &ToolModule, tool: &ToolDef, diags: &Diagnostics) {
    for (index, param) in tool.ir.params.iter().enumerate() {
        let span = tool.params.get(index).map_or(tool.span, |p| p.span);
        let mut found = Vec::new();
        strict_losses(&param.ty, &tool.ir.defs, &mut found);
        found.sort_unstable();
        found.dedup();
        for loss in found {
            let message = format!("`{}` parameter `{}`: {loss}", tool.ir.name, param.name);
            diags.warn(&module.file, span, message);
        }
    }
}

/// What strict schemas lose for `ty`.
fn strict_losses(ty: &Type, defs: &[Definition], out: &mut Vec<&'static str>) {
    walk(ty, defs, &mut |ty| match ty {
        Type::Map(_) => {
            // Its values cannot be sent at all; nothing below it matters in strict mode.
            out.push(
                "open object: strict mode closes every object, so the model can only send {}; to let it send \
                 entries, take a list of structs with a key and a value (`Vec<Entry>`) instead of a map",
            );
            false
        }
        Type::Any => {
            out.push(
                "untyped value `{}`: strict modes cannot constrain it, and OpenAI strict (which needs a type) \
                 gets any JSON value whose objects are empty, as it closes every object",
            );
            true
        }
        Type::Tuple(_) => {
            out.push("tuple: strict mode drops prefixItems, so item order is only in the description");
            true
        }
        _ => true,
    });
}

/// A parameter of a recursive type: one note naming the types (information, no action
/// needed: not printed by a build). Gemini's `parameters` and Anthropic strict take no
/// recursive schema, so the renderer writes them out a few levels deep there
/// (provider-rules §3, §5); what that costs Anthropic strict is [`check_anthropic_strict`]'s
/// warning.
fn check_recursion(module: &ToolModule, tool: &ToolDef, diags: &Diagnostics) {
    for (index, param) in tool.ir.params.iter().enumerate() {
        let mut names: Vec<&str> = Vec::new();
        walk(&param.ty, &tool.ir.defs, &mut |ty| {
            if let Type::Ref(name) = ty
                && !names.contains(&name.as_str())
            {
                names.push(name);
            }
            true
        });
        if names.is_empty() {
            continue;
        }
        let span = tool.params.get(index).map_or(tool.span, |p| p.span);
        let list: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
        let message = format!(
            "`{}` parameter `{}`: recursive type {}: `$defs` and `$ref` where the format takes them; \
             Gemini and Anthropic strict take no recursive schema, so there it is written out \
             {INLINED_LEVELS} levels deep, then `{{}}`",
            tool.ir.name,
            param.name,
            list.join(", ")
        );
        diags.note(&module.file, span, message);
    }
}

/// A tool whose Anthropic strict schema holds a node without a type (an untyped value, or
/// a recursive type cut off [`INLINED_LEVELS`] deep) is sent without `strict` in that format
/// (`every_node_typed`; Anthropic's SDK refuses such a strict schema): a warning at the tool
/// naming why, since a crate sending it strict loses strictness for that tool.
fn check_anthropic_strict(module: &ToolModule, tool: &ToolDef, diags: &Diagnostics) {
    let schema = tool.texts.input(InputKind::AnthropicStrict);
    if serde_json::from_str(schema).is_ok_and(|schema| every_node_typed(&schema)) {
        return;
    }
    let (mut untyped, mut recursive) = (Vec::new(), Vec::new());
    for param in &tool.ir.params {
        walk(&param.ty, &tool.ir.defs, &mut |ty| {
            match ty {
                Type::Any if !untyped.contains(&param.name) => untyped.push(param.name.clone()),
                Type::Ref(name) if !recursive.contains(name) => recursive.push(name.clone()),
                _ => {}
            }
            true
        });
    }
    let quoted = |names: &[String]| names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ");
    let mut why = Vec::new();
    if !untyped.is_empty() {
        why.push(format!("an untyped value in {}", quoted(&untyped)));
    }
    if !recursive.is_empty() {
        why.push(format!(
            "recursive type {} written out {INLINED_LEVELS} levels deep, then untyped",
            quoted(&recursive)
        ));
    }
    if why.is_empty() {
        why.push("a part written as `{}`, such as one past the inlining budget".to_owned());
    }
    let message = format!(
        "`{}`: its Anthropic strict schema has a node without a type ({}), which Anthropic's SDK \
         refuses in a strict tool; its Anthropic strict definition goes out without `strict` (the \
         other tools keep it)",
        tool.ir.name,
        why.join("; ")
    );
    diags.warn(&module.file, tool.span, message);
}

/// OpenAI: at most this many functions per request.
const OPENAI_MAX_TOOLS: usize = 128;
/// OpenAI: maximum description length (observed API error).
const OPENAI_MAX_DESCRIPTION: usize = 1024;
/// OpenAI strict: total object properties.
const OPENAI_MAX_PROPERTIES: usize = 5000;
/// OpenAI strict: levels of object nesting.
const OPENAI_MAX_NESTING: usize = 10;
/// OpenAI strict: enum values across all enums of a schema.
const OPENAI_MAX_ENUM_VALUES: usize = 1000;
/// OpenAI strict: characters of property names, enum and const values.
const OPENAI_MAX_STRING_CHARS: usize = 120_000;
/// OpenAI strict: an enum above this many values ...
const OPENAI_LARGE_ENUM: usize = 250;
/// ... may hold at most this many characters.
const OPENAI_LARGE_ENUM_CHARS: usize = 15_000;
/// Anthropic strict, per request: strict tools, optional parameters, union parameters.
const ANTHROPIC_STRICT_LIMITS: (usize, usize, usize) = (20, 24, 16);

/// Sizes of one tool's input schema, counted over the IR.
#[derive(Default, Debug, PartialEq, Eq)]
struct Measure {
    properties: usize,
    nesting: usize,
    enum_values: usize,
    string_chars: usize,
    /// (values, characters) of every enum with more than 250 values.
    large_enums: Vec<(usize, usize)>,
    /// `format` values OpenAI strict does not accept.
    formats: Vec<String>,
    /// Integer bounds outside ±(2^53−1).
    unsafe_bounds: bool,
    optional: usize,
    unions: usize,
}

impl Measure {
    /// The tool's input schema: its parameters, and each definition once (as `$defs`).
    fn of_tool(tool: &Tool) -> Measure {
        let mut m = Measure::default();
        m.object(&tool.params, 1);
        for def in &tool.defs {
            m.string_chars += def.name.chars().count();
            m.walk(&def.ty, 1);
        }
        m.optional = tool.params.iter().filter(|p| p.optional).count();
        // Anthropic strict keeps optional properties as they are (no nullable widening).
        m.unions = tool.params.iter().filter(|p| is_union(&p.ty, &tool.defs)).count();
        m
    }

    fn object(&mut self, params: &[Param], level: usize) {
        self.nesting = self.nesting.max(level);
        self.properties += params.len();
        for param in params {
            self.string_chars += param.name.chars().count();
            self.walk(&param.ty, level);
        }
    }

    fn walk(&mut self, ty: &Type, level: usize) {
        if level > 64 {
            return;
        }
        match ty {
            Type::Object(params) => return self.object(params, level + 1),
            Type::Enum(variants) => {
                let chars: usize = variants.iter().map(|v| v.value.chars().count()).sum();
                self.enum_values += variants.len();
                self.string_chars += chars;
                if variants.len() > OPENAI_LARGE_ENUM {
                    self.large_enums.push((variants.len(), chars));
                }
            }
            Type::Const(value) => self.string_chars += value.chars().count(),
            Type::String { format: Some(format), .. }
                if !OPENAI_STRICT_FORMATS.contains(&format.as_str()) =>
            {
                self.formats.push(format.clone());
            }
            Type::Integer { minimum, maximum, .. } => {
                let outside =
                    |v: &Option<i64>| v.is_some_and(|v| !(MIN_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&v));
                self.unsafe_bounds |= outside(minimum) || outside(maximum);
            }
            _ => {}
        }
        ty.children().into_iter().for_each(|child| self.walk(child, level));
    }
}

/// Whether `ty` is a union (Anthropic strict writes definitions out: a reference is what
/// it stands for).
fn is_union(ty: &Type, defs: &[Definition]) -> bool {
    match ty.undescribed() {
        Type::AnyOf(_) | Type::OneOf(_) | Type::Nullable(_) => true,
        Type::Ref(name) => find_definition(defs, name).is_some_and(|def| {
            matches!(def.ty.undescribed(), Type::AnyOf(_) | Type::OneOf(_) | Type::Nullable(_))
        }),
        _ => false,
    }
}

/// The provider limits that apply to one tool.
fn limit_messages(tool: &ToolDef) -> Vec<String> {
    let m = Measure::of_tool(&tool.ir);
    let mut out = Vec::new();
    let mut push = |cond: bool, text: String| {
        if cond {
            out.push(text);
        }
    };
    let chars = tool.ir.description.chars().count();
    push(
        chars > OPENAI_MAX_DESCRIPTION,
        format!("description is {chars} characters; OpenAI rejects more than {OPENAI_MAX_DESCRIPTION}"),
    );
    push(
        m.properties > OPENAI_MAX_PROPERTIES,
        format!("{} object properties; OpenAI strict allows {OPENAI_MAX_PROPERTIES}", m.properties),
    );
    push(
        m.nesting > OPENAI_MAX_NESTING,
        format!("{} levels of object nesting; OpenAI strict allows {OPENAI_MAX_NESTING}", m.nesting),
    );
    push(
        m.enum_values > OPENAI_MAX_ENUM_VALUES,
        format!("{} enum values; OpenAI strict allows {OPENAI_MAX_ENUM_VALUES}", m.enum_values),
    );
    push(
        m.string_chars > OPENAI_MAX_STRING_CHARS,
        format!(
            "{} characters of property names and enum values; OpenAI strict allows {OPENAI_MAX_STRING_CHARS}",
            m.string_chars
        ),
    );
    for (values, chars) in &m.large_enums {
        push(
            *chars > OPENAI_LARGE_ENUM_CHARS,
            format!(
                "an enum of {values} values holds {chars} characters; OpenAI strict allows {OPENAI_LARGE_ENUM_CHARS} for enums over {OPENAI_LARGE_ENUM} values"
            ),
        );
    }
    for format in &m.formats {
        push(
            true,
            format!(
                "format `{format}` is not accepted by OpenAI strict; it is moved into the description there"
            ),
        );
    }
    push(m.unsafe_bounds, "integer bounds outside ±(2^53−1) are clamped in every schema (JSON clients lose precision past them)".to_owned());
    out
}

fn check_limits(module: &ToolModule, tool: &ToolDef, diags: &Diagnostics) {
    for message in limit_messages(tool) {
        diags.warn(&module.file, tool.span, format!("`{}`: {message}", tool.ir.name));
    }
}

/// Limits over the whole crate (one request sending `ALL`).
fn check_crate_limits(modules: &[ToolModule], diags: &Diagnostics) {
    let tools: Vec<(&ToolModule, &ToolDef)> =
        modules.iter().flat_map(|m| m.tools.iter().map(move |t| (m, t))).collect();
    let Some((module, first)) = tools.first() else { return };
    let say = |text: String| diags.warn(&module.file, first.span, text);
    if tools.len() > OPENAI_MAX_TOOLS {
        say(format!(
            "the crate's `ALL` (reported at its first tool) has {} tools; OpenAI accepts at most {OPENAI_MAX_TOOLS} per request: send a subset",
            tools.len()
        ));
    }
    let (max_tools, max_optional, max_unions) = ANTHROPIC_STRICT_LIMITS;
    let measures: Vec<Measure> = tools.iter().map(|(_, t)| Measure::of_tool(&t.ir)).collect();
    let optional: usize = measures.iter().map(|m| m.optional).sum();
    let unions: usize = measures.iter().map(|m| m.unions).sum();
    if tools.len() > max_tools || optional > max_optional || unions > max_unions {
        say(format!(
            "Anthropic strict allows {max_tools} strict tools, {max_optional} optional and {max_unions} union parameters per request; \
             the crate's `ALL` (reported at its first tool) has {}, {optional} and {unions}: send a subset with strict",
            tools.len()
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_depth_counts_brackets_outside_strings() {
        assert_eq!(json_depth("{}"), 1);
        assert_eq!(json_depth(r#"{"a":[{"b":[]}],"c":{}}"#), 4);
        assert_eq!(json_depth(r#"{"a":"{[{[\"{"}"#), 1);
        assert_eq!(json_depth(r#"["\\",[[]]]"#), 3);
        assert_eq!(json_depth(""), 0);
    }

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

    #[test]
    fn gemini_parameter_names() {
        for ok in ["city", "_x", "zip_code", "A1", &"a".repeat(64)] {
            assert!(is_gemini_parameter_name(ok), "{ok}");
        }
        for bad in ["e-mail", "2fa", "", "na.me", "日本", &"a".repeat(65)] {
            assert!(!is_gemini_parameter_name(bad), "{bad}");
        }
        let diags = Diagnostics::default();
        let nested = Type::Object(vec![Param::new("e-mail", Type::string())]);
        let module = ToolModule {
            path: vec![],
            file: "t.rs".into(),
            tools: vec![tool(vec![Param::new("ok", nested), Param::new("bad-name", Type::string())])],
            overrides_const: false,
            tools_const: false,
            kind: crate::model::Kind::Tool,
            resources: Vec::new(),
            resources_const: false,
        };
        check_gemini_names(&module, &module.tools[0], &diags);
        let found = diags.into_sorted();
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].message.contains("`bad-name`, `e-mail`"), "{}", found[0].message);
    }

    fn tool(params: Vec<Param>) -> ToolDef {
        crate::lower::rendered(ToolDef {
            ir: {
                let mut ir = toolcall_runtime::ir::Tool::new("t");
                ir.params = params;
                ir
            },
            ident: quote::format_ident!("t"),
            span: proc_macro2::Span::call_site(),
            params: Vec::new(),
            returns: crate::model::Returns::Value,
            is_async: false,
            context_at: Vec::new(),
            progress_at: Vec::new(),
            returns_content: false,
            timeout_ms: None,
            task: None,
            scopes: Vec::new(),
            value_kind: toolcall_runtime::ResourceKind::Json,
            texts: Default::default(),
            headers: Vec::new(),
        })
    }

    fn nested(levels: usize) -> Type {
        (0..levels).fold(Type::string(), |inner, _| Type::Object(vec![Param::new("x", inner)]))
    }

    #[test]
    fn nesting_past_ten_levels_is_reported() {
        let deep = limit_messages(&tool(vec![Param::new("a", nested(11))]));
        assert!(deep.iter().any(|m| m.contains("12 levels of object nesting")), "{deep:?}");
        let ok = limit_messages(&tool(vec![Param::new("a", nested(9))]));
        assert!(ok.is_empty(), "{ok:?}");
    }

    #[test]
    fn enum_counts_and_formats_are_reported() {
        let values: Vec<String> = (0..1001).map(|i| format!("v{i}")).collect();
        let messages = limit_messages(&tool(vec![
            Param::new("e", Type::enumeration(values)),
            Param::new("u", Type::string_format("uri")),
        ]));
        assert!(messages.iter().any(|m| m.contains("1001 enum values")), "{messages:?}");
        assert!(messages.iter().any(|m| m.contains("format `uri`")), "{messages:?}");
    }

    #[test]
    fn long_descriptions_and_unsafe_bounds_are_reported() {
        let mut t = tool(vec![Param::new("n", Type::integer_between(i64::MIN, 0))]);
        t.ir.description = "x".repeat(1025);
        let messages = limit_messages(&t);
        assert!(messages.iter().any(|m| m.contains("1025 characters")), "{messages:?}");
        assert!(messages.iter().any(|m| m.contains("clamped")), "{messages:?}");
    }

    #[test]
    fn a_dotted_name_warns_and_a_duplicate_is_an_error_naming_both_places() {
        let module = |name: &str, tool_name: &str| ToolModule {
            path: vec![name.to_owned()],
            file: std::path::PathBuf::from(format!("src/tools/{name}.rs")),
            tools: vec![{
                let mut t = tool(Vec::new());
                t.ir.name = tool_name.to_owned();
                t
            }],
            overrides_const: false,
            tools_const: false,
            kind: crate::model::Kind::Tool,
            resources: Vec::new(),
            resources_const: false,
        };
        let diags = Diagnostics::default();
        check(&[module("a", "get.weather"), module("b", "get.weather")], &diags);
        let all = diags.into_sorted();
        let text: Vec<String> = all.iter().map(ToString::to_string).collect();
        assert!(
            text.iter()
                .any(|d| d.starts_with("src/tools/a.rs:") && d.contains("`get.weather` does not match")),
            "{text:?}"
        );
        let duplicate = all.iter().find(|d| d.level == crate::diagnostics::Level::Error).expect("an error");
        assert_eq!(duplicate.file, std::path::PathBuf::from("src/tools/b.rs"));
        assert!(
            duplicate.message.contains("defined twice: here and at src/tools/a.rs:"),
            "{}",
            duplicate.message
        );
    }
}
