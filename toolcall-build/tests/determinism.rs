//! Same source in, same bytes out: whatever order the files arrive in, wherever the crate
//! is checked out, and with nothing of the environment in the output.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{FIXTURES, diagnostic_lines, fixture_sources};
use toolcall_build::{Builder, SourceFile};

/// Five orders: as read, reversed, rotated, and two fixed shuffles.
fn orders(sources: &[SourceFile]) -> Vec<Vec<SourceFile>> {
    let n = sources.len();
    let mut reversed = sources.to_vec();
    reversed.reverse();
    let mut rotated = sources.to_vec();
    rotated.rotate_left(n / 2);
    let shuffle = |step: usize| -> Vec<SourceFile> {
        // `step` is coprime with n (checked below), so this visits every file once.
        (0..n).map(|i| sources[(i * step + 3) % n].clone()).collect()
    };
    let steps: Vec<usize> = (5..).filter(|s| gcd(*s, n) == 1).take(2).collect();
    vec![sources.to_vec(), reversed, rotated, shuffle(steps[0]), shuffle(steps[1])]
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

#[test]
fn any_file_order_gives_identical_bytes() {
    let sources = fixture_sources();
    let runs: Vec<(String, String)> = orders(&sources)
        .into_iter()
        .map(|order| {
            assert_eq!(order.len(), sources.len());
            let generated = Builder::new().generate_from(order).unwrap();
            let diagnostics = diagnostic_lines(&generated);
            (generated.code, diagnostics)
        })
        .collect();
    assert_ne!(orders(&sources)[0][0].path, orders(&sources)[1][0].path, "orders differ");
    for (code, diagnostics) in &runs[1..] {
        assert!(code == &runs[0].0, "generated code depends on file order");
        assert_eq!(diagnostics, &runs[0].1);
    }
}

#[test]
fn the_checkout_path_and_environment_do_not_leak() {
    let generated = Builder::new().crate_dir(FIXTURES).generate().unwrap();
    let checkout = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let checkout = checkout.canonicalize().unwrap();
    let text = format!("{}{}", generated.code, diagnostic_lines(&generated));
    for leak in [checkout.to_string_lossy().into_owned(), env!("CARGO_MANIFEST_DIR").to_owned()] {
        assert!(!text.contains(&leak), "output contains {leak}");
    }
    if let Ok(home) = std::env::var("HOME") {
        assert!(home.len() < 2 || !text.contains(&home), "output contains $HOME");
    }
    assert!(!text.contains("target/debug"));
}

#[test]
fn a_copy_elsewhere_generates_the_same_bytes() {
    let here = Builder::new().crate_dir(FIXTURES).generate().unwrap();
    let copy = std::env::temp_dir().join(format!("toolcall-fixtures-copy-{}", std::process::id()));
    let crate_files = here.crate_files.iter().map(|path| {
        let text = std::fs::read_to_string(std::path::Path::new(FIXTURES).join(path)).unwrap();
        (path.clone(), text)
    });
    let tool_files = fixture_sources().into_iter().map(|source| (source.path, source.text));
    assert!(!here.crate_files.is_empty(), "the crate's own modules are read too");
    for (path, text) in crate_files.chain(tool_files) {
        let target = copy.join(&path);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(&target, &text).unwrap();
    }
    let there = Builder::new().crate_dir(&copy).generate();
    std::fs::remove_dir_all(&copy).unwrap();
    let there = there.unwrap();
    assert!(here.code == there.code, "generated code depends on the checkout path");
    assert_eq!(diagnostic_lines(&here), diagnostic_lines(&there));
}

/// Adding a tool changes its own module's generated code and nothing else: no other
/// module and not the crate level (which names modules, never tools, and finds each
/// module's rows of the info table from the modules' row counts, not a literal offset).
#[test]
fn adding_a_tool_changes_its_own_module_and_one_dispatcher_arm() {
    let sources = fixture_sources();
    let mut grown = sources.clone();
    let aliases = grown.iter_mut().find(|s| s.relative.ends_with("aliases.rs")).expect("aliases.rs");
    aliases.text.push_str("\n/// Added later.\n///\n/// # Arguments\n///\n/// * `n` - a number\npub fn added_later(n: u8) -> u8 {\n    n\n}\n");
    let items = |sources: Vec<SourceFile>| {
        let generated = Builder::new().generate_from(sources).unwrap();
        let file = syn::parse_file(&generated.code).expect("the generated code parses");
        file.items
            .iter()
            .map(|item| match item {
                syn::Item::Mod(module) => (module.ident.to_string(), quote::quote!(#item).to_string()),
                other => ("(crate level)".to_owned(), quote::quote!(#other).to_string()),
            })
            .fold(std::collections::BTreeMap::<String, String>::new(), |mut all, (key, text)| {
                all.entry(key).or_default().push_str(&text);
                all
            })
    };
    let (before, after) = (items(sources), items(grown));
    assert_eq!(before.keys().collect::<Vec<_>>(), after.keys().collect::<Vec<_>>());
    let changed: Vec<&String> = before.keys().filter(|key| before[*key] != after[*key]).collect();
    assert_eq!(changed, ["(crate level)", "aliases"], "only the module that gained a tool, and the root");
    assert!(after["aliases"].contains("added_later"));
    // At the root, the crate's dispatcher gains the tool's arm and nothing else changes.
    let hash = toolcall_runtime::__private::name_hash("added_later");
    let call = "self :: aliases :: __call_added_later (c , a , p)";
    // prettyplease puts an arm in braces when it does not fit on one line.
    let arms = [
        format!("({hash} , \"added_later\") => {call} , "),
        format!("({hash} , \"added_later\") => {{ {call} }} "),
    ];
    let root = &after["(crate level)"];
    let arm = arms
        .iter()
        .find(|arm| root.contains(arm.as_str()))
        .expect("the root dispatcher has the new tool's arm");
    assert_eq!(root.replacen(arm.as_str(), "", 1), before["(crate level)"]);
}

#[test]
fn a_build_error_keeps_its_cause() {
    use std::error::Error as _;
    let missing = Builder::new().crate_dir("/nonexistent/toolcall-crate").generate().unwrap_err();
    assert!(missing.to_string().starts_with("cannot read"), "{missing}");
    let cause = missing.source().expect("the io error is the source");
    assert!(cause.downcast_ref::<std::io::Error>().is_some());
}
