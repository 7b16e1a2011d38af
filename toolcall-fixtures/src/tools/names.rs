//! Parameter naming: unnamed patterns take their `# Arguments` bullet's name by position,
//! else `argN`; raw identifiers lose `r#`; a repeated name becomes `name_2`.

/// Unnamed parameters named by their bullets.
///
/// # Arguments
///
/// * `first` - named from the first bullet
/// * `pair` - a destructured pair, named from the second bullet
pub fn unnamed_by_bullet(_: u8, (a, b): (u8, u8)) -> u32 {
    u32::from(a) + u32::from(b)
}

/// Unnamed parameters with no bullets fall back to `argN`.
pub fn unnamed_fallback(_: bool, count: u8, (x, y): (i32, i32)) -> i64 {
    i64::from(count) + i64::from(x) + i64::from(y)
}

/// Raw identifiers: the tool is `loop`, the parameter `type`.
///
/// # Arguments
///
/// * `r#type` - the kind of loop
pub fn r#loop(r#type: String) -> String {
    r#type
}

/// A repeated bullet name is exposed as `city_2`.
///
/// # Arguments
///
/// * `city` - the first city
/// * `city` - the second city
pub fn duplicate_names(_: String, _: String) -> bool {
    true
}
