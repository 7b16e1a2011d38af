/// List the invoices.
pub fn invoices() -> Vec<u32> {
    Vec::new()
}
