//! Bad tool definitions, one folder per rule under `tests/bad/`, fed through
//! `generate_from` (never compiled). Their diagnostics are snapshotted, and the key ones
//! asserted here: the file:line:col prefix and the words of the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{bad_sources, diagnostic_lines, snapshot_settings};
use toolcall_build::{Builder, Generated, Level};

fn generate(rule: &str) -> Generated {
    let generated = Builder::new().generate_from(bad_sources(rule)).expect("generates");
    snapshot_settings(|| insta::assert_snapshot!(format!("bad__{rule}"), diagnostic_lines(&generated)));
    generated
}

/// The diagnostic lines containing every one of `words`.
fn lines_with(generated: &Generated, words: &[&str]) -> Vec<String> {
    generated
        .diagnostics
        .iter()
        .map(ToString::to_string)
        .filter(|line| words.iter().all(|w| line.contains(w)))
        .collect()
}

fn tool_names(generated: &Generated) -> Vec<String> {
    generated.modules.iter().flat_map(|m| m.tools.iter().map(|t| t.ir.name.clone())).collect()
}

#[test]
fn a_syntax_error_is_an_error_at_its_line() {
    let generated = generate("syntax");
    assert!(generated.has_errors());
    let errors: Vec<_> = generated.diagnostics.iter().filter(|d| d.level == Level::Error).collect();
    assert_eq!(errors.len(), 1);
    let line = errors[0].to_string();
    assert!(line.starts_with("src/tools/broken.rs:4:"), "{line}");
    assert!(line.contains("error: cannot parse this tool file"), "{line}");
    assert!(tool_names(&generated).is_empty());
}

#[test]
fn a_duplicate_tool_name_is_an_error_naming_both_places() {
    let generated = generate("duplicate_name");
    assert!(generated.has_errors());
    let found = lines_with(&generated, &["tool name `lookup` is defined twice"]);
    assert_eq!(found.len(), 1, "{}", diagnostic_lines(&generated));
    assert!(found[0].starts_with("src/tools/b.rs:4:8: error: "), "{}", found[0]);
    assert!(found[0].contains("src/tools/a.rs:4:8"), "{}", found[0]);
}

#[test]
fn tool_names_outside_the_provider_pattern_warn() {
    let generated = generate("tool_name");
    assert!(!generated.has_errors());
    let pattern = "does not match ^[a-zA-Z0-9_-]{1,64}$";
    let non_ascii = lines_with(&generated, &["tool name `naïve_lookup`", pattern]);
    assert_eq!(non_ascii.len(), 1, "{}", diagnostic_lines(&generated));
    assert!(non_ascii[0].starts_with("src/tools/names.rs:4:8: "), "{}", non_ascii[0]);
    let long = lines_with(&generated, &[&format!("tool name `{}`", "x".repeat(65)), pattern]);
    assert_eq!(long.len(), 1, "{}", diagnostic_lines(&generated));
    assert!(lines_with(&generated, &[&"y".repeat(64)]).is_empty());
    // Warned, not dropped: export refuses them, the dispatcher still has them.
    assert_eq!(tool_names(&generated).len(), 3);
}

#[test]
fn ranges_that_cannot_hold_are_located_errors() {
    let generated = generate("ranges");
    assert!(generated.has_errors());
    let expect = [
        ("alarm.rs:4:5", "bound 300 of `hour` is outside what its Rust type holds (0 to 255)"),
        ("alarm.rs:5:5", "range 59..=0 of `minute` is empty"),
        ("alarm.rs:6:5", "`range`, `min` and `max` apply to numbers; `label` is not one"),
        ("alarm.rs:7:5", "`length` applies to strings and arrays; `repeat` is neither"),
        ("alarm.rs:8:5", "`days` is a fixed-size array"),
        ("alarm.rs:9:5", "length 3..=1 of `snooze` is empty"),
        ("alarm.rs:10:5", "bound -1 of `volume` is outside"),
    ];
    for (place, words) in expect {
        let found = lines_with(&generated, &[words]);
        assert_eq!(found.len(), 1, "`{words}`:\n{}", diagnostic_lines(&generated));
        assert!(found[0].starts_with(&format!("src/tools/{place}: error: ")), "{}", found[0]);
    }
}

#[test]
fn tool_metadata_that_cannot_hold_is_located() {
    let generated = generate("metadata");
    assert!(generated.has_errors());
    let expect = [
        ("meta.rs:4:29: error: ", "tool name `remove it!` must match ^[a-zA-Z0-9_-]{1,64}$"),
        ("meta.rs:5:5: ", "duplicate `TOOLS` entry for `remove`"),
        (
            "meta.rs:6:5: error: ",
            "`TOOLS` names `nowhere`, which is not a function of this file; its tools are `remove`, `lookup` and `other`",
        ),
        (
            "meta.rs:9:5: error: ",
            "`TOOLS` names `lokup`, which is not a function of this file; did you mean `lookup`?",
        ),
        ("meta.rs:7:29: error: ", "example for `lookup` is not JSON"),
        (
            "meta.rs:7:",
            r#"example for `lookup` is refused by the tool's decoder: id: expected an integer, got "x""#,
        ),
        ("meta.rs:8:43: ", "unknown ToolMeta method `shout`"),
        // The rename collides with `lookup`: the duplicate-name check sees wire names.
        ("meta.rs:31:8: error: ", "tool name `lookup` is defined twice"),
    ];
    for (place, words) in expect {
        let found = lines_with(&generated, &[place, words]);
        assert_eq!(found.len(), 1, "`{place}` `{words}`:\n{}", diagnostic_lines(&generated));
    }
    // A valid example is kept; an invalid name leaves the tool under its function's name.
    let tools = &generated.modules[0].tools;
    assert!(tools.iter().any(|t| t.ir.name == "lookup" && t.ir.examples.len() == 1));
    assert!(tools.iter().any(|t| t.ir.name == "remove"));
}

#[test]
fn overrides_naming_nothing_are_errors_with_the_closest_name() {
    let generated = generate("overrides");
    assert!(generated.has_errors());
    let expect = [
        ("overrides.rs:8:5: ", "duplicate override for `user_id` of `transfer`"),
        (
            "overrides.rs:9:5: error: ",
            "`TOOL_PARAMS` names `transfr`, which is not a function of this file; did you mean `transfer`?",
        ),
        (
            "overrides.rs:10:5: error: ",
            "`TOOL_PARAMS`: tool `transfer` has no parameter `userid`; did you mean `user_id`?",
        ),
        ("overrides.rs:11:42: ", "unknown ToolParam method `shout`"),
        ("overrides.rs:12:5: error: ", "`TOOL_PARAMS` names `helper`, which is not a tool: only `pub`"),
        // The issue's case: a typo must not silently drop the range it meant.
        (
            "overrides.rs:13:5: error: ",
            "names `list_task`, which is not a function of this file; did you mean `list_tasks`?",
        ),
        ("overrides.rs:14:5: error: ", "tool `list_tasks` has no parameter `limt`; did you mean `limit`?"),
        (
            "overrides.rs:15:5: ",
            "`TOOL_PARAMS` entry for `x` of `generic` applies to nothing: `generic` is not a tool",
        ),
        ("private_const.rs:5:7: ", "make `TOOL_PARAMS` `pub(crate)`"),
    ];
    for (place, words) in expect {
        let found = lines_with(&generated, &[place, words]);
        assert_eq!(found.len(), 1, "`{place}` `{words}`:\n{}", diagnostic_lines(&generated));
    }
    let skipped = lines_with(&generated, &["overrides.rs:15:5: error"]);
    assert!(skipped.is_empty(), "an entry for a skipped tool only warns: {skipped:?}");
    let duplicate = &lines_with(&generated, &["duplicate override"])[0];
    assert!(duplicate.starts_with("src/tools/overrides.rs:8:5: "), "{duplicate}");
    // The first override wins; a private const is still read.
    let transfer = &generated.modules[0].tools[0].ir;
    assert_eq!(transfer.params[0].description, "first");
    let echo = &generated.modules[1].tools[0].ir;
    assert_eq!(echo.params[0].description, "Said back");
    assert!(!generated.modules[1].overrides_checked, "a private const cannot be referenced");
}

#[test]
fn string_integer_on_a_non_integer_warns() {
    let generated = generate("string_integer");
    for name in ["name", "ratio", "ids"] {
        let found =
            lines_with(&generated, &[&format!("`string_integer` applies to integer parameters; `{name}`")]);
        assert_eq!(found.len(), 1, "{name}:\n{}", diagnostic_lines(&generated));
        assert!(found[0].starts_with("src/tools/not_integer.rs:12:"), "{}", found[0]);
    }
}

#[test]
fn defaults_outside_the_domain_are_not_sent() {
    let generated = generate("default_domain");
    let defaults = [("level", "300"), ("count", "-1"), ("letter", "\"ab\""), ("name", "5")];
    for (line, (name, value)) in (5..).zip(defaults) {
        let found = lines_with(&generated, &[&format!("default {value} of `{name}` is not a valid value")]);
        assert_eq!(found.len(), 1, "{name}:\n{}", diagnostic_lines(&generated));
        // At the `unwrap_or` that applies it.
        assert!(found[0].starts_with(&format!("src/tools/defaults.rs:{line}:")), "{}", found[0]);
    }
    let paint = &generated.modules[0].tools[0].ir;
    assert!(paint.params.iter().all(|p| p.default.is_none() && p.optional));
}

#[test]
fn an_exhausted_inlining_budget_warns_and_becomes_any() {
    // Generation must finish promptly; run it on a thread so a blow-up fails, not hangs.
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let generated = Builder::new().generate_from(bad_sources("inline_budget")).expect("generates");
        let _ = send.send((diagnostic_lines(&generated), tool_names(&generated)));
    });
    let (lines, names) = receive
        .recv_timeout(std::time::Duration::from_secs(20))
        .expect("generating a chain of 105 local types took over 20 s");
    snapshot_settings(|| insta::assert_snapshot!("bad__inline_budget", lines));
    let found: Vec<&str> =
        lines.lines().filter(|l| l.contains("inlining budget of 100 local types exhausted")).collect();
    assert_eq!(found.len(), 1, "{lines}");
    assert!(found[0].starts_with("src/tools/chain.rs:"), "{}", found[0]);
    assert!(found[0].contains("`Link100`"), "{}", found[0]);
    assert_eq!(names, vec!["walk"]);
}

#[test]
fn a_private_type_without_deserialize_skips_the_tool() {
    let generated = generate("private_type");
    let hidden = lines_with(&generated, &["`reveal` is not a tool", "`Hidden` is private", "pub(crate)"]);
    assert_eq!(hidden.len(), 1, "{}", diagnostic_lines(&generated));
    assert!(hidden[0].starts_with("src/tools/private.rs:13:23: "), "{}", hidden[0]);
    let sealed = lines_with(&generated, &["`unseal` is not a tool", "`Sealed`", "field `code` is private"]);
    assert_eq!(sealed.len(), 1, "{}", diagnostic_lines(&generated));
    assert_eq!(tool_names(&generated), vec!["fine"]);
}

/// serde attributes are read once, in the ast stage: what serde itself would reject is a
/// located error, never a silent "no rename".
#[test]
fn serde_attributes_serde_rejects_are_located_errors() {
    let generated = generate("serde_attrs");
    assert!(generated.has_errors());
    let expect = [
        (
            "src/tools/orders.rs:5:9: error: ",
            "unknown rename rule `rename_all = \"Title Case\"`, expected one of",
        ),
        ("src/tools/orders.rs:5:36: error: ", "unknown serde container attribute `deny_unknown_field`"),
        ("src/tools/orders.rs:8:13: error: ", "expected serde rename attribute to be a string"),
        ("src/tools/orders.rs:14:", "enum cannot be both untagged and tagged"),
        ("src/tools/orders.rs:17:13: error: ", "unknown serde variant attribute `skip_if`"),
    ];
    for (place, words) in expect {
        let found = lines_with(&generated, &[words]);
        assert_eq!(found.len(), 1, "{words}:\n{}", diagnostic_lines(&generated));
        assert!(found[0].starts_with(place), "{}", found[0]);
    }
}

/// serde attributes serde accepts but whose wire shape the build cannot see are located
/// warnings, and the schema claims nothing it does not know.
#[test]
fn custom_deserializers_are_warned_about_where_they_are_written() {
    let text = r#"use serde::Deserialize;

#[derive(Deserialize)]
pub struct Window {
    #[serde(deserialize_with = "parse_size")]
    pub size: u32,
}

#[derive(Deserialize)]
#[serde(from = "String")]
pub struct Label {
    pub text: String,
}

/// Open a window.
pub fn open(window: Window, label: Label) {}
"#;
    let generated = Builder::new().generate_from(vec![common::source("ui.rs", text)]).unwrap();
    let lines = diagnostic_lines(&generated);
    assert!(
        lines.contains(
            "src/tools/ui.rs:6:15: field `size` is read by a custom `deserialize_with`/`with` function"
        ),
        "{lines}"
    );
    assert!(
        lines.contains("src/tools/ui.rs:11:12: `Label` deserializes through `#[serde(from)]`"),
        "{lines}"
    );
    let open = &generated.modules[0].tools[0].ir;
    assert_eq!(
        open.params[1].ty,
        toolcall_runtime::ir::Type::Any,
        "a `from` type is `{{}}`, not its own fields"
    );
}

#[test]
fn missing_descriptions_warn_once_per_tool() {
    let generated = generate("missing_docs");
    assert!(!generated.has_errors());
    let expect = [
        ("src/tools/notes.rs:3:8: ", "tool `undocumented` has no description: models choose tools by it"),
        ("src/tools/notes.rs:3:8: ", "parameter `limit` of `undocumented` has no description"),
        ("src/tools/notes.rs:8:8: ", "parameters `query`, `limit` and `tag` of `search` have no description"),
        ("src/tools/notes.rs:18:8: ", "parameter `reason` of `archive` has no description"),
    ];
    for (place, words) in expect {
        let found = lines_with(&generated, &[words]);
        assert_eq!(found.len(), 1, "{words}:\n{}", diagnostic_lines(&generated));
        assert!(found[0].starts_with(place), "{}", found[0]);
    }
    assert_eq!(generated.diagnostics.len(), 4, "{}", diagnostic_lines(&generated));
    // Still tools: the warnings change nothing in what is generated.
    assert_eq!(tool_names(&generated), vec!["undocumented", "search", "archive", "count"]);
}

#[test]
fn deny_missing_docs_makes_them_errors() {
    let generated = Builder::new().deny_missing_docs().generate_from(bad_sources("missing_docs")).unwrap();
    assert!(generated.has_errors());
    let errors: Vec<String> =
        generated.diagnostics.iter().filter(|d| d.level == Level::Error).map(ToString::to_string).collect();
    assert_eq!(errors.len(), 4, "{}", diagnostic_lines(&generated));
    assert!(errors.iter().all(|e| e.contains(": error: ") && e.contains("(`Builder::deny_missing_docs`)")));
    // Other warnings stay warnings.
    let warned = Builder::new().deny_missing_docs().generate_from(bad_sources("stray_bullet")).unwrap();
    let stray = lines_with(&warned, &["names `colour`"]);
    assert!(!stray[0].contains("error:"), "{}", stray[0]);
}

#[test]
fn bullets_naming_no_parameter_warn_at_their_line() {
    let generated = generate("stray_bullet");
    assert!(!generated.has_errors());
    let expect = [
        (
            "src/tools/search.rs:5:1: ",
            "`# Arguments` of `search` names `querry`, which is not one of its parameters; did you mean `query`?",
        ),
        (
            "src/tools/search.rs:7:1: ",
            "`# Arguments` of `search` names `colour`, which is not one of its parameters; its parameters are \
             `query` and `limit`",
        ),
        (
            "src/tools/search.rs:17:1: ",
            "`# Arguments` of `ping` names `host`, which is not one of its parameters; it takes none",
        ),
        // The misspelt bullet leaves `query` undescribed, which is said too.
        ("src/tools/search.rs:8:8: ", "parameter `query` of `search` has no description"),
    ];
    for (place, words) in expect {
        let found = lines_with(&generated, &[words]);
        assert_eq!(found.len(), 1, "{words}:\n{}", diagnostic_lines(&generated));
        assert!(found[0].starts_with(place), "{}", found[0]);
    }
}

#[test]
fn defaults_the_body_applies_but_the_build_cannot_read_warn_where_applied() {
    let generated = generate("unread_default");
    assert!(!generated.has_errors());
    let expect = [
        ("src/tools/listing.rs:32:21: ", "`computed()` is not a literal"),
        (
            "src/tools/listing.rs:33:21: ",
            "default of `size` not read, so the schema shows none: `.min(..)` after `unwrap_or` turns it into 50; write `unwrap_or(50)`",
        ),
        (
            "src/tools/listing.rs:34:37: ",
            "default of `depth` not read, so the schema shows none: the body applies different defaults, 1 here and 2 at 34:65",
        ),
        (
            "src/tools/listing.rs:35:25: ",
            "`.pow(..)` after `unwrap_or` may change it; bind the default first",
        ),
        (
            "src/tools/listing.rs:36:27: ",
            "`Sorting` is a local struct or alias, whose default the build does not read",
        ),
    ];
    for (place, words) in expect {
        let found = lines_with(&generated, &[place, words]);
        assert_eq!(found.len(), 1, "{words}:\n{}", diagnostic_lines(&generated));
        assert!(found[0].contains("so the schema shows none"), "{}", found[0]);
    }
    // `unwrap_or_else` says "computed when called" on purpose: no warning, no default.
    assert!(lines_with(&generated, &["`label`"]).is_empty(), "{}", diagnostic_lines(&generated));
    let list = &generated.modules[0].tools[0].ir;
    assert!(list.params.iter().all(|p| p.default.is_none() && p.optional));
    // #31: `match`, `if let`, `map(..)` that keeps the value, `map_or` and a `const` of the
    // function are read; an unreadable `None` arm warns where it is; after a closure that
    // makes the value something else there is no default of the parameter (no warning).
    let page = &generated.modules[0].tools[1].ir;
    let defaults: Vec<(&str, Option<String>)> =
        page.params.iter().map(|p| (p.name.as_str(), p.default.as_ref().map(ToString::to_string))).collect();
    let some = |text: &str| Some(text.to_owned());
    assert_eq!(
        defaults,
        [
            ("limit", some("20")),
            ("offset", some("1")),
            ("order", some("\"asc\"")),
            ("scale", None),
            ("depth", None),
            ("top", some("5")),
        ]
    );
    assert!(lines_with(&generated, &["`scale`"]).is_empty(), "{}", diagnostic_lines(&generated));
    let expect =
        [("src/tools/listing.rs:69:17: ", "default of `depth` not read", "`computed()` is not a literal")];
    for (place, what, why) in expect {
        let found = lines_with(&generated, &[place, what]);
        assert_eq!(found.len(), 1, "{what}:\n{}", diagnostic_lines(&generated));
        assert!(found[0].starts_with(place) && found[0].contains(why), "{}", found[0]);
    }
}

#[test]
fn tool_files_their_parent_module_does_not_declare_are_errors_at_the_file() {
    let generated = generate("undeclared_module");
    assert!(generated.has_errors());
    let expect = [
        ("src/tools/forgotten.rs:1:1: error: ", "add `pub mod forgotten;` to `src/tools/mod.rs`"),
        (
            "src/tools/billing/invoices.rs:1:1: error: ",
            "add `pub mod invoices;` to `src/tools/billing/mod.rs`",
        ),
        ("src/tools/mod.rs:5:5: error: ", "`mod private_decl;` is private"),
        (
            "src/tools/orphans/lost.rs:1:1: error: ",
            "is in module `orphans`, which no file declares, so it is not compiled: add \
             `src/tools/orphans/mod.rs` holding `pub mod lost;`",
        ),
    ];
    for (place, words) in expect {
        let found = lines_with(&generated, &[words]);
        assert_eq!(found.len(), 1, "{words}:\n{}", diagnostic_lines(&generated));
        assert!(found[0].starts_with(place), "{}", found[0]);
    }
    let errors = generated.diagnostics.iter().filter(|d| d.level == Level::Error).count();
    assert_eq!(errors, 4, "declared and inline-declared files are fine:\n{}", diagnostic_lines(&generated));
}

/// A 2018-style `src/tools.rs` beside the directory is the root module file, read from
/// disk; without any root module file, top-level files are not checked.
#[test]
fn the_root_module_file_may_sit_beside_the_tools_dir() {
    let dir = std::env::temp_dir().join(format!("toolcall-declared-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("src/tools")).unwrap();
    std::fs::write(dir.join("src/tools.rs"), "pub mod kept;\n").unwrap();
    for name in ["kept", "dropped"] {
        let text = format!("/// A tool.\npub fn {name}() {{}}\n");
        std::fs::write(dir.join(format!("src/tools/{name}.rs")), text).unwrap();
    }
    let generated = Builder::new().crate_dir(&dir).generate().unwrap();
    let lines = diagnostic_lines(&generated);
    assert_eq!(
        lines,
        "src/tools/dropped.rs:1:1: error: `src/tools/dropped.rs` is not declared as a module, so it is not \
         compiled and the generated code cannot reach its functions: add `pub mod dropped;` to `src/tools.rs`\n"
    );
    std::fs::remove_file(dir.join("src/tools.rs")).unwrap();
    let generated = Builder::new().crate_dir(&dir).generate().unwrap();
    assert!(!generated.has_errors(), "{}", diagnostic_lines(&generated));
    std::fs::remove_dir_all(&dir).unwrap();
}
