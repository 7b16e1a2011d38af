//! The prompts the suite asks for, each a plain function.

use toolcall_runtime::{Content, Message};

use crate::media::png;

/// A simple prompt without arguments.
pub fn test_simple_prompt() -> &'static str {
    "This is a simple prompt for testing."
}

/// A prompt with two arguments.
///
/// # Arguments
/// - `arg1`: First test argument
/// - `arg2`: Second test argument
pub fn test_prompt_with_arguments(arg1: String, arg2: String) -> String {
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

/// A prompt with an embedded resource.
///
/// # Arguments
/// - `resourceUri`: URI of the resource to embed
#[allow(non_snake_case)] // The suite names the argument so.
pub fn test_prompt_with_embedded_resource(resourceUri: String) -> Vec<Message> {
    vec![
        Message::user(Content::resource_text(
            resourceUri,
            "text/plain",
            "Embedded resource content for testing.",
        )),
        Message::user(Content::text("Please process the embedded resource above.")),
    ]
}

/// A prompt with an image.
pub fn test_prompt_with_image() -> Vec<Message> {
    vec![
        Message::user(Content::image("image/png", png())),
        Message::user(Content::text("Please analyze the image above.")),
    ]
}

/// A prompt that asks the user what context to use before it is written (SEP-2322: an
/// input-required result answers `prompts/get` too).
///
/// # Errors
///
/// When the client cannot ask the user.
pub async fn test_input_required_result_prompt(
    progress: &toolcall_runtime::Progress,
) -> Result<String, String> {
    let schema = serde_json::json!({
        "type": "object",
        "properties": {"context": {"type": "string"}},
        "required": ["context"],
    });
    let answer = progress
        .keyed("user_context")
        .elicit("What context should the prompt use?", &schema)
        .await
        .map_err(|e| e.to_string())?;
    let context = match answer {
        toolcall_runtime::Answer::Accept(values) => {
            values.get("context").and_then(|v| v.as_str()).unwrap_or_default().to_owned()
        }
        other => format!("{other:?}"),
    };
    Ok(format!("Write with this context in mind: {context}"))
}
