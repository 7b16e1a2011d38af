//! A tool in a nested module: `toolset::billing::invoices::TOOLS`.

/// Look up an invoice.
///
/// # Arguments
///
/// * `number` - the invoice number
pub fn get_invoice(number: u32) -> String {
    format!("INV-{number:05}")
}
