//! [`ToolMeta`]: what a tool is, beside what it takes. A tool file declares it in a typed
//! `TOOLS` const, next to `TOOL_PARAMS`:
//!
//! ```
//! use toolcall_runtime::ToolMeta;
//!
//! pub(crate) const TOOLS: &[ToolMeta] = &[
//!     ToolMeta::new("delete_note")
//!         .name("remove_note")          // the wire name, everywhere
//!         .title("Remove a note")       // MCP's display name
//!         .destructive()                // MCP annotations: ask a person first
//!         .idempotent()
//!         .timeout_ms(5_000)            // the MCP server's and the agent's limit for it
//!         .scopes(&["notes:write"])     // OAuth: what a caller's token must carry
//!         .example(r#"{"id": 3}"#),     // Anthropic's input_examples
//!     ToolMeta::new("list_notes").read_only().closed_world(),
//! ];
//! assert_eq!(TOOLS[0].wire_name(), Some("remove_note"));
//! assert_eq!(TOOLS[0].required_scopes(), ["notes:write"]);
//! ```
//!
//! The compiler checks the declaration; the build script reads the same syntax, checks
//! it (unknown functions, duplicate or invalid names, examples that are not JSON or that
//! the tool's decoder refuses, scopes that are not RFC 6749 scope tokens are located
//! errors) and emits each field where a format has a place for it. Scopes go nowhere on
//! the wire: only into the tool's `ToolInfo`, for the servers that check them. At run
//! time the value is inert.

/// Metadata for one tool function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToolMeta {
    function: &'static str,
    name: Option<&'static str>,
    title: Option<&'static str>,
    read_only: Option<bool>,
    destructive: Option<bool>,
    idempotent: Option<bool>,
    open_world: Option<bool>,
    timeout_ms: Option<u64>,
    scopes: &'static [&'static str],
    example: Option<&'static str>,
    icon: Option<(&'static str, &'static str)>,
    meta: Option<(&'static str, &'static str)>,
    task: Option<TaskPolicy>,
}

impl ToolMeta {
    /// Metadata for the tool function `function`.
    pub const fn new(function: &'static str) -> Self {
        ToolMeta {
            function,
            name: None,
            title: None,
            read_only: None,
            destructive: None,
            idempotent: None,
            open_world: None,
            timeout_ms: None,
            scopes: &[],
            example: None,
            icon: None,
            meta: None,
            task: None,
        }
    }

    /// The tool's wire name, when it should not be the function's name.
    pub const fn name(mut self, name: &'static str) -> Self {
        self.name = Some(name);
        self
    }

    /// A human-readable title (MCP `title`).
    pub const fn title(mut self, title: &'static str) -> Self {
        self.title = Some(title);
        self
    }

    /// It changes nothing (MCP `readOnlyHint: true`).
    pub const fn read_only(mut self) -> Self {
        self.read_only = Some(true);
        self
    }

    /// It may destroy or overwrite data (MCP `destructiveHint: true`).
    pub const fn destructive(mut self) -> Self {
        self.destructive = Some(true);
        self
    }

    /// It only adds or updates, never destroys (MCP `destructiveHint: false`).
    pub const fn non_destructive(mut self) -> Self {
        self.destructive = Some(false);
        self
    }

    /// Calling it twice with the same arguments does nothing more (MCP `idempotentHint`).
    pub const fn idempotent(mut self) -> Self {
        self.idempotent = Some(true);
        self
    }

    /// It reaches an open world, such as the web (MCP `openWorldHint: true`).
    pub const fn open_world(mut self) -> Self {
        self.open_world = Some(true);
        self
    }

    /// It only touches a closed world, such as its own store (MCP `openWorldHint: false`).
    pub const fn closed_world(mut self) -> Self {
        self.open_world = Some(false);
        self
    }

    /// The time limit of one call, in milliseconds, for servers and agent loops.
    pub const fn timeout_ms(mut self, ms: u64) -> Self {
        self.timeout_ms = Some(ms);
        self
    }

    /// OAuth scopes a caller's token must carry to call this tool (`&["notes:write"]`),
    /// beside the ones every request needs: toolcall-mcp's OAuth resource server answers a
    /// `tools/call` of it without them with 403 `insufficient_scope`. String literals,
    /// each a scope token of RFC 6749 §3.3 (printable ASCII without spaces, `"` or `\`),
    /// each once: the build reads them into the tool's `ToolInfo::scopes` and refuses
    /// anything else, as it does a second `scopes` call on one entry. Never sent to a
    /// model or client.
    pub const fn scopes(mut self, scopes: &'static [&'static str]) -> Self {
        self.scopes = scopes;
        self
    }

    /// An example of arguments, as JSON text. Repeatable: the build script reads every
    /// call (the inert run-time value keeps the last).
    pub const fn example(mut self, json: &'static str) -> Self {
        self.example = Some(json);
        self
    }

    /// An icon a client may show for the tool (MCP `icons`): an `https:` or `data:` URI
    /// and its MIME type. Repeatable, like [`ToolMeta::example`].
    pub const fn icon(mut self, src: &'static str, mime_type: &'static str) -> Self {
        self.icon = Some((src, mime_type));
        self
    }

    /// Metadata for clients under `key` (MCP `_meta`), its value as JSON text
    /// (`.meta("com.example/team", r#""notes""#)`). Repeatable, like [`ToolMeta::example`].
    pub const fn meta(mut self, key: &'static str, json: &'static str) -> Self {
        self.meta = Some((key, json));
        self
    }

    /// It may run as a task (MCP Tasks extension, `io.modelcontextprotocol/tasks`): a
    /// client that declared the extension gets a task handle at once and polls for the
    /// result (`tasks/get`), answers the tool's questions on the task (`tasks/update`) and
    /// may cancel it (`tasks/cancel`); other clients get the result as from any tool. The
    /// tool's signature does not change: its `&Progress` reports become the task's status
    /// message, and its questions the task's input requests.
    pub const fn task(mut self) -> Self {
        self.task = Some(TaskPolicy { support: TaskSupport::Optional, at_detach: self.task_at_detach() });
        self
    }

    /// Like [`ToolMeta::task`], and only as a task: a client that did not declare the
    /// Tasks extension gets error -32021 (missing required client capability) naming it.
    pub const fn task_required(mut self) -> Self {
        self.task = Some(TaskPolicy { support: TaskSupport::Required, at_detach: self.task_at_detach() });
        self
    }

    /// A task tool whose task starts where it calls
    /// [`Progress::detach`](crate::Progress::detach), not when it is called: the
    /// questions it asks before go through the request as any tool's do (on 2026-07-28,
    /// input-required rounds), then the client gets the task handle. Implies
    /// [`ToolMeta::task`] unless [`ToolMeta::task_required`] is set.
    pub const fn task_from_detach(mut self) -> Self {
        let support = match self.task {
            Some(policy) => policy.support,
            None => TaskSupport::Optional,
        };
        self.task = Some(TaskPolicy { support, at_detach: true });
        self
    }

    /// Whether an earlier call set [`ToolMeta::task_from_detach`].
    const fn task_at_detach(&self) -> bool {
        match self.task {
            Some(policy) => policy.at_detach,
            None => false,
        }
    }

    /// How the tool runs as a task, when it may ([`ToolMeta::task`]).
    pub const fn task_policy(&self) -> Option<TaskPolicy> {
        self.task
    }

    /// The function this applies to.
    pub const fn function(&self) -> &'static str {
        self.function
    }

    /// The wire name, when renamed.
    pub const fn wire_name(&self) -> Option<&'static str> {
        self.name
    }

    /// The time limit, in milliseconds.
    pub const fn timeout(&self) -> Option<u64> {
        self.timeout_ms
    }

    /// The OAuth scopes set by [`ToolMeta::scopes`]; empty when none.
    pub const fn required_scopes(&self) -> &'static [&'static str] {
        self.scopes
    }
}

/// Whether a tool may or must run as a task (the Tasks extension's task support).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TaskSupport {
    /// A task for clients that declared the extension, a plain call for the others.
    Optional,
    /// Only as a task: a client without the extension gets error -32021.
    Required,
}

/// How a tool runs as a task ([`ToolMeta::task`]): read by the build into the tool's
/// [`ToolInfo::task`](crate::ToolInfo::task), for servers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TaskPolicy {
    /// Whether it may or must be a task.
    pub support: TaskSupport,
    /// Whether its task starts at [`Progress::detach`](crate::Progress::detach) rather than
    /// when it is called ([`ToolMeta::task_from_detach`]).
    pub at_detach: bool,
}

/// MCP's tool annotations: hints a client may show or act on (ask a person before a
/// destructive call). `None` is the protocol's default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Annotations {
    /// `readOnlyHint`.
    pub read_only: Option<bool>,
    /// `destructiveHint`.
    pub destructive: Option<bool>,
    /// `idempotentHint`.
    pub idempotent: Option<bool>,
    /// `openWorldHint`.
    pub open_world: Option<bool>,
}

impl Annotations {
    /// No hint set: every one at the protocol's default.
    pub const NONE: Annotations =
        Annotations { read_only: None, destructive: None, idempotent: None, open_world: None };

    /// The hints in MCP's order: `readOnlyHint`, `destructiveHint`, `idempotentHint`,
    /// `openWorldHint` (what generated tool tables write).
    pub const fn new(
        read_only: Option<bool>,
        destructive: Option<bool>,
        idempotent: Option<bool>,
        open_world: Option<bool>,
    ) -> Annotations {
        Annotations { read_only, destructive, idempotent, open_world }
    }

    /// Whether no hint is set.
    pub fn is_empty(&self) -> bool {
        *self == Annotations::NONE
    }
}
