//! Runs a crate's own build script through cargo and finds where it wrote.
//!
//! `cargo build --message-format=json` on the crate's manifest; cargo reports each build
//! script it ran (or found fresh) as a `build-script-executed` message with its
//! `OUT_DIR`. Once the crate's own message arrives cargo is stopped: what export needs is
//! written, and nothing of the crate itself has to compile.
//!
//! `build`, not `check`: right after the user's own `cargo build` everything is fresh, so
//! the script's message comes within a second, where `check` would first check every
//! dependency again in its own mode (a minute and more for a server's). Cargo's progress
//! lines (`Compiling ..`) are passed on, so a run that has work to do says what it does.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

/// The `OUT_DIR` of the build script of the crate at `dir` (a directory holding
/// `Cargo.toml`), after running it. `Err` is a message for the user: cargo's own output
/// when the script failed or never ran.
pub fn out_dir_of(dir: &Path) -> Result<PathBuf, String> {
    let manifest = dir.join("Cargo.toml");
    if !manifest.is_file() {
        return Err(format!("{}: no Cargo.toml", dir.display()));
    }
    let wanted = std::fs::canonicalize(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut child = Command::new(cargo)
        .args(["build", "--message-format=json", "--manifest-path"])
        .arg(&manifest)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    let stderr = child.stderr.take();
    // Read on its own thread: a cargo blocked on a full stderr pipe would never finish.
    let said = std::thread::spawn(move || {
        let mut text = String::new();
        let Some(stderr) = stderr else { return text };
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if is_progress(&line) {
                // A closed stderr only loses the progress line.
                let _ = writeln!(std::io::stderr(), "{line}");
            }
            text.push_str(&line);
            text.push('\n');
        }
        text
    });
    let found = child.stdout.take().and_then(|stdout| {
        BufReader::new(stdout).lines().map_while(Result::ok).find_map(|line| script_out_dir(&line, &wanted))
    });
    let _ = child.kill();
    let status = child.wait().map_err(|e| format!("cargo did not finish: {e}"))?;
    let said = said.join().unwrap_or_default();
    match found {
        Some(out_dir) => Ok(out_dir),
        None if status.success() => Err(format!(
            "{}: the crate has no build script, so nothing generates its tools; \
             add a build.rs that calls toolcall_build::Builder::new().compile()",
            dir.display()
        )),
        None => {
            Err(format!("the crate's build failed before its build script finished:\n{}", said.trim_end()))
        }
    }
}

/// Whether `line` is one of cargo's progress lines: a capitalised verb right-aligned in
/// twelve columns, then what it acts on (`   Compiling serde v1.0.0`), and not the end of
/// the run (`Finished`), which export's own stop would make misleading.
fn is_progress(line: &str) -> bool {
    let (Some(verb), Some(' ')) = (line.get(..12), line.get(12..).and_then(|rest| rest.chars().next()))
    else {
        return false;
    };
    let verb = verb.trim_start();
    verb.len() > 1
        && verb.starts_with(|c: char| c.is_ascii_uppercase())
        && verb[1..].chars().all(|c| c.is_ascii_lowercase())
        && verb != "Finished"
}

/// The `out_dir` of a `build-script-executed` message of the package at `wanted`.
fn script_out_dir(line: &str, wanted: &Path) -> Option<PathBuf> {
    let message: Value = serde_json::from_str(line).ok()?;
    if message["reason"] != "build-script-executed" {
        return None;
    }
    let package = package_dir(message["package_id"].as_str()?)?;
    let package = std::fs::canonicalize(&package).unwrap_or(package);
    (package == wanted).then(|| PathBuf::from(message["out_dir"].as_str().unwrap_or_default()))
}

/// The directory of a path package from its cargo package id: `path+file:///dir#1.0`,
/// `path+file:///dir#name@1.0`, or the older `name 1.0 (path+file:///dir)`.
fn package_dir(id: &str) -> Option<PathBuf> {
    let rest = &id[id.find("path+file://")? + "path+file://".len()..];
    let end = rest.find(['#', ')']).unwrap_or(rest.len());
    Some(PathBuf::from(percent_decoded(&rest[..end])))
}

/// `%XX` escapes of a file URL's path as the bytes they stand for.
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok());
        match escaped {
            Some(byte) => {
                out.push(byte);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_cargos_progress_lines_are_passed_on() {
        assert!(is_progress("   Compiling serde v1.0.228"));
        assert!(is_progress("    Blocking waiting for file lock on build directory"));
        assert!(!is_progress("    Finished `dev` profile [unoptimized + debuginfo] target(s) in 0.2s"));
        assert!(!is_progress("warning: scratch@0.0.0: src/tools/a.rs:1:1: a warning"));
        assert!(!is_progress("error[E0425]: cannot find value `x` in this scope"));
        assert!(!is_progress("   Compiling"));
        assert!(!is_progress(""));
        assert!(!is_progress("    ärger x"));
        assert!(!is_progress("          ä x y z"));
    }

    #[test]
    fn package_ids_of_every_cargo_name_their_directory() {
        let dir = |id: &str| package_dir(id).map(|p| p.display().to_string());
        assert_eq!(dir("path+file:///work/app#0.1.0").as_deref(), Some("/work/app"));
        assert_eq!(dir("path+file:///work/my%20app#app@0.1.0").as_deref(), Some("/work/my app"));
        assert_eq!(dir("app 0.1.0 (path+file:///work/app)").as_deref(), Some("/work/app"));
        assert_eq!(dir("registry+https://github.com/rust-lang/crates.io-index#serde@1.0.0"), None);
    }

    #[test]
    fn only_the_wanted_packages_script_counts() {
        let line = r#"{"reason":"build-script-executed","package_id":"path+file:///nowhere/app#0.1.0","out_dir":"/t/out"}"#;
        assert_eq!(script_out_dir(line, Path::new("/nowhere/app")), Some(PathBuf::from("/t/out")));
        assert_eq!(script_out_dir(line, Path::new("/nowhere/other")), None);
        assert_eq!(script_out_dir(r#"{"reason":"compiler-artifact"}"#, Path::new("/nowhere/app")), None);
        assert_eq!(script_out_dir("not json", Path::new("/nowhere/app")), None);
    }
}
