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

/// Add two whole numbers, as an `async fn`: the same work as `add`, for measuring what
/// the boxed future of an async tool costs.
///
/// # Arguments
///
/// * `a` - the first addend
/// * `b` - the second addend
pub async fn add_async(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}
