//! The warnings `toolcall-warnings.txt` expects are exactly the ones the build gives, so the
//! list that keeps `cargo build` quiet can neither hide a new warning nor go stale.

/// The lines of a list that are diagnostics (not comments or blank).
fn diagnostics(text: &str) -> Vec<&str> {
    text.lines().filter(|line| !line.is_empty() && !line.starts_with('#')).collect()
}

#[test]
fn the_expected_warnings_are_the_warnings_the_build_gives() {
    let given = include_str!(concat!(env!("OUT_DIR"), "/tools.rs.diagnostics"));
    let expected = include_str!("../toolcall-warnings.txt");
    assert_eq!(
        diagnostics(given),
        diagnostics(expected),
        "update mcp-conformance/toolcall-warnings.txt to the build's diagnostics (left)"
    );
}
