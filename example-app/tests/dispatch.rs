//! The dispatch contract (DESIGN.md "Dispatch contract", the seed's "Runtime behaviour"
//! and "Error terms" tables) through the generated dispatcher, plus the example's own
//! tools: nested paths, string integers, the `Money` provider, `Option<Option<T>>`, dates.

#![allow(clippy::unwrap_used)]

use std::future::Future;

use example_app::{App, toolset};
use serde_json::{Value, json};
use toolcall_runtime::{Format, Reason, ToolError, Toolset};

/// Runs `future` on a fresh current-thread runtime with timers.
fn block_on<F: Future>(future: F) -> F::Output {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
    runtime.block_on(future)
}

/// Calls `name` in `tools` as the demo's signed-in user, through the one entry point.
fn call_in(tools: &Toolset<App>, name: &str, args: &Value) -> Result<Value, ToolError> {
    block_on(tools.call(&App::demo(), name, args))
}

fn run(name: &str, args: Value) -> Result<Value, ToolError> {
    call_in(&toolset::ALL, name, &args)
}

fn run_json(name: &str, args: &str) -> Result<Value, ToolError> {
    block_on(toolset::ALL.call_json(&App::demo(), name, args))
}

fn run_bytes(name: &str, args: &[u8]) -> Result<Value, ToolError> {
    block_on(toolset::ALL.call_bytes(&App::demo(), name, args))
}

fn invalid(name: &str, reason: Reason) -> Result<Value, ToolError> {
    Err(ToolError::InvalidArgument { name: name.to_owned(), reason: Box::new(reason) })
}

/// The path and reason of an `InvalidArgument`, or a panic naming what came instead.
fn invalid_argument(result: Result<Value, ToolError>) -> (String, Reason) {
    match result {
        Err(ToolError::InvalidArgument { name, reason }) => (name, *reason),
        other => panic!("expected InvalidArgument, got {other:?}"),
    }
}

// --- The seed's rows --------------------------------------------------------------------

#[test]
fn the_function_applies_its_default() {
    let out = run_json("get_weather", r#"{"city":"Oslo"}"#).unwrap();
    assert_eq!(out.to_string(), r#"{"city":"Oslo","days":3,"temp":21.5}"#);
}

#[test]
fn a_given_value_replaces_the_default() {
    assert_eq!(
        run("get_weather", json!({"city": "Oslo", "days": 5})),
        Ok(json!({"city": "Oslo", "days": 5, "temp": 21.5}))
    );
}

#[test]
fn a_missing_argument_is_named_and_several_are_named_together() {
    let missing = Err(ToolError::MissingArgument("city".to_owned()));
    assert_eq!(run("get_weather", json!({})), missing);
    assert_eq!(run("get_weather", json!({"days": 5})), missing);
    let both = ToolError::Several(vec![
        ToolError::MissingArgument("a".to_owned()),
        ToolError::MissingArgument("b".to_owned()),
    ]);
    assert_eq!(run("add", json!({})), Err(both), "declaration order");
}

#[test]
fn a_fraction_or_a_string_is_not_an_integer() {
    assert_eq!(
        run("get_weather", json!({"city": "Oslo", "days": 1.5})),
        invalid("days", Reason::ExpectedInteger { value: json!(1.5) })
    );
    let error = run("get_weather", json!({"city": "Oslo", "days": "5"})).unwrap_err();
    assert_eq!(
        error,
        ToolError::InvalidArgument {
            name: "days".into(),
            reason: Box::new(Reason::ExpectedInteger { value: json!("5") })
        }
    );
    assert_eq!(error.to_string(), r#"days: expected an integer, got "5""#);
}

#[test]
fn a_whole_float_is_an_integer() {
    assert_eq!(run("add", json!({"a": 1.0, "b": 2})), Ok(json!(3)));
}

#[test]
fn every_unknown_argument_is_named() {
    assert_eq!(
        run("get_weather", json!({"city": "Oslo", "c": 1})),
        Err(ToolError::UnknownArguments(vec!["c".into()]))
    );
    let error = run("get_weather", json!({"x": 1, "city": "Oslo", "y": 2})).unwrap_err();
    assert_eq!(error, ToolError::UnknownArguments(vec!["x".into(), "y".into()]));
}

#[test]
fn arguments_that_are_not_an_object_are_refused() {
    for args in [json!([1, 2]), json!("x"), json!(3), json!(null)] {
        assert_eq!(run("get_weather", args.clone()), Err(ToolError::InvalidArguments(args)));
    }
}

#[test]
fn text_that_is_not_json_is_invalid_json() {
    for text in [r#"{"city":"#, " x ", r#"{"city":"Oslo"} trailing"#, r#"{"city":"\ud800"}"#] {
        let result = run_json("get_weather", text);
        assert!(matches!(result, Err(ToolError::InvalidJson(_))), "{text:?}: {result:?}");
    }
    // Blank text is `{}` (#31 item 4): then the usual rules apply.
    for blank in ["", "  \n"] {
        assert_eq!(run_json("get_weather", blank), Err(ToolError::MissingArgument("city".into())));
    }
}

#[test]
fn bytes_that_are_not_utf8_are_invalid_json() {
    let result = run_bytes("get_weather", b"{\"city\":\"Osl\xff\"}");
    assert!(matches!(result, Err(ToolError::InvalidJson(_))), "{result:?}");
    assert_eq!(
        run_bytes("get_weather", br#"{"city":"Oslo"}"#),
        Ok(json!({"city": "Oslo", "days": 3, "temp": 21.5}))
    );
}

#[test]
fn null_for_an_optional_argument_means_absent() {
    assert_eq!(
        run("get_weather", json!({"city": "Oslo", "days": null})),
        Ok(json!({"city": "Oslo", "days": 3, "temp": 21.5}))
    );
}

#[test]
fn an_unknown_tool_lists_the_known_ones() {
    let known: Vec<String> = toolset::ALL.names().map(str::to_owned).collect();
    assert_eq!(
        run("get_wether", json!({})),
        Err(ToolError::UnknownTool { name: "get_wether".into(), known: known.clone() })
    );
    assert!(known.contains(&"get_weather".to_owned()) && known.len() == toolset::ALL.len());
}

#[test]
fn a_module_toolset_serves_only_its_own_tools() {
    let weather = &toolset::weather::TOOLS;
    assert_eq!(
        call_in(weather, "get_weather", &json!({"city": "Oslo"})),
        Ok(json!({"city": "Oslo", "days": 3, "temp": 21.5}))
    );
    let error = call_in(weather, "add", &json!({"a": 1, "b": 2})).unwrap_err();
    assert_eq!(error, ToolError::UnknownTool { name: "add".into(), known: vec!["get_weather".into()] });
}

#[test]
fn a_panic_is_caught_and_the_next_call_works() {
    for tools in [&toolset::ALL, &toolset::math::TOOLS] {
        match call_in(tools, "explode", &json!({})) {
            Err(ToolError::Panicked(message)) => {
                assert!(message.contains("explode always panics"), "{message}")
            }
            other => panic!("expected Panicked, got {other:?}"),
        }
        assert_eq!(call_in(tools, "add", &json!({"a": 2, "b": 3})), Ok(json!(5)));
    }
    assert_eq!(
        run("get_weather", json!({"city": "Bergen"})),
        Ok(json!({"city": "Bergen", "days": 3, "temp": 21.5}))
    );
}

#[test]
fn an_err_result_is_failed_with_its_message() {
    assert_eq!(run("divide", json!({"a": 1, "b": 0})), Err(ToolError::Failed("b must not be zero".into())));
    assert_eq!(run("divide", json!({"a": 5, "b": 2})), Ok(json!(2.5)));
}

#[test]
fn a_result_that_cannot_be_encoded_is_an_error_not_a_panic() {
    match run("count_points", json!({"points": [[1, 2], [1, 2]]})) {
        Err(ToolError::Failed(message)) => assert!(message.contains("could not be encoded"), "{message}"),
        other => panic!("expected Failed, got {other:?}"),
    }
    assert_eq!(run("count_points", json!({"points": []})), Ok(json!({})), "an empty map encodes");
}

#[test]
fn every_error_serializes_to_an_object_with_its_kind_and_message() {
    let errors = [
        run("nope", json!({})),
        run("get_weather", json!({"city": "Oslo", "c": 1})),
        run("get_weather", json!([1])),
        run("get_weather", json!({})),
        run("get_weather", json!({"city": "Oslo", "days": "5"})),
        run_json("get_weather", "{"),
        run("divide", json!({"a": 1, "b": 0})),
        run("explode", json!({})),
    ];
    let kinds: Vec<String> = errors
        .iter()
        .map(|result| {
            let error = result.as_ref().unwrap_err();
            let value = error.to_value();
            assert_eq!(value["message"], json!(error.to_string()));
            value["error"].as_str().unwrap().to_owned()
        })
        .collect();
    let expected = [
        "unknown_tool",
        "unknown_arguments",
        "invalid_arguments",
        "missing_argument",
        "invalid_argument",
        "invalid_json",
        "failed",
        "panicked",
    ];
    assert_eq!(kinds, expected);
}

// --- Local types: nested paths --------------------------------------------------------

fn order(overrides: Value) -> Value {
    let mut args = json!({
        "items": [{"sku": "A-1", "quantity": 2}, {"sku": "B-2", "quantity": 1}],
        "speed": "same_day",
        "delivery": {"Courier": {"address": {"street": "Karl Johans gate 1", "zip": 150}}},
    });
    if let (Some(args), Some(overrides)) = (args.as_object_mut(), overrides.as_object()) {
        args.extend(overrides.clone());
    }
    args
}

#[test]
fn local_types_decode_as_serde_would_encode_them() {
    let out = run("place_order", order(json!({"discount": {"kind": "percent", "percent": 10}}))).unwrap();
    assert_eq!(out["units"], json!(3));
    assert_eq!(out["speed"], json!("same_day"));
    assert_eq!(
        out["delivery"],
        json!({"Courier": {"address": {"street": "Karl Johans gate 1", "zip": 150, "country": null}, "note": null}})
    );
    assert_eq!(out["discount"], json!({"kind": "percent", "percent": 10}));
    let out = run("place_order", order(json!({"discount": null}))).unwrap();
    assert_eq!(out["discount"], Value::Null, "null for an optional local type is absent");
    for delivery in [json!("Pickup"), json!({"Locker": 12})] {
        let out = run("place_order", order(json!({"delivery": delivery, "discount": {"kind": "nothing"}})))
            .unwrap();
        assert_eq!((&out["delivery"], &out["discount"]), (&delivery, &json!({"kind": "nothing"})));
    }
}

#[test]
fn a_nested_field_error_names_its_path() {
    let args = json!({"address": {"street": "Storgata 1", "zip": "0150"}});
    assert_eq!(
        run("check_address", args),
        invalid("address.zip", Reason::ExpectedInteger { value: json!("0150") })
    );
    let deep = order(json!({"delivery": {"Courier": {"address": {"street": "x", "zip": 1.5}}}}));
    let (path, _) = invalid_argument(run("place_order", deep));
    assert_eq!(path, "delivery.Courier.address.zip");
}

#[test]
fn an_item_error_names_its_index() {
    let args = order(json!({"items": [{"sku": "A-1", "quantity": 1}, {"sku": "B-2", "quantity": -1}]}));
    let (path, reason) = invalid_argument(run("place_order", args));
    assert_eq!(path, "items[1].quantity");
    assert!(matches!(reason, Reason::OutOfRange { .. }), "{reason:?}");
    let args = order(json!({"items": [{"sku": "A-1", "quantity": 1}, {"sku": "B-2"}]}));
    assert_eq!(
        run("place_order", args),
        invalid("items[1]", Reason::MissingField { field: "quantity".into() })
    );
}

#[test]
fn unknown_fields_and_variants_are_named() {
    let args = json!({"address": {"street": "x", "zip": 1, "floor": 2}});
    assert_eq!(
        run("check_address", args),
        invalid("address", Reason::UnknownFields { fields: vec!["floor".into()] })
    );
    let (path, reason) = invalid_argument(run("place_order", order(json!({"speed": "warp"}))));
    assert_eq!(path, "speed");
    assert!(
        matches!(reason, Reason::NotInEnum { ref allowed, .. } if allowed == &["standard", "express", "same_day"])
    );
    // Near misses name what was meant: a field in another case, a variant with a typo.
    let args = json!({"address": {"street": "x", "zip": 1, "Zip_": 2}});
    let (_, reason) = invalid_argument(run("check_address", args));
    let Reason::UnknownFields { fields } = &reason else { panic!("{reason:?}") };
    assert_eq!(fields[0].did_you_mean.as_deref(), Some("zip"));
    let (_, reason) = invalid_argument(run("place_order", order(json!({"speed": "Expres"}))));
    assert!(
        matches!(reason, Reason::NotInEnum { ref did_you_mean, .. } if did_you_mean.as_deref() == Some("express"))
    );
    assert!(reason.to_string().ends_with(r#"(did you mean "express"?)"#), "{reason}");
    let (path, reason) = invalid_argument(run("place_order", order(json!({"delivery": {"Drone": {}}}))));
    assert_eq!(path, "delivery");
    assert!(matches!(reason, Reason::NotInEnum { ref value, .. } if value == "Drone"), "{reason:?}");
    let (path, _) = invalid_argument(run("place_order", order(json!({"discount": {"kind": "free"}}))));
    assert_eq!(path, "discount.kind");
    let (path, reason) =
        invalid_argument(run("place_order", order(json!({"discount": {"kind": "percent", "percent": 300}}))));
    assert_eq!(path, "discount.percent");
    assert!(matches!(reason, Reason::OutOfRange { .. }), "{reason:?}");
}

#[test]
fn a_function_error_on_local_types_is_failed() {
    let result = run("place_order", order(json!({"items": []})));
    assert_eq!(result, Err(ToolError::Failed("an order needs at least one item".into())));
}

#[test]
fn tuples_and_maps_decode() {
    assert_eq!(run("distance", json!({"from": [0, 0], "to": [3, 4]})), Ok(json!(5.0)));
    let (path, reason) = invalid_argument(run("distance", json!({"from": [0], "to": [3, 4]})));
    assert_eq!(path, "from");
    assert!(matches!(reason, Reason::WrongLength { .. }), "{reason:?}");
    assert_eq!(
        run("distance", json!({"from": [0, "y"], "to": [3, 4]})),
        invalid("from[1]", Reason::ExpectedNumber { value: json!("y") })
    );
    assert_eq!(run("restock", json!({"counts": {"A-1": 2, "B-2": 3}})), Ok(json!(5)));
    let (path, _) = invalid_argument(run("restock", json!({"counts": {"A-1": -2}})));
    assert_eq!(path, "counts.A-1");
}

#[test]
fn option_option_tells_null_from_absent() {
    let change = |args: Value| run("set_note", args).map(|out| out["change"].clone());
    assert_eq!(change(json!({"order_id": 7})), Ok(json!({"action": "kept"})));
    assert_eq!(change(json!({"order_id": 7, "note": null})), Ok(json!({"action": "cleared"})));
    assert_eq!(
        change(json!({"order_id": 7, "note": "ring twice"})),
        Ok(json!({"action": "set", "note": "ring twice"}))
    );
    assert_eq!(
        run("set_note", json!({"order_id": 7, "note": 5})),
        invalid("note", Reason::ExpectedString { value: json!(5) })
    );
}

// --- String integers and the type provider ---------------------------------------------

#[test]
fn a_string_integer_carries_values_past_2_pow_53() {
    let out = run("transfer", json!({"user_id": "18446744073709551615", "amount": "12.50"})).unwrap();
    assert_eq!(out, json!({"user_id": "18446744073709551615", "amount": "12.50", "memo": null}));
    let out = run("transfer", json!({"user_id": 42, "amount": "1.00", "memo": "hi"})).unwrap();
    assert_eq!(
        (&out["user_id"], &out["memo"]),
        (&json!("42"), &json!("hi")),
        "a JSON number that fits is accepted"
    );
}

#[test]
fn a_string_integer_refuses_fractions_and_overflow() {
    for user_id in [json!(12.5), json!("12.5"), json!("12e3"), json!("abc"), json!("")] {
        let result = run("transfer", json!({"user_id": user_id.clone(), "amount": "1.00"}));
        assert_eq!(result, invalid("user_id", Reason::ExpectedInteger { value: user_id }));
    }
    for user_id in ["18446744073709551616", "-1"] {
        let (path, reason) = invalid_argument(run("transfer", json!({"user_id": user_id, "amount": "1.00"})));
        assert_eq!(path, "user_id");
        assert!(matches!(reason, Reason::OutOfRange { .. }), "{user_id}: {reason:?}");
    }
}

#[test]
fn the_money_provider_decodes_two_decimals() {
    assert_eq!(run("price", json!({"amount": "12.50"})), Ok(json!("12.50")));
    assert_eq!(run("price", json!({"amount": "-0.05"})), Ok(json!("-0.05")));
    let (path, reason) = invalid_argument(run("price", json!({"amount": "12.5"})));
    assert_eq!(path, "amount");
    match reason {
        Reason::Invalid { message } => assert!(message.contains("two decimals"), "{message}"),
        other => panic!("expected the provider's message, got {other:?}"),
    }
    let (_, reason) = invalid_argument(run("price", json!({"amount": 12.5})));
    assert!(reason.to_string().contains("expected a string"), "{reason}");
    let result = run("transfer", json!({"user_id": "1", "amount": "0.00"}));
    assert_eq!(result, Err(ToolError::Failed("amount must be positive, got 0.00".into())));
}

// --- Dates and ids ---------------------------------------------------------------------

#[test]
fn dates_and_uuids_parse_or_name_their_format() {
    assert_eq!(run("days_between", json!({"from": "2024-02-01", "to": "2024-03-01"})), Ok(json!(29)));
    let (path, reason) =
        invalid_argument(run("days_between", json!({"from": "2025-02-30", "to": "2025-03-01"})));
    assert_eq!(path, "from");
    assert!(matches!(reason, Reason::InvalidDate { ref format, .. } if format == "date"), "{reason:?}");
    let id = "67e55044-10b1-426f-9247-bb680e5fe0c8";
    let out = run(
        "schedule_meeting",
        json!({"id": id, "title": "Standup", "starts_at": "2025-03-14T10:30:00+01:00"}),
    )
    .unwrap();
    assert_eq!(
        out,
        json!({"id": id, "title": "Standup", "starts_at": "2025-03-14T09:30:00+00:00", "weekday": "Fri"})
    );
    let (path, reason) = invalid_argument(run(
        "schedule_meeting",
        json!({"id": "42", "title": "x", "starts_at": "2025-03-14T09:30:00Z"}),
    ));
    assert_eq!(path, "id");
    assert!(matches!(reason, Reason::InvalidFormat { ref format, .. } if format == "uuid"), "{reason:?}");
    let (path, reason) =
        invalid_argument(run("schedule_meeting", json!({"id": id, "title": "x", "starts_at": "tomorrow"})));
    assert_eq!(path, "starts_at");
    assert!(matches!(reason, Reason::InvalidDate { ref format, .. } if format == "date-time"), "{reason:?}");
}

// --- What is and is not a tool ---------------------------------------------------------

#[test]
fn hidden_and_private_functions_are_not_tools() {
    let names: Vec<&str> = toolset::ALL.names().collect();
    for hidden in ["reset_counters", "is_zero"] {
        assert!(!names.contains(&hidden), "{hidden} is listed: {names:?}");
        for format in Format::ALL {
            for strict in [false, true] {
                assert!(
                    !toolset::ALL.emit(format, strict).contains(hidden),
                    "{hidden} in {format:?} {strict}"
                );
            }
        }
        assert!(matches!(run(hidden, json!({})), Err(ToolError::UnknownTool { .. })));
    }
    let expected = [
        "transfer",
        "price",
        "days_between",
        "schedule_meeting",
        "add",
        "divide",
        "explode",
        "count_points",
        "whoami",
        "list_notes",
        "add_note",
        "remove_note", // `delete_note`, renamed by its `TOOLS` entry
        "export_notes",
        "place_order",
        "check_address",
        "distance",
        "restock",
        "set_note",
        "get_weather",
    ];
    assert_eq!(names, expected);
}

#[test]
fn describe_matches_the_emitted_definitions() {
    let emitted = toolset::ALL.emit_value(Format::Mcp, false);
    let infos = toolset::ALL.describe();
    assert_eq!(emitted.as_array().map(Vec::len), Some(infos.len()));
    for (info, tool) in infos.iter().zip(emitted.as_array().unwrap()) {
        assert_eq!(tool["name"], json!(info.name));
        assert_eq!(tool["description"], json!(info.description));
        assert_eq!(tool["inputSchema"], info.parameters_value());
    }
    assert_eq!(infos.iter().find(|i| i.name == "get_weather").map(|i| i.module), Some("weather"));
}

// --- Provider glue: the seed's "Dispatch a call" ---------------------------------------

fn openai_call(arguments: &str) -> Value {
    json!({"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": arguments}})
}

fn anthropic_block(input: Value) -> Value {
    json!({"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": input})
}

/// Answers one OpenAI tool call through the message-level glue.
fn answer_openai(tools: &Toolset<App>, call: &Value) -> Value {
    let message = json!({"role": "assistant", "tool_calls": [call]});
    let answers = block_on(toolcall_runtime::glue::answer_openai_message(tools, &App::demo(), &message));
    assert_eq!(answers.len(), 1);
    answers[0].clone()
}

/// Answers one Anthropic `tool_use` block through the message-level glue.
fn answer_anthropic(tools: &Toolset<App>, block: &Value) -> Value {
    let message = json!({"role": "assistant", "content": [block]});
    let answers = block_on(toolcall_runtime::glue::answer_anthropic_message(tools, &App::demo(), &message));
    assert_eq!(answers.len(), 1);
    answers[0].clone()
}

#[test]
fn openai_calls_are_answered_with_tool_messages() {
    let good = answer_openai(&toolset::ALL, &openai_call(r#"{"city":"Oslo","days":5}"#));
    assert_eq!(
        good,
        json!({"role": "tool", "tool_call_id": "call_1", "content": r#"{"city":"Oslo","days":5,"temp":21.5}"#})
    );
    let bad = answer_openai(&toolset::ALL, &openai_call(r#"{"city":"Oslo","days":"5"}"#));
    let content: Value = serde_json::from_str(bad["content"].as_str().unwrap()).unwrap();
    assert_eq!((&content["error"], &content["name"]), (&json!("invalid_argument"), &json!("days")));
    assert_eq!(content["reason"], json!({"kind": "expected_integer", "value": "5"}));
    let invented = answer_openai(&toolset::ALL, &openai_call(r#"{"city":"Oslo","c":1}"#));
    let content: Value = serde_json::from_str(invented["content"].as_str().unwrap()).unwrap();
    assert_eq!((&content["error"], &content["names"]), (&json!("unknown_arguments"), &json!(["c"])));
}

#[test]
fn anthropic_blocks_are_answered_with_tool_results() {
    let good = answer_anthropic(&toolset::ALL, &anthropic_block(json!({"city": "Oslo", "days": 5})));
    assert_eq!(
        good,
        json!({"type": "tool_result", "tool_use_id": "toolu_1", "content": r#"{"city":"Oslo","days":5,"temp":21.5}"#})
    );
    let bad = answer_anthropic(&toolset::ALL, &anthropic_block(json!({"city": "Oslo", "days": "5"})));
    assert_eq!(bad["is_error"], json!(true));
    assert_eq!(bad["content"], json!(r#"days: expected an integer, got "5""#));
    let invented = answer_anthropic(&toolset::ALL, &anthropic_block(json!({"city": "Oslo", "c": 1})));
    assert_eq!(
        (&invented["is_error"], &invented["content"]),
        (&json!(true), &json!(r#"unknown argument "c""#))
    );
}

/// `toolset::ALL.names()` prints as the list the README shows.
#[test]
fn names_print_as_a_list() {
    let printed = format!("{:?}", toolset::ALL.names());
    assert!(printed.starts_with(r#"[""#) && printed.contains(r#""get_weather""#), "{printed}");
    assert_eq!(toolset::ALL.names().len(), toolset::ALL.describe().len());
}
