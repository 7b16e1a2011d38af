//! Schema facts of the compiled toolsets, asserted in code: what `emit` returns for the
//! fixture tools (precomputed at build time), checked rule by rule.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use toolcall_fixtures::toolset;
use toolcall_runtime::{Format, ToolInfo};

fn info(name: &str) -> &'static ToolInfo {
    toolset::ALL.describe().iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no tool {name}"))
}

fn properties(name: &str) -> Value {
    info(name).parameters_value()["properties"].clone()
}

/// The OpenAI function object of tool `name`, strict or not.
fn openai(name: &str, strict: bool) -> Value {
    let all = toolset::ALL.emit_value(Format::OpenAi, strict);
    all.as_array().unwrap().iter().find(|t| t["function"]["name"] == name).cloned().unwrap()
}

#[test]
fn weather_lax_and_strict() {
    let lax = openai("get_weather", false);
    let params = &lax["function"]["parameters"];
    assert_eq!(params["required"], json!(["city"]));
    assert_eq!(params["properties"]["days"]["default"], 3);
    assert_eq!(params["properties"]["city"]["description"], "city name, e.g. \"Oslo\"");
    assert_eq!(params["properties"]["days"]["description"], "how many days ahead (1-7)");
    let strict = openai("get_weather", true);
    let params = &strict["function"]["parameters"];
    assert_eq!(strict["function"]["strict"], true);
    assert_eq!(params["required"], json!(["city", "days"]));
    assert_eq!(params["properties"]["days"]["type"], json!(["integer", "null"]));
    assert_eq!(params["additionalProperties"], false);
    assert!(params["properties"]["days"].get("default").is_none());
}

/// `emit` puts each array together at run time from the tools' stored texts: every array of
/// `ALL` and of two module toolsets is byte for byte the renderer's text of the build IR.
#[test]
fn emitted_arrays_are_the_renderers_text_of_the_build_ir() {
    use toolcall_runtime::render::render_tools;
    let generated = toolcall_build::Builder::new()
        .crate_dir(env!("CARGO_MANIFEST_DIR"))
        .generate()
        .expect("the fixture crate generates");
    let module = |path: &[&str]| {
        let module = generated.modules.iter().find(|m| m.path == path).unwrap();
        module.tools.iter().map(|t| &t.ir).collect::<Vec<_>>()
    };
    let all: Vec<_> = generated.modules.iter().flat_map(|m| m.tools.iter().map(|t| &t.ir)).collect();
    let sets = [
        (&toolset::ALL, all),
        (&toolset::weather::TOOLS, module(&["weather"])),
        (&toolset::billing::invoices::TOOLS, module(&["billing", "invoices"])),
    ];
    for (set, tools) in sets {
        assert_eq!(set.len(), tools.len());
        for format in Format::ALL {
            for strict in [false, true] {
                let expected = render_tools(tools.iter().copied(), format, strict);
                assert_eq!(set.emit(format, strict), expected, "{format:?} strict={strict}");
            }
        }
    }
}

#[test]
fn emit_is_the_same_string_every_time_and_per_module() {
    for format in Format::ALL {
        for strict in [false, true] {
            assert!(std::ptr::eq(toolset::ALL.emit(format, strict), toolset::ALL.emit(format, strict)));
            let module = toolset::weather::TOOLS.emit_value(format, strict);
            assert_eq!(module.as_array().map(Vec::len), Some(1));
        }
    }
    assert_eq!(toolset::ALL.len(), toolset::ALL.describe().len());
    assert!(toolset::ALL.contains("get_invoice") && !toolset::ALL.contains("helper"));
}

/// Every property of every object is required, and every object closed, in OpenAI strict.
fn assert_strict_closed(schema: &Value, at: &str) {
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        let required: Vec<&str> =
            schema["required"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        let keys: Vec<&str> = props.keys().map(String::as_str).collect();
        for key in &keys {
            assert!(required.contains(key), "{at}: `{key}` not required");
        }
        assert_eq!(schema["additionalProperties"], false, "{at}: object not closed");
    }
    match schema {
        // The output schema describes what the tool returns, not what a model writes.
        Value::Object(map) => map
            .iter()
            .filter(|(k, _)| k.as_str() != "outputSchema")
            .for_each(|(k, v)| assert_strict_closed(v, &format!("{at}.{k}"))),
        Value::Array(items) => {
            items.iter().enumerate().for_each(|(i, v)| assert_strict_closed(v, &format!("{at}[{i}]")))
        }
        _ => {}
    }
}

fn integer_bounds_are_safe(schema: &Value, at: &str) {
    const SAFE: i64 = (1 << 53) - 1;
    if let Value::Object(map) = schema {
        for key in ["minimum", "maximum"] {
            if let Some(n) = map.get(key) {
                assert!(
                    n.as_i64().is_some_and(|n| n.abs() <= SAFE) || n.as_f64().is_some(),
                    "{at}.{key}: {n}"
                );
                assert!(n.as_i64().is_none_or(|n| n.abs() <= SAFE), "{at}.{key}: {n}");
            }
        }
    }
    match schema {
        Value::Object(map) => map.iter().for_each(|(k, v)| integer_bounds_are_safe(v, &format!("{at}.{k}"))),
        Value::Array(items) => items.iter().for_each(|v| integer_bounds_are_safe(v, at)),
        _ => {}
    }
}

#[test]
fn strict_openai_and_mcp_close_every_object_and_require_every_property() {
    for format in [Format::OpenAi, Format::Mcp] {
        let all = toolset::ALL.emit_value(format, true);
        assert_strict_closed(&all, format.as_str());
        // Strictness is about what a model writes: output schemas (MCP) are plain JSON Schema.
        let mut inputs = all.clone();
        inputs.as_array_mut().into_iter().flatten().filter_map(Value::as_object_mut).for_each(|tool| {
            tool.remove("outputSchema");
        });
        let text = inputs.to_string();
        for banned in ["\"uniqueItems\"", "\"prefixItems\"", "\"default\"", "\"oneOf\"", "\"minLength\""] {
            assert!(!text.contains(banned), "{} strict has {banned}", format.as_str());
        }
    }
}

#[test]
fn integer_bounds_stay_within_the_safe_range_everywhere() {
    for format in Format::ALL {
        for strict in [false, true] {
            integer_bounds_are_safe(&toolset::ALL.emit_value(format, strict), format.as_str());
        }
    }
    assert!(properties("signed")["d"].get("minimum").is_none());
    assert_eq!(properties("unsigned")["d"], json!({"type": "integer", "minimum": 0}));
}

#[test]
fn docs_headings_sections_and_links() {
    let search = info("search_catalogue");
    assert_eq!(
        search.description,
        "Finds products in the `Catalogue` (https://example.com/catalogue) by name. See the search guide \
         (https://example.com/search) for the query syntax."
    );
    let props = properties("search_catalogue");
    assert_eq!(props["query"]["description"], "what to look for, joined with this continuation line");
    assert_eq!(props["limit"]["description"], "at most this many results");
    let text = toolset::ALL.emit(Format::OpenAi, false);
    // A link keeps its URL (#62 item 13); the definitions themselves are not text.
    assert_eq!(text.matches("https://example.com/search").count(), 1, "{text}");
    for leak in ["must not leak", "Never;", "nested bullet", "Search the catalogue", "[the search guide]"] {
        assert!(!text.contains(leak), "`{leak}` leaked");
    }
    let markers = properties("bullet_markers");
    assert_eq!(markers["left"]["description"], "plus bullet, no backticks");
    assert_eq!(markers["right"]["description"], "dash bullet, colon separator, see `Value`");
}

#[test]
fn hostile_doc_text_arrives_literally() {
    let hostile = info("hostile_docs");
    assert_eq!(
        hostile.description,
        "Hostile text: \"# and */ and } and {} and é and 日本 here. Escaped bidi: \u{202E} and a backslash \\ end."
    );
    assert_eq!(
        properties("hostile_docs")["text"]["description"],
        "a \"quoted\" {} value with */ and \"# inside, é 日本"
    );
    for format in Format::ALL {
        let tool = toolset::ALL.emit_value(format, false);
        assert!(tool.to_string().contains('\u{202E}'), "{}", format.as_str());
    }
}

#[test]
fn names_from_bullets_positions_and_raw_identifiers() {
    let keys =
        |name: &str| -> Vec<String> { properties(name).as_object().unwrap().keys().cloned().collect() };
    assert_eq!(info("unnamed_by_bullet").parameters_value()["required"], json!(["first", "pair"]));
    assert_eq!(info("unnamed_fallback").parameters_value()["required"], json!(["arg1", "count", "arg3"]));
    assert_eq!(keys("loop"), vec!["type"]);
    assert_eq!(properties("duplicate_names")["city"]["description"], "the first city");
    assert_eq!(info("duplicate_names").parameters_value()["required"], json!(["city", "city_2"]));
}

#[test]
fn defaults_in_the_schema() {
    let props = properties("with_defaults");
    let defaults: Vec<(&str, Value)> = vec![
        ("days", json!(3)),
        ("limit", json!(25)),
        ("unit", json!("celsius")),
        ("verbose", json!(false)),
        ("scale", json!(-1.5)),
        ("greeting", json!("hello")),
    ];
    for (name, value) in defaults {
        assert_eq!(props[name]["default"], value, "{name}");
    }
    assert!(props["offset"].get("default").is_none());
    assert_eq!(info("with_defaults").parameters_value()["required"], json!([]));
    let opaque = properties("opaque_defaults");
    assert!(opaque["count"].get("default").is_none() && opaque["label"].get("default").is_none());
}

/// Unit variants of local enums, `Default::default()` of known types, negative literals,
/// consts of those, chains that keep the value and defaults applied anywhere in the body:
/// each default in the schema is the value the function uses when the argument is absent.
#[test]
fn more_defaults_in_the_schema_are_what_the_function_applies() {
    let props = properties("more_defaults");
    let applied = toolset::ALL.run("more_defaults", &json!({})).unwrap();
    let names = ["order", "archived", "sort", "limit", "above", "below", "count", "tags", "label"];
    for name in names {
        assert_eq!(props[name]["default"], applied[name], "{name}");
    }
    assert_eq!(props["order"]["default"], "oldest_first");
    assert_eq!(props["sort"]["default"], "newest_first");
    assert_eq!(props["limit"]["default"], 10);
    assert_eq!(props["below"]["default"], -40);
    assert_eq!(props["tags"]["default"], json!([]));
    assert_eq!(info("more_defaults").parameters_value()["required"], json!([]));
}

#[test]
fn overrides_change_description_and_wire() {
    let props = properties("transfer");
    assert_eq!(props["user_id"]["type"], "string");
    assert!(props["user_id"]["description"].as_str().unwrap().starts_with("Snowflake id"));
    assert!(props["note"].get("description").is_none(), "empty override clears the bullet");
    assert_eq!(props["memo_id"]["type"], "string");
    assert_eq!(props["amount"]["type"], "integer");
    let tag = properties("label_account");
    assert!(tag["account"].get("description").is_none(), "empty override clears the type doc");
    assert_eq!(tag["label"]["description"], "Override beats the bullet");
}

#[test]
fn local_types_in_the_schema() {
    let customer = &properties("register")["customer"];
    let keys: Vec<&String> = customer["properties"].as_object().unwrap().keys().collect();
    // In the struct's declaration order, through the parsed `Value` too (serde_json's
    // `preserve_order`, which toolcall-runtime turns on).
    assert_eq!(keys, ["fullName", "e-mail", "vipLevel", "homeAddress", "nickName"]);
    assert_eq!(customer["required"], json!(["fullName", "e-mail", "homeAddress"]));
    assert_eq!(customer["description"], "A customer, renamed the serde way.");
    assert_eq!(customer["properties"]["fullName"]["description"], "Full name.");
    let address = &properties("ship")["address"];
    assert_eq!(address["properties"]["zip"]["description"], "Postal code.");
    assert_eq!(address["additionalProperties"], false);
    assert_eq!(properties("pair")["labels"]["properties"]["left"]["type"], "string");
    // A recursive type is one definition, used through `$ref` (`count_nodes` of `recursive.rs`
    // for the rest).
    let count_nodes: Value = serde_json::from_str(info("count_nodes").parameters).unwrap();
    assert_eq!(count_nodes["properties"]["tree"]["$ref"], "#/$defs/Tree");
    assert_eq!(
        count_nodes["$defs"]["Tree"]["properties"]["children"]["items"],
        json!({"$ref": "#/$defs/Tree"})
    );
    let record = properties("record");
    assert_eq!(record["reading"]["description"], "A temperature in degrees Celsius.");
    assert_eq!(record["previous"]["description"], "A temperature in degrees Celsius.");
    let paint = properties("paint");
    assert_eq!(paint["colour"]["enum"], json!(["Red", "Green", "sky-blue"]));
    assert!(paint["colour"]["description"].as_str().unwrap().starts_with("the colour to paint"));
    assert!(properties("ship_many")["items"].get("description").is_none(), "no type doc for Vec<Local>");
    let shapes = properties("shapes");
    assert!(shapes["shape"]["oneOf"].is_array());
    assert!(shapes["event"]["oneOf"].is_array());
    assert!(shapes["message"]["oneOf"].is_array());
    assert!(shapes["amount"]["anyOf"].is_array());
}

#[test]
fn foreign_types_are_untyped() {
    let props = properties("wait");
    assert_eq!(props["retry"], json!({}));
    assert_eq!(props["timeout"].as_object().unwrap().keys().collect::<Vec<_>>(), vec!["description"]);
}

#[test]
fn open_objects_in_the_schema() {
    let props = properties("maps");
    assert_eq!(props["hashed"]["type"], "object");
    assert_eq!(props["hashed"]["additionalProperties"]["type"], "integer");
    assert_eq!(props["ordered"]["additionalProperties"]["type"], "array");
    // `serde_json::Map<String, Value>` is an open object too (DESIGN.md, Types).
    assert_eq!(
        props["raw"]["type"], "object",
        "serde_json::Map<String, Value> is not mapped: {}",
        props["raw"]
    );
}

#[test]
fn properties_keep_declaration_order() {
    let text = info("register").parameters;
    let at = |key: &str| text.find(&format!("\"{key}\":")).unwrap_or_else(|| panic!("{key}"));
    let order = ["fullName", "e-mail", "vipLevel", "homeAddress", "nickName"].map(at);
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{text}");
    let text = info("with_defaults").parameters;
    let order = ["days", "limit", "unit", "verbose", "offset", "scale", "greeting"]
        .map(|k| text.find(&format!("\"{k}\":")).unwrap());
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{text}");
}
