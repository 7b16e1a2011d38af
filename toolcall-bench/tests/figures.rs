//! The figures in `toolcall-bench/figures/` are what `draw.py` draws from the committed
//! CSV files: fails when a CSV (or the drawing code) changed without a redraw. Runs the
//! Python tests beside `draw.py` (standard library only; about a second, nothing built).

use std::path::Path;
use std::process::Command;

#[test]
fn figures_are_drawn_from_the_committed_csv_files() {
    let figures = Path::new(env!("CARGO_MANIFEST_DIR")).join("figures");
    let output = Command::new("python3")
        .args(["-m", "unittest", "discover", "-s"])
        .arg(&figures)
        .args(["-p", "test_*.py"])
        .output();
    let output = match output {
        Ok(output) => output,
        Err(error) => panic!("cannot run python3 (needed to check the figures): {error}"),
    };
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the figures' tests failed:\n{stderr}");
    assert!(stderr.contains("OK"), "unittest did not report OK:\n{stderr}");
}
