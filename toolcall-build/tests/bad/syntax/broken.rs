//! A syntax error: the file is reported at its line and skipped.

/// Never parsed.
pub fn broken(city: String {
    city
}
