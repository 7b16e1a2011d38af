//! Schema rendering for every row of DESIGN.md's "Types" table, in every format, strict and
//! not. The IR is built by hand the way the build script derives it from Rust types. Every
//! rendering is snapshotted (pretty-printed, key order kept), checked against the provider
//! rules by `common::check_tool`, and the facts that matter are asserted in code too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{TARGETS, check_tool, check_tools, find_key, input_schema, pretty, snapshot};
use serde_json::{Value, json};
use toolcall_runtime::ir::{EnumVariant, MAX_SAFE_INTEGER, MIN_SAFE_INTEGER, Param, Tool, Type};
use toolcall_runtime::render::{Format, render_input_schema, render_tool, render_tools, render_type};

/// One tool rendered for every target: raw text and parsed definition.
struct Rendered {
    entries: Vec<(Format, bool, String, Value)>,
}

impl Rendered {
    fn entry(&self, format: Format, strict: bool) -> &(Format, bool, String, Value) {
        self.entries.iter().find(|e| e.0 == format && e.1 == strict).unwrap()
    }

    /// The raw JSON text of the definition.
    fn text(&self, format: Format, strict: bool) -> &str {
        &self.entry(format, strict).2
    }

    /// The input schema (the `parameters` object).
    fn schema(&self, format: Format, strict: bool) -> &Value {
        input_schema(format, &self.entry(format, strict).3)
    }

    /// The schema of one top-level property.
    fn prop(&self, format: Format, strict: bool, name: &str) -> &Value {
        let prop = &self.schema(format, strict)["properties"][name];
        assert!(prop.is_object(), "no property {name} in {format:?} strict={strict}");
        prop
    }

    /// The `required` list of the input schema.
    fn required(&self, format: Format, strict: bool) -> Vec<&str> {
        let list = self.schema(format, strict)["required"].as_array().unwrap();
        list.iter().map(|v| v.as_str().unwrap()).collect()
    }
}

/// Renders `tool` for every target, checks each definition, asserts that rendering is
/// deterministic, and snapshots each one as `schema__<row>__<format>_<strict|lax>`.
fn render_row(row: &str, tool: &Tool) -> Rendered {
    let mut entries = Vec::new();
    for (format, strict) in TARGETS {
        let text = render_tool(tool, format, strict);
        assert_eq!(text, render_tool(&tool.clone(), format, strict), "{row}: rendering is not deterministic");
        let value = check_tool(format, strict, &text);
        let mode = if strict { "strict" } else { "lax" };
        let name = format!("schema__{row}__{}_{mode}", format.as_str());
        snapshot(
            &name,
            &format!("`{}` ({row} row) rendered for {format:?}, {mode}", tool.name),
            &pretty(&text),
        );
        entries.push((format, strict, text, value));
    }
    Rendered { entries }
}

fn u8_t() -> Type {
    Type::integer_between(0, 255)
}

fn u32_t() -> Type {
    Type::integer_between(0, i64::from(u32::MAX))
}

fn i32_t() -> Type {
    Type::integer_between(i64::from(i32::MIN), i64::from(i32::MAX))
}

fn int(minimum: Option<i64>, maximum: Option<i64>, non_zero: bool, as_string: bool) -> Type {
    Type::Integer { minimum, maximum, non_zero, as_string, width: None }
}

fn string_len(min: u64, max: u64) -> Type {
    Type::String { format: None, pattern: None, min_length: Some(min), max_length: Some(max) }
}

fn array_of(items: Type, min: Option<u64>, max: Option<u64>, unique: bool) -> Type {
    Type::Array { items: Box::new(items), min_items: min, max_items: max, unique }
}

/// `bool`.
fn bool_tool() -> Tool {
    Tool::new("set_flag")
        .description("Turn a feature flag on or off.")
        .param(Param::new("enabled", Type::Boolean).description("The new state."))
        .param(Param::new("verbose", Type::Boolean).default(false))
}

/// `u8, i8, u16, i16, u32, i32`, plus `Option<u8>` with a default and `Option<i32>` without.
fn small_ints_tool() -> Tool {
    Tool::new("small_ints")
        .description("Every bounded integer type.")
        .param(Param::new("a_u8", u8_t()))
        .param(Param::new("a_i8", Type::integer_between(-128, 127)))
        .param(Param::new("a_u16", Type::integer_between(0, 65535)))
        .param(Param::new("a_i16", Type::integer_between(-32768, 32767)))
        .param(Param::new("a_u32", u32_t()))
        .param(Param::new("a_i32", i32_t()))
        .param(Param::new("level", u8_t()).description("Volume level.").default(3))
        .param(Param::new("offset", i32_t()).optional())
}

/// `i64, u64, isize, usize`, with bounds as wide as the build script could write them.
fn wide_ints_tool() -> Tool {
    Tool::new("wide_ints")
        .description("Integers wider than 2^53.")
        .param(Param::new("a_i64", Type::integer_between(i64::MIN, i64::MAX)))
        .param(Param::new("a_u64", int(Some(0), None, false, false)))
        .param(Param::new("a_isize", Type::integer()))
        .param(Param::new("a_usize", int(Some(0), Some(i64::MAX), false, false)))
        .param(Param::new("limit", int(Some(0), None, false, false)).optional())
}

/// The `string_integer` wire: `StringInteger<u64>`, `StringInteger<i64>`, optional.
fn string_integer_tool() -> Tool {
    Tool::new("transfer")
        .description("Move credit between users.")
        .param(Param::new("user_id", int(Some(0), None, false, true)).description("Snowflake id"))
        .param(Param::new("delta", int(None, None, false, true)))
        .param(Param::new("memo_id", int(Some(0), None, false, true)).optional())
}

/// `NonZeroU8`, `NonZeroI32`, `NonZeroU64`, `NonZeroI64`.
fn nonzero_tool() -> Tool {
    Tool::new("nonzero")
        .description("Non-zero integers.")
        .param(Param::new("count", Type::integer_between(1, 255)))
        .param(Param::new("offset", int(Some(i64::from(i32::MIN)), Some(i64::from(i32::MAX)), true, false)))
        .param(Param::new("big", int(Some(1), None, false, false)))
        .param(Param::new("signed_big", int(None, None, true, false)).optional())
}

/// `f64`, `Option<f32>` with a default, and a bounded number from a type provider.
fn floats_tool() -> Tool {
    Tool::new("scale")
        .description("Scale a value.")
        .param(Param::new("factor", Type::number()))
        .param(Param::new("ratio", Type::number()).default(0.5))
        .param(
            Param::new("probability", Type::Number { minimum: Some(0.0), maximum: Some(1.0) })
                .description("A probability."),
        )
}

/// `char`, and `Option<char>` with a default.
fn char_tool() -> Tool {
    Tool::new("pick_char")
        .description("Pick one character.")
        .param(Param::new("letter", string_len(1, 1)))
        .param(Param::new("separator", string_len(1, 1)).default(","))
}

/// `String`, `&str`, `Cow<str>`, `Box<str>`, `PathBuf`, and an empty-string default.
fn strings_tool() -> Tool {
    Tool::new("echo")
        .description("Echo text back.")
        .param(Param::new("text", Type::string()).description("Text to echo."))
        .param(Param::new("path", Type::string()))
        .param(Param::new("prefix", Type::string()).default(""))
}

/// `Vec<u8>`, `VecDeque<String>`, `Box<[bool]>`, `[u8; 3]`, `Vec<Vec<i64>>`, `Option<Vec<f64>>`.
fn sequences_tool() -> Tool {
    Tool::new("sequences")
        .description("Arrays of every kind.")
        .param(Param::new("numbers", Type::array(u8_t())))
        .param(Param::new("queue", Type::array(Type::string())))
        .param(Param::new("flags", Type::array(Type::Boolean)))
        .param(Param::new("rgb", array_of(u8_t(), Some(3), Some(3), false)).description("A colour."))
        .param(Param::new("matrix", Type::array(Type::array(Type::integer_between(i64::MIN, i64::MAX)))))
        .param(Param::new("weights", Type::array(Type::number())).optional())
}

/// `HashSet<String>`, `BTreeSet<u32>`, `Option<HashSet<u8>>`.
fn sets_tool() -> Tool {
    Tool::new("sets")
        .description("Sets of values.")
        .param(Param::new("tags", array_of(Type::string(), None, None, true)))
        .param(Param::new("ids", array_of(u32_t(), None, None, true)))
        .param(Param::new("levels", array_of(u8_t(), None, None, true)).optional())
}

/// `(i32, i32)`, `(String, u8)`, `Option<(f64, bool, char)>`.
fn tuples_tool() -> Tool {
    Tool::new("tuples")
        .description("Tuples.")
        .param(Param::new("point", Type::Tuple(vec![i32_t(), i32_t()])))
        .param(Param::new("pair", Type::Tuple(vec![Type::string(), u8_t()])))
        .param(
            Param::new("triple", Type::Tuple(vec![Type::number(), Type::Boolean, string_len(1, 1)]))
                .optional(),
        )
}

/// `Option<T>` parameters: with a default (`unwrap_or(3)`) and without.
fn option_tool() -> Tool {
    Tool::new("get_weather")
        .description("Get the forecast for a city.")
        .param(Param::new("city", Type::string()).description("City name."))
        .param(Param::new("days", u8_t()).description("Days ahead.").default(3))
        .param(Param::new("units", Type::string()).optional())
}

fn street_type() -> Type {
    Type::Object(vec![Param::new("street", Type::string())])
}

/// `Option<Option<T>>`: optional and nullable.
fn option_option_tool() -> Tool {
    Tool::new("patch_profile")
        .description("Change a profile; null clears a field.")
        .param(Param::new("nickname", Type::string().nullable()).description("null clears it").optional())
        .param(Param::new("age", u8_t().nullable()).optional())
        .param(Param::new("address", street_type().nullable()).optional())
}

/// `HashMap<String, String>`, `BTreeMap<String, f64>`, `serde_json::Map`, optional map.
fn maps_tool() -> Tool {
    Tool::new("maps")
        .description("Open objects.")
        .param(Param::new("labels", Type::Map(Box::new(Type::string()))))
        .param(Param::new("scores", Type::Map(Box::new(Type::number()))))
        .param(Param::new("extra", Type::Map(Box::new(Type::Any))))
        .param(Param::new("counts", Type::Map(Box::new(u32_t()))).optional())
}

/// `serde_json::Value`, `Option<Value>`, and a foreign type with no provider (also `{}`).
fn value_tool() -> Tool {
    Tool::new("raw")
        .description("Anything at all.")
        .param(Param::new("payload", Type::Any).description("Any JSON value."))
        .param(Param::new("meta", Type::Any).optional())
        .param(Param::new("amount", Type::Any).description("rust_decimal::Decimal, no provider"))
}

fn address_type() -> Type {
    Type::Object(vec![
        Param::new("street", Type::string()),
        Param::new("zip", Type::string_pattern("^[0-9]{5}$")).description("Five digits."),
    ])
}

/// A local struct with a nested struct, an optional field and field docs, used directly
/// (its doc becomes the description) and as `Option<Address>`.
fn struct_tool() -> Tool {
    let user = Type::Object(vec![
        Param::new("name", Type::string()).description("The user's name."),
        Param::new("age", u8_t()).optional(),
        Param::new("email", Type::string_format("email")).optional(),
        Param::new("address", address_type()),
    ]);
    Tool::new("create_user")
        .description("Create a user.")
        .param(Param::new("user", user).description("A user account."))
        .param(Param::new("backup", address_type()).description("Where to send mail.").optional())
}

fn variant(value: &str, description: &str) -> EnumVariant {
    EnumVariant { value: value.to_owned(), description: description.to_owned() }
}

/// A local unit-only enum (with variant docs), and `Option<Enum>` with a default.
fn unit_enum_tool() -> Tool {
    let color = Type::Enum(vec![variant("red", "Warm."), variant("green", "Calm."), variant("blue", "")]);
    Tool::new("paint")
        .description("Paint the wall.")
        .param(Param::new("color", color))
        .param(Param::new("finish", Type::enumeration(["matte", "gloss"])).default("matte"))
}

/// Local data enums: externally tagged (serde's default), internally tagged, optional.
fn data_enum_tool() -> Tool {
    let number_field = |name: &str| Type::Object(vec![Param::new(name, Type::number())]);
    let shape = Type::OneOf(vec![
        Type::Object(vec![Param::new("circle", number_field("radius"))]),
        Type::Object(vec![Param::new("square", number_field("side"))]),
        Type::Const("point".to_owned()),
    ]);
    let event = Type::OneOf(vec![
        Type::Object(vec![
            Param::new("type", Type::Const("click".to_owned())),
            Param::new("x", i32_t()),
            Param::new("y", i32_t()),
        ]),
        Type::Described(
            Box::new(Type::Object(vec![
                Param::new("type", Type::Const("key".to_owned())),
                Param::new("key", string_len(1, 1)),
            ])),
            "A key press.".to_owned(),
        ),
    ]);
    Tool::new("draw")
        .description("Draw a shape.")
        .param(Param::new("shape", shape.clone()))
        .param(Param::new("event", event))
        .param(Param::new("fallback", shape).optional())
}

/// chrono/time/jiff dates, `uuid::Uuid`, `url::Url`, `IpAddr`, `Ipv4Addr`.
fn dates_tool() -> Tool {
    Tool::new("schedule")
        .description("Schedule a job.")
        .param(Param::new("day", Type::string_format("date")))
        .param(Param::new("at", Type::string_format("time")))
        .param(Param::new("starts", Type::string_format("date-time")))
        .param(Param::new("id", Type::string_format("uuid")))
        .param(Param::new("link", Type::string_format("uri")).description("Callback URL."))
        .param(Param::new("ip", Type::AnyOf(vec![Type::string_format("ipv4"), Type::string_format("ipv6")])))
        .param(Param::new("v4", Type::string_format("ipv4")))
        .param(Param::new("ends", Type::string_format("date-time")).optional())
}

fn all_rows() -> Vec<(&'static str, Tool)> {
    vec![
        ("bool", bool_tool()),
        ("small_ints", small_ints_tool()),
        ("wide_ints", wide_ints_tool()),
        ("string_integer", string_integer_tool()),
        ("nonzero", nonzero_tool()),
        ("floats", floats_tool()),
        ("char", char_tool()),
        ("strings", strings_tool()),
        ("sequences", sequences_tool()),
        ("sets", sets_tool()),
        ("tuples", tuples_tool()),
        ("option", option_tool()),
        ("option_option", option_option_tool()),
        ("maps", maps_tool()),
        ("value", value_tool()),
        ("struct", struct_tool()),
        ("unit_enum", unit_enum_tool()),
        ("data_enum", data_enum_tool()),
        ("dates", dates_tool()),
    ]
}

/// Asserts the facts every OpenAI/MCP strict rendering must have: all properties
/// required, no `default` anywhere.
fn assert_openai_strict_basics(r: &Rendered) {
    for format in [Format::OpenAi, Format::Mcp] {
        let schema = r.schema(format, true);
        let props: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        assert_eq!(r.required(format, true).len(), props.len(), "{format:?} strict: all required");
        assert!(find_key(&r.entry(format, true).3, "default").is_empty(), "{format:?} strict: defaults gone");
    }
}

/// The position of `needle` in `text` (to check key order, which a parsed `Value` loses).
fn pos(text: &str, needle: &str) -> usize {
    text.find(needle).unwrap_or_else(|| panic!("{needle} not in {text}"))
}

// ---------------------------------------------------------------------------------------
// One test per row of the Types table

#[test]
fn bool_row() {
    let r = render_row("bool", &bool_tool());
    assert_openai_strict_basics(&r);
    assert_eq!(
        r.prop(Format::OpenAi, false, "enabled"),
        &json!({"type":"boolean","description":"The new state."})
    );
    assert_eq!(r.prop(Format::OpenAi, false, "verbose"), &json!({"type":"boolean","default":false}));
    assert_eq!(r.required(Format::OpenAi, false), ["enabled"]);
    // Strict drops `default` (every property is required): the description says it.
    assert_eq!(
        r.prop(Format::OpenAi, true, "verbose"),
        &json!({"type":["boolean","null"],"description":"default: false"})
    );
    assert_eq!(r.required(Format::OpenAi, true), ["enabled", "verbose"]);
    assert_eq!(r.entry(Format::OpenAi, true).3["function"]["strict"], json!(true));
    // Anthropic strict keeps optional properties optional, and keeps `default`.
    assert_eq!(r.required(Format::Anthropic, true), ["enabled"]);
    assert_eq!(r.prop(Format::Anthropic, true, "verbose"), &json!({"type":"boolean","default":false}));
    assert_eq!(r.entry(Format::Anthropic, true).3["strict"], json!(true));
}

#[test]
fn small_ints_row() {
    let r = render_row("small_ints", &small_ints_tool());
    assert_openai_strict_basics(&r);
    let bounds = [("a_u8", 0, 255), ("a_i8", -128, 127), ("a_u16", 0, 65535), ("a_i16", -32768, 32767)];
    let bounds = bounds.into_iter().chain([("a_u32", 0, 4294967295), ("a_i32", -2147483648, 2147483647)]);
    for (name, min, max) in bounds {
        for (format, strict) in [(Format::OpenAi, false), (Format::OpenAi, true), (Format::Mcp, true)] {
            let prop = r.prop(format, strict, name);
            assert_eq!(
                (prop["minimum"].as_i64(), prop["maximum"].as_i64()),
                (Some(min), Some(max)),
                "{name}"
            );
        }
        // Anthropic strict: limits move into the description.
        let prop = r.prop(Format::Anthropic, true, name);
        assert_eq!(prop, &json!({"type":"integer","description": format!("between {min} and {max}")}));
    }
    assert_eq!(
        r.prop(Format::OpenAi, false, "level"),
        &json!({"type":"integer","description":"Volume level.","minimum":0,"maximum":255,"default":3})
    );
    assert_eq!(
        r.prop(Format::OpenAi, true, "level"),
        &json!({"type":["integer","null"],"description":"Volume level. (default: 3)","minimum":0,"maximum":255})
    );
    assert_eq!(r.prop(Format::OpenAi, true, "offset")["type"], json!(["integer", "null"]));
    assert_eq!(r.required(Format::Anthropic, true), ["a_u8", "a_i8", "a_u16", "a_i16", "a_u32", "a_i32"]);
    assert_eq!(
        r.prop(Format::Anthropic, true, "level"),
        &json!({"type":"integer","description":"Volume level. (between 0 and 255)","default":3})
    );
}

#[test]
fn wide_ints_row() {
    let r = render_row("wide_ints", &wide_ints_tool());
    assert_openai_strict_basics(&r);
    for (format, strict) in [(Format::OpenAi, false), (Format::OpenAi, true), (Format::Mcp, false)] {
        let a_i64 = r.prop(format, strict, "a_i64");
        assert_eq!(
            (a_i64["minimum"].as_i64(), a_i64["maximum"].as_i64()),
            (Some(MIN_SAFE_INTEGER), Some(MAX_SAFE_INTEGER))
        );
        assert_eq!(r.prop(format, strict, "a_u64")["minimum"], json!(0));
        assert!(r.prop(format, strict, "a_u64").get("maximum").is_none());
        assert!(r.prop(format, strict, "a_isize").get("minimum").is_none());
        assert_eq!(r.prop(format, strict, "a_usize")["maximum"].as_i64(), Some(MAX_SAFE_INTEGER));
    }
    // Never the i64/u64 extremes as literals, in any format.
    for (format, strict) in TARGETS {
        let text = r.text(format, strict);
        for literal in ["9223372036854775807", "9223372036854775808", "18446744073709551615"] {
            assert!(!text.contains(literal), "{format:?} strict={strict}: {literal} in {text}");
        }
    }
    assert!(
        r.prop(Format::Anthropic, true, "a_i64")["description"]
            .as_str()
            .unwrap()
            .contains("9007199254740991")
    );
}

#[test]
fn string_integer_row() {
    let r = render_row("string_integer", &string_integer_tool());
    assert_openai_strict_basics(&r);
    let user_id = r.prop(Format::OpenAi, false, "user_id");
    assert_eq!(
        user_id,
        &json!({"type":"string","description":"Snowflake id","pattern":"^[0-9]+$"}),
        "a description written by hand is kept as written"
    );
    // Without any description, the hint says what the wire looks like.
    let memo = r.prop(Format::OpenAi, false, "memo_id");
    assert_eq!(memo["description"], "an integer written as a decimal string", "{memo}");
    assert_eq!(r.prop(Format::OpenAi, false, "delta")["pattern"], "^-?[0-9]+$");
    assert_eq!(r.prop(Format::OpenAi, true, "memo_id")["type"], json!(["string", "null"]));
    assert_eq!(r.prop(Format::Anthropic, true, "user_id"), user_id, "patterns stay in Anthropic strict");
}

#[test]
fn nonzero_row() {
    let r = render_row("nonzero", &nonzero_tool());
    assert_openai_strict_basics(&r);
    assert_eq!(r.prop(Format::OpenAi, false, "count"), &json!({"type":"integer","minimum":1,"maximum":255}));
    let offset = r.prop(Format::OpenAi, true, "offset");
    assert_eq!(offset["description"], "must not be 0");
    assert_eq!(offset["minimum"], json!(-2147483648));
    assert_eq!(r.prop(Format::OpenAi, false, "big"), &json!({"type":"integer","minimum":1}));
    assert_eq!(
        r.prop(Format::OpenAi, true, "signed_big"),
        &json!({"type":["integer","null"],"description":"must not be 0"})
    );
    assert_eq!(r.prop(Format::Anthropic, true, "big"), &json!({"type":"integer","description":"at least 1"}));
}

#[test]
fn floats_row() {
    let r = render_row("floats", &floats_tool());
    assert_openai_strict_basics(&r);
    assert_eq!(r.prop(Format::OpenAi, false, "factor"), &json!({"type":"number"}));
    assert_eq!(r.prop(Format::OpenAi, false, "ratio"), &json!({"type":"number","default":0.5}));
    assert_eq!(
        r.prop(Format::OpenAi, true, "ratio"),
        &json!({"type":["number","null"],"description":"default: 0.5"})
    );
    assert_eq!(
        r.prop(Format::OpenAi, true, "probability"),
        &json!({"type":"number","description":"A probability.","minimum":0.0,"maximum":1.0})
    );
    assert_eq!(
        r.prop(Format::Anthropic, true, "probability"),
        &json!({"type":"number","description":"A probability. (between 0 and 1)"})
    );
}

#[test]
fn char_row() {
    let r = render_row("char", &char_tool());
    assert_openai_strict_basics(&r);
    assert_eq!(
        r.prop(Format::OpenAi, false, "letter"),
        &json!({"type":"string","minLength":1,"maxLength":1})
    );
    assert_eq!(r.prop(Format::Mcp, false, "separator")["default"], ",");
    for (format, strict) in [(Format::OpenAi, true), (Format::Anthropic, true), (Format::Mcp, true)] {
        let letter = r.prop(format, strict, "letter");
        assert!(letter.get("minLength").is_none() && letter.get("maxLength").is_none());
        assert!(letter["description"].as_str().unwrap().starts_with("exactly 1 character"), "{letter}");
    }
}

#[test]
fn strings_row() {
    let r = render_row("strings", &strings_tool());
    assert_openai_strict_basics(&r);
    assert_eq!(
        r.prop(Format::OpenAi, false, "text"),
        &json!({"type":"string","description":"Text to echo."})
    );
    assert_eq!(r.prop(Format::OpenAi, false, "prefix"), &json!({"type":"string","default":""}));
    assert_eq!(
        r.prop(Format::OpenAi, true, "prefix"),
        &json!({"type":["string","null"],"description":"default: \"\""})
    );
    assert_eq!(r.required(Format::Mcp, false), ["text", "path"]);
}

#[test]
fn sequences_row() {
    let r = render_row("sequences", &sequences_tool());
    assert_openai_strict_basics(&r);
    assert_eq!(
        r.prop(Format::OpenAi, false, "numbers"),
        &json!({"type":"array","items":{"type":"integer","minimum":0,"maximum":255}})
    );
    let rgb = json!({"type":"array","description":"A colour.","items":{"type":"integer","minimum":0,"maximum":255},"minItems":3,"maxItems":3});
    assert_eq!(r.prop(Format::OpenAi, false, "rgb"), &rgb);
    assert_eq!(r.prop(Format::OpenAi, true, "rgb"), &rgb, "OpenAI strict keeps item counts");
    let anthropic = r.prop(Format::Anthropic, true, "rgb");
    assert!(anthropic.get("minItems").is_none() && anthropic.get("maxItems").is_none());
    assert_eq!(anthropic["description"], "A colour. (at least 3 items; at most 3 items)");
    let matrix = &r.prop(Format::OpenAi, false, "matrix")["items"]["items"];
    assert_eq!(matrix["minimum"].as_i64(), Some(MIN_SAFE_INTEGER));
    assert_eq!(r.prop(Format::OpenAi, true, "weights")["type"], json!(["array", "null"]));
}

#[test]
fn sets_row() {
    let r = render_row("sets", &sets_tool());
    assert_openai_strict_basics(&r);
    assert_eq!(
        r.prop(Format::OpenAi, false, "tags"),
        &json!({"type":"array","items":{"type":"string"},"uniqueItems":true})
    );
    for (format, strict) in [(Format::OpenAi, true), (Format::Anthropic, true), (Format::Mcp, true)] {
        let tags = r.prop(format, strict, "tags");
        assert!(tags.get("uniqueItems").is_none(), "{format:?}: uniqueItems in strict");
        assert_eq!(tags["description"], "items must be unique");
    }
    assert_eq!(r.prop(Format::Anthropic, false, "ids")["uniqueItems"], json!(true));
}

#[test]
fn tuples_row() {
    let r = render_row("tuples", &tuples_tool());
    assert_openai_strict_basics(&r);
    let point = r.prop(Format::OpenAi, false, "point");
    assert_eq!(point["prefixItems"].as_array().map(Vec::len), Some(2));
    assert_eq!((point["minItems"].as_u64(), point["maxItems"].as_u64()), (Some(2), Some(2)));
    for format in [Format::OpenAi, Format::Mcp] {
        let point = r.prop(format, true, "point");
        assert!(point.get("prefixItems").is_none(), "prefixItems dropped in strict");
        assert_eq!((point["minItems"].as_u64(), point["maxItems"].as_u64()), (Some(2), Some(2)));
        assert_eq!(point["items"], json!({"type":"integer","minimum":-2147483648,"maximum":2147483647}));
        let pair = r.prop(format, true, "pair");
        assert_eq!(pair["items"]["anyOf"].as_array().map(Vec::len), Some(2), "{pair}");
        assert_eq!(r.prop(format, true, "triple")["type"], json!(["array", "null"]));
    }
    let anthropic = r.prop(Format::Anthropic, true, "point");
    assert!(anthropic.get("prefixItems").is_none() && anthropic.get("maxItems").is_none());
}

#[test]
fn option_row() {
    let r = render_row("option", &option_tool());
    assert_openai_strict_basics(&r);
    assert_eq!(r.required(Format::OpenAi, false), ["city"]);
    assert_eq!(r.required(Format::Anthropic, true), ["city"]);
    assert_eq!(r.required(Format::OpenAi, true), ["city", "days", "units"]);
    assert_eq!(r.prop(Format::OpenAi, false, "days")["default"], json!(3));
    assert_eq!(
        r.prop(Format::OpenAi, true, "days"),
        &json!({"type":["integer","null"],"description":"Days ahead. (default: 3)","minimum":0,"maximum":255})
    );
    assert_eq!(r.prop(Format::Mcp, true, "units"), &json!({"type":["string","null"]}));
    assert_eq!(r.prop(Format::Mcp, false, "units"), &json!({"type":"string"}), "optional, not nullable");
}

#[test]
fn option_option_row() {
    let r = render_row("option_option", &option_option_tool());
    assert_openai_strict_basics(&r);
    assert!(r.required(Format::OpenAi, false).is_empty());
    let nickname = json!({"type":["string","null"],"description":"null clears it"});
    let lax_nickname = json!({"description":"null clears it","anyOf":[{"type":"string"},{"type":"null"}]});
    assert_eq!(r.prop(Format::OpenAi, false, "nickname"), &lax_nickname);
    assert_eq!(r.prop(Format::OpenAi, true, "nickname"), &nickname, "already nullable: not widened twice");
    let address = r.prop(Format::OpenAi, true, "address");
    assert_eq!(address["anyOf"][1], json!({"type":"null"}));
    assert_eq!(address["anyOf"][0]["type"], "object");
    assert_eq!(r.prop(Format::Anthropic, false, "age")["anyOf"][1], json!({"type": "null"}));
}

#[test]
fn maps_row() {
    let r = render_row("maps", &maps_tool());
    assert_openai_strict_basics(&r);
    assert_eq!(
        r.prop(Format::OpenAi, false, "labels"),
        &json!({"type":"object","additionalProperties":{"type":"string"}})
    );
    assert_eq!(r.prop(Format::Mcp, false, "extra"), &json!({"type":"object","additionalProperties":{}}));
    for (format, strict) in [(Format::OpenAi, true), (Format::Anthropic, true), (Format::Mcp, true)] {
        let labels = r.prop(format, strict, "labels");
        assert_eq!(labels["additionalProperties"], json!(false), "{format:?}: maps closed in strict");
        assert_eq!(labels["properties"], json!({}), "{format:?}: closed maps still list properties");
    }
    assert_eq!(r.prop(Format::OpenAi, true, "counts")["type"], json!(["object", "null"]));
}

#[test]
fn value_row() {
    let r = render_row("value", &value_tool());
    assert_openai_strict_basics(&r);
    assert_eq!(r.prop(Format::OpenAi, false, "payload"), &json!({"description":"Any JSON value."}));
    assert_eq!(r.prop(Format::OpenAi, false, "meta"), &json!({}));
    // `Value` accepts null already, so strict mode does not wrap it; OpenAI strict needs a
    // `type`, so it refers to the `json-value` definition (any value, objects empty).
    assert_eq!(r.prop(Format::OpenAi, true, "meta"), &json!({"$ref": "#/$defs/json-value"}));
    assert_eq!(r.prop(Format::Anthropic, true, "meta"), &json!({}));
    assert_eq!(r.required(Format::OpenAi, false), ["payload", "amount"]);
}

#[test]
fn struct_row() {
    let r = render_row("struct", &struct_tool());
    assert_openai_strict_basics(&r);
    let user = r.prop(Format::OpenAi, false, "user");
    assert_eq!(user["description"], "A user account.");
    assert_eq!(user["required"], json!(["name", "address"]));
    assert_eq!(user["additionalProperties"], json!(false));
    assert_eq!(user["properties"]["name"]["description"], "The user's name.");
    assert_eq!(user["properties"]["address"]["properties"]["zip"]["pattern"], "^[0-9]{5}$");
    // Properties keep declaration order (a parsed Value would sort them; look at the text).
    let text = r.text(Format::OpenAi, false);
    let order = ["\"name\"", "\"age\"", "\"email\"", "\"address\"", "\"street\"", "\"zip\"", "\"backup\""];
    let positions: Vec<usize> = order.iter().map(|k| pos(text, k)).collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "declaration order lost: {text}");
    // OpenAI strict: nested optional fields widened and required too.
    let user = r.prop(Format::OpenAi, true, "user");
    assert_eq!(user["required"], json!(["name", "age", "email", "address"]));
    assert_eq!(user["properties"]["age"]["type"], json!(["integer", "null"]));
    assert_eq!(user["properties"]["email"], json!({"type":["string","null"],"format":"email"}));
    let backup = r.prop(Format::OpenAi, true, "backup");
    assert_eq!(backup["description"], "Where to send mail.");
    assert_eq!(backup["anyOf"][0]["required"], json!(["street", "zip"]));
    // Anthropic strict: optional properties allowed, so `age` stays out of `required`.
    let user = r.prop(Format::Anthropic, true, "user");
    assert_eq!(user["required"], json!(["name", "address"]));
    assert_eq!(r.required(Format::Anthropic, true), ["user"]);
}

#[test]
fn unit_enum_row() {
    let r = render_row("unit_enum", &unit_enum_tool());
    assert_openai_strict_basics(&r);
    assert_eq!(
        r.prop(Format::OpenAi, false, "color"),
        &json!({"type":"string","description":"red: Warm; green: Calm","enum":["red","green","blue"]})
    );
    assert_eq!(
        r.prop(Format::OpenAi, false, "finish"),
        &json!({"type":"string","enum":["matte","gloss"],"default":"matte"})
    );
    assert_eq!(
        r.prop(Format::OpenAi, true, "finish"),
        &json!({"anyOf":[{"type":"string","enum":["matte","gloss"]},{"type":"null"}],"description":"default: \"matte\""})
    );
    assert_eq!(r.prop(Format::Anthropic, true, "finish")["default"], "matte");
}

#[test]
fn data_enum_row() {
    let r = render_row("data_enum", &data_enum_tool());
    assert_openai_strict_basics(&r);
    let shape = r.prop(Format::OpenAi, false, "shape");
    assert_eq!(shape["oneOf"].as_array().map(Vec::len), Some(3));
    assert_eq!(shape["oneOf"][0]["properties"]["circle"]["required"], json!(["radius"]));
    assert_eq!(shape["oneOf"][2], json!({"type":"string","enum":["point"]}));
    let event = r.prop(Format::OpenAi, false, "event");
    assert_eq!(event["oneOf"][1]["description"], "A key press.");
    assert_eq!(event["oneOf"][0]["properties"]["type"], json!({"type":"string","enum":["click"]}));
    for (format, strict) in [(Format::OpenAi, true), (Format::Anthropic, true), (Format::Mcp, true)] {
        let shape = r.prop(format, strict, "shape");
        assert!(shape.get("oneOf").is_none(), "{format:?} strict: oneOf becomes anyOf");
        assert_eq!(shape["anyOf"].as_array().map(Vec::len), Some(3));
    }
    let fallback = r.prop(Format::OpenAi, true, "fallback");
    // The null branch joins the union instead of nesting it.
    assert_eq!(fallback["anyOf"].as_array().map(Vec::len), Some(4));
    assert_eq!(fallback["anyOf"][3], json!({"type":"null"}));
}

#[test]
fn dates_row() {
    let r = render_row("dates", &dates_tool());
    assert_openai_strict_basics(&r);
    for (format, strict) in TARGETS {
        for (name, expected) in [("day", "date"), ("at", "time"), ("starts", "date-time"), ("id", "uuid")] {
            assert_eq!(r.prop(format, strict, name)["format"], expected, "{format:?} strict={strict}");
        }
        assert_eq!(r.prop(format, strict, "v4")["format"], "ipv4");
        assert_eq!(r.prop(format, strict, "ip")["anyOf"][1]["format"], "ipv6");
    }
    assert_eq!(
        r.prop(Format::OpenAi, false, "link"),
        &json!({"type":"string","description":"Callback URL.","format":"uri"})
    );
    // uri is not one of OpenAI's nine formats: moved into the description in OpenAI/MCP strict...
    for format in [Format::OpenAi, Format::Mcp] {
        assert_eq!(
            r.prop(format, true, "link"),
            &json!({"type":"string","description":"Callback URL. (format: uri)"})
        );
    }
    // ...but kept by Anthropic strict, which accepts it.
    assert_eq!(r.prop(Format::Anthropic, true, "link")["format"], "uri");
    assert_eq!(r.prop(Format::OpenAi, true, "ends"), &json!({"type":["string","null"],"format":"date-time"}));
}

/// `Box<T>`, `Rc<T>` and `Arc<T>` have no IR of their own: the build script maps them to
/// `T`'s type, so their schema is `T`'s (decoding them is tested in `decode.rs`).
#[test]
fn pointer_row_is_the_inner_type() {
    let boxed = Tool::new("boxed").description("Box<u8>.").param(Param::new("level", u8_t()));
    let text = render_tool(&boxed, Format::OpenAi, true);
    check_tool(Format::OpenAi, true, &text);
    assert_eq!(
        input_schema(Format::OpenAi, &serde_json::from_str(&text).unwrap())["properties"]["level"]["maximum"],
        255
    );
}

// ---------------------------------------------------------------------------------------
// Cross-cutting properties

#[test]
fn rendering_twice_gives_identical_bytes() {
    let rows = all_rows();
    for (format, strict) in TARGETS {
        for (row, tool) in &rows {
            let first = render_tool(tool, format, strict);
            let second = render_tool(tool, format, strict);
            assert_eq!(first.as_bytes(), second.as_bytes(), "{row} {format:?} strict={strict}");
            let schema = render_input_schema(tool, format, strict);
            assert_eq!(schema, render_input_schema(tool, format, strict));
        }
        let tools: Vec<Tool> = rows.iter().map(|(_, t)| t.clone()).collect();
        let first = render_tools(&tools, format, strict);
        assert_eq!(first.as_bytes(), render_tools(&tools, format, strict).as_bytes());
        // The array is exactly the single renderings joined, in order.
        let joined: Vec<String> = tools.iter().map(|t| render_tool(t, format, strict)).collect();
        assert_eq!(first, format!("[{}]", joined.join(",")));
        assert_eq!(check_tools(format, strict, &first).len(), rows.len());
    }
}

#[test]
fn input_schema_is_the_envelopes_schema() {
    for (format, strict) in TARGETS {
        for (_, tool) in all_rows() {
            let full = check_tool(format, strict, &render_tool(&tool, format, strict));
            let schema: Value = serde_json::from_str(&render_input_schema(&tool, format, strict)).unwrap();
            assert_eq!(&schema, input_schema(format, &full));
        }
    }
}

#[test]
fn properties_keep_declaration_order_and_keys_a_fixed_order() {
    let tool = Tool::new("order")
        .description("Order.")
        .param(Param::new("zeta", Type::string()))
        .param(Param::new("alpha", u8_t()).description("first").default(1))
        .param(Param::new("mid", Type::Boolean));
    for (format, strict) in TARGETS {
        let text = render_tool(&tool, format, strict);
        check_tool(format, strict, &text);
        assert!(
            pos(&text, "\"zeta\"") < pos(&text, "\"alpha\"")
                && pos(&text, "\"alpha\"") < pos(&text, "\"mid\"")
        );
        // Tool keys: name, description, schema, strict; schema keys: type, properties, required, additionalProperties.
        assert!(pos(&text, "\"name\"") < pos(&text, "\"description\""));
        assert!(pos(&text, "\"properties\"") < pos(&text, "\"required\""));
        assert!(pos(&text, "\"required\"") < pos(&text, "\"additionalProperties\""));
    }
    let openai = render_tool(&tool, Format::OpenAi, false);
    assert!(openai.starts_with(r#"{"type":"function","function":{"name":"order","description":"Order.","parameters":{"type":"object","properties":{"zeta""#));
    assert!(openai.contains(
        r#""alpha":{"type":"integer","description":"first","minimum":0,"maximum":255,"default":1}"#
    ));
    let strict = render_tool(&tool, Format::OpenAi, true);
    assert!(
        strict
            .ends_with(r#""required":["zeta","alpha","mid"],"additionalProperties":false},"strict":true}}"#)
    );
}

#[test]
fn tool_without_params_or_description() {
    let tool = Tool::new("ping");
    for (format, strict) in TARGETS {
        let value = check_tool(format, strict, &render_tool(&tool, format, strict));
        let schema = input_schema(format, &value);
        assert_eq!(
            schema,
            &json!({"type":"object","properties":{},"required":[],"additionalProperties":false})
        );
    }
    assert_eq!(
        render_tool(&tool, Format::Anthropic, false),
        r#"{"name":"ping","input_schema":{"type":"object","properties":{},"required":[],"additionalProperties":false}}"#
    );
}

#[test]
fn descriptions_and_names_are_escaped() {
    let tool = Tool::new("quote")
        .description("Says \"hi\"\nthen a tab\tand a bell \u{7} and a backslash \\ and é.")
        .param(Param::new("x", Type::string()).description("*/ \"# } {"));
    for (format, strict) in TARGETS {
        let value = check_tool(format, strict, &render_tool(&tool, format, strict));
        let description = match format {
            Format::OpenAi => &value["function"]["description"],
            _ => &value["description"],
        };
        assert_eq!(description.as_str(), Some(tool.description.as_str()));
        assert_eq!(input_schema(format, &value)["properties"]["x"]["description"], "*/ \"# } {");
    }
    assert!(render_tool(&tool, Format::Mcp, false).contains(r#"a bell \u0007 and"#));
}

#[test]
fn render_type_alone() {
    let ty = Type::Nullable(Box::new(Type::integer_between(i64::MIN, 5)));
    assert_eq!(
        render_type(&ty, Format::OpenAi, true),
        r#"{"type":["integer","null"],"minimum":-9007199254740991,"maximum":5}"#
    );
    assert_eq!(
        render_type(&ty, Format::OpenAi, false),
        r#"{"anyOf":[{"type":"integer","minimum":-9007199254740991,"maximum":5},{"type":"null"}]}"#
    );
    // OpenAI strict needs a `type`: an untyped value is the `json-value` definition.
    assert_eq!(render_type(&Type::Any, Format::OpenAi, false), "{}");
    let any = render_type(&Type::Any, Format::OpenAi, true);
    assert!(any.starts_with(r##"{"$ref":"#/$defs/json-value","$defs":{"json-value":{"anyOf":"##), "{any}");
    assert_eq!(render_type(&Type::Null, Format::Anthropic, true), r#"{"type":"null"}"#);
    let described = Type::Described(Box::new(Type::Boolean), "yes or no".to_owned());
    assert_eq!(
        render_type(&described, Format::Mcp, false),
        r#"{"type":"boolean","description":"yes or no"}"#
    );
    let nullable = Type::Nullable(Box::new(described));
    assert_eq!(
        render_type(&nullable, Format::Mcp, false),
        r#"{"description":"yes or no","anyOf":[{"type":"boolean"},{"type":"null"}]}"#
    );
    assert_eq!(
        render_type(&nullable, Format::Mcp, true),
        r#"{"type":["boolean","null"],"description":"yes or no"}"#
    );
}

#[test]
fn format_names_round_trip() {
    for format in Format::ALL {
        assert_eq!(Format::parse(format.as_str()), Some(format));
        assert_eq!(Format::ALL[format.index()], format);
    }
    assert_eq!(Format::parse("OpenAI"), None);
    assert_eq!(Format::ALL.map(Format::as_str), ["openai", "anthropic", "mcp", "responses", "gemini"]);
}

/// `Toolset::emit` assembles definitions from the texts a `ToolInfo` stores
/// (`render_infos`); that must be byte for byte what the renderer writes from the IR, for
/// every row, and for the envelope's optional parts: title, annotations, examples, an
/// output schema, and no parameters at all (Gemini then writes no schema).
#[test]
fn definitions_assembled_from_stored_texts_are_the_renderers() {
    use toolcall_runtime::render::render_infos;
    use toolcall_runtime::{Annotations, ToolInfo};
    let mut described =
        Tool::new("described").description("Every optional part.").param(Param::new("q", Type::string()));
    described.title = "Described \"tool\"".into();
    described.annotations =
        Annotations { read_only: Some(true), open_world: Some(false), ..Annotations::default() };
    described.examples = vec![json!({"q": "a"}), json!({"q": "b"})];
    described.output = Some(Type::Object(vec![Param::new("n", Type::integer())]));
    let bare = Tool::new("bare");
    let mut tools: Vec<Tool> = all_rows().into_iter().map(|(_, tool)| tool).collect();
    tools.extend([described, bare]);
    let infos: Vec<ToolInfo> = tools.iter().map(|t| ToolInfo::leaked("m", t)).collect();
    for format in Format::ALL {
        for strict in [false, true] {
            for (tool, info) in tools.iter().zip(&infos) {
                let one = render_infos(std::slice::from_ref(info), format, strict);
                assert_eq!(
                    one,
                    render_tools([tool], format, strict),
                    "{} {format:?} strict={strict}",
                    tool.name
                );
            }
            assert_eq!(render_infos(&infos, format, strict), render_tools(&tools, format, strict));
        }
    }
    assert_eq!(render_infos(&[], Format::OpenAi, true), "[]");
    let mcp = render_infos(&infos[infos.len() - 2..], Format::Mcp, false);
    for part in [
        r#""title":"Described \"tool\"""#,
        r#""annotations":{"readOnlyHint":true,"openWorldHint":false}"#,
        r#""outputSchema":"#,
    ] {
        assert!(mcp.contains(part), "{part} in {mcp}");
    }
    assert!(
        render_infos(&infos[infos.len() - 2..], Format::Anthropic, false)
            .contains(r#""input_examples":[{"q":"a"},{"q":"b"}]"#)
    );
    assert!(render_infos(&infos[infos.len() - 1..], Format::Gemini, false).ends_with(r#"{"name":"bare"}]"#));
}
