//! The build-time check stage (`toolcall-build/src/check.rs`) catches tools that break a
//! provider rule, with a clear message at the tool's file:line. Each fixture is tool-file
//! text run through `Builder::generate_from`; these are the checks that exist.
//! (`build_checks.rs` holds the ones still to be written.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

use conformance::build_fixture::{FnProvider, find, generate, line_of};
use conformance::rules::budget;
use serde_json::{Value, json};
use toolcall_build::{Level, ProvidedType, is_provider_safe};
use toolcall_runtime::Format;
use toolcall_runtime::ir::Type;
use toolcall_runtime::render::render_tool;

fn assert_found(result: Result<&toolcall_build::Diagnostic, String>) -> String {
    match result {
        Ok(diagnostic) => {
            println!("caught: {diagnostic}");
            diagnostic.to_string()
        }
        Err(message) => panic!("{message}"),
    }
}

#[test]
fn a_url_parameter_is_caught_as_a_uri_format_openai_strict_rejects() {
    let text = "/// Fetch a page.\n///\n/// # Arguments\n///\n/// * `page` - the address\npub fn fetch(page: url::Url) -> String {\n    page.to_string()\n}\n";
    let generated = generate(&[("web.rs", text)], None);
    let line = line_of(text, "pub fn fetch");
    let shown = assert_found(find(
        &generated,
        Level::Warning,
        "src/tools/web.rs",
        line,
        &["format `uri`", "OpenAI strict"],
    ));
    assert!(shown.starts_with(&format!("src/tools/web.rs:{line}:")), "{shown}");
    // What the check announces is what the renderer does: no `uri` in OpenAI strict.
    let tool = &generated.modules[0].tools[0].ir;
    assert!(!render_tool(tool, Format::OpenAi, true).contains(r#""format":"uri""#));
    assert!(render_tool(tool, Format::Anthropic, true).contains(r#""format":"uri""#));
}

#[test]
fn a_type_provider_returning_a_uri_format_is_caught() {
    let provider =
        FnProvider(|path, _| (path == "Link").then(|| ProvidedType::new(Type::string_format("uri"))));
    let text = "/// Follow a link.\npub fn follow(link: Link) -> bool {\n    true\n}\n";
    let generated = generate(&[("links.rs", text)], Some(provider));
    assert_found(find(
        &generated,
        Level::Warning,
        "src/tools/links.rs",
        2,
        &["`follow`", "format `uri`", "OpenAI strict"],
    ));
}

/// A tool whose parameter is `levels` structs deep (the root object is one more level).
fn nested_source(levels: usize) -> String {
    let mut text = String::new();
    for k in 1..levels {
        text.push_str(&format!(
            "/// Level {k}.\npub struct L{k} {{\n    /// Deeper.\n    pub inner: L{},\n}}\n\n",
            k + 1
        ));
    }
    text.push_str(&format!(
        "/// The last level.\npub struct L{levels} {{\n    /// A leaf.\n    pub leaf: String,\n}}\n\n"
    ));
    text.push_str("/// Walk down.\npub fn deep(root: L1) -> u8 {\n    0\n}\n");
    text
}

#[test]
fn twelve_levels_of_nesting_are_caught() {
    let text = nested_source(11);
    let generated = generate(&[("deep.rs", &text)], None);
    let line = line_of(&text, "pub fn deep");
    assert_found(find(
        &generated,
        Level::Warning,
        "src/tools/deep.rs",
        line,
        &["12 levels", "OpenAI strict allows 10"],
    ));
    // The check's count agrees with this suite's count over the emitted OpenAI schema.
    let tool = &generated.modules[0].tools[0].ir;
    let emitted: serde_json::Value = serde_json::from_str(&render_tool(tool, Format::OpenAi, true)).unwrap();
    assert_eq!(budget(&emitted["function"]["parameters"]).nesting, 12);
    // Ten levels pass.
    let ten = nested_source(9);
    let quiet = generate(&[("deep.rs", &ten)], None);
    assert!(!quiet.diagnostics.iter().any(|d| d.message.contains("levels")), "{:?}", quiet.diagnostics);
}

#[test]
fn a_thousand_and_one_enum_values_are_caught() {
    let variants: Vec<String> = (0..1001).map(|i| format!("    V{i},")).collect();
    let text = format!(
        "/// Many.\npub enum Big {{\n{}\n}}\n\n/// Pick one.\npub fn pick(value: Big) -> u8 {{\n    0\n}}\n",
        variants.join("\n")
    );
    let generated = generate(&[("big.rs", &text)], None);
    let line = line_of(&text, "pub fn pick");
    assert_found(find(
        &generated,
        Level::Warning,
        "src/tools/big.rs",
        line,
        &["1001 enum values", "OpenAI strict allows 1000"],
    ));
}

#[test]
fn a_name_openai_and_anthropic_reject_is_caught() {
    let long = "x".repeat(65);
    let text = format!(
        "/// Weather.\npub fn météo() -> u8 {{\n    0\n}}\n\n/// Long.\npub fn {long}() -> u8 {{\n    0\n}}\n"
    );
    let generated = generate(&[("names.rs", &text)], None);
    assert_found(find(
        &generated,
        Level::Warning,
        "src/tools/names.rs",
        2,
        &["`météo`", "^[a-zA-Z0-9_-]{1,64}$"],
    ));
    assert_found(find(&generated, Level::Warning, "src/tools/names.rs", 7, &[&long, "does not match"]));
    // A dotted name (`get.weather`, legal in MCP) cannot come from a Rust identifier; the
    // rule the check applies rejects it all the same.
    assert!(!is_provider_safe("get.weather"));
    assert!(is_provider_safe("get_weather"));
}

#[test]
fn a_duplicate_tool_name_is_an_error_naming_both_places() {
    let a = "/// A.\npub fn get_weather() -> u8 {\n    0\n}\n";
    let b = "/// Some other tool first.\npub fn other() -> u8 {\n    0\n}\n\n/// B.\npub fn get_weather() -> u8 {\n    1\n}\n";
    let generated = generate(&[("a.rs", a), ("b.rs", b)], None);
    assert!(generated.has_errors());
    let line = line_of(b, "pub fn get_weather");
    assert_found(find(
        &generated,
        Level::Error,
        "src/tools/b.rs",
        line,
        &["defined twice", "src/tools/a.rs:2"],
    ));
}

#[test]
fn what_strict_mode_cannot_express_is_caught() {
    let text = "use std::collections::HashMap;\n\n/// Everything strict loses.\npub fn lossy(counts: HashMap<String, u32>, raw: serde_json::Value, pair: (u8, String)) -> u8 {\n    0\n}\n";
    let generated = generate(&[("lossy.rs", text)], None);
    for needles in [["`counts`", "open object"], ["`raw`", "untyped"], ["`pair`", "tuple"]] {
        assert_found(find(&generated, Level::Warning, "src/tools/lossy.rs", 4, &needles));
    }
}

#[test]
fn a_description_over_1024_characters_is_caught() {
    let text = format!("/// {}\npub fn wordy() -> u8 {{\n    0\n}}\n", "word ".repeat(220).trim_end());
    let generated = generate(&[("wordy.rs", &text)], None);
    assert_found(find(
        &generated,
        Level::Warning,
        "src/tools/wordy.rs",
        2,
        &["description is 1099 characters", "1024"],
    ));
}

#[test]
fn integer_bounds_outside_the_safe_range_are_caught() {
    let provider = FnProvider(|path, _| {
        (path == "Huge").then(|| ProvidedType::new(Type::integer_between(i64::MIN, i64::MAX)))
    });
    let text = "/// Count.\npub fn count(n: Huge) -> u8 {\n    0\n}\n";
    let generated = generate(&[("huge.rs", text)], Some(provider));
    assert_found(find(&generated, Level::Warning, "src/tools/huge.rs", 2, &["outside ±(2^53−1)", "clamped"]));
    let tool = &generated.modules[0].tools[0].ir;
    assert!(!render_tool(tool, Format::Mcp, false).contains("9223372036854775807"));
}

#[test]
fn too_many_tools_for_one_request_are_caught() {
    let tools: Vec<String> =
        (0..129).map(|i| format!("/// Tool {i}.\npub fn t{i}() -> u8 {{\n    0\n}}\n")).collect();
    let text = tools.join("\n");
    let generated = generate(&[("many.rs", &text)], None);
    assert_found(find(&generated, Level::Warning, "src/tools/many.rs", 2, &["129 tools", "at most 128"]));
    assert_found(find(
        &generated,
        Level::Warning,
        "src/tools/many.rs",
        2,
        &["Anthropic strict allows 20 strict tools"],
    ));
}

#[test]
fn a_clean_tool_file_gets_no_provider_warning() {
    let text = "/// Add.\n///\n/// # Arguments\n///\n/// * `a` - first\n/// * `b` - second\npub fn add(a: i32, b: i32) -> i64 {\n    i64::from(a) + i64::from(b)\n}\n";
    let generated = generate(&[("math.rs", text)], None);
    assert!(generated.diagnostics.is_empty(), "{:?}", generated.diagnostics);
}

/// `serde_json::Map<String, Value>` written with its type arguments is an open object, not
/// a foreign type rendered `{}` (found by this suite; fixed in the generator).
#[test]
fn serde_json_map_with_type_arguments_is_an_open_object() {
    let text = "use serde_json::{Map, Value};\n\n/// Raw.\npub fn raw(m: Map<String, Value>) -> bool {\n    true\n}\n";
    let generated = generate(&[("raw.rs", text)], None);
    assert!(
        !generated.diagnostics.iter().any(|d| d.message.contains("no schema mapping")),
        "{:?}",
        generated.diagnostics
    );
    let tool = &generated.modules[0].tools[0].ir;
    let emitted: Value = serde_json::from_str(&render_tool(tool, Format::Mcp, false)).unwrap();
    assert_eq!(emitted.pointer("/inputSchema/properties/m/type"), Some(&json!("object")));
}

/// Recursive local types: a pair that contain each other is one definition (the type met
/// again), used through `$ref` where the format takes it and written out in Gemini and
/// Anthropic strict, with one note per parameter at its place (information: not printed
/// by a build), and a warning at the tool that Anthropic strict sends it without `strict`.
#[test]
fn a_mutually_recursive_pair_is_one_definition_with_a_located_note() {
    let text = "/// A folder.\npub struct Folder {\n    /// Its name.\n    pub name: String,\n    /// What it holds.\n    pub entries: Vec<Entry>,\n}\n\n/// An entry.\npub enum Entry {\n    /// A file.\n    File(String),\n    /// A folder.\n    Folder(Folder),\n}\n\n/// Count files.\n///\n/// # Arguments\n///\n/// * `root` - the folder\npub fn count(root: Folder) -> usize {\n    root.entries.len()\n}\n";
    let generated = generate(&[("tree.rs", text)], None);
    let line = line_of(text, "pub fn count");
    assert_found(find(
        &generated,
        Level::Note,
        "src/tools/tree.rs",
        line,
        &["`root`", "recursive type `Folder`", "Gemini and Anthropic strict"],
    ));
    assert_found(find(
        &generated,
        Level::Warning,
        "src/tools/tree.rs",
        line,
        &["`count`", "Anthropic strict schema has a node without a type", "recursive type `Folder`"],
    ));
    let tool = &generated.modules[0].tools[0].ir;
    let names: Vec<&str> = tool.defs.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["Folder"], "Entry is inlined into Folder: only the type met again is a definition");
    assert_eq!(tool.params[0].ty, Type::reference("Folder"));
    for (format, strict) in conformance::corpus::variants() {
        let text = render_tool(tool, format, strict);
        let inlined = format == Format::Gemini || (format == Format::Anthropic && strict);
        assert_eq!(!text.contains("$ref"), inlined, "{format:?} strict={strict}: {text}");
        assert_eq!(text.contains("same shape as the enclosing Folder"), inlined, "{text}");
    }
}

/// A generic type is its name with its arguments: `Wrap<Wrap<u8>>` nests two types (no
/// recursion), and `Tree<T>` instantiated twice in one tool is two definitions.
#[test]
fn generic_instances_are_told_apart() {
    let text = "/// A box.\npub struct Wrap<T> {\n    /// The value.\n    pub inner: T,\n}\n\n/// A tree.\npub struct Tree<T> {\n    /// The value.\n    pub value: T,\n    /// The subtrees.\n    pub kids: Vec<Tree<T>>,\n}\n\n/// Use them.\n///\n/// # Arguments\n///\n/// * `w` - boxes\n/// * `a` - numbers\n/// * `b` - words\n/// * `c` - numbers again\npub fn use_them(w: Wrap<Wrap<u8>>, a: Tree<u8>, b: Tree<String>, c: Option<Tree<u8>>) -> bool {\n    true\n}\n";
    let generated = generate(&[("generic.rs", text)], None);
    assert!(!generated.has_errors());
    let tool = &generated.modules[0].tools[0].ir;
    let names: Vec<&str> = tool.defs.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["Tree_u8", "Tree_String"]);
    let rendered = render_tool(tool, Format::Mcp, false);
    assert!(rendered.contains(r#""inner":{"type":"object""#), "Wrap<Wrap<u8>> is written out: {rendered}");
    assert_eq!(tool.params[3].ty, Type::reference("Tree_u8"), "one definition for both uses");
}

/// A type that holds itself with no JSON nesting between (an untagged variant of itself)
/// has no finite value and a decoder of it would never end: the tool is refused, with the
/// reason, at the parameter.
#[test]
fn a_type_that_holds_itself_without_nesting_is_refused() {
    let text = "/// A loop.\n#[derive(serde::Deserialize)]\n#[serde(untagged)]\npub enum Loop {\n    /// Again.\n    Again(Box<Loop>),\n    /// A number.\n    Number(u8),\n}\n\n/// Spin.\n///\n/// # Arguments\n///\n/// * `l` - the loop\npub fn spin(l: Loop) -> bool {\n    true\n}\n";
    let generated = generate(&[("looping.rs", text)], None);
    let line = line_of(text, "pub fn spin");
    assert_found(find(
        &generated,
        Level::Warning,
        "src/tools/looping.rs",
        line,
        &["`spin` is not a tool", "`Loop` contains itself with no JSON nesting"],
    ));
    assert!(generated.modules.iter().all(|m| m.tools.is_empty()));
}
