//! The built-in types: std, `serde_json`, chrono, uuid, url, time, jiff and `std::net`.
//! They are recognised before type providers and cannot be replaced; a type of the crate
//! with the same name shadows them.
//!
//! **Adding a built-in type without type arguments is one row of [`SCALARS`]**: the names
//! it goes by, the crates it must come from, its input and output schemas, how it is
//! decoded and whether the one-pass fast reader takes it. Types that hold others (`Vec`,
//! `HashMap`, `Box`, `Option`, ...) are the structural nodes of the type tree
//! (`ty::Ty`), chosen in [`container`].

use toolcall_runtime::ir::{MAX_SAFE_INTEGER, Type, Width};

use super::Strategy;

/// One built-in type without type arguments (or whose arguments do not matter).
#[derive(Debug)]
pub struct Row {
    /// The last path segments it goes by.
    pub names: &'static [&'static str],
    /// Paths it must be written with: a prefix (`time::`), a word the path contains
    /// (`chrono`), or `""` for a bare name; empty: any path.
    pub crates: &'static [&'static str],
    /// Its input schema, from the name it was written with.
    pub input: fn(&str) -> Type,
    /// Its serialized schema (the output schema), from the same name.
    pub output: fn(&str) -> Type,
    /// Decoded by `FromArg` (`true`) or serde.
    pub from_arg: bool,
    /// The one-pass fast reader (`FastArg`) takes it.
    pub fast: bool,
    /// Its type arguments do not change it (`chrono::DateTime<Tz>`).
    pub any_args: bool,
    /// A primitive integer (may travel as a decimal string).
    pub integer: bool,
    /// The toolcall-runtime feature its decoder needs (`chrono`, `uuid`); `None`: always there.
    pub feature: Option<&'static str>,
}

impl Row {
    /// How values of it are decoded.
    pub fn strategy(&self) -> Strategy {
        if self.from_arg { Strategy::FromArg } else { Strategy::Deserialize }
    }
}

/// Every built-in type without type arguments, first match wins.
pub static SCALARS: &[Row] = &[
    row(&["i8", "i16", "i32", "i64", "isize", "u8", "u16", "u32", "u64", "usize"], integer, true, true).int(),
    row(&["i128", "u128"], integer, false, false).int(),
    row(&["NonZeroI8", "NonZeroI16", "NonZeroI32", "NonZeroI64", "NonZeroIsize"], non_zero, true, false),
    row(&["NonZeroU8", "NonZeroU16", "NonZeroU32", "NonZeroU64", "NonZeroUsize"], non_zero, true, false),
    row(&["NonZeroI128", "NonZeroU128"], non_zero, true, false),
    row(&["bool"], |_| Type::Boolean, true, true),
    // serde_json writes NaN and the infinities as `null`.
    row(&["f32", "f64"], |_| Type::number(), true, true).output(|_| Type::number().nullable()),
    row(&["char"], |_| one_char(), true, true),
    row(&["String"], |_| Type::string(), true, true),
    row(&["PathBuf"], |_| Type::string(), true, false),
    row(&["IpAddr"], |_| Type::AnyOf(vec![format("ipv4"), format("ipv6")]), true, false),
    row(&["Ipv4Addr"], |_| format("ipv4"), true, false),
    row(&["Ipv6Addr"], |_| format("ipv6"), true, false),
    row(&["NaiveDate"], |_| format("date"), true, false).needs("chrono"),
    // JSON Schema's `time` requires an offset; a `NaiveTime` has none.
    row(&["NaiveTime"], |_| naive_time(), true, false).needs("chrono"),
    // Without an offset, chrono writes no zone: not JSON Schema's `date-time`.
    row(&["NaiveDateTime"], |_| format("date-time"), true, false).output(|_| Type::string()).needs("chrono"),
    row(&["Uuid"], |_| format("uuid"), true, false).needs("uuid"),
    row(&["Url"], |_| format("uri"), false, false),
    row(&["Date"], |_| format("date"), false, false).from(&["time::", "jiff::"]).output(|_| Type::string()),
    row(&["Time"], |_| format("time"), false, false).from(&["time::", "jiff::"]).output(|_| Type::string()),
    row(&["OffsetDateTime", "PrimitiveDateTime", "UtcDateTime"], |_| format("date-time"), false, false)
        .from(&["time::"])
        .output(|_| Type::string()),
    row(&["Timestamp", "Zoned"], |_| format("date-time"), false, false)
        .from(&["jiff::"])
        .output(|_| Type::string()),
    row(&["DateTime"], |_| format("date-time"), false, false).from(&["jiff::"]).output(|_| Type::string()),
    row(&["DateTime"], |_| format("date-time"), true, false).from(&["chrono", ""]).args().needs("chrono"),
];

/// A row with the same schema both ways, any path, no type arguments.
const fn row(names: &'static [&'static str], input: fn(&str) -> Type, from_arg: bool, fast: bool) -> Row {
    Row {
        names,
        crates: &[],
        input,
        output: input,
        from_arg,
        fast,
        any_args: false,
        integer: false,
        feature: None,
    }
}

impl Row {
    const fn output(mut self, output: fn(&str) -> Type) -> Row {
        self.output = output;
        self
    }

    const fn from(mut self, crates: &'static [&'static str]) -> Row {
        self.crates = crates;
        self
    }

    const fn args(mut self) -> Row {
        self.any_args = true;
        self
    }

    const fn int(mut self) -> Row {
        self.integer = true;
        self
    }

    const fn needs(mut self, feature: &'static str) -> Row {
        self.feature = Some(feature);
        self
    }

    /// Whether a path written `resolved` (last segment `name`, `args` type arguments)
    /// is this type. A prefix `""` stands for a bare name (no `::`).
    fn matches(&self, name: &str, resolved: &str, args: usize) -> bool {
        self.names.contains(&name)
            && (args == 0 || self.any_args)
            && (self.crates.is_empty()
                || self.crates.iter().any(|prefix| match *prefix {
                    "" => !resolved.contains("::"),
                    prefix if prefix.ends_with("::") => resolved.starts_with(prefix),
                    prefix => resolved.contains(prefix),
                }))
    }
}

/// The row of a built-in type, if `name` (written `resolved`, with `args` type
/// arguments) is one.
pub fn scalar(name: &str, resolved: &str, args: usize) -> Option<&'static Row> {
    SCALARS.iter().find(|row| row.matches(name, resolved, args))
}

/// The structural kinds of built-in types that hold others.
pub enum Container<'t> {
    /// `Vec<T>`, `VecDeque<T>`: an array of `T` (`vec`: a `Vec`).
    List(&'t syn::Type, bool),
    /// `LinkedList<T>`: an array as it serializes; decoded by nobody (not a built-in input).
    OutputList(&'t syn::Type),
    /// `HashSet<T>`, `BTreeSet<T>`: an array of unique `T`.
    Set(&'t syn::Type),
    /// `HashMap<K, V>`, `BTreeMap<K, V>`: an object of `V`.
    Map(&'t syn::Type, Option<&'t syn::Type>),
    /// `Box<[T]>`: an array of `T`.
    BoxedSlice(&'t syn::Type),
    /// `Box<str>`, `Rc<str>`, `Arc<str>`, `Cow<str>`: a string.
    Str,
    /// `Box<T>`, `Rc<T>`, `Arc<T>`: the `T` itself (`boxed`: a `Box`).
    Pointer(&'t syn::Type, bool),
    /// `Cow<T>`: `T` as it serializes; not a built-in input.
    Cow(&'t syn::Type),
    /// `Option<T>`.
    Option(&'t syn::Type),
    /// `serde_json::Value`.
    Untyped,
    /// `serde_json::Map`.
    JsonMap,
    /// A nested `Result`: not an input, and serialized as `{"Ok": ..}` or `{"Err": ..}`.
    Result,
}

/// The container kind of `name` (written `resolved`) with type arguments `args`.
pub fn container<'t>(name: &str, resolved: &str, args: &'t [syn::Type]) -> Option<Container<'t>> {
    let first = args.first();
    let serde_json = resolved.starts_with("serde_json");
    Some(match (name, first) {
        ("Vec" | "VecDeque", Some(item)) => Container::List(item, name == "Vec"),
        ("LinkedList", Some(item)) => Container::OutputList(item),
        ("HashSet" | "BTreeSet", Some(item)) => Container::Set(item),
        ("HashMap" | "BTreeMap", Some(key)) => Container::Map(key, args.get(1)),
        ("Map", _) if serde_json => Container::JsonMap,
        ("Value", None) if serde_json => Container::Untyped,
        ("Box", Some(syn::Type::Slice(slice))) => Container::BoxedSlice(&slice.elem),
        ("Box" | "Rc" | "Arc", Some(inner)) if is_str(inner) => Container::Str,
        ("Box" | "Rc" | "Arc", Some(inner)) => Container::Pointer(inner, name == "Box"),
        ("Cow", _) if args.iter().any(is_str) => Container::Str,
        ("Cow", Some(inner)) => Container::Cow(inner),
        ("Option", Some(inner)) => Container::Option(inner),
        ("Result", _) => Container::Result,
        _ => return None,
    })
}

/// `str` as a type.
pub fn is_str(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.path.is_ident("str"))
}

/// Bounds of an integer type name, clamped to what JSON clients represent exactly.
fn integer_bounds(name: &str) -> Option<(Option<i64>, Option<i64>)> {
    let bounds = match name {
        "i8" => (Some(i8::MIN.into()), Some(i8::MAX.into())),
        "i16" => (Some(i16::MIN.into()), Some(i16::MAX.into())),
        "i32" => (Some(i32::MIN.into()), Some(i32::MAX.into())),
        "u8" => (Some(0), Some(u8::MAX.into())),
        "u16" => (Some(0), Some(u16::MAX.into())),
        "u32" => (Some(0), Some(u32::MAX.into())),
        "i64" | "isize" | "i128" => (None, None),
        "u64" | "usize" | "u128" => (Some(0), None),
        _ => return None,
    };
    Some(bounds)
}

/// An integer of the Rust type `name`: the schema shows `min..=max` (clamped to what JSON
/// clients represent exactly); the type's whole range is its `width`.
fn integer(name: &str) -> Type {
    let (min, max) = integer_bounds(name).unwrap_or((None, None));
    integer_within(name, min, max, false)
}

fn integer_within(name: &str, min: Option<i64>, max: Option<i64>, non_zero: bool) -> Type {
    let maximum = max.map(|m| m.min(MAX_SAFE_INTEGER));
    Type::Integer { minimum: min, maximum, non_zero, as_string: false, width: Width::of(name) }
}

/// `NonZeroU8` and the like: unsigned ones start at 1, signed ones exclude 0.
fn non_zero(name: &str) -> Type {
    let inner = name.trim_start_matches("NonZero").to_lowercase();
    let (min, max) = integer_bounds(&inner).unwrap_or((None, None));
    if inner.starts_with('u') {
        integer_within(&inner, Some(1), max, false)
    } else {
        integer_within(&inner, min, max, true)
    }
}

fn one_char() -> Type {
    Type::String { format: None, pattern: None, min_length: Some(1), max_length: Some(1) }
}

/// What `chrono::NaiveTime` parses: `HH:MM:SS` with optional fractional seconds.
const NAIVE_TIME_PATTERN: &str = r"^([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]+)?$";

fn naive_time() -> Type {
    Type::String {
        format: None,
        pattern: Some(NAIVE_TIME_PATTERN.to_owned()),
        min_length: None,
        max_length: None,
    }
}

fn format(format: &str) -> Type {
    Type::string_format(format)
}
