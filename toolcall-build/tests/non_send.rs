//! A tool whose future is not `Send` fails the user's build, and rustc's message names the
//! tool. The generated code is compiled for real in a scratch crate (its own target dir
//! under `CARGO_TARGET_TMPDIR`, offline, with the workspace's lock file) that holds one
//! good async tool and one that keeps an `Rc` across an `.await`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::source;
use toolcall_build::Builder;

const TOOLS: &str = r#"
use std::rc::Rc;

use crate::App;

/// Fine: nothing but the context is held across the `.await`.
pub async fn good(app: &App) -> u32 {
    crate::turn().await;
    app.id
}

/// Holds an `Rc` across an `.await`: its future is not `Send`.
pub async fn held_rc(app: &App) -> u32 {
    let shared = Rc::new(app.id);
    crate::turn().await;
    *shared
}
"#;

const LIB: &str = r#"
pub mod tools {
    pub mod slow;
}

pub struct App {
    pub id: u32,
}

/// An `.await` that completes at once.
pub async fn turn() {}

pub mod toolset {
    include!("generated.rs");
}
"#;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn a_tool_whose_future_is_not_send_fails_the_build_naming_the_tool() {
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let runtime = workspace.join("toolcall-runtime").canonicalize().unwrap();
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let krate = tmp.join("non-send-probe");
    let generated =
        Builder::new().context("crate::App").generate_from(vec![source("slow.rs", TOOLS)]).unwrap();
    assert!(!generated.has_errors());
    write(
        &krate.join("Cargo.toml"),
        &format!(
            "[package]\nname = \"non-send-probe\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
             [dependencies]\ntoolcall-runtime = {{ path = {:?} }}\n\n[workspace]\n",
            runtime.display().to_string()
        ),
    );
    write(&krate.join("src/lib.rs"), LIB);
    write(&krate.join("src/tools/slow.rs"), TOOLS);
    write(&krate.join("src/generated.rs"), &generated.code);
    // The workspace's versions, so the build needs nothing from the network.
    std::fs::copy(workspace.join("Cargo.lock"), krate.join("Cargo.lock")).unwrap();

    let build = |extra: &[&str]| {
        Command::new(env!("CARGO"))
            .args(["build", "--offline"])
            .args(extra)
            .current_dir(&krate)
            .env("CARGO_TARGET_DIR", tmp.join("non-send-probe-target"))
            .env_remove("RUSTFLAGS")
            .output()
            .unwrap()
    };
    let output = build(&["--message-format=short"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "the non-Send tool compiled:\n{stderr}");
    assert!(stderr.contains("future cannot be sent between threads safely"), "{stderr}");
    assert!(stderr.contains("src/generated.rs"), "the error is at the generated call:\n{stderr}");
    // Only the one tool fails, and the full message names it and the line in its file.
    assert!(stderr.contains("due to 1 previous error"), "{stderr}");
    let long = build(&[]);
    let long = String::from_utf8_lossy(&long.stderr);
    assert!(long.contains("crate::tools::slow::held_rc(ctx).await"), "{long}");
    assert!(long.contains("src/tools/slow.rs") && long.contains("Rc<u32>"), "{long}");
    assert!(!long.contains("slow::good("), "the good tool compiles:\n{long}");
}
