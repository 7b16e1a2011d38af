//! The decoding contract: [`FromArg`], the error it reports ([`ArgError`], with the path
//! to the offending value) and the entry points that name the argument.

use std::fmt;
use std::hash::Hash;

use serde_json::{Map, Value};

use crate::error::{Reason, ToolError};

/// How deep arrays and objects may nest inside one argument.
pub const MAX_DEPTH: usize = 128;

/// One step of a path into an argument.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Segment {
    /// An object key.
    Key(String),
    /// An array index.
    Index(usize),
}

/// A decoding failure: what was wrong, and where inside the argument.
#[derive(Clone, Debug, PartialEq)]
pub struct ArgError {
    /// Steps from the argument down to the failing value, innermost last.
    /// Built innermost first while unwinding, then reversed by [`ArgError::path`].
    rev_path: Vec<Segment>,
    /// What was wrong. Boxed, as in [`ToolError::InvalidArgument`], so a decoding
    /// `Result` stays small (the error is the rare case): read it as `&*error.reason`.
    pub reason: Box<Reason>,
}

impl ArgError {
    /// An error at the current position.
    pub fn new(reason: Reason) -> Self {
        ArgError { rev_path: Vec::new(), reason: Box::new(reason) }
    }

    /// An error at the end of a path already built innermost first.
    pub(crate) fn at_rev_path(rev_path: Vec<Segment>, reason: Reason) -> Self {
        ArgError { rev_path, reason: Box::new(reason) }
    }

    /// A type's own decoder rejected the value with `message`.
    pub fn invalid(message: impl fmt::Display) -> Self {
        ArgError::new(Reason::Invalid { message: message.to_string() })
    }

    /// Prefixes the path with an object key.
    pub fn at_key(mut self, key: &str) -> Self {
        self.rev_path.push(Segment::Key(key.to_owned()));
        self
    }

    /// Prefixes the path with an array index.
    pub fn at_index(mut self, index: usize) -> Self {
        self.rev_path.push(Segment::Index(index));
        self
    }

    /// The path below the argument, outermost first.
    pub fn path(&self) -> impl Iterator<Item = &Segment> {
        self.rev_path.iter().rev()
    }

    /// The full dotted path starting at argument `name` (`address.zip`, `items[3]`).
    pub fn path_from(&self, name: &str) -> String {
        let mut out = name.to_owned();
        for segment in self.path() {
            match segment {
                Segment::Key(key) => {
                    out.push('.');
                    out.push_str(key);
                }
                Segment::Index(i) => {
                    out.push('[');
                    out.push_str(&i.to_string());
                    out.push(']');
                }
            }
        }
        out
    }

    /// Turns this into the [`ToolError`] for argument `name`.
    pub fn into_tool_error(self, name: &str) -> ToolError {
        ToolError::InvalidArgument { name: self.path_from(name), reason: self.reason }
    }

    /// The error as the answer to a form reads it, the value being the whole answer: the
    /// form's fields are what it names, never arguments (`unknown field "why"`, `missing
    /// required field "confirm"`, `copies: expected an integer, got "two"`).
    pub fn form_text(&self) -> String {
        let path = self.path_from("");
        match path.strip_prefix('.').unwrap_or(&path) {
            "" => self.reason.to_string(),
            path => format!("{}: {}", crate::capture::cut(path, FORM_PATH), self.reason),
        }
    }
}

/// A field path in a form's error is cut to this many characters (as an argument path is).
const FORM_PATH: usize = 120;

impl fmt::Display for ArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path_from("$"), self.reason)
    }
}

/// A Rust type that can be decoded from one JSON argument value.
///
/// `'a` is the lifetime of the arguments, so `&'a str` can borrow instead of copying.
/// `depth` counts the containers already entered; implementations for containers pass
/// `depth + 1` to their items and fail with [`Reason::TooDeep`] past [`MAX_DEPTH`].
pub trait FromArg<'a>: Sized {
    /// Decodes `value`.
    fn from_arg(value: &'a Value, depth: usize) -> Result<Self, ArgError>;

    /// Whether `null` is a meaningful value of this type (so `Option<Self>` passes it
    /// through as `Some(..)` rather than treating it as absent).
    const ACCEPTS_NULL: bool = false;

    /// The value when the argument or field is absent; `None` means it is required.
    fn absent() -> Option<Self> {
        None
    }

    /// Decodes `value`, an object that also holds an internally tagged enum's tag under
    /// the key `tag` (serde puts a newtype variant's struct fields beside the tag). The
    /// generated decoders of structs with named fields read it; any other type refuses.
    #[doc(hidden)]
    fn from_tagged(value: &'a Value, depth: usize, tag: &str) -> Result<Self, ArgError> {
        let _ = (value, depth, tag);
        Err(ArgError::invalid("this type cannot be read beside a tag"))
    }
}

/// Decodes argument `name` from `value`, mapping failures to a [`ToolError`].
pub fn decode_arg<'a, T: FromArg<'a>>(value: &'a Value, name: &str) -> Result<T, ToolError> {
    T::from_arg(value, 0).map_err(|e| e.into_tool_error(name))
}

/// Decodes argument `name`, which may be absent (`None`) from the arguments object.
/// An absent argument uses [`FromArg::absent`], or is a `MissingArgument` error.
pub fn decode_slot<'a, T: FromArg<'a>>(value: Option<&'a Value>, name: &str) -> Result<T, ToolError> {
    match value {
        Some(value) => decode_arg(value, name),
        None => T::absent().ok_or_else(|| ToolError::MissingArgument(name.to_owned())),
    }
}

/// Decodes a nested field of a struct: absence and errors carry the field's path.
pub fn decode_field<'a, T: FromArg<'a>>(
    object: &'a Map<String, Value>,
    key: &str,
    depth: usize,
) -> Result<T, ArgError> {
    match object.get(key) {
        Some(value) => T::from_arg(value, depth).map_err(|e| e.at_key(key)),
        None => T::absent().ok_or_else(|| ArgError::new(Reason::MissingField { field: key.to_owned() })),
    }
}
