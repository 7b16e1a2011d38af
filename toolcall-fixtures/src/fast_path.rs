//! The one-pass fast decoders, called directly: they take the calls they should (so a
//! regression that makes them give up on everything cannot hide behind the exact
//! decoder, which would still answer correctly), decode them to the same values, and give
//! up on everything the exact decoder must explain.

#![allow(clippy::expect_used, reason = "tests fail loudly")]

use serde_json::{Value, json};
use toolcall_runtime::__private::Dispatched;
use toolcall_runtime::__private::fast::Args;
use toolcall_runtime::ToolError;

use crate::toolset::{aliases, local_types, recursive, weather};

type Call = fn(&(), Args<'_>) -> Option<Result<Value, ToolError>>;

/// Runs one tool's call function on `text`, which takes it only through the fast
/// decoder (else `None`), and on the same arguments as a value, which always answers:
/// the same answer when the fast path took the text.
fn both(text: &str, call: Call) -> Option<Value> {
    let from_text = call(&(), Args::Str(text));
    if let (Some(from_text), Ok(value)) = (&from_text, serde_json::from_str::<Value>(text)) {
        assert_eq!(Some(from_text), call(&(), Args::Value(&value)).as_ref(), "{text}");
    }
    from_text.map(|result| result.unwrap_or_else(|e| panic!("{text}: {e}")))
}

/// A (sync) tool's generated call function, its result taken out of `Dispatched`.
macro_rules! fast {
    ($module:ident :: $function:ident) => {
        (|ctx: &(), args: Args<'_>| match $module::$function(ctx, args, toolcall_runtime::Progress::none())? {
            Dispatched::Ready(result) => Some(result),
            Dispatched::Async(_) => panic!("{} is sync", stringify!($function)),
        }) as Call
    };
}

#[test]
fn structs_nested_structs_and_renames_take_the_fast_path() {
    let t = fast!(local_types::__call_ship);
    let out = both(r#"{"express":true,"address":{"zip":155,"street":"Storgata 1"}}"#, t);
    assert_eq!(out, Some(json!({"address": {"street": "Storgata 1", "zip": 155}, "express": true})));

    let t = fast!(local_types::__call_register);
    let customer = r#"{"customer":{"fullName":"Ada","e-mail":"a@b.c","homeAddress":{"street":"S","zip":1}}}"#;
    let out = both(customer, t).expect("register takes the fast path");
    // `vipLevel` defaulted, `nickName` absent, the skipped field defaulted.
    assert_eq!(out["vipLevel"], json!(0));
    assert_eq!(out["nickName"], Value::Null);
    assert_eq!(out["e-mail"], json!("a@b.c"));
    let with_null = r#"{"customer":{"vipLevel":null,"fullName":"Ada","e-mail":"x","homeAddress":{"street":"S","zip":1},"nickName":"A"}}"#;
    let out = both(with_null, t).expect("a null default is the default");
    assert_eq!((out["vipLevel"].clone(), out["nickName"].clone()), (json!(0), json!("A")));
}

#[test]
fn generics_recursion_unit_enums_and_options_take_the_fast_path() {
    let t = fast!(local_types::__call_pair);
    let out = both(r#"{"pair":{"left":1,"right":2.0},"labels":{"left":"a","right":"\u0062"}}"#, t);
    assert_eq!(out, Some(json!({"pair": {"left": 1, "right": 2}, "labels": {"left": "a", "right": "b"}})));

    let t = fast!(local_types::__call_count_nodes);
    let tree = r#"{"tree":{"label":"a","children":[{"label":"b","children":[]},{"label":"c","children":[{"label":"d","children":[]}]}]}}"#;
    assert_eq!(both(tree, t), Some(json!(4)));

    let t = fast!(local_types::__call_paint);
    assert_eq!(
        both(r#"{"colour":"sky-blue","also":["Red","Green"]}"#, t),
        Some(json!({"colour": "sky-blue", "also": ["Red", "Green"]}))
    );

    let t = fast!(recursive::__call_sum_chain);
    assert_eq!(both(r#"{"chain":{"value":1,"next":{"value":2,"next":null}}}"#, t), Some(json!(3)));

    let t = fast!(weather::__call_get_weather);
    let out = both(r#" { "city" : "Oslo" } "#, t).expect("get_weather takes the fast path");
    assert_eq!(out["city"], json!("Oslo"));
}

#[test]
fn everything_the_exact_decoder_must_explain_is_left_to_it() {
    let t = fast!(local_types::__call_ship);
    let address = r#""address":{"street":"S","zip":1}"#;
    for text in [
        format!(r#"{{{address},"express":true,"extra":1}}"#), // unknown argument
        format!(r#"{{{address}}}"#),                          // missing argument
        format!(r#"{{{address},"express":"yes"}}"#),          // wrong type
        format!(r#"{{{address},"express":true,"express":true}}"#), // repeated key
        format!(r#"{{{address},"express":true,"\u0065xpress":false}}"#), // repeated, escaped
        r#"{"address":{"street":"S","zip":-1},"express":true}"#.to_owned(), // out of range
        r#"{"address":{"street":"S","zip":1,"zip":2},"express":true}"#.to_owned(), // nested repeat
        r#"{"address":{"street":"S"},"express":true}"#.to_owned(), // missing field
        r#"{"address":{"street":"S","zip":1,"x":0},"express":true}"#.to_owned(), // unknown field
        format!(r#"{{{address},"express":true}} x"#),         // trailing text
        format!(r#"{{{address},"express":true"#),             // truncated
        "[1,2]".to_owned(),
        "null".to_owned(),
    ] {
        assert!(t(&(), Args::Str(&text)).is_none(), "the fast path took {text}");
    }
    assert!(t(&(), Args::Str("[1]")).is_none());
    // The same mistakes as values are answered by the exact decoder.
    let error = t(&(), Args::Value(&json!({"express": "yes"}))).expect("a value is always answered");
    let error = error.unwrap_err().to_string();
    assert!(
        error.contains("address") && error.contains(r#"express: expected a boolean, got "yes""#),
        "{error}"
    );

    // Nesting at the exact decoder's limit is its to judge.
    let t = fast!(recursive::__call_sum_chain);
    let deep = (0..130).fold(json!({"value": 1}), |next, _| json!({"value": 1, "next": next}));
    assert!(t(&(), Args::Str(&json!({ "chain": deep }).to_string())).is_none());
    let t = fast!(local_types::__call_paint);
    assert!(t(&(), Args::Str(r#"{"colour":"Blue","also":[]}"#)).is_none(), "not a variant");
}

#[test]
fn aliases_take_the_fast_path_and_two_names_of_one_field_leave_it() {
    let t = fast!(aliases::__call_paint_brush);
    let main = r#"{"brush":{"colour":"red","width":2,"lineCap":"round","opacity":50}}"#;
    let expected = json!({"colour": "red", "width": 2, "lineCap": "round", "opacity": 50, "label": null});
    assert_eq!(both(main, t), Some(expected.clone()));
    let aliased = r#"{"brush":{"hex_colour":"red","stroke_width":2,"line_cap":"round","opacity_pct":50,"caption_text":null}}"#;
    assert_eq!(both(aliased, t), Some(expected.clone()), "the fast decoder reads every alias");
    let other = r#"{"brush":{"colour":"red","lineWidth":2,"lineCap":"round","opacity":50}}"#;
    assert_eq!(both(other, t), Some(expected));
    for twice in [
        r#"{"brush":{"colour":"red","width":2,"lineWidth":2,"lineCap":"round"}}"#,
        r#"{"brush":{"colour":"red","stroke_width":2,"lineWidth":2,"lineCap":"round"}}"#,
        r#"{"brush":{"hex_colour":"red","colour":"red","width":2,"lineCap":"round"}}"#,
    ] {
        assert!(t(&(), Args::Str(twice)).is_none(), "the fast path took {twice}");
        let value: Value = serde_json::from_str(twice).expect("JSON");
        let error = t(&(), Args::Value(&value)).expect("a value is always answered");
        assert!(error.is_err(), "{twice}");
    }

    let t = fast!(aliases::__call_tones);
    assert_eq!(both(r#"{"tone":"Grey","more":["Gray","Grey"]}"#, t), Some(json!(["Gray", ["Gray", "Gray"]])));

    // A struct with a map field has no fast decoder: its tool always leaves text to the
    // exact decoder, aliases or not.
    let t = fast!(aliases::__call_labelled_record);
    assert!(t(&(), Args::Str(r#"{"record":{"name":"n","labels":{}}}"#)).is_none());
    let value = json!({"record": {"display_name": "n", "metadata": {}}});
    let out = t(&(), Args::Value(&value)).expect("answered").expect("taken");
    assert_eq!(out, json!({"name": "n", "labels": {}, "count": 0}));
}
