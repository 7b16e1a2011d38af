//! Every ```rust block of README.md is in this crate, line for line (runs of spaces and
//! blank lines aside), so it compiles with the crate: a README snippet that stops
//! compiling, or one added without a place here, fails this test. The few blocks that are
//! not Rust a compiler could take as written are listed with why, and the list is checked
//! too (a block fixed, or gone, must leave it).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

/// Blocks not compiled yet, by their first line, with why (each in a README section
/// another change owns; see #31).
const NOT_YET: &[(&str, &str)] = &[];

/// The lines of `text` with runs of whitespace made one space, blank lines left out.
fn normalized(text: &str) -> Vec<String> {
    text.lines()
        .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|line| !line.is_empty())
        .collect()
}

/// The ```rust blocks of a Markdown text (`rust` or `rust,..` info strings).
fn rust_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match current.as_mut() {
            None if line.trim_start().starts_with("```rust") => current = Some(String::new()),
            None => {}
            Some(_) if line.trim_start().starts_with("```") => blocks.extend(current.take()),
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
        }
    }
    blocks
}

/// Every `.rs` file of this crate, normalized.
fn sources() -> Vec<(String, Vec<String>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    let mut stack = vec![root.join("src"), root.join("build.rs")];
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            stack.extend(std::fs::read_dir(&path).unwrap().map(|entry| entry.unwrap().path()));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push((path.display().to_string(), normalized(&std::fs::read_to_string(&path).unwrap())));
        }
    }
    out
}

fn contains(haystack: &[String], needle: &[String]) -> bool {
    !needle.is_empty() && haystack.windows(needle.len()).any(|window| window == needle)
}

#[test]
fn every_readme_rust_block_is_compiled_here() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    let blocks = rust_blocks(&readme);
    assert!(blocks.len() >= 10, "only {} rust blocks found", blocks.len());
    let sources = sources();
    let mut missing = Vec::new();
    let mut known = Vec::new();
    for block in &blocks {
        let lines = normalized(block);
        let first = lines.first().cloned().unwrap_or_default();
        let found = sources.iter().any(|(_, source)| contains(source, &lines));
        match NOT_YET.iter().find(|(line, _)| normalized(line).first() == Some(&first)) {
            Some((line, why)) => {
                assert!(!found, "`{line}` compiles now: take it off NOT_YET ({why})");
                known.push(*line);
            }
            None if !found => missing.push(block.clone()),
            None => {}
        }
    }
    assert!(
        missing.is_empty(),
        "README blocks that are not in readme/ (put each where a user would write it):\n\n{}",
        missing.join("\n---\n")
    );
    for (line, _) in NOT_YET {
        assert!(known.contains(line), "`{line}` is no longer in README.md: take it off NOT_YET");
    }
}

#[test]
fn the_matcher_needs_the_whole_block_in_order() {
    let source = normalized("fn a() {\n    let x = 1;   // one\n\n    let y = 2;\n}\n");
    assert!(contains(&source, &normalized("let x = 1; // one\nlet y = 2;")));
    assert!(!contains(&source, &normalized("let y = 2;\nlet x = 1; // one")));
    assert!(!contains(&source, &normalized("let x = 2;")));
    assert_eq!(rust_blocks("a\n```rust\nx\n```\n```sh\ny\n```\n```rust,ignore\nz\n```\n"), ["x\n", "z\n"]);
}
