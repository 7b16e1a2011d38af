//! Completions (`completion/complete`), shared by resources' template variables
//! ([`crate::resources`]) and prompts' arguments ([`crate::prompts`]): the completion
//! function a user gives, its context's type erased, and the candidates of a fixed set.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::context::{ErasedContext, typed};

/// A completion function: the caller's context, what the user typed so far, and the
/// values already given for the other variables or arguments; the candidates.
pub type CompleteFn<C> = dyn Fn(Arc<C>, &str, &BTreeMap<String, String>) -> Vec<String> + Send + Sync;

/// A [`CompleteFn`], its context's type erased.
pub(crate) type Completer =
    dyn Fn(ErasedContext, &str, &BTreeMap<String, String>) -> Vec<String> + Send + Sync;

/// `complete`, taking the erased context (no candidates for a context of another type).
pub(crate) fn completer<C: Send + Sync + 'static>(
    complete: impl Fn(Arc<C>, &str, &BTreeMap<String, String>) -> Vec<String> + Send + Sync + 'static,
) -> Arc<Completer> {
    Arc::new(move |context, typed_so_far, given| match typed::<C>(context) {
        Some(context) => complete(context, typed_so_far, given),
        None => Vec::new(),
    })
}

/// The candidates among `values` that start with what was typed (case-insensitively), in
/// order: a completion function for a fixed set of values.
pub fn starting_with(values: &[&str], typed: &str) -> Vec<String> {
    let typed = typed.to_lowercase();
    values.iter().filter(|v| v.to_lowercase().starts_with(&typed)).map(|v| (*v).to_owned()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completion_from_a_fixed_set_filters_by_prefix() {
        assert_eq!(starting_with(&["Python", "Perl", "Rust"], "p"), ["Python", "Perl"]);
        assert!(starting_with(&["Rust"], "x").is_empty());
    }
}
