//! Built-in mappings: std, `serde_json`, chrono, uuid, url, time, jiff and `std::net`.
//! These are tried before local types and providers and cannot be replaced.

use toolcall_runtime::ir::{MAX_SAFE_INTEGER, Type, Width};

use super::{Strategy, TypeMapper, container_strategy, generic_args};

/// `T` when `ty` is `Option<T>`.
pub fn option_inner(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    match &last.arguments {
        syn::PathArguments::AngleBracketed(args) if args.args.len() == 1 => match args.args.first() {
            Some(syn::GenericArgument::Type(inner)) => Some(inner),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `ty` is a primitive integer type (for the string-integer wire).
pub fn is_integer(ty: &syn::Type) -> bool {
    let syn::Type::Path(p) = ty else { return false };
    p.path.get_ident().is_some_and(|i| integer_bounds(&i.to_string()).is_some())
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
fn integer(name: &str, min: Option<i64>, max: Option<i64>, non_zero: bool) -> Type {
    let maximum = max.map(|m| m.min(MAX_SAFE_INTEGER));
    Type::Integer { minimum: min, maximum, non_zero, as_string: false, width: Width::of(name) }
}

/// What `chrono::NaiveTime` parses: `HH:MM:SS` with optional fractional seconds.
const NAIVE_TIME_PATTERN: &str = r"^([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]+)?$";

fn string_with(format: &str) -> Type {
    Type::string_format(format)
}

impl TypeMapper<'_> {
    /// The built-in mapping for `path`, if there is one.
    pub(super) fn builtin(&mut self, path: &syn::Path) -> Result<Option<(Type, Strategy)>, String> {
        let Some(last) = path.segments.last() else { return Ok(None) };
        let name = last.ident.to_string();
        if self.shadowed_by_local(path, &name) {
            return Ok(None);
        }
        let args = generic_args(last);
        let resolved = self.resolved(path);
        if let Some(found) = scalar(&name, &resolved) {
            return Ok(Some(found));
        }
        self.generic(&name, &resolved, &args)
    }

    /// Containers and wrappers: their mapping depends on their type arguments.
    fn generic(
        &mut self,
        name: &str,
        resolved: &str,
        args: &[syn::Type],
    ) -> Result<Option<(Type, Strategy)>, String> {
        let Some(generic) = classify(name, resolved, args) else { return Ok(None) };
        let found = match generic {
            Generic::List(item) => {
                let (items, strategy) = self.map_nested(item)?;
                (Type::array(items), container_strategy(strategy))
            }
            Generic::Set(item) => {
                let (items, strategy) = self.map_nested(item)?;
                let ty =
                    Type::Array { items: Box::new(items), min_items: None, max_items: None, unique: true };
                (ty, container_strategy(strategy))
            }
            Generic::Map(key, value) => {
                map_key(key)?;
                let value = value.ok_or("a map needs a value type")?;
                let (values, strategy) = self.map_nested(value)?;
                (Type::Map(Box::new(values)), container_strategy(strategy))
            }
            Generic::Pointer(inner) => {
                let (ty, strategy) = self.map_nested(inner)?;
                (ty, container_strategy(strategy))
            }
            Generic::Option(inner) => {
                let (ty, strategy) = self.map_nested(inner)?;
                (ty.nullable(), container_strategy(strategy))
            }
            Generic::Untyped => {
                self.warn("`serde_json::Value` has no type at all: the model sees `{}`".to_owned());
                (Type::Any, Strategy::FromArg)
            }
            Generic::Fixed(ty) => (ty, Strategy::FromArg),
        };
        Ok(Some(found))
    }
}

/// A built-in type that takes type arguments, by what it holds: read by the schema walk
/// (here) and by the decoder's plan ([`TypeMapper::decode_of`]) alike.
pub(super) enum Generic<'t> {
    /// `Vec<T>`, `VecDeque<T>`, `Box<[T]>`: an array of `T`.
    List(&'t syn::Type),
    /// `HashSet<T>`, `BTreeSet<T>`: an array of unique `T`.
    Set(&'t syn::Type),
    /// `HashMap<K, V>`, `BTreeMap<K, V>`: an object of `V` (`V` missing is an error).
    Map(&'t syn::Type, Option<&'t syn::Type>),
    /// `Box<T>`, `Rc<T>`, `Arc<T>`: the `T` itself.
    Pointer(&'t syn::Type),
    /// `Option<T>` nested in a container: a nullable `T`.
    Option(&'t syn::Type),
    /// `serde_json::Value`: anything.
    Untyped,
    /// A type whose schema does not depend on its arguments, decoded with `FromArg`
    /// (`serde_json::Map`, `Box<str>`, `Cow<str>`, chrono's `DateTime<Tz>`).
    Fixed(Type),
}

/// Classifies a built-in generic type named `name` (resolved through the file's imports as
/// `resolved`) with type arguments `args`; `None` when it is not one.
pub(super) fn classify<'t>(name: &str, resolved: &str, args: &'t [syn::Type]) -> Option<Generic<'t>> {
    let first = args.first();
    Some(match (name, first) {
        ("Vec" | "VecDeque", Some(item)) => Generic::List(item),
        ("HashSet" | "BTreeSet", Some(item)) => Generic::Set(item),
        ("HashMap" | "BTreeMap", Some(key)) => Generic::Map(key, args.get(1)),
        ("Map", _) if resolved.starts_with("serde_json") => Generic::Fixed(Type::Map(Box::new(Type::Any))),
        ("Value", None) if resolved.starts_with("serde_json") => Generic::Untyped,
        ("Box", Some(syn::Type::Slice(slice))) => Generic::List(&slice.elem),
        ("Box" | "Rc" | "Arc", Some(inner)) if is_str(inner) => Generic::Fixed(Type::string()),
        ("Box" | "Rc" | "Arc", Some(inner)) => Generic::Pointer(inner),
        ("Cow", _) if args.iter().any(is_str) => Generic::Fixed(Type::string()),
        ("Option", Some(inner)) => Generic::Option(inner),
        ("DateTime", _) if resolved.contains("chrono") || !resolved.contains("::") => {
            Generic::Fixed(string_with("date-time"))
        }
        _ => return None,
    })
}

/// Map keys must be strings on the wire.
pub(super) fn map_key(key: &syn::Type) -> Result<(), String> {
    let is_string = match key {
        syn::Type::Path(p) => p.path.segments.last().is_some_and(|s| s.ident == "String"),
        _ => false,
    };
    if is_string {
        Ok(())
    } else {
        Err("map keys must be `String` (JSON object keys are strings)".to_owned())
    }
}

fn is_str(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.path.is_ident("str"))
}

/// Types with no type arguments, by name (and resolved path where names are ambiguous).
pub(super) fn scalar(name: &str, resolved: &str) -> Option<(Type, Strategy)> {
    if let Some((min, max)) = integer_bounds(name) {
        let strategy = if name.ends_with("128") { Strategy::Deserialize } else { Strategy::FromArg };
        return Some((integer(name, min, max, false), strategy));
    }
    if let Some(inner) = name.strip_prefix("NonZero") {
        let inner = inner.to_lowercase();
        let (min, max) = integer_bounds(&inner)?;
        let unsigned = inner.starts_with('u');
        let ty =
            if unsigned { integer(&inner, Some(1), max, false) } else { integer(&inner, min, max, true) };
        return Some((ty, Strategy::FromArg));
    }
    let from_arg = |ty: Type| Some((ty, Strategy::FromArg));
    let serde = |ty: Type| Some((ty, Strategy::Deserialize));
    match name {
        "bool" => from_arg(Type::Boolean),
        "f32" | "f64" => from_arg(Type::number()),
        "char" => {
            from_arg(Type::String { format: None, pattern: None, min_length: Some(1), max_length: Some(1) })
        }
        "String" | "PathBuf" => from_arg(Type::string()),
        "IpAddr" => from_arg(Type::AnyOf(vec![string_with("ipv4"), string_with("ipv6")])),
        "Ipv4Addr" => from_arg(string_with("ipv4")),
        "Ipv6Addr" => from_arg(string_with("ipv6")),
        "NaiveDate" => from_arg(string_with("date")),
        // JSON Schema's `time` requires an offset; a `NaiveTime` has none.
        "NaiveTime" => from_arg(Type::String {
            format: None,
            pattern: Some(NAIVE_TIME_PATTERN.to_owned()),
            min_length: None,
            max_length: None,
        }),
        "NaiveDateTime" => from_arg(string_with("date-time")),
        "Uuid" => from_arg(string_with("uuid")),
        "Url" => serde(string_with("uri")),
        "Date" if resolved.starts_with("time::") || resolved.starts_with("jiff::") => {
            serde(string_with("date"))
        }
        "Time" if resolved.starts_with("time::") || resolved.starts_with("jiff::") => {
            serde(string_with("time"))
        }
        "OffsetDateTime" | "PrimitiveDateTime" | "UtcDateTime" if resolved.starts_with("time::") => {
            serde(string_with("date-time"))
        }
        "Timestamp" | "Zoned" if resolved.starts_with("jiff::") => serde(string_with("date-time")),
        "DateTime" if resolved.starts_with("jiff::") => serde(string_with("date-time")),
        _ => None,
    }
}
