use toolcall_runtime::ToolMeta;

pub(crate) const TOOLS: &[ToolMeta] = &[
    ToolMeta::new("remove").name("remove it!"),
    ToolMeta::new("remove").title("twice"),
    ToolMeta::new("nowhere").title("x"),
    ToolMeta::new("lookup").example("{not json").example(r#"{"id":"x"}"#).example(r#"{"id":7}"#),
    ToolMeta::new("other").name("lookup").shout().icon("icon.png", "png").meta("k", "{bad").meta("", "1"),
    ToolMeta::new("lokup").read_only(),
];

/// Remove one.
///
/// # Arguments
///
/// * `id` - which one
pub fn remove(id: u64) -> u64 {
    id
}

/// Look one up.
///
/// # Arguments
///
/// * `id` - which one
pub fn lookup(id: u64) -> u64 {
    id
}

/// Something else.
pub fn other() -> u64 {
    1
}
