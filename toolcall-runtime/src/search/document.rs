//! What search reads of one tool, and how much each part counts: the tool's "document", a
//! bag of terms with a weighted count each. The build makes one per tool for the compiled
//! index; a registry makes one per tool added at run time. Both read the same texts (name,
//! title, description, module, and the input schema's property names, descriptions and
//! enum values), so a tool is found the same way wherever it comes from.

use std::collections::BTreeMap;

use serde_json::Value;

use super::tokenize::terms;

/// How much an occurrence of a term counts in each part of a tool, as whole numbers so
/// the compiled index is exact. The name says most about what a tool does and is short;
/// the description says it in words a query uses; parameters say what a tool takes
/// (`city`, `currency`), which a query often names; enum values are the choices.
/// Measured on BFCL's user queries (BENCHMARKS.md, "Tool search").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Weights {
    /// A term of the tool's name (`get_weather` -> `get`, `weather`).
    pub name: u16,
    /// A term of the tool's title.
    pub title: u16,
    /// A term of the tool's description.
    pub description: u16,
    /// A term of the module path the tool is in (`billing::invoices`).
    pub module: u16,
    /// A term of a parameter's name, at any depth of the input schema.
    pub parameter: u16,
    /// A term of a parameter's description.
    pub parameter_doc: u16,
    /// A term of an enum value a parameter takes.
    pub enum_value: u16,
}

impl Weights {
    /// The weights the index is built with.
    pub const DEFAULT: Weights = Weights {
        name: 12,
        title: 8,
        description: 4,
        module: 4,
        parameter: 4,
        parameter_doc: 1,
        enum_value: 3,
    };
}

/// How deep the input schema is read: past it, nested objects add nothing (a schema from
/// a server an agent connects to may nest without end).
const MAX_DEPTH: usize = 8;

/// The most schema nodes read of one tool.
const MAX_NODES: usize = 2_000;

/// One tool's terms and their weighted counts, in term order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Document {
    /// Each term with its weighted count.
    pub terms: BTreeMap<String, u32>,
}

impl Document {
    /// The document of a tool: its name, title, description, module path and input schema
    /// (`parameters`, JSON Schema as every format but Gemini takes it).
    pub fn of_tool(name: &str, title: &str, description: &str, module: &str, parameters: &Value) -> Document {
        Document::of_tool_weighted(name, title, description, module, parameters, &Weights::DEFAULT)
    }

    /// [`Document::of_tool`] with other weights: what measuring a change of weights
    /// starts from (an index built with them ranks differently from the build's).
    pub fn of_tool_weighted(
        name: &str,
        title: &str,
        description: &str,
        module: &str,
        parameters: &Value,
        weights: &Weights,
    ) -> Document {
        let weights = *weights;
        let mut document = Document::default();
        document.add(name, weights.name);
        document.add(title, weights.title);
        document.add(description, weights.description);
        document.add(module, weights.module);
        let mut nodes = 0;
        document.add_schema(parameters, &weights, 0, &mut nodes);
        document
    }

    /// The document of a tool given as IR, in module `module` (`billing::invoices`; "" for
    /// a tool of no module): its input schema rendered as every format but Gemini takes
    /// it. What the build indexes, `cargo toolcall search` reads and a registry adds.
    pub fn of_ir(tool: &crate::ir::Tool, module: &str) -> Document {
        let schema = crate::render::render_input(tool, crate::render::InputKind::Lax);
        let parameters = serde_json::from_str(&schema).unwrap_or(Value::Null);
        Document::of_tool(&tool.name, &tool.title, &tool.description, module, &parameters)
    }

    /// The document of a tool whose input schema is JSON text (`ToolInfo::parameters`);
    /// text that is no JSON adds nothing.
    pub fn of_info(info: &crate::ToolInfo) -> Document {
        let parameters = serde_json::from_str(info.parameters).unwrap_or(Value::Null);
        Document::of_tool(info.name, info.title, info.description, info.module, &parameters)
    }

    /// The sum of the weighted counts: the document's length for BM25.
    pub fn length(&self) -> u32 {
        self.terms.values().fold(0u32, |sum, n| sum.saturating_add(*n))
    }

    /// Whether nothing in the tool gave a term.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    fn add(&mut self, text: &str, weight: u16) {
        if weight == 0 {
            return;
        }
        terms(text, |term| {
            let count = self.terms.entry(term.to_owned()).or_insert(0);
            *count = count.saturating_add(u32::from(weight));
        });
    }

    /// The property names, descriptions and enum values of a schema, depth first.
    fn add_schema(&mut self, schema: &Value, weights: &Weights, depth: usize, nodes: &mut usize) {
        *nodes += 1;
        if depth > MAX_DEPTH || *nodes > MAX_NODES {
            return;
        }
        let Value::Object(schema) = schema else { return };
        if let Some(Value::Object(properties)) = schema.get("properties") {
            for (name, property) in properties {
                self.add(name, weights.parameter);
                if let Some(Value::String(doc)) = property.get("description") {
                    self.add(doc, weights.parameter_doc);
                }
                self.add_schema(property, weights, depth + 1, nodes);
            }
        }
        if let Some(Value::Array(values)) = schema.get("enum") {
            for value in values.iter().filter_map(Value::as_str) {
                self.add(value, weights.enum_value);
            }
        }
        for key in ["items", "additionalProperties"] {
            if let Some(inner) = schema.get(key) {
                self.add_schema(inner, weights, depth + 1, nodes);
            }
        }
        for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
            if let Some(Value::Array(options)) = schema.get(key) {
                for option in options {
                    self.add_schema(option, weights, depth + 1, nodes);
                }
            }
        }
        if let Some(Value::Object(defs)) = schema.get("$defs") {
            for def in defs.values() {
                self.add_schema(def, weights, depth + 1, nodes);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_part_of_a_tool_counts_with_its_weight() {
        let parameters = serde_json::json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "The city name"},
                "units": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                "when": {"type": "object", "properties": {"day_offset": {"type": "integer"}}}
            }
        });
        let doc =
            Document::of_tool("get_weather", "Weather", "Current weather for a city", "weather", &parameters);
        let w = Weights::DEFAULT;
        let weather = u32::from(w.name + w.title + w.description + w.module);
        assert_eq!(doc.terms.get("weather"), Some(&weather));
        assert_eq!(doc.terms.get("citi"), Some(&u32::from(w.description + w.parameter + w.parameter_doc)));
        assert_eq!(doc.terms.get("fahrenheit"), Some(&u32::from(w.enum_value)));
        assert_eq!(doc.terms.get("offset"), Some(&u32::from(w.parameter)), "nested properties are read");
        assert_eq!(doc.length(), doc.terms.values().sum::<u32>());
    }

    #[test]
    fn a_schema_nested_without_end_is_read_to_a_depth() {
        let mut schema = serde_json::json!({"type": "object", "properties": {"deepest": {}}});
        for _ in 0..100 {
            schema = serde_json::json!({"type": "object", "properties": {"level": schema}});
        }
        let doc = Document::of_tool("t", "", "", "", &schema);
        assert!(doc.terms.contains_key("level"));
        assert!(!doc.terms.contains_key("deepest"));
    }
}
