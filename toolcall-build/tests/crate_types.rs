//! Types from anywhere in the crate, generated from crates held in memory
//! (`Builder::generate_from_files`): where the build finds a type (a `#[path]` module, a
//! glob import, `super::` from a nested tool file), and what it says when it cannot (a
//! missing type, a private module without a re-export, another crate's type).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;
use toolcall_build::{Builder, Diagnostic, Generated, Level};
use toolcall_runtime::Format;
use toolcall_runtime::render::render_tools;

/// Generates a crate given as `(path, text)` pairs.
fn generate(files: &[(&str, &str)]) -> Generated {
    let files: BTreeMap<PathBuf, String> =
        files.iter().map(|(path, text)| (PathBuf::from(path), (*text).to_owned())).collect();
    Builder::new().generate_from_files(files).expect("the crate generates")
}

/// The diagnostics of one level.
fn at_level(generated: &Generated, level: Level) -> Vec<&Diagnostic> {
    generated.diagnostics.iter().filter(|d| d.level == level).collect()
}

/// Every diagnostic, one line each, for assertion messages.
fn lines(generated: &Generated) -> String {
    generated.diagnostics.iter().map(|d| format!("{d}\n")).collect()
}

/// The MCP input schema of the only tool of the crate.
fn input_schema(generated: &Generated) -> Value {
    let tools: Vec<_> = generated.modules.iter().flat_map(|m| &m.tools).collect();
    assert_eq!(tools.len(), 1, "{}", lines(generated));
    let text = render_tools(tools.iter().map(|t| &t.ir), Format::Mcp, false);
    let parsed: Value = serde_json::from_str(&text).unwrap();
    parsed[0]["inputSchema"].clone()
}

/// The schema of parameter `name` of the only tool, and no diagnostic at all.
fn clean_param(files: &[(&str, &str)], name: &str) -> (Generated, Value) {
    let generated = generate(files);
    assert!(generated.diagnostics.is_empty(), "{}", lines(&generated));
    let schema = input_schema(&generated)["properties"][name].clone();
    (generated, schema)
}

const TOOLS_ROOT: (&str, &str) = ("src/tools/mod.rs", "pub mod tasks;");

#[test]
fn a_missing_type_is_an_error_at_its_use_saying_where_it_looked() {
    let generated = generate(&[
        ("src/lib.rs", "pub mod models;\npub mod tools;"),
        ("src/models.rs", "pub struct Task { pub title: String }"),
        TOOLS_ROOT,
        (
            "src/tools/tasks.rs",
            "/// Adds a task.\n///\n/// # Arguments\n///\n/// * `task` - the task\npub fn add(task: crate::models::Tsk) {}\n",
        ),
    ]);
    let errors = at_level(&generated, Level::Error);
    assert_eq!(errors.len(), 1, "{}", lines(&generated));
    let error = errors[0];
    assert_eq!((error.file.to_str(), error.line), (Some("src/tools/tasks.rs"), 6));
    assert!(error.column > 1, "{error}");
    assert!(error.message.contains("cannot find type `Tsk` in `crate::models` (src/models.rs)"), "{error}");
    assert!(error.to_string().starts_with("src/tools/tasks.rs:6:"), "{error}");
    // Never `{}` and a trait error in generated code: the tool is not generated.
    assert!(!generated.code.contains("crate::models::Tsk"), "{}", generated.code);
}

/// A `crate::` path through a module that does not exist is never another crate's type:
/// it is an error saying where the build looked (found by the service fixture).
#[test]
fn a_crate_path_through_a_missing_module_is_an_error() {
    let generated = generate(&[
        ("src/lib.rs", "pub mod tools;"),
        TOOLS_ROOT,
        (
            "src/tools/tasks.rs",
            "/// Adds a task.\n///\n/// # Arguments\n///\n/// * `task` - the task\npub fn add(task: crate::modles::Task) {}\n",
        ),
    ]);
    let errors = at_level(&generated, Level::Error);
    assert_eq!(errors.len(), 1, "{}", lines(&generated));
    assert!(errors[0].message.contains("cannot find"), "{}", errors[0]);
    assert!(errors[0].message.contains("modles"), "{}", errors[0]);
}

#[test]
fn a_type_in_a_private_module_without_a_re_export_skips_the_tool_naming_pub_use() {
    let generated = generate(&[
        ("src/lib.rs", "pub mod models;\npub mod tools;"),
        ("src/models/mod.rs", "mod task;"),
        ("src/models/task.rs", "pub struct Task { pub title: String }"),
        TOOLS_ROOT,
        (
            "src/tools/tasks.rs",
            "use crate::models::task::Task;\n/// Adds a task.\n///\n/// # Arguments\n///\n/// * `task` - the task\npub fn add(task: Task) {}\n",
        ),
    ]);
    // As a private type of the tool's own file: the tool is skipped, with a diagnostic at
    // the parameter that names the module and both fixes.
    assert_eq!(generated.diagnostics.len(), 1, "{}", lines(&generated));
    let skipped = &generated.diagnostics[0];
    assert_eq!((skipped.file.to_str(), skipped.line), (Some("src/tools/tasks.rs"), 7), "{skipped}");
    assert!(skipped.message.contains("`add` is not a tool"), "{skipped}");
    assert!(skipped.message.contains("`crate::models::task`"), "{skipped}");
    assert!(skipped.message.contains("pub use"), "{skipped}");
    assert!(generated.modules.iter().all(|m| m.tools.is_empty()), "{}", lines(&generated));
    assert!(!generated.code.contains("models::task::Task"), "{}", generated.code);

    // The same crate with the re-export is clean, and the impl names the re-export.
    let (generated, schema) = clean_param(
        &[
            ("src/lib.rs", "pub mod models;\npub mod tools;"),
            ("src/models/mod.rs", "mod task;\npub use task::Task;"),
            ("src/models/task.rs", "pub struct Task {\n    /// What to do.\n    pub title: String,\n}"),
            TOOLS_ROOT,
            (
                "src/tools/tasks.rs",
                "use crate::models::Task;\n/// Adds a task.\n///\n/// # Arguments\n///\n/// * `task` - the task\npub fn add(task: Task) {}\n",
            ),
        ],
        "task",
    );
    assert_eq!(schema["properties"]["title"]["description"], "What to do.");
    assert!(generated.code.contains("for crate::models::Task"), "{}", generated.code);
    assert!(!generated.code.contains("crate::models::task::Task"), "{}", generated.code);
}

#[test]
fn a_path_attribute_module_is_followed() {
    let (generated, schema) = clean_param(
        &[
            ("src/lib.rs", "#[path = \"shared/money_types.rs\"]\npub mod money;\npub mod tools;"),
            ("src/shared/money_types.rs", "pub struct Money { pub cents: i64 }"),
            // Where rustc would not look: the build must not read it either.
            ("src/money.rs", "pub struct Money { pub wrong: bool }"),
            TOOLS_ROOT,
            (
                "src/tools/tasks.rs",
                "/// Pays.\n///\n/// # Arguments\n///\n/// * `amount` - how much\npub fn pay(amount: crate::money::Money) {}\n",
            ),
        ],
        "amount",
    );
    assert_eq!(schema["properties"]["cents"]["type"], "integer", "{schema}");
    assert!(schema["properties"].get("wrong").is_none(), "{schema}");
    assert!(
        generated.crate_files.contains(&PathBuf::from("src/shared/money_types.rs")),
        "{:?}",
        generated.crate_files
    );
    assert!(!generated.crate_files.contains(&PathBuf::from("src/money.rs")), "{:?}", generated.crate_files);
    assert!(generated.code.contains("for crate::money::Money"), "{}", generated.code);
}

#[test]
fn a_glob_import_brings_the_types_of_a_module() {
    let (generated, schema) = clean_param(
        &[
            ("src/main.rs", "mod models;\nmod tools;\nfn main() {}"),
            ("src/models/mod.rs", "pub mod task;\npub use task::*;"),
            (
                "src/models/task.rs",
                "pub struct Task { pub priority: Priority }\npub enum Priority { Low, High }",
            ),
            TOOLS_ROOT,
            (
                "src/tools/tasks.rs",
                "use crate::models::*;\n/// Adds a task.\n///\n/// # Arguments\n///\n/// * `task` - the task\npub fn add(task: Task) {}\n",
            ),
        ],
        "task",
    );
    assert_eq!(schema["properties"]["priority"]["enum"], serde_json::json!(["Low", "High"]), "{schema}");
    // `mod models;` is private to the crate root, which may name it: the impls do.
    assert!(generated.code.contains("for crate::models::task::Task"), "{}", generated.code);
    assert!(generated.crate_files.contains(&PathBuf::from("src/main.rs")), "{:?}", generated.crate_files);
}

#[test]
fn super_from_a_nested_tool_file_reaches_a_sibling_tool_file_and_the_crate() {
    let (generated, schema) = clean_param(
        &[
            ("src/lib.rs", "pub mod models;\npub mod tools;"),
            ("src/models.rs", "pub struct Owner { pub name: String }"),
            ("src/tools/mod.rs", "pub mod billing;"),
            ("src/tools/billing/mod.rs", "pub mod invoices;\npub mod shared;"),
            (
                "src/tools/billing/shared.rs",
                "pub struct Line { pub sku: String, pub owner: super::super::super::models::Owner }",
            ),
            (
                "src/tools/billing/invoices.rs",
                "/// Bills lines.\n///\n/// # Arguments\n///\n/// * `lines` - what to bill\npub fn bill(lines: Vec<super::shared::Line>) {}\n",
            ),
        ],
        "lines",
    );
    let line = &schema["items"];
    assert_eq!(line["required"], serde_json::json!(["sku", "owner"]), "{schema}");
    assert_eq!(line["properties"]["owner"]["properties"]["name"]["type"], "string", "{schema}");
    assert!(generated.code.contains("for crate::tools::billing::shared::Line"), "{}", generated.code);
    assert!(generated.code.contains("for crate::models::Owner"), "{}", generated.code);
}

#[test]
fn another_crates_type_without_a_provider_warns_naming_both_fixes() {
    let generated = generate(&[
        ("src/lib.rs", "pub mod tools;"),
        TOOLS_ROOT,
        (
            "src/tools/tasks.rs",
            "use rust_decimal::Decimal;\n/// Pays.\n///\n/// # Arguments\n///\n/// * `amount` - how much\npub fn pay(amount: Decimal) {}\n",
        ),
    ]);
    assert!(at_level(&generated, Level::Error).is_empty(), "{}", lines(&generated));
    let warning = generated
        .diagnostics
        .iter()
        .find(|d| d.message.contains("rust_decimal::Decimal"))
        .unwrap_or_else(|| panic!("no warning naming the type:\n{}", lines(&generated)));
    assert_eq!((warning.file.to_str(), warning.line), (Some("src/tools/tasks.rs"), 7), "{warning}");
    assert!(warning.message.contains("TypeProvider"), "{warning}");
    assert!(warning.message.contains("a type of this crate"), "{warning}");
}

#[test]
fn two_recursive_types_of_one_name_in_two_modules_are_two_definitions() {
    let generated = generate(&[
        ("src/lib.rs", "pub mod a;\npub mod b;\npub mod tools;"),
        ("src/a.rs", "pub struct Node { pub left: Vec<Node> }"),
        ("src/b.rs", "pub struct Node { pub label: String, pub kids: Vec<Node> }"),
        TOOLS_ROOT,
        (
            "src/tools/tasks.rs",
            "/// T.\n///\n/// # Arguments\n///\n/// * `x` - x\n/// * `y` - y\npub fn t(x: crate::a::Node, y: crate::b::Node) {}\n",
        ),
    ]);
    assert!(at_level(&generated, Level::Error).is_empty(), "{}", lines(&generated));
    let schema = input_schema(&generated);
    let x = schema["properties"]["x"]["$ref"].as_str().unwrap().trim_start_matches("#/$defs/");
    let y = schema["properties"]["y"]["$ref"].as_str().unwrap().trim_start_matches("#/$defs/");
    assert_ne!(x, y, "{schema}");
    assert_eq!(schema["$defs"][x]["required"], serde_json::json!(["left"]), "{schema}");
    assert_eq!(schema["$defs"][y]["required"], serde_json::json!(["label", "kids"]), "{schema}");
}

#[test]
fn a_crate_types_doc_describes_a_parameter_without_a_bullet() {
    let (_, schema) = clean_param(
        &[
            ("src/lib.rs", "pub mod models;\npub mod tools;"),
            ("src/models.rs", "/// How urgent a task is.\npub enum Priority { Low, High }"),
            TOOLS_ROOT,
            (
                "src/tools/tasks.rs",
                "use crate::models::Priority;\n/// Sets a priority.\npub fn set(p: Priority) {}\n",
            ),
        ],
        "p",
    );
    assert_eq!(schema["description"], "How urgent a task is.", "{schema}");
}

/// A `pub(super)` module two levels down is private to `crate::models`: generated code at
/// the crate root cannot name a type through it (rustc would refuse it, E0603), so the
/// impl path never goes through it (found by the service fixture).
#[test]
fn a_pub_super_module_deeper_down_is_not_named_by_generated_code() {
    let generated = generate(&[
        ("src/lib.rs", "pub mod models;\npub mod tools;"),
        ("src/models/mod.rs", "pub mod a;\npub struct Wrapper { pub x: a::inner::X }"),
        ("src/models/a.rs", "pub(super) mod inner;"),
        ("src/models/a/inner.rs", "pub struct X { pub n: u8 }"),
        TOOLS_ROOT,
        (
            "src/tools/tasks.rs",
            "/// Wraps.\n///\n/// # Arguments\n///\n/// * `w` - w\npub fn t(w: crate::models::Wrapper) {}\n",
        ),
    ]);
    assert!(
        !generated.code.contains("crate::models::a::inner::X"),
        "generated code names a module private to `crate::models`:\n{}",
        lines(&generated)
    );
}

/// A default naming the unit variant of a crate enum, or a const of another module, is
/// read wherever they are declared (found by the service fixture).
#[test]
fn a_default_naming_a_crate_wide_enum_variant_or_const_is_read() {
    let generated = generate(&[
        ("src/lib.rs", "pub mod models;\npub mod tools;"),
        (
            "src/models.rs",
            "/// How urgent.\npub enum Priority { Low, High }\n/// The page size.\npub const LIMIT: u32 = 5;",
        ),
        TOOLS_ROOT,
        (
            "src/tools/tasks.rs",
            "use crate::models::{Priority, LIMIT};\n/// Lists.\n///\n/// # Arguments\n///\n/// * `p` - p\n/// * `n` - n\n\
             pub fn list(p: Option<Priority>, n: Option<u32>) {\n    let _p = p.unwrap_or(Priority::High);\n    let _n = n.unwrap_or(LIMIT);\n}\n",
        ),
    ]);
    let schema = input_schema(&generated);
    assert_eq!(schema["properties"]["p"]["default"], "High", "{}", lines(&generated));
    assert_eq!(schema["properties"]["n"]["default"], 5, "{}", lines(&generated));
}
