//! Tools that ask while they run: the user through a form (elicitation, with the
//! defaults of SEP-1034 and the enums of SEP-1330), and the client's model (sampling).

use serde_json::{Value, json};
use toolcall_runtime::{Answer, Content, Progress};

/// Asks the client's model a question and returns its answer.
///
/// # Arguments
///
/// * `prompt` - what to ask the model
///
/// # Errors
///
/// When the client cannot be asked or its model does not answer.
pub async fn test_sampling(prompt: String, progress: &Progress) -> Result<Content, String> {
    let answer = progress.sample(&prompt, 100).await.map_err(|e| e.to_string())?;
    Ok(Content::text(format!("LLM response: {answer}")))
}

/// Asks the user for their username and email address.
///
/// # Arguments
///
/// * `message` - what to tell the user
///
/// # Errors
///
/// When the client cannot ask the user.
pub async fn test_elicitation(message: String, progress: &Progress) -> Result<Content, String> {
    let schema = json!({
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"},
        },
        "required": ["username", "email"],
    });
    let answer = progress.elicit(&message, &schema).await.map_err(|e| e.to_string())?;
    Ok(Content::text(format!("User response: {}", described(&answer))))
}

/// Asks the user to review a form whose fields have defaults (SEP-1034).
///
/// # Errors
///
/// When the client cannot ask the user.
pub async fn test_elicitation_sep1034_defaults(progress: &Progress) -> Result<Content, String> {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {
                "type": "string",
                "description": "User status",
                "enum": ["active", "inactive", "pending"],
                "default": "active",
            },
            "verified": {"type": "boolean", "description": "Verification status", "default": true},
        },
        "required": [],
    });
    let message = "Please review and update the form fields with defaults";
    let answer = progress.elicit(message, &schema).await.map_err(|e| e.to_string())?;
    Ok(Content::text(format!("Elicitation completed: {}", described(&answer))))
}

/// Asks the user to pick from enums in each of SEP-1330's shapes.
///
/// # Errors
///
/// When the client cannot ask the user.
pub async fn test_elicitation_sep1330_enums(progress: &Progress) -> Result<Content, String> {
    let titled = |pairs: [(&str, &str); 3]| -> Vec<Value> {
        pairs.iter().map(|(value, title)| json!({"const": value, "title": title})).collect()
    };
    let schema = json!({
        "type": "object",
        "properties": {
            "untitledSingle": {
                "type": "string",
                "description": "Select one option",
                "enum": ["option1", "option2", "option3"],
            },
            "titledSingle": {
                "type": "string",
                "description": "Select one option with titles",
                "oneOf": titled([("value1", "First Option"), ("value2", "Second Option"), ("value3", "Third Option")]),
            },
            "legacyEnum": {
                "type": "string",
                "description": "Select one option (legacy)",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"],
            },
            "untitledMulti": {
                "type": "array",
                "description": "Select multiple options",
                "minItems": 1,
                "maxItems": 3,
                "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
            },
            "titledMulti": {
                "type": "array",
                "description": "Select multiple options with titles",
                "minItems": 1,
                "maxItems": 3,
                "items": {"anyOf": titled([("value1", "First Choice"), ("value2", "Second Choice"), ("value3", "Third Choice")])},
            },
        },
        "required": [],
    });
    let message = "Please select options from the enum fields";
    let answer = progress.elicit(message, &schema).await.map_err(|e| e.to_string())?;
    Ok(Content::text(format!("Elicitation completed: {}", described(&answer))))
}

/// `action=accept, content={..}`, or the action the user took.
fn described(answer: &Answer) -> String {
    match answer {
        Answer::Accept(values) => format!("action=accept, content={}", Value::Object(values.clone())),
        Answer::Decline => "action=decline".to_owned(),
        Answer::Cancel => "action=cancel".to_owned(),
    }
}
