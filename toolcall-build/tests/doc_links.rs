//! What a doc comment's brackets become in a tool's description (#62 item 13), through the
//! whole build: an intra-doc link loses its brackets, a link to a URL keeps the URL, and
//! brackets that are no link reach the model as written. A bare name is a link when the
//! documented item's module declares or imports it, as rustdoc resolves it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;
use toolcall_build::{Builder, Generated};
use toolcall_runtime::Format;
use toolcall_runtime::render::render_tools;

const LIB: &str = "pub mod models;\npub mod tools;\n";

const MODELS: &str = r#"
use serde::Deserialize;

/// A contact; see [Contact].
#[derive(Deserialize)]
pub struct Contact {
    /// The number, as +[country code][number] (see [`Contact`]).
    pub phone: String,
    /// Where the [Contact] lives: [a zone](https://www.iana.org/time-zones).
    pub zone: String,
}
"#;

const TOOLS: &str = r#"
use crate::models::Contact;

/// Logs time for a [Contact]; see [Configuring time tracking](https://example.com/docs/time-tracking)
/// and [log_time].
///
/// # Arguments
///
/// * `who` - the [`Contact`] to call, at +[country code][number]
/// * `minutes` - how long, in [MINUTES] (see [the limits][crate::LIMITS])
pub fn log_time(who: Contact, minutes: u32) -> u32 {
    let _ = who;
    minutes
}
"#;

fn generate() -> Generated {
    let files = [
        ("src/lib.rs", LIB),
        ("src/models.rs", MODELS),
        ("src/tools/mod.rs", "pub mod time;\n"),
        ("src/tools/time.rs", TOOLS),
    ];
    let files: BTreeMap<PathBuf, String> =
        files.iter().map(|(path, text)| (PathBuf::from(path), (*text).to_owned())).collect();
    Builder::new().generate_from_files(files).expect("the crate generates")
}

/// The MCP definition of the crate's only tool.
fn definition(generated: &Generated) -> Value {
    let tools: Vec<_> = generated.modules.iter().flat_map(|m| &m.tools).collect();
    assert_eq!(tools.len(), 1);
    let text = render_tools(tools.iter().map(|t| &t.ir), Format::Mcp, false);
    let parsed: Value = serde_json::from_str(&text).unwrap();
    parsed[0].clone()
}

#[test]
fn what_the_author_wrote_in_brackets_reaches_the_model() {
    let generated = generate();
    assert!(!generated.has_errors(), "{:?}", generated.diagnostics);
    let tool = definition(&generated);
    assert_eq!(
        tool["description"],
        "Logs time for a Contact; see Configuring time tracking (https://example.com/docs/time-tracking) \
         and log_time."
    );
    let properties = &tool["inputSchema"]["properties"];
    assert_eq!(properties["minutes"]["description"], "how long, in [MINUTES] (see the limits)");
    assert_eq!(properties["who"]["description"], "the `Contact` to call, at +[country code][number]");
    // The struct's fields, read in the models module's scope.
    let fields = &properties["who"]["properties"];
    assert_eq!(fields["phone"]["description"], "The number, as +[country code][number] (see `Contact`).");
    assert_eq!(
        fields["zone"]["description"],
        "Where the Contact lives: a zone (https://www.iana.org/time-zones)."
    );
}
