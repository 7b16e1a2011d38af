//! The decoding contract: [`FromArg`], the error it reports ([`ArgError`], with the path
//! to the offending value) and the entry points that name the argument.

use std::fmt;
use std::hash::Hash;

use serde_json::{Map, Value};

use crate::error::{MAX_LISTED, Reason, ToolError};

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

/// A decoding failure: what was wrong, and where inside the argument; with every further
/// problem found beside it, when the value is an object whose fields fail one by one (a
/// struct reports all of its fields' mistakes at once, as a call reports its arguments').
///
/// [`ArgError::reason`] and [`ArgError::path`] are the first problem's; [`ArgError::problems`]
/// gives each. At most [`MAX_PROBLEMS`] are kept.
#[derive(Clone, Debug, PartialEq)]
pub struct ArgError {
    /// Steps from the argument down to the failing value, innermost last.
    /// Built innermost first while unwinding, then reversed by [`ArgError::path`].
    rev_path: Vec<Segment>,
    /// What was wrong. Boxed, as in [`ToolError::InvalidArgument`], so a decoding
    /// `Result` stays small (the error is the rare case): read it as `&*error.reason`.
    pub reason: Box<Reason>,
    /// The problems found after this one, each with its path from the same value, in the
    /// order found; each holds none of its own. `None` for one problem (boxed: a decoding
    /// `Result` stays small).
    #[allow(clippy::box_collection, reason = "one pointer, not three: every decoding `Result` carries it")]
    more: Option<Box<Vec<ArgError>>>,
}

/// The most problems one [`ArgError`] keeps: an object's decoder collects its fields'
/// mistakes, nested objects theirs, and a value with more than this many stops being
/// listed (its error's size never grows with the input's).
pub const MAX_PROBLEMS: usize = 100;

impl ArgError {
    /// An error at the current position.
    pub fn new(reason: Reason) -> Self {
        ArgError { rev_path: Vec::new(), reason: Box::new(reason), more: None }
    }

    /// An error at the end of a path already built innermost first.
    pub(crate) fn at_rev_path(rev_path: Vec<Segment>, reason: Reason) -> Self {
        ArgError { rev_path, reason: Box::new(reason), more: None }
    }

    /// This error with every problem of `other` after its own (found in the same value,
    /// their paths from it), up to [`MAX_PROBLEMS`] in all.
    #[cold]
    pub fn join(mut self, other: ArgError) -> Self {
        let ArgError { rev_path, reason, more } = other;
        let room = MAX_PROBLEMS.saturating_sub(self.count());
        let list = self.more.get_or_insert_with(Box::default);
        let others = more.map(|more| *more).unwrap_or_default();
        let first = ArgError { rev_path, reason, more: None };
        list.extend(std::iter::once(first).chain(others).take(room));
        self
    }

    /// `first`, then every problem of `next`: the error of a value whose parts failed one
    /// by one (`None` when none did).
    pub fn add(first: Option<ArgError>, next: ArgError) -> ArgError {
        match first {
            Some(first) => first.join(next),
            None => next,
        }
    }

    /// How many problems it holds (at least one).
    pub fn count(&self) -> usize {
        1 + self.more.as_ref().map_or(0, |more| more.len())
    }

    /// Its first problem alone: what a decoder that tries several readings of one value
    /// (an enum's variants) reports, so that which reading failed how stays one mistake.
    pub fn into_first(mut self) -> Self {
        self.more = None;
        self
    }

    /// Each problem as an error of its own, in the order found.
    pub fn into_problems(self) -> Vec<ArgError> {
        let ArgError { rev_path, reason, more } = self;
        let mut all = vec![ArgError { rev_path, reason, more: None }];
        all.extend(more.map(|more| *more).unwrap_or_default());
        all
    }

    /// Each problem, in the order found, to read its [`ArgError::reason`] and
    /// [`ArgError::path`] (the first is this error itself).
    pub fn problems(&self) -> impl Iterator<Item = &ArgError> {
        std::iter::once(self).chain(self.more.iter().flat_map(|more| more.iter()))
    }

    /// A type's own decoder rejected the value with `message`.
    pub fn invalid(message: impl fmt::Display) -> Self {
        ArgError::new(Reason::Invalid { message: message.to_string() })
    }

    /// Prefixes the path (of every problem) with an object key.
    pub fn at_key(self, key: &str) -> Self {
        self.at(Segment::Key(key.to_owned()))
    }

    /// Prefixes the path (of every problem) with an array index.
    pub fn at_index(self, index: usize) -> Self {
        self.at(Segment::Index(index))
    }

    fn at(mut self, segment: Segment) -> Self {
        if let Some(more) = self.more.as_mut() {
            more.iter_mut().for_each(|problem| problem.rev_path.push(segment.clone()));
        }
        self.rev_path.push(segment);
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

    /// Turns this into the [`ToolError`] for argument `name`: `InvalidArgument`, or
    /// [`ToolError::Several`] of one per problem.
    pub fn into_tool_error(self, name: &str) -> ToolError {
        if self.more.is_none() {
            return ToolError::InvalidArgument { name: self.path_from(name), reason: self.reason };
        }
        let all = self.into_problems().into_iter().map(|problem| problem.into_tool_error(name));
        ToolError::all(all).unwrap_or(ToolError::Several(Vec::new()))
    }

    /// The error as the answer to a form reads it, the value being the whole answer: the
    /// form's fields are what it names, never arguments (`unknown field "why"`, `missing
    /// required field "confirm"`, `copies: expected an integer, got "two"`); several
    /// problems one a line, as a call's several mistakes are.
    pub fn form_text(&self) -> String {
        let line = |problem: &ArgError| {
            let path = problem.path_from("");
            match path.strip_prefix('.').unwrap_or(&path) {
                "" => problem.reason.to_string(),
                path => format!("{}: {}", crate::capture::cut(path, FORM_PATH), problem.reason),
            }
        };
        let count = self.count();
        if count == 1 {
            return line(self);
        }
        let mut text = format!("{count} mistakes in the answer:");
        for problem in self.problems().take(MAX_LISTED) {
            text.push_str("\n- ");
            text.push_str(&line(problem));
        }
        if count > MAX_LISTED {
            text.push_str(&format!("\n- and {} more", count - MAX_LISTED));
        }
        text
    }
}

/// A field path in a form's error is cut to this many characters (as an argument path is).
const FORM_PATH: usize = 120;

impl fmt::Display for ArgError {
    /// `$.path: reason`, several problems joined by `; `.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path_from("$"), self.reason)?;
        for problem in self.more.iter().flat_map(|more| more.iter()) {
            write!(f, "; {problem}")?;
        }
        Ok(())
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
