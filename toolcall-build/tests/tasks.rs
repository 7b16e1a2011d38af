//! Task tools (`ToolMeta::task`, `task_required`, `task_from_detach`): read into the tool's
//! `ToolInfo` row as its `task` policy and into no definition (the Tasks extension puts
//! nothing on a tool), and a `task_from_detach` tool that cannot detach is an error at its
//! entry.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{diagnostic_lines, generate_one, module_schemas, source};

/// A jobs tool file; `task` is the tail of `export`'s `TOOLS` entry, `progress` its
/// `&Progress` parameter (or none).
fn jobs(task: &str, progress: &str) -> String {
    format!(
        r#"use toolcall_runtime::{{Progress, ToolMeta}};

pub(crate) const TOOLS: &[ToolMeta] = &[
    ToolMeta::new("export").title("Export"){task},
];

/// Export every note.
///
/// # Arguments
///
/// * `format` - the file format
pub async fn export(format: String{progress}) -> String {{
    format
}}
"#
    )
}

/// The `task:` lines of the generated tables.
fn task_rows(code: &str) -> Vec<&str> {
    code.lines().map(str::trim_start).filter(|l| l.starts_with("task:")).collect()
}

#[test]
fn a_task_policy_reaches_the_info_row_and_no_definition() {
    let with = generate_one(&source(
        "jobs.rs",
        &jobs(".task_required().task_from_detach()", ", progress: &Progress"),
    ));
    let without = generate_one(&source("jobs.rs", &jobs("", ", progress: &Progress")));
    assert_eq!(diagnostic_lines(&with), "(no diagnostics)\n");
    assert_eq!(
        task_rows(&with.code),
        [
            "task: Some(::toolcall_runtime::TaskPolicy { support: ::toolcall_runtime::TaskSupport::Required, at_detach: true }),"
        ],
        "{}",
        with.code
    );
    let optional = generate_one(&source("jobs.rs", &jobs(".task()", "")));
    assert_eq!(
        task_rows(&optional.code),
        [
            "task: Some(::toolcall_runtime::TaskPolicy { support: ::toolcall_runtime::TaskSupport::Optional, at_detach: false }),"
        ]
    );
    assert_eq!(module_schemas(&with), module_schemas(&without), "no definition changes");
    assert!(task_rows(&without.code).is_empty(), "a tool that is no task takes ToolInfo::EMPTY's");
}

#[test]
fn a_task_from_detach_without_progress_is_an_error_at_its_entry() {
    let generated = generate_one(&source("jobs.rs", &jobs(".task_from_detach()", "")));
    let lines = diagnostic_lines(&generated);
    assert!(generated.has_errors(), "{lines}");
    assert!(
        lines.contains("src/tools/jobs.rs:4:")
            && lines.contains("`export` is `task_from_detach` but takes no `&Progress`"),
        "{lines}"
    );
}
