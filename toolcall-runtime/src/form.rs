//! Typed forms: a crate type a tool asks the user to fill in mid-call
//! ([`Progress::ask`](crate::Progress::ask)), instead of a schema written by hand.
//!
//! [`Form`] is what asking needs of such a type: the flat object schema MCP's elicitation
//! takes (string, number, integer, boolean and enum fields, and lists of enum values) and
//! a decoder from the values the user gave. toolcall-build generates the impl for every
//! type named in `build.rs` with `Builder::form_type("crate::Confirm")`: the schema from
//! the type's fields and docs (an enum whose variants have docs is a titled choice, as
//! SEP-1330 defines), checked flat at build time, and the decoder the type's generated
//! `FromArg`, so an answer that does not fit gets the message a tool's wrong argument
//! gets. [`prefilled`] adds a value's fields as each property's `default` (SEP-1034).
//!
//! ```
//! use serde_json::{Value, json};
//! use toolcall_runtime::Form;
//!
//! /// A hand-written impl (the build writes these for you).
//! struct Confirm { confirm: bool }
//! impl Form for Confirm {
//!     fn schema() -> &'static str {
//!         r#"{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}"#
//!     }
//!     fn decode(values: &Value) -> Result<Self, String> {
//!         values["confirm"].as_bool().map(|confirm| Confirm { confirm }).ok_or_else(|| "confirm: expected a boolean".to_owned())
//!     }
//! }
//! let schema = toolcall_runtime::prefilled(Confirm::schema(), &json!({"confirm": true}));
//! assert_eq!(schema["properties"]["confirm"]["default"], true);
//! assert!(Confirm::decode(&json!({"confirm": false})).is_ok_and(|c| !c.confirm));
//! ```

use serde_json::Value;

use crate::decode::ArgError;

/// A type a tool can ask the user to fill in: toolcall-build generates the impl for each
/// type named with `Builder::form_type`. [`Progress::ask`](crate::Progress::ask) sends
/// [`Form::schema`] and reads the answer with [`Form::decode`].
///
/// The generated schema is MCP elicitation's flat form, one property per field (its doc
/// comment the `description`; an `Option` field is not `required`): a string (a
/// `chrono`/`uuid` type's `format`, lengths), a number or integer (with its type's
/// bounds), a boolean, an enum, or a `Vec` of enum values (a multi-select, `type: array`
/// of `enum` items). An enum whose variants have doc comments is a titled choice, `oneOf`
/// of `{"const", "title"}` (SEP-1330); one without is a plain `enum`. The deprecated
/// `enumNames` (2025-11-25 keeps it for old clients only) is never written: there is no
/// way to ask for it. A hand-written schema ([`Progress::elicit`](crate::Progress::elicit))
/// may still carry it.
///
/// ```
/// # use std::collections::BTreeMap;
/// # let models = r#"
/// /// How to ship.
/// #[derive(serde::Deserialize)]
/// pub struct Shipping {
///     /// How fast.
///     pub speed: Speed,
///     /// Gift wrap.
///     pub wrap: Option<bool>,
/// }
///
/// #[derive(serde::Deserialize)]
/// #[serde(rename_all = "lowercase")]
/// pub enum Speed {
///     /// Within a week.
///     Standard,
///     /// Tomorrow.
///     Express,
/// }
/// # "#;
/// # let files = BTreeMap::from([
/// #     ("src/lib.rs".into(), "pub mod models;\npub mod tools;\n".to_owned()),
/// #     ("src/models.rs".into(), models.to_owned()),
/// #     ("src/tools/mod.rs".into(), String::new()),
/// # ]);
/// # let generated = toolcall_build::Builder::new().form_type("crate::models::Shipping").generate_from_files(files);
/// # let code = generated.map(|g| g.code).unwrap_or_default();
/// # let text = code.split("impl ::toolcall_runtime::Form for crate::models::Shipping").nth(1)
/// #     .and_then(|rest| rest.split("r#\"").nth(1)).and_then(|t| t.split("\"#").next()).unwrap_or_default();
/// # let schema: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
/// // With `.form_type("crate::models::Shipping")` in build.rs, `Shipping::schema()` is:
/// assert_eq!(schema, serde_json::json!({
///     "type": "object",
///     "properties": {
///         "speed": {
///             "type": "string",
///             "description": "How fast.",
///             "oneOf": [{"const": "standard", "title": "Within a week"}, {"const": "express", "title": "Tomorrow"}]
///         },
///         "wrap": {"type": "boolean", "description": "Gift wrap."}
///     },
///     "required": ["speed"]
/// }));
/// assert!(!text.contains("enumNames"));
/// ```
pub trait Form: Sized {
    /// The form's schema as JSON text: a flat object schema MCP elicitation takes (see
    /// the trait's documentation for what it holds).
    fn schema() -> &'static str;
    /// Decodes the values the user gave (a JSON object) as the generated decoder of the
    /// type does a tool's argument: a missing field, a value of the wrong type and a
    /// field the form does not have are each refused, naming the field (`copies:
    /// expected an integer, got "two"`, `unknown field "why"`).
    fn decode(values: &Value) -> Result<Self, String>;
}

/// `schema` (a form's JSON text) with each property of `defaults` that the schema has set
/// as that property's `default`: what the form shows filled in (SEP-1034). A `null` value
/// sets none. A schema that is not JSON is `null`.
pub fn prefilled(schema: &str, defaults: &Value) -> Value {
    let mut schema: Value = serde_json::from_str(schema).unwrap_or(Value::Null);
    if let (Some(properties), Some(values)) =
        (schema.get_mut("properties").and_then(Value::as_object_mut), defaults.as_object())
    {
        for (name, value) in values.iter().filter(|(_, value)| !value.is_null()) {
            if let Some(Value::Object(property)) = properties.get_mut(name) {
                property.insert("default".to_owned(), value.clone());
            }
        }
    }
    schema
}

/// Decodes a form's values as generated [`Form::decode`] impls do: `read` (the type's
/// decoder) on the whole object, its errors naming the form's fields (`age: expected an
/// integer, got "ten"`, `unknown field "why"`: [`ArgError::form_text`]).
#[doc(hidden)]
pub fn decode_values<T>(
    values: &Value,
    read: impl for<'v> FnOnce(&'v Value) -> Result<T, ArgError>,
) -> Result<T, String> {
    read(values).map_err(|error| error.form_text())
}
