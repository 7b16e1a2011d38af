//! Types from anywhere in the crate (`src/models/`, a `#[path]` module, another tool file),
//! dispatched through the generated toolset of `tools::service`: decoded from a `Value`
//! and from text (the one-pass decoder), recursion across two files, a generic `Page<T>`
//! result, and mistakes reported at their argument path.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use toolcall_fixtures::toolset;
use toolcall_runtime::{Reason, ToolError};

fn run(name: &str, args: Value) -> Result<Value, ToolError> {
    toolset::ALL.run(name, &args)
}

/// Runs from a `Value` and from its text, and checks both agree.
fn both(name: &str, args: Value) -> Result<Value, ToolError> {
    let by_value = run(name, args.clone());
    let by_text = toolset::ALL.run_json(name, &args.to_string());
    assert_eq!(by_value, by_text, "{name} {args}");
    by_value
}

/// The failing argument's path and reason.
fn invalid(name: &str, args: Value) -> (String, Reason) {
    match both(name, args) {
        Err(ToolError::InvalidArgument { name, reason }) => (name, *reason),
        other => panic!("expected InvalidArgument, got {other:?}"),
    }
}

/// A folder `depth` folders deep, with one file of `size` bytes in each.
fn tree(depth: usize, size: u32) -> Value {
    let mut folder = json!({"name": "leaf", "entries": [{"file": {"name": "a", "size": size}}]});
    for level in 0..depth {
        folder = json!({
            "name": format!("level{level}"),
            "entries": [{"file": {"name": "b", "size": size}}, {"folder": folder}],
        });
    }
    folder
}

#[test]
fn a_re_exported_type_of_a_private_module_with_a_path_module_field_decodes() {
    let task = json!({
        "title": "Pay rent",
        "priority": "urgent",
        "budget": {"cents": 120_000, "currency": "NOK"},
    });
    let out = both("add_task", json!({"task": task, "assignee": {"name": "ada"}})).unwrap();
    assert_eq!(
        out,
        json!({
            "title": "Pay rent",
            "priority": "urgent",
            "tags": ["@ada"],
            "budget": {"cents": 120_000, "currency": "NOK"},
        })
    );
    // `tags` is `#[serde(default)]` and `budget` an `Option`: both may be absent.
    let out = both("add_task", json!({"task": {"title": "Rest", "priority": "low"}})).unwrap();
    assert_eq!(out, json!({"title": "Rest", "priority": "low", "tags": [], "budget": null}));
}

#[test]
fn a_generic_page_of_a_crate_type_is_the_result() {
    let out = both("list_tasks", json!({"priority": "normal"})).unwrap();
    assert_eq!(out["total"], 3);
    assert_eq!(out["next"], 2);
    assert_eq!(out["items"].as_array().map(Vec::len), Some(2));
    assert_eq!(out["items"][0], json!({"title": "task 0", "priority": "normal", "tags": [], "budget": null}));
    let last = both("list_tasks", json!({"priority": "low", "cursor": 2})).unwrap();
    assert_eq!(last["items"][0]["title"], "task 2");
    assert_eq!(last["next"], Value::Null);
    // The output schema is the instantiated `Page<Task>`.
    let info = toolset::ALL.describe().iter().find(|t| t.name == "list_tasks").unwrap();
    assert_eq!(info.module, "service::tasks");
    let output: Value =
        serde_json::from_str(info.output.expect("an object result has an output schema")).unwrap();
    assert_eq!(output["required"], json!(["items", "total", "next"]));
    let item = &output["properties"]["items"]["items"];
    assert_eq!(item["properties"]["priority"]["enum"], json!(["low", "normal", "urgent"]));
    assert_eq!(
        item["properties"]["budget"]["anyOf"][0]["properties"]["currency"]["enum"],
        json!(["EUR", "NOK"])
    );
}

#[test]
fn a_path_module_type_is_a_result_and_an_err_is_failed() {
    let tasks = json!([
        {"title": "a", "priority": "low", "budget": {"cents": 150, "currency": "EUR"}},
        {"title": "b", "priority": "low"},
        {"title": "c", "priority": "urgent", "budget": {"cents": 50, "currency": "EUR"}},
    ]);
    let out = both("total_budget", json!({"tasks": tasks, "currency": "EUR"})).unwrap();
    assert_eq!(out, json!({"cents": 200, "currency": "EUR"}));
    let err = both("total_budget", json!({"tasks": tasks, "currency": "NOK"})).unwrap_err();
    assert_eq!(err, ToolError::Failed("`a` is budgeted in another currency".into()));
}

#[test]
fn recursion_across_two_files_decodes_every_level() {
    // 4 levels of folders, each with a file of 3 bytes, plus the leaf's file.
    assert_eq!(both("tree_size", json!({"root": tree(4, 3)})), Ok(json!(15)));
    assert_eq!(both("tree_size", json!({"root": {"name": "empty", "entries": []}})), Ok(json!(0)));
}

#[test]
fn a_recursive_result_decodes_back_as_the_argument() {
    // What `sample_tree` serializes is what `tree_size` decodes: one type, both directions.
    let folder = both("sample_tree", json!({"depth": 3})).unwrap();
    assert_eq!(folder["entries"][1]["folder"]["entries"][1]["folder"]["name"], "level0");
    assert_eq!(both("tree_size", json!({"root": folder})), Ok(json!(7)));
}

#[test]
fn a_page_of_a_recursive_enum_is_the_result() {
    let out = both("list_entries", json!({"root": tree(2, 1), "cursor": 1})).unwrap();
    assert_eq!(out["total"], 2);
    assert_eq!(out["items"].as_array().map(Vec::len), Some(1));
    assert_eq!(out["items"][0]["folder"]["name"], "level0");
    assert_eq!(out["items"][0]["folder"]["entries"][1]["folder"]["name"], "leaf");
}

#[test]
fn a_type_of_another_tool_file_decodes() {
    let out = both("share_folder", json!({"folder": "docs", "with": {"name": "ada", "email": "ada@x"}}));
    assert_eq!(out, Ok(json!("docs shared with ada <ada@x>")));
    let out = both("share_folder", json!({"folder": "docs", "with": {"name": "grace"}}));
    assert_eq!(out, Ok(json!("docs shared with grace")));
}

#[test]
fn mistakes_inside_crate_types_name_their_path() {
    let (name, reason) = invalid("add_task", json!({"task": {"title": "x", "priority": "asap"}}));
    assert_eq!(name, "task.priority");
    assert!(reason.to_string().contains("\"asap\""), "{reason}");
    let budget = json!({"title": "x", "priority": "low", "budget": {"cents": "5", "currency": "EUR"}});
    let (name, reason) = invalid("add_task", json!({"task": budget}));
    assert_eq!(name, "task.budget.cents");
    assert!(matches!(reason, Reason::ExpectedInteger { .. }), "{reason:?}");
    // A missing field is reported at its object, naming the field.
    let (name, reason) = invalid("add_task", json!({"task": {"title": "x"}}));
    assert_eq!((name.as_str(), reason), ("task", Reason::MissingField { field: "priority".into() }));
    let (name, _) =
        invalid("share_folder", json!({"folder": "docs", "with": {"name": "ada", "mail": "a@x"}}));
    assert_eq!(name, "with");
    let tasks = json!([{"title": "a", "priority": "low"}, {"title": "b", "priority": 2}]);
    let (name, _) = invalid("total_budget", json!({"tasks": tasks, "currency": "EUR"}));
    assert_eq!(name, "tasks[1].priority");
}

#[test]
fn mistakes_deep_in_recursive_types_name_their_path() {
    let mut root = tree(2, 1);
    root["entries"][1]["folder"]["entries"][1]["folder"]["entries"][0]["file"]["size"] = json!(-1);
    let (name, reason) = invalid("tree_size", json!({ "root": root }));
    assert_eq!(name, "root.entries[1].folder.entries[1].folder.entries[0].file.size");
    assert!(matches!(reason, Reason::OutOfRange { .. }), "{reason:?}");
    let (name, _) = invalid("tree_size", json!({"root": {"name": "x", "entries": [{"link": {}}]}}));
    assert_eq!(name, "root.entries[0]");
}

#[test]
fn every_mistake_of_a_call_with_crate_types_is_listed() {
    let args = json!({"task": {"title": 1, "priority": "low"}, "assignee": {"email": "a@x"}, "extra": true});
    let err = both("add_task", args).unwrap_err();
    let ToolError::Several(errors) = &err else { panic!("{err:?}") };
    assert_eq!(errors.len(), 3, "{err}");
    assert!(matches!(&errors[0], ToolError::UnknownArguments(_)), "{err}");
    assert!(matches!(&errors[1], ToolError::InvalidArgument { name, .. } if name == "task.title"), "{err}");
    assert!(matches!(&errors[2], ToolError::InvalidArgument { name, .. } if name == "assignee"), "{err}");
    assert_eq!(
        err.to_string(),
        "3 mistakes in the arguments:\n\
         - unknown argument \"extra\"\n\
         - task.title: expected a string, got 1\n\
         - assignee: missing required field \"name\""
    );
}
