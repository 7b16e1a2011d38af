//! Return shapes: `Result` (Err -> Failed), `()`, plain values, panics, and a result
//! that cannot be encoded as JSON.

use std::collections::BTreeMap;

/// Divide two numbers.
pub fn divide(a: i32, b: i32) -> Result<i32, String> {
    if b == 0 { Err("division by zero".to_owned()) } else { Ok(a / b) }
}

/// Any `Result` by its last segment counts: `std::io::Result`.
pub fn read_size(path: String) -> std::io::Result<u64> {
    Err(std::io::Error::new(std::io::ErrorKind::NotFound, format!("{path}: not found")))
}

/// Returns `()` explicitly.
#[allow(clippy::unused_unit)]
pub fn log_line(message: String) -> () {
    let _ = message;
}

/// Returns nothing and takes nothing.
pub fn ping() {}

/// Always panics.
pub fn explode(message: String) -> u8 {
    panic!("boom: {message}")
}

/// A map with non-string keys: serde_json cannot encode it.
pub fn unencodable() -> BTreeMap<(u8, u8), u8> {
    BTreeMap::from([((1, 2), 3)])
}

/// Look up how many of an item are in stock.
///
/// # Arguments
///
/// * `item` - the item's name
pub fn stock(item: String) -> Result<u32, toolcall_runtime::ToolFailure> {
    match item.as_str() {
        "lamp" => Ok(3),
        "closed" => {
            Err(toolcall_runtime::ToolFailure::fail("the warehouse is closed").with_code("unavailable"))
        }
        _ => Err(toolcall_runtime::ToolFailure::retry(format!("no item named {item:?}; try \"lamp\""))
            .with_code("not_found")),
    }
}

/// Reserve one of an item; its errors are boxed.
///
/// # Arguments
///
/// * `item` - the item's name
pub fn reserve(item: String) -> Result<u32, Box<dyn std::error::Error + Send + Sync>> {
    match item.as_str() {
        "lamp" => Ok(1),
        "gone" => Err("sold out".into()),
        _ => Err(Box::new(toolcall_runtime::ToolFailure::retry("reserve \"lamp\" instead"))),
    }
}
