//! Snapshots of every schema the example app emits: each format, strict and not.
//! A changed snapshot is a changed decision about what models see; review it
//! (`cargo insta review`) before accepting it.

use example_app::toolset;
use toolcall_runtime::Format;
use toolcall_runtime::json::pretty;

fn snapshot_name(format: Format, strict: bool) -> String {
    format!("{}_{}", format.as_str(), if strict { "strict" } else { "lax" })
}

#[test]
fn every_emitted_schema_matches_its_snapshot() {
    for format in Format::ALL {
        for strict in [false, true] {
            let text = pretty(toolset::ALL.emit(format, strict));
            insta::with_settings!({
                snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/example-app"),
                prepend_module_to_snapshot => false,
                omit_expression => true,
            }, {
                insta::assert_snapshot!(snapshot_name(format, strict), text);
            });
        }
    }
}

#[test]
fn pretty_printing_keeps_the_emitted_json() {
    for format in Format::ALL {
        for strict in [false, true] {
            let text = toolset::ALL.emit(format, strict);
            let reparsed: serde_json::Value = serde_json::from_str(&pretty(text)).unwrap();
            assert_eq!(reparsed, toolset::ALL.emit_value(format, strict), "{format:?} strict={strict}");
        }
    }
}
