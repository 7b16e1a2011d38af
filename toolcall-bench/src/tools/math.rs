//! A scalar tool: two integers in, one out.

/// Add two whole numbers.
///
/// # Arguments
///
/// * `a` - the first addend
/// * `b` - the second addend
pub fn add(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}
