//! [`UriTemplate`]: the RFC 6570 URI templates resources are served at, with simple
//! (`{name}`) and reserved (`{+name}`) variables: what the build script checks a resource
//! function's parameters against, and what a server matches a read's URI with.
//!
//! ```
//! use toolcall_runtime::UriTemplate;
//!
//! let template = UriTemplate::parse("notes://user/{user}/export.md");
//! assert_eq!(template.variables().collect::<Vec<_>>(), ["user"]);
//! let variables = template.matches("notes://user/42/export.md").unwrap();
//! assert_eq!(variables["user"], "42");
//! assert_eq!(template.matches("notes://user/4/2/export.md"), None);
//! ```

use std::collections::BTreeMap;

/// An RFC 6570 template of simple (`{name}`) and reserved (`{+name}`) variables, as
/// pieces: literal text and variables, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UriTemplate {
    pieces: Vec<Piece>,
    /// Why the template does not parse; it then matches nothing.
    error: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Piece {
    Literal(String),
    /// A variable; `true` when its value may hold reserved characters (`/`).
    Variable(String, bool),
}

impl UriTemplate {
    /// Parses `text`; an unclosed `{`, an empty, repeated or adjacent variable is an error.
    pub fn parse(text: &str) -> UriTemplate {
        let mut pieces = Vec::new();
        let mut rest = text;
        let fail = |why: String| UriTemplate { pieces: Vec::new(), error: Some(why) };
        while let Some(open) = rest.find('{') {
            if open > 0 {
                pieces.push(Piece::Literal(rest[..open].to_owned()));
            } else if matches!(pieces.last(), Some(Piece::Variable(..))) {
                return fail("two variables with no text between them cannot be told apart".to_owned());
            }
            let Some(close) = rest[open..].find('}') else {
                return fail("a `{` is not closed".to_owned());
            };
            let inner = &rest[open + 1..open + close];
            let (name, reserved) = match inner.strip_prefix('+') {
                Some(name) => (name, true),
                None => (inner, false),
            };
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return fail(format!(
                    "`{{{inner}}}` is not a variable this server expands (letters, digits, `_`)"
                ));
            }
            if pieces.iter().any(|p| matches!(p, Piece::Variable(n, _) if n == name)) {
                return fail(format!("variable `{name}` appears twice"));
            }
            pieces.push(Piece::Variable(name.to_owned(), reserved));
            rest = &rest[open + close + 1..];
        }
        if !rest.is_empty() {
            pieces.push(Piece::Literal(rest.to_owned()));
        }
        UriTemplate { pieces, error: None }
    }

    /// Why the template does not parse (it then matches nothing), when it does not.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// The variables' names, in order.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.pieces.iter().filter_map(|p| match p {
            Piece::Variable(name, _) => Some(name.as_str()),
            Piece::Literal(_) => None,
        })
    }

    /// The variables of `uri` when the template matches it: each variable takes the
    /// text up to the next literal (a simple one no `/`), non-empty, percent-decoded.
    pub fn matches(&self, uri: &str) -> Option<BTreeMap<String, String>> {
        if self.error.is_some() {
            return None;
        }
        let mut variables = BTreeMap::new();
        let mut rest = uri;
        for (i, piece) in self.pieces.iter().enumerate() {
            match piece {
                Piece::Literal(text) => rest = rest.strip_prefix(text.as_str())?,
                Piece::Variable(name, reserved) => {
                    let end = match self.pieces.get(i + 1) {
                        Some(Piece::Literal(next)) => rest.find(next.as_str())?,
                        _ => rest.len(),
                    };
                    let value = &rest[..end];
                    if value.is_empty() || (!reserved && value.contains('/')) {
                        return None;
                    }
                    variables.insert(name.clone(), percent_decode(value)?);
                    rest = &rest[end..];
                }
            }
        }
        rest.is_empty().then_some(variables)
    }
}

/// `%XX` escapes decoded; `None` when an escape is malformed or the result is not UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_match_their_uris_and_only_them() {
        let t = UriTemplate::parse("notes://user/{user}/export.md");
        let vars = t.matches("notes://user/42/export.md");
        assert_eq!(vars, Some(BTreeMap::from([("user".to_owned(), "42".to_owned())])));
        assert_eq!(t.matches("notes://user//export.md"), None, "empty value");
        assert_eq!(t.matches("notes://user/4/2/export.md"), None, "a simple variable holds no /");
        assert_eq!(t.matches("notes://user/42/export.mdx"), None);
        let reserved = UriTemplate::parse("files://{+path}");
        assert_eq!(
            reserved.matches("files://a/b%20c.txt").and_then(|v| v.get("path").cloned()),
            Some("a/b c.txt".into())
        );
        let two = UriTemplate::parse("test://template/{id}/data");
        assert_eq!(
            two.matches("test://template/123/data").and_then(|v| v.get("id").cloned()),
            Some("123".into())
        );
    }

    #[test]
    fn templates_that_cannot_match_say_why() {
        for (text, why) in [
            ("x://{a", "not closed"),
            ("x://{}", "not a variable"),
            ("x://{a}{b}", "cannot be told apart"),
            ("x://{a}/{a}", "twice"),
        ] {
            let t = UriTemplate::parse(text);
            assert!(t.error.as_deref().is_some_and(|e| e.contains(why)), "{text}: {:?}", t.error);
            assert_eq!(t.matches("x://anything"), None);
        }
    }
}
