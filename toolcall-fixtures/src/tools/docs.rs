//! Doc-comment rules: headings, argument sections, bullets, examples, links and hostile text.

use serde_json::{Value, json};

/// # Search the catalogue
///
/// Finds products in the [`Catalogue`] by name.
/// See [the search guide] for the query syntax.
///
/// [`Catalogue`]: https://example.com/catalogue
/// [the search guide]: https://example.com/search
///
/// # Arguments
///
/// * `query` - what to look for,
///   joined with this continuation line
/// * `limit` (u32) - at most this many results
///   * a nested bullet that is ignored
///
/// # Examples
///
/// ```text
/// # comment that must not leak
/// # Arguments
/// * `query` - a fake bullet inside a fence that must not leak
/// ```
///
/// ```
/// # let hidden_line_that_must_not_leak = 3;
/// assert_eq!(1 + 1, 2);
/// ```
///
/// # Errors
///
/// Never; this text must not leak either.
pub fn search_catalogue(query: String, limit: u32) -> Value {
    json!({"query": query, "limit": limit})
}

/// Parameters with other bullet markers.
///
/// ## Parameters:
///
/// + left - plus bullet, no backticks
/// - `right`: dash bullet, colon separator, see [`Value`]
pub fn bullet_markers(left: i32, right: i32) -> i32 {
    left + right
}

/// Hostile text: "# and */ and } and {} and é and 日本 here.
#[doc = " Escaped bidi: \u{202E} and a backslash \\ end."]
///
/// # Arguments
///
/// * `text` - a "quoted" {} value with */ and "# inside, é 日本
pub fn hostile_docs(text: String) -> String {
    text
}
