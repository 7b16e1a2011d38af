//! JSON Schema validation with the `jsonschema` crate: schemas against the 2020-12
//! meta-schema, instances against schemas (with `format` checked, since the providers and
//! the dispatchers both act on it).

use jsonschema::Validator;
use serde_json::Value;

/// Why `schema` is not a valid JSON Schema 2020-12 document (empty when it is).
pub fn meta_errors(schema: &Value) -> Vec<String> {
    let validator = jsonschema::draft202012::meta::validator();
    validator.iter_errors(schema).map(|e| format!("{} (at {})", e, e.instance_path())).collect()
}

/// A validator for `schema` that also checks `format` values. The draft comes from
/// `$schema`, 2020-12 when absent.
///
/// # Panics
///
/// When `schema` cannot be compiled.
pub fn validator(schema: &Value) -> Validator {
    jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .unwrap_or_else(|e| panic!("schema does not compile: {e}\n{schema}"))
}

/// Why `instance` is not valid against `validator` (empty when it is).
pub fn errors(validator: &Validator, instance: &Value) -> Vec<String> {
    validator.iter_errors(instance).map(|e| format!("{} (at {})", e, e.instance_path())).collect()
}
