//! Module declarations for prompts and resources as for tools (#62 item 1): a crate root
//! without `mod resources;` or `mod prompts;`, or a `src/resources/mod.rs` without
//! `pub mod recipes;`, is an error the build reports at the file that lacks the line, naming
//! it; without it rustc fails inside the generated file with a hint naming another module.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use common::diagnostic_lines;
use toolcall_build::{Builder, Generated, Level};

const MAIN: &str = "mod prompts;\nmod resources;\nmod tools;\nmod toolset {\n    \
                    include!(concat!(env!(\"OUT_DIR\"), \"/tools.rs\"));\n}\nfn main() {}\n";
const TOOL: &str = "/// Adds a recipe.\n///\n/// # Arguments\n/// * `name` - its name\n\
                    pub fn add(name: String) -> u64 { 1 }\n";
const RESOURCE: &str = "use toolcall_runtime::ResourceMeta;\n\
                        pub(crate) const RESOURCES: &[ResourceMeta] = &[ResourceMeta::new(\"about\", \"info://about\")];\n\
                        /// What this is.\npub fn about() -> String { String::new() }\n";
const PROMPT: &str = "/// Summarize the recipes.\npub fn summarize() -> String { String::new() }\n";

/// A recipe service as the README lays it out, with `files` replacing or adding files
/// (an empty text removes one).
fn generate_with(builder: Builder, files: &[(&str, &str)]) -> Generated {
    let mut all: BTreeMap<PathBuf, String> = BTreeMap::from([
        ("src/main.rs".into(), MAIN.into()),
        ("src/tools/mod.rs".into(), "pub mod recipes;\n".into()),
        ("src/tools/recipes.rs".into(), TOOL.into()),
        ("src/resources/mod.rs".into(), "pub mod recipes;\n".into()),
        ("src/resources/recipes.rs".into(), RESOURCE.into()),
        ("src/prompts/mod.rs".into(), "pub mod recipes;\n".into()),
        ("src/prompts/recipes.rs".into(), PROMPT.into()),
    ]);
    for (path, text) in files {
        if text.is_empty() {
            all.remove(&PathBuf::from(path));
        } else {
            all.insert((*path).into(), (*text).to_owned());
        }
    }
    builder.generate_from_files(all).expect("generates")
}

fn generate(files: &[(&str, &str)]) -> Generated {
    generate_with(Builder::new(), files)
}

fn errors(generated: &Generated) -> Vec<String> {
    generated.diagnostics.iter().filter(|d| d.level == Level::Error).map(|d| d.to_string()).collect()
}

#[test]
fn a_crate_that_declares_everything_builds_clean() {
    let generated = generate(&[]);
    assert!(generated.diagnostics.is_empty(), "{}", diagnostic_lines(&generated));
}

#[test]
fn a_crate_root_without_mod_resources_or_mod_prompts_is_an_error_there() {
    let main = "mod tools;\nmod toolset {\n    include!(concat!(env!(\"OUT_DIR\"), \"/tools.rs\"));\n}\n\
                fn main() {}\n";
    let generated = generate(&[("src/main.rs", main)]);
    assert_eq!(
        errors(&generated),
        [
            "src/main.rs:2:1: error: `src/main.rs` does not declare `mod prompts;`, so the files of \
             `src/prompts` (module `crate::prompts`) are not compiled and the generated code cannot reach \
             them: add `mod prompts;` to `src/main.rs`",
            "src/main.rs:2:1: error: `src/main.rs` does not declare `mod resources;`, so the files of \
             `src/resources` (module `crate::resources`) are not compiled and the generated code cannot \
             reach them: add `mod resources;` to `src/main.rs`",
        ]
    );
    // `mod tools;` is checked the same way.
    let generated = generate(&[("src/main.rs", "mod prompts;\nmod resources;\nfn main() {}\n")]);
    let errors = errors(&generated);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].starts_with("src/main.rs:2:1: error: `src/main.rs` does not declare `mod tools;`"));
    assert!(errors[0].ends_with("add `mod tools;` to `src/main.rs`"), "{}", errors[0]);
}

#[test]
fn a_resource_or_prompt_file_its_mod_rs_does_not_declare_is_an_error_at_the_file() {
    let generated =
        generate(&[("src/resources/mod.rs", "// nothing\n"), ("src/prompts/mod.rs", "mod recipes;\n")]);
    assert_eq!(
        errors(&generated),
        [
            "src/prompts/mod.rs:1:5: error: `mod recipes;` is private, so the generated code cannot reach \
             the functions of `src/prompts/recipes.rs`: make it `pub mod recipes;`",
            "src/resources/recipes.rs:1:1: error: `src/resources/recipes.rs` is not declared as a module, so \
             it is not compiled and the generated code cannot reach its functions: add `pub mod recipes;` to \
             `src/resources/mod.rs`",
        ]
    );
}

#[test]
fn either_crate_root_may_declare_the_modules() {
    // A library beside the binary: the binary includes the generated file and declares them.
    let generated = generate(&[("src/lib.rs", "pub fn helper() {}\n")]);
    assert!(errors(&generated).is_empty(), "{}", diagnostic_lines(&generated));
    // Declared inline, or with `#[path]`, is declared.
    let main = "#[path = \"prompts/mod.rs\"]\nmod prompts;\nmod resources;\nmod tools;\nfn main() {}\n";
    assert!(errors(&generate(&[("src/main.rs", main)])).is_empty());
    // A root whose items a macro makes is not judged.
    let main = "mod tools;\nmacros::declare_the_rest!();\nfn main() {}\n";
    assert!(errors(&generate(&[("src/main.rs", main)])).is_empty());
}

#[test]
fn a_nested_root_is_declared_by_its_parent_module() {
    let builder = Builder::new().resources_dir("src/api/resources", "crate::api::resources");
    let files = [
        ("src/main.rs", "mod api;\nmod prompts;\nmod tools;\nfn main() {}\n"),
        ("src/api.rs", "pub mod other;\n"),
        ("src/api/other.rs", "\n"),
        ("src/resources/mod.rs", ""),
        ("src/resources/recipes.rs", ""),
        ("src/api/resources/mod.rs", "pub mod recipes;\n"),
        ("src/api/resources/recipes.rs", RESOURCE),
    ];
    let generated = generate_with(builder, &files);
    assert_eq!(
        errors(&generated),
        ["src/api.rs:1:1: error: `src/api.rs` does not declare `pub mod resources;`, so the files of \
          `src/api/resources` (module `crate::api::resources`) are not compiled and the generated code \
          cannot reach them: add `pub mod resources;` to `src/api.rs`"]
    );
}
