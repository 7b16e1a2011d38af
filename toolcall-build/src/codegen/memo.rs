//! The formatting memo: prettyplease's text for each piece of code an earlier run of the
//! build script formatted, kept in `$OUT_DIR` beside `tools.rs`.
//!
//! Turning generated tokens into formatted text (syn parses them back, prettyplease prints
//! them) is the largest part of codegen in a debug build script, and on most rebuilds (a
//! tool's body or one doc comment edited) nearly every piece comes out as it did last time.
//! Formatting is a pure function of the tokens' text and the nesting level, so the memo is
//! keyed by exactly that: a piece found there is the text formatting would give, and one
//! not found is formatted and remembered. Only this run's pieces are kept for the next, so
//! the memo never outgrows the file it serves.
//!
//! The file starts with a line naming toolcall-build's version; a memo of another version,
//! or one that does not read back whole, counts as empty.

use std::collections::BTreeMap;

/// The first line of a memo file: a memo written by another version is not read.
const HEADER: &str = concat!("toolcall-build ", env!("CARGO_PKG_VERSION"), " formatting memo\n");

/// Formatted text by its key (see [`Memo::key`]): what an earlier run left, and what this
/// run used.
#[derive(Debug, Default)]
pub struct Memo {
    earlier: BTreeMap<String, String>,
    used: BTreeMap<String, String>,
    hits: usize,
}

impl Memo {
    /// Reads a memo written by [`Memo::to_text`]; text it did not write (another version,
    /// a truncated or edited file) gives an empty memo.
    pub fn from_text(text: &str) -> Memo {
        let earlier = text.strip_prefix(HEADER).and_then(read_entries).unwrap_or_default();
        Memo { earlier, ..Memo::default() }
    }

    /// The memo to keep for the next run: the entries this run used, nothing older.
    pub fn to_text(&self) -> String {
        let size: usize = self.used.iter().map(|(k, v)| k.len() + v.len() + 24).sum();
        let mut text = String::with_capacity(HEADER.len() + size);
        text.push_str(HEADER);
        for (key, value) in &self.used {
            text.push_str(&format!("{} {}\n", key.len(), value.len()));
            text.push_str(key);
            text.push_str(value);
        }
        text
    }

    /// The key of code whose tokens print as `tokens`, formatted `depth` levels deep.
    pub fn key(depth: usize, tokens: &str) -> String {
        format!("{depth} {tokens}")
    }

    /// The formatted text for `key`: remembered, or made by `format` and remembered.
    pub fn text(&mut self, key: String, format: impl FnOnce() -> String) -> &str {
        let value = match self.earlier.remove(&key).or_else(|| self.used.get(&key).cloned()) {
            Some(value) => {
                self.hits += 1;
                value
            }
            None => format(),
        };
        self.used.entry(key).or_insert(value)
    }

    /// How many pieces this run found already formatted.
    #[cfg(test)]
    pub fn hits(&self) -> usize {
        self.hits
    }
}

/// The entries after the header: `<key bytes> <text bytes>\n<key><text>`, repeated.
fn read_entries(mut rest: &str) -> Option<BTreeMap<String, String>> {
    let mut entries = BTreeMap::new();
    while !rest.is_empty() {
        let (lengths, after) = rest.split_once('\n')?;
        let (key_len, value_len) = lengths.split_once(' ')?;
        let (key_len, value_len): (usize, usize) = (key_len.parse().ok()?, value_len.parse().ok()?);
        let key = after.get(..key_len)?;
        let end = key_len.checked_add(value_len)?;
        let value = after.get(key_len..end)?;
        entries.insert(key.to_owned(), value.to_owned());
        rest = after.get(end..)?;
    }
    Some(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memo_of(entries: &[(&str, &str)]) -> Memo {
        let mut memo = Memo::default();
        for (key, value) in entries {
            memo.text(key.to_string(), || value.to_string());
        }
        memo
    }

    #[test]
    fn a_memo_reads_back_what_it_wrote() {
        let written = memo_of(&[("0 fn a () {}", "fn a() {}\n"), ("1 ünï 2", "x\n\n"), ("0 empty", "")]);
        let mut read = Memo::from_text(&written.to_text());
        for (key, value) in [("0 fn a () {}", "fn a() {}\n"), ("1 ünï 2", "x\n\n"), ("0 empty", "")] {
            assert_eq!(read.text(key.to_owned(), || panic!("{key} was not remembered")), value);
        }
        assert_eq!(read.hits(), 3);
    }

    #[test]
    fn only_the_pieces_this_run_used_are_kept() {
        let earlier = memo_of(&[("0 old", "old\n"), ("0 kept", "kept\n")]).to_text();
        let mut memo = Memo::from_text(&earlier);
        memo.text("0 kept".to_owned(), || unreachable!());
        memo.text("0 new".to_owned(), || "new\n".to_owned());
        let mut next = Memo::from_text(&memo.to_text());
        assert_eq!(next.text("0 old".to_owned(), || "formatted again".to_owned()), "formatted again");
        assert_eq!(next.text("0 new".to_owned(), || unreachable!()), "new\n");
    }

    #[test]
    fn a_piece_used_twice_in_one_run_is_formatted_once() {
        let mut memo = Memo::default();
        let mut formatted = 0;
        for _ in 0..2 {
            memo.text("0 same".to_owned(), || {
                formatted += 1;
                "same\n".to_owned()
            });
        }
        assert_eq!(formatted, 1);
        assert_eq!(Memo::from_text(&memo.to_text()).earlier.len(), 1);
    }

    #[test]
    fn text_it_did_not_write_reads_as_an_empty_memo() {
        let whole = memo_of(&[("0 fn a () {}", "fn a() {}\n"), ("0 b", "b\n")]).to_text();
        let other_version = whole.replacen(env!("CARGO_PKG_VERSION"), "0.0.0-other", 1);
        let cut_in_a_character = format!("{HEADER}1 1\nüab");
        let bad = [
            "",
            "garbage",
            other_version.as_str(),
            &whole[..whole.len() - 1],
            &whole[..HEADER.len() + 3],
            &format!("{HEADER}x y\nab"),
            &format!("{HEADER}{} 1\nab", usize::MAX),
            &cut_in_a_character,
        ];
        for text in bad {
            assert!(Memo::from_text(text).earlier.is_empty(), "read entries from {text:?}");
        }
    }
}
