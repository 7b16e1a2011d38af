//! Snapshots of what the generator emits for the fixture crate (`toolcall-fixtures`): the
//! generated `tools.rs` for the whole crate and sliced per fixture file, every schema of
//! every module in each format, strict and not, and the diagnostics. The same files are
//! compiled and dispatched for real by `toolcall-fixtures`' own tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{
    diagnostic_lines, fixture_sources, generate_fixtures, module_name, module_schemas, pretty,
    snapshot_settings,
};
use serde_json::Value;
use toolcall_runtime::Format;
use toolcall_runtime::render::render_tools;

/// Each fixture file's part of the whole crate's generated code, as the crate compiles it
/// (so types of other files and of `crate::models` are resolved, not `{}`): the file's
/// module with its child modules cut to `pub mod x;` (each has its own snapshot), then the
/// decoders of the types the file declares. `code__root` holds the crate-level items (the
/// `ALL` toolset, its tool table and dispatchers) and `code__crate_types` the decoders of
/// types declared outside the tool files. Every item of the code is in exactly one slice.
#[test]
fn generated_code_per_fixture_file() {
    let sources = fixture_sources();
    assert!(sources.len() >= 12, "{} fixture files", sources.len());
    let generated = generate_fixtures();
    assert!(!generated.has_errors(), "{}", diagnostic_lines(&generated));
    let code = syn::parse_file(&generated.code).expect("the generated code parses");
    let mut slices = Vec::new();
    let mut impls_sliced = 0;
    for source in &sources {
        let path = source.module_path();
        let mut items: Vec<syn::Item> = if path.is_empty() {
            let crate_level = |i: &&syn::Item| !matches!(i, syn::Item::Mod(_) | syn::Item::Impl(_));
            code.items.iter().filter(crate_level).cloned().collect()
        } else {
            let module = find_module(&code.items, &path).unwrap_or_else(|| panic!("no module {path:?}"));
            vec![syn::Item::Mod(without_child_modules(module))]
        };
        let declared_here = |ty: &[String]| {
            ty.len() == path.len() + 3 && ty[..2] == ["crate", "tools"] && ty[2..ty.len() - 1] == path[..]
        };
        let decoders: Vec<syn::Item> = impls(&code.items, declared_here).collect();
        impls_sliced += decoders.len();
        items.extend(decoders);
        let what =
            if path.is_empty() { "the crate level".to_owned() } else { format!("`{}`", path.join("::")) };
        let header = format!("// {what}, sliced from the whole crate's tools.rs\n");
        slices.push((module_name(&path), header, items));
    }
    let outside = |ty: &[String]| !(ty.len() > 2 && ty[..2] == ["crate", "tools"]);
    let crate_types: Vec<syn::Item> = impls(&code.items, outside).collect();
    impls_sliced += crate_types.len();
    let header =
        "// decoders of the types declared outside the tool files, from the whole crate's tools.rs\n"
            .to_owned();
    slices.push(("crate_types".to_owned(), header, crate_types));
    // Every module and every impl of the code is in one slice.
    let impls_in_code = code.items.iter().filter(|i| matches!(i, syn::Item::Impl(_))).count();
    assert_eq!(impls_sliced, impls_in_code, "an impl is in no slice or in two");
    for item in &code.items {
        if let syn::Item::Mod(module) = item {
            assert!(
                sources.iter().any(|s| s.module_path() == [module.ident.to_string()]),
                "{}",
                module.ident
            );
        }
    }
    snapshot_settings(|| {
        for (name, header, items) in slices {
            let code =
                header + &prettyplease::unparse(&syn::File { shebang: None, attrs: Vec::new(), items });
            insta::assert_snapshot!(format!("code__{name}"), code);
        }
    });
}

/// The module at `path` among `items` (nested modules inside their parent's content).
fn find_module<'a>(items: &'a [syn::Item], path: &[String]) -> Option<&'a syn::ItemMod> {
    let (first, rest) = path.split_first()?;
    let module = items.iter().find_map(|item| match item {
        syn::Item::Mod(module) if module.ident == first => Some(module),
        _ => None,
    })?;
    if rest.is_empty() { Some(module) } else { find_module(&module.content.as_ref()?.1, rest) }
}

/// `module` with each child module written `pub mod x;`.
fn without_child_modules(module: &syn::ItemMod) -> syn::ItemMod {
    let mut module = module.clone();
    if let Some((_, items)) = &mut module.content {
        for item in items {
            if let syn::Item::Mod(child) = item {
                child.content = None;
                child.semi = Some(Default::default());
            }
        }
    }
    module
}

/// The top-level `impl`s whose self type's path (idents only) satisfies `keep`.
fn impls<'a>(
    items: &'a [syn::Item],
    keep: impl Fn(&[String]) -> bool + 'a,
) -> impl Iterator<Item = syn::Item> + 'a {
    items
        .iter()
        .filter(move |item| match item {
            syn::Item::Impl(imp) => match &*imp.self_ty {
                syn::Type::Path(ty) => {
                    keep(&ty.path.segments.iter().map(|s| s.ident.to_string()).collect::<Vec<_>>())
                }
                _ => false,
            },
            _ => false,
        })
        .cloned()
}

/// The whole file is reviewed once, as the slices above (every item in exactly one): here
/// only what no slice shows, its header line, and that it parses as one file.
#[test]
fn generated_code_for_the_whole_crate() {
    let generated = generate_fixtures();
    assert!(!generated.has_errors(), "{}", diagnostic_lines(&generated));
    let (header, body) = generated.code.split_once('\n').expect("a header line");
    assert_eq!(
        header,
        "// This file is @generated by toolcall-build. Do not edit it: edit the tool files instead."
    );
    assert!(syn::parse_file(body).is_ok(), "the generated code parses");
}

#[test]
fn every_schema_of_every_module() {
    let generated = generate_fixtures();
    let schemas = module_schemas(&generated);
    assert_eq!(schemas.len(), generated.modules.len());
    snapshot_settings(|| {
        for (name, text) in schemas {
            insta::assert_snapshot!(format!("schemas__{name}"), text);
        }
    });
}

#[test]
fn diagnostics_of_the_fixture_crate() {
    let generated = generate_fixtures();
    snapshot_settings(|| insta::assert_snapshot!("diagnostics__fixtures", diagnostic_lines(&generated)));
}

/// Every emitted schema string is valid JSON, and the pretty printer keeps every byte of it.
#[test]
fn every_emitted_schema_is_json_and_pretty_printing_loses_nothing() {
    let generated = generate_fixtures();
    for module in &generated.modules {
        for format in Format::ALL {
            for strict in [false, true] {
                let text = render_tools(module.tools.iter().map(|t| &t.ir), format, strict);
                let parsed: Value = serde_json::from_str(&text).expect("schema is JSON");
                assert_eq!(parsed.as_array().map(Vec::len), Some(module.tools.len()));
                let reparsed: Value = serde_json::from_str(&pretty(&text)).expect("pretty is JSON");
                assert_eq!(parsed, reparsed);
            }
        }
    }
}

/// The warnings the Types and Writing-tools tables promise, each at its file:line:col.
#[test]
fn promised_warnings_point_at_their_place() {
    let generated = generate_fixtures();
    let lines = diagnostic_lines(&generated);
    let expect = [
        ("src/tools/foreign.rs:", "type `std::time::Duration` has no schema mapping"),
        ("src/tools/skipped.rs:", "`generic_tool` is not a tool: it has generic type parameters"),
        ("src/tools/skipped.rs:", "`impl_trait_tool` is not a tool: a parameter uses `impl Trait`"),
        ("src/tools/skipped.rs:", "`borrowed_tool` is not a tool"),
        ("src/tools/skipped.rs:", "`borrowed_state` is not a tool: parameter `&Db` is borrowed"),
        ("src/tools/skipped.rs:", "Builder::new().context(\"crate::Db\")"),
        ("src/tools/names.rs:", "unnamed parameter 1 takes the name `first`"),
        ("src/tools/names.rs:", "unnamed parameter 1 is called `arg1`"),
        ("src/tools/names.rs:", "duplicate parameter name `city` is exposed as `city_2`"),
        ("src/tools/std_types.rs:", "`serde_json::Value` has no type at all"),
        ("src/tools/std_types.rs:", "`tuples` parameter `pair`: tuple: strict mode drops prefixItems"),
        ("src/tools/std_types.rs:", "`maps` parameter `hashed`: open object"),
    ];
    for (file, words) in expect {
        assert!(
            lines.lines().any(|l| l.starts_with(file) && l.contains(words)),
            "no `{words}` in {file}:\n{lines}"
        );
    }
    // Private helpers, `pub(super)` and `#[doc(hidden)]` functions are silently not tools.
    for silent in ["helper", "parent_only", "hidden_tool", "echo_later", "panic_later"] {
        assert!(!lines.contains(&format!("`{silent}`")), "{silent} warned:\n{lines}");
    }
    assert!(!generated.has_errors());
    for line in lines.lines() {
        let mut parts = line.splitn(4, ':');
        let (file, row, col) = (parts.next().unwrap(), parts.next().unwrap(), parts.next().unwrap());
        assert!(file.starts_with("src/tools/") && file.ends_with(".rs"), "{line}");
        assert!(
            row.parse::<usize>().is_ok_and(|n| n > 0) && col.parse::<usize>().is_ok_and(|n| n > 0),
            "{line}"
        );
    }
}

/// The seed's Weather example: schema facts stated in code as well as in the snapshots.
#[test]
fn weather_schema_facts() {
    let generated = generate_fixtures();
    let weather = generated.modules.iter().find(|m| m.path == ["weather"]).expect("weather module");
    let render = |format, strict| -> Value {
        serde_json::from_str(&render_tools(weather.tools.iter().map(|t| &t.ir), format, strict)).unwrap()
    };
    let lax = render(Format::OpenAi, false);
    let params = &lax[0]["function"]["parameters"];
    assert_eq!(lax[0]["function"]["name"], "get_weather");
    assert_eq!(lax[0]["function"]["description"], "Get the forecast for a city.");
    assert_eq!(params["required"], serde_json::json!(["city"]));
    assert_eq!(params["properties"]["days"]["default"], 3);
    assert_eq!(params["properties"]["days"]["type"], "integer");
    assert_eq!(params["properties"]["city"]["description"], "city name, e.g. \"Oslo\"");
    assert_eq!(params["properties"]["days"]["description"], "how many days ahead (1-7)");
    assert!(lax[0]["function"].get("strict").is_none());
    let strict = render(Format::OpenAi, true);
    let params = &strict[0]["function"]["parameters"];
    assert_eq!(strict[0]["function"]["strict"], true);
    assert_eq!(params["required"], serde_json::json!(["city", "days"]));
    assert_eq!(params["properties"]["days"]["type"], serde_json::json!(["integer", "null"]));
    assert!(params["properties"]["days"].get("default").is_none());
    assert_eq!(params["additionalProperties"], false);
    let anthropic = render(Format::Anthropic, false);
    assert_eq!(anthropic[0]["input_schema"]["required"], serde_json::json!(["city"]));
    let mcp = render(Format::Mcp, false);
    assert_eq!(mcp[0]["inputSchema"]["properties"]["days"]["default"], 3);
}
