//! [`ToolParam`]: per-parameter overrides a tool file declares as a typed const.
//!
//! ```
//! use toolcall_runtime::ToolParam;
//!
//! const TOOL_PARAMS: &[ToolParam] = &[
//!     ToolParam::new("transfer", "user_id").string_integer().description("Snowflake id"),
//! ];
//! assert!(TOOL_PARAMS[0].is_string_integer());
//! ```
//!
//! The compiler checks the declaration; the build script reads the same syntax to change
//! the schema and the decoding. At run time the value is inert.

/// An override for one parameter of one tool function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToolParam {
    function: &'static str,
    name: &'static str,
    description: Option<&'static str>,
    string_integer: bool,
}

impl ToolParam {
    /// An override for parameter `name` of function `function`.
    pub const fn new(function: &'static str, name: &'static str) -> Self {
        ToolParam { function, name, description: None, string_integer: false }
    }

    /// Replaces the parameter's description; `""` clears it (no fallback is used).
    pub const fn description(mut self, text: &'static str) -> Self {
        self.description = Some(text);
        self
    }

    /// The integer travels as a decimal string, for values past 2^53.
    pub const fn string_integer(mut self) -> Self {
        self.string_integer = true;
        self
    }

    /// The function this override applies to.
    pub const fn function(&self) -> &'static str {
        self.function
    }

    /// The parameter this override applies to.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The description override, if any.
    pub const fn description_override(&self) -> Option<&'static str> {
        self.description
    }

    /// Whether the string-integer wire is on.
    pub const fn is_string_integer(&self) -> bool {
        self.string_integer
    }
}
