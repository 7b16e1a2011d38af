//! Decoding per rule of the Types table: every std type at its boundaries, local types
//! with their serde attributes, each enum representation, overrides, names and defaults.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use toolcall_fixtures::toolset;
use toolcall_runtime::{Reason, ToolError};

fn run(name: &str, args: Value) -> Result<Value, ToolError> {
    toolset::ALL.run(name, &args)
}

/// The failing argument's path and reason.
fn invalid(name: &str, args: Value) -> (String, Reason) {
    match run(name, args) {
        Err(ToolError::InvalidArgument { name, reason }) => (name, *reason),
        other => panic!("expected InvalidArgument, got {other:?}"),
    }
}

#[test]
fn signed_integers_at_their_bounds() {
    let args = json!({"a": -128, "b": 32767, "c": -2147483648_i64, "d": i64::MIN, "e": isize::MAX});
    assert_eq!(run("signed", args), Ok(json!([-128, 32767, -2147483648_i64, i64::MIN, isize::MAX])));
    let base = json!({"a": 0, "b": 0, "c": 0, "d": 0, "e": 0});
    for (key, value) in
        [("a", json!(128)), ("a", json!(-129)), ("b", json!(32768)), ("c", json!(2147483648_i64))]
    {
        let mut args = base.clone();
        args[key] = value;
        let (name, reason) = invalid("signed", args);
        assert_eq!(name, key);
        assert!(matches!(reason, Reason::OutOfRange { .. }), "{reason:?}");
    }
    // 1.0 arrives as 1 for integer parameters, and is accepted.
    assert_eq!(run("signed", json!({"a": 1.0, "b": 0, "c": 0, "d": 0, "e": 0})).unwrap()[0], 1);
}

#[test]
fn unsigned_integers_at_their_bounds() {
    let args = json!({"a": 255, "b": 65535, "c": 4294967295_u64, "d": u64::MAX, "e": 0});
    assert_eq!(run("unsigned", args), Ok(json!([255, 65535, 4294967295_u64, u64::MAX, 0])));
    for (key, value) in [("a", json!(256)), ("a", json!(-1)), ("d", json!(-1)), ("e", json!(-1))] {
        let mut args = json!({"a": 0, "b": 0, "c": 0, "d": 0, "e": 0});
        args[key] = value;
        let (name, reason) = invalid("unsigned", args);
        assert_eq!(name, key);
        assert!(matches!(reason, Reason::OutOfRange { .. }), "{reason:?}");
    }
}

#[test]
fn non_zero_integers_refuse_zero() {
    assert_eq!(run("non_zero", json!({"a": 1, "b": u64::MAX, "c": -1})), Ok(json!([1, u64::MAX, -1])));
    for key in ["a", "b", "c"] {
        let mut args = json!({"a": 1, "b": 1, "c": 1});
        args[key] = json!(0);
        let (name, reason) = invalid("non_zero", args);
        assert_eq!(name, key);
        assert!(matches!(reason, Reason::OutOfRange { .. }), "{reason:?}");
    }
}

#[test]
fn floats_and_booleans() {
    assert_eq!(run("numbers", json!({"a": 1.5, "b": -2, "flag": true})), Ok(json!([1.5, -2.0, true])));
    let (name, reason) = invalid("numbers", json!({"a": 1e39, "b": 0, "flag": false}));
    assert_eq!(name, "a");
    assert!(matches!(reason, Reason::OutOfRange { .. }), "{reason:?}");
    let (name, reason) = invalid("numbers", json!({"a": 1, "b": "2", "flag": false}));
    assert_eq!((name.as_str(), reason), ("b", Reason::ExpectedNumber { value: json!("2") }));
    let (name, reason) = invalid("numbers", json!({"a": 1, "b": 2, "flag": "true"}));
    assert_eq!((name.as_str(), reason), ("flag", Reason::ExpectedBoolean { value: json!("true") }));
}

#[test]
fn every_string_type() {
    let args = json!({"c": "é", "owned": "o", "borrowed": "b", "cow": "w", "boxed": "x", "path": "/tmp/a"});
    let out = run("strings", args).unwrap();
    let expected = json!({
        "char": "é", "owned": "o", "borrowed": "b", "cow": "w", "cow_borrowed": true, "boxed": "x", "path": "/tmp/a"
    });
    assert_eq!(out, expected);
    let base = json!({"c": "a", "owned": "", "borrowed": "", "cow": "", "boxed": "", "path": ""});
    for bad in ["ab", ""] {
        let mut args = base.clone();
        args["c"] = json!(bad);
        let (name, reason) = invalid("strings", args);
        assert_eq!(name, "c");
        assert!(matches!(reason, Reason::WrongLength { .. }), "{reason:?}");
    }
    let mut args = base;
    args["path"] = json!(1);
    assert_eq!(invalid("strings", args), ("path".into(), Reason::ExpectedString { value: json!(1) }));
}

#[test]
fn sequences_and_fixed_arrays() {
    let args = json!({"list": [0, 255], "deque": ["a"], "boxed": [-1], "fixed": [1, 2, 3]});
    assert_eq!(run("sequences", args.clone()), Ok(args));
    let (name, reason) =
        invalid("sequences", json!({"list": [1, "x"], "deque": [], "boxed": [], "fixed": [1, 2, 3]}));
    assert_eq!((name.as_str(), reason), ("list[1]", Reason::ExpectedInteger { value: json!("x") }));
    let (name, reason) = invalid("sequences", json!({"list": [], "deque": [], "boxed": [], "fixed": [1, 2]}));
    assert_eq!(name, "fixed");
    assert!(matches!(reason, Reason::WrongLength { .. }), "{reason:?}");
    let (name, reason) =
        invalid("sequences", json!({"list": {}, "deque": [], "boxed": [], "fixed": [1, 2, 3]}));
    assert_eq!((name.as_str(), reason), ("list", Reason::ExpectedArray { value: json!({}) }));
}

#[test]
fn sets_refuse_duplicates() {
    let out = run("sets", json!({"hashed": ["b", "a"], "ordered": [3, 1]})).unwrap();
    assert_eq!(out, json!({"hashed": ["a", "b"], "ordered": [1, 3]}));
    let (name, reason) = invalid("sets", json!({"hashed": ["a", "a"], "ordered": []}));
    assert_eq!((name.as_str(), reason), ("hashed[1]", Reason::DuplicateItem { value: json!("a") }));
    let (name, _) = invalid("sets", json!({"hashed": [], "ordered": [2, 2]}));
    assert_eq!(name, "ordered[1]");
}

#[test]
fn tuples_have_exactly_their_length() {
    let args = json!({"pair": [1, "x"], "triple": [true, 0.5, "c"]});
    assert_eq!(run("tuples", args.clone()), Ok(args));
    let (name, reason) = invalid("tuples", json!({"pair": [1], "triple": [true, 0.5, "c"]}));
    assert_eq!(name, "pair");
    assert!(matches!(reason, Reason::WrongLength { .. }), "{reason:?}");
    let (name, reason) = invalid("tuples", json!({"pair": [1, 2], "triple": [true, 0.5, "c"]}));
    assert_eq!((name.as_str(), reason), ("pair[1]", Reason::ExpectedString { value: json!(2) }));
}

#[test]
fn options_absent_null_and_nested() {
    let out = run("options", json!({"items": []})).unwrap();
    assert_eq!(out, json!({"plain": null, "nullable": "absent", "items": []}));
    let out = run("options", json!({"plain": null, "nullable": null, "items": [1, null]})).unwrap();
    assert_eq!(out, json!({"plain": null, "nullable": "null", "items": [1, null]}));
    let out = run("options", json!({"plain": 3, "nullable": "x", "items": []})).unwrap();
    assert_eq!(out, json!({"plain": 3, "nullable": {"some": "x"}, "items": []}));
    let (name, _) = invalid("options", json!({"plain": 256, "items": []}));
    assert_eq!(name, "plain");
}

#[test]
fn open_objects() {
    let args = json!({"hashed": {"a": 1}, "ordered": {"k": [true]}, "raw": {"x": [1, {"y": null}]}});
    assert_eq!(run("maps", args.clone()), Ok(args));
    let (name, reason) = invalid("maps", json!({"hashed": {"a": -1}, "ordered": {}, "raw": {}}));
    assert_eq!(name, "hashed.a");
    assert!(matches!(reason, Reason::OutOfRange { .. }), "{reason:?}");
    let (name, _) = invalid("maps", json!({"hashed": {}, "ordered": {"k": [1]}, "raw": {}}));
    assert_eq!(name, "ordered.k[0]");
    let (name, _) = invalid("maps", json!({"hashed": [], "ordered": {}, "raw": {}}));
    assert_eq!(name, "hashed");
}

#[test]
fn untyped_values_pass_through() {
    for value in [json!(null), json!(1), json!("x"), json!([{"a": [1]}])] {
        let out = run("untyped", json!({"value": value.clone(), "borrowed": value.clone()})).unwrap();
        assert_eq!(out, json!({"value": value, "borrowed": value}));
    }
}

#[test]
fn pointers_are_their_contents() {
    let args = json!({"boxed": 7, "counted": "rc", "shared": [1, 2]});
    assert_eq!(run("pointers", args.clone()), Ok(args));
    let (name, _) = invalid("pointers", json!({"boxed": 256, "counted": "", "shared": []}));
    assert_eq!(name, "boxed");
}

#[test]
fn ip_addresses() {
    assert_eq!(run("ip", json!({"address": "10.0.0.1"})), Ok(json!({"address": "10.0.0.1", "v4": true})));
    assert_eq!(run("ip", json!({"address": "::1"})), Ok(json!({"address": "::1", "v4": false})));
    let (name, reason) = invalid("ip", json!({"address": "10.0.0.256"}));
    assert_eq!(name, "address");
    assert!(matches!(reason, Reason::InvalidFormat { .. }), "{reason:?}");
}

#[test]
fn a_foreign_type_is_decoded_with_serde() {
    let args = json!({"timeout": {"secs": 5, "nanos": 0}, "retry": {"secs": 2, "nanos": 0}});
    assert_eq!(run("wait", args), Ok(json!(7)));
    assert_eq!(run("wait", json!({"timeout": {"secs": 5, "nanos": 0}, "retry": null})), Ok(json!(5)));
    let (name, reason) = invalid("wait", json!({"timeout": "5s"}));
    assert_eq!(name, "timeout");
    assert!(matches!(reason, Reason::Invalid { .. }), "{reason:?}");
}

#[test]
fn struct_fields_decode_and_round_trip() {
    let address = json!({"street": "Main 1", "zip": 1234});
    let out = run("ship", json!({"address": address, "express": true})).unwrap();
    assert_eq!(out, json!({"address": address, "express": true}));
}

#[test]
fn serde_renames_defaults_and_skips_are_honoured() {
    let customer = json!({
        "fullName": "Ada", "e-mail": "ada@example.com", "vipLevel": 2,
        "homeAddress": {"street": "s", "zip": 1}, "nickName": "A"
    });
    // Serialize uses the same names, so the value round-trips.
    assert_eq!(run("register", json!({"customer": customer.clone()})), Ok(customer));
    let minimal = json!({"fullName": "Ada", "e-mail": "a@b", "homeAddress": {"street": "s", "zip": 1}});
    let out = run("register", json!({"customer": minimal})).unwrap();
    assert_eq!(out["vipLevel"], 0);
    assert_eq!(out["nickName"], Value::Null);
    assert!(out.get("internalId").is_none());
    let rust_names = json!({"full_name": "Ada", "e-mail": "a", "homeAddress": {"street": "s", "zip": 1}});
    // Both mistakes of the struct at once (#62 item 5): the Rust name is unknown, the wire
    // name missing.
    let error = run("register", json!({"customer": rust_names})).unwrap_err();
    assert_eq!(
        error.to_string(),
        "2 mistakes in the arguments:\n- customer: unknown field \"full_name\" (did you mean \"fullName\"?)\n\
         - customer: missing required field \"fullName\""
    );
    let skipped =
        json!({"fullName": "A", "e-mail": "a", "homeAddress": {"street": "s", "zip": 1}, "internalId": 1});
    let (name, reason) = invalid("register", json!({"customer": skipped}));
    assert_eq!(
        (name.as_str(), reason),
        ("customer", Reason::UnknownFields { fields: vec!["internalId".into()] })
    );
    let (name, _) = invalid(
        "register",
        json!({"customer": {"fullName": "A", "e-mail": "a", "homeAddress": {"street": "s", "zip": "1"}}}),
    );
    assert_eq!(name, "customer.homeAddress.zip");
}

/// Every problem of an error as `path: reason` lines.
fn lines(error: &ToolError) -> Vec<String> {
    match error {
        ToolError::Several(errors) => errors.iter().map(ToString::to_string).collect(),
        error => vec![error.to_string()],
    }
}

#[test]
fn a_struct_argument_reports_every_mistake_at_once() {
    // #62 item 5: four fields missing were one mistake a round trip.
    let error = run("register", json!({"customer": {}})).unwrap_err();
    assert_eq!(
        lines(&error),
        [
            r#"customer: missing required field "fullName""#,
            r#"customer: missing required field "e-mail""#,
            r#"customer: missing required field "homeAddress""#,
        ]
    );
    assert!(error.to_string().starts_with("3 mistakes in the arguments:\n- customer: missing"), "{error}");
    // Unknown keys first, then the fields in declaration order, nested structs' at their
    // paths; beside the call's own mistakes, in the order of the parameters.
    let customer = json!({
        "fullName": 7, "e-mail": "a@b", "homeAddress": {"street": 2, "zip": "x", "city": "Oslo"}, "bogus": 1
    });
    let error = run("register", json!({"customer": customer.clone(), "extra": true})).unwrap_err();
    assert_eq!(
        lines(&error),
        [
            r#"unknown argument "extra""#,
            r#"customer: unknown field "bogus""#,
            "customer.fullName: expected a string, got 7",
            r#"customer.homeAddress: unknown field "city""#,
            "customer.homeAddress.street: expected a string, got 2",
            r#"customer.homeAddress.zip: expected an integer, got "x""#,
        ]
    );
    // The IR decoder lists the same problems.
    let generated = toolcall_build::Builder::new()
        .crate_dir(env!("CARGO_MANIFEST_DIR"))
        .generate()
        .expect("the fixture crate generates");
    let tool = generated.modules.iter().flat_map(|m| &m.tools).find(|t| t.ir.name == "register").unwrap();
    let args = json!({"customer": customer, "extra": true});
    let generic = toolcall_runtime::__private::decode_arguments(&tool.ir, &args).unwrap_err();
    assert_eq!(lines(&generic), lines(&error));
    // A nested struct's mistake beside another argument's.
    let error = run("ship", json!({"address": {"street": 1, "zip": 1}, "express": "yes"})).unwrap_err();
    assert_eq!(
        lines(&error),
        ["address.street: expected a string, got 1", r#"express: expected a boolean, got "yes""#]
    );
}

#[test]
fn an_enum_reports_one_problem_of_the_variant_it_read() {
    // Which variant failed how is one mistake, as the IR decoder (which tries each) says it.
    let error = run("item", json!({"item": {"type": "Link", "target": 1, "extra": 2}})).unwrap_err();
    assert_eq!(lines(&error), [r#"item: unknown field "extra""#]);
}

#[test]
fn generic_structs_are_instantiated() {
    let args = json!({"pair": {"left": 1, "right": 2}, "labels": {"left": "a", "right": "b"}});
    assert_eq!(run("pair", args.clone()), Ok(args));
    let (name, _) =
        invalid("pair", json!({"pair": {"left": "1", "right": 2}, "labels": {"left": "a", "right": "b"}}));
    assert_eq!(name, "pair.left");
    let (name, _) =
        invalid("pair", json!({"pair": {"left": 1, "right": 2}, "labels": {"left": 1, "right": "b"}}));
    assert_eq!(name, "labels.left");
}

#[test]
fn recursive_types_decode_at_any_depth() {
    let leaf = json!({"label": "c", "children": []});
    let tree = json!({"label": "a", "children": [{"label": "b", "children": [leaf, leaf]}, leaf]});
    assert_eq!(run("count_nodes", json!({"tree": tree})), Ok(json!(5)));
    let bad = json!({"label": "a", "children": [{"label": "b", "children": [{"label": 1, "children": []}]}]});
    let (name, _) = invalid("count_nodes", json!({"tree": bad}));
    assert_eq!(name, "tree.children[0].children[0].label");
}

#[test]
fn aliases_decode_as_their_target() {
    assert_eq!(run("record", json!({"reading": 21.5})), Ok(json!({"reading": 21.5, "previous": null})));
    assert_eq!(
        run("record", json!({"reading": 1, "previous": 2})),
        Ok(json!({"reading": 1.0, "previous": 2.0}))
    );
}

/// A field whose default is a function (`#[serde(default = "full")]`) takes that default
/// when absent and when `null` (an explicit null means absent, as strict schemas send it),
/// under its name or its alias, in `run` and `run_json`.
#[test]
fn a_null_field_defaulted_by_a_function_takes_the_default() {
    let brush = |opacity: (&str, Value)| {
        let mut brush = json!({"colour": "red", "width": 2, "lineCap": "round", "label": null});
        brush[opacity.0] = opacity.1;
        json!({"brush": brush})
    };
    for key in ["opacity", "opacity_pct"] {
        let out = run("paint_brush", brush((key, Value::Null))).unwrap();
        assert_eq!(out["opacity"], 100, "{key}: null");
        let text = brush((key, Value::Null)).to_string();
        assert_eq!(toolset::ALL.run_json("paint_brush", &text).unwrap()["opacity"], 100, "{key}: run_json");
        assert_eq!(run("paint_brush", brush((key, json!(40)))).unwrap()["opacity"], 40, "{key}: given");
    }
    let absent = json!({"brush": {"colour": "red", "width": 2, "lineCap": "round"}});
    assert_eq!(run("paint_brush", absent).unwrap()["opacity"], 100);
    let (name, _) = invalid("paint_brush", brush(("opacity", json!("high"))));
    assert_eq!(name, "brush.opacity");
}

#[test]
fn unit_enums_use_their_wire_names() {
    let args = json!({"colour": "sky-blue", "also": ["Red", "Green"]});
    assert_eq!(run("paint", args.clone()), Ok(args));
    let (name, reason) = invalid("paint", json!({"colour": "Blue", "also": []}));
    assert_eq!(name, "colour");
    assert!(matches!(&reason, Reason::NotInEnum { allowed, .. } if allowed.len() == 3), "{reason:?}");
    let (name, _) = invalid("paint", json!({"colour": "Red", "also": ["Red", "red"]}));
    assert_eq!(name, "also[1]");
}

fn shapes(shape: Value, event: Value, message: Value, amount: Value) -> Value {
    json!({"shape": shape, "event": event, "message": message, "amount": amount})
}

#[test]
fn every_enum_representation_round_trips() {
    let cases = [
        shapes(
            json!({"Circle": {"radius": 1.5}}),
            json!({"type": "click", "x": 1, "y": -2}),
            json!({"t": "Text", "c": "hi"}),
            json!(3),
        ),
        shapes(
            json!({"Square": 2.0}),
            json!({"type": "key_press", "code": "K"}),
            json!({"t": "Move", "c": {"dx": -1}}),
            json!({"min": 1, "max": 2}),
        ),
        shapes(
            json!({"Rect": [1.0, 2.0]}),
            json!({"type": "idle"}),
            json!({"t": "Pair", "c": [1, 2]}),
            json!("many"),
        ),
        shapes(json!("Point"), json!({"type": "idle"}), json!({"t": "Ping"}), json!(0)),
    ];
    for args in cases {
        assert_eq!(run("shapes", args.clone()), Ok(args.clone()), "{args}");
    }
}

#[test]
fn enum_failures_name_the_variant_path() {
    let ok = |key: &str, value: Value| {
        let mut args = shapes(json!("Point"), json!({"type": "idle"}), json!({"t": "Ping"}), json!(0));
        args[key] = value;
        args
    };
    let (name, _) = invalid("shapes", ok("shape", json!({"Circle": {"radius": "x"}})));
    assert_eq!(name, "shape.Circle.radius");
    let (name, reason) = invalid("shapes", ok("shape", json!("Hexagon")));
    assert_eq!(name, "shape");
    assert!(matches!(reason, Reason::NotInEnum { .. }), "{reason:?}");
    let (name, _) = invalid("shapes", ok("event", json!({"type": "click", "x": 1})));
    assert_eq!(name, "event");
    let (name, reason) = invalid("shapes", ok("event", json!({"type": "scroll"})));
    assert_eq!(name, "event.type");
    assert!(matches!(reason, Reason::NotInEnum { .. }), "{reason:?}");
    let (name, _) = invalid("shapes", ok("message", json!({"t": "Move", "c": {"dx": 200}})));
    assert!(name.starts_with("message") && name.ends_with("dx"), "{name}");
    let (name, reason) = invalid("shapes", ok("message", json!({"t": "Text"})));
    assert_eq!(name, "message");
    assert_eq!(reason, Reason::MissingField { field: "c".into() });
    let (name, reason) = invalid("shapes", ok("amount", json!(true)));
    assert_eq!(name, "amount");
    assert!(matches!(&reason, Reason::Invalid { message } if message.contains("Amount")), "{reason:?}");
}

#[test]
fn string_integers_travel_as_strings() {
    let out =
        run("transfer", json!({"user_id": "18446744073709551615", "amount": 5, "memo_id": "12"})).unwrap();
    assert_eq!(out, json!({"user_id": "18446744073709551615", "amount": 5, "note": null, "memo_id": "12"}));
    // Leniently, a JSON number that fits.
    assert_eq!(run("transfer", json!({"user_id": 7, "amount": 5})).unwrap()["user_id"], "7");
    assert_eq!(
        run("transfer", json!({"user_id": "7", "amount": 5, "memo_id": null})).unwrap()["memo_id"],
        Value::Null
    );
    for bad in ["1.5", "abc", ""] {
        let (name, reason) = invalid("transfer", json!({"user_id": bad, "amount": 5}));
        assert_eq!((name.as_str(), reason), ("user_id", Reason::ExpectedInteger { value: json!(bad) }));
    }
    let (name, reason) = invalid("transfer", json!({"user_id": "18446744073709551616", "amount": 5}));
    assert_eq!(name, "user_id");
    assert!(matches!(reason, Reason::OutOfRange { .. }), "{reason:?}");
    let (name, _) = invalid("transfer", json!({"user_id": "1", "amount": 5, "memo_id": "x"}));
    assert_eq!(name, "memo_id");
}

#[test]
fn unnamed_parameters_use_their_exposed_names() {
    assert_eq!(run("unnamed_by_bullet", json!({"first": 1, "pair": [2, 3]})), Ok(json!(5)));
    assert_eq!(run("unnamed_fallback", json!({"arg1": true, "count": 2, "arg3": [1, 2]})), Ok(json!(5)));
    assert_eq!(run("loop", json!({"type": "for"})), Ok(json!("for")));
    assert_eq!(run("duplicate_names", json!({"city": "a", "city_2": "b"})), Ok(json!(true)));
    assert_eq!(
        run("duplicate_names", json!({"city": "a"})),
        Err(ToolError::MissingArgument("city_2".into()))
    );
}

#[test]
fn defaults_are_the_functions_own() {
    let out = run("with_defaults", json!({})).unwrap();
    let expected = json!({
        "days": 3, "limit": 25, "unit": "celsius", "verbose": false, "offset": 7, "scale": -1.5, "greeting": "hello"
    });
    assert_eq!(out, expected);
    let args = json!({"days": 1, "limit": 2, "unit": "f", "verbose": true, "offset": -1, "scale": 2.5, "greeting": "hi"});
    assert_eq!(run("with_defaults", args.clone()), Ok(args));
    assert_eq!(run("opaque_defaults", json!({})), Ok(json!({"count": 127, "label": "none"})));
    let more = json!({
        "order": "oldest_first", "archived": "oldest_first", "sort": "newest_first", "limit": 10,
        "above": -5, "below": -40, "count": 0, "tags": [], "label": "all"
    });
    assert_eq!(run("more_defaults", json!({})), Ok(more));
    let given = json!({
        "order": "newest_first", "archived": "newest_first", "sort": "oldest_first", "limit": 70,
        "above": 1, "below": 2, "count": 3, "tags": ["a"], "label": "x"
    });
    let clamped = json!({
        "order": "newest_first", "archived": "newest_first", "sort": "oldest_first", "limit": 50,
        "above": 1, "below": 2, "count": 3, "tags": ["a"], "label": "x"
    });
    assert_eq!(run("more_defaults", given), Ok(clamped));
}

#[test]
fn tools_that_are_not_tools_cannot_be_called() {
    for name in [
        "helper",
        "parent_only",
        "hidden_tool",
        "generic_tool",
        "impl_trait_tool",
        "async_tool",
        "borrowed_tool",
    ] {
        let err = run(name, json!({})).unwrap_err();
        assert!(matches!(err, ToolError::UnknownTool { .. }), "{name}: {err:?}");
    }
    assert_eq!(run("visible_tool", json!({"n": 1})), Ok(json!(3)));
}

#[test]
fn shared_strings_decode_into_rc_and_arc() {
    assert_eq!(run("shared_strings", json!({"counted": "a", "shared": "b"})), Ok(json!("ab")));
    let (path, reason) = invalid("shared_strings", json!({"counted": 1, "shared": "b"}));
    assert_eq!(path, "counted");
    assert!(matches!(reason, Reason::ExpectedString { .. }));
}

#[test]
fn a_tool_with_a_private_type_is_skipped() {
    assert!(!toolset::ALL.contains("reveal"));
    assert!(!toolset::ALL.emit(toolcall_runtime::Format::Mcp, false).contains("reveal"));
}

/// `rename_all_fields`, a variant's own `rename_all`, and renames that differ by direction:
/// the decoder reads the deserialize names, serde writes the serialize names.
#[test]
fn serde_names_by_direction() {
    let args = serde_json::json!({
        "event": {"kind": "Meeting", "startTime": "09:00", "roomName": "Ada"},
        "contact": {"fullName": "Grace Hopper", "mail": "grace@example.com"},
    });
    let out = toolcall_fixtures::toolset::ALL.run("schedule", &args).unwrap();
    assert_eq!(out, serde_json::json!({"FULL_NAME": "Grace Hopper", "EMAIL_ADDRESS": "grace@example.com"}));
    let call = serde_json::json!({
        "event": {"kind": "Call", "phone-number": "+47 000"},
        "contact": {"fullName": "Ada", "mail": "ada@example.com"},
    });
    assert!(toolcall_fixtures::toolset::ALL.run("schedule", &call).is_ok());
    let snake = serde_json::json!({
        "event": {"kind": "Meeting", "start_time": "09:00", "roomName": "Ada"},
        "contact": {"fullName": "Ada", "mail": "ada@example.com"},
    });
    let error = toolcall_fixtures::toolset::ALL.run("schedule", &snake).unwrap_err().to_string();
    assert!(error.contains("start_time"), "{error}");
    let schema = toolcall_fixtures::toolset::ALL.emit(toolcall_runtime::Format::Mcp, false);
    for name in ["\"startTime\"", "\"roomName\"", "\"phone-number\"", "\"fullName\"", "\"mail\""] {
        assert!(schema.contains(name), "{name} not in the schema");
    }
}
