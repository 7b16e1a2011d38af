//! Output schemas of any shape (#44 item 4): a tool's IR and its `ToolInfo::output` keep
//! the schema of a result that is not an object (an array, an integer, a string, a union),
//! which only MCP 2026-07-28 takes; every static emission keeps today's bytes, valid in
//! every revision: an MCP definition carries an `outputSchema` only when it is an object
//! schema, and the other formats carry none.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use toolcall_runtime::ir::{Param, Tool, Type};
use toolcall_runtime::render::{Format, render_infos, render_output_schema, render_tools};
use toolcall_runtime::{Emitted, ToolInfo, Toolset};

/// A struct, a map, a list, an integer, a string, an enum, an optional struct and a
/// described struct (an object too).
fn shapes() -> Vec<(&'static str, Type)> {
    let user = Type::Object(vec![Param::new("id", Type::integer())]);
    vec![
        ("user", user.clone()),
        ("tally", Type::Map(Box::new(Type::integer()))),
        ("names", Type::array(Type::string())),
        (
            "count",
            Type::Integer { minimum: Some(0), maximum: None, non_zero: false, as_string: false, width: None },
        ),
        ("greeting", Type::string()),
        ("color", Type::enumeration(["red", "green"])),
        ("maybe_user", user.clone().nullable()),
        ("described_user", Type::Described(Box::new(user), "A user.".into())),
    ]
}

fn tools() -> Vec<Tool> {
    shapes().into_iter().map(|(name, ty)| Tool::new(name).output(ty)).collect()
}

fn is_object(name: &str) -> bool {
    matches!(name, "user" | "tally" | "described_user")
}

#[test]
fn the_ir_keeps_every_shape_but_the_ones_that_say_nothing() {
    for (tool, (name, ty)) in tools().iter().zip(shapes()) {
        assert_eq!(tool.output.as_ref(), Some(&ty), "{name}");
        assert_eq!(tool.object_output().is_some(), is_object(name), "{name}");
    }
    // `{}` (a `serde_json::Value`) and `null` (a `()` result) describe nothing.
    for ty in [Type::Any, Type::Null, Type::Described(Box::new(Type::Any), "anything".into())] {
        assert_eq!(Tool::new("t").output(ty.clone()).output, None, "{ty:?}");
    }
}

#[test]
fn tool_info_holds_every_shape_and_says_which_are_objects() {
    for tool in tools() {
        let info = ToolInfo::leaked("m", &tool);
        let schema = render_output_schema(tool.output.as_ref().unwrap());
        assert_eq!(info.output, Some(schema.as_str()), "{}", tool.name);
        let root: Value = serde_json::from_str(&schema).unwrap();
        assert_eq!(is_object(&tool.name), root["type"] == "object", "{}: {schema}", tool.name);
        assert_eq!(info.object_output().is_some(), is_object(&tool.name), "{}: {schema}", tool.name);
    }
    // Texts written by hand: only a root `"type": "object"` is an object schema.
    let row = |output| ToolInfo { name: "t", output: Some(output), ..ToolInfo::EMPTY };
    for (text, object) in [
        (r#"{"type":"object"}"#, true),
        (r#"{"description":"A user.","type":"object","properties":{}}"#, true),
        (r#"{"type":["object","null"]}"#, false),
        (r#"{"anyOf":[{"type":"object"},{"type":"null"}]}"#, false),
        (r#"{"type":"array","items":{"type":"object"}}"#, false),
        (r#"{}"#, false),
        ("not json", false),
    ] {
        assert_eq!(row(text).object_output().is_some(), object, "{text}");
    }
    assert_eq!(ToolInfo::EMPTY.object_output(), None);
}

/// Emitted definitions: from the IR (`render_tools`, what export writes) and from the
/// stored texts (`render_infos`, what `emit` returns) byte for byte alike; in MCP's, an
/// `outputSchema` exactly for the object results, as the object schema's text; in the
/// other formats none.
#[test]
fn emitted_definitions_carry_object_output_schemas_only() {
    let tools = tools();
    let infos: Vec<ToolInfo> = tools.iter().map(|t| ToolInfo::leaked("m", t)).collect();
    for format in Format::ALL {
        for strict in [false, true] {
            let text = render_infos(&infos, format, strict);
            assert_eq!(text, render_tools(&tools, format, strict), "{format:?} strict={strict}");
            let emitted: Vec<Value> = serde_json::from_str(&text).unwrap();
            for (tool, definition) in tools.iter().zip(&emitted) {
                let schema = definition.get("outputSchema");
                let expected = (format == Format::Mcp && is_object(&tool.name)).then(|| {
                    serde_json::from_str::<Value>(&render_output_schema(tool.output.as_ref().unwrap()))
                        .unwrap()
                });
                assert_eq!(schema, expected.as_ref(), "{} {format:?} strict={strict}", tool.name);
            }
        }
    }
}

/// A toolset's `emit` is the same text with or without the non-object schemas: the
/// definitions of tools that return lists, numbers and strings are today's.
#[test]
fn emit_is_todays_text_whatever_the_other_output_schemas() {
    static EMITTED: Emitted = Emitted::new();
    static WITHOUT: Emitted = Emitted::new();
    let tools = tools();
    let with: &'static [ToolInfo] = tools.iter().map(|t| ToolInfo::leaked("m", t)).collect::<Vec<_>>().leak();
    let without: &'static [ToolInfo] =
        with.iter().map(|info| ToolInfo { output: info.object_output(), ..*info }).collect::<Vec<_>>().leak();
    let with: &'static Toolset = Box::leak(Box::new(Toolset::new(with, &EMITTED, |_, _, _| None)));
    let without: &'static Toolset = Box::leak(Box::new(Toolset::new(without, &WITHOUT, |_, _, _| None)));
    for format in Format::ALL {
        for strict in [false, true] {
            assert_eq!(with.emit(format, strict), without.emit(format, strict), "{format:?} strict={strict}");
        }
    }
    let names = with.describe().iter().find(|t| t.name == "names").unwrap();
    assert_eq!(names.output_value(), Some(json!({"type": "array", "items": {"type": "string"}})));
    assert!(!with.emit(Format::Mcp, false).contains(r#""items":{"type":"string"}"#));
}
