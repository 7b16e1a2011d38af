//! The small media files the suite's tools, resources and prompts return.

use toolcall_runtime::base64_decode;

/// A 1x1 red PNG.
const PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// A minimal WAV file (two bytes of sound).
const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// The PNG's bytes.
pub fn png() -> Vec<u8> {
    base64_decode(PNG).unwrap_or_default()
}

/// The WAV's bytes.
pub fn wav() -> Vec<u8> {
    base64_decode(WAV).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_media_decode() {
        assert_eq!(&super::png()[1..4], b"PNG");
        assert_eq!(&super::wav()[..4], b"RIFF");
    }
}
