//! The workspace's README.md is a front page; the reference lives in each library crate's
//! README.md, which is that crate's rustdoc, so its Rust snippets are doctests. This checks
//! what ties the two together: every Rust block of the front page is one of those
//! doctests (as rustdoc shows it, without its hidden `# ` lines), so a quick start that
//! stops compiling fails `cargo test --doc`; the crates' READMEs label every code block
//! (an unlabelled block would be compiled as Rust) and ignore none; and the front page
//! names the two commands and stays short.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

/// The crates whose README.md is their crate-level rustdoc.
const DOCUMENTED: &[&str] = &["toolcall-runtime", "toolcall-build", "toolcall-mcp", "toolcall-agent"];

/// The longest the front page may get.
const FRONT_PAGE_LINES: usize = 250;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// One fenced code block: its info string and its lines.
struct Block {
    info: String,
    lines: Vec<String>,
}

/// The fenced code blocks of a Markdown text.
fn blocks(markdown: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut current: Option<Block> = None;
    for line in markdown.lines() {
        let fence = line.trim_start().strip_prefix("```");
        match (current.as_mut(), fence) {
            (None, Some(info)) => current = Some(Block { info: info.trim().to_owned(), lines: Vec::new() }),
            (None, None) => {}
            (Some(_), Some(_)) => out.extend(current.take()),
            (Some(block), None) => block.lines.push(line.to_owned()),
        }
    }
    out
}

/// Whether rustdoc compiles the block as Rust: no info string, or `rust` among its words.
fn is_rust(block: &Block) -> bool {
    let words: Vec<&str> = block.info.split([',', ' ', '\t']).filter(|w| !w.is_empty()).collect();
    words.is_empty() || words.contains(&"rust")
}

/// The block as rustdoc shows it (hidden `# ` lines left out), each line's runs of
/// whitespace made one space, blank lines left out.
fn shown(block: &Block) -> Vec<String> {
    block
        .lines
        .iter()
        .filter(|line| {
            let trimmed = line.trim_start();
            trimmed != "#" && !trimmed.starts_with("# ")
        })
        .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|line| !line.is_empty())
        .collect()
}

fn contains(haystack: &[String], needle: &[String]) -> bool {
    !needle.is_empty() && haystack.windows(needle.len()).any(|window| window == needle)
}

#[test]
fn every_rust_block_of_the_front_page_is_a_doctest() {
    let front = read(&workspace().join("README.md"));
    let doctests: Vec<Vec<String>> = DOCUMENTED
        .iter()
        .flat_map(|krate| blocks(&read(&workspace().join(krate).join("README.md"))))
        .filter(is_rust)
        .map(|block| shown(&block))
        .collect();
    let front_blocks: Vec<Block> = blocks(&front).into_iter().filter(is_rust).collect();
    assert!(front_blocks.len() >= 4, "the quick start has {} Rust blocks", front_blocks.len());
    let missing: Vec<String> = front_blocks
        .iter()
        .map(shown)
        .filter(|lines| !doctests.iter().any(|doctest| contains(doctest, lines)))
        .map(|lines| lines.join("\n"))
        .collect();
    assert!(
        missing.is_empty(),
        "Rust blocks of README.md that no crate README has as a doctest (put each in the \
         crate that documents it):\n\n{}",
        missing.join("\n---\n")
    );
}

#[test]
fn the_crate_readmes_label_every_block_and_ignore_none() {
    for krate in DOCUMENTED {
        let path = workspace().join(krate).join("README.md");
        for block in blocks(&read(&path)) {
            let first = block.lines.first().cloned().unwrap_or_default();
            assert!(!block.info.is_empty(), "{}: a block without a language: {first}", path.display());
            assert!(
                !is_rust(&block) || !block.info.contains("ignore"),
                "{}: an ignored Rust block: {first}",
                path.display()
            );
        }
    }
}

#[test]
fn the_front_page_names_the_two_commands_and_stays_short() {
    let front = read(&workspace().join("README.md"));
    assert!(front.contains("`cargo run -p example-app` runs the main job"));
    assert!(front.contains("`cargo test --workspace` passes"));
    let lines = front.lines().count();
    assert!(lines <= FRONT_PAGE_LINES, "README.md has {lines} lines (at most {FRONT_PAGE_LINES})");
}

#[test]
fn the_matcher_reads_blocks_as_rustdoc_does() {
    let markdown =
        "a\n```rust\n# hidden\nlet x = 1;   // one\n\n#[derive(Debug)]\n```\n```sh\ny\n```\n```\nz\n```\n";
    let found = blocks(markdown);
    assert_eq!(found.len(), 3);
    assert_eq!(shown(&found[0]), ["let x = 1; // one", "#[derive(Debug)]"]);
    assert!(is_rust(&found[0]) && !is_rust(&found[1]) && is_rust(&found[2]));
    assert!(is_rust(&Block { info: "rust no_run".to_owned(), lines: Vec::new() }));
    assert!(contains(&shown(&found[0]), &["let x = 1; // one".to_owned()]));
    assert!(!contains(&shown(&found[0]), &[]));
}
