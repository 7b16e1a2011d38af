//! The fast path's readers, driven directly: a held `Value` and argument text both fill
//! slots in one pass (so a reader that quietly gave up on everything, which the exact
//! decoder would hide by answering correctly, fails here), fill them with the same
//! values, and give up on what only the exact decoder may explain.

use serde_json::{Value, json};
use toolcall_runtime::__private::fast::Args;

/// The slots of a tool `(n: i32, name: String, limit: Option<u8>, weights: Vec<f64>)`.
type Slots = (Option<i32>, Option<String>, Option<Option<u8>>, Option<Vec<f64>>);

fn index(key: &str) -> Option<usize> {
    match key {
        "n" => Some(0),
        "name" => Some(1),
        "limit" => Some(2),
        "weights" => Some(3),
        _ => None,
    }
}

/// The slots the fast path filled from `args`, or `None` when it gave up.
fn fill(args: Args<'_>) -> Option<Slots> {
    let mut slots: Slots = (None, None, None, None);
    args.arguments(&mut slots, index)?;
    Some(slots)
}

/// Fills from the text and from the parsed value; both must agree.
fn both(text: &str) -> Option<Slots> {
    let value: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    let from_text = fill(Args::Str(text));
    let from_value = fill(Args::Value(&value));
    assert_eq!(from_text, from_value, "{text}");
    from_value
}

#[test]
fn a_held_value_fills_every_slot_in_one_pass() {
    let filled = both(r#"{"n":-7,"name":"Ada","limit":3,"weights":[0.5,2,-1e3]}"#);
    assert_eq!(
        filled,
        Some((Some(-7), Some("Ada".to_owned()), Some(Some(3)), Some(vec![0.5, 2.0, -1000.0])))
    );
}

#[test]
fn whole_floats_nulls_and_absent_keys_are_taken() {
    // `2.0` is the integer 2, as the exact decoder reads it; `null` is an absent option.
    assert_eq!(both(r#"{"n":2.0,"limit":null}"#), Some((Some(2), None, Some(None), None)));
    assert_eq!(both("{}"), Some((None, None, None, None)));
}

#[test]
fn the_value_reader_gives_up_where_the_exact_decoder_must_explain() {
    for text in [
        r#"{"n":2.5}"#,
        r#"{"n":2147483648}"#,
        r#"{"n":"2"}"#,
        r#"{"name":7}"#,
        r#"{"limit":256}"#,
        r#"{"weights":[1,"x"]}"#,
        r#"{"weights":{"a":1}}"#,
        r#"{"other":1}"#,
        "[1]",
        "3",
    ] {
        assert_eq!(both(text), None, "{text}");
    }
}

#[test]
fn text_alone_gives_up_on_a_repeated_key_and_trailing_text() {
    // A `Value` cannot hold either: serde_json keeps the last of a repeated key.
    assert_eq!(fill(Args::Str(r#"{"n":1,"n":2}"#)), None);
    assert_eq!(fill(Args::Str(r#"{"n":1} x"#)), None);
    let last = json!({"n": 2});
    assert_eq!(fill(Args::Value(&last)), Some((Some(2), None, None, None)));
}
