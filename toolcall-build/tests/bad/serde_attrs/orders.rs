use serde::Deserialize;

/// A rename rule serde does not know, and a key serde does not have.
#[derive(Deserialize)]
#[serde(rename_all = "Title Case", deny_unknown_field)]
pub struct Order {
    pub item_name: String,
    #[serde(rename = 7)]
    pub quantity: u32,
}

/// Tagged and untagged at once.
#[derive(Deserialize)]
#[serde(tag = "kind", untagged)]
pub enum Shape {
    Circle { radius: f64 },
    #[serde(skip_if = "always")]
    Square { side: f64 },
}

/// Place an order.
pub fn place(order: Order, shape: Shape) -> String {
    let _ = (order, shape);
    String::new()
}
