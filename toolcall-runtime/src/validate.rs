//! The IR-driven decoder: a JSON value checked against an IR [`Type`] with the same
//! checks, and the same errors, as the generated decoders, and returned normalised
//! (integers as integers, defaults filled in). Runtime-built tools ([`DynTool`](crate::DynTool))
//! decode with it; a `ToolParam` override's [`Bounds`] are checked by it before the
//! generated decoder runs.

use serde_json::{Map, Number, Value};

use crate::arguments::arguments;
use crate::decode::{
    ArgError, MAX_DEPTH, check_depth, integer_value, is_decimal_integer, nesting_depth, object_and_unknown,
};
use crate::error::{Reason, ToolError, summarize};
use crate::ir::{Definition, Param, Tool, Type, Width, find_definition};

/// A range a `ToolParam` override puts on a parameter: checked on the JSON value before
/// it is decoded, by the IR validator's own checks, so both decoders refuse the same
/// values with the same errors.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bounds {
    /// An integer (the parameter's whole IR integer type, bounds included).
    Integer {
        /// Inclusive lower bound.
        min: Option<i64>,
        /// Inclusive upper bound.
        max: Option<i64>,
        /// Zero is refused.
        non_zero: bool,
        /// Travels as a decimal string.
        as_string: bool,
        /// The Rust type's own range.
        width: Option<Width>,
    },
    /// A number within `min..=max`.
    Number {
        /// Inclusive lower bound.
        min: Option<f64>,
        /// Inclusive upper bound.
        max: Option<f64>,
    },
    /// A string of `min..=max` characters.
    Chars {
        /// Fewest characters.
        min: Option<u64>,
        /// Most characters.
        max: Option<u64>,
    },
    /// An array of `min..=max` items.
    Items {
        /// Fewest items.
        min: Option<u64>,
        /// Most items.
        max: Option<u64>,
    },
}

/// Validates a whole arguments object against `tool`'s parameters and returns the
/// normalised arguments (defaults filled in, explicit nulls for non-nullable optional
/// parameters dropped).
pub fn decode_arguments(tool: &Tool, args: &Value) -> Result<Map<String, Value>, ToolError> {
    let known: Vec<&str> = tool.params.iter().map(|p| p.name.as_str()).collect();
    let (map, unknown) = arguments(args, &known)?;
    let mut out = Map::new();
    let mut errors: Vec<ToolError> = unknown.into_iter().collect();
    let cx = Cx::new(&tool.defs);
    for param in &tool.params {
        let slot = map.get(&param.name);
        match field(cx, param, slot, 0) {
            Ok(Some(value)) => {
                out.insert(param.name.clone(), value);
            }
            Ok(None) => {}
            Err(e) => errors.push(match (slot, &*e.reason) {
                (None, Reason::MissingField { .. }) => ToolError::MissingArgument(param.name.clone()),
                _ => e.into_tool_error(&param.name),
            }),
        }
    }
    match ToolError::all(errors) {
        None => Ok(out),
        Some(error) => Err(error),
    }
}

/// Validates `value` against `ty`, returning it normalised. `ty` alone has no definitions:
/// a [`Type::Ref`] in it fails ([`decode_arguments`] resolves a tool's). A reference adds
/// no depth: `depth` counts JSON nesting, as the generated decoders do.
pub fn validate(ty: &Type, value: &Value, depth: usize) -> Result<Value, ArgError> {
    check(Cx::new(&[]), ty, value, depth)
}

/// What validation carries besides the value: the definitions references resolve to, and
/// how many references were followed since the last step into the value. More steps than
/// there are definitions mean they refer to each other without any nesting between (no
/// value can end such a loop): an error, not a stack overflow.
#[derive(Clone, Copy)]
struct Cx<'d> {
    defs: &'d [Definition],
    hops: usize,
}

impl<'d> Cx<'d> {
    fn new(defs: &'d [Definition]) -> Self {
        Cx { defs, hops: 0 }
    }

    /// For a value one level into the current one.
    fn inner(self) -> Self {
        Cx { hops: 0, ..self }
    }

    /// The definition behind reference `name`, one hop further.
    fn follow(self, name: &str) -> Result<(Self, &'d Type), ArgError> {
        let def = find_definition(self.defs, name).ok_or_else(|| {
            ArgError::invalid(format!("the schema refers to `{name}`, which it does not define"))
        })?;
        if self.hops >= self.defs.len() {
            return Err(ArgError::invalid(format!(
                "the schema's `{name}` refers to itself with nothing in between: no value fits it"
            )));
        }
        Ok((Cx { hops: self.hops + 1, ..self }, &def.ty))
    }
}

fn check(cx: Cx<'_>, ty: &Type, value: &Value, depth: usize) -> Result<Value, ArgError> {
    let wrong = |reason: fn(Value) -> Reason| Err(ArgError::new(reason(summarize(value))));
    match ty {
        Type::Any => {
            if depth + nesting_depth(value, MAX_DEPTH) >= MAX_DEPTH {
                return Err(ArgError::new(Reason::TooDeep { limit: MAX_DEPTH }));
            }
            Ok(value.clone())
        }
        Type::Null if value.is_null() => Ok(Value::Null),
        Type::Null => wrong(|value| Reason::ExpectedNull { value }),
        Type::Boolean if value.is_boolean() => Ok(value.clone()),
        Type::Boolean => wrong(|value| Reason::ExpectedBoolean { value }),
        Type::Integer { minimum, maximum, non_zero, as_string, width } => {
            validate_integer(value, *minimum, *maximum, *non_zero, *as_string, *width)
        }
        Type::Number { minimum, maximum } => validate_number(value, *minimum, *maximum),
        Type::String { min_length, max_length, .. } => validate_string(value, *min_length, *max_length),
        Type::Const(expected) => validate_enum(value, std::slice::from_ref(expected)),
        Type::Enum(variants) => {
            let allowed: Vec<String> = variants.iter().map(|v| v.value.clone()).collect();
            validate_enum(value, &allowed)
        }
        Type::Array { items, min_items, max_items, unique } => {
            validate_array(cx.inner(), items, value, depth, (*min_items, *max_items), *unique)
        }
        Type::Tuple(items) => validate_tuple(cx.inner(), items, value, depth),
        Type::Object(params) => validate_object(cx.inner(), params, value, depth),
        Type::Map(values) => validate_map(cx.inner(), values, value, depth),
        Type::Nullable(_) if value.is_null() => Ok(Value::Null),
        Type::Nullable(inner) => check(cx, inner, value, depth),
        Type::Described(inner, _) => check(cx, inner, value, depth),
        Type::AnyOf(branches) | Type::OneOf(branches) => validate_branches(cx, branches, value, depth),
        Type::Ref(name) => {
            let (cx, ty) = cx.follow(name)?;
            check(cx, ty, value, depth)
        }
    }
}

fn validate_integer(
    value: &Value,
    minimum: Option<i64>,
    maximum: Option<i64>,
    non_zero: bool,
    as_string: bool,
    width: Option<Width>,
) -> Result<Value, ArgError> {
    // The accepted range: the schema's bounds within the Rust type's.
    let (type_min, type_max) = width.map_or((i128::MIN, i128::MAX), Width::range);
    let min = minimum.map_or(type_min, |m| i128::from(m).max(type_min));
    let max = maximum.map_or(type_max, |m| i128::from(m).min(type_max));
    let out_of_range = || {
        let show = |bound: i128, unbounded: i128| {
            if bound == unbounded { "unbounded".to_owned() } else { bound.to_string() }
        };
        ArgError::new(Reason::OutOfRange {
            value: summarize(value),
            min: if non_zero && minimum.is_none() && width.is_none() {
                "non-zero".to_owned()
            } else {
                show(min, i128::MIN)
            },
            max: show(max, i128::MAX),
        })
    };
    let number = match (as_string, value) {
        (true, Value::String(text)) => {
            if !is_decimal_integer(text) {
                return Err(ArgError::new(Reason::ExpectedInteger { value: summarize(value) }));
            }
            text.parse::<i128>().map_err(|_| out_of_range())?
        }
        _ => integer_value(value).map_err(|e| match *e.reason {
            Reason::OutOfRange { .. } => out_of_range(),
            _ => e,
        })?,
    };
    if number < min || number > max || (non_zero && number == 0) {
        return Err(out_of_range());
    }
    let normalised = match (as_string, i64::try_from(number), u64::try_from(number)) {
        (true, ..) => Value::String(number.to_string()),
        (false, Ok(i), _) => Value::Number(Number::from(i)),
        (false, _, Ok(u)) => Value::Number(Number::from(u)),
        (false, Err(_), Err(_)) => value.clone(),
    };
    Ok(normalised)
}

fn validate_number(value: &Value, minimum: Option<f64>, maximum: Option<f64>) -> Result<Value, ArgError> {
    let number =
        value.as_f64().ok_or_else(|| ArgError::new(Reason::ExpectedNumber { value: summarize(value) }))?;
    let below = minimum.is_some_and(|m| number < m);
    let above = maximum.is_some_and(|m| number > m);
    if below || above {
        let show = |b: Option<f64>| b.map_or_else(|| "unbounded".to_owned(), |b| b.to_string());
        return Err(ArgError::new(Reason::OutOfRange {
            value: summarize(value),
            min: show(minimum),
            max: show(maximum),
        }));
    }
    Ok(value.clone())
}

fn validate_string(
    value: &Value,
    min_length: Option<u64>,
    max_length: Option<u64>,
) -> Result<Value, ArgError> {
    let text =
        value.as_str().ok_or_else(|| ArgError::new(Reason::ExpectedString { value: summarize(value) }))?;
    let len = text.chars().count() as u64;
    let short = min_length.is_some_and(|m| len < m);
    let long = max_length.is_some_and(|m| len > m);
    if short || long {
        let expected = match (min_length, max_length) {
            (Some(a), Some(b)) if a == b => {
                format!("exactly {a} {}", crate::render::plural(&a.to_string(), "character"))
            }
            (a, b) => format!(
                "{} to {} characters",
                a.unwrap_or(0),
                b.map_or_else(|| "any number of".to_owned(), |b| b.to_string())
            ),
        };
        return Err(ArgError::new(Reason::WrongLength { value: summarize(value), expected }));
    }
    Ok(value.clone())
}

fn validate_enum(value: &Value, allowed: &[String]) -> Result<Value, ArgError> {
    let text =
        value.as_str().ok_or_else(|| ArgError::new(Reason::ExpectedString { value: summarize(value) }))?;
    if allowed.iter().any(|a| a == text) {
        Ok(value.clone())
    } else {
        Err(ArgError::new(Reason::not_in_enum(value, allowed.to_vec())))
    }
}

fn array_items(value: &Value, depth: usize) -> Result<&Vec<Value>, ArgError> {
    check_depth(depth)?;
    value.as_array().ok_or_else(|| ArgError::new(Reason::ExpectedArray { value: summarize(value) }))
}

/// The items of an array of `min..=max` items.
fn counted_items(
    value: &Value,
    depth: usize,
    min_items: Option<u64>,
    max_items: Option<u64>,
) -> Result<&Vec<Value>, ArgError> {
    let list = array_items(value, depth)?;
    let len = list.len() as u64;
    if min_items.is_some_and(|m| len < m) || max_items.is_some_and(|m| len > m) {
        let expected = match (min_items, max_items) {
            (Some(a), Some(b)) if a == b => format!("exactly {a} items"),
            (a, b) => format!(
                "{} to {} items",
                a.unwrap_or(0),
                b.map_or_else(|| "any".to_owned(), |b| b.to_string())
            ),
        };
        return Err(ArgError::new(Reason::WrongLength { value: summarize(value), expected }));
    }
    Ok(list)
}

/// Checks `value` against a parameter's [`Bounds`] with the same checks (and errors) as
/// [`validate`] of the bounded type.
pub(crate) fn check_bounds(value: &Value, bounds: Bounds) -> Result<(), ArgError> {
    match bounds {
        Bounds::Integer { min, max, non_zero, as_string, width } => {
            validate_integer(value, min, max, non_zero, as_string, width).map(drop)
        }
        Bounds::Number { min, max } => validate_number(value, min, max).map(drop),
        Bounds::Chars { min, max } => validate_string(value, min, max).map(drop),
        Bounds::Items { min, max } => counted_items(value, 0, min, max).map(drop),
    }
}

/// `cx` is already [`Cx::inner`]: the items are one level in.
fn validate_array(
    cx: Cx<'_>,
    items: &Type,
    value: &Value,
    depth: usize,
    (min_items, max_items): (Option<u64>, Option<u64>),
    unique: bool,
) -> Result<Value, ArgError> {
    let list = counted_items(value, depth, min_items, max_items)?;
    let mut out: Vec<Value> = Vec::with_capacity(list.len());
    for (i, item) in list.iter().enumerate() {
        let item = check(cx, items, item, depth + 1).map_err(|e| e.at_index(i))?;
        if unique && out.contains(&item) {
            return Err(ArgError::new(Reason::DuplicateItem { value: summarize(&item) }).at_index(i));
        }
        out.push(item);
    }
    Ok(Value::Array(out))
}

fn validate_tuple(cx: Cx<'_>, items: &[Type], value: &Value, depth: usize) -> Result<Value, ArgError> {
    let list = crate::decode::tuple_items(value, items.len(), depth)?;
    let out = items
        .iter()
        .zip(list)
        .enumerate()
        .map(|(i, (ty, item))| check(cx, ty, item, depth + 1).map_err(|e| e.at_index(i)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Value::Array(out))
}

/// An object's every mistake at once, as the generated struct decoders report them: its
/// unknown keys, then each field's errors in declaration order.
fn validate_object(cx: Cx<'_>, params: &[Param], value: &Value, depth: usize) -> Result<Value, ArgError> {
    let known: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
    let (map, mut error) = object_and_unknown(value, &known, depth)?;
    let mut out = Map::new();
    for param in params {
        let slot = map.get(&param.name);
        // An absent field is reported at this object's path, as `decode_field` does.
        match field(cx, param, slot, depth + 1) {
            Ok(Some(value)) => {
                out.insert(param.name.clone(), value);
            }
            Ok(None) => {}
            Err(e) => {
                error = Some(ArgError::add(error, if slot.is_some() { e.at_key(&param.name) } else { e }))
            }
        }
    }
    match error {
        Some(error) => Err(error),
        None => Ok(Value::Object(out)),
    }
}

/// One object property or tool parameter: `Ok(None)` when absent and optional (or an
/// explicit null for a non-nullable optional); its default when it has one.
fn field(cx: Cx<'_>, param: &Param, value: Option<&Value>, depth: usize) -> Result<Option<Value>, ArgError> {
    let treat_as_absent = value.is_none_or(|v| v.is_null() && param.optional && !param.ty.accepts_null());
    match value {
        _ if treat_as_absent && param.optional => Ok(param.default.clone()),
        None => Err(ArgError::new(Reason::MissingField { field: param.name.clone() })),
        Some(value) => check(cx, &param.ty, value, depth).map(Some),
    }
}

fn validate_map(cx: Cx<'_>, values: &Type, value: &Value, depth: usize) -> Result<Value, ArgError> {
    check_depth(depth)?;
    let map =
        value.as_object().ok_or_else(|| ArgError::new(Reason::ExpectedObject { value: summarize(value) }))?;
    let mut out = Map::new();
    for (key, item) in map {
        out.insert(key.clone(), check(cx, values, item, depth + 1).map_err(|e| e.at_key(key))?);
    }
    Ok(Value::Object(out))
}

/// The first branch that accepts `value`; else the first branch's first problem (an enum's
/// generated decoder, too, reports one problem of the variant it read).
fn validate_branches(cx: Cx<'_>, branches: &[Type], value: &Value, depth: usize) -> Result<Value, ArgError> {
    let mut first_error = None;
    for branch in branches {
        match check(cx, branch, value, depth) {
            Ok(value) => return Ok(value),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    Err(first_error.map_or_else(|| ArgError::invalid("no type accepts this value"), ArgError::into_first))
}
