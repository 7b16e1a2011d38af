//! An MCP tool's `inputSchema` (JSON Schema) read into toolcall's tool IR, so the one
//! renderer (`toolcall_runtime::render`) writes its definition for every provider under
//! the rules compiled tools follow, and the one IR validator checks the model's arguments
//! before they are sent.
//!
//! What the IR holds is read as it is: objects with `properties` and `required`, strings
//! (`format`, `pattern`, lengths), integers and numbers with inclusive bounds, arrays
//! (`items`, item counts, `uniqueItems`), string `enum`s and `const`s, `anyOf`/`oneOf`
//! (a `null` branch, a `["T","null"]` type or OpenAPI's `nullable` makes the type
//! nullable), `$ref`s into `$defs`/`definitions` (recursive ones too), descriptions and
//! defaults. Annotations (`title`, `examples`, `$schema`, `x-*`) are left out.
//!
//! What it does not hold (`allOf` of several schemas, `not`, `if`, `patternProperties`,
//! `multipleOf`, exclusive bounds on numbers, a `$ref` elsewhere, an `enum` of other
//! values) is dropped, and said in the description so the model still reads it; such a
//! schema, and one with a value of any type, an open map or a tuple (which a strict mode
//! cannot constrain faithfully), is [`Imported::not_strict`]: the agent sends that tool
//! non-strict, with a warning, whatever it sends the others.

use std::collections::HashSet;

use serde_json::{Map, Value};
use toolcall_runtime::ir::{Definition, EnumVariant, Param, Tool, Type};

/// A tool's schema as IR, and why a strict mode cannot take it faithfully.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Imported {
    /// The tool, named and described, its parameters from the schema.
    pub(crate) tool: Tool,
    /// Why its definition cannot be strict (empty when it can), one reason each.
    pub(crate) not_strict: Vec<String>,
    /// Whether the IR holds every constraint of the schema's parameters, so the IR
    /// validator may refuse arguments: `false` when the arguments' object itself could not
    /// be read (the server then checks them alone).
    pub(crate) checkable: bool,
}

/// Keywords that say nothing a model or a validator needs.
const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "default",
    "examples",
    "example",
    "$schema",
    "$id",
    "$comment",
    "$defs",
    "definitions",
    "deprecated",
    "readOnly",
    "writeOnly",
    "contentMediaType",
    "contentEncoding",
    "discriminator",
    "nullable",
];

/// Keywords the importer reads (the rest, unless annotations, are dropped and described).
const READ: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "enum",
    "const",
    "anyOf",
    "oneOf",
    "allOf",
    "$ref",
];

/// Reads `schema` (an MCP `inputSchema`) as the parameters of a tool named `name`.
pub(crate) fn import(name: &str, title: &str, description: &str, schema: &Map<String, Value>) -> Imported {
    let mut importer =
        Importer { root: schema, defs: Vec::new(), started: HashSet::new(), not_strict: Vec::new() };
    let mut tool = Tool::new(name).description(description).title(title);
    let mut checkable = true;
    let (params, dropped) = importer.root_params();
    match params {
        Some(params) => tool.params = params,
        None => {
            checkable = false;
            importer.not_strict.push("its arguments are not an object of named properties".to_owned());
        }
    }
    if !dropped.is_empty() {
        let note = format!("(also: {})", dropped.join(", "));
        tool.description =
            if tool.description.is_empty() { note } else { format!("{} {note}", tool.description) };
    }
    tool.defs = std::mem::take(&mut importer.defs);
    let mut not_strict = importer.not_strict;
    for param in &tool.params {
        loose_parts(&param.ty, &param.name, &mut not_strict);
    }
    for def in &tool.defs {
        loose_parts(&def.ty, &def.name, &mut not_strict);
    }
    not_strict.dedup();
    Imported { tool, not_strict, checkable }
}

/// Adds to `out` each place under `ty` a strict mode cannot constrain faithfully: a value
/// of any type, an open map, a tuple.
fn loose_parts(ty: &Type, at: &str, out: &mut Vec<String>) {
    match ty {
        Type::Any => out.push(format!("`{at}` takes a value of any type")),
        Type::Map(_) => out.push(format!("`{at}` is an object with open keys")),
        Type::Tuple(_) => out.push(format!("`{at}` is a tuple")),
        _ => {}
    }
    match ty {
        Type::Object(params) => {
            for param in params {
                loose_parts(&param.ty, &format!("{at}.{}", param.name), out);
            }
        }
        Type::Array { items, .. } | Type::Map(items) => loose_parts(items, &format!("{at}[]"), out),
        Type::Tuple(items) => {
            for (i, item) in items.iter().enumerate() {
                loose_parts(item, &format!("{at}[{i}]"), out);
            }
        }
        other => {
            for child in other.children() {
                loose_parts(child, at, out);
            }
        }
    }
}

struct Importer<'s> {
    root: &'s Map<String, Value>,
    defs: Vec<Definition>,
    /// Definitions being read or read, so a recursive one is read once.
    started: HashSet<String>,
    not_strict: Vec<String>,
}

/// A schema read: its type, description and default.
struct Node {
    ty: Type,
    description: String,
    default: Option<Value>,
}

impl<'s> Importer<'s> {
    /// The parameters of the root object (`None` when it is not one), and the root's
    /// dropped keywords.
    fn root_params(&mut self) -> (Option<Vec<Param>>, Vec<String>) {
        let root = self.root;
        let types = type_names(root);
        let object = types.is_empty() || types.iter().any(|t| t == "object");
        let has_properties = root.get("properties").is_some_and(Value::is_object);
        let open = root.get("additionalProperties").is_some_and(Value::is_object);
        if !object || (!has_properties && open) {
            return (None, Vec::new());
        }
        let mut dropped = Vec::new();
        for (key, value) in root {
            let known = ANNOTATIONS.contains(&key.as_str())
                || key.starts_with("x-")
                || matches!(key.as_str(), "type" | "properties" | "required" | "additionalProperties");
            if !known {
                dropped.push(format!("{key}: {value}"));
            }
        }
        if !dropped.is_empty() {
            self.not_strict
                .push(format!("the arguments' schema has {} the IR cannot hold", keys_of(&dropped)));
        }
        if open {
            self.not_strict.push("the arguments' object takes keys besides its properties".to_owned());
        }
        (Some(self.properties(root, "")), dropped)
    }

    /// The properties of object schema `map`, in order, as parameters.
    fn properties(&mut self, map: &Map<String, Value>, at: &str) -> Vec<Param> {
        let required: Vec<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let Some(properties) = map.get("properties").and_then(Value::as_object) else { return Vec::new() };
        properties
            .iter()
            .map(|(name, schema)| {
                let path = if at.is_empty() { name.clone() } else { format!("{at}.{name}") };
                let node = self.node(schema, &path);
                let mut param = Param::new(name.as_str(), node.ty).description(node.description);
                if !required.contains(&name.as_str()) {
                    param = param.optional();
                }
                param.default = node.default;
                param
            })
            .collect()
    }

    /// The type of a schema used inside another (an item, a branch): its description kept
    /// with it.
    fn inner(&mut self, schema: &Value, at: &str) -> Type {
        let node = self.node(schema, at);
        if node.description.is_empty() {
            node.ty
        } else {
            Type::Described(Box::new(node.ty), node.description)
        }
    }

    /// Reads one schema.
    fn node(&mut self, schema: &Value, at: &str) -> Node {
        let map = match schema {
            Value::Object(map) => map,
            Value::Bool(true) => return Node { ty: Type::Any, description: String::new(), default: None },
            other => {
                self.not_strict.push(format!("`{at}` has the schema {other}, which the IR cannot hold"));
                return Node { ty: Type::Any, description: String::new(), default: None };
            }
        };
        let mut description = map.get("description").and_then(Value::as_str).unwrap_or_default().to_owned();
        let default = map.get("default").cloned();
        let mut dropped = Vec::new();
        let mut ty = self.bare(map, at, &mut dropped);
        if map.get("nullable") == Some(&Value::Bool(true)) {
            ty = ty.nullable();
        }
        for (key, value) in map {
            let known =
                READ.contains(&key.as_str()) || ANNOTATIONS.contains(&key.as_str()) || key.starts_with("x-");
            if !known {
                dropped.push(format!("{key}: {value}"));
            }
        }
        if !dropped.is_empty() {
            self.not_strict.push(format!("`{at}` has {} the IR cannot hold", keys_of(&dropped)));
            let note = format!("(also: {})", dropped.join(", "));
            description = if description.is_empty() { note } else { format!("{description} {note}") };
        }
        Node { ty, description, default }
    }

    /// The type a schema says, without its description; keywords read but not held go
    /// into `dropped`.
    fn bare(&mut self, map: &Map<String, Value>, at: &str, dropped: &mut Vec<String>) -> Type {
        if let Some(reference) = map.get("$ref") {
            return match reference.as_str().and_then(definition_name) {
                Some(name) if self.definition(name).is_some() => Type::Ref(name.to_owned()),
                _ => {
                    dropped.push(format!("$ref: {reference}"));
                    Type::Any
                }
            };
        }
        if let Some(value) = map.get("const") {
            return match value {
                Value::String(text) => Type::Const(text.clone()),
                other => {
                    dropped.push(format!("const: {other}"));
                    Type::Any
                }
            };
        }
        if let Some(values) = map.get("enum").and_then(Value::as_array) {
            let null = values.iter().any(Value::is_null);
            let strings: Option<Vec<&str>> =
                values.iter().filter(|v| !v.is_null()).map(Value::as_str).collect();
            return match strings {
                Some(strings) if !strings.is_empty() => {
                    let variants = strings
                        .into_iter()
                        .map(|value| EnumVariant { value: value.to_owned(), description: String::new() });
                    let ty = Type::Enum(variants.collect());
                    if null || type_names(map).iter().any(|t| t == "null") { ty.nullable() } else { ty }
                }
                _ => {
                    dropped.push(format!("enum: {}", Value::Array(values.clone())));
                    Type::Any
                }
            };
        }
        for (key, one_of) in [("anyOf", false), ("oneOf", true)] {
            if let Some(branches) = map.get(key).and_then(Value::as_array) {
                return self.union(branches, one_of, at);
            }
        }
        if let Some(all) = map.get("allOf").and_then(Value::as_array) {
            if let [only] = all.as_slice() {
                return self.node(only, at).ty;
            }
            dropped.push(format!("allOf: {}", Value::Array(all.clone())));
            return Type::Any;
        }
        let names = type_names(map);
        let nullable = names.iter().any(|t| t == "null");
        let mut kinds: Vec<&str> = names.iter().map(String::as_str).filter(|t| *t != "null").collect();
        if kinds.is_empty() && !nullable {
            if map.contains_key("properties") || map.contains_key("additionalProperties") {
                kinds.push("object");
            } else if map.contains_key("items") || map.contains_key("prefixItems") {
                kinds.push("array");
            }
        }
        let ty = match kinds.as_slice() {
            [] if nullable => Type::Null,
            [] => Type::Any,
            [kind] => self.typed(kind, map, at, dropped),
            several => Type::AnyOf(several.iter().map(|kind| self.typed(kind, map, at, dropped)).collect()),
        };
        if nullable && !matches!(ty, Type::Null) { ty.nullable() } else { ty }
    }

    /// `anyOf`/`oneOf`: a `null` branch makes the rest nullable; one branch left is itself.
    fn union(&mut self, branches: &[Value], one_of: bool, at: &str) -> Type {
        let is_null = |branch: &Value| {
            branch.get("type").and_then(Value::as_str) == Some("null")
                && branch.as_object().is_some_and(|m| m.len() <= 2)
        };
        let null = branches.iter().any(is_null);
        let mut types: Vec<Type> = branches
            .iter()
            .filter(|branch| !is_null(branch))
            .enumerate()
            .map(|(i, branch)| self.inner(branch, &format!("{at}|{i}")))
            .collect();
        let ty = match types.len() {
            0 => Type::Null,
            1 => types.remove(0),
            _ if one_of => Type::OneOf(types),
            _ => Type::AnyOf(types),
        };
        if null && !matches!(ty, Type::Null) { ty.nullable() } else { ty }
    }

    /// A schema of one JSON type.
    fn typed(&mut self, kind: &str, map: &Map<String, Value>, at: &str, dropped: &mut Vec<String>) -> Type {
        let unsigned = |key: &str| map.get(key).and_then(Value::as_u64);
        match kind {
            "string" => Type::String {
                format: map.get("format").and_then(Value::as_str).map(str::to_owned),
                pattern: map.get("pattern").and_then(Value::as_str).map(str::to_owned),
                min_length: unsigned("minLength"),
                max_length: unsigned("maxLength"),
            },
            "integer" => {
                let (minimum, maximum) = integer_bounds(map);
                Type::Integer { minimum, maximum, non_zero: false, as_string: false, width: None }
            }
            "number" => {
                for key in ["exclusiveMinimum", "exclusiveMaximum"] {
                    if let Some(value) = map.get(key).filter(|v| v.is_number() || v == &&Value::Bool(true)) {
                        dropped.push(format!("{key}: {value}"));
                    }
                }
                let bound = |key: &str| map.get(key).and_then(Value::as_f64);
                Type::Number { minimum: bound("minimum"), maximum: bound("maximum") }
            }
            "boolean" => Type::Boolean,
            "null" => Type::Null,
            "array" => self.array(map, at, dropped),
            "object" => {
                let has_properties = map.get("properties").is_some_and(Value::is_object);
                match map.get("additionalProperties") {
                    Some(values @ Value::Object(_)) if !has_properties => {
                        Type::Map(Box::new(self.inner(values, &format!("{at}{{}}"))))
                    }
                    Some(values @ Value::Object(_)) => {
                        dropped.push(format!("additionalProperties: {values}"));
                        Type::Object(self.properties(map, at))
                    }
                    _ if has_properties => Type::Object(self.properties(map, at)),
                    Some(Value::Bool(false)) => Type::Object(Vec::new()),
                    _ => Type::Map(Box::new(Type::Any)),
                }
            }
            other => {
                dropped.push(format!("type: {other:?}"));
                Type::Any
            }
        }
    }

    /// An array: homogeneous (`items` a schema), or a tuple (`prefixItems`, or draft-7's
    /// `items` array) of a fixed length.
    fn array(&mut self, map: &Map<String, Value>, at: &str, dropped: &mut Vec<String>) -> Type {
        let unsigned = |key: &str| map.get(key).and_then(Value::as_u64);
        let prefix = match (map.get("prefixItems"), map.get("items")) {
            (Some(Value::Array(items)), _) | (None, Some(Value::Array(items))) => Some(items),
            _ => None,
        };
        if let Some(items) = prefix {
            let n = items.len() as u64;
            let closed = map.get("items") == Some(&Value::Bool(false))
                || map.get("items").is_some_and(Value::is_array);
            if closed || (unsigned("minItems") == Some(n) && unsigned("maxItems") == Some(n)) {
                let items = items.iter().enumerate().map(|(i, item)| self.inner(item, &format!("{at}[{i}]")));
                return Type::Tuple(items.collect());
            }
            dropped.push(format!("prefixItems: {}", Value::Array(items.clone())));
            return Type::array(Type::Any);
        }
        let items = match map.get("items") {
            Some(items) => self.inner(items, &format!("{at}[]")),
            None => Type::Any,
        };
        Type::Array {
            items: Box::new(items),
            min_items: unsigned("minItems"),
            max_items: unsigned("maxItems"),
            unique: map.get("uniqueItems") == Some(&Value::Bool(true)),
        }
    }

    /// Reads definition `name` of the root into [`Importer::defs`] (once); `None` when the
    /// root has no such definition.
    fn definition(&mut self, name: &str) -> Option<()> {
        if self.started.contains(name) {
            return Some(());
        }
        let root = self.root;
        let schema = ["$defs", "definitions"]
            .iter()
            .find_map(|key| root.get(*key).and_then(Value::as_object).and_then(|defs| defs.get(name)))?;
        self.started.insert(name.to_owned());
        let ty = self.inner(schema, name);
        self.defs.push(Definition { name: name.to_owned(), ty });
        Some(())
    }
}

/// The definition a local `$ref` names (`#/$defs/X`, `#/definitions/X`), JSON-pointer
/// escapes undone.
fn definition_name(reference: &str) -> Option<&str> {
    let name = reference.strip_prefix("#/$defs/").or_else(|| reference.strip_prefix("#/definitions/"))?;
    (!name.contains('/') && !name.contains('~')).then_some(name)
}

/// The JSON types a schema's `type` names (none when it has no `type`).
fn type_names(map: &Map<String, Value>) -> Vec<String> {
    match map.get("type") {
        Some(Value::String(name)) => vec![name.clone()],
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        _ => Vec::new(),
    }
}

/// An integer schema's inclusive bounds: fractional bounds rounded inward, exclusive ones
/// (draft 6's numbers, draft 4's flags) made inclusive, bounds past `i64` left out.
fn integer_bounds(map: &Map<String, Value>) -> (Option<i64>, Option<i64>) {
    let number = |key: &str| map.get(key).and_then(Value::as_f64);
    let flag = |key: &str| map.get(key) == Some(&Value::Bool(true));
    let fits = |value: f64| (value >= i64::MIN as f64 && value <= i64::MAX as f64).then_some(value as i64);
    let mut minimum = number("minimum").map(f64::ceil).and_then(fits);
    let mut maximum = number("maximum").map(f64::floor).and_then(fits);
    if flag("exclusiveMinimum") {
        minimum = minimum.map(|m| m.saturating_add(1));
    } else if let Some(bound) = number("exclusiveMinimum") {
        let inclusive = fits(bound.floor()).map(|m| m.saturating_add(1));
        minimum = minimum.max(inclusive).or(inclusive);
    }
    if flag("exclusiveMaximum") {
        maximum = maximum.map(|m| m.saturating_sub(1));
    } else if let Some(bound) = number("exclusiveMaximum") {
        let inclusive = fits(bound.ceil()).map(|m| m.saturating_sub(1));
        maximum = match (maximum, inclusive) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }
    (minimum, maximum)
}

/// "keyword `k`" or "keywords `a`, `b`" for dropped `key: value` texts.
fn keys_of(dropped: &[String]) -> String {
    let keys: Vec<String> =
        dropped.iter().map(|d| format!("`{}`", d.split_once(':').map_or(d.as_str(), |(k, _)| k))).collect();
    match keys.len() {
        1 => format!("keyword {}", keys[0]),
        _ => format!("keywords {}", keys.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use toolcall_runtime::render::{Format, render_tool};

    fn imported(schema: Value) -> Imported {
        import("t", "", "A tool.", schema.as_object().unwrap())
    }

    #[test]
    fn a_pydantic_schema_reads_as_params_with_optional_nullables_and_defaults() {
        let schema = json!({
            "type": "object",
            "title": "addArguments",
            "properties": {
                "a": {"type": "integer", "title": "A", "description": "first"},
                "b": {"type": "integer", "default": 3, "title": "B"},
                "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null},
                "unit": {"enum": ["c", "f"], "type": "string"},
            },
            "required": ["a"],
        });
        let got = imported(schema);
        assert!(got.not_strict.is_empty(), "{:?}", got.not_strict);
        assert!(got.checkable);
        let params = &got.tool.params;
        assert_eq!(params[0], Param::new("a", Type::integer()).description("first"));
        assert_eq!(params[1], Param::new("b", Type::integer()).default(3));
        assert_eq!(params[2], Param::new("note", Type::string().nullable()).default(Value::Null));
        assert_eq!(params[3], Param::new("unit", Type::enumeration(["c", "f"])).optional());
        let strict = render_tool(&got.tool, Format::OpenAi, true);
        assert!(strict.contains(r#""required":["a","b","note","unit"]"#), "{strict}");
        assert!(strict.ends_with(r#""strict":true}}"#), "{strict}");
    }

    #[test]
    fn refs_become_definitions_recursive_ones_too() {
        let schema = json!({
            "type": "object",
            "properties": {"tree": {"$ref": "#/$defs/Tree"}},
            "required": ["tree"],
            "$defs": {"Tree": {"type": "object", "properties": {
                "label": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}},
            }, "required": ["label", "children"], "additionalProperties": false}},
        });
        let got = imported(schema);
        assert!(got.not_strict.is_empty(), "{:?}", got.not_strict);
        assert_eq!(got.tool.params[0].ty, Type::reference("Tree"));
        assert_eq!(got.tool.defs.len(), 1);
        let lax = render_tool(&got.tool, Format::Mcp, false);
        assert!(lax.contains(r##""$ref":"#/$defs/Tree""##), "{lax}");
    }

    #[test]
    fn what_the_ir_cannot_hold_is_described_and_not_strict() {
        let schema = json!({
            "type": "object",
            "properties": {
                "n": {"type": "number", "multipleOf": 5, "exclusiveMinimum": 0},
                "any": {},
                "map": {"type": "object", "additionalProperties": {"type": "integer"}},
                "both": {"allOf": [{"type": "string"}, {"minLength": 2}]},
            },
        });
        let got = imported(schema);
        let reasons = got.not_strict.join("; ");
        for words in [
            "`n` has keywords `exclusiveMinimum`, `multipleOf`",
            "`any` takes a value of any type",
            "`map` is an object with open keys",
            "`both` has keyword `allOf`",
        ] {
            assert!(reasons.contains(words), "{words}: {reasons}");
        }
        let n = &got.tool.params[0];
        assert_eq!(n.description, "(also: exclusiveMinimum: 0, multipleOf: 5)");
        assert_eq!(n.ty, Type::number());
    }

    #[test]
    fn integer_bounds_are_made_inclusive_and_type_arrays_nullable() {
        let schema = json!({"properties": {
            "i": {"type": "integer", "exclusiveMinimum": 0, "maximum": 9.5},
            "s": {"type": ["string", "null"], "maxLength": 3},
            "either": {"type": ["string", "integer"]},
        }, "required": ["i"]});
        let got = imported(schema);
        assert_eq!(got.tool.params[0].ty, Type::integer_between(1, 9));
        let short = Type::String { format: None, pattern: None, min_length: None, max_length: Some(3) };
        assert_eq!(got.tool.params[1].ty, short.nullable());
        assert_eq!(got.tool.params[2].ty, Type::AnyOf(vec![Type::string(), Type::integer()]));
        assert!(got.not_strict.is_empty(), "{:?}", got.not_strict);
    }

    #[test]
    fn arguments_that_are_no_object_of_properties_are_left_to_the_server() {
        let got = imported(json!({"type": "object", "additionalProperties": {"type": "string"}}));
        assert!(!got.checkable);
        assert!(got.tool.params.is_empty());
        assert_eq!(got.not_strict, ["its arguments are not an object of named properties"]);
        let none = imported(json!({"type": "object"}));
        assert!(none.checkable && none.not_strict.is_empty() && none.tool.params.is_empty());
    }
}
