use serde::Deserialize;

/// Sort settings.
#[derive(Deserialize, Default)]
pub struct Sorting {
    /// Field to sort by.
    pub by: String,
}

fn computed() -> u32 {
    7
}

/// List the entries.
///
/// # Arguments
///
/// * `page` - page number
/// * `size` - page size
/// * `depth` - how deep to go
/// * `offset` - where to start
/// * `sorting` - how to sort
/// * `label` - what to show
pub fn list(
    page: Option<u32>,
    size: Option<u32>,
    depth: Option<u32>,
    offset: Option<u32>,
    sorting: Option<Sorting>,
    label: Option<String>,
) -> u32 {
    let page = page.unwrap_or(computed());
    let size = size.unwrap_or(100).min(50);
    let depth = if page > 1 { depth.unwrap_or(1) } else { depth.unwrap_or(2) };
    let offset = offset.unwrap_or(0).pow(2);
    let sorting = sorting.unwrap_or_default();
    let label = label.unwrap_or_else(|| "none".to_owned());
    page + size + depth + offset + sorting.by.len() as u32 + label.len() as u32
}

/// Page through the entries: defaults written other ways.
///
/// # Arguments
///
/// * `limit` - at most this many
/// * `offset` - where to start
/// * `order` - sort order
/// * `scale` - scale factor
/// * `depth` - how deep to go
/// * `top` - the first one shown
pub fn page(
    limit: Option<u32>,
    offset: Option<u32>,
    order: Option<String>,
    scale: Option<u32>,
    depth: Option<u32>,
    top: Option<u32>,
) -> u32 {
    const FIRST: u32 = 1;
    let limit = match limit {
        Some(l) => l,
        None => 20,
    };
    let offset = if let Some(o) = offset { o } else { FIRST };
    let order = order.map(|o| o.to_lowercase()).unwrap_or("asc".to_owned());
    let scale = scale.map(|s| s * 2).unwrap_or(2);
    let depth = match depth {
        Some(d) => d,
        None => computed(),
    };
    let top = top.map_or(5, |t| t);
    limit + offset + order.len() as u32 + scale + depth + top
}
