//! The fast path of argument decoding: one pass over each object, straight from any serde
//! `Deserializer` — the argument text itself (`run_json`, `run_bytes`, `call_json`, the
//! glue) or an already-parsed `serde_json::Value` (`run`, `call`).
//!
//! Generated code gives every tool and every local struct a decoder of this shape: a
//! tuple of slots, one per parameter or field, and a `match` from wire name to slot
//! index (serde derive's field-identifier approach), so an object is read once, in
//! order, with no map built and no key searched. It accepts only what the exact decoder
//! ([`FromArg`] on a `Value`) accepts, and builds the same values: numbers are judged
//! as `serde_json::Number` holds them, by the exact decoder's rules.
//!
//! It gives up at the first thing that is not a plain success — malformed text, a
//! wrong type, an unknown, missing or repeated key, nesting near [`MAX_DEPTH`] — and the
//! caller then runs the exact decoder, which reports every error with its path (all of
//! them, as the dispatch contract says). Errors are rare and cost a second decode; a
//! success costs one pass. [`Bail`] carries no message: it is never shown.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::decode::{FromArg, MAX_DEPTH};

/// A type that the fast path can decode. `Err` means "not here": the caller falls back
/// to [`FromArg`] on a `Value`, which decides and explains.
pub trait FastArg<'de>: FromArg<'de> {
    /// Decodes one value from `de`, nested `depth` levels deep.
    fn fast<D: Deserializer<'de>>(de: D, depth: usize) -> Result<Self, D::Error>;
}

/// The one error of the fast path: "use the exact decoder".
fn bail<E: de::Error>() -> E {
    E::custom(Bail)
}

/// Why the fast path gave up; never shown (the exact decoder's error is).
#[derive(Debug)]
pub struct Bail;

impl fmt::Display for Bail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not decoded by the fast path")
    }
}

impl std::error::Error for Bail {}

/// The error of the fast path's own reader of a held `Value`: giving up builds and drops
/// nothing, where a `serde_json::Error` is a boxed message.
impl de::Error for Bail {
    #[inline]
    fn custom<T: fmt::Display>(_: T) -> Self {
        Bail
    }
}

/// Whether a value at `depth` may open an object or array here. One level short of the
/// exact decoder's limit, so a value the exact decoder refuses as too deep never gets
/// through.
fn may_nest(depth: usize) -> bool {
    depth + 1 < MAX_DEPTH
}

// ---------------------------------------------------------------------------------------
// Where arguments come from

/// The arguments of one call: the text the model sent, or a value the caller holds.
#[derive(Clone, Copy, Debug)]
pub enum Args<'de> {
    /// Argument text, which must hold one JSON object and nothing else. (Bytes are checked
    /// for UTF-8 once, before they get here: one reader, so one copy of the walk per tool.)
    Str(&'de str),
    /// An already-parsed value.
    Value(&'de Value),
}

impl<'de> Args<'de> {
    /// Reads the arguments object into `slots`, keys mapped by `index`; `None` when the
    /// fast path gives up.
    #[inline]
    pub fn arguments<S: Slots<'de>>(
        self,
        slots: &mut S,
        index: impl Fn(&str) -> Option<usize>,
    ) -> Option<()> {
        // Parameters sit at depth 0, as in the exact decoder.
        match self {
            Args::Str(text) => {
                whole(serde_json::Deserializer::from_str(text), Fields { slots, index, depth: 0 })
            }
            Args::Value(value @ Value::Object(_)) => {
                ValueDe(value).deserialize_map(Fields { slots, index, depth: 0 }).ok()
            }
            Args::Value(_) => None,
        }
    }

    /// Reads the arguments object into a tuple of parameter values, keys mapped by
    /// `index` to their place in it (a missing `Option` parameter is `None`); `None` when
    /// the fast path gives up (a missing required parameter included). What a generated
    /// call function reads its parameters with.
    #[inline]
    pub fn read<V: Filled<'de>>(self, index: impl Fn(&str) -> Option<usize>) -> Option<V> {
        let mut slots = V::empty();
        self.arguments(&mut slots, index)?;
        V::take(slots)
    }

    /// The arguments as a value, for the exact decoder; `None` for text, which the caller
    /// parses (reporting malformed JSON and repeated keys) and dispatches again as a value.
    pub fn value(self) -> Option<&'de Value> {
        match self {
            Args::Value(value) => Some(value),
            Args::Str(_) => None,
        }
    }
}

/// Reads one object from the whole of a text: nothing may follow it.
fn whole<'de, R: serde_json::de::Read<'de>, V: Visitor<'de, Value = ()>>(
    mut de: serde_json::Deserializer<R>,
    fields: V,
) -> Option<()> {
    de.deserialize_map(fields).ok()?;
    de.end().ok()
}

// ---------------------------------------------------------------------------------------
// A held `Value`, walked directly

/// A `Value` as the fast path reads it: like serde_json's `&Value` deserializer, but
/// objects and arrays are walked here, keys handed over as borrowed strings, so the
/// generated decoders inline the whole walk (serde_json's map access goes through a
/// `Cow` key deserializer that is not inlined). Everything else is `&Value`'s. Its error
/// is [`Bail`], which costs nothing to make or drop: the caller only asks whether it gave
/// up.
#[derive(Clone, Copy)]
struct ValueDe<'de>(&'de Value);

/// What `&Value`'s deserializer said when it refused: the fast path gives up. Out of line,
/// so dropping the error is one call wherever a method is forwarded.
#[cold]
#[inline(never)]
fn gave_up(_: serde_json::Error) -> Bail {
    Bail
}

/// Forwards `deserialize_*` methods to `&Value`'s deserializer.
macro_rules! forward_to_value {
    ($($method:ident)*) => {$(
        #[inline]
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Bail> {
            self.0.$method(visitor).map_err(gave_up)
        }
    )*};
}

impl<'de> Deserializer<'de> for ValueDe<'de> {
    type Error = Bail;

    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Bail> {
        match self.0 {
            Value::Object(map) => visitor.visit_map(Entries { entries: map.iter(), value: None }),
            Value::Array(items) => visitor.visit_seq(Elements(items.iter())),
            // As `Number` hands itself over, inlined.
            Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
                (Some(u), _, _) => visitor.visit_u64(u),
                (None, Some(i), _) => visitor.visit_i64(i),
                (None, None, Some(f)) => visitor.visit_f64(f),
                (None, None, None) => self.0.deserialize_any(visitor).map_err(gave_up),
            },
            other => other.deserialize_any(visitor).map_err(gave_up),
        }
    }

    #[inline]
    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Bail> {
        match self.0 {
            Value::Object(map) => visitor.visit_map(Entries { entries: map.iter(), value: None }),
            _ => Err(bail()),
        }
    }

    #[inline]
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Bail> {
        match self.0 {
            Value::Array(items) => visitor.visit_seq(Elements(items.iter())),
            _ => Err(bail()),
        }
    }

    #[inline]
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Bail> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    #[inline]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Bail> {
        self.deserialize_map(visitor)
    }

    #[inline]
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Bail> {
        visitor.visit_newtype_struct(self)
    }

    forward_to_value! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char deserialize_str
        deserialize_string deserialize_bytes deserialize_byte_buf deserialize_unit
        deserialize_identifier deserialize_ignored_any
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Bail> {
        self.0.deserialize_unit_struct(name, visitor).map_err(gave_up)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, Bail> {
        self.0.deserialize_tuple(len, visitor).map_err(gave_up)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Bail> {
        self.0.deserialize_tuple_struct(name, len, visitor).map_err(gave_up)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Bail> {
        self.0.deserialize_enum(name, variants, visitor).map_err(gave_up)
    }
}

/// An object's entries, in the map's order.
struct Entries<'de> {
    entries: serde_json::map::Iter<'de>,
    value: Option<&'de Value>,
}

impl<'de> MapAccess<'de> for Entries<'de> {
    type Error = Bail;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Bail> {
        match self.entries.next() {
            Some((key, value)) => {
                self.value = Some(value);
                seed.deserialize(KeyDe(key)).map(Some)
            }
            None => Ok(None),
        }
    }

    #[inline(always)]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Bail> {
        match self.value.take() {
            Some(value) => seed.deserialize(ValueDe(value)),
            None => Err(bail()),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

/// An array's items.
struct Elements<'de>(std::slice::Iter<'de, Value>);

impl<'de> SeqAccess<'de> for Elements<'de> {
    type Error = Bail;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Bail> {
        self.0.next().map(|item| seed.deserialize(ValueDe(item))).transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

/// An object key, handed over as a borrowed string whatever is asked for.
struct KeyDe<'de>(&'de str);

impl<'de> Deserializer<'de> for KeyDe<'de> {
    type Error = Bail;

    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Bail> {
        visitor.visit_borrowed_str(self.0)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

// ---------------------------------------------------------------------------------------
// Objects: slots filled in one pass

/// The slots of one object: a tuple of `Option`s, one per parameter or field. Filling a
/// slot twice (a repeated key) gives up.
pub trait Slots<'de> {
    /// Decodes the next map value into slot `index`.
    fn fill<A: MapAccess<'de>>(&mut self, index: usize, map: &mut A, depth: usize) -> Result<(), A::Error>;
}

impl<'de> Slots<'de> for () {
    fn fill<A: MapAccess<'de>>(&mut self, _: usize, _: &mut A, _: usize) -> Result<(), A::Error> {
        Err(bail())
    }
}

/// Fills one slot from the next map value.
#[inline(always)]
fn fill_one<'de, A: MapAccess<'de>, T: FastArg<'de>>(
    slot: &mut Option<T>,
    map: &mut A,
    depth: usize,
) -> Result<(), A::Error> {
    if slot.is_some() {
        return Err(bail());
    }
    *slot = Some(map.next_value_seed(Seed::<T>(depth, PhantomData))?);
    Ok(())
}

/// A tuple of decoded values and the slots they are read into: what [`Args::read`] gives.
pub trait Filled<'de>: Sized {
    /// One `Option` per value.
    type Slots: Slots<'de>;
    /// Every slot empty.
    fn empty() -> Self::Slots;
    /// The values, each present (or absent and allowed to be: `Option`); `None` when a
    /// required one is missing.
    fn take(slots: Self::Slots) -> Option<Self>;
}

impl<'de> Filled<'de> for () {
    type Slots = ();
    #[inline(always)]
    fn empty() {}
    #[inline(always)]
    fn take((): ()) -> Option<()> {
        Some(())
    }
}

macro_rules! slots_tuple {
    ($($index:tt $ty:ident),+) => {
        impl<'de, $($ty: FastArg<'de>),+> Filled<'de> for ($($ty,)+) {
            type Slots = ($(Option<$ty>,)+);
            #[inline(always)]
            fn empty() -> Self::Slots {
                ($(None::<$ty>,)+)
            }
            #[inline(always)]
            fn take(slots: Self::Slots) -> Option<Self> {
                Some(($(present(slots.$index)?,)+))
            }
        }

        impl<'de, $($ty: FastArg<'de>),+> Slots<'de> for ($(Option<$ty>,)+) {
            #[inline(always)]
            fn fill<A: MapAccess<'de>>(&mut self, index: usize, map: &mut A, depth: usize) -> Result<(), A::Error> {
                match index {
                    $($index => fill_one(&mut self.$index, map, depth),)+
                    _ => Err(bail()),
                }
            }
        }
    };
}
slots_tuple!(0 S0);
slots_tuple!(0 S0, 1 S1);
slots_tuple!(0 S0, 1 S1, 2 S2);
slots_tuple!(0 S0, 1 S1, 2 S2, 3 S3);
slots_tuple!(0 S0, 1 S1, 2 S2, 3 S3, 4 S4);
slots_tuple!(0 S0, 1 S1, 2 S2, 3 S3, 4 S4, 5 S5);
slots_tuple!(0 S0, 1 S1, 2 S2, 3 S3, 4 S4, 5 S5, 6 S6);
slots_tuple!(0 S0, 1 S1, 2 S2, 3 S3, 4 S4, 5 S5, 6 S6, 7 S7);
slots_tuple!(0 S0, 1 S1, 2 S2, 3 S3, 4 S4, 5 S5, 6 S6, 7 S7, 8 S8);
slots_tuple!(0 S0, 1 S1, 2 S2, 3 S3, 4 S4, 5 S5, 6 S6, 7 S7, 8 S8, 9 S9);
slots_tuple!(0 S0, 1 S1, 2 S2, 3 S3, 4 S4, 5 S5, 6 S6, 7 S7, 8 S8, 9 S9, 10 S10);
slots_tuple!(0 S0, 1 S1, 2 S2, 3 S3, 4 S4, 5 S5, 6 S6, 7 S7, 8 S8, 9 S9, 10 S10, 11 S11);

/// The most slots one object's fast decoder has; a tool or struct with more takes the
/// exact path only.
pub const MAX_SLOTS: usize = 12;

/// Reads one object's entries into its slots.
struct Fields<'s, S, F> {
    slots: &'s mut S,
    index: F,
    depth: usize,
}

impl<'de, S: Slots<'de>, F: Fn(&str) -> Option<usize>> Visitor<'de> for Fields<'_, S, F> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    #[inline]
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(index) = map.next_key_seed(Key(&self.index, PhantomData))? {
            let index = index.ok_or_else(bail)?;
            self.slots.fill(index, &mut map, self.depth)?;
        }
        Ok(())
    }
}

/// A key (or a unit variant's name) resolved by a generated `match` (`None`: unknown),
/// without being copied.
struct Key<'f, F, R>(&'f F, PhantomData<R>);

impl<'de, F: Fn(&str) -> Option<R>, R> DeserializeSeed<'de> for Key<'_, F, R> {
    type Value = Option<R>;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Option<R>, D::Error> {
        de.deserialize_str(self)
    }
}

impl<'de, F: Fn(&str) -> Option<R>, R> Visitor<'de> for Key<'_, F, R> {
    type Value = Option<R>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Option<R>, E> {
        Ok((self.0)(key))
    }
}

/// Decodes a struct's object at `depth` into `slots` (generated `FastArg` impls).
pub fn fields<'de, D: Deserializer<'de>, S: Slots<'de>>(
    de: D,
    slots: &mut S,
    depth: usize,
    index: impl Fn(&str) -> Option<usize>,
) -> Result<(), D::Error> {
    if !may_nest(depth) {
        return Err(bail());
    }
    de.deserialize_map(Fields { slots, index, depth: depth + 1 })
}

/// A filled slot's value, or its value when absent ([`FromArg::absent`]: `None` for
/// `Option`s); `None` for a missing required one.
pub fn present<'de, T: FromArg<'de>>(slot: Option<T>) -> Option<T> {
    slot.or_else(T::absent)
}

/// [`present`], giving up on a missing required field.
pub fn required<'de, T: FromArg<'de>, E: de::Error>(slot: Option<T>) -> Result<T, E> {
    present(slot).ok_or_else(bail)
}

/// A `#[serde(default)]` field's value: absent or `null` is `Default::default()`. Its
/// slot holds an `Option<T>`, so a `null` fills it (and a repeated key is seen).
pub fn defaulted<T: Default>(slot: Option<Option<T>>) -> T {
    slot.flatten().unwrap_or_default()
}

/// The unit variant a JSON string names, picked by a generated `match` (the `FastArg`
/// impls of enums whose variants are all units); anything else gives up.
pub fn unit_variant<'de, D: Deserializer<'de>, T>(
    de: D,
    pick: impl Fn(&str) -> Option<T>,
) -> Result<T, D::Error> {
    de.deserialize_str(Key(&pick, PhantomData))?.ok_or_else(bail)
}

/// Decodes one `T` at a depth (a map value or an array item).
struct Seed<T>(usize, PhantomData<T>);

impl<'de, T: FastArg<'de>> DeserializeSeed<'de> for Seed<T> {
    type Value = T;

    #[inline(always)]
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<T, D::Error> {
        T::fast(de, self.0)
    }
}

// ---------------------------------------------------------------------------------------
// Scalars: the same acceptance as their `FromArg` impls, without a `Value`

/// A JSON number as the deserializer hands it over (as `serde_json::Number` holds it).
#[derive(Clone, Copy)]
enum Num {
    Neg(i64),
    Pos(u64),
    Float(f64),
}

impl Num {
    /// The number as `f64`, as `serde_json::Number::as_f64` gives it.
    fn float(self) -> f64 {
        match self {
            Num::Neg(i) => i as f64,
            Num::Pos(u) => u as f64,
            Num::Float(f) => f,
        }
    }
}

/// The whole number a float holds, as `decode::integer_value` reads it: no fraction and
/// below 2^63 in magnitude. Out of line: models rarely send `2.0` for an integer, and every
/// integer slot of every tool would otherwise hold a copy of this.
#[cold]
#[inline(never)]
fn float_integer(f: f64) -> Option<i128> {
    (f.fract() == 0.0 && f.abs() < 9.2e18).then_some(f as i128)
}

/// Reads a number; anything else gives up.
struct NumVisitor;

impl<'de> Visitor<'de> for NumVisitor {
    type Value = Num;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number")
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Num, E> {
        // serde_json hands non-negative integers to `visit_u64`; a `Value` keeps them so.
        Ok(if v < 0 { Num::Neg(v) } else { Num::Pos(v as u64) })
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Num, E> {
        Ok(Num::Pos(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Num, E> {
        Ok(Num::Float(v))
    }
}

/// Reads a boolean; anything else gives up.
struct BoolVisitor;

impl<'de> Visitor<'de> for BoolVisitor {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a boolean")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<bool, E> {
        Ok(v)
    }
}

impl<'de> FastArg<'de> for bool {
    fn fast<D: Deserializer<'de>>(de: D, _depth: usize) -> Result<Self, D::Error> {
        de.deserialize_bool(BoolVisitor)
    }
}

// The same acceptance as the integer `FromArg` impls (`decode::integer_value` and the
// type's range), without building a `Value`: the agreement tests hold them together.
macro_rules! integer_fast {
    ($($ty:ty),*) => {$(
        impl<'de> FastArg<'de> for $ty {
            #[inline(always)]
            fn fast<D: Deserializer<'de>>(de: D, _depth: usize) -> Result<Self, D::Error> {
                let number = de.deserialize_any(NumVisitor)?;
                let whole = match number {
                    Num::Neg(i) => return <$ty>::try_from(i).map_err(|_| bail()),
                    Num::Pos(u) => return <$ty>::try_from(u).map_err(|_| bail()),
                    Num::Float(f) => float_integer(f).ok_or_else(bail)?,
                };
                <$ty>::try_from(whole).map_err(|_| bail())
            }
        }
    )*};
}
integer_fast!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

impl<'de> FastArg<'de> for f64 {
    fn fast<D: Deserializer<'de>>(de: D, _depth: usize) -> Result<Self, D::Error> {
        de.deserialize_any(NumVisitor).map(Num::float)
    }
}

impl<'de> FastArg<'de> for f32 {
    fn fast<D: Deserializer<'de>>(de: D, _depth: usize) -> Result<Self, D::Error> {
        let narrow = de.deserialize_any(NumVisitor)?.float() as f32;
        if narrow.is_finite() { Ok(narrow) } else { Err(bail()) }
    }
}

/// A string, owned or borrowed from the input.
struct Str<T>(PhantomData<T>);

impl<'de> Visitor<'de> for Str<String> {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        Ok(v.to_owned())
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<String, E> {
        Ok(v)
    }
}

impl<'de> FastArg<'de> for String {
    fn fast<D: Deserializer<'de>>(de: D, _depth: usize) -> Result<Self, D::Error> {
        de.deserialize_string(Str::<String>(PhantomData))
    }
}

impl<'de> Visitor<'de> for Str<&'de str> {
    type Value = &'de str;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string without escapes")
    }

    // An escaped string is unescaped into a buffer the result cannot borrow: give up.
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<&'de str, E> {
        Ok(v)
    }
}

impl<'de> FastArg<'de> for &'de str {
    fn fast<D: Deserializer<'de>>(de: D, _depth: usize) -> Result<Self, D::Error> {
        de.deserialize_str(Str::<&'de str>(PhantomData))
    }
}

impl<'de> FastArg<'de> for char {
    fn fast<D: Deserializer<'de>>(de: D, depth: usize) -> Result<Self, D::Error> {
        let text = String::fast(de, depth)?;
        let mut chars = text.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => Ok(c),
            _ => Err(bail()),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Containers

/// `null` is `None` (unless `T` itself gives `null` a meaning: then give up).
struct Opt<T>(usize, PhantomData<T>);

impl<'de, T: FastArg<'de>> Visitor<'de> for Opt<T> {
    type Value = Option<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an optional value")
    }

    fn visit_none<E: de::Error>(self) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<Option<T>, D::Error> {
        T::fast(de, self.0).map(Some)
    }
}

impl<'de, T: FastArg<'de>> FastArg<'de> for Option<T> {
    fn fast<D: Deserializer<'de>>(de: D, depth: usize) -> Result<Self, D::Error> {
        if T::ACCEPTS_NULL {
            return Err(bail());
        }
        de.deserialize_option(Opt::<T>(depth, PhantomData))
    }
}

/// The items of an array, each one level deeper.
struct Items<T>(usize, PhantomData<T>);

impl<'de, T: FastArg<'de>> Visitor<'de> for Items<T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element_seed(Seed::<T>(self.0 + 1, PhantomData))? {
            items.push(item);
        }
        Ok(items)
    }
}

impl<'de, T: FastArg<'de>> FastArg<'de> for Vec<T> {
    fn fast<D: Deserializer<'de>>(de: D, depth: usize) -> Result<Self, D::Error> {
        if !may_nest(depth) {
            return Err(bail());
        }
        de.deserialize_seq(Items::<T>(depth, PhantomData))
    }
}

impl<'de, T: FastArg<'de>> FastArg<'de> for Box<T> {
    fn fast<D: Deserializer<'de>>(de: D, depth: usize) -> Result<Self, D::Error> {
        T::fast(de, depth).map(Box::new)
    }
}
