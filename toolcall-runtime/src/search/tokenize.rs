//! The one tokenizer of tool search: what the build runs over every tool's texts to write
//! the index, and what a query goes through at run time, so a query's terms and the
//! index's terms are made the same way.
//!
//! Text becomes words at every character that is not a letter or a digit (`_`, `.`, `-`,
//! spaces, punctuation) and at case changes (`getWeather` -> `get`, `weather`;
//! `HTTPServer` -> `http`, `server`). Each word is folded: lower-cased, compatibility
//! decomposed with its combining marks dropped (`Café` -> `cafe`, `ﬁle` -> `file`). English
//! stop words (`the`, `of`, `for`..) and one-letter words are dropped, and what is left is
//! stemmed with the Snowball English stemmer (`forecasts`, `forecasting` -> `forecast`).

use std::borrow::Cow;

use rust_stemmers::{Algorithm, Stemmer};
use unicode_normalization::UnicodeNormalization as _;
use unicode_normalization::char::is_combining_mark;

/// The longest word kept, in bytes: longer runs (a base64 blob in a description) are
/// no words a model searches for.
const MAX_WORD: usize = 40;

/// English stop words: words a query and a tool's text share without saying anything
/// about what the tool does. Sorted, for a binary search.
const STOP_WORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "been", "being",
    "but", "by", "can", "could", "did", "do", "does", "doing", "each", "either", "else", "etc", "for",
    "from", "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how", "i", "if",
    "in", "into", "is", "it", "its", "itself", "me", "might", "more", "most", "must", "my", "no", "nor",
    "not", "of", "on", "or", "other", "our", "ours", "please", "shall", "she", "should", "so", "some",
    "such", "than", "that", "the", "their", "theirs", "them", "then", "there", "these", "they", "this",
    "those", "to", "too", "us", "very", "was", "we", "were", "what", "when", "where", "which", "while",
    "who", "whom", "whose", "why", "will", "with", "would", "you", "your", "yours",
];

/// The longest stop word, in bytes: each fits one `u64` ([`packed`]).
const LONGEST_STOP_WORD: usize = 8;

/// [`STOP_WORDS`] packed into integers, in the same (sorted) order: a query's words are
/// looked up with integer comparisons, not string ones.
const PACKED_STOP_WORDS: [u64; STOP_WORDS.len()] = {
    let mut out = [0u64; STOP_WORDS.len()];
    let mut i = 0;
    while i < STOP_WORDS.len() {
        out[i] = packed(STOP_WORDS[i].as_bytes());
        i += 1;
    }
    out
};

/// A word of at most [`LONGEST_STOP_WORD`] bytes as a big-endian integer, zero-padded:
/// two such words compare as integers as they do as strings.
const fn packed(word: &[u8]) -> u64 {
    let mut out = 0u64;
    let mut i = 0;
    while i < LONGEST_STOP_WORD {
        out <<= 8;
        if i < word.len() {
            out |= word[i] as u64;
        }
        i += 1;
    }
    out
}

/// Whether `word` (folded) is a stop word.
pub fn is_stop_word(word: &str) -> bool {
    // No stop word holds a 0 byte, so padding cannot make another word equal to one.
    word.len() <= LONGEST_STOP_WORD
        && !word.contains('\0')
        && PACKED_STOP_WORDS.binary_search(&packed(word.as_bytes())).is_ok()
}

/// The search terms of `text`, in order, repeats kept: words split, folded, stop words
/// dropped, stemmed. `f` is called once per term.
///
/// ```
/// let mut terms = Vec::new();
/// toolcall_runtime::search::terms("getWeatherForecasts for the next_days", |t| terms.push(t.to_owned()));
/// assert_eq!(terms, ["get", "weather", "forecast", "next", "day"]);
/// ```
pub fn terms(text: &str, mut f: impl FnMut(&str)) {
    let stemmer = Stemmer::create(Algorithm::English);
    let mut folded = String::new();
    each_word(text, |word| {
        folded.clear();
        fold_into(word, &mut folded);
        if folded.chars().nth(1).is_none() || folded.len() > MAX_WORD || is_stop_word(&folded) {
            return;
        }
        let stem: Cow<'_, str> = if folded.bytes().all(|b| b.is_ascii_lowercase()) {
            stemmer.stem(&folded)
        } else {
            Cow::Borrowed(folded.as_str())
        };
        f(&stem);
    });
}

/// The search terms of `text` as owned strings (see [`terms`]).
pub fn terms_of(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    terms(text, |term| out.push(term.to_owned()));
    out
}

/// `word` lower-cased, compatibility-decomposed, without combining marks, appended to `out`.
fn fold_into(word: &str, out: &mut String) {
    if word.is_ascii() {
        let start = out.len();
        out.push_str(word);
        out[start..].make_ascii_lowercase();
        return;
    }
    for c in word.nfkd().filter(|c| !is_combining_mark(*c)) {
        out.extend(c.to_lowercase());
    }
}

/// Calls `f` with each word of `text`: runs of letters and digits, split where the case
/// changes from lower (or a digit) to upper (`getWeather`) and before the last capital of
/// a run of capitals followed by a lower-case letter (`HTTPServer` -> `HTTP`, `Server`).
/// Nothing is allocated.
fn each_word<'t>(text: &'t str, mut f: impl FnMut(&'t str)) {
    for run in text.split(|c: char| !c.is_alphanumeric()).filter(|run| !run.is_empty()) {
        let mut start = 0;
        let mut chars = run.char_indices().peekable();
        let mut previous: Option<char> = None;
        while let Some((at, here)) = chars.next() {
            if let Some(previous) = previous {
                let next = chars.peek().map(|(_, c)| *c);
                let lower_to_upper =
                    (previous.is_lowercase() || previous.is_numeric()) && here.is_uppercase();
                let acronym_end =
                    previous.is_uppercase() && here.is_uppercase() && next.is_some_and(char::is_lowercase);
                if lower_to_upper || acronym_end {
                    f(&run[start..at]);
                    start = at;
                }
            }
            previous = Some(here);
        }
        f(&run[start..]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str) -> Vec<&str> {
        let mut words = Vec::new();
        each_word(text, |word| words.push(word));
        words
    }

    #[test]
    fn names_split_on_separators_and_case_changes() {
        assert_eq!(split("get_weather.now-please"), ["get", "weather", "now", "please"]);
        assert_eq!(split("getWeatherNow"), ["get", "Weather", "Now"]);
        assert_eq!(split("HTTPServer parseJSON v2Api"), ["HTTP", "Server", "parse", "JSON", "v2", "Api"]);
        assert_eq!(split("  "), Vec::<&str>::new());
    }

    #[test]
    fn words_are_folded_stemmed_and_stop_words_dropped() {
        assert_eq!(terms_of("The Forecasts of a City"), ["forecast", "citi"]);
        assert_eq!(terms_of("Café ÉCOLE ﬁles"), ["cafe", "ecol", "file"]);
        assert_eq!(terms_of("x y 42 ab"), ["42", "ab"]);
        assert_eq!(terms_of("日本語 テキスト"), ["日本語", "テキスト"]);
    }

    #[test]
    fn the_stop_words_are_sorted_for_the_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]), "STOP_WORDS must stay sorted");
        assert!(STOP_WORDS.iter().all(|w| w.len() <= LONGEST_STOP_WORD && !w.contains('\0')));
        assert!(PACKED_STOP_WORDS.windows(2).all(|w| w[0] < w[1]), "packing keeps the order");
        assert!(is_stop_word("the") && !is_stop_word("weather"));
        for word in STOP_WORDS {
            assert!(is_stop_word(word), "{word}");
            let longer = format!("{word}x");
            assert_eq!(is_stop_word(&longer), STOP_WORDS.contains(&longer.as_str()), "{longer}");
        }
        for word in ["", "th", "thee", "the\0", "yourselves", "wherever", "whomever", "a\0"] {
            assert_eq!(is_stop_word(word), STOP_WORDS.contains(&word), "{word:?}");
        }
    }

    #[test]
    fn a_very_long_word_is_no_term() {
        let blob = "a".repeat(MAX_WORD + 1);
        assert!(terms_of(&blob).is_empty());
    }
}
