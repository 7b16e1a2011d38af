//! The schema is the contract: property tests over every fixture tool.
//!
//! * Values generated from each parameter's IR type (valid by construction) are accepted
//!   by the generated dispatcher. Recursive types (references to the tool's definitions)
//!   are generated a few levels deep, then by the shortest way out.
//! * Arbitrary JSON near the schema (wrong types, extra and missing keys, nulls, huge
//!   numbers, floats with zero fraction, deep nesting, odd Unicode) is accepted by the
//!   generated decoders exactly when the IR-driven generic decoder
//!   (`toolcall_runtime::__private::decode_arguments`) accepts it.
//! * `run_bytes` returns on any bytes, for every tool.
//!
//! Parameters whose IR cannot say everything the Rust type checks are listed once, in
//! [`EXCEPTIONS`], with the reason; the test derives the list and compares it, so a new
//! exception is a reviewed change.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use proptest::prelude::*;
use serde_json::{Number, Value, json};
use toolcall_fixtures::toolset;
use toolcall_runtime::__private::decode_arguments;
use toolcall_runtime::ir::{Definition, Param, Tool, Type, find_definition};
use toolcall_runtime::{Reason, ToolError};

/// Why a parameter's IR is not the whole contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Gap {
    /// A `format` (date, uuid, ip address) the IR validator does not parse.
    Format,
    /// `{}`: a foreign type the generated code decodes fully, or `serde_json::Value`
    /// (which agrees, but the IR cannot tell it from the foreign type).
    Untyped,
    /// `f32`: the IR says "number", the Rust type also bounds it to ±3.4e38.
    NarrowFloat,
    /// An integer with no bound and no Rust width in the IR (only hand-built IR has
    /// these; every generated integer carries its type's width).
    UnboundedInteger,
}

/// Every parameter the agreement test leaves out, with its reason. Derived by
/// [`gaps`]; the test asserts the derived list equals this one.
const EXCEPTIONS: &[(&str, &str, Gap)] = &[
    ("ip", "address", Gap::Format),
    ("maps", "raw", Gap::Untyped),
    ("numbers", "a", Gap::NarrowFloat),
    ("untyped", "borrowed", Gap::Untyped),
    ("untyped", "value", Gap::Untyped),
    ("wait", "retry", Gap::Untyped),
    ("wait", "timeout", Gap::Untyped),
];

/// f32 parameters, by (tool, param): the IR cannot tell them from f64.
const F32_PARAMS: &[(&str, &str)] = &[("numbers", "a")];

fn tools() -> &'static [Tool] {
    static TOOLS: OnceLock<Vec<Tool>> = OnceLock::new();
    TOOLS.get_or_init(|| {
        let generated = toolcall_build::Builder::new()
            .crate_dir(env!("CARGO_MANIFEST_DIR"))
            .generate()
            .expect("the fixture crate generates");
        generated.modules.iter().flat_map(|m| m.tools.iter().map(|t| t.ir.clone())).collect()
    })
}

fn gap_of(tool: &Tool, param: &Param) -> Option<Gap> {
    if F32_PARAMS.contains(&(tool.name.as_str(), param.name.as_str())) {
        return Some(Gap::NarrowFloat);
    }
    type_gap(&param.ty, &tool.defs, &mut Vec::new())
}

/// The first gap inside `ty`, following references into `defs` (each once).
fn type_gap<'t>(ty: &'t Type, defs: &'t [Definition], seen: &mut Vec<&'t str>) -> Option<Gap> {
    match ty {
        Type::Any => Some(Gap::Untyped),
        Type::String { format: Some(_), .. } => Some(Gap::Format),
        Type::Integer { maximum: None, width: None, .. } => Some(Gap::UnboundedInteger),
        Type::Ref(name) if seen.contains(&name.as_str()) => None,
        Type::Ref(name) => {
            seen.push(name);
            type_gap(&find_definition(defs, name)?.ty, defs, seen)
        }
        _ => ty.children().into_iter().find_map(|child| type_gap(child, defs, seen)),
    }
}

/// Every (tool, param, gap) of the fixture crate, sorted.
fn gaps() -> Vec<(String, String, Gap)> {
    let mut out: Vec<(String, String, Gap)> = tools()
        .iter()
        .flat_map(|t| {
            t.params.iter().filter_map(|p| gap_of(t, p).map(|g| (t.name.clone(), p.name.clone(), g)))
        })
        .collect();
    out.sort();
    out
}

#[test]
fn the_exception_list_is_complete_and_reviewed() {
    let expected: Vec<(String, String, Gap)> =
        EXCEPTIONS.iter().map(|(t, p, g)| ((*t).to_owned(), (*p).to_owned(), *g)).collect();
    assert_eq!(gaps(), expected);
}

fn is_excepted(tool: &str, param: &str) -> bool {
    EXCEPTIONS.iter().any(|(t, p, _)| *t == tool && *p == param)
}

/// Whether decoding refused the arguments. Tools that run for real for valid input may
/// end in `Failed`/`Panicked` on purpose, or in a tool's own `ToolFailure` (a retry is a
/// call error the model can fix, but the body ran: the decoder accepted the arguments).
fn is_argument_error(result: &Result<Value, ToolError>) -> bool {
    matches!(result, Err(e) if e.is_call_error() && !matches!(e, ToolError::Reported(_)))
}

// ---------------------------------------------------------------------------------------
// Valid values from the IR

/// How many references a value follows freely; past them it takes the shortest way out.
const FREE_REFS: u32 = 3;

/// Where a generated value is: the tool's definitions, how many more references may be
/// followed freely (at 0 arrays take their fewest items, optional slots are left out,
/// nullable ones are `null` and unions take a branch without references, so a recursive
/// value ends), and the JSON depth.
#[derive(Clone, Copy)]
struct Gen {
    defs: &'static [Definition],
    refs: u32,
    depth: u32,
}

impl Gen {
    fn of(tool: &'static Tool) -> Gen {
        Gen { defs: &tool.defs, refs: FREE_REFS, depth: 0 }
    }

    /// The shortest way out of a recursive value.
    fn ending(self) -> bool {
        self.refs == 0
    }

    fn deeper(self) -> Gen {
        Gen { depth: self.depth + 1, ..self }
    }
}

/// Whether a reference is anywhere inside `ty` (not following references).
fn has_ref(ty: &Type) -> bool {
    matches!(ty, Type::Ref(_)) || ty.children().into_iter().any(has_ref)
}

fn valid(ty: &Type, g: Gen) -> BoxedStrategy<Value> {
    match ty {
        Type::Any | Type::Null => Just(Value::Null).boxed(),
        Type::Boolean => any::<bool>().prop_map(Value::Bool).boxed(),
        Type::Integer { minimum, maximum, non_zero, as_string, .. } => {
            let lo = minimum.unwrap_or(i64::MIN / 2).max(-(1 << 53));
            let hi = maximum.unwrap_or(i64::MAX / 2).min(1 << 53);
            let (non_zero, as_string) = (*non_zero, *as_string);
            (lo..=hi)
                .prop_filter("non-zero", move |v| !non_zero || *v != 0)
                .prop_map(move |v| if as_string { Value::String(v.to_string()) } else { json!(v) })
                .boxed()
        }
        Type::Number { minimum, maximum } => {
            let lo = minimum.unwrap_or(-1.0e6);
            let hi = maximum.unwrap_or(1.0e6);
            (lo..=hi).prop_map(|f| json!(f)).boxed()
        }
        Type::String { min_length, max_length, .. } => {
            let lo = min_length.unwrap_or(0) as usize;
            let hi = max_length.map_or(lo + 8, |m| m as usize);
            proptest::collection::vec(any::<char>(), lo..=hi)
                .prop_map(|chars| Value::String(chars.into_iter().collect()))
                .boxed()
        }
        Type::Const(value) => Just(Value::String(value.clone())).boxed(),
        Type::Enum(variants) => {
            let values: Vec<Value> = variants.iter().map(|v| Value::String(v.value.clone())).collect();
            proptest::sample::select(values).boxed()
        }
        Type::Array { items, min_items, max_items, unique } => {
            let lo = min_items.unwrap_or(0) as usize;
            let hi = if g.ending() { lo } else { max_items.map_or(lo + 3, |m| m as usize) };
            let unique = *unique;
            if hi == 0 {
                return Just(Value::Array(Vec::new())).boxed();
            }
            proptest::collection::vec(valid(items, g.deeper()), lo..=hi)
                .prop_filter("unique", move |items| !unique || all_distinct(items))
                .prop_map(Value::Array)
                .boxed()
        }
        Type::Tuple(items) => {
            let parts: Vec<BoxedStrategy<Value>> = items.iter().map(|t| valid(t, g.deeper())).collect();
            parts.prop_map(Value::Array).boxed()
        }
        Type::Object(params) => valid_object(params, g.deeper()),
        Type::Map(_) if g.ending() => Just(json!({})).boxed(),
        Type::Map(values) => proptest::collection::btree_map("[a-z]{1,6}", valid(values, g.deeper()), 0..3)
            .prop_map(|m| Value::Object(m.into_iter().collect()))
            .boxed(),
        Type::Nullable(_) if g.ending() => Just(Value::Null).boxed(),
        Type::Nullable(inner) => prop_oneof![Just(Value::Null), valid(inner, g)].boxed(),
        Type::Described(inner, _) => valid(inner, g),
        Type::AnyOf(branches) | Type::OneOf(branches) => {
            let plain: Vec<&Type> = branches.iter().filter(|b| !has_ref(b)).collect();
            let chosen: Vec<&Type> =
                if g.ending() && !plain.is_empty() { plain } else { branches.iter().collect() };
            let options: Vec<BoxedStrategy<Value>> = chosen.into_iter().map(|b| valid(b, g)).collect();
            proptest::strategy::Union::new(options).boxed()
        }
        // A definition without a finite value would never end: `null` (rejected) stops it.
        Type::Ref(_) if g.depth > 64 => Just(Value::Null).boxed(),
        Type::Ref(name) => match find_definition(g.defs, name) {
            Some(def) => {
                let name = name.clone();
                valid(&def.ty, Gen { refs: g.refs.saturating_sub(1), ..g })
                    .prop_map(move |value| {
                        reached(&name);
                        value
                    })
                    .boxed()
            }
            None => Just(Value::Null).boxed(),
        },
    }
}

thread_local! {
    /// The definitions values were generated from on this thread, while a test records.
    static REACHED: RefCell<Option<BTreeSet<String>>> = const { RefCell::new(None) };
}

fn reached(definition: &str) {
    REACHED.with(|reached| {
        if let Some(set) = reached.borrow_mut().as_mut() {
            set.insert(definition.to_owned());
        }
    });
}

fn all_distinct(items: &[Value]) -> bool {
    items.iter().enumerate().all(|(i, a)| items[..i].iter().all(|b| a != b))
}

/// An object with every required property and a random subset of the optional ones (none
/// on the way out of a recursive value).
fn valid_object(params: &[Param], g: Gen) -> BoxedStrategy<Value> {
    let slots: Vec<BoxedStrategy<Option<(String, Value)>>> = params
        .iter()
        .filter(|p| !(p.optional && g.ending()))
        .map(|p| {
            let name = p.name.clone();
            let value = valid(&p.ty, g).prop_map(move |v| Some((name.clone(), v)));
            if p.optional { prop_oneof![Just(None), value].boxed() } else { value.boxed() }
        })
        .collect();
    slots.prop_map(|pairs| Value::Object(pairs.into_iter().flatten().collect())).boxed()
}

/// Valid arguments for `tool`, excepted parameters included (they get values the IR
/// cannot vouch for, so tools with exceptions are left out of this property).
fn valid_args(tool: &'static Tool) -> BoxedStrategy<Value> {
    valid_object(&tool.params, Gen::of(tool))
}

fn faithful_tools() -> Vec<&'static Tool> {
    tools().iter().filter(|t| t.params.iter().all(|p| !is_excepted(&t.name, &p.name))).collect()
}

// ---------------------------------------------------------------------------------------
// JSON near the schema

/// Every integer type's edges and the values just past them, as JSON numbers: 0, ±1, the
/// 8- to 64-bit limits, ±(2^53 − 1) and ±2^53 (the schema's safe range), 2^63 and
/// `u64::MAX`. Values past `u64::MAX` can only be floats in JSON.
fn edge_integers() -> Vec<Value> {
    let mut signed: Vec<i128> = vec![0, 1, -1, 1 << 53, (1 << 53) - 1, -(1 << 53), -((1 << 53) - 1)];
    for (min, max) in [
        (i128::from(i8::MIN), i128::from(i8::MAX)),
        (i128::from(i16::MIN), i128::from(i16::MAX)),
        (i128::from(i32::MIN), i128::from(i32::MAX)),
        (i128::from(i64::MIN), i128::from(i64::MAX)),
        (0, i128::from(u8::MAX)),
        (0, i128::from(u16::MAX)),
        (0, i128::from(u32::MAX)),
        (0, i128::from(u64::MAX)),
    ] {
        signed.extend([min, min - 1, max, max + 1]);
    }
    let mut out: Vec<Value> = signed
        .into_iter()
        .filter_map(|v| {
            i64::try_from(v).ok().map(Value::from).or_else(|| u64::try_from(v).ok().map(Value::from))
        })
        .collect();
    out.extend([json!(1.8446744073709552e19), json!(-9.3e18), json!(9.3e18)]);
    out
}

/// The same edges written as decimal strings (the string-integer wire), and long text
/// (the deterministic sweep adds 100,000 characters; random cases stay cheap).
fn edge_strings() -> Vec<String> {
    let mut out: Vec<String> = edge_integers().iter().map(|v| v.to_string()).collect();
    out.extend(["18446744073709551616".to_owned(), "-9223372036854775809".to_owned(), "00".to_owned()]);
    out.push("x".repeat(1_000));
    out
}

fn odd_string() -> BoxedStrategy<String> {
    prop_oneof![
        4 => "[a-z]{0,6}",
        1 => Just(String::new()),
        1 => Just("\u{202e}\u{0}\u{ffff}日本é".to_owned()),
        1 => Just("-1".to_owned()),
        1 => Just("1.5".to_owned()),
        3 => proptest::sample::select(edge_strings()),
        2 => any::<String>(),
    ]
    .boxed()
}

/// Float edges: ±0.0, the smallest subnormal, ±1e308, integral floats at the safe-integer
/// edge, and a half.
fn edge_floats() -> Vec<Value> {
    [
        0.0,
        -0.0,
        5e-324,
        -5e-324,
        1e308,
        -1e308,
        9007199254740992.0,
        -9007199254740992.0,
        1e15,
        3.4e38,
        3.5e38,
        0.5,
    ]
    .into_iter()
    .filter_map(|f| Number::from_f64(f).map(Value::Number))
    .collect()
}

fn odd_number() -> BoxedStrategy<Value> {
    prop_oneof![
        2 => any::<i64>().prop_map(|v| json!(v)),
        2 => any::<u64>().prop_map(|v| json!(v)),
        2 => (-300i64..300).prop_map(|v| json!(v)),
        2 => (-300i64..300).prop_map(|v| json!(v as f64)),
        2 => any::<f64>().prop_filter_map("finite", |f| Number::from_f64(f).map(Value::Number)),
        6 => proptest::sample::select(edge_integers()),
        3 => proptest::sample::select(edge_floats()),
    ]
    .boxed()
}

fn near_json() -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        odd_number(),
        odd_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map(odd_string(), inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
    .boxed()
}

/// A mutation of valid arguments: a parameter replaced by arbitrary JSON, dropped, or an
/// unknown key added.
fn near_args(tool: &'static Tool) -> BoxedStrategy<Value> {
    let names: Vec<String> = tool.params.iter().map(|p| p.name.clone()).collect();
    let count = names.len().max(1);
    (valid_args(tool), 0..count, near_json(), 0..4u8)
        .prop_map(move |(base, index, noise, how)| {
            let Value::Object(mut map) = base else { return base };
            let key = names.get(index).cloned().unwrap_or_else(|| "extra".to_owned());
            match how {
                0 => {
                    map.insert(key, noise);
                }
                1 => {
                    map.remove(&key);
                }
                2 => {
                    map.insert(format!("{key}_unknown"), noise);
                }
                _ => {
                    map.insert(key, Value::Null);
                }
            }
            Value::Object(map)
        })
        .boxed()
}

/// Every edge value in every parameter of every faithful tool, deterministically: the
/// generated decoders and the IR decoder accept exactly the same ones. Boundaries are
/// where they disagree, and random search reaches a given boundary of a given parameter
/// about once in thousands of cases; this sweep reaches all of them in every run.
#[test]
fn every_edge_value_agrees_in_every_parameter() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut edges: Vec<Value> = edge_integers();
    edges.extend(edge_floats());
    edges.extend(edge_strings().into_iter().map(Value::String));
    edges.push(Value::String("x".repeat(100_000)));
    edges.extend([Value::Null, json!(true), json!([]), json!({}), json!([0]), json!({"": 0})]);
    let mut runner = TestRunner::deterministic();
    let (mut checked, mut failures) = (0, Vec::new());
    for tool in faithful_tools() {
        let Ok(tree) = valid_args(tool).new_tree(&mut runner) else { continue };
        let base = tree.current();
        for param in &tool.params {
            for edge in &edges {
                let mut args = base.clone();
                args[param.name.as_str()] = edge.clone();
                let generated = toolset::ALL.run(&tool.name, &args);
                let generic = decode_arguments(tool, &args);
                checked += 1;
                if is_argument_error(&generated) == generic.is_ok() {
                    let shown = edge.to_string().chars().take(40).collect::<String>();
                    failures.push(format!(
                        "{}.{} = {shown}: generated {generated:?}, IR {:?}",
                        tool.name,
                        param.name,
                        generic.map(|_| ())
                    ));
                }
            }
        }
    }
    assert!(checked > 2000, "{checked} edge calls");
    assert!(failures.is_empty(), "{} disagreements:\n{}", failures.len(), failures.join("\n"));
}

/// Every definition of every tool is generated from, so no shape the IR describes is out
/// of the properties' reach: in particular an internally tagged newtype variant over a
/// referenced struct (#35), which is a definition of its own (the tag, then the struct's
/// properties), and the same variant over a flat struct, written out in place.
#[test]
fn the_valid_values_reach_every_definition_and_tagged_newtype_variants() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    fn reachable<'t>(ty: &'t Type, defs: &'t [Definition], out: &mut BTreeSet<String>) {
        if let Type::Ref(name) = ty
            && out.insert(name.clone())
            && let Some(def) = find_definition(defs, name)
        {
            reachable(&def.ty, defs, out);
        }
        ty.children().into_iter().for_each(|child| reachable(child, defs, out));
    }
    let mut runner = TestRunner::deterministic();
    let mut samples: BTreeMap<&str, Vec<Value>> = BTreeMap::new();
    let mut missed = Vec::new();
    for tool in faithful_tools() {
        let mut expected = BTreeSet::new();
        tool.params.iter().for_each(|p| reachable(&p.ty, &tool.defs, &mut expected));
        REACHED.with(|r| *r.borrow_mut() = Some(BTreeSet::new()));
        let strategy = valid_args(tool);
        let values: Vec<Value> =
            (0..300).map(|_| strategy.new_tree(&mut runner).unwrap().current()).collect();
        let got = REACHED.with(|r| r.borrow_mut().take()).unwrap_or_default();
        if got != expected {
            missed.push(format!(
                "{}: {:?} never generated",
                tool.name,
                expected.difference(&got).collect::<Vec<_>>()
            ));
        }
        samples.insert(&tool.name, values);
    }
    assert!(missed.is_empty(), "{}", missed.join("\n"));
    let folder = tools().iter().find(|t| t.name == "folder_tree").expect("the fixture has folder_tree");
    assert!(folder.definition("Folder_sub").is_some(), "the tagged variant is a definition: {folder:?}");
    // The variant's struct fields beside the tag, recursive and flat.
    let beside = |tool: &str, tag: (&str, &str), field: &str| {
        samples[tool].iter().any(|args| {
            let mut stack = vec![args];
            while let Some(value) = stack.pop() {
                if value.get(tag.0) == Some(&json!(tag.1)) && value.get(field).is_some() {
                    return true;
                }
                match value {
                    Value::Array(items) => stack.extend(items),
                    Value::Object(map) => stack.extend(map.values()),
                    _ => {}
                }
            }
            false
        })
    };
    assert!(beside("folder_tree", ("kind", "sub"), "entries"), "no sub-folder generated");
    assert!(beside("item", ("type", "Stat"), "size"), "no flat struct beside its tag generated");
    assert!(beside("stat_and_item", ("type", "Stat"), "size"));
}

/// Recursive values at and past the depth limit: both decoders accept a chain nested to
/// just under it and refuse one past it, and agree on every depth between.
#[test]
fn recursive_values_agree_at_every_depth() {
    let tool = tools().iter().find(|t| t.name == "sum_chain").expect("the fixture has sum_chain");
    assert!(tool.definition("Chain").is_some(), "{tool:?}");
    let chain =
        |depth: usize| (0..depth).fold(json!({"value": 1}), |next, _| json!({"value": 1, "next": next}));
    for depth in [0, 1, 2, 10, 100, 125, 126, 127, 128, 129, 200] {
        let args = json!({ "chain": chain(depth) });
        let generated = toolset::ALL.run("sum_chain", &args);
        let generic = decode_arguments(tool, &args);
        assert_eq!(generated.is_ok(), generic.is_ok(), "depth {depth}: {generated:?} / {generic:?}");
        if let Ok(sum) = &generated {
            assert_eq!(sum, &json!(depth + 1));
        }
    }
    assert!(toolset::ALL.run("sum_chain", &json!({"chain": chain(100)})).is_ok());
    assert!(toolset::ALL.run("sum_chain", &json!({"chain": chain(200)})).is_err());
    // A mistake deep inside is reported at its path by both.
    let mut bad = chain(3);
    bad["next"]["next"]["value"] = json!("x");
    let args = json!({ "chain": bad });
    let generated = toolset::ALL.run("sum_chain", &args).unwrap_err();
    let generic = decode_arguments(tool, &args).unwrap_err();
    assert_eq!(generated, generic);
    assert!(generated.to_string().starts_with("chain.next.next.value:"), "{generated}");
}

fn pick_tool() -> BoxedStrategy<&'static Tool> {
    proptest::sample::select(faithful_tools()).boxed()
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

/// Cases per property; CI runs this bounded number, `PROPTEST_CASES` raises it locally.
const CASES: u32 = 512;

proptest! {
    #![proptest_config(config(CASES))]

    #[test]
    fn values_valid_by_construction_are_accepted(
        (tool, args) in pick_tool().prop_flat_map(|t| (Just(t), valid_args(t)))
    ) {
        let result = toolset::ALL.run(&tool.name, &args);
        prop_assert!(!is_argument_error(&result), "{} rejected {args}: {result:?}", tool.name);
        prop_assert!(decode_arguments(tool, &args).is_ok(), "IR decoder rejected {args}");
    }

    #[test]
    fn generated_and_ir_decoders_agree_near_the_schema(
        (tool, args) in pick_tool().prop_flat_map(|t| (Just(t), near_args(t)))
    ) {
        let generated = toolset::ALL.run(&tool.name, &args);
        let generic = decode_arguments(tool, &args);
        prop_assert_eq!(
            !is_argument_error(&generated),
            generic.is_ok(),
            "{} on {}: generated {:?}, IR {:?}", tool.name, args, generated, generic
        );
        if let (Err(a), Err(b)) = (&generated, &generic) {
            // Both list the same problems: the same kinds, about the same arguments, in
            // the same order (unknown ones first, then declaration order).
            prop_assert_eq!(problems(a), problems(b), "{} on {}", tool.name, args);
        }
    }

    #[test]
    fn text_and_value_entry_points_agree(
        (tool, args) in pick_tool().prop_flat_map(|t| (Just(t), near_args(t))),
        pretty in any::<bool>(),
    ) {
        // The text path decodes straight from the text (one pass, no `Value`) where it
        // can; it answers exactly as parsing the text and running the value does.
        let text = if pretty { serde_json::to_string_pretty(&args) } else { serde_json::to_string(&args) };
        let text = text.unwrap();
        let by_text = toolset::ALL.run_json(&tool.name, &text);
        let parsed = toolcall_runtime::__private::parse_arguments(text.as_bytes()).unwrap();
        let by_value = toolset::ALL.run(&tool.name, &parsed);
        prop_assert_eq!(&by_text, &by_value, "{} on {}", tool.name, text);
        prop_assert_eq!(&toolset::ALL.run_bytes(&tool.name, text.as_bytes()), &by_value);
        let generic = decode_arguments(tool, &parsed);
        prop_assert_eq!(!is_argument_error(&by_text), generic.is_ok(), "{} on {}", tool.name, text);
    }

    #[test]
    fn a_repeated_key_is_refused_at_its_path_by_every_text_entry_point(
        (tool, args) in pick_tool().prop_flat_map(|t| (Just(t), valid_args(t))),
        target in 0..8usize,
        escape in any::<bool>(),
    ) {
        let (text, repeated) = with_repeated_key(&args, target, escape);
        let Some(path) = repeated else { return Ok(()) };
        let expected = ToolError::InvalidArgument { name: path, reason: Box::new(Reason::DuplicateKey {}) };
        let json = toolset::ALL.run_json(&tool.name, &text);
        prop_assert_eq!(json.as_ref().err(), Some(&expected), "{} on {}", tool.name, text);
        let bytes = toolset::ALL.run_bytes(&tool.name, text.as_bytes());
        prop_assert_eq!(bytes.as_ref().err(), Some(&expected), "{} on {}", tool.name, text);
        let parsed = toolcall_runtime::__private::parse_arguments(text.as_bytes());
        prop_assert_eq!(parsed.err(), Some(expected), "the IR path parses with the same reader");
    }

    #[test]
    fn run_bytes_returns_on_any_bytes(
        index in 0..64usize,
        bytes in proptest::collection::vec(any::<u8>(), 0..256),
    ) {
        let names: Vec<&str> = toolset::ALL.names().collect();
        let name = names.get(index % (names.len() + 1)).copied().unwrap_or("no_such_tool");
        let _ = toolset::ALL.run_bytes(name, &bytes);
    }

    #[test]
    fn run_returns_on_any_json_for_every_tool(index in 0..64usize, args in near_json()) {
        let names: Vec<&str> = toolset::ALL.names().collect();
        let name = names[index % names.len()];
        let _ = toolset::ALL.run(name, &args);
    }
}

/// Each problem of an error as (kind, argument it is about).
fn problems(error: &ToolError) -> Vec<(&'static str, String)> {
    let about = |e: &ToolError| match e {
        ToolError::MissingArgument(name) => name.clone(),
        ToolError::InvalidArgument { name, .. } => {
            name.split(['.', '[']).next().unwrap_or_default().to_owned()
        }
        ToolError::UnknownArguments(names) => {
            names.iter().map(|n| n.name.as_str()).collect::<Vec<_>>().join(",")
        }
        _ => String::new(),
    };
    match error {
        ToolError::Several(errors) => errors.iter().map(|e| (e.kind(), about(e))).collect(),
        error => vec![(error.kind(), about(error))],
    }
}

/// `value` as JSON text with the first key of its `target`-th non-empty object (document
/// order) written a second time, as `\uXXXX` escapes when `escape`; and that key's path
/// (`None` when `value` has fewer objects).
fn with_repeated_key(value: &Value, target: usize, escape: bool) -> (String, Option<String>) {
    fn write(
        value: &Value,
        path: &str,
        seen: &mut usize,
        target: usize,
        escape: bool,
        out: &mut String,
        found: &mut Option<String>,
    ) {
        match value {
            Value::Object(map) => {
                out.push('{');
                let repeat = !map.is_empty() && *seen == target;
                if !map.is_empty() {
                    *seen += 1;
                }
                for (i, (key, item)) in map.iter().enumerate() {
                    let child = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
                    if i > 0 {
                        out.push(',');
                    }
                    if repeat && i == 0 {
                        let copy = if escape {
                            let units: String = key.encode_utf16().map(|u| format!("\\u{u:04x}")).collect();
                            format!("\"{units}\"")
                        } else {
                            Value::String(key.clone()).to_string()
                        };
                        out.push_str(&format!("{copy}:{item},"));
                        *found = Some(child.clone());
                    }
                    out.push_str(&Value::String(key.clone()).to_string());
                    out.push(':');
                    write(item, &child, seen, target, escape, out, found);
                }
                out.push('}');
            }
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write(item, &format!("{path}[{i}]"), seen, target, escape, out, found);
                }
                out.push(']');
            }
            scalar => out.push_str(&scalar.to_string()),
        }
    }
    let (mut out, mut found, mut seen) = (String::new(), None, 0);
    write(value, "", &mut seen, target, escape, &mut out, &mut found);
    (out, found)
}

#[test]
fn the_repeated_key_writer_repeats_one_key_at_its_path() {
    let value = json!({"a": 1, "o": {"x": [{"k": true}]}});
    assert_eq!(
        with_repeated_key(&value, 0, false),
        (r#"{"a":1,"a":1,"o":{"x":[{"k":true}]}}"#.to_owned(), Some("a".to_owned()))
    );
    assert_eq!(with_repeated_key(&value, 2, true).1.as_deref(), Some("o.x[0].k"));
    assert!(with_repeated_key(&value, 2, true).0.contains(r#"{"\u006b":true,"k":true}"#));
    assert_eq!(with_repeated_key(&value, 3, false).1, None);
}

#[test]
fn huge_inputs_return_errors_not_crashes() {
    let names: Vec<&str> = toolset::ALL.names().collect();
    let big = "x".repeat(10 << 20);
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let mut built = Value::Null;
    for _ in 0..100_000 {
        built = Value::Array(vec![built]);
    }
    // Not `json!`: it would serialize `built` recursively.
    let deep_value = Value::Object(std::iter::once(("value".to_owned(), built)).collect());
    for name in names {
        let _ = toolset::ALL.run(name, &json!({"city": big}));
        assert!(matches!(toolset::ALL.run_json(name, &deep), Err(ToolError::InvalidJson(_))));
        assert!(toolset::ALL.run_bytes(name, b"{\"a\":\"\\ud800\"}").is_err());
        assert!(toolset::ALL.run_bytes(name, &[b'"', 0xff, b'"']).is_err());
        let _ = toolset::ALL.run(name, &deep_value);
    }
    dismantle(deep_value);
}

/// Drops a deep value without recursion.
fn dismantle(value: Value) {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

#[test]
fn a_panicking_tool_leaves_the_toolset_working() {
    let panicked = toolset::ALL.run("explode", &json!({"message": "on purpose"}));
    assert!(matches!(panicked, Err(ToolError::Panicked(_))), "{panicked:?}");
    let names: BTreeMap<&str, ()> = toolset::ALL.names().map(|n| (n, ())).collect();
    assert!(names.contains_key("get_weather"));
    assert_eq!(
        toolset::ALL.run("get_weather", &json!({"city": "Oslo"})),
        Ok(json!({"city": "Oslo", "days": 3, "temp": 21.5}))
    );
    let big = "y".repeat(10 << 20);
    let echoed = toolset::ALL.run("get_weather", &json!({"city": big})).unwrap();
    assert_eq!(echoed["city"].as_str().map(str::len), Some(10 << 20));
}
