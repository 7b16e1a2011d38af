//! A resource template: data by id.

use serde::Serialize;
use toolcall_runtime::ResourceMeta;

pub(crate) const RESOURCES: &[ResourceMeta] =
    &[ResourceMeta::new("data", "test://template/{id}/data").name("template")];

/// The data one id names.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Data {
    /// The id asked for.
    pub id: String,
    /// Always true: this came from a template.
    pub template_test: bool,
    /// What the id holds.
    pub data: String,
}

/// Data by id.
///
/// # Arguments
/// - `id`: any id.
pub fn data(id: String) -> Data {
    Data { data: format!("Data for ID: {id}"), id, template_test: true }
}
