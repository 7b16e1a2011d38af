//! The tool IR: what a tool is, independent of any provider format.
//!
//! The build script derives this from Rust source; type providers return pieces of it;
//! runtime-built tools construct it by hand. The [`render`](crate::render) module turns it
//! into JSON schema text for each provider, and the [`DynTool`](crate::DynTool) decoder
//! validates arguments against it.
//!
//! ```
//! use toolcall_runtime::ir::{Param, Tool, Type};
//!
//! let tool = Tool::new("get_weather")
//!     .description("Get the forecast for a city.")
//!     .param(Param::new("city", Type::string()).description("city name"))
//!     .param(Param::new("days", Type::integer_between(0, 255)).optional().default(3));
//! assert_eq!(tool.params.len(), 2);
//! ```
//!
//! A recursive type is a [`Definition`] of the tool, named, and every use of it is a
//! [`Type::Ref`] to that name: a tree of labels is
//!
//! ```
//! use toolcall_runtime::ir::{Param, Tool, Type};
//!
//! let tree = Type::Object(vec![
//!     Param::new("label", Type::string()),
//!     Param::new("children", Type::array(Type::reference("Tree"))),
//! ]);
//! let tool = Tool::new("count_nodes").param(Param::new("tree", Type::reference("Tree"))).def("Tree", tree);
//! assert!(tool.definition("Tree").is_some());
//! ```

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use crate::meta::Annotations;

/// The largest integer every JSON client represents exactly: 2^53 − 1.
pub const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;
/// The smallest integer every JSON client represents exactly: −(2^53 − 1).
pub const MIN_SAFE_INTEGER: i64 = -MAX_SAFE_INTEGER;

/// A Rust integer type: the range a decoded integer must fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Width {
    /// `i8`.
    I8,
    /// `i16`.
    I16,
    /// `i32`.
    I32,
    /// `i64`, `isize` (64-bit).
    I64,
    /// `i128`.
    I128,
    /// `u8`.
    U8,
    /// `u16`.
    U16,
    /// `u32`.
    U32,
    /// `u64`, `usize` (64-bit).
    U64,
    /// `u128` (JSON numbers stop at `u64::MAX`; strings reach `i128::MAX` here).
    U128,
}

impl Width {
    /// The width named by a Rust integer type (`usize`/`isize` as 64-bit).
    pub fn of(name: &str) -> Option<Width> {
        Some(match name {
            "i8" => Width::I8,
            "i16" => Width::I16,
            "i32" => Width::I32,
            "i64" | "isize" => Width::I64,
            "i128" => Width::I128,
            "u8" => Width::U8,
            "u16" => Width::U16,
            "u32" => Width::U32,
            "u64" | "usize" => Width::U64,
            "u128" => Width::U128,
            _ => return None,
        })
    }

    /// The inclusive range of values.
    pub fn range(self) -> (i128, i128) {
        match self {
            Width::I8 => (i8::MIN.into(), i8::MAX.into()),
            Width::I16 => (i16::MIN.into(), i16::MAX.into()),
            Width::I32 => (i32::MIN.into(), i32::MAX.into()),
            Width::I64 => (i64::MIN.into(), i64::MAX.into()),
            Width::I128 => (i128::MIN, i128::MAX),
            Width::U8 => (0, u8::MAX.into()),
            Width::U16 => (0, u16::MAX.into()),
            Width::U32 => (0, u32::MAX.into()),
            Width::U64 => (0, u64::MAX.into()),
            Width::U128 => (0, i128::MAX),
        }
    }
}

/// One tool: a name the model calls, a description, and its parameters in order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    /// The name the model uses to call the tool.
    pub name: String,
    /// What the tool does, shown to the model. Empty means none.
    pub description: String,
    /// Parameters in declaration order.
    pub params: Vec<Param>,
    /// What a successful call returns, as it serializes (the MCP `outputSchema`), of any
    /// shape: an object, an array, a number, a string, a union. `None` for results the
    /// build cannot describe and results that say nothing (`{}`, `null`: see
    /// [`Tool::output`]). MCP revisions before 2026-07-28 (and
    /// [`Toolset::emit`](crate::Toolset::emit)'s MCP definitions) take only an object
    /// schema: [`Tool::object_output`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Type>,
    /// The named types [`Type::Ref`]s in the parameters (and in these definitions) stand
    /// for: recursive types, written once. Empty for most tools.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub defs: Vec<Definition>,
    /// A human-readable title (MCP `title`); empty means none.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub title: String,
    /// Hints for clients (MCP `annotations`): read-only, destructive, idempotent, open world.
    #[serde(default, skip_serializing_if = "Annotations::is_empty")]
    pub annotations: Annotations,
    /// Examples of arguments (Anthropic `input_examples`), each accepted by the tool.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<Value>,
    /// Icons a client may show for the tool (MCP `icons`, from revision 2025-11-25).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub icons: Vec<Icon>,
    /// Metadata for clients (MCP `_meta`), by key, in the order given.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub meta: serde_json::Map<String, Value>,
}

/// An icon a client may show for a tool: where it is (an `https:` or `data:` URI) and its
/// MIME type.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Icon {
    /// The icon's URI.
    pub src: String,
    /// Its MIME type (`image/png`, `image/svg+xml`).
    pub mime_type: String,
}

/// A named type of a tool, what a [`Type::Ref`] of that name stands for. Rendered as an
/// entry of the input schema's `$defs` where the format takes references, else written
/// out where it is used, a few levels deep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Definition {
    /// The name references use; unique within the tool. Schemas write it with every
    /// character other than ASCII letters, digits, `_`, `.` and `-` as `_` (so a `$ref`
    /// needs no escaping): keep names distinct after that, or stay within those.
    pub name: String,
    /// The type it stands for; it may refer to itself and to other definitions.
    pub ty: Type,
}

impl Tool {
    /// A tool with no description and no parameters.
    pub fn new(name: impl Into<String>) -> Self {
        Tool {
            name: name.into(),
            description: String::new(),
            params: Vec::new(),
            output: None,
            defs: Vec::new(),
            title: String::new(),
            annotations: Annotations::default(),
            examples: Vec::new(),
            icons: Vec::new(),
            meta: serde_json::Map::new(),
        }
    }

    /// Sets the title (MCP `title`).
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = title.into();
        self
    }

    /// Sets the client hints (MCP `annotations`).
    pub fn annotations(mut self, annotations: Annotations) -> Self {
        self.annotations = annotations;
        self
    }

    /// Adds an example of arguments (Anthropic `input_examples`).
    pub fn example(mut self, arguments: Value) -> Self {
        self.examples.push(arguments);
        self
    }

    /// Adds an icon (MCP `icons`).
    pub fn icon(mut self, src: impl Into<String>, mime_type: impl Into<String>) -> Self {
        self.icons.push(Icon { src: src.into(), mime_type: mime_type.into() });
        self
    }

    /// Sets metadata `key` to `value` (MCP `_meta`).
    pub fn meta(mut self, key: impl Into<String>, value: Value) -> Self {
        self.meta.insert(key.into(), value);
        self
    }

    /// Adds a named type that [`Type::Ref`]s of `name` stand for (replacing one of the
    /// same name).
    pub fn def(mut self, name: impl Into<String>, ty: Type) -> Self {
        let name = name.into();
        self.defs.retain(|d| d.name != name);
        self.defs.push(Definition { name, ty });
        self
    }

    /// The definition named `name`, if the tool has one.
    pub fn definition(&self, name: &str) -> Option<&Definition> {
        find_definition(&self.defs, name)
    }

    /// Sets the schema of the result, whatever its shape (MCP 2026-07-28 takes any JSON
    /// Schema as an `outputSchema`). A type that says nothing about the result is not
    /// kept: [`Type::Any`] (`{}`, which every value satisfies: a `serde_json::Value`, a
    /// type the build cannot see) and [`Type::Null`] (a `()` result, which MCP clients read
    /// as no structured result at all).
    pub fn output(mut self, ty: Type) -> Self {
        self.output = (!matches!(ty.undescribed(), Type::Any | Type::Null)).then_some(ty);
        self
    }

    /// The schema of the result when it describes JSON objects only ([`Type::is_object`]:
    /// a struct or a map): the `outputSchema` every MCP revision takes (before 2026-07-28
    /// it must be an object schema), and the one [`Toolset::emit`](crate::Toolset::emit)'s
    /// MCP definitions carry. `None` for a result of another shape.
    pub fn object_output(&self) -> Option<&Type> {
        self.output.as_ref().filter(|ty| ty.is_object())
    }

    /// Sets the description.
    pub fn description(mut self, text: impl Into<String>) -> Self {
        self.description = text.into();
        self
    }

    /// Appends a parameter.
    pub fn param(mut self, param: Param) -> Self {
        self.params.push(param);
        self
    }

    /// The parameters as a closed object type: the tool's input schema. Its
    /// [`Type::Ref`]s stand for the tool's [`defs`](Tool::defs).
    pub fn input_type(&self) -> Type {
        Type::Object(self.params.clone())
    }
}

/// A named slot: a tool parameter, or a property of an object type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Param {
    /// The name on the wire.
    pub name: String,
    /// Shown to the model; empty means none.
    pub description: String,
    /// What values the slot accepts.
    pub ty: Type,
    /// Whether the slot may be left out.
    pub optional: bool,
    /// The value the function uses when the slot is left out, if known.
    pub default: Option<Value>,
}

impl Param {
    /// A required slot with no description.
    pub fn new(name: impl Into<String>, ty: Type) -> Self {
        Param { name: name.into(), description: String::new(), ty, optional: false, default: None }
    }

    /// Sets the description.
    pub fn description(mut self, text: impl Into<String>) -> Self {
        self.description = text.into();
        self
    }

    /// Makes the slot optional.
    pub fn optional(mut self) -> Self {
        self.optional = true;
        self
    }

    /// Sets the default (implies optional).
    pub fn default(mut self, value: impl Into<Value>) -> Self {
        self.optional = true;
        self.default = Some(value.into());
        self
    }
}

/// One variant of a string enum.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EnumVariant {
    /// The string on the wire.
    pub value: String,
    /// The variant's doc, if any.
    pub description: String,
}

/// How a value is encoded on the wire and what it may hold.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "of", rename_all = "snake_case")]
pub enum Type {
    /// Any JSON value: `{}`.
    Any,
    /// Only `null`.
    Null,
    /// `true` or `false`.
    Boolean,
    /// A whole number within optional bounds.
    Integer {
        /// Inclusive lower bound.
        minimum: Option<i64>,
        /// Inclusive upper bound.
        maximum: Option<i64>,
        /// Zero is not allowed (`NonZeroI*`).
        non_zero: bool,
        /// Travels as a decimal string (for values past 2^53).
        as_string: bool,
        /// The Rust integer type the value is decoded into: its whole range is accepted
        /// and nothing past it, even where `minimum`/`maximum` (what the schema shows)
        /// stay within ±(2^53 − 1) for portability. `None`: any integer.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        width: Option<Width>,
    },
    /// Any JSON number.
    Number {
        /// Inclusive lower bound.
        minimum: Option<f64>,
        /// Inclusive upper bound.
        maximum: Option<f64>,
    },
    /// A string, optionally with a `format`, `pattern` and length limits (in characters).
    String {
        /// A JSON Schema `format` such as `date` or `uuid`.
        format: Option<String>,
        /// A regular expression the value matches.
        pattern: Option<String>,
        /// Minimum length in characters.
        min_length: Option<u64>,
        /// Maximum length in characters.
        max_length: Option<u64>,
    },
    /// A homogeneous array.
    Array {
        /// Type of every item.
        items: Box<Type>,
        /// Minimum number of items.
        min_items: Option<u64>,
        /// Maximum number of items.
        max_items: Option<u64>,
        /// Items must be distinct.
        unique: bool,
    },
    /// A fixed-length array whose items have their own types.
    Tuple(Vec<Type>),
    /// A closed object: the listed properties, in order, and nothing else.
    Object(Vec<Param>),
    /// An open object whose values all have one type (a map).
    Map(Box<Type>),
    /// One of a fixed set of strings.
    Enum(Vec<EnumVariant>),
    /// The value is the given type or `null`.
    Nullable(Box<Type>),
    /// At least one of the branches matches.
    AnyOf(Vec<Type>),
    /// Exactly one of the branches matches.
    OneOf(Vec<Type>),
    /// The exact string given (a serde tag).
    Const(String),
    /// Another type with a description attached (used inside unions and arrays).
    Described(Box<Type>, String),
    /// The type of the tool's [`Definition`] with this name: how a recursive type refers
    /// to itself (rendered `{"$ref": "#/$defs/<name>"}` where the format takes it).
    Ref(String),
}

/// The definition named `name` in `defs`.
pub fn find_definition<'d>(defs: &'d [Definition], name: &str) -> Option<&'d Definition> {
    defs.iter().find(|d| d.name == name)
}

impl Type {
    /// A plain string.
    pub fn string() -> Self {
        Type::String { format: None, pattern: None, min_length: None, max_length: None }
    }

    /// A string with a `format` such as `date-time`.
    pub fn string_format(format: &str) -> Self {
        Type::String { format: Some(format.to_owned()), pattern: None, min_length: None, max_length: None }
    }

    /// A string matching `pattern`.
    pub fn string_pattern(pattern: &str) -> Self {
        Type::String { format: None, pattern: Some(pattern.to_owned()), min_length: None, max_length: None }
    }

    /// An integer with no bounds.
    pub fn integer() -> Self {
        Type::Integer { minimum: None, maximum: None, non_zero: false, as_string: false, width: None }
    }

    /// An integer within `min..=max`.
    pub fn integer_between(min: i64, max: i64) -> Self {
        Type::Integer {
            minimum: Some(min),
            maximum: Some(max),
            non_zero: false,
            as_string: false,
            width: None,
        }
    }

    /// Any number.
    pub fn number() -> Self {
        Type::Number { minimum: None, maximum: None }
    }

    /// An array of `items`.
    pub fn array(items: Type) -> Self {
        Type::Array { items: Box::new(items), min_items: None, max_items: None, unique: false }
    }

    /// A string enum of the given values, without per-variant docs.
    pub fn enumeration<S: Into<String>>(values: impl IntoIterator<Item = S>) -> Self {
        let variants = values
            .into_iter()
            .map(|value| EnumVariant { value: value.into(), description: String::new() })
            .collect();
        Type::Enum(variants)
    }

    /// A reference to the tool's definition `name`.
    pub fn reference(name: impl Into<String>) -> Self {
        Type::Ref(name.into())
    }

    /// `self` or `null`. Already-nullable types are returned unchanged.
    pub fn nullable(self) -> Self {
        if self.accepts_null() { self } else { Type::Nullable(Box::new(self)) }
    }

    /// Whether `null` is a valid value of this type, as far as it says without the tool's
    /// definitions: `false` for a [`Type::Ref`].
    pub fn accepts_null(&self) -> bool {
        match self {
            Type::Any | Type::Null | Type::Nullable(_) => true,
            Type::AnyOf(branches) | Type::OneOf(branches) => branches.iter().any(Type::accepts_null),
            Type::Described(inner, _) => inner.accepts_null(),
            _ => false,
        }
    }

    /// The types directly inside this one: items, tuple elements, property types, map
    /// values, union branches, the wrapped type. Walkers over the IR recurse through this;
    /// a [`Type::Ref`] has none (its definition is the tool's).
    pub fn children(&self) -> Vec<&Type> {
        match self {
            Type::Array { items, .. }
            | Type::Map(items)
            | Type::Nullable(items)
            | Type::Described(items, _) => {
                vec![items.as_ref()]
            }
            Type::Tuple(items) | Type::AnyOf(items) | Type::OneOf(items) => items.iter().collect(),
            Type::Object(params) => params.iter().map(|p| &p.ty).collect(),
            Type::Any
            | Type::Null
            | Type::Boolean
            | Type::Integer { .. }
            | Type::Number { .. }
            | Type::String { .. }
            | Type::Enum(_)
            | Type::Const(_)
            | Type::Ref(_) => Vec::new(),
        }
    }

    /// The type with any [`Type::Described`] wrappers removed.
    pub fn undescribed(&self) -> &Type {
        match self {
            Type::Described(inner, _) => inner.undescribed(),
            other => other,
        }
    }

    /// Whether every value of this type is a JSON object (a struct or a map).
    pub fn is_object(&self) -> bool {
        matches!(self.undescribed(), Type::Object(_) | Type::Map(_))
    }
}
