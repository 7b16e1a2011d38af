//! Defaults outside the parameter type's domain are not sent to the model.

/// Paint.
pub fn paint(level: Option<u8>, count: Option<u32>, letter: Option<char>, name: Option<String>) -> u8 {
    let level = level.unwrap_or(300);
    let count = count.unwrap_or(-1);
    let letter = letter.unwrap_or("ab");
    let name = name.unwrap_or(5);
    level
}
