//! Argument decoding: every std type with a `FromArg` impl, at its boundaries, through
//! `decode_arg`/`decode_slot`. Where a row of the Types table has an IR type, the IR-driven
//! validator (`dynamic::validate`, what `DynTool` uses) must accept and reject the same
//! values, with the same reason and path, so a tool behaves the same however it is defined.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::fmt::Debug;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::num::{
    NonZeroI8, NonZeroI16, NonZeroI32, NonZeroI64, NonZeroIsize, NonZeroU8, NonZeroU16, NonZeroU32,
    NonZeroU64, NonZeroUsize,
};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;

use common::{deep_array, dismantle};
use serde_json::{Map, Value, json};
use toolcall_runtime::__private::decode::{
    ArgError, FromArg, MAX_DEPTH, StringInteger, decode_arg, decode_field, decode_slot, deserialize_arg,
    expect_object,
};
use toolcall_runtime::__private::validate;
use toolcall_runtime::ir::{Param, Tool, Type};
use toolcall_runtime::{DynTool, Reason, ToolError};

// ---------------------------------------------------------------------------------------
// Helpers

/// The serde tag of a reason (`expected_integer`, `out_of_range`, ...).
fn reason_kind(reason: &Reason) -> String {
    serde_json::to_value(reason).unwrap()["kind"].as_str().unwrap().to_owned()
}

/// The argument path and reason kind of an `InvalidArgument`.
fn invalid(error: &ToolError) -> (&str, String) {
    match error {
        ToolError::InvalidArgument { name, reason } => (name.as_str(), reason_kind(reason)),
        other => panic!("expected InvalidArgument, got {other:?}"),
    }
}

/// Decodes `value` with `decode` (a `FromArg` type) and validates it against `ty`: both must
/// accept it, or both reject it with the same path and reason kind. Returns the decoded
/// result.
fn agree<R: Debug>(
    ty: &Type,
    value: &Value,
    decode: impl FnOnce(&Value) -> Result<R, ToolError>,
) -> Result<R, ToolError> {
    let decoded = decode(value);
    let validated = validate(ty, value, 0).map_err(|e| e.into_tool_error("x"));
    match (&decoded, &validated) {
        (Ok(_), Ok(_)) => {}
        (Err(a), Err(b)) => assert_eq!(invalid(a), invalid(b), "different errors for {value}: {a:?} / {b:?}"),
        _ => panic!("FromArg and the IR validator disagree on {value}: {decoded:?} vs {validated:?}"),
    }
    decoded
}

/// [`agree`] for an owned `FromArg` type, named `x`.
fn agree_as<T>(ty: &Type, value: &Value) -> Result<T, ToolError>
where
    T: for<'a> FromArg<'a> + Debug,
{
    agree(ty, value, |v| decode_arg::<T>(v, "x"))
}

/// Asserts `result` is `InvalidArgument` named `name` with a reason of `kind`.
#[track_caller]
fn assert_invalid<T: Debug>(result: Result<T, ToolError>, name: &str, kind: &str) {
    match result {
        Err(error) => assert_eq!(invalid(&error), (name, kind.to_owned()), "{error}"),
        Ok(value) => panic!("expected {kind} at {name}, decoded {value:?}"),
    }
}

/// The values of the wrong JSON type for a scalar, with null.
fn wrong_types() -> Vec<Value> {
    vec![json!(null), json!(true), json!("5"), json!(""), json!([1]), json!({"a": 1})]
}

// ---------------------------------------------------------------------------------------
// Scalars

#[test]
fn bool_accepts_only_booleans() {
    assert!(agree_as::<bool>(&Type::Boolean, &json!(true)).unwrap());
    assert!(!agree_as::<bool>(&Type::Boolean, &json!(false)).unwrap());
    for value in [json!(null), json!(1), json!(0), json!("true"), json!(""), json!([true])] {
        assert_invalid(agree_as::<bool>(&Type::Boolean, &value), "x", "expected_boolean");
    }
}

/// For each integer type and its IR: bounds accepted, one past each bound out of range,
/// `1.0` accepted as 1, and `1.5`, strings, null and containers not integers.
macro_rules! integer_boundaries {
    ($($name:ident: $ty:ty => $ir:expr;)*) => {$(
        #[test]
        fn $name() {
            let ty: Type = $ir;
            let min = <$ty>::MIN;
            let max = <$ty>::MAX;
            assert_eq!(agree_as::<$ty>(&ty, &json!(min)).unwrap(), min);
            assert_eq!(agree_as::<$ty>(&ty, &json!(max)).unwrap(), max);
            assert_eq!(agree_as::<$ty>(&ty, &json!(1.0)).unwrap(), 1);
            assert_eq!(agree_as::<$ty>(&ty, &json!(1e2)).unwrap(), 100);
            assert_eq!(agree_as::<$ty>(&ty, &json!(-0.0)).unwrap(), 0);
            let below: Value = serde_json::from_str(&(min as i128 - 1).to_string()).unwrap();
            let above: Value = serde_json::from_str(&(max as i128 + 1).to_string()).unwrap();
            for value in [below, above, json!(1e300), json!(-1e300)] {
                assert_invalid(agree_as::<$ty>(&ty, &value), "x", "out_of_range");
            }
            for value in [json!(1.5), json!(-0.5), json!(1e-7)].into_iter().chain(wrong_types()) {
                assert_invalid(agree_as::<$ty>(&ty, &value), "x", "expected_integer");
            }
        }
    )*};
}

fn bounded(min: i128, max: i128) -> Type {
    let clamp = |v: i128| i64::try_from(v).ok();
    Type::Integer { minimum: clamp(min), maximum: clamp(max), non_zero: false, as_string: false, width: None }
}

integer_boundaries! {
    u8_boundaries: u8 => bounded(0, 255);
    i8_boundaries: i8 => bounded(-128, 127);
    u16_boundaries: u16 => bounded(0, u16::MAX.into());
    i16_boundaries: i16 => bounded(i16::MIN.into(), i16::MAX.into());
    u32_boundaries: u32 => bounded(0, u32::MAX.into());
    i32_boundaries: i32 => bounded(i32::MIN.into(), i32::MAX.into());
    i64_boundaries: i64 => bounded(i64::MIN.into(), i64::MAX.into());
    isize_boundaries: isize => bounded(isize::MIN as i128, isize::MAX as i128);
    u64_boundaries: u64 => bounded(0, u64::MAX.into());
    usize_boundaries: usize => bounded(0, usize::MAX as i128);
}

#[test]
fn u8_255_and_256() {
    assert_eq!(decode_arg::<u8>(&json!(255), "level").unwrap(), 255);
    let error = decode_arg::<u8>(&json!(256), "level").unwrap_err();
    assert_eq!(
        error,
        ToolError::InvalidArgument {
            name: "level".into(),
            reason: Box::new(Reason::OutOfRange { value: json!(256), min: "0".into(), max: "255".into() }),
        }
    );
    assert_eq!(error.to_string(), "level: 256 is out of range (0 to 255)");
}

#[test]
fn i32_overflow() {
    let error = decode_arg::<i32>(&json!(2147483648u64), "n").unwrap_err();
    assert_eq!(error.to_string(), "n: 2147483648 is out of range (-2147483648 to 2147483647)");
    let error = decode_arg::<i32>(&json!(-2147483649i64), "n").unwrap_err();
    assert_eq!(error.to_string(), "n: -2147483649 is out of range (-2147483648 to 2147483647)");
}

#[test]
fn huge_numbers_report_the_types_own_range() {
    // 2^64 is parsed as a float; the error still names u64's range, not an internal one.
    let value: Value = serde_json::from_str("18446744073709551616").unwrap();
    let error = decode_arg::<u64>(&value, "id").unwrap_err();
    assert_eq!(error.to_string(), "id: 1.8446744073709552e+19 is out of range (0 to 18446744073709551615)");
    let error = decode_arg::<u8>(&json!(1e300), "level").unwrap_err();
    assert_eq!(error.to_string(), "level: 1e+300 is out of range (0 to 255)");
    let error = validate(&Type::integer_between(0, 255), &json!(1e300), 0).unwrap_err();
    assert_eq!(*error.reason, Reason::OutOfRange { value: json!(1e300), min: "0".into(), max: "255".into() });
    // Just below i64::MIN rounds to i64::MIN as a float: refused, not silently accepted.
    let value: Value = serde_json::from_str("-9223372036854775809").unwrap();
    assert_invalid(decode_arg::<i64>(&value, "x"), "x", "out_of_range");
}

#[test]
fn one_point_zero_is_one_but_one_point_five_and_five_string_are_not() {
    assert_eq!(decode_arg::<u32>(&json!(1.0), "days").unwrap(), 1);
    let error = decode_arg::<u32>(&json!(1.5), "days").unwrap_err();
    assert_eq!(
        error,
        ToolError::InvalidArgument {
            name: "days".into(),
            reason: Box::new(Reason::ExpectedInteger { value: json!(1.5) })
        }
    );
    assert_eq!(error.to_string(), "days: expected an integer, got 1.5");
    let error = decode_arg::<u32>(&json!("5"), "days").unwrap_err();
    assert_eq!(error.to_string(), r#"days: expected an integer, got "5""#);
    // The IR validator normalises 1.0 to the integer 1 for the handler.
    let normalised = validate(&Type::integer(), &json!(1.0), 0).unwrap();
    assert_eq!(normalised, json!(1));
    assert!(normalised.is_i64() && !normalised.is_f64());
}

macro_rules! nonzero_boundaries {
    ($($name:ident: $ty:ty => $inner:ty;)*) => {$(
        #[test]
        fn $name() {
            assert_eq!(decode_arg::<$ty>(&json!(1), "n").unwrap().get(), 1);
            assert_eq!(decode_arg::<$ty>(&json!(<$inner>::MAX), "n").unwrap().get(), <$inner>::MAX);
            assert_eq!(decode_arg::<$ty>(&json!(1.0), "n").unwrap().get(), 1);
            let error = decode_arg::<$ty>(&json!(0), "n").unwrap_err();
            assert_eq!(invalid(&error), ("n", "out_of_range".to_owned()));
            assert!(error.to_string().starts_with("n: 0 is out of range (non-zero to "), "{error}");
            let above: Value = serde_json::from_str(&(<$inner>::MAX as i128 + 1).to_string()).unwrap();
            assert_invalid(decode_arg::<$ty>(&above, "n"), "n", "out_of_range");
            assert_invalid(decode_arg::<$ty>(&json!(0.5), "n"), "n", "expected_integer");
            assert_invalid(decode_arg::<$ty>(&json!(null), "n"), "n", "expected_integer");
        }
    )*};
}

nonzero_boundaries! {
    nonzero_u8: NonZeroU8 => u8;
    nonzero_u16: NonZeroU16 => u16;
    nonzero_u32: NonZeroU32 => u32;
    nonzero_u64: NonZeroU64 => u64;
    nonzero_usize: NonZeroUsize => usize;
    nonzero_i8: NonZeroI8 => i8;
    nonzero_i16: NonZeroI16 => i16;
    nonzero_i32: NonZeroI32 => i32;
    nonzero_i64: NonZeroI64 => i64;
    nonzero_isize: NonZeroIsize => isize;
}

#[test]
fn nonzero_agrees_with_its_ir() {
    let unsigned = Type::integer_between(1, 255);
    assert_eq!(agree(&unsigned, &json!(255), |v| decode_arg::<NonZeroU8>(v, "x")).unwrap().get(), 255);
    assert_invalid(agree(&unsigned, &json!(0), |v| decode_arg::<NonZeroU8>(v, "x")), "x", "out_of_range");
    let signed = Type::Integer {
        minimum: Some(i32::MIN.into()),
        maximum: Some(i32::MAX.into()),
        non_zero: true,
        as_string: false,
        width: Some(toolcall_runtime::ir::Width::I32),
    };
    assert_eq!(agree(&signed, &json!(-1), |v| decode_arg::<NonZeroI32>(v, "x")).unwrap().get(), -1);
    assert_invalid(agree(&signed, &json!(0), |v| decode_arg::<NonZeroI32>(v, "x")), "x", "out_of_range");
    assert_invalid(agree(&signed, &json!(0.0), |v| decode_arg::<NonZeroI32>(v, "x")), "x", "out_of_range");
}

/// The IR knows the Rust type's whole range even where the schema cannot show it: an
/// `i64` refuses 2^63 and a `u64` refuses -1 and 2^64, as their decoders do.
#[test]
fn integer_widths_bound_the_ir_as_the_decoder_is_bounded() {
    use toolcall_runtime::ir::Width;
    let of = |width| Type::Integer {
        minimum: None,
        maximum: None,
        non_zero: false,
        as_string: false,
        width: Some(width),
    };
    let i64_ty = of(Width::I64);
    assert_eq!(agree(&i64_ty, &json!(i64::MAX), |v| decode_arg::<i64>(v, "x")).unwrap(), i64::MAX);
    assert_invalid(
        agree(&i64_ty, &json!(9_223_372_036_854_775_808u64), |v| decode_arg::<i64>(v, "x")),
        "x",
        "out_of_range",
    );
    let u64_ty = Type::Integer {
        minimum: Some(0),
        maximum: None,
        non_zero: false,
        as_string: false,
        width: Some(Width::U64),
    };
    assert_eq!(agree(&u64_ty, &json!(u64::MAX), |v| decode_arg::<u64>(v, "x")).unwrap(), u64::MAX);
    assert_invalid(agree(&u64_ty, &json!(-1), |v| decode_arg::<u64>(v, "x")), "x", "out_of_range");
    assert_invalid(agree(&u64_ty, &json!(1.9e19), |v| decode_arg::<u64>(v, "x")), "x", "out_of_range");
    let i8_ty = of(Width::I8);
    assert_invalid(agree(&i8_ty, &json!(128), |v| decode_arg::<i8>(v, "x")), "x", "out_of_range");
    // The schema never shows a bound past ±(2^53 − 1).
    let schema = toolcall_runtime::render::render_type(&i64_ty, toolcall_runtime::Format::OpenAi, false);
    assert_eq!(schema, r#"{"type":"integer"}"#);
}

#[test]
fn floats() {
    let ty = Type::number();
    assert_eq!(agree_as::<f64>(&ty, &json!(1)).unwrap(), 1.0);
    assert_eq!(agree_as::<f64>(&ty, &json!(1.5)).unwrap(), 1.5);
    assert_eq!(agree_as::<f64>(&ty, &json!(-1e300)).unwrap(), -1e300);
    assert_eq!(agree_as::<f64>(&ty, &json!(u64::MAX)).unwrap(), u64::MAX as f64);
    for value in wrong_types() {
        assert_invalid(agree_as::<f64>(&ty, &value), "x", "expected_number");
    }
    assert_eq!(decode_arg::<f32>(&json!(0.5), "x").unwrap(), 0.5f32);
    assert_eq!(decode_arg::<f32>(&json!(f32::MAX), "x").unwrap(), f32::MAX);
    assert_invalid(decode_arg::<f32>(&json!(1e39), "x"), "x", "out_of_range");
    assert_invalid(decode_arg::<f32>(&json!("1.5"), "x"), "x", "expected_number");
    assert_invalid(decode_arg::<f32>(&json!(null), "x"), "x", "expected_number");
    let bounded = Type::Number { minimum: Some(0.0), maximum: Some(1.0) };
    assert_eq!(validate(&bounded, &json!(1), 0).unwrap(), json!(1));
    let error = validate(&bounded, &json!(1.5), 0).unwrap_err().into_tool_error("p");
    assert_eq!(error.to_string(), "p: 1.5 is out of range (0 to 1)");
}

#[test]
fn char_is_one_character() {
    let ty = Type::String { format: None, pattern: None, min_length: Some(1), max_length: Some(1) };
    assert_eq!(agree_as::<char>(&ty, &json!("a")).unwrap(), 'a');
    assert_eq!(agree_as::<char>(&ty, &json!("é")).unwrap(), 'é');
    assert_eq!(agree_as::<char>(&ty, &json!("😀")).unwrap(), '😀');
    for value in [json!(""), json!("ab"), json!("e\u{301}")] {
        assert_invalid(agree_as::<char>(&ty, &value), "x", "wrong_length");
    }
    for value in [json!(null), json!(5), json!(['a'])] {
        assert_invalid(agree_as::<char>(&ty, &value), "x", "expected_string");
    }
    assert_eq!(
        decode_arg::<char>(&json!("ab"), "c").unwrap_err().to_string(),
        r#"c: expected exactly 1 character, got "ab""#
    );
}

#[test]
fn strings() {
    let ty = Type::string();
    assert_eq!(agree_as::<String>(&ty, &json!("")).unwrap(), "");
    assert_eq!(agree_as::<String>(&ty, &json!("Oslo")).unwrap(), "Oslo");
    assert_eq!(&*agree_as::<Box<str>>(&ty, &json!("boxed")).unwrap(), "boxed");
    assert_eq!(agree_as::<PathBuf>(&ty, &json!("a/b.txt")).unwrap(), PathBuf::from("a/b.txt"));
    for value in [json!(null), json!(5), json!(true), json!(["a"]), json!({})] {
        assert_invalid(agree_as::<String>(&ty, &value), "x", "expected_string");
        assert_invalid(decode_arg::<&str>(&value, "x"), "x", "expected_string");
        assert_invalid(decode_arg::<Cow<'_, str>>(&value, "x"), "x", "expected_string");
        assert_invalid(decode_arg::<PathBuf>(&value, "x"), "x", "expected_string");
        assert_invalid(decode_arg::<Box<str>>(&value, "x"), "x", "expected_string");
    }
}

#[test]
fn str_and_cow_borrow_from_the_arguments() {
    let args = json!({"city": "Oslo, a fairly long city name to be sure"});
    let source = args["city"].as_str().unwrap();
    let city: &str = decode_arg(&args["city"], "city").unwrap();
    assert_eq!(city, source);
    assert!(std::ptr::eq(city.as_ptr(), source.as_ptr()), "&str copied the argument");
    let cow: Cow<'_, str> = decode_arg(&args["city"], "city").unwrap();
    assert!(matches!(cow, Cow::Borrowed(_)), "Cow<str> is owned");
    assert!(std::ptr::eq(cow.as_ptr(), source.as_ptr()));
    let empty = json!("");
    assert_eq!(decode_arg::<&str>(&empty, "x").unwrap(), "");
    let whole: &Value = decode_arg(&args, "args").unwrap();
    assert!(std::ptr::eq(whole, &args), "&Value copied the argument");
}

// ---------------------------------------------------------------------------------------
// Sequences, sets, tuples

#[test]
fn sequences() {
    let ty = Type::array(Type::integer_between(0, 255));
    assert_eq!(agree_as::<Vec<u8>>(&ty, &json!([])).unwrap(), Vec::<u8>::new());
    assert_eq!(agree_as::<Vec<u8>>(&ty, &json!([1, 2.0, 255])).unwrap(), [1, 2, 255]);
    assert_eq!(agree_as::<VecDeque<u8>>(&ty, &json!([3, 4])).unwrap(), VecDeque::from([3, 4]));
    assert_eq!(&*agree_as::<Box<[u8]>>(&ty, &json!([5])).unwrap(), [5]);
    assert_invalid(agree_as::<Vec<u8>>(&ty, &json!([1, 256])), "x[1]", "out_of_range");
    assert_invalid(agree_as::<VecDeque<u8>>(&ty, &json!([null])), "x[0]", "expected_integer");
    assert_invalid(agree_as::<Box<[u8]>>(&ty, &json!([0, 1.5])), "x[1]", "expected_integer");
    for value in [json!(null), json!("[1]"), json!({"0": 1}), json!(1)] {
        assert_invalid(agree_as::<Vec<u8>>(&ty, &value), "x", "expected_array");
    }
    let strings = Type::array(Type::string());
    assert_eq!(agree_as::<VecDeque<String>>(&strings, &json!(["a", ""])).unwrap(), ["a", ""]);
    let source = json!(["a", "b"]);
    let borrowed: Vec<&str> = decode_arg(&source, "x").unwrap();
    assert_eq!(borrowed, ["a", "b"]);
}

#[test]
fn fixed_arrays_have_exactly_n_items() {
    let ty = Type::Array {
        items: Box::new(Type::integer_between(0, 255)),
        min_items: Some(3),
        max_items: Some(3),
        unique: false,
    };
    assert_eq!(agree_as::<[u8; 3]>(&ty, &json!([1, 2, 3])).unwrap(), [1, 2, 3]);
    for value in [json!([1, 2]), json!([1, 2, 3, 4]), json!([])] {
        assert_invalid(agree_as::<[u8; 3]>(&ty, &value), "x", "wrong_length");
    }
    assert_eq!(
        decode_arg::<[u8; 3]>(&json!([1, 2]), "rgb").unwrap_err().to_string(),
        "rgb: expected exactly 3 items, got [1,2]"
    );
    assert_invalid(agree_as::<[u8; 3]>(&ty, &json!([1, 2, -1])), "x[2]", "out_of_range");
    assert_eq!(decode_arg::<[String; 0]>(&json!([]), "x").unwrap().len(), 0);
}

#[test]
fn nested_errors_name_their_path() {
    let value = json!([[1], [2, "x"]]);
    let error = decode_arg::<Vec<Vec<u8>>>(&value, "items").unwrap_err();
    assert_eq!(
        error,
        ToolError::InvalidArgument {
            name: "items[1][1]".into(),
            reason: Box::new(Reason::ExpectedInteger { value: json!("x") })
        }
    );
    assert_eq!(error.to_string(), r#"items[1][1]: expected an integer, got "x""#);
    // The same through the IR validator and a runtime tool.
    let ty = Type::array(Type::array(Type::integer_between(0, 255)));
    assert_invalid(agree_as::<Vec<Vec<u8>>>(&ty, &value), "x[1][1]", "expected_integer");
    let tool = DynTool::new(Tool::new("t").param(Param::new("items", ty)), |_| Ok(json!(null)));
    assert_eq!(tool.run(&json!({ "items": value })).unwrap_err(), error);
    // Maps and tuples name keys and indexes the same way.
    let error = decode_arg::<HashMap<String, Vec<(u8, bool)>>>(&json!({"a": [[1, true], [2, 3]]}), "m");
    assert_invalid(error, "m.a[1][1]", "expected_boolean");
}

#[test]
fn sets_reject_duplicates() {
    let ty = Type::Array { items: Box::new(Type::string()), min_items: None, max_items: None, unique: true };
    let tags = agree_as::<HashSet<String>>(&ty, &json!(["a", "b"])).unwrap();
    assert_eq!(tags, HashSet::from(["a".to_owned(), "b".to_owned()]));
    let error = agree_as::<HashSet<String>>(&ty, &json!(["a", "b", "a"])).unwrap_err();
    assert_eq!(invalid(&error), ("x[2]", "duplicate_item".to_owned()));
    let error = decode_arg::<BTreeSet<String>>(&json!(["a", "a"]), "tags").unwrap_err();
    assert_eq!(error.to_string(), r#"tags[1]: duplicate item "a""#);
    let ints = Type::Array {
        items: Box::new(Type::integer_between(0, 255)),
        min_items: None,
        max_items: None,
        unique: true,
    };
    assert_eq!(agree_as::<BTreeSet<u8>>(&ints, &json!([3, 1, 2])).unwrap(), BTreeSet::from([1, 2, 3]));
    // 1 and 1.0 are the same integer.
    assert_invalid(agree_as::<BTreeSet<u8>>(&ints, &json!([1, 2, 1.0])), "x[2]", "duplicate_item");
    assert_invalid(agree_as::<HashSet<u8>>(&ints, &json!([1, 300])), "x[1]", "out_of_range");
    assert_invalid(agree_as::<HashSet<u8>>(&ints, &json!("1")), "x", "expected_array");
}

#[test]
fn tuples() {
    let ty = Type::Tuple(vec![Type::integer_between(0, 255), Type::string()]);
    assert_eq!(agree_as::<(u8, String)>(&ty, &json!([1, "a"])).unwrap(), (1, "a".to_owned()));
    assert_invalid(agree_as::<(u8, String)>(&ty, &json!([1, 2])), "x[1]", "expected_string");
    assert_invalid(agree_as::<(u8, String)>(&ty, &json!([256, "a"])), "x[0]", "out_of_range");
    for value in [json!([1]), json!([1, "a", 3]), json!([])] {
        assert_invalid(agree_as::<(u8, String)>(&ty, &value), "x", "wrong_length");
    }
    for value in [json!(null), json!({"0": 1, "1": "a"}), json!("1,a")] {
        assert_invalid(agree_as::<(u8, String)>(&ty, &value), "x", "expected_array");
    }
    assert_eq!(decode_arg::<(bool,)>(&json!([true]), "x").unwrap(), (true,));
    let source = json!([1, 2, 3, 4, 5, 6, 7, "eight"]);
    let eight: (u8, u8, u8, u8, u8, u8, u8, &str) = decode_arg(&source, "x").unwrap();
    assert_eq!(eight, (1, 2, 3, 4, 5, 6, 7, "eight"));
    assert_invalid(decode_arg::<(u8, u8, u8)>(&json!([1, 2, null]), "p"), "p[2]", "expected_integer");
}

// ---------------------------------------------------------------------------------------
// Options, maps, values, pointers

#[test]
fn option_treats_null_as_absent() {
    assert_eq!(decode_arg::<Option<u8>>(&json!(null), "days").unwrap(), None);
    assert_eq!(decode_arg::<Option<u8>>(&json!(5), "days").unwrap(), Some(5));
    assert_eq!(decode_slot::<Option<u8>>(None, "days").unwrap(), None);
    assert_eq!(decode_slot::<Option<u8>>(Some(&json!(7)), "days").unwrap(), Some(7));
    assert_invalid(decode_arg::<Option<u8>>(&json!("5"), "days"), "days", "expected_integer");
    assert_invalid(decode_arg::<Option<u8>>(&json!(256), "days"), "days", "out_of_range");
    // A required argument that is absent is a MissingArgument, not an InvalidArgument.
    assert_eq!(decode_slot::<u8>(None, "days").unwrap_err(), ToolError::MissingArgument("days".into()));
    assert_eq!(decode_slot::<&str>(None, "city").unwrap_err().to_string(), "city: missing required argument");
    assert_invalid(decode_slot::<u8>(Some(&json!(null)), "days"), "days", "expected_integer");
}

#[test]
fn option_option_passes_null_through() {
    assert_eq!(decode_arg::<Option<Option<u8>>>(&json!(null), "age").unwrap(), Some(None));
    assert_eq!(decode_slot::<Option<Option<u8>>>(None, "age").unwrap(), None);
    assert_eq!(decode_arg::<Option<Option<u8>>>(&json!(5), "age").unwrap(), Some(Some(5)));
    assert_invalid(decode_arg::<Option<Option<u8>>>(&json!(-1), "age"), "age", "out_of_range");
    // The IR: an optional parameter of a nullable type.
    let ty = Type::integer_between(0, 255).nullable();
    assert_eq!(validate(&ty, &json!(null), 0).unwrap(), json!(null));
    assert_eq!(validate(&ty, &json!(5.0), 0).unwrap(), json!(5));
    assert_invalid(
        agree(&ty, &json!("5"), |v| decode_arg::<Option<Option<u8>>>(v, "x")),
        "x",
        "expected_integer",
    );
    // Through wrappers too: `Option<Box<Option<T>>>` behaves like `Option<Option<T>>`.
    let boxed = decode_arg::<Option<Box<Option<u8>>>>(&json!(null), "x").unwrap();
    assert_eq!(boxed, Some(Box::new(None)));
    // `Option<Value>`: null is a value of `Value`, so it is passed through.
    assert_eq!(decode_arg::<Option<Value>>(&json!(null), "x").unwrap(), Some(Value::Null));
}

#[test]
fn maps() {
    let ty = Type::Map(Box::new(Type::integer_between(0, 255)));
    let decoded = agree_as::<HashMap<String, u8>>(&ty, &json!({"a": 1, "b": 2.0})).unwrap();
    assert_eq!(decoded, HashMap::from([("a".to_owned(), 1), ("b".to_owned(), 2)]));
    let decoded = agree_as::<BTreeMap<String, u8>>(&ty, &json!({})).unwrap();
    assert!(decoded.is_empty());
    assert_invalid(
        agree_as::<BTreeMap<String, u8>>(&ty, &json!({"a": 1, "b": "x"})),
        "x.b",
        "expected_integer",
    );
    for value in [json!(null), json!([]), json!("{}"), json!(1)] {
        assert_invalid(agree_as::<HashMap<String, u8>>(&ty, &value), "x", "expected_object");
    }
    let any = Type::Map(Box::new(Type::Any));
    let map = agree_as::<Map<String, Value>>(&any, &json!({"k": [1, {"n": null}]})).unwrap();
    assert_eq!(Value::Object(map), json!({"k": [1, {"n": null}]}));
    assert_invalid(agree_as::<Map<String, Value>>(&any, &json!([1])), "x", "expected_object");
    let source = json!({"a": "x"});
    let borrowed: BTreeMap<String, &str> = decode_arg(&source, "m").unwrap();
    assert_eq!(borrowed["a"], "x");
}

#[test]
fn value_accepts_anything() {
    for value in [json!(null), json!(1), json!("s"), json!([1, [2]]), json!({"a": {"b": null}})] {
        assert_eq!(agree_as::<Value>(&Type::Any, &value).unwrap(), value);
    }
}

#[test]
fn pointers_decode_as_their_inner_type() {
    assert_eq!(*decode_arg::<Box<u8>>(&json!(7), "x").unwrap(), 7);
    assert_eq!(*decode_arg::<Rc<String>>(&json!("rc"), "x").unwrap(), "rc");
    assert_eq!(*decode_arg::<Arc<Vec<u8>>>(&json!([1, 2]), "x").unwrap(), [1, 2]);
    assert_invalid(decode_arg::<Box<u8>>(&json!(256), "x"), "x", "out_of_range");
    assert_invalid(decode_arg::<Arc<Vec<u8>>>(&json!([1, "2"]), "x"), "x[1]", "expected_integer");
    // Absence follows the inner type: `Box<Option<T>>` may be absent, `Rc<T>` may not.
    assert_eq!(decode_slot::<Box<Option<u8>>>(None, "x").unwrap(), Box::new(None));
    assert_eq!(decode_slot::<Rc<u8>>(None, "x").unwrap_err(), ToolError::MissingArgument("x".into()));
}

#[test]
fn ip_addresses() {
    assert_eq!(decode_arg::<IpAddr>(&json!("127.0.0.1"), "ip").unwrap(), IpAddr::from([127, 0, 0, 1]));
    assert_eq!(decode_arg::<IpAddr>(&json!("::1"), "ip").unwrap(), IpAddr::from(Ipv6Addr::LOCALHOST));
    assert_eq!(decode_arg::<Ipv4Addr>(&json!("10.0.0.1"), "ip").unwrap(), Ipv4Addr::new(10, 0, 0, 1));
    assert_invalid(decode_arg::<Ipv4Addr>(&json!("::1"), "ip"), "ip", "invalid_format");
    assert_invalid(decode_arg::<Ipv6Addr>(&json!("10.0.0.1"), "ip"), "ip", "invalid_format");
    for value in [json!("999.0.0.1"), json!(""), json!("localhost")] {
        assert_invalid(decode_arg::<IpAddr>(&value, "ip"), "ip", "invalid_format");
    }
    assert_invalid(decode_arg::<IpAddr>(&json!(2130706433), "ip"), "ip", "expected_string");
    assert_invalid(decode_arg::<IpAddr>(&json!(null), "ip"), "ip", "expected_string");
    assert_eq!(
        decode_arg::<IpAddr>(&json!("999.0.0.1"), "ip").unwrap_err().to_string(),
        r#"ip: "999.0.0.1" is not a valid ip address (IPv4 or IPv6, e.g. "192.0.2.1" or "2001:db8::1")"#
    );
}

#[test]
fn string_integers() {
    let unsigned =
        Type::Integer { minimum: Some(0), maximum: None, non_zero: false, as_string: true, width: None };
    let decode = |v: &Value| decode_arg::<StringInteger<u64>>(v, "x");
    assert_eq!(agree(&unsigned, &json!("18446744073709551615"), decode).unwrap(), StringInteger(u64::MAX));
    assert_eq!(agree(&unsigned, &json!("0"), decode).unwrap(), StringInteger(0));
    // Leniently, a JSON number that fits.
    assert_eq!(agree(&unsigned, &json!(42), decode).unwrap(), StringInteger(42));
    for value in
        [json!("1.5"), json!("abc"), json!(""), json!("-"), json!("+5"), json!(" 5"), json!("5 "), json!(1.5)]
    {
        assert_invalid(agree(&unsigned, &value, decode), "x", "expected_integer");
    }
    assert_invalid(agree(&unsigned, &json!(null), decode), "x", "expected_integer");
    assert_invalid(decode(&json!("18446744073709551616")), "x", "out_of_range");
    let huge = json!("9".repeat(60));
    assert_invalid(agree(&unsigned, &huge, decode), "x", "out_of_range");
    assert_invalid(agree(&unsigned, &json!("-5"), decode), "x", "out_of_range");
    // The validator hands the handler a canonical decimal string.
    assert_eq!(validate(&unsigned, &json!(42), 0).unwrap(), json!("42"));
    assert_eq!(validate(&unsigned, &json!("007"), 0).unwrap(), json!("7"));
    let signed =
        Type::Integer { minimum: None, maximum: None, non_zero: false, as_string: true, width: None };
    let decode = |v: &Value| decode_arg::<StringInteger<i64>>(v, "x");
    assert_eq!(agree(&signed, &json!("-9223372036854775808"), decode).unwrap(), StringInteger(i64::MIN));
    assert_eq!(agree(&signed, &json!("-5"), decode).unwrap(), StringInteger(-5));
}

// ---------------------------------------------------------------------------------------
// Local types, decoded the way generated code decodes them

/// A local struct with the `FromArg` impl `toolcall-build` generates.
#[derive(Debug, PartialEq)]
struct Address<'a> {
    street: &'a str,
    zip: String,
}

impl<'a> FromArg<'a> for Address<'a> {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        let map = expect_object(value, &["street", "zip"], depth)?;
        Ok(Address {
            street: decode_field(map, "street", depth + 1)?,
            zip: decode_field(map, "zip", depth + 1)?,
        })
    }
}

#[derive(Debug, PartialEq)]
struct User<'a> {
    name: String,
    age: Option<u8>,
    address: Address<'a>,
}

impl<'a> FromArg<'a> for User<'a> {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        let map = expect_object(value, &["name", "age", "address"], depth)?;
        Ok(User {
            name: decode_field(map, "name", depth + 1)?,
            age: decode_field(map, "age", depth + 1)?,
            address: decode_field(map, "address", depth + 1)?,
        })
    }
}

fn user_type() -> Type {
    Type::Object(vec![
        Param::new("name", Type::string()),
        Param::new("age", Type::integer_between(0, 255)).optional(),
        Param::new(
            "address",
            Type::Object(vec![Param::new("street", Type::string()), Param::new("zip", Type::string())]),
        ),
    ])
}

#[test]
fn local_structs() {
    let ty = user_type();
    let decode = |v: &Value| decode_arg::<User<'_>>(v, "x").map(|u| (u.name, u.age, u.address.zip));
    let value = json!({"name": "Ada", "address": {"street": "Main", "zip": "12345"}});
    assert_eq!(agree(&ty, &value, decode).unwrap(), ("Ada".to_owned(), None, "12345".to_owned()));
    let value = json!({"name": "Ada", "age": null, "address": {"street": "Main", "zip": "1"}});
    assert_eq!(agree(&ty, &value, decode).unwrap().1, None);
    let value = json!({"name": "Ada", "age": 36.0, "address": {"street": "Main", "zip": "1"}});
    assert_eq!(agree(&ty, &value, decode).unwrap().1, Some(36));
    // Nested failures name their path.
    let value = json!({"name": "Ada", "address": {"street": "Main", "zip": 12345}});
    assert_invalid(agree(&ty, &value, decode), "x.address.zip", "expected_string");
    let value = json!({"name": "Ada", "age": 300, "address": {"street": "Main", "zip": "1"}});
    assert_invalid(agree(&ty, &value, decode), "x.age", "out_of_range");
    // A missing field is reported at the object that lacks it.
    let value = json!({"name": "Ada", "address": {"street": "Main"}});
    assert_invalid(agree(&ty, &value, decode), "x.address", "missing_field");
    let value = json!({"address": {"street": "Main", "zip": "1"}});
    assert_invalid(agree(&ty, &value, decode), "x", "missing_field");
    // Unknown fields, all of them, at the object that has them, in the order they came.
    let value = json!({"name": "Ada", "address": {"street": "Main", "zip": "1", "city": "X", "box": 1}});
    let error = agree(&ty, &value, decode).unwrap_err();
    assert_eq!(
        error,
        ToolError::InvalidArgument {
            name: "x.address".into(),
            reason: Box::new(Reason::UnknownFields { fields: vec!["city".into(), "box".into()] }),
        }
    );
    for value in [json!(null), json!([]), json!("Ada")] {
        assert_invalid(agree(&ty, &value, decode), "x", "expected_object");
    }
    let source = json!({"name": "Ada", "address": {"street": "Main", "zip": "1"}});
    let user: User<'_> = decode_arg(&source, "user").unwrap();
    assert!(std::ptr::eq(
        user.address.street.as_ptr(),
        source["address"]["street"].as_str().unwrap().as_ptr()
    ));
    let source = json!({"name": "Ada", "address": {"street": "Main"}});
    let error = decode_arg::<User<'_>>(&source, "user").unwrap_err();
    assert_eq!(error.to_string(), r#"user.address: missing required field "zip""#);
}

/// A local unit-only enum, decoded the way generated code decodes it.
#[derive(Debug, PartialEq)]
enum Color {
    Red,
    Green,
}

impl<'a> FromArg<'a> for Color {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        match <&str>::from_arg(value, depth)? {
            "red" => Ok(Color::Red),
            "green" => Ok(Color::Green),
            _ => Err(ArgError::new(Reason::not_in_enum(value, vec!["red".into(), "green".into()]))),
        }
    }
}

#[test]
fn unit_enums() {
    let ty = Type::enumeration(["red", "green"]);
    assert_eq!(agree_as::<Color>(&ty, &json!("red")).unwrap(), Color::Red);
    assert_eq!(agree_as::<Color>(&ty, &json!("green")).unwrap(), Color::Green);
    for value in [json!("Red"), json!(""), json!("blue")] {
        assert_invalid(agree_as::<Color>(&ty, &value), "x", "not_in_enum");
    }
    for value in [json!(null), json!(0), json!(["red"])] {
        assert_invalid(agree_as::<Color>(&ty, &value), "x", "expected_string");
    }
    let error = validate(&ty, &json!("blue"), 0).unwrap_err().into_tool_error("color");
    assert_eq!(error.to_string(), r#"color: "blue" is not one of "red", "green""#);
}

#[test]
fn data_enums_validate_against_their_branches() {
    let shape = Type::OneOf(vec![
        Type::Object(vec![Param::new("circle", Type::Object(vec![Param::new("radius", Type::number())]))]),
        Type::Const("point".to_owned()),
    ]);
    assert_eq!(
        validate(&shape, &json!({"circle": {"radius": 1}}), 0).unwrap(),
        json!({"circle": {"radius": 1}})
    );
    assert_eq!(validate(&shape, &json!("point"), 0).unwrap(), json!("point"));
    for value in [json!("line"), json!({"square": {}}), json!({"circle": {"radius": "1"}}), json!(null)] {
        assert!(validate(&shape, &value, 0).is_err(), "{value} accepted");
    }
}

#[test]
fn deserialize_fallback() {
    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Money {
        units: i64,
        currency: String,
    }
    let money: Money = deserialize_arg(&json!({"units": 5, "currency": "EUR"}), 0).unwrap();
    assert_eq!(money, Money { units: 5, currency: "EUR".into() });
    let error = deserialize_arg::<Money>(&json!({"units": "5"}), 0).unwrap_err();
    assert_eq!(reason_kind(&error.reason), "invalid");
    assert!(error.to_string().starts_with("$: invalid type: string \"5\""), "{error}");
}

#[cfg(feature = "chrono")]
#[test]
fn chrono_dates() {
    use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, Utc};
    let date: NaiveDate = decode_arg(&json!("2024-02-29"), "day").unwrap();
    assert_eq!(date, NaiveDate::from_ymd_opt(2024, 2, 29).unwrap());
    for value in [json!("2023-02-29"), json!(""), json!("29.02.2024")] {
        assert_invalid(decode_arg::<NaiveDate>(&value, "day"), "day", "invalid_date");
    }
    assert_invalid(decode_arg::<NaiveDate>(&json!(20240229), "day"), "day", "expected_string");
    assert_eq!(
        decode_arg::<NaiveDate>(&json!("2023-02-29"), "day").unwrap_err().to_string(),
        r#"day: "2023-02-29" is not a valid date (YYYY-MM-DD, e.g. "2025-06-01")"#
    );
    // A date where a date-time is expected names the form and an example (#42 item 5).
    assert_eq!(
        decode_arg::<chrono::DateTime<chrono::Utc>>(&json!("2025-06-01"), "as_of").unwrap_err().to_string(),
        r#"as_of: "2025-06-01" is not a valid date-time (RFC 3339 with a time zone, e.g. "2025-06-01T10:00:00Z")"#
    );
    assert!(decode_arg::<NaiveTime>(&json!("12:30:00"), "t").is_ok());
    assert_invalid(decode_arg::<NaiveTime>(&json!("25:00:00"), "t"), "t", "invalid_date");
    assert!(decode_arg::<NaiveDateTime>(&json!("2024-01-01T12:00:00"), "t").is_ok());
    assert!(decode_arg::<NaiveDateTime>(&json!("2024-01-01T12:00:00Z"), "t").is_ok());
    assert!(decode_arg::<DateTime<FixedOffset>>(&json!("2024-01-01T12:00:00+02:00"), "t").is_ok());
    let utc: DateTime<Utc> = decode_arg(&json!("2024-01-01T12:00:00+02:00"), "t").unwrap();
    assert_eq!(utc.to_rfc3339(), "2024-01-01T10:00:00+00:00");
    assert_invalid(decode_arg::<DateTime<Utc>>(&json!("2024-01-01"), "t"), "t", "invalid_date");
}

#[cfg(feature = "uuid")]
#[test]
fn uuids() {
    let id: uuid::Uuid = decode_arg(&json!("67e55044-10b1-426f-9247-bb680e5fe0c8"), "id").unwrap();
    assert_eq!(id.to_string(), "67e55044-10b1-426f-9247-bb680e5fe0c8");
    assert_invalid(decode_arg::<uuid::Uuid>(&json!("not-a-uuid"), "id"), "id", "invalid_format");
    assert_invalid(decode_arg::<uuid::Uuid>(&json!(null), "id"), "id", "expected_string");
}

// ---------------------------------------------------------------------------------------
// Depth

fn assert_too_deep<T: Debug>(result: Result<T, ToolError>) {
    match result {
        Err(ToolError::InvalidArgument { reason, .. }) => {
            assert_eq!(*reason, Reason::TooDeep { limit: MAX_DEPTH })
        }
        Err(other) => panic!("expected TooDeep, got {other}"),
        // Do not format (or drop recursively) a deep value.
        Ok(_) => panic!("a too-deep value was accepted"),
    }
}

#[test]
fn a_100000_deep_value_is_too_deep_not_a_stack_overflow() {
    let deep = deep_array(100_000);
    assert_too_deep(decode_arg::<Value>(&deep, "v"));
    assert_too_deep(decode_arg::<Vec<Value>>(&deep, "v"));
    assert_too_deep(decode_arg::<Option<Value>>(&deep, "v"));
    assert_too_deep(decode_arg::<Vec<Vec<Vec<Value>>>>(&deep, "v"));
    assert_too_deep(deserialize_arg::<Value>(&deep, 0).map_err(|e| e.into_tool_error("v")));
    assert_too_deep(validate(&Type::Any, &deep, 0).map_err(|e| e.into_tool_error("v")));
    assert_too_deep(validate(&Type::array(Type::Any), &deep, 0).map_err(|e| e.into_tool_error("v")));
    let tool = DynTool::new(
        Tool::new("deep")
            .param(Param::new("v", Type::Any))
            .param(Param::new("w", Type::array(Type::Any)).optional()),
        |_| Ok(json!("called")),
    );
    // Not `json!({"v": deep})`: the macro serializes its operands, recursively.
    let mut args = Value::Object(Map::from_iter([("v".to_owned(), deep)]));
    let result = tool.run(&args);
    assert!(
        matches!(result, Err(ToolError::InvalidArgument { ref name, ref reason }) if name == "v" && matches!(**reason, Reason::TooDeep { .. }))
    );
    let deep = args["v"].take();
    args["v"] = json!(1);
    args["w"] = deep;
    let result = tool.run(&args);
    assert!(
        matches!(result, Err(ToolError::InvalidArgument { ref name, ref reason }) if name == "w[0]" && matches!(**reason, Reason::TooDeep { .. }))
    );
    dismantle(args);
}

#[test]
fn a_deep_map_value_is_too_deep() {
    let mut deep = deep_array(100_000);
    let mut map = Map::new();
    map.insert("k".into(), deep.take());
    let object = Value::Object(map);
    assert_too_deep(decode_arg::<Map<String, Value>>(&object, "m"));
    assert_too_deep(decode_arg::<HashMap<String, Value>>(&object, "m"));
    assert_too_deep(
        validate(&Type::Map(Box::new(Type::Any)), &object, 0).map_err(|e| e.into_tool_error("m")),
    );
    dismantle(object);
}

#[test]
fn depth_limit_boundary() {
    // serde_json parses at most 127 nested arrays; the decoders accept exactly those.
    let ok = deep_array(MAX_DEPTH - 1);
    assert!(decode_arg::<Value>(&ok, "v").is_ok());
    assert!(decode_arg::<Vec<Value>>(&ok, "v").is_ok());
    assert!(validate(&Type::Any, &ok, 0).is_ok());
    let text = serde_json::to_string(&ok).unwrap();
    assert!(serde_json::from_str::<Value>(&text).is_ok());
    let too_deep = deep_array(MAX_DEPTH);
    assert_too_deep(decode_arg::<Value>(&too_deep, "v"));
    assert_too_deep(decode_arg::<Vec<Value>>(&too_deep, "v"));
    assert_too_deep(validate(&Type::Any, &too_deep, 0).map_err(|e| e.into_tool_error("v")));
    let text = serde_json::to_string(&too_deep).unwrap();
    assert!(serde_json::from_str::<Value>(&text).is_err());
}

// ---------------------------------------------------------------------------------------
// Error summaries

#[test]
fn errors_carry_a_bounded_summary_of_the_value() {
    let long = "x".repeat(1000);
    let error = decode_arg::<u8>(&json!(long), "n").unwrap_err();
    let ToolError::InvalidArgument { reason, .. } = &error else { panic!("{error:?}") };
    let Reason::ExpectedInteger { value } = &**reason else { panic!("{error:?}") };
    let kept = value.as_str().unwrap();
    assert_eq!(kept.chars().count(), 121, "120 characters and an ellipsis");
    assert!(kept.ends_with('…'));
    let big: Vec<u32> = (0..100).collect();
    let error = decode_arg::<String>(&json!(big), "s").unwrap_err();
    assert_eq!(error.to_string(), r#"s: expected a string, got [0,1,2,3,4,5,6,7,"… 92 more"]"#);
    let nested = json!({"a": {"b": {"c": {"d": 1}}}});
    let error = decode_arg::<bool>(&nested, "b").unwrap_err();
    assert_eq!(error.to_string(), r#"b: expected a boolean, got {"a":{"b":{"c":"{object with 1 keys}"}}}"#);
}
