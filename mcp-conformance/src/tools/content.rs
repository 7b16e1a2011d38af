//! Tools whose results are content blocks: text, an image, audio, an embedded resource,
//! several at once, and an error.

use toolcall_runtime::Content;

use crate::media::{png, wav};

/// Returns a simple text.
pub fn test_simple_text() -> Content {
    Content::text("This is a simple text response for testing.")
}

/// Returns a 1x1 PNG image.
pub fn test_image_content() -> Content {
    Content::image("image/png", png())
}

/// Returns a short WAV sound.
pub fn test_audio_content() -> Content {
    Content::audio("audio/wav", wav())
}

/// Returns an embedded text resource.
pub fn test_embedded_resource() -> Content {
    Content::resource_text("test://embedded-resource", "text/plain", "This is an embedded resource content.")
}

/// Returns text, an image and an embedded resource together.
pub fn test_multiple_content_types() -> Vec<Content> {
    vec![
        Content::text("Multiple content types test:"),
        Content::image("image/png", png()),
        Content::resource_text(
            "test://mixed-content-resource",
            "application/json",
            r#"{"test":"data","value":123}"#,
        ),
    ]
}

/// Always fails, to test how errors reach the client.
///
/// # Errors
///
/// Always.
pub fn test_error_handling() -> Result<Content, String> {
    Err("This tool intentionally returns an error for testing".to_owned())
}
