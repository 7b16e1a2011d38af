//! The context (`Builder::context`) and async tools in the generator: the code generated
//! for the fixtures' `context_tools`, located warnings for what cannot be served, the
//! unused-context warning and the error for a context path that does not parse.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{FIXTURES, diagnostic_lines, snapshot_settings, source};
use toolcall_build::{BuildError, Builder, Generated, Level};

fn context_tools() -> Generated {
    Builder::new()
        .crate_dir(FIXTURES)
        .tools_dir("src/context_tools")
        .module_root("crate::context_tools")
        .context("crate::Ctx")
        .generate()
        .expect("context fixtures generate")
}

#[test]
fn generated_code_and_diagnostics_of_the_context_fixtures() {
    let generated = context_tools();
    assert!(!generated.has_errors(), "{}", diagnostic_lines(&generated));
    assert!(generated.code.contains("pub static ALL: ::toolcall_runtime::Toolset<crate::Ctx>"));
    snapshot_settings(|| {
        insta::assert_snapshot!("code__context_tools", generated.code);
        insta::assert_snapshot!("diagnostics__context_tools", diagnostic_lines(&generated));
    });
}

#[test]
fn the_context_is_passed_where_the_function_takes_it_and_never_decoded() {
    let generated = context_tools();
    let code = &generated.code;
    assert!(code.contains("crate::context_tools::positions::greet(arg0, ctx, arg1)"), "{code}");
    assert!(code.contains("crate::context_tools::positions::twice(ctx, arg0, ctx)"), "{code}");
    assert!(code.contains("crate::context_tools::positions::note(arg0, ctx).await"), "{code}");
    assert!(code.contains("crate::context_tools::positions::whoami(ctx)"), "{code}");
    let tools: Vec<&str> =
        generated.modules.iter().flat_map(|m| &m.tools).map(|t| t.ir.name.as_str()).collect();
    assert!(!tools.contains(&"pool_size"), "{tools:?}");
}

#[test]
fn what_cannot_be_served_is_skipped_with_a_located_warning() {
    let lines = diagnostic_lines(&context_tools());
    assert!(
        lines.contains(
            "src/context_tools/skipped.rs:10:24: `pool_size` is not a tool: parameter `&Pool` is borrowed"
        ) && lines.contains("the crate's context `crate::Ctx` (declared with `Builder::context`)"),
        "{lines}"
    );
}

#[test]
fn a_borrowed_parameter_without_a_context_points_at_builder_context() {
    let file = source("users.rs", "pub struct Db;\n/// Count.\npub fn count(db: &Db) -> usize { 0 }\n");
    let generated = Builder::new().generate_from(vec![file]).unwrap();
    let lines = diagnostic_lines(&generated);
    assert!(
        lines.contains("src/tools/users.rs:3:18: `count` is not a tool: parameter `&Db` is borrowed"),
        "{lines}"
    );
    assert!(lines.contains(r#"toolcall_build::Builder::new().context("crate::Db")"#), "{lines}");
    assert!(generated.modules.iter().all(|m| m.tools.is_empty()));
}

#[test]
fn a_context_no_tool_takes_warns_once_at_the_build_script() {
    let generated = Builder::new().crate_dir(FIXTURES).context("crate::Nothing").generate().unwrap();
    let unused: Vec<_> =
        generated.diagnostics.iter().filter(|d| d.message.contains("no tool takes it")).collect();
    assert_eq!(unused.len(), 1, "{}", diagnostic_lines(&generated));
    let warning = unused[0];
    assert_eq!(warning.level, Level::Warning);
    // At the line of toolcall-fixtures/build.rs that declares its context.
    let script = std::fs::read_to_string(format!("{FIXTURES}/build.rs")).unwrap();
    let line = script.lines().position(|l| l.contains(".context(")).unwrap() + 1;
    assert_eq!(warning.to_string().split(": ").next(), Some(format!("build.rs:{line}:9").as_str()));
    assert!(warning.message.contains("`crate::Nothing`") && warning.message.contains("`&Nothing`"));
    // Declared and used: no such warning.
    assert!(!diagnostic_lines(&context_tools()).contains("no tool takes it"));
}

#[test]
fn a_context_path_that_does_not_parse_is_an_error() {
    for bad in ["", "crate::", "not a path", "crate::App<"] {
        match Builder::new().context(bad).generate_from(Vec::new()) {
            Err(error @ BuildError::Context(_)) => {
                let text = error.to_string();
                assert!(text.contains("is not a Rust type path") && text.contains("crate::App"), "{text}");
            }
            other => panic!("{bad:?}: expected BuildError::Context, got {other:?}"),
        }
    }
    assert!(Builder::new().context("crate::state::App").generate_from(Vec::new()).is_ok());
}

#[test]
fn async_tools_are_tools_and_generate_boxed_bodies() {
    let file = source(
        "io.rs",
        "/// Fetch.\n///\n/// # Arguments\n///\n/// * `url` - where\npub async fn fetch(url: String) -> Result<String, String> { Ok(url) }\n",
    );
    let generated = Builder::new().generate_from(vec![file]).unwrap();
    assert!(generated.diagnostics.is_empty(), "{}", diagnostic_lines(&generated));
    let tool = &generated.modules[0].tools[0];
    assert!(tool.is_async && !tool.takes_context);
    assert!(generated.code.contains("__rt::then_pending("), "{}", generated.code);
    assert!(generated.code.contains("move |(arg0,)| async move {"), "{}", generated.code);
    assert!(generated.code.contains("crate::tools::io::fetch(arg0).await"), "{}", generated.code);
}

/// README promises `&mut App` is refused: an error at the parameter (a tool silently
/// skipped would vanish from the model's list), and the build fails.
#[test]
fn the_context_by_value_is_an_error_at_the_parameter() {
    let file = source("admin.rs", "use crate::App;\n/// Resets.\npub fn reset(app: App) -> usize { 0 }\n");
    let generated = Builder::new().context("crate::App").generate_from(vec![file]).unwrap();
    let lines = diagnostic_lines(&generated);
    assert!(
        lines.contains(
            "src/tools/admin.rs:3:19: error: `reset`: takes the context by value; the caller lends it"
        ),
        "{lines}"
    );
    assert!(generated.modules.iter().all(|m| m.tools.is_empty()), "{lines}");
}

#[test]
fn the_context_taken_mutably_is_an_error_at_the_parameter() {
    let file =
        source("admin.rs", "use crate::App;\n/// Resets.\npub fn reset(app: &mut App) -> usize { 0 }\n");
    let generated = Builder::new().context("crate::App").generate_from(vec![file]).unwrap();
    assert!(generated.has_errors(), "{}", diagnostic_lines(&generated));
    let lines = diagnostic_lines(&generated);
    assert!(
        lines
            .contains("src/tools/admin.rs:3:19: error: `reset`: takes the context as `&mut`; calls share it"),
        "{lines}"
    );
    assert!(generated.modules.iter().all(|m| m.tools.is_empty()), "{lines}");
}
