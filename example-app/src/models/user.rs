//! The signed-in user and their role: who a call acts for and which tools they may use.

use serde::Serialize;
use toolcall_runtime::ToolInfo;

/// A signed-in user.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct User {
    /// The user's id.
    pub id: u64,
    /// The display name.
    pub name: String,
    /// What the user may do: which tools they see and may call. Decided by the server
    /// from authentication; not part of what `whoami` tells the model.
    #[serde(skip)]
    pub role: Role,
}

impl User {
    /// The demo's user 1, an editor.
    pub fn ada() -> Self {
        User { id: 1, name: "Ada".to_owned(), role: Role::Editor }
    }
}

/// What a signed-in user may do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Role {
    /// Every tool.
    #[default]
    Editor,
    /// Every tool but those annotated destructive (`destructiveHint: true`): a viewer
    /// neither sees them listed nor can call them.
    Viewer,
}

impl Role {
    /// Whether a user of this role sees `tool` and may call it: an editor every tool, a
    /// viewer every tool not annotated destructive. Decided from the tool's annotations
    /// (its `ToolMeta`), never from its name, so a new destructive tool is hidden from
    /// viewers as soon as it says so.
    pub fn may_use(self, tool: &ToolInfo) -> bool {
        match self {
            Role::Editor => true,
            Role::Viewer => !tool.is_destructive(),
        }
    }
}
