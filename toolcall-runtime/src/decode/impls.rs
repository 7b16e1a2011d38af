//! [`FromArg`] for the standard library's types (numbers, strings, collections, tuples,
//! smart pointers, `Value`), and for chrono's and uuid's behind their features.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::hash::Hash;
use std::num::{
    NonZeroI8, NonZeroI16, NonZeroI32, NonZeroI64, NonZeroIsize, NonZeroU8, NonZeroU16, NonZeroU32,
    NonZeroU64, NonZeroUsize,
};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::error::{Reason, summarize};

use super::arg::{ArgError, FromArg, MAX_DEPTH};
use super::helpers::*;

impl<'a> FromArg<'a> for bool {
    fn from_arg(value: &'a Value, _depth: usize) -> Result<Self, ArgError> {
        value.as_bool().ok_or_else(|| expected(Reason::ExpectedBoolean { value: summarize(value) }))
    }
}

macro_rules! integer_from_arg {
    ($($ty:ty),*) => {$(
        impl Integer for $ty {
            fn min_text() -> String {
                <$ty>::MIN.to_string()
            }

            fn max_text() -> String {
                <$ty>::MAX.to_string()
            }
        }

        impl<'a> FromArg<'a> for $ty {
            fn from_arg(value: &'a Value, _depth: usize) -> Result<Self, ArgError> {
                let range = || out_of_range(value, <$ty>::MIN, <$ty>::MAX);
                // Fast path: an integer that fits `i64` (almost every argument).
                if let Some(i) = value.as_i64() {
                    return <$ty>::try_from(i).map_err(|_| range());
                }
                let wide = integer_value(value).map_err(|e| match *e.reason {
                    // Name this type's range, not `integer_value`'s internal one.
                    Reason::OutOfRange { .. } => range(),
                    _ => e,
                })?;
                <$ty>::try_from(wide).map_err(|_| range())
            }
        }
    )*};
}

integer_from_arg!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

macro_rules! nonzero_from_arg {
    ($($ty:ty => $inner:ty),*) => {$(
        impl<'a> FromArg<'a> for $ty {
            fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
                let inner = <$inner as FromArg>::from_arg(value, depth)?;
                <$ty>::new(inner).ok_or_else(|| out_of_range(value, "non-zero", <$inner>::MAX))
            }
        }
    )*};
}

nonzero_from_arg!(
    NonZeroU8 => u8, NonZeroU16 => u16, NonZeroU32 => u32, NonZeroU64 => u64, NonZeroUsize => usize,
    NonZeroI8 => i8, NonZeroI16 => i16, NonZeroI32 => i32, NonZeroI64 => i64, NonZeroIsize => isize
);

impl<'a> FromArg<'a> for f64 {
    fn from_arg(value: &'a Value, _depth: usize) -> Result<Self, ArgError> {
        value.as_f64().ok_or_else(|| expected(Reason::ExpectedNumber { value: summarize(value) }))
    }
}

impl<'a> FromArg<'a> for f32 {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        let wide = f64::from_arg(value, depth)?;
        let narrow = wide as f32;
        if narrow.is_finite() { Ok(narrow) } else { Err(out_of_range(value, f32::MIN, f32::MAX)) }
    }
}

impl<'a> FromArg<'a> for &'a str {
    fn from_arg(value: &'a Value, _depth: usize) -> Result<Self, ArgError> {
        value.as_str().ok_or_else(|| expected(Reason::ExpectedString { value: summarize(value) }))
    }
}

impl<'a> FromArg<'a> for String {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        <&str>::from_arg(value, depth).map(str::to_owned)
    }
}

impl<'a> FromArg<'a> for Cow<'a, str> {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        <&str>::from_arg(value, depth).map(Cow::Borrowed)
    }
}

impl<'a> FromArg<'a> for Box<str> {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        <&str>::from_arg(value, depth).map(Box::from)
    }
}

impl<'a> FromArg<'a> for Rc<str> {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        <&str>::from_arg(value, depth).map(Rc::from)
    }
}

impl<'a> FromArg<'a> for Arc<str> {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        <&str>::from_arg(value, depth).map(Arc::from)
    }
}

impl<'a> FromArg<'a> for PathBuf {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        <&str>::from_arg(value, depth).map(PathBuf::from)
    }
}

impl<'a> FromArg<'a> for char {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        let text = <&str>::from_arg(value, depth)?;
        let mut chars = text.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => Ok(c),
            _ => Err(expected(Reason::WrongLength {
                value: summarize(value),
                expected: "exactly 1 character".to_owned(),
            })),
        }
    }
}

macro_rules! formatted_from_arg {
    ($($ty:ty => $format:literal),*) => {$(
        impl<'a> FromArg<'a> for $ty {
            fn from_arg(value: &'a Value, _depth: usize) -> Result<Self, ArgError> {
                parse_formatted(value, $format)
            }
        }
    )*};
}

formatted_from_arg!(
    std::net::IpAddr => "ip address",
    std::net::Ipv4Addr => "ipv4",
    std::net::Ipv6Addr => "ipv6"
);

/// A big integer that travels as a decimal string (the `string_integer` wire).
///
/// `StringInteger<u64>` accepts `"18446744073709551615"` and, leniently, a JSON number
/// that fits; it rejects `"1.5"`, `"abc"` and values outside the inner type's range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StringInteger<T>(pub T);

impl<'a, T> FromArg<'a> for StringInteger<T>
where
    T: FromArg<'a> + Integer,
{
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        match value {
            Value::String(text) => {
                if !is_decimal_integer(text) {
                    return Err(expected(Reason::ExpectedInteger { value: summarize(value) }));
                }
                text.parse::<T>().map(StringInteger).map_err(|_| {
                    expected(Reason::OutOfRange {
                        value: summarize(value),
                        min: T::min_text(),
                        max: T::max_text(),
                    })
                })
            }
            _ => T::from_arg(value, depth).map(StringInteger),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Wrappers

impl<'a, T: FromArg<'a>> FromArg<'a> for Option<T> {
    const ACCEPTS_NULL: bool = true;

    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        if value.is_null() && !T::ACCEPTS_NULL { Ok(None) } else { T::from_arg(value, depth).map(Some) }
    }

    fn absent() -> Option<Self> {
        Some(None)
    }
}

macro_rules! pointer_from_arg {
    ($($ptr:ident),*) => {$(
        impl<'a, T: FromArg<'a>> FromArg<'a> for $ptr<T> {
            const ACCEPTS_NULL: bool = T::ACCEPTS_NULL;

            fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
                T::from_arg(value, depth).map($ptr::new)
            }

            fn absent() -> Option<Self> {
                T::absent().map($ptr::new)
            }
        }
    )*};
}

pointer_from_arg!(Box, Rc, Arc);

impl<'a> FromArg<'a> for Value {
    const ACCEPTS_NULL: bool = true;

    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        if depth + nesting_depth(value, MAX_DEPTH) >= MAX_DEPTH {
            return Err(ArgError::new(Reason::TooDeep { limit: MAX_DEPTH }));
        }
        Ok(value.clone())
    }
}

impl<'a> FromArg<'a> for &'a Value {
    const ACCEPTS_NULL: bool = true;

    fn from_arg(value: &'a Value, _depth: usize) -> Result<Self, ArgError> {
        Ok(value)
    }
}

// ---------------------------------------------------------------------------------------
// Sequences

impl<'a, T: FromArg<'a>> FromArg<'a> for Vec<T> {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        decode_items(value, depth)
    }
}

impl<'a, T: FromArg<'a>> FromArg<'a> for VecDeque<T> {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        decode_items(value, depth).map(VecDeque::from)
    }
}

impl<'a, T: FromArg<'a>> FromArg<'a> for Box<[T]> {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        decode_items(value, depth).map(Vec::into_boxed_slice)
    }
}

impl<'a, T: FromArg<'a>, const N: usize> FromArg<'a> for [T; N] {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        let items: Vec<T> = decode_items(value, depth)?;
        items.try_into().map_err(|_| {
            expected(Reason::WrongLength { value: summarize(value), expected: format!("exactly {N} items") })
        })
    }
}

impl<'a, T: FromArg<'a> + Eq + Hash> FromArg<'a> for HashSet<T> {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        decode_set(value, depth, |set: &mut HashSet<T>, item| set.insert(item))
    }
}

impl<'a, T: FromArg<'a> + Ord> FromArg<'a> for BTreeSet<T> {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        decode_set(value, depth, |set: &mut BTreeSet<T>, item| set.insert(item))
    }
}

macro_rules! tuple_from_arg {
    ($len:literal => $($name:ident $index:tt),+) => {
        impl<'a, $($name: FromArg<'a>),+> FromArg<'a> for ($($name,)+) {
            fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
                let items = tuple_items(value, $len, depth)?;
                Ok(($(
                    $name::from_arg(&items[$index], depth + 1).map_err(|e| e.at_index($index))?,
                )+))
            }
        }
    };
}

tuple_from_arg!(1 => A 0);

tuple_from_arg!(2 => A 0, B 1);

tuple_from_arg!(3 => A 0, B 1, C 2);

tuple_from_arg!(4 => A 0, B 1, C 2, D 3);

tuple_from_arg!(5 => A 0, B 1, C 2, D 3, E 4);

tuple_from_arg!(6 => A 0, B 1, C 2, D 3, E 4, F 5);

tuple_from_arg!(7 => A 0, B 1, C 2, D 3, E 4, F 5, G 6);

tuple_from_arg!(8 => A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);

// ---------------------------------------------------------------------------------------
// Maps

impl<'a, V: FromArg<'a>, S: std::hash::BuildHasher + Default> FromArg<'a> for HashMap<String, V, S> {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        decode_entries(value, depth)
    }
}

impl<'a, V: FromArg<'a>> FromArg<'a> for BTreeMap<String, V> {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        decode_entries(value, depth)
    }
}

impl<'a> FromArg<'a> for Map<String, Value> {
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError> {
        decode_entries(value, depth)
    }
}

// ---------------------------------------------------------------------------------------
// Dates, uuids (optional features)

#[cfg(feature = "chrono")]
mod chrono_impls {
    use super::*;
    use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, Utc};

    impl<'a> FromArg<'a> for NaiveDate {
        fn from_arg(value: &'a Value, _depth: usize) -> Result<Self, ArgError> {
            parse_date(value, "date", |s| s.parse::<NaiveDate>())
        }
    }

    impl<'a> FromArg<'a> for NaiveTime {
        fn from_arg(value: &'a Value, _depth: usize) -> Result<Self, ArgError> {
            parse_date(value, "time", |s| s.parse::<NaiveTime>())
        }
    }

    impl<'a> FromArg<'a> for NaiveDateTime {
        fn from_arg(value: &'a Value, _depth: usize) -> Result<Self, ArgError> {
            parse_date(value, "date-time", |s| {
                s.parse::<NaiveDateTime>().or_else(|_| DateTime::parse_from_rfc3339(s).map(|d| d.naive_utc()))
            })
        }
    }

    impl<'a> FromArg<'a> for DateTime<FixedOffset> {
        fn from_arg(value: &'a Value, _depth: usize) -> Result<Self, ArgError> {
            parse_date(value, "date-time", DateTime::parse_from_rfc3339)
        }
    }

    impl<'a> FromArg<'a> for DateTime<Utc> {
        fn from_arg(value: &'a Value, _depth: usize) -> Result<Self, ArgError> {
            parse_date(value, "date-time", |s| DateTime::parse_from_rfc3339(s).map(|d| d.with_timezone(&Utc)))
        }
    }
}

#[cfg(feature = "uuid")]
impl<'a> FromArg<'a> for uuid::Uuid {
    fn from_arg(value: &'a Value, _depth: usize) -> Result<Self, ArgError> {
        parse_formatted(value, "uuid")
    }
}
