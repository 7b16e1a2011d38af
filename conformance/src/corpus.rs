//! The tools every check runs over, with a way to call each one.
//!
//! * `example-app`: generated in-process from `example-app/src/tools` by `toolcall-build`
//!   (with the same type provider as its `build.rs`), called through the crate's real
//!   `example_app::toolset::ALL`.
//! * `toolcall-fixtures`: the generator's fixture crate, the same way.
//! * `hand-built`: IR tools written here so every [`Type`] variant and keyword is
//!   rendered at least once, called through [`DynTool`]s in a [`Registry`].
//!
//! The in-process route gives the IR (which the sample generator walks); the
//! `schemas_match_the_compiled_toolsets` test proves it renders exactly what the compiled
//! crates ship.

use std::collections::BTreeSet;
use std::future::Future;
use std::path::PathBuf;
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use serde_json::Value;
use toolcall_build::{Builder, Generated, Level, ProvidedType, TypeProvider};
use toolcall_runtime::ir::{EnumVariant, Param, Tool, Type};
use toolcall_runtime::render::{Format, render_tools};
use toolcall_runtime::{DynTool, Registry, ToolError, ToolInfo};

/// Where a source's tools are served.
pub enum Dispatch {
    /// A compiled toolset (`ALL` of a crate), called through `Toolset::call` with the
    /// crate's context, so sync and async tools alike are checked.
    Static(fn(&str, &Value) -> Result<Value, ToolError>),
    /// Runtime-built tools.
    Dynamic(Registry),
}

impl Dispatch {
    /// Calls tool `name` with `args`.
    pub fn run(&self, name: &str, args: &Value) -> Result<Value, ToolError> {
        match self {
            Dispatch::Static(call) => call(name, args),
            Dispatch::Dynamic(registry) => registry.run(name, args),
        }
    }
}

/// example-app's context for every conformance call: a seeded store without latency.
static EXAMPLE_APP: LazyLock<example_app::App> = LazyLock::new(|| {
    let store = Arc::new(example_app::app::Store::seeded(Duration::ZERO));
    example_app::App::for_user(&store, example_app::models::User::ada())
});

fn call_example_app(name: &str, args: &Value) -> Result<Value, ToolError> {
    block_on(example_app::toolset::ALL.call(&EXAMPLE_APP, name, args))
}

fn call_fixtures(name: &str, args: &Value) -> Result<Value, ToolError> {
    block_on(toolcall_fixtures::toolset::ALL.call(&(), name, args))
}

/// Runs a future to completion on this thread: a small executor for the async tools,
/// which wait only on timers and on futures that wake themselves.
///
/// # Panics
///
/// When no tokio runtime can be built for the timers.
pub fn block_on<F: Future>(future: F) -> F::Output {
    thread_local! {
        static RUNTIME: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap_or_else(|e| panic!("cannot build a tokio runtime: {e}"));
    }
    RUNTIME.with(|runtime| runtime.block_on(future))
}

/// A named set of tools.
pub struct Source {
    /// `example-app`, `toolcall-fixtures` or `hand-built`.
    pub name: &'static str,
    /// The tools' IR, in the order the toolset lists them.
    pub tools: Vec<Tool>,
    /// How to call them.
    pub dispatch: Dispatch,
    /// Tools with a parameter the schema cannot describe: a foreign type with no type
    /// provider renders as `{}` (with a build warning) and is decoded with `Deserialize`,
    /// so no value derived from the schema is known to decode.
    pub opaque: BTreeSet<String>,
    /// The warnings the generator printed (empty for hand-built tools).
    pub warnings: Vec<String>,
}

impl Source {
    /// The JSON array of tool definitions in `format`, rendered by the one renderer.
    pub fn render(&self, format: Format, strict: bool) -> String {
        render_tools(&self.tools, format, strict)
    }

    /// [`Source::render`] parsed.
    ///
    /// # Panics
    ///
    /// When the renderer wrote invalid JSON.
    pub fn render_value(&self, format: Format, strict: bool) -> Value {
        let text = self.render(format, strict);
        serde_json::from_str(&text).unwrap_or_else(|e| {
            panic!("{}: {} strict={strict} is not valid JSON: {e}\n{text}", self.name, format.as_str())
        })
    }
}

/// Every format with both strict settings, in a fixed order.
pub fn variants() -> impl Iterator<Item = (Format, bool)> {
    Format::ALL.into_iter().flat_map(|format| [(format, false), (format, true)])
}

/// The workspace root (the parent of this crate).
pub fn workspace_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// The type provider of `example-app/build.rs`, repeated here so the in-process route
/// renders what the app ships (`schemas_match_the_compiled_toolsets` fails if they drift).
struct MoneyProvider;

impl TypeProvider for MoneyProvider {
    fn resolve(&self, path: &str, args: &[Type]) -> Option<ProvidedType> {
        let is_money = path == "crate::money::Money" || path == "money::Money";
        (is_money && args.is_empty()).then(|| {
            ProvidedType::new(Type::string_pattern(r"^-?\d+\.\d{2}$"))
                .decode_with("crate::money::Money::from_wire")
        })
    }
}

/// Generates a crate's tools in-process.
///
/// # Panics
///
/// When the tools directory cannot be read or generation reports an error.
fn generate(builder: Builder, what: &str) -> Generated {
    let generated = builder.generate().unwrap_or_else(|e| panic!("{what}: cannot generate: {e}"));
    let errors: Vec<String> =
        generated.diagnostics.iter().filter(|d| d.level == Level::Error).map(ToString::to_string).collect();
    assert!(errors.is_empty(), "{what}: the generator reported errors:\n{}", errors.join("\n"));
    generated
}

fn from_generated(
    name: &'static str,
    generated: &Generated,
    call: fn(&str, &Value) -> Result<Value, ToolError>,
) -> Source {
    let defs = generated.modules.iter().flat_map(|m| &m.tools);
    let mut opaque = BTreeSet::new();
    let mut tools = Vec::new();
    for def in defs {
        let untyped_serde =
            def.ir.params.iter().any(|param| def.serde_params.contains(&param.name) && is_untyped(&param.ty));
        if untyped_serde {
            opaque.insert(def.ir.name.clone());
        }
        tools.push(def.ir.clone());
    }
    let warnings = generated.diagnostics.iter().map(ToString::to_string).collect();
    Source { name, tools, dispatch: Dispatch::Static(call), opaque, warnings }
}

fn is_untyped(ty: &Type) -> bool {
    match ty.undescribed() {
        Type::Any => true,
        Type::Nullable(inner) => is_untyped(inner),
        _ => false,
    }
}

/// `example-app`'s tools.
pub fn example_app() -> Source {
    let builder = Builder::new()
        .crate_dir(workspace_dir().join("example-app"))
        .context("crate::App")
        .type_provider(MoneyProvider);
    from_generated("example-app", &generate(builder, "example-app"), call_example_app)
}

/// `toolcall-fixtures`' tools.
pub fn fixtures() -> Source {
    let builder = Builder::new().crate_dir(workspace_dir().join("toolcall-fixtures"));
    from_generated("toolcall-fixtures", &generate(builder, "toolcall-fixtures"), call_fixtures)
}

/// The compiled crates' toolsets, for comparing with the in-process rendering.
pub fn compiled() -> [(&'static str, &'static [ToolInfo], Emit); 2] {
    [
        ("example-app", example_app::toolset::ALL.describe(), |f, s| example_app::toolset::ALL.emit(f, s)),
        ("toolcall-fixtures", toolcall_fixtures::toolset::ALL.describe(), |f, s| {
            toolcall_fixtures::toolset::ALL.emit(f, s)
        }),
    ]
}

/// A compiled toolset's `emit`.
pub type Emit = fn(Format, bool) -> &'static str;

/// Hand-built tools: every `Type` variant and every keyword the renderer can write, and
/// recursive definitions.
pub fn hand_built() -> Source {
    let tools = hand_built_tools();
    let mut registry = Registry::new();
    for tool in &tools {
        let added = registry.add_tool(DynTool::new(tool.clone(), |args| Ok(Value::Object(args.clone()))));
        assert!(added.is_ok(), "hand-built tool names are unique: {}", tool.name);
    }
    Source {
        name: "hand-built",
        tools,
        dispatch: Dispatch::Dynamic(registry),
        opaque: BTreeSet::new(),
        warnings: Vec::new(),
    }
}

/// Every source: example-app, the fixtures, the hand-built tools.
pub fn sources() -> Vec<Source> {
    vec![example_app(), fixtures(), hand_built()]
}

fn string_with(min_length: Option<u64>, max_length: Option<u64>) -> Type {
    Type::String { format: None, pattern: None, min_length, max_length }
}

fn variant(value: &str, description: &str) -> EnumVariant {
    EnumVariant { value: value.to_owned(), description: description.to_owned() }
}

fn object(params: Vec<Param>) -> Type {
    Type::Object(params)
}

/// Numbers, booleans, null and untyped values, at and past the safe-integer limits.
fn scalars_tool() -> Tool {
    let integer = |minimum, maximum, non_zero, as_string| Type::Integer {
        minimum,
        maximum,
        non_zero,
        as_string,
        width: None,
    };
    Tool::new("scalars")
        .description("Scalars of every kind.")
        .param(Param::new("flag", Type::Boolean).description("a boolean"))
        .param(Param::new("nothing", Type::Null).description("always null"))
        .param(Param::new("anything", Type::Any).description("any JSON value"))
        .param(Param::new("small", Type::integer_between(-5, 5)))
        .param(Param::new("count", Type::integer()))
        .param(Param::new("non_zero", integer(Some(-3), Some(3), true, false)))
        .param(Param::new("wide", integer(Some(i64::MIN), Some(i64::MAX), false, false)))
        .param(Param::new("wide_unsigned", integer(Some(0), None, false, false)))
        .param(Param::new("big_id", integer(Some(0), None, false, true)).description("a u64 id"))
        .param(Param::new("signed_id", integer(Some(i64::MIN), Some(i64::MAX), false, true)))
        .param(Param::new("ratio", Type::Number { minimum: Some(-1.5), maximum: Some(2.5) }))
        .param(Param::new("weight", Type::number()))
}

/// Strings: every format, a pattern, length limits.
fn strings_tool() -> Tool {
    let formats =
        ["date", "time", "date-time", "duration", "email", "hostname", "ipv4", "ipv6", "uuid", "uri"];
    let mut tool = Tool::new("strings").description("Strings with formats, patterns and lengths.");
    for format in formats {
        let name = format!("f_{}", format.replace('-', "_"));
        tool = tool.param(Param::new(name, Type::string_format(format)).description(format!("a {format}")));
    }
    tool.param(Param::new("code", Type::string_pattern(r"^[A-Z]{3}-\d{2,4}$")).description("like ABC-123"))
        .param(Param::new("short", string_with(Some(2), Some(5))))
        .param(Param::new("letter", string_with(Some(1), Some(1))))
        .param(Param::new("long", string_with(Some(3), None)))
        .param(Param::new("plain", Type::string()))
}

/// Arrays, sets, tuples, maps.
fn collections_tool() -> Tool {
    let bounded = Type::Array {
        items: Box::new(Type::integer_between(0, 9)),
        min_items: Some(1),
        max_items: Some(3),
        unique: false,
    };
    let exact =
        Type::Array { items: Box::new(Type::Boolean), min_items: Some(2), max_items: Some(2), unique: false };
    let set = Type::Array { items: Box::new(Type::string()), min_items: None, max_items: None, unique: true };
    let counted =
        Type::Array { items: Box::new(Type::number()), min_items: Some(3), max_items: None, unique: false };
    Tool::new("collections")
        .description("Arrays, sets, tuples and maps.")
        .param(Param::new("list", Type::array(Type::string())))
        .param(Param::new("bounded", bounded).description("one to three digits"))
        .param(Param::new("pair_of_flags", exact))
        .param(Param::new("tags", set).description("distinct tags"))
        .param(Param::new("samples", counted))
        .param(Param::new("point", Type::Tuple(vec![Type::number(), Type::number()])))
        .param(Param::new(
            "mixed",
            Type::Tuple(vec![Type::integer_between(0, 255), Type::string(), Type::Boolean]),
        ))
        .param(Param::new("scores", Type::Map(Box::new(Type::integer_between(0, 100)))))
        .param(Param::new("groups", Type::Map(Box::new(Type::array(Type::string())))))
        .param(Param::new("matrix", Type::array(Type::array(Type::integer()))))
}

/// Objects, enums, unions, nullables, consts and described types.
fn shapes_tool() -> Tool {
    let address = object(vec![
        Param::new("street", Type::string()).description("street and number"),
        Param::new("zip", Type::integer_between(0, 99999)),
        Param::new("country", Type::string()).description("ISO code").default("NO"),
        Param::new("floor", Type::integer_between(-5, 200)).optional(),
    ]);
    let colour =
        Type::Enum(vec![variant("red", "like blood"), variant("green", ""), variant("sky-blue", "renamed")]);
    let tagged = Type::OneOf(vec![
        object(vec![Param::new("kind", Type::Const("circle".into())), Param::new("radius", Type::number())]),
        object(vec![
            Param::new("kind", Type::Const("rect".into())),
            Param::new("width", Type::number()),
            Param::new("height", Type::number()),
        ]),
        Type::Const("point".into()),
    ]);
    let amount = Type::AnyOf(vec![
        Type::Described(Box::new(Type::integer_between(0, 1000)), "an exact amount".into()),
        object(vec![Param::new("min", Type::integer()), Param::new("max", Type::integer())]),
        Type::string(),
    ]);
    Tool::new("shapes")
        .description("Objects, enums, unions and nullable values.")
        .param(Param::new("address", address).description("where to ship"))
        .param(Param::new("colour", colour.clone()))
        .param(Param::new("shape", tagged))
        .param(Param::new("amount", amount))
        .param(Param::new("tag", Type::Const("v1".into())))
        .param(Param::new("note", Type::string().nullable()).description("null to clear"))
        .param(Param::new("maybe_colour", colour.nullable()))
        .param(Param::new("maybe_point", object(vec![Param::new("x", Type::number())]).nullable()))
        .param(Param::new(
            "labelled",
            Type::Described(Box::new(Type::integer_between(1, 7)), "a weekday".into()),
        ))
        .param(Param::new(
            "items",
            Type::array(object(vec![
                Param::new("sku", Type::string()),
                Param::new("quantity", Type::integer_between(1, 1000)).default(1),
            ])),
        ))
}

/// Optional parameters with and without defaults, including nullable optional ones.
fn optionals_tool() -> Tool {
    Tool::new("optionals")
        .description("Optional parameters, defaults and explicit nulls.")
        .param(Param::new("city", Type::string()).description("city name"))
        .param(Param::new("days", Type::integer_between(1, 7)).default(3).description("days ahead"))
        .param(Param::new("units", Type::enumeration(["metric", "imperial"])).default("metric"))
        .param(Param::new("verbose", Type::Boolean).default(false))
        .param(Param::new("ratio", Type::number()).default(0.5))
        .param(Param::new("tags", Type::array(Type::string())).default(serde_json::json!([])))
        .param(Param::new("note", Type::string()).optional())
        .param(Param::new("clear", Type::string().nullable()).optional().description("null clears"))
        .param(Param::new("filter", object(vec![Param::new("min", Type::integer()).optional()])).optional())
}

/// Nine levels of objects and arrays (OpenAI strict allows ten).
fn nested_tool() -> Tool {
    let deep = (0..6).fold(Type::Boolean, |inner, level| {
        let inner = if level % 3 == 1 { Type::array(inner) } else { inner };
        object(vec![
            Param::new(format!("level{level}"), inner),
            Param::new("name", Type::string()).optional(),
        ])
    });
    Tool::new("nested").description("Deeply nested objects.").param(Param::new("root", deep))
}

/// Recursive types: a tree with an optional self-reference and an untyped field, a pair
/// that refer to each other (one with a name that needs escaping in a `$ref`), and
/// references with a description, a default and a null option.
fn recursive_tool() -> Tool {
    let node = object(vec![
        Param::new("label", Type::string()).description("the node's label"),
        Param::new("children", Type::array(Type::reference("Node"))),
        Param::new("next", Type::reference("Node")).optional().description("a node after this one"),
        Param::new("meta", Type::Any).optional(),
    ]);
    let ping = object(vec![Param::new("pong", Type::reference("pong/2 v").nullable())]);
    let pong = object(vec![Param::new("pings", Type::array(Type::reference("Ping")))]);
    Tool::new("recursive")
        .description("Recursive types: a tree and a pair that refer to each other.")
        .param(Param::new("tree", Type::reference("Node")).description("a tree"))
        .param(Param::new("ping", Type::reference("Ping")))
        .param(Param::new("maybe", Type::reference("Node").nullable()).description("null for none"))
        .param(
            Param::new("start", Type::reference("Node"))
                .default(serde_json::json!({"label": "root", "children": []})),
        )
        .def("Node", node)
        .def("Ping", ping)
        .def("pong/2 v", pong)
}

/// The hand-built tools.
pub fn hand_built_tools() -> Vec<Tool> {
    vec![
        scalars_tool(),
        strings_tool(),
        collections_tool(),
        shapes_tool(),
        optionals_tool(),
        nested_tool(),
        recursive_tool(),
        Tool::new("no_params").description("A tool without parameters."),
    ]
}
