//! Tools that talk back (#32) in the generator: `&Progress` is passed like the context and
//! never in a schema, `&mut Progress` is an error at the parameter, and results of
//! `Content` blocks set `returns_content` with no output schema and no warning.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{diagnostic_lines, generate_one, source};
use toolcall_build::Level;

const TALKING: &str = r#"
use toolcall_runtime::{Content, Progress as Reporter};

/// Exports.
///
/// # Arguments
///
/// * `count` - how many
/// * `progress` - ignored: not a parameter
pub fn export(count: u32, progress: &toolcall_runtime::Progress) -> Vec<Content> {
    progress.report(1, None, "");
    vec![Content::text(count.to_string())]
}

/// A picture.
///
/// # Arguments
///
/// * `size` - pixels
pub fn picture(reporter: &Reporter, size: u8) -> Result<Content, String> {
    let _ = (reporter, size);
    Err("none".into())
}

/// Counts.
///
/// # Arguments
///
/// * `to` - the end
pub fn count(to: u8, progress: &Reporter) -> u8 {
    let _ = progress;
    to
}
"#;

#[test]
fn progress_is_passed_where_the_function_takes_it_and_never_in_a_schema() {
    let generated = generate_one(&source("talking.rs", TALKING));
    assert!(!generated.has_errors(), "{}", diagnostic_lines(&generated));
    assert_eq!(diagnostic_lines(&generated), "(no diagnostics)\n");
    let code = &generated.code;
    assert!(code.contains("crate::tools::talking::export(arg0, progress)"), "{code}");
    assert!(code.contains("crate::tools::talking::picture(progress, arg0)"), "{code}");
    assert!(code.contains("crate::tools::talking::count(arg0, progress)"), "{code}");
    assert!(!code.contains("_progress"), "{code}");
    // A tool without `&Progress` ignores it: its call function binds `_progress`.
    let plain = generate_one(&source("plain.rs", "/// Pi.\npub fn pi() -> f64 {\n    3.14\n}\n"));
    assert!(plain.code.contains("_progress: &'a ::toolcall_runtime::Progress"), "{}", plain.code);
    assert!(plain.code.contains("crate::tools::plain::pi()"), "{}", plain.code);
    let tools = &generated.modules[0].tools;
    let params: Vec<Vec<&str>> =
        tools.iter().map(|t| t.ir.params.iter().map(|p| p.name.as_str()).collect()).collect();
    assert_eq!(params, [vec!["count"], vec!["size"], vec!["to"]]);
}

#[test]
fn content_results_claim_no_output_schema() {
    let generated = generate_one(&source("talking.rs", TALKING));
    let tools = &generated.modules[0].tools;
    // Content blocks claim none; `count`'s `u8` has its schema (an integer's).
    let outputs: Vec<bool> = tools.iter().map(|t| t.ir.output.is_some()).collect();
    assert_eq!(outputs, [false, false, true]);
    let code = &generated.code;
    // The third row leaves `returns_content` at `ToolInfo::EMPTY`'s `false`.
    let flags: Vec<&str> = code.lines().filter(|l| l.contains("returns_content:")).map(str::trim).collect();
    assert_eq!(flags, ["returns_content: true,", "returns_content: true,"], "{code}");
    assert_eq!(code.matches("..::toolcall_runtime::ToolInfo::EMPTY").count(), 3, "{code}");
}

#[test]
fn progress_by_value_is_an_error_at_the_parameter() {
    // Not a model argument with no schema (the warning it got) and a rustc error in tools.rs.
    let text = "use toolcall_runtime::Progress;\n\n/// Bad.\npub fn bad(n: u8, progress: Progress) -> u8 {\n    n\n}\n";
    let generated = generate_one(&source("bad.rs", text));
    let lines: Vec<String> = generated.diagnostics.iter().map(ToString::to_string).collect();
    assert_eq!(
        lines,
        [
            "src/tools/bad.rs:4:29: error: `bad`: takes `Progress` by value; the caller lends it for the call, take `&Progress`"
        ],
    );
    assert!(generated.modules.iter().all(|m| m.tools.is_empty()));
}

#[test]
fn mut_progress_is_an_error_at_the_parameter() {
    let text = "use toolcall_runtime::Progress;\n\n/// Bad.\npub fn bad(progress: &mut Progress) -> u8 {\n    0\n}\n";
    let generated = generate_one(&source("bad.rs", text));
    assert!(generated.has_errors());
    let errors: Vec<String> =
        generated.diagnostics.iter().filter(|d| d.level == Level::Error).map(ToString::to_string).collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with("src/tools/bad.rs:4:22: error: `bad`: takes `&mut Progress`"),
        "{errors:?}"
    );
    assert!(generated.modules.iter().all(|m| m.tools.is_empty()));
}
