//! The generated decoders against serde's own `Deserialize` on the same input, for the
//! fixtures of `tools::aliases` (`#[serde(alias)]` on fields and variants) and
//! `tools::tagged` (a struct inside a variant, in each tagging, recursive or not). Every
//! fixture type derives `Deserialize` too, so serde's verdict is one `from_value` away;
//! the tools return what they decoded, so equal results mean equal values.
//!
//! Each call goes through `run` (a held `Value`) and `run_json` (text, read by the
//! one-pass fast decoder where the type has one), which must answer alike.
//!
//! The last four tests are disagreements found while writing these (a default function,
//! an adjacently tagged unit variant's content, an internally tagged newtype variant read
//! by serde, the output schema's `value` wrapper), fixed in toolcall-build.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use toolcall_fixtures::tools::aliases::{Brush, Fill, Mark, Record, Step, Tone};
use toolcall_fixtures::tools::tagged::{Folder, Item, Node, Part, Quantity, Stat};
use toolcall_fixtures::toolset;
use toolcall_runtime::{Reason, ToolError};

/// Runs `name` from a `Value` and from its text (compact and pretty), and checks all agree.
fn both(name: &str, args: &Value) -> Result<Value, ToolError> {
    let by_value = toolset::ALL.run(name, args);
    let by_text = toolset::ALL.run_json(name, &args.to_string());
    assert_eq!(by_value, by_text, "{name} {args}: a Value and its text answer differently");
    let pretty = serde_json::to_string_pretty(args).unwrap();
    assert_eq!(toolset::ALL.run_bytes(name, pretty.as_bytes()), by_value, "{name} {pretty}");
    by_value
}

/// serde's verdict on `value` as a `T`: the value it decodes to, serialized again.
fn serde_says<T: DeserializeOwned + Serialize>(value: &Value) -> Result<Value, String> {
    serde_json::from_value::<T>(value.clone())
        .map(|decoded| serde_json::to_value(decoded).unwrap())
        .map_err(|e| e.to_string())
}

/// `tool` (one parameter `param`, returning it as decoded) takes `value` exactly as serde
/// does, to the same value.
fn agrees<T: DeserializeOwned + Serialize>(tool: &str, param: &str, value: Value) -> Value {
    let serde = serde_says::<T>(&value).unwrap_or_else(|e| panic!("serde refuses {value}: {e}"));
    let ours = both(tool, &json!({ param: value })).unwrap_or_else(|e| panic!("{tool} refuses {value}: {e}"));
    assert_eq!(ours, serde, "{tool} decodes {value} otherwise than serde");
    ours
}

/// The failing argument's path and reason, the same from a `Value` and from text.
fn refused(name: &str, args: &Value) -> (String, Reason) {
    match both(name, args) {
        Err(ToolError::InvalidArgument { name, reason }) => (name, *reason),
        other => panic!("{name} {args}: expected InvalidArgument, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------
// #[serde(alias)] on fields

/// A brush with every field under its main name.
fn brush() -> Value {
    json!({"colour": "red", "width": 2, "lineCap": "round", "opacity": 50, "label": "a"})
}

#[test]
fn every_field_alias_is_taken_as_serde_takes_it_by_the_fast_decoder_too() {
    let plain = agrees::<Brush>("paint_brush", "brush", brush());
    assert_eq!(plain["width"], 2);
    let aliased = [
        ("colour", "hex_colour"),
        ("width", "stroke_width"),
        ("width", "lineWidth"),
        ("lineCap", "line_cap"),
        ("opacity", "opacity_pct"),
        ("label", "caption_text"),
    ];
    for (name, alias) in aliased {
        let mut value = brush();
        let moved = value.as_object_mut().unwrap().remove(name).unwrap();
        value[alias] = moved;
        assert_eq!(agrees::<Brush>("paint_brush", "brush", value), plain, "{alias} for {name}");
    }
    // Every field under an alias at once, in another order.
    let all = json!({"caption_text": "a", "opacity_pct": 50, "line_cap": "round", "lineWidth": 2, "hex_colour": "red"});
    assert_eq!(agrees::<Brush>("paint_brush", "brush", all), plain);
    // An optional field's alias may be absent like the field; `null` is `None`.
    let mut bare = brush();
    bare.as_object_mut().unwrap().remove("label");
    assert_eq!(agrees::<Brush>("paint_brush", "brush", bare)["label"], Value::Null);
    let mut null = brush();
    null.as_object_mut().unwrap().remove("label");
    null["caption_text"] = Value::Null;
    assert_eq!(agrees::<Brush>("paint_brush", "brush", null)["label"], Value::Null);
}

#[test]
fn field_aliases_of_a_struct_the_fast_decoder_does_not_read_are_taken_too() {
    let plain = json!({"name": "n", "labels": {"a": "b"}, "count": 3});
    let out = agrees::<Record>("labelled_record", "record", plain.clone());
    let aliased = json!({"display_name": "n", "metadata": {"a": "b"}, "quantity": 3});
    assert_eq!(agrees::<Record>("labelled_record", "record", aliased), out);
    // A defaulted field's alias may be absent.
    let defaulted = json!({"display_name": "n", "labels": {}});
    assert_eq!(agrees::<Record>("labelled_record", "record", defaulted)["count"], 0);
}

#[test]
fn a_field_under_two_of_its_names_is_refused_at_the_second_as_serde_refuses_a_duplicate() {
    let cases = [
        (
            "paint_brush",
            json!({"brush": {"colour": "r", "width": 1, "lineCap": "x", "line_cap": "y"}}),
            "brush.line_cap",
            "lineCap",
        ),
        (
            "paint_brush",
            json!({"brush": {"colour": "r", "stroke_width": 1, "lineWidth": 2, "lineCap": "x"}}),
            "brush.lineWidth",
            "width",
        ),
        (
            "paint_brush",
            json!({"brush": {"hex_colour": "r", "colour": "s", "width": 1, "lineCap": "x"}}),
            "brush.hex_colour",
            "colour",
        ),
        (
            "labelled_record",
            json!({"record": {"name": "r", "display_name": "x", "labels": {}}}),
            "record.display_name",
            "name",
        ),
        (
            "labelled_record",
            json!({"record": {"name": "r", "count": 1, "quantity": 2, "labels": {}}}),
            "record.quantity",
            "count",
        ),
    ];
    for (tool, args, path, field) in cases {
        let (name, reason) = refused(tool, &args);
        assert_eq!((name.as_str(), &reason), (path, &Reason::DuplicateKey {}), "{args}");
        let param = args.as_object().unwrap().values().next().unwrap();
        let serde =
            if tool == "paint_brush" { serde_says::<Brush>(param) } else { serde_says::<Record>(param) };
        assert_eq!(serde, Err(format!("duplicate field `{field}`")), "serde on {param}");
    }
    // The error names a key the model sent: of a field's names it was given, the later
    // one in the field's declaration (its name, then its aliases), in any key order.
    for text in [
        r#"{"brush":{"colour":"r","width":1,"stroke_width":1,"lineCap":"x"}}"#,
        r#"{"brush":{"colour":"r","stroke_width":1,"width":1,"lineCap":"x"}}"#,
    ] {
        let error = toolset::ALL.run_json("paint_brush", text).unwrap_err().to_string();
        assert!(error.starts_with("brush.stroke_width: given more than once"), "{error}");
    }
}

/// The fast decoder reads an alias itself (checked in `src/fast_path.rs`); here: an
/// unknown key beside the aliases is still refused, with a did-you-mean of the main names.
#[test]
fn an_alias_is_not_an_unknown_key_but_a_misspelt_one_is() {
    let args = json!({"brush": {"hex_colour": "r", "width": 1, "lineCap": "x", "colr": 1}});
    let (name, reason) = refused("paint_brush", &args);
    assert_eq!(name, "brush");
    assert!(
        matches!(&reason, Reason::UnknownFields { fields } if fields.len() == 1 && fields[0].name == "colr"),
        "{reason:?}"
    );
    assert!(
        serde_says::<Brush>(&args["brush"]).is_ok(),
        "serde ignores unknown fields; the schema closes the object"
    );
}

// ---------------------------------------------------------------------------------------
// #[serde(alias)] on variants, in each tagging

#[test]
fn a_unit_variant_alias_is_taken_by_the_fast_decoder_too() {
    let args = json!({"tone": "Grey", "more": ["Gray", "Grey", "Black"]});
    let serde = (serde_says::<Tone>(&args["tone"]).unwrap(), serde_says::<Vec<Tone>>(&args["more"]).unwrap());
    assert_eq!(both("tones", &args), Ok(json!([serde.0, serde.1])));
    assert_eq!(serde.0, json!("Gray"));
    let (name, _) = refused("tones", &json!({"tone": "grey", "more": []}));
    assert_eq!(name, "tone", "aliases are exact, as serde's are");
    assert!(serde_says::<Tone>(&json!("grey")).is_err());
}

#[test]
fn variant_aliases_in_every_tagging_decode_as_serde_decodes_them() {
    let fills =
        [json!("Clear"), json!("Empty"), json!({"Flat": "red"}), json!({"Ramp": {"from": "a", "to": "b"}})];
    let marks =
        [json!({"type": "Dot", "x": -3}), json!({"type": "Nothing"}), json!({"x": 1, "type": "Point"})];
    let steps = [
        json!({"t": "Shift", "c": 4}),
        json!({"t": "Rotate", "c": {"degrees": 90}}),
        json!({"t": "Halt"}),
        json!({"c": {"degrees": 1}, "t": "Turn"}),
    ];
    for (i, fill) in fills.iter().enumerate() {
        let (mark, step) = (&marks[i % marks.len()], &steps[i % steps.len()]);
        let args = json!({"fill": fill, "mark": mark, "step": step});
        let serde = json!([
            serde_says::<Fill>(fill).unwrap(),
            serde_says::<Mark>(mark).unwrap(),
            serde_says::<Step>(step).unwrap()
        ]);
        assert_eq!(both("aliased_variants", &args), Ok(serde), "{args}");
    }
    for (i, step) in steps.iter().enumerate() {
        let args = json!({"fill": fills[i], "mark": marks[i % marks.len()], "step": step});
        let out = both("aliased_variants", &args).unwrap();
        assert_eq!(out[2], serde_says::<Step>(step).unwrap(), "{step}");
    }
    // The main name of a variant is what comes back.
    let out = both(
        "aliased_variants",
        &json!({"fill": {"Flat": "x"}, "mark": {"type": "Dot", "x": 0}, "step": {"t": "Halt"}}),
    );
    assert_eq!(out, Ok(json!([{"Solid": "x"}, {"type": "Point", "x": 0}, {"t": "Stop"}])));
}

// ---------------------------------------------------------------------------------------
// A struct inside a variant (#35)

/// The issue's instance: an internally tagged newtype variant over a recursive struct
/// puts the struct's fields beside the tag, at every depth.
#[test]
fn a_recursive_struct_in_an_internally_tagged_newtype_variant_sits_beside_the_tag() {
    let root = json!({"entries": [
        {"kind": "file", "size": 1},
        {"kind": "sub", "entries": [{"kind": "file", "size": 2}, {"kind": "sub", "entries": []}]},
    ]});
    assert_eq!(agrees::<Folder>("folder_tree", "root", root.clone()), root);
    // serde refuses the `value` wrapper, and so does the tool.
    let wrapped = json!({"entries": [{"kind": "sub", "value": {"entries": []}}]});
    assert!(serde_says::<Folder>(&wrapped).is_err());
    let (name, _) = refused("folder_tree", &json!({ "root": wrapped }));
    assert!(name.starts_with("root.entries"), "{name}");
}

#[test]
fn a_flat_struct_in_an_internally_tagged_newtype_variant_sits_beside_the_tag() {
    for item in [
        json!({"type": "Stat", "size": 7}),
        json!({"type": "Stat", "size": 7, "readOnly": true, "owner": "ada"}),
        json!({"owner": null, "size": 0, "type": "Stat"}),
        json!({"type": "Link", "target": "/x"}),
        json!({"type": "Missing"}),
    ] {
        agrees::<Item>("item", "item", item.clone());
        let stat = json!({"size": 1});
        let serde = json!([serde_says::<Stat>(&stat).unwrap(), serde_says::<Item>(&item).unwrap()]);
        assert_eq!(both("stat_and_item", &json!({"stat": stat, "item": item})), Ok(serde));
    }
    assert!(serde_says::<Item>(&json!({"type": "Stat", "value": {"size": 1}})).is_err());
    refused("item", &json!({"item": {"type": "Stat", "value": {"size": 1}}}));
}

#[test]
fn recursive_structs_in_adjacently_externally_and_untagged_variants_decode_as_serde_decodes_them() {
    let node = json!({"t": "Branch", "c": {"nodes": [{"t": "Leaf", "c": 1}, {"t": "Branch", "c": {"nodes": [{"t": "Empty"}]}}]}});
    assert_eq!(agrees::<Node>("node", "node", node.clone()), node);
    let part = json!({"Group": {"title": "a", "parts": [{"Text": "x"}, "Break", {"Group": {"title": "b", "parts": []}}]}});
    assert_eq!(agrees::<Part>("part", "part", part.clone()), part);
    let quantity = json!({"terms": [1, {"terms": [-2, {"terms": []}]}, 3]});
    assert_eq!(agrees::<Quantity>("quantity", "quantity", quantity.clone()), quantity);
    assert_eq!(agrees::<Quantity>("quantity", "quantity", json!(5)), json!(5));
    // A mistake deep inside is refused by both, at its path by the tool.
    let bad =
        json!({"t": "Branch", "c": {"nodes": [{"t": "Branch", "c": {"nodes": [{"t": "Leaf", "c": -1}]}}]}});
    assert!(serde_says::<Node>(&bad).is_err());
    let (name, _) = refused("node", &json!({ "node": bad }));
    assert!(name.starts_with("node"), "{name}");
    let bad = json!({"Group": {"title": "a", "parts": [{"Group": {"title": 1, "parts": []}}]}});
    assert!(serde_says::<Part>(&bad).is_err());
    let (name, _) = refused("part", &json!({ "part": bad }));
    assert_eq!(name, "part.Group.parts[0].Group.title");
}

// ---------------------------------------------------------------------------------------
// Disagreements the fixtures found in toolcall-build, fixed

/// `#[serde(default = "full")]` calls `full()` when the field is absent (serde: 100); the
/// build reads it as a plain `#[serde(default)]` (toolcall-build/src/ast/attr.rs, the
/// field and container `"default" => out.default = true` arms drop the path), so the
/// generated decoders give `u8::default()`, 0.
#[test]
fn a_default_function_is_called_as_serde_calls_it() {
    let bare = json!({"colour": "red", "width": 2, "lineCap": "round"});
    assert_eq!(serde_says::<Brush>(&bare).unwrap()["opacity"], 100);
    let ours = both("paint_brush", &json!({ "brush": bare })).unwrap();
    assert_eq!(ours["opacity"], 100, "serde calls the default function; we gave {ours}");
}

/// An adjacently tagged unit variant takes no content: serde refuses `{"t": "Stop",
/// "c": 1}` and the schema (`{"t"}` only, closed) refuses any `c`; the generated decoder
/// (toolcall-build/src/codegen/from_arg.rs, `adjacent_body`: the unit arm never looks at
/// the content) takes it. The same holds for `local_types::Message::Ping`.
#[test]
fn an_adjacently_tagged_unit_variant_takes_no_content() {
    let step = json!({"t": "Stop", "c": 1});
    assert!(serde_says::<Step>(&step).is_err());
    let args = json!({"fill": "Empty", "mark": {"type": "Blank"}, "step": step});
    let ours = both("aliased_variants", &args);
    assert!(ours.is_err(), "serde and the schema refuse {step}; the tool gave {ours:?}");
}

/// An internally tagged enum with a newtype variant is decoded by serde (the generated
/// decoder does not merge a payload with its tag: toolcall-build/src/types/decoding.rs,
/// `enum_shape`), while its schema closes every object as the generated decoders do: so
/// the dispatcher takes unknown keys the schema and the IR decoder refuse (and refuses
/// `1.0` for an integer and `null` for a `#[serde(default)]` field, which they take).
#[test]
fn an_internally_tagged_newtype_variant_is_read_as_its_schema_says() {
    let tools: Vec<toolcall_runtime::ir::Tool> = toolcall_build::Builder::new()
        .crate_dir(env!("CARGO_MANIFEST_DIR"))
        .generate()
        .unwrap()
        .modules
        .into_iter()
        .flat_map(|m| m.tools.into_iter().map(|t| t.ir))
        .collect();
    let ir = |name: &str| tools.iter().find(|t| t.name == name).unwrap().clone();
    let cases = [
        ("item", json!({"item": {"type": "Missing", "extra": 1}})),
        ("item", json!({"item": {"type": "Stat", "size": 1, "readOnly": null}})),
        ("folder_tree", json!({"root": {"entries": [{"kind": "sub", "entries": [], "extra": 1}]}})),
    ];
    let mut disagreements = Vec::new();
    for (tool, args) in cases {
        let ours = toolset::ALL.run(tool, &args);
        let schema = toolcall_runtime::__private::decode_arguments(&ir(tool), &args);
        if ours.is_ok() != schema.is_ok() {
            disagreements.push(format!("{tool} {args}: dispatcher {ours:?}, IR {:?}", schema.map(|_| ())));
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

/// The output schema of an internally tagged newtype variant over a recursive struct:
/// serde writes the struct's fields beside the tag (`{"kind": "sub", "entries": [..]}`),
/// never a `value` wrapper. The output fold writes a repeated struct as `{}`, so that
/// variant is a branch any value satisfies and the variants are `anyOf` (a `oneOf` would
/// refuse a value that branch and a listed one both take); conformance's output-schema
/// test validates every result against it.
#[test]
fn the_output_schema_of_a_tagged_newtype_variant_never_wraps_its_struct_in_value() {
    let text = toolset::ALL.emit(toolcall_runtime::Format::Mcp, false);
    let tools: Value = serde_json::from_str(text).unwrap();
    let tool = tools.as_array().unwrap().iter().find(|t| t["name"] == "folder_tree").unwrap();
    let variants = &tool["outputSchema"]["properties"]["entries"]["items"];
    let branches = variants["anyOf"].as_array().unwrap_or_else(|| panic!("anyOf expected: {variants}"));
    assert!(branches.iter().all(|b| b["properties"].get("value").is_none()), "{variants}");
    let file = branches.iter().find(|b| b["properties"]["kind"]["enum"] == json!(["file"])).unwrap();
    assert!(file["properties"].get("size").is_some(), "{file}");
    let open =
        |b: &&Value| b.get("type").is_none() && b.get("properties").is_none() && b.get("$ref").is_none();
    assert!(branches.iter().any(|b| open(&b)), "{variants}");
    let result =
        both("folder_tree", &json!({"root": {"entries": [{"kind": "sub", "entries": []}]}})).unwrap();
    assert_eq!(result["entries"][0], json!({"kind": "sub", "entries": []}));
}
