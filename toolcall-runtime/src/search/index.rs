//! The inverted index and its BM25 ranking. [`SearchIndex`] is the compiled one: static
//! data the build wrote into `tools.rs` (terms in byte order, each with the tools it occurs
//! in and its weighted count there, and each tool's length), read in place with nothing
//! built at start-up. [`OwnedIndex`] is the same index built at run time, one tool at a
//! time as tools are registered. One ranking function reads both.

use std::collections::BTreeMap;

use super::document::Document;
use super::tokenize::terms;

/// BM25's term-frequency saturation: how fast more occurrences stop adding.
const K1: f32 = 1.2;
/// BM25's length normalisation: how much a long document is discounted.
const B: f32 = 0.75;

/// One occurrence list entry: a tool (its row in the toolset's table) and the term's
/// weighted count in it.
pub type Posting = (u32, u32);

/// A compiled search index: what `toolcall_build::Builder::tool_search(true)` writes into
/// `tools.rs` for the crate's tools, read in place.
#[derive(Debug)]
pub struct SearchIndex {
    terms: &'static [(&'static str, &'static [Posting])],
    lengths: &'static [u32],
    average_length: f32,
}

impl SearchIndex {
    /// The index the build wrote: `terms` in byte order, each with its postings in row
    /// order; `lengths` each row's weighted length. Generated code calls this in a static;
    /// the average length is computed at compile time.
    #[doc(hidden)]
    pub const fn compiled(
        terms: &'static [(&'static str, &'static [Posting])],
        lengths: &'static [u32],
    ) -> Self {
        let mut sum: u64 = 0;
        let mut i = 0;
        while i < lengths.len() {
            sum += lengths[i] as u64;
            i += 1;
        }
        let average_length = if lengths.is_empty() { 0.0 } else { sum as f32 / lengths.len() as f32 };
        SearchIndex { terms, lengths, average_length }
    }

    /// How many distinct terms the index holds.
    pub fn term_count(&self) -> usize {
        self.terms.len()
    }

    /// How many tools it indexes.
    pub fn len(&self) -> usize {
        self.lengths.len()
    }

    /// Whether it indexes no tool.
    pub fn is_empty(&self) -> bool {
        self.lengths.is_empty()
    }

    /// The rows best matching `query`, best first, at most `limit`, among those `keep`
    /// accepts, scored by BM25 (k1 = 1.2, b = 0.75) over the query's terms.
    pub fn rank(&self, query: &str, limit: usize, keep: impl Fn(u32) -> bool) -> Vec<(u32, f32)> {
        rank(self, query, limit, keep)
    }
}

/// A search index built at run time: tools added one at a time, each read once when it is
/// registered ([`OwnedIndex::add`]).
#[derive(Clone, Debug, Default)]
pub struct OwnedIndex {
    terms: BTreeMap<String, Vec<Posting>>,
    lengths: Vec<u32>,
    total_length: u64,
}

impl OwnedIndex {
    /// An empty index.
    pub fn new() -> Self {
        OwnedIndex::default()
    }

    /// Adds `document` as the next row; returns its row.
    pub fn add(&mut self, document: &Document) -> u32 {
        let row = u32::try_from(self.lengths.len()).unwrap_or(u32::MAX);
        for (term, count) in &document.terms {
            self.terms.entry(term.clone()).or_default().push((row, *count));
        }
        let length = document.length();
        self.lengths.push(length);
        self.total_length += u64::from(length);
        row
    }

    /// The terms in byte order, each with its postings in row order: what the build
    /// writes into `tools.rs`.
    pub fn terms(&self) -> impl Iterator<Item = (&str, &[Posting])> {
        self.terms.iter().map(|(term, postings)| (term.as_str(), postings.as_slice()))
    }

    /// Each row's weighted length.
    pub fn lengths(&self) -> &[u32] {
        &self.lengths
    }

    /// How many tools it indexes.
    pub fn len(&self) -> usize {
        self.lengths.len()
    }

    /// Whether it indexes no tool.
    pub fn is_empty(&self) -> bool {
        self.lengths.is_empty()
    }

    /// The rows best matching `query`, best first, at most `limit`, among those `keep`
    /// accepts, scored by BM25 (k1 = 1.2, b = 0.75) over the query's terms.
    pub fn rank(&self, query: &str, limit: usize, keep: impl Fn(u32) -> bool) -> Vec<(u32, f32)> {
        rank(self, query, limit, keep)
    }
}

/// What ranking reads of an index, compiled or built at run time.
trait Postings {
    /// The postings of `term`, when it occurs anywhere.
    fn postings(&self, term: &str) -> Option<&[Posting]>;
    /// Each row's weighted length.
    fn lengths(&self) -> &[u32];
    /// The average of `lengths`.
    fn average_length(&self) -> f32;
}

impl Postings for SearchIndex {
    fn postings(&self, term: &str) -> Option<&[Posting]> {
        let at = self.terms.binary_search_by(|(t, _)| byte_order(t.as_bytes(), term.as_bytes())).ok()?;
        self.terms.get(at).map(|(_, postings)| *postings)
    }

    fn lengths(&self) -> &[u32] {
        self.lengths
    }

    fn average_length(&self) -> f32 {
        self.average_length
    }
}

/// `a` against `b` in byte order, as `str`'s `Ord`: compared in place, byte by byte, which
/// for terms (a few bytes each) is quicker than a call into the C library's `memcmp`.
fn byte_order(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return x.cmp(y);
        }
    }
    a.len().cmp(&b.len())
}

impl Postings for OwnedIndex {
    fn postings(&self, term: &str) -> Option<&[Posting]> {
        self.terms.get(term).map(Vec::as_slice)
    }

    fn lengths(&self) -> &[u32] {
        &self.lengths
    }

    fn average_length(&self) -> f32 {
        if self.lengths.is_empty() { 0.0 } else { self.total_length as f32 / self.lengths.len() as f32 }
    }
}

/// BM25 over `index`: each distinct term of `query` (made by the same tokenizer as the
/// index) adds `idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / average))` to every
/// row it occurs in, `tf` being its weighted count there. The rows `keep` accepts with a
/// score above zero, best first (ties in row order), at most `limit`.
fn rank(index: &impl Postings, query: &str, limit: usize, keep: impl Fn(u32) -> bool) -> Vec<(u32, f32)> {
    let lengths = index.lengths();
    if limit == 0 || lengths.is_empty() {
        return Vec::new();
    }
    let mut query_terms: Vec<String> = Vec::new();
    terms(query, |term| {
        if !query_terms.iter().any(|t| t == term) {
            query_terms.push(term.to_owned());
        }
    });
    let documents = lengths.len() as f32;
    let average = index.average_length().max(1.0);
    let mut scores = vec![0f32; lengths.len()];
    for term in &query_terms {
        let Some(postings) = index.postings(term) else { continue };
        let frequency = postings.len() as f32;
        let idf = (1.0 + (documents - frequency + 0.5) / (frequency + 0.5)).ln();
        for &(row, count) in postings {
            let Some(length) = lengths.get(row as usize) else { continue };
            let tf = count as f32;
            let norm = K1 * (1.0 - B + B * (*length as f32) / average);
            if let Some(score) = scores.get_mut(row as usize) {
                *score += idf * tf * (K1 + 1.0) / (tf + norm);
            }
        }
    }
    let mut hits: Vec<(u32, f32)> = scores
        .into_iter()
        .enumerate()
        .filter(|(_, score)| *score > 0.0)
        .map(|(row, score)| (row as u32, score))
        .filter(|(row, _)| keep(*row))
        .collect();
    let best_first = |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if hits.len() > limit {
        hits.select_nth_unstable_by(limit - 1, best_first);
        hits.truncate(limit);
    }
    hits.sort_unstable_by(best_first);
    hits
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn owned(tools: &[(&str, &str)]) -> OwnedIndex {
        let mut index = OwnedIndex::new();
        for (name, description) in tools {
            index.add(&Document::of_tool(name, "", description, "", &json!({})));
        }
        index
    }

    const TOOLS: &[(&str, &str)] = &[
        ("get_weather", "The current weather in a city."),
        ("convert_currency", "Converts an amount between currencies."),
        ("send_email", "Sends an email to a recipient."),
        ("weather_alerts", "Severe weather alerts for a region."),
    ];

    #[test]
    fn the_best_match_comes_first_and_nothing_unrelated_is_returned() {
        let index = owned(TOOLS);
        let hits = index.rank("what's the weather like in Paris?", 10, |_| true);
        let rows: Vec<u32> = hits.iter().map(|h| h.0).collect();
        assert_eq!(rows, [0, 3]);
        assert!(hits[0].1 > hits[1].1);
        assert_eq!(index.rank("convert 10 USD to EUR currency", 10, |_| true)[0].0, 1);
        assert!(index.rank("zebra", 10, |_| true).is_empty());
        assert!(index.rank("", 10, |_| true).is_empty());
    }

    #[test]
    fn limit_and_keep_are_honoured() {
        let index = owned(TOOLS);
        assert_eq!(index.rank("weather", 1, |_| true).len(), 1);
        assert!(index.rank("weather", 0, |_| true).is_empty());
        assert_eq!(index.rank("weather", 10, |row| row != 0).iter().map(|h| h.0).collect::<Vec<_>>(), [3]);
    }

    #[test]
    fn byte_order_is_strs_order() {
        let words = ["", "a", "ab", "abc", "b", "ba", "z", "é", "éa", "日本", "a\0", "A"];
        for a in words {
            for b in words {
                assert_eq!(byte_order(a.as_bytes(), b.as_bytes()), a.cmp(b), "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn the_compiled_index_ranks_as_the_owned_one_it_was_written_from() {
        let index = owned(TOOLS);
        // What the build writes, leaked into statics as generated code holds them.
        let terms: Vec<(&'static str, &'static [Posting])> = index
            .terms()
            .map(|(t, p)| {
                (&*Box::leak(t.to_owned().into_boxed_str()), &*Box::leak(p.to_vec().into_boxed_slice()))
            })
            .collect();
        let compiled = SearchIndex::compiled(
            Box::leak(terms.into_boxed_slice()),
            Box::leak(index.lengths().to_vec().into_boxed_slice()),
        );
        assert_eq!(compiled.len(), 4);
        for query in ["weather in a region", "email someone", "currency amount", "nothing here"] {
            assert_eq!(compiled.rank(query, 10, |_| true), index.rank(query, 10, |_| true), "{query}");
        }
    }
}
