//! `toolcall_runtime::__private::slot`: the functions generated code decodes every parameter and
//! field through, whatever the decoding method.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use toolcall_runtime::__private::name_hash;
use toolcall_runtime::__private::slot::{self, SlotError};
use toolcall_runtime::{Reason, ToolError};

fn parse_cents(value: &Value) -> Result<u64, String> {
    let text = value.as_str().ok_or("expected a string like \"12.50\"")?;
    let (whole, cents) = text.split_once('.').ok_or("expected two decimal places")?;
    if cents.len() != 2 {
        return Err(format!("{text:?} needs exactly two decimal places"));
    }
    Ok(whole.parse::<u64>().map_err(|e| e.to_string())? * 100
        + cents.parse::<u64>().map_err(|e| e.to_string())?)
}

#[test]
fn from_arg_slots_are_required_unless_optional() {
    let args = json!({"a": 1, "n": null});
    assert_eq!(slot::from_arg::<u8>(args.get("a"), 0), Ok(1));
    assert_eq!(slot::from_arg::<u8>(args.get("b"), 0), Err(SlotError::Missing));
    assert_eq!(slot::from_arg::<Option<u8>>(args.get("b"), 0), Ok(None));
    assert_eq!(slot::from_arg::<Option<u8>>(args.get("n"), 0), Ok(None));
    assert_eq!(slot::from_arg::<Option<Option<u8>>>(args.get("n"), 0), Ok(Some(None)));
    assert_eq!(slot::from_arg::<Option<Option<u8>>>(args.get("b"), 0), Ok(None));
}

#[test]
fn slot_errors_become_param_field_and_item_errors() {
    let err = slot::from_arg::<u8>(Some(&json!("x")), 0).unwrap_err();
    assert_eq!(err.clone().param("days").to_string(), r#"days: expected an integer, got "x""#);
    assert_eq!(err.clone().field("zip").path_from("address"), "address.zip");
    assert_eq!(err.item(3).path_from("items"), "items[3]");
    assert_eq!(SlotError::Missing.param("city"), ToolError::MissingArgument("city".into()));
    let missing = SlotError::Missing.field("zip");
    assert_eq!(*missing.reason, Reason::MissingField { field: "zip".into() });
}

#[test]
fn serde_slots_decode_foreign_types_and_bound_depth() {
    let value = json!({"secs": 5, "nanos": 0});
    let d: std::time::Duration = slot::serde(Some(&value), 0).unwrap();
    assert_eq!(d.as_secs(), 5);
    assert_eq!(slot::serde::<std::time::Duration>(None, 0), Err(SlotError::Missing));
    assert_eq!(slot::serde_opt::<std::time::Duration>(Some(&Value::Null), 0), Ok(None));
    let bad = slot::serde::<std::time::Duration>(Some(&json!("soon")), 0).unwrap_err();
    assert!(matches!(bad, SlotError::Invalid(e) if matches!(*e.reason, Reason::Invalid { .. })));
}

#[test]
fn provider_slots_report_the_providers_message() {
    assert_eq!(slot::provided(Some(&json!("12.50")), 0, parse_cents), Ok(1250));
    let err = slot::provided(Some(&json!("12.5")), 0, parse_cents).unwrap_err().param("amount");
    assert_eq!(err.to_string(), r#"amount: "12.5" needs exactly two decimal places"#);
    assert_eq!(slot::provided_opt(None, 0, parse_cents), Ok(None));
    assert_eq!(slot::provided_opt(Some(&Value::Null), 0, parse_cents), Ok(None));
}

#[test]
fn string_integer_slots_take_decimal_strings() {
    let max = json!("18446744073709551615");
    assert_eq!(slot::string_integer::<u64>(Some(&max), 0), Ok(u64::MAX));
    assert_eq!(slot::string_integer::<u64>(Some(&json!(42)), 0), Ok(42));
    assert!(slot::string_integer::<u64>(Some(&json!("1.5")), 0).is_err());
    assert!(slot::string_integer::<u64>(Some(&json!("18446744073709551616")), 0).is_err());
    assert!(slot::string_integer::<u64>(Some(&json!("+5")), 0).is_err());
    assert_eq!(slot::string_integer_opt::<u64>(None, 0), Ok(None));
}

#[test]
fn defaulted_slots_use_default_only_when_absent() {
    let (seven, text) = (json!(7), json!("7"));
    let decode = |v| slot::from_arg::<u32>(v, 0);
    assert_eq!(slot::defaulted(None, decode), Ok(0));
    assert_eq!(slot::defaulted(Some(&seven), decode), Ok(7));
    assert!(slot::defaulted(Some(&text), decode).is_err());
}

#[test]
fn enum_representations_pick_the_variant() {
    let red = json!("Red");
    let (name, payload) = slot::external(&red, &["Red"], &["Rgb"], 0).unwrap();
    assert_eq!((name, payload), ("Red", &json!("Red")));
    let rgb = json!({"Rgb": [1, 2, 3]});
    let (name, payload) = slot::external(&rgb, &["Red"], &["Rgb"], 0).unwrap();
    assert_eq!((name, payload), ("Rgb", &json!([1, 2, 3])));
    let err = slot::external(&json!({"Blue": 1}), &["Red"], &["Rgb"], 0).unwrap_err();
    assert_eq!(err.to_string(), r#"$: "Blue" is not one of "Red", "Rgb""#);
    assert!(slot::external(&json!({"Rgb": 1, "Red": 2}), &["Red"], &["Rgb"], 0).is_err());

    let circle = json!({"type": "circle", "r": 1});
    let (name, map) = slot::internal(&circle, "type", &["circle"], 0).unwrap();
    assert_eq!((name, map.len()), ("circle", 2));
    let missing = slot::internal(&json!({"r": 1}), "type", &["circle"], 0).unwrap_err();
    assert_eq!(*missing.reason, Reason::MissingField { field: "type".into() });

    let adjacent = json!({"t": "Move", "c": {"x": 1}});
    let (name, content) = slot::adjacent(&adjacent, "t", "c", &["Move"], 0).unwrap();
    assert_eq!((name, content), ("Move", Some(&json!({"x": 1}))));
    assert!(slot::adjacent(&json!({"t": "Move", "extra": 1}), "t", "c", &["Move"], 0).is_err());

    assert!(slot::unit(&Value::Null).is_ok());
    assert!(slot::unit(&json!(0)).is_err());
    let none = slot::no_variant(&json!(5), "Shape", None);
    assert!(none.to_string().contains("5 matches no variant of Shape"), "{none}");
}

#[test]
fn objects_and_tuples_check_their_shape() {
    let obj = json!({"a": 1, "b": 2});
    assert!(slot::object(&obj, &["a", "b"], 0).is_ok());
    let err = slot::object(&obj, &["a"], 0).unwrap_err();
    assert_eq!(*err.reason, Reason::UnknownFields { fields: vec!["b".into()] });
    assert_eq!(slot::tuple(&json!([1, 2]), 2, 0).unwrap().len(), 2);
    assert!(slot::tuple(&json!([1]), 2, 0).is_err());
    assert!(slot::object(&obj, &["a", "b"], toolcall_runtime::__private::decode::MAX_DEPTH).is_err());
}

#[test]
fn name_hash_is_usable_in_const_and_tells_names_apart() {
    const EMPTY: u64 = name_hash("");
    assert_eq!(EMPTY, name_hash(""));
    // Every length class (0, 1-3, 4-7, 8, 9-16, longer), and names that differ in one
    // byte at the start, the middle and the end of each: no two share a hash.
    let mut names: Vec<String> = Vec::new();
    for len in 0..40usize {
        let base: String = (0..len).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
        names.push(base.clone());
        for at in [0, len / 2, len.saturating_sub(1)] {
            if at < len {
                let mut changed = base.clone().into_bytes();
                changed[at] = b'_';
                names.push(String::from_utf8(changed).unwrap());
            }
        }
    }
    names.extend(
        ["add", "dda", "get_weather", "get_weathes", "create_order", "create_ordes"].map(String::from),
    );
    names.sort();
    names.dedup();
    let mut hashes: Vec<u64> = names.iter().map(|n| name_hash(n)).collect();
    hashes.sort_unstable();
    hashes.dedup();
    assert_eq!(hashes.len(), names.len(), "a hash collision among {names:?}");
}
