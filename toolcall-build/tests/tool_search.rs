//! `Builder::tool_search(true)`: the generated file gains a compiled search index of the
//! tools (`__ALL_SEARCH`) and the toolsets search it; without the call the file is what it
//! was. The index written is the runtime's own index of the same tools (one tokenizer, one
//! set of weights), and a tool search cannot find well gets a warning, only with search on.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{snapshot_settings, source};
use toolcall_build::{Builder, Generated, SourceFile};
use toolcall_runtime::render::{InputKind, render_input};
use toolcall_runtime::search::{Document, OwnedIndex};

fn sources() -> Vec<SourceFile> {
    vec![
        source("mod.rs", "pub mod notes;\npub mod weather;\n"),
        source(
            "weather.rs",
            "/// Gets the weather forecast for a city, for up to a week ahead.\n\
             ///\n/// # Arguments\n///\n/// * `city` - the city's name\n\
             pub fn getForecast(city: String, units: Units) -> String { city }\n\
             /// Temperature units.\n#[derive(serde::Deserialize)]\npub enum Units { Celsius, Fahrenheit }\n",
        ),
        source(
            "notes.rs",
            "/// Adds a note to the user's notebook.\npub fn add_note(text: String) -> usize { text.len() }\n\
             /// Removes.\npub fn remove_note(id: u64) -> u64 { id }\n",
        ),
    ]
}

fn generate(tool_search: bool) -> Generated {
    Builder::new().tool_search(tool_search).generate_from(sources()).expect("generates")
}

/// `code` without the index static (from its doc comment to its closing `);`) and without
/// the `.with_search(..)` calls, whitespace and trailing commas dropped: what the file says
/// apart from search.
fn without_search(code: &str) -> String {
    let mut code = code.to_owned();
    if let Some(start) = code.find("/// The search index of `ALL`'s tools") {
        let end = code[start..].find("\n);\n").map_or(code.len(), |at| start + at + 4);
        code.replace_range(start..end, "");
    }
    while let Some(start) = code.find(".with_search(") {
        let mut depth = 0;
        let mut end = code.len();
        for (at, c) in code[start..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = start + at + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        code.replace_range(start..end, "");
    }
    // Laid out on more lines, a call gets trailing commas.
    code.split_whitespace().collect::<String>().replace(",)", ")")
}

#[test]
fn search_adds_the_index_and_nothing_else_changes() {
    let (without, with) = (generate(false), generate(true));
    assert!(!without.code.contains("search"), "without tool_search the file has no index");
    assert_eq!(without_search(&with.code), without_search(&without.code), "only search's lines differ");
    assert_eq!(with.code.matches(".with_search(").count(), 3, "ALL and both modules' TOOLS search");
    let start = with.code.find("/// The search index of `ALL`'s tools").expect("the index is written");
    let end = with.code[start..].find("\n);\n").map_or(with.code.len(), |at| start + at + 4);
    snapshot_settings(|| insta::assert_snapshot!("search__index", &with.code[start..end]));
}

#[test]
fn the_index_is_the_runtimes_index_of_the_same_tools() {
    let generated = generate(true);
    // The runtime's own index of the tools, from the rows the generated table holds.
    let mut index = OwnedIndex::new();
    for module in &generated.modules {
        for tool in &module.tools {
            let ir = &tool.ir;
            let parameters = serde_json::from_str(&render_input(ir, InputKind::Lax)).unwrap();
            let path = module.path.join("::");
            let document = Document::of_tool(&ir.name, &ir.title, &ir.description, &path, &parameters);
            assert_eq!(document, Document::of_ir(ir, &path));
            index.add(&document);
        }
    }
    for (term, postings) in index.terms() {
        let list: Vec<String> = postings.iter().map(|(row, count)| format!("({row}, {count})")).collect();
        let line = format!("(\"{term}\", &[{}]),", list.join(", "));
        assert!(generated.code.contains(&line), "the index holds {line}");
    }
    let lengths: Vec<String> = index.lengths().iter().map(u32::to_string).collect();
    assert!(generated.code.contains(&format!("{},", lengths.join(", "))), "lengths {lengths:?}");
    // Case changes split the name; the enum's values are terms.
    assert!(generated.code.contains("(\"fahrenheit\", &["));
    assert!(generated.code.contains("(\"forecast\", &["));
}

#[test]
fn a_tool_with_a_short_description_is_warned_about_only_with_search_on() {
    let warned = |generated: &Generated| -> Vec<String> {
        generated
            .diagnostics
            .iter()
            .filter(|d| d.message.contains("tool search will find"))
            .map(|d| format!("{}:{}: {}", d.file.display(), d.line, d.message))
            .collect()
    };
    assert!(warned(&generate(false)).is_empty());
    let with = warned(&generate(true));
    assert_eq!(with.len(), 1, "{with:?}");
    assert!(
        with[0].starts_with("src/tools/notes.rs:4: tool search will find `remove_note` poorly"),
        "{with:?}"
    );
    assert!(with[0].contains("a description of 1 word;"), "{with:?}");
}

#[test]
fn the_index_is_the_same_bytes_on_every_run() {
    assert_eq!(generate(true).code, generate(true).code);
}
