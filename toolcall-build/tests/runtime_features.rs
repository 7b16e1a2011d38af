//! A parameter whose decoder needs a toolcall-runtime feature the crate does not enable
//! is an error at the parameter that names the feature (#42 item 4), not a trait error
//! inside the generated code; with the feature, or when the features are unknown, it is
//! not.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::PathBuf;

use toolcall_build::{Builder, Level};

const TOOL: &str = "use chrono::{DateTime, Utc};\n\n\
    /// Books a slot.\n///\n/// # Arguments\n///\n/// * `at` - when\n/// * `id` - which booking\n\
    pub fn book(at: DateTime<Utc>, id: Vec<uuid::Uuid>) -> bool { true }\n";

fn files() -> BTreeMap<PathBuf, String> {
    [
        ("src/lib.rs", "pub mod tools;"),
        ("src/tools/mod.rs", "pub mod booking;"),
        ("src/tools/booking.rs", TOOL),
    ]
    .map(|(path, text)| (PathBuf::from(path), text.to_owned()))
    .into()
}

fn errors(builder: Builder) -> Vec<String> {
    let generated = builder.generate_from_files(files()).unwrap();
    generated.diagnostics.iter().filter(|d| d.level == Level::Error).map(ToString::to_string).collect()
}

#[test]
fn a_missing_runtime_feature_is_an_error_at_the_parameter() {
    let found = errors(Builder::new().runtime_features(Vec::<String>::new()));
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].starts_with("src/tools/booking.rs:9:"), "{found:?}");
    assert!(found[0].contains("`DateTime` is decoded by toolcall-runtime's `chrono` feature"), "{found:?}");
    assert!(
        found[0].contains(r#"add `features = ["chrono"]` to its toolcall-runtime dependency"#),
        "{found:?}"
    );
    assert!(found[1].contains("toolcall-runtime's `uuid` feature"), "{found:?}");

    let only_chrono = errors(Builder::new().runtime_features(["chrono"]));
    assert_eq!(only_chrono.len(), 1, "{only_chrono:?}");
    assert!(only_chrono[0].contains("`uuid` feature"), "{only_chrono:?}");
    assert!(errors(Builder::new().runtime_features(["chrono", "uuid"])).is_empty());
}

#[test]
fn unknown_features_are_not_checked() {
    // Outside a build script nothing says which features the runtime has.
    assert!(errors(Builder::new()).is_empty());
}
