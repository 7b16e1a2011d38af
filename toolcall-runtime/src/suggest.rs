//! "Did you mean": the known name closest to one a model got wrong, so it never has to
//! guess what was meant. A name matches when it differs only in case, or within a small
//! edit distance (a third of its length, at least one edit, and never all of it: `x` is
//! not a misspelt `a`), compared case-insensitively.

/// Names longer than this get no suggestion (the edit distance is quadratic).
const MAX_LEN: usize = 64;

/// The name in `known` closest to `name`, when one is close enough; the first of equally
/// close names.
///
/// ```
/// use toolcall_runtime::closest_name;
///
/// assert_eq!(closest_name("A", ["a", "b"]), Some("a"));
/// assert_eq!(closest_name("get_wether", ["add", "get_weather"]), Some("get_weather"));
/// assert_eq!(closest_name("zz", ["city", "days"]), None);
/// ```
pub fn closest_name<'k>(name: &str, known: impl IntoIterator<Item = &'k str>) -> Option<&'k str> {
    if name.len() > MAX_LEN {
        return None;
    }
    let lower = name.to_lowercase();
    let length = lower.chars().count();
    let limit = (length.max(3) / 3).min(length.saturating_sub(1));
    let mut best: Option<(usize, &'k str)> = None;
    for candidate in known {
        if candidate == name || candidate.len() > MAX_LEN {
            continue;
        }
        let distance = edit_distance(&lower, &candidate.to_lowercase());
        if distance <= limit && best.is_none_or(|(shortest, _)| distance < shortest) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, candidate)| candidate)
}

/// Edit distance between `a` and `b`, in characters: insertions, deletions,
/// substitutions and swaps of two neighbours (`lable` is one edit from `label`), each
/// costing one (the optimal-string-alignment distance).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for i in 0..a.len() {
        current[0] = i + 1;
        for j in 0..b.len() {
            let substitute = previous[j] + usize::from(a[i] != b[j]);
            let mut best = substitute.min(previous[j + 1] + 1).min(current[j] + 1);
            if i > 0 && j > 0 && a[i] == b[j - 1] && a[i - 1] == b[j] {
                best = best.min(before[j - 1] + 1);
            }
            current[j + 1] = best;
        }
        std::mem::swap(&mut before, &mut previous);
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_only_differences_are_distance_zero() {
        assert_eq!(closest_name("CITY", ["days", "city"]), Some("city"));
        assert_eq!(closest_name("cityName", ["city_name"]), Some("city_name"));
    }

    #[test]
    fn the_closest_wins_and_far_names_are_not_suggested() {
        assert_eq!(closest_name("dayz", ["days", "dates"]), Some("days"));
        assert_eq!(closest_name("x", ["a", "b"]), None);
        assert_eq!(closest_name("A", ["a"]), Some("a"));
        assert_eq!(closest_name("units", ["city", "days"]), None);
        assert_eq!(closest_name("lable", ["hour", "label"]), Some("label"));
        assert_eq!(closest_name("", ["a"]), None);
        assert_eq!(closest_name("a", std::iter::empty()), None);
    }

    #[test]
    fn long_names_are_not_compared() {
        let long = "a".repeat(100_000);
        assert_eq!(closest_name(&long, ["a"]), None);
    }

    #[test]
    fn edit_distance_counts_characters() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("é", "e"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("lable", "label"), 1, "a swap of neighbours is one edit");
        assert_eq!(edit_distance("ab", "ba"), 1);
    }
}
