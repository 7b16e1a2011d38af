//! Hostile source: the generator never panics, and what it emits always parses as Rust
//! and carries doc text literally. Random source text (proptest; cargo-fuzz runs the same
//! property unbounded), plus fixed cases: syntax errors, unsupported items, `"#`, `*/`,
//! `}` and bidi characters in docs, a 10,000-line file, non-ASCII identifiers.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use toolcall_build::{Builder, Generated, SourceFile};

fn generate(text: &str) -> Generated {
    let source = SourceFile {
        path: "src/tools/hostile.rs".into(),
        relative: "hostile.rs".into(),
        text: text.to_owned(),
    };
    Builder::new().generate_from(vec![source]).expect("generation starts")
}

/// The emitted code parses as a Rust file.
fn assert_parses(generated: &Generated) {
    let body = generated.code.lines().skip(1).collect::<Vec<_>>().join("\n");
    syn::parse_file(&body).unwrap_or_else(|e| panic!("emitted code does not parse: {e}\n{}", generated.code));
}

const FRAGMENTS: &[&str] = &[
    "/// Doc with \"# and */ and } and {} and \u{202e}.\n",
    "pub fn f(a: u8) -> u8 { a }\n",
    "pub fn g(city: String, days: Option<u32>) { let days = days.unwrap_or(3); }\n",
    "pub struct S { pub x: Vec<S> }\n",
    "pub enum E { A, B(u8), C { d: String } }\n",
    "#[serde(tag = \"t\")] pub enum T { A { x: u8 } }\n",
    "type A = B; type B = A;\n",
    "pub fn h(_: (u8, u8), (a, b): (u8, u8)) {}\n",
    "pub fn naïve(日本: u8) {}\n",
    "pub(crate) const TOOL_PARAMS: &[ToolParam] = &[ToolParam::new(\"f\", \"a\").string_integer()];\n",
    "impl X { pub fn m(&self) {} }\n",
    "pub fn r#type(r#fn: u8) {}\n",
    "/// # Arguments\n/// * `a` - x\n///   - nested\n",
    "pub fn generic<T>(t: T) {}\n",
    "pub fn broken( {\n",
    "}}}}\n",
    "pub fn deep(x: Vec<Vec<Vec<Vec<Option<Option<u8>>>>>>) {}\n",
    "pub fn maps(m: std::collections::HashMap<u8, u8>) {}\n",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        assert_parses(&generate(&text));
    }

    #[test]
    fn shuffled_fragments_never_panic_and_always_parse(
        picks in proptest::collection::vec(0..FRAGMENTS.len(), 0..12)
    ) {
        let text: String = picks.iter().map(|i| FRAGMENTS[*i]).collect();
        assert_parses(&generate(&text));
    }
}

#[test]
fn doc_text_is_carried_literally() {
    let text = "/// Says \"# and */ and } and {} and \u{202e} and \\n.\npub fn odd() {}\n";
    let generated = generate(text);
    assert_parses(&generated);
    let info = &generated.modules[0].tools[0].ir.description;
    assert_eq!(info, "Says \"# and */ and } and {} and \u{202e} and \\n.");
}

#[test]
fn a_ten_thousand_line_file_generates() {
    let mut text = String::new();
    for i in 0..2_000 {
        text.push_str(&format!("/// Tool {i}.\n///\n/// # Arguments\n/// * `a` - the value\npub fn tool_{i}(a: u32) -> u32 {{ a }}\n"));
    }
    assert!(text.lines().count() >= 10_000);
    let generated = generate(&text);
    assert_parses(&generated);
    assert_eq!(generated.modules[0].tools.len(), 2_000);
}

#[test]
fn non_ascii_identifiers_warn_and_still_generate() {
    let generated = generate("/// Naïve.\npub fn naïve(日本: u8) -> u8 { 日本 }\n");
    assert_parses(&generated);
    let lines: Vec<String> = generated.diagnostics.iter().map(ToString::to_string).collect();
    assert!(lines.iter().any(|l| l.contains("`naïve` does not match")), "{lines:?}");
    assert_eq!(generated.modules[0].tools[0].ir.params[0].name, "日本");
}

#[test]
fn syntax_errors_and_unsupported_items_are_diagnostics() {
    let generated = generate("pub fn ok() {}\nimpl X { pub fn m(&self) {} }\npub fn broken( {\n");
    assert!(generated.has_errors());
    assert!(
        generated.diagnostics[0].to_string().starts_with("src/tools/hostile.rs:3:"),
        "{}",
        generated.diagnostics[0]
    );
    let generated = generate("impl X { pub fn m(&self) {} }\nmacro_rules! m { () => {} }\npub fn ok() {}\n");
    assert!(!generated.has_errors());
    assert_eq!(generated.modules[0].tools.len(), 1);
}

/// Nesting that brackets do not bound (`<`, `&`, prefix operators, chains of binary
/// operators and method calls): syn and the passes over its tree recurse once per level.
/// These ran the generator out of its stack (a SIGSEGV under the fuzzer, an abort in
/// `cargo toolcall export` at 500 nested `Vec<`) until it got a thread of its own; here
/// they run from a test thread, whose stack is 2 MiB.
#[test]
fn nesting_thousands_deep_outside_brackets_is_generated_from() {
    let n = 2_000;
    let tools = [
        ("prefix operators", format!("/// Deep.\npub fn deep() -> bool {{ {}true }}\n", "!".repeat(n))),
        ("a binary chain", format!("/// Deep.\npub fn deep() -> u64 {{ 1{} }}\n", " + 1".repeat(n))),
        ("a method chain", format!("/// Deep.\npub fn deep(x: u8) {{ x{}; }}\n", ".f()".repeat(n))),
    ];
    for (what, text) in tools {
        let generated = generate(&text);
        assert_parses(&generated);
        assert_eq!(generated.modules.first().map(|m| m.tools.len()), Some(1), "{what}");
    }
    // Not tools, and said so: a schema no JSON parser would read (see the next test), a
    // borrowed parameter, and generic arguments never closed.
    let refused = [
        format!("/// Deep.\npub fn deep(x: {}u8{}) {{}}\n", "Vec<".repeat(n), ">".repeat(n)),
        format!("/// Deep.\npub fn deep(x: {}u8) {{}}\n", "&".repeat(n)),
        format!("impl !{}", "<".repeat(n)),
    ];
    for text in refused {
        let generated = generate(&text);
        assert_parses(&generated);
        assert!(!generated.diagnostics.is_empty(), "{}", &text[..40]);
    }
}

/// A type whose schema nests past what JSON parsers read is an error at the tool; one
/// level less is accepted.
#[test]
fn schemas_nested_past_what_json_parsers_read_are_refused() {
    let nested = |levels: usize| {
        format!("/// Deep.\npub fn deep(x: {}u8{}) {{}}\n", "Vec<".repeat(levels), ">".repeat(levels))
    };
    let limit = toolcall_build::MAX_SCHEMA_DEPTH;
    // The schema's levels: the parameters object, its `properties`, one per `Vec`, the `u8`.
    let deepest_accepted = generate(&nested(limit - 3));
    assert!(!deepest_accepted.has_errors(), "{:?}", deepest_accepted.diagnostics);
    let refused = generate(&nested(limit - 2));
    assert!(refused.has_errors());
    let error = refused.diagnostics.iter().find(|d| d.message.contains("nests")).expect("the depth error");
    assert!(error.message.contains(&format!("nests {} levels", limit + 1)), "{}", error.message);
    assert_eq!(error.line, 2);
}

/// #31 item 6: OpenAI's Agents SDK refuses strict schemas nested past 100 levels: one past
/// it is a warning at the tool (the tool is kept: lax and other formats take it), one at it
/// is not.
#[test]
fn strict_schemas_nested_past_what_openai_tooling_reads_warn() {
    let nested = |levels: usize| {
        format!("/// Deep.\npub fn deep(x: {}u8{}) {{}}\n", "Vec<".repeat(levels), ">".repeat(levels))
    };
    let limit = toolcall_build::OPENAI_STRICT_MAX_DEPTH;
    let says = |generated: &toolcall_build::Generated| {
        generated.diagnostics.iter().find(|d| d.message.contains("OpenAI's Agents SDK")).cloned()
    };
    let at_the_limit = generate(&nested(limit - 3));
    assert_eq!(says(&at_the_limit), None, "{:?}", at_the_limit.diagnostics);
    let past = generate(&nested(limit - 2));
    assert!(!past.has_errors(), "{:?}", past.diagnostics);
    assert_eq!(past.modules.first().map(|m| m.tools.len()), Some(1));
    let warning = says(&past).expect("the OpenAI strict depth warning");
    assert_eq!(warning.level, toolcall_build::Level::Warning);
    assert!(warning.message.contains(&format!("nests {} levels", limit + 1)), "{}", warning.message);
    assert_eq!(warning.line, 2);
}
