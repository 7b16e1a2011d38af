//! Whether telemetry records content: one process-wide switch for tool arguments,
//! results and error texts on spans, shared by toolcall-mcp's and toolcall-agent's
//! telemetry, and the cut that bounds what is recorded.
//!
//! Content may hold personal or secret data, so it is off unless the application turns
//! it on with [`capture_content`] or the environment sets [`CAPTURE_CONTENT_ENV`] to
//! `true` (the variable OpenTelemetry's GenAI instrumentations read).
//!
//! ```
//! use toolcall_runtime::capture;
//!
//! capture::capture_content(true);
//! assert!(capture::captures_content());
//! assert_eq!(capture::cut("abcdef", 3), "abc…");
//! ```

use std::borrow::Cow;
use std::sync::atomic::{AtomicU8, Ordering};

/// The environment variable that turns on recording tool arguments, results and error
/// texts when it is `true` (any case, surrounding spaces ignored).
pub const CAPTURE_CONTENT_ENV: &str = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";

/// The longest argument or result text recorded on a span, in characters; past it the
/// text is cut and ends with `…`.
pub const MAX_CAPTURED: usize = 16 * 1024;

const UNSET: u8 = 0;
const OFF: u8 = 1;
const ON: u8 = 2;

/// The switch: [`UNSET`] until asked, then read once from the environment.
static CAPTURE: AtomicU8 = AtomicU8::new(UNSET);

/// Records tool arguments, results and error texts on the spans (`on`), or not, for the
/// whole process, whatever [`CAPTURE_CONTENT_ENV`] says. They may hold personal or secret
/// data: turn this on only where the trace backend may hold them.
pub fn capture_content(on: bool) {
    CAPTURE.store(if on { ON } else { OFF }, Ordering::Relaxed);
}

/// Whether content is recorded: [`capture_content`]'s choice, else whether
/// [`CAPTURE_CONTENT_ENV`] is `true` (read once).
pub fn captures_content() -> bool {
    match CAPTURE.load(Ordering::Relaxed) {
        UNSET => {
            let on = std::env::var(CAPTURE_CONTENT_ENV).is_ok_and(|v| v.trim().eq_ignore_ascii_case("true"));
            // A racing `capture_content` wins over the environment.
            let _ = CAPTURE.compare_exchange(
                UNSET,
                if on { ON } else { OFF },
                Ordering::Relaxed,
                Ordering::Relaxed,
            );
            CAPTURE.load(Ordering::Relaxed) == ON
        }
        state => state == ON,
    }
}

/// `text`, or its first `max` characters (not bytes) and `…` when it is longer.
pub fn cut(text: &str, max: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max) {
        None => Cow::Borrowed(text),
        Some((end, _)) => Cow::Owned(format!("{}…", &text[..end])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_counts_characters_and_marks_the_cut() {
        assert_eq!(cut("héllo", 5), "héllo");
        assert!(matches!(cut("héllo", 5), Cow::Borrowed(_)));
        assert_eq!(cut("héllo", 2), "hé…");
        assert_eq!(cut("", 0), "");
        assert_eq!(cut("x", 0), "…");
    }

    #[test]
    fn the_switch_set_in_code_wins_and_can_be_turned_off() {
        capture_content(true);
        assert!(captures_content());
        capture_content(false);
        assert!(!captures_content());
    }
}
