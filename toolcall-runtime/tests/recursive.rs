//! Recursive types in the IR: a tool's definitions (`Tool::defs`) and the references to
//! them (`Type::Ref`). Rendered as `$defs`/`$ref` where the format takes references and
//! written out a bounded number of levels where it does not; validated by following
//! references, with JSON depth counted as the generated decoders count it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use toolcall_runtime::__private::decode_arguments;
use toolcall_runtime::ir::{Param, Tool, Type};
use toolcall_runtime::render::{
    Format, INLINED_LEVELS, JSON_VALUE, every_node_typed, render_infos, render_input_schema, render_tool,
    render_tools,
};
use toolcall_runtime::{DynTool, ToolError, ToolInfo};

/// `Tree { label: String, children: Vec<Tree> }`, as the build script maps it.
fn tree_tool() -> Tool {
    let tree = Type::Object(vec![
        Param::new("label", Type::string()).description("This node's label."),
        Param::new("children", Type::array(Type::reference("Tree"))),
    ]);
    Tool::new("count_nodes")
        .param(Param::new("tree", Type::reference("Tree")).description("A tree."))
        .param(Param::new("spare", Type::reference("Tree").nullable()).optional())
        .def("Tree", tree)
}

fn schema(tool: &Tool, format: Format, strict: bool) -> Value {
    serde_json::from_str(&render_input_schema(tool, format, strict)).unwrap()
}

#[test]
fn formats_with_references_get_defs_and_refs() {
    let tool = tree_tool();
    let lax = schema(&tool, Format::Mcp, false);
    assert_eq!(lax["properties"]["tree"], json!({"$ref": "#/$defs/Tree", "description": "A tree."}));
    assert_eq!(lax["$defs"]["Tree"]["properties"]["children"]["items"], json!({"$ref": "#/$defs/Tree"}));
    // Strict: a `$ref` stands alone, so one with a description is a one-branch `anyOf`.
    let strict = schema(&tool, Format::OpenAi, true);
    assert_eq!(
        strict["properties"]["tree"],
        json!({"description": "A tree.", "anyOf": [{"$ref": "#/$defs/Tree"}]})
    );
    assert_eq!(strict["properties"]["spare"], json!({"anyOf": [{"$ref": "#/$defs/Tree"}, {"type": "null"}]}));
    assert_eq!(strict["required"], json!(["tree", "spare"]));
    assert_eq!(strict["$defs"]["Tree"]["additionalProperties"], json!(false));
    for format in [Format::OpenAi, Format::OpenAiResponses, Format::Mcp] {
        for strict in [false, true] {
            assert!(schema(&tool, format, strict).get("$defs").is_some(), "{format:?} {strict}");
        }
    }
    assert!(schema(&tool, Format::Anthropic, false).get("$defs").is_some());
}

/// Gemini's `parameters` and Anthropic strict take no recursive schema: each use is written
/// out, `INLINED_LEVELS` deep per definition, then `{}` with a note.
#[test]
fn formats_without_references_write_definitions_out_a_bounded_depth() {
    let tool = tree_tool();
    for (format, strict) in [(Format::Gemini, false), (Format::Anthropic, true)] {
        let text = render_tool(&tool, format, strict);
        assert!(!text.contains("$ref") && !text.contains("$defs"), "{text}");
        let value: Value = serde_json::from_str(&text).unwrap();
        let params = if format == Format::Gemini { &value["parameters"] } else { &value["input_schema"] };
        let mut node = &params["properties"]["tree"];
        for level in 0..INLINED_LEVELS {
            assert_eq!(node["type"], "object", "level {level}: {text}");
            node = &node["properties"]["children"]["items"];
        }
        assert_eq!(node, &json!({"description": "same shape as the enclosing Tree"}));
    }
    assert_eq!(
        render_tool(&tool, Format::Gemini, false),
        render_tool(&tool, Format::Gemini, true),
        "Gemini has no strict mode"
    );
}

/// #31 item 5: Anthropic's SDK refuses a strict schema with a node that has no `type`
/// (`transform_schema`: "Schema must have a 'type', 'anyOf', 'oneOf', or 'allOf' field"):
/// a tool whose Anthropic strict schema holds an untyped value or a recursion cut off goes
/// out without `strict` there, in `render_tool` and in the stored-text path alike; the
/// other formats and the other tools keep it.
#[test]
fn anthropic_strict_tools_with_untyped_nodes_go_out_without_strict() {
    let untyped = Tool::new("untyped").param(Param::new("v", Type::Any).description("anything"));
    let nullable_any = Tool::new("maybe").param(Param::new("v", Type::Any.nullable()).optional());
    let plain = Tool::new("plain").param(Param::new("n", Type::integer_between(0, 9)));
    let flag = |tool: &Tool, format: Format, strict: bool| -> Option<Value> {
        let value: Value = serde_json::from_str(&render_tool(tool, format, strict)).unwrap();
        let fields = if format == Format::OpenAi { &value["function"] } else { &value };
        fields.get("strict").cloned()
    };
    for tool in [&tree_tool(), &untyped, &nullable_any] {
        assert_eq!(flag(tool, Format::Anthropic, true), None, "{}", tool.name);
        assert!(!every_node_typed(&schema(tool, Format::Anthropic, true)), "{}", tool.name);
        // OpenAI's strict modes type every node (`$ref`s, `json-value`): they keep it.
        assert_eq!(flag(tool, Format::OpenAi, true), Some(json!(true)), "{}", tool.name);
        assert_eq!(flag(tool, Format::OpenAiResponses, true), Some(json!(true)), "{}", tool.name);
        assert!(every_node_typed(&schema(tool, Format::OpenAi, true)), "{}", tool.name);
    }
    assert_eq!(flag(&plain, Format::Anthropic, true), Some(json!(true)));
    assert!(every_node_typed(&schema(&plain, Format::Anthropic, true)));
    // The array of a toolset (stored texts) says the same as the tools rendered one by one.
    let tools = [tree_tool(), untyped, plain];
    let array: Value = serde_json::from_str(&render_tools(&tools, Format::Anthropic, true)).unwrap();
    let flags: Vec<Option<&Value>> = array.as_array().unwrap().iter().map(|t| t.get("strict")).collect();
    assert_eq!(flags, [None, None, Some(&json!(true))]);
    let infos: Vec<ToolInfo> = tools.iter().map(|t| ToolInfo::leaked("m", t)).collect();
    assert_eq!(render_infos(&infos, Format::Anthropic, true), render_tools(&tools, Format::Anthropic, true));
}

/// Anthropic's SDK takes one type name only (`transform_schema` fails on
/// `["string","null"]`), and MCP clients read `type` as one name (#62 point 8: the MCP
/// Inspector warns of every type array): a null option is an `anyOf` with
/// `{"type":"null"}` in every lax schema and Anthropic's strict one; the strict schemas of
/// OpenAI and MCP keep the type array OpenAI's structured outputs ask for.
#[test]
fn a_null_option_is_any_of_but_in_openai_and_mcp_strict() {
    let tool = Tool::new("t").param(Param::new("note", Type::string().nullable()).description("or null"));
    let any_of = json!({"description": "or null", "anyOf": [{"type": "string"}, {"type": "null"}]});
    assert_eq!(schema(&tool, Format::Anthropic, true)["properties"]["note"], any_of);
    assert!(render_tool(&tool, Format::Anthropic, true).contains(r#""strict":true"#));
    for format in [Format::Anthropic, Format::OpenAi, Format::OpenAiResponses, Format::Mcp] {
        assert_eq!(schema(&tool, format, false)["properties"]["note"], any_of, "{format:?} lax");
    }
    for format in [Format::OpenAi, Format::OpenAiResponses, Format::Mcp] {
        let strict = schema(&tool, format, true);
        assert_eq!(strict["properties"]["note"]["type"], json!(["string", "null"]), "{format:?} strict");
    }
}

#[test]
fn every_node_typed_reads_the_places_anthropic_reads() {
    for typed in [
        json!({"type": "object", "properties": {"a": {"enum": ["x"]}, "b": {"const": 1}}}),
        json!({"anyOf": [{"$ref": "#/$defs/X"}, {"type": "null"}], "$defs": {"X": {"type": "string"}}}),
        json!({"type": "array", "items": {"allOf": [{"type": "string"}]}}),
    ] {
        assert!(every_node_typed(&typed), "{typed}");
    }
    for untyped in [
        json!({}),
        json!({"type": "object", "properties": {"a": {"description": "same shape as the enclosing A"}}}),
        json!({"type": "array", "items": {}}),
        json!({"anyOf": [{}, {"type": "null"}]}),
        json!({"type": "object", "properties": {"e": {"enum": []}}}),
        json!({"$defs": {"X": {"default": 1}}, "type": "object"}),
    ] {
        assert!(!every_node_typed(&untyped), "{untyped}");
    }
}

#[test]
fn a_tool_without_definitions_renders_as_before() {
    let tool = Tool::new("plain").param(Param::new("n", Type::integer_between(0, 9)));
    for format in Format::ALL {
        for strict in [false, true] {
            assert!(!render_tool(&tool, format, strict).contains("$defs"), "{format:?} {strict}");
        }
    }
}

/// OpenAI strict rejects a schema without `type`: an untyped value refers to the
/// `json-value` definition there, also inside another definition, and only there.
#[test]
fn untyped_values_in_openai_strict_refer_to_json_value() {
    let node = Type::Object(vec![
        Param::new("data", Type::Any),
        Param::new("next", Type::reference("Node").nullable()),
    ]);
    let tool = Tool::new("t").param(Param::new("node", Type::reference("Node"))).def("Node", node);
    let strict = schema(&tool, Format::OpenAi, true);
    let defs: Vec<&String> = strict["$defs"].as_object().unwrap().keys().collect();
    assert_eq!(defs, ["Node", JSON_VALUE]);
    assert_eq!(strict["$defs"]["Node"]["properties"]["data"], json!({"$ref": "#/$defs/json-value"}));
    let any = &strict["$defs"][JSON_VALUE]["anyOf"];
    assert_eq!(any.as_array().map(Vec::len), Some(6), "{any}");
    assert_eq!(any[4]["items"], json!({"$ref": "#/$defs/json-value"}));
    for (format, strict) in [(Format::OpenAi, false), (Format::Anthropic, true), (Format::Gemini, false)] {
        assert!(!render_tool(&tool, format, strict).contains(JSON_VALUE), "{format:?} {strict}");
    }
    let plain = Tool::new("p").param(Param::new("v", Type::Any).description("anything"));
    let strict = schema(&plain, Format::Mcp, true);
    assert_eq!(
        strict["properties"]["v"],
        json!({"description": "anything", "anyOf": [{"$ref": "#/$defs/json-value"}]})
    );
}

#[test]
fn recursive_arguments_are_validated_in_full() {
    let tool = tree_tool();
    let ok = json!({"tree": {"label": "a", "children": [{"label": "b", "children": [{"label": "c", "children": []}]}]}});
    assert!(decode_arguments(&tool, &ok).is_ok());
    let bad = json!({"tree": {"label": "a", "children": [{"label": "b", "children": [{"label": 3, "children": []}]}]}});
    let error = decode_arguments(&tool, &bad).unwrap_err();
    assert!(error.to_string().starts_with("tree.children[0].children[0].label:"), "{error}");
    let served = DynTool::new(tool, |args| Ok(args["tree"]["label"].clone()));
    assert_eq!(served.run(&ok), Ok(json!("a")));
}

/// A reference adds no depth: the limit is reached at the same JSON depth as with the
/// type written out.
#[test]
fn references_add_no_depth() {
    let chain = |tool: &Tool, depth: usize| {
        let value = (0..depth).fold(json!({"end": true}), |inner, _| json!({"next": inner}));
        decode_arguments(tool, &json!({ "c": value })).is_ok()
    };
    let link = |next: Type| {
        Type::Object(vec![Param::new("next", next).optional(), Param::new("end", Type::Boolean).optional()])
    };
    let recursive =
        Tool::new("r").param(Param::new("c", Type::reference("L"))).def("L", link(Type::reference("L")));
    let written_out =
        Tool::new("w").param(Param::new("c", (0..200).fold(Type::Boolean, |inner, _| link(inner))));
    for depth in [0, 1, 100, 125, 126, 127, 128, 150] {
        assert_eq!(chain(&recursive, depth), chain(&written_out, depth), "depth {depth}");
    }
    assert!(chain(&recursive, 100) && !chain(&recursive, 150));
}

/// Hand-built IR can hold what the build script refuses: a definition that is itself with
/// nothing in between, or a reference to nothing. Validation fails; it does not loop.
#[test]
fn loops_without_nesting_and_dangling_references_fail_cleanly() {
    let looping = Tool::new("l")
        .param(Param::new("x", Type::reference("A")))
        .def("A", Type::AnyOf(vec![Type::reference("B"), Type::Null]))
        .def("B", Type::Described(Box::new(Type::reference("A")), "again".into()));
    let error = decode_arguments(&looping, &json!({"x": 1})).unwrap_err();
    assert!(matches!(error, ToolError::InvalidArgument { .. }), "{error:?}");
    assert!(decode_arguments(&looping, &json!({"x": null})).is_ok());
    let dangling = Tool::new("d").param(Param::new("x", Type::reference("Missing")));
    let error = decode_arguments(&dangling, &json!({"x": 1})).unwrap_err();
    assert!(error.to_string().contains("`Missing`"), "{error}");
    // Rendering a loop terminates too (written out a bounded depth where inlined).
    assert!(render_tool(&looping, Format::Gemini, false).contains("same shape as the enclosing"));
}

#[test]
fn definitions_survive_serde_and_stay_out_of_tools_without_them() {
    let tool = tree_tool();
    let text = serde_json::to_string(&tool).unwrap();
    assert!(text.contains(r#""defs":[{"name":"Tree""#), "{text}");
    assert!(text.contains(r#"{"kind":"ref","of":"Tree"}"#), "{text}");
    assert_eq!(serde_json::from_str::<Tool>(&text).unwrap(), tool);
    let plain = serde_json::to_string(&Tool::new("p")).unwrap();
    assert!(!plain.contains("defs"), "{plain}");
}
