use toolcall_runtime::ToolMeta;

const WRITE: &[&str] = &["notes:write"];

pub(crate) const TOOLS: &[ToolMeta] = &[
    ToolMeta::new("add").scopes(&["notes:write", ""]),
    ToolMeta::new("remove").scopes(&["notes write", "notes:write", "notes:write"]),
    ToolMeta::new("rename").scopes(&["quote\"d", "back\\slash", "naïve", "tab\there"]),
    ToolMeta::new("list").scopes(WRITE),
    ToolMeta::new("show").scopes(&["notes:read", SCOPE]).scopes(&["again"]),
];

/// Add one.
pub fn add() -> u64 {
    1
}

/// Remove one.
pub fn remove() -> u64 {
    2
}

/// Rename one.
pub fn rename() -> u64 {
    3
}

/// List them.
pub fn list() -> u64 {
    4
}

/// Show one.
pub fn show() -> u64 {
    5
}
