//! BENCHMARKS.md is written by `report.py`: the summary table, then every
//! `toolcall-bench/sections/*.md` in name order, then the generated sections. A section
//! edited in BENCHMARKS.md alone would be dropped by the next report run, so this test
//! holds BENCHMARKS.md's hand-written part to the section files, byte for byte.

use std::fs;
use std::path::Path;

/// The first heading `report.py` writes itself after the section files.
const FIRST_GENERATED_HEADING: &str = "\n## Instructions per call\n";

#[test]
fn benchmarks_md_holds_every_section_file_in_name_order_and_nothing_else() {
    let bench = Path::new(env!("CARGO_MANIFEST_DIR"));
    let report = fs::read_to_string(bench.join("../BENCHMARKS.md")).unwrap_or_default();
    assert!(!report.is_empty(), "BENCHMARKS.md is missing or empty");

    let mut sections: Vec<_> = fs::read_dir(bench.join("sections"))
        .map(|dir| dir.filter_map(Result::ok).map(|entry| entry.path()).collect())
        .unwrap_or_default();
    sections.retain(|path| path.extension().is_some_and(|ext| ext == "md"));
    sections.sort();
    assert!(!sections.is_empty(), "no section files in toolcall-bench/sections");
    let expected: Vec<String> =
        sections.iter().map(|path| fs::read_to_string(path).unwrap_or_default().trim().to_owned()).collect();
    let expected = expected.join("\n\n");

    // The summary table's last row ends the generated head.
    let head_end = report.find("\n\n## ").map(|at| at + 2);
    let tail_start = report.find(FIRST_GENERATED_HEADING).map(|at| at + 1);
    let (Some(start), Some(end)) = (head_end, tail_start) else {
        panic!("BENCHMARKS.md has no section after its table, or no `## Instructions per call`");
    };
    let written = report[start..end].trim();
    if written != expected {
        let first_difference = written.lines().zip(expected.lines()).position(|(a, b)| a != b);
        panic!(
            "BENCHMARKS.md's sections differ from toolcall-bench/sections/*.md (edit the section \
             file, then `python3 toolcall-bench/report.py --splice`); first differing line: \
             {first_difference:?}"
        );
    }
}
