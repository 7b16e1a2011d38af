//! Every mistake of an object at once: a generated struct decoder reads each field into a
//! `Result` and hands them all to [`all`], which keeps every error (the unknown keys first,
//! then the fields in declaration order), as a call's exact decoder keeps every
//! argument's. Nothing is allocated when every field decodes.

use super::arg::ArgError;

/// The fields of an object decoded one by one: a `Result<T, ArgError>`, or a tuple of up to
/// [`MAX_COLLECTED`] of them (tuples of tuples for longer lists), in declaration order.
pub trait Collect {
    /// The decoded values, shaped as `Self` is.
    type Values;

    /// The values when every result is `Ok`; else `None`, with each error added to
    /// `error` in order.
    fn collect(self, error: &mut Option<ArgError>) -> Option<Self::Values>;
}

/// The most results one [`Collect`] tuple holds; generated code nests longer lists.
pub const MAX_COLLECTED: usize = 12;

/// The values of `results`, or one error holding `pending` (the object's unknown keys, if
/// any) and every error among them.
#[inline]
pub fn all<C: Collect>(pending: Option<ArgError>, results: C) -> Result<C::Values, ArgError> {
    let mut error = pending;
    let values = results.collect(&mut error);
    match (values, error) {
        (Some(values), None) => Ok(values),
        (_, Some(error)) => Err(error),
        (None, None) => Err(ArgError::invalid("a field failed without an error")),
    }
}

/// Runs an enum's decoding and keeps its first problem only: which variant failed how is one
/// mistake, as the IR decoder reports a value that fits no branch.
#[inline(always)]
pub fn one_problem<T>(decode: impl FnOnce() -> Result<T, ArgError>) -> Result<T, ArgError> {
    decode().map_err(ArgError::into_first)
}

/// Adds `next` to the errors found so far.
#[cold]
#[inline(never)]
fn keep(error: &mut Option<ArgError>, next: ArgError) {
    *error = Some(ArgError::add(error.take(), next));
}

impl<T> Collect for Result<T, ArgError> {
    type Values = T;

    #[inline]
    fn collect(self, error: &mut Option<ArgError>) -> Option<T> {
        match self {
            Ok(value) => Some(value),
            Err(next) => {
                keep(error, next);
                None
            }
        }
    }
}

macro_rules! collect_tuple {
    ($($part:ident)*) => {
        impl<$($part: Collect),*> Collect for ($($part,)*) {
            type Values = ($($part::Values,)*);

            #[inline]
            #[allow(non_snake_case, unused_variables, reason = "the type names name the parts")]
            fn collect(self, error: &mut Option<ArgError>) -> Option<Self::Values> {
                let ($($part,)*) = self;
                // Every part is collected before any is unwrapped, so every error is kept.
                $(let $part = $part.collect(error);)*
                Some(($($part?,)*))
            }
        }
    };
}

collect_tuple!();
collect_tuple!(A);
collect_tuple!(A B);
collect_tuple!(A B C);
collect_tuple!(A B C D);
collect_tuple!(A B C D E);
collect_tuple!(A B C D E F);
collect_tuple!(A B C D E F G);
collect_tuple!(A B C D E F G H);
collect_tuple!(A B C D E F G H I);
collect_tuple!(A B C D E F G H I J);
collect_tuple!(A B C D E F G H I J K);
collect_tuple!(A B C D E F G H I J K L);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Reason;

    fn missing(field: &str) -> ArgError {
        ArgError::new(Reason::MissingField { field: field.to_owned() })
    }

    #[test]
    fn every_error_is_kept_in_order_after_the_pending_one() {
        let unknown = ArgError::invalid("unknown");
        let results = (Ok::<u8, ArgError>(1), Err::<u8, _>(missing("b")), (Err::<u8, _>(missing("c")),));
        let error = all(Some(unknown), results).unwrap_err();
        let reasons: Vec<String> = error.problems().map(|p| p.reason.to_string()).collect();
        assert_eq!(reasons, ["unknown", r#"missing required field "b""#, r#"missing required field "c""#]);
        assert_eq!(all(None, (Ok::<u8, ArgError>(1), (Ok::<&str, ArgError>("x"),))), Ok((1, ("x",))));
        assert_eq!(all(None, ()), Ok(()));
        assert_eq!(all(Some(missing("a")), ()), Err(missing("a")));
    }

    #[test]
    fn several_problems_become_one_tool_error_each_and_one_form_line_each() {
        let error = all(Some(missing("a")), (Err::<u8, _>(missing("b").at_key("inner")),))
            .unwrap_err()
            .at_key("outer");
        let tool = error.clone().into_tool_error("arg");
        assert_eq!(
            tool.to_string(),
            "2 mistakes in the arguments:\n- arg.outer: missing required field \"a\"\n\
             - arg.outer.inner: missing required field \"b\""
        );
        assert_eq!(
            error.to_string(),
            r#"$.outer: missing required field "a"; $.outer.inner: missing required field "b""#
        );
        assert_eq!(
            error.form_text(),
            "2 mistakes in the answer:\n- outer: missing required field \"a\"\n- outer.inner: missing required field \"b\""
        );
        // One problem stays one error of its own kind.
        assert!(matches!(missing("a").into_tool_error("x"), crate::ToolError::InvalidArgument { .. }));
    }

    #[test]
    fn at_most_max_problems_are_kept() {
        let mut error = None;
        for i in 0..super::super::arg::MAX_PROBLEMS * 3 {
            keep(&mut error, missing(&i.to_string()).at_key("x"));
        }
        let error = error.unwrap();
        assert_eq!(error.count(), super::super::arg::MAX_PROBLEMS);
        assert!(error.problems().all(|p| p.path_from("a") == "a.x"));
        assert_eq!(
            error.clone().at_index(2).problems().filter(|p| p.path_from("a") == "a[2].x").count(),
            100
        );
        assert_eq!(error.into_first().count(), 1);
    }
}
