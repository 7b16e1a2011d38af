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
//!
//! A range narrows what the Rust type allows, in the schema of every format (as keywords,
//! or in the description where a format has none) and in the decoder, which refuses a
//! value outside it with the same error as any out-of-range value:
//!
//! ```
//! use toolcall_runtime::ToolParam;
//!
//! const TOOL_PARAMS: &[ToolParam] = &[
//!     ToolParam::new("set_alarm", "hour").range(0, 23),
//!     ToolParam::new("set_alarm", "label").length(1, 40),
//!     ToolParam::new("search", "limit").min(1).max(50),
//! ];
//! assert_eq!(TOOL_PARAMS[0].bounds(), (Some(0), Some(23)));
//! ```

/// An override for one parameter of one tool function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToolParam {
    function: &'static str,
    name: &'static str,
    description: Option<&'static str>,
    string_integer: bool,
    minimum: Option<i64>,
    maximum: Option<i64>,
    min_length: Option<u64>,
    max_length: Option<u64>,
    header: Option<&'static str>,
}

impl ToolParam {
    /// An override for parameter `name` of function `function`.
    pub const fn new(function: &'static str, name: &'static str) -> Self {
        ToolParam {
            function,
            name,
            description: None,
            string_integer: false,
            minimum: None,
            maximum: None,
            min_length: None,
            max_length: None,
            header: None,
        }
    }

    /// The number (integer or not) must be within `min..=max`.
    pub const fn range(self, min: i64, max: i64) -> Self {
        self.min(min).max(max)
    }

    /// The number must be at least `min`.
    pub const fn min(mut self, min: i64) -> Self {
        self.minimum = Some(min);
        self
    }

    /// The number must be at most `max`.
    pub const fn max(mut self, max: i64) -> Self {
        self.maximum = Some(max);
        self
    }

    /// The string (in characters) or array (in items) must be `min..=max` long.
    pub const fn length(mut self, min: u64, max: u64) -> Self {
        self.min_length = Some(min);
        self.max_length = Some(max);
        self
    }

    /// The numeric range, `(min, max)`.
    pub const fn bounds(&self) -> (Option<i64>, Option<i64>) {
        (self.minimum, self.maximum)
    }

    /// The length range, `(min, max)`.
    pub const fn length_bounds(&self) -> (Option<u64>, Option<u64>) {
        (self.min_length, self.max_length)
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

    /// Mirrors the parameter into the HTTP header `Mcp-Param-<name>` (MCP SEP-2243).
    ///
    /// The tool's non-strict input schema, the one MCP servers list, carries
    /// `"x-mcp-header": "<name>"` on that property (the strict and Gemini schemas do not:
    /// those providers refuse unknown keywords). MCP clients on revision 2026-07-28 then
    /// send the argument's value in the header `Mcp-Param-<name>` of the Streamable HTTP
    /// request as well as in its body, so that gateways can route on it without reading
    /// the body; the server checks the header against the body and refuses a request
    /// where they differ.
    ///
    /// `name` must be a non-empty RFC 9110 token (letters, digits and ``!#$%&'*+-.^_`|~``),
    /// unique case-insensitively among the tool's headers, and the parameter a string, an
    /// integer or a boolean (`Option<T>` of one too: absent or `null` sends no header).
    /// The build checks all of this and fails with the override's location otherwise.
    /// Header values are visible to every intermediary: do not mirror secrets.
    ///
    /// ```
    /// use toolcall_runtime::ToolParam;
    ///
    /// const TOOL_PARAMS: &[ToolParam] = &[ToolParam::new("get_forecast", "region").header("Region")];
    /// assert_eq!(TOOL_PARAMS[0].header_name(), Some("Region"));
    /// ```
    pub const fn header(mut self, name: &'static str) -> Self {
        self.header = Some(name);
        self
    }

    /// The header the parameter is mirrored into (after `Mcp-Param-`), if any.
    pub const fn header_name(&self) -> Option<&'static str> {
        self.header
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
