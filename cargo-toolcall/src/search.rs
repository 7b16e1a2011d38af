//! `cargo toolcall search QUERY`: what the build's search index finds for a query, so an
//! author sees which tools a model searching the crate would be given before shipping.
//!
//! It runs the crate's build script as export does, reads the build's record, and ranks
//! its tools with the index the build compiles from the same record
//! ([`Record::search_index`]): one tokenizer, one set of weights, one ranking.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use toolcall_build::export::Record;

use crate::args::SearchArgs;
use crate::{build, read_record, term};

/// Runs the search; prints the hits on stdout, a message on stderr otherwise.
pub fn run(args: &SearchArgs) -> ExitCode {
    match search(args) {
        Ok((text, found)) => match term::print(&text) {
            Ok(()) if found => ExitCode::SUCCESS,
            Ok(()) => ExitCode::FAILURE,
            Err(message) => {
                term::error(&message);
                ExitCode::FAILURE
            }
        },
        Err(message) => {
            term::error(&message);
            ExitCode::FAILURE
        }
    }
}

/// The text to print, and whether any tool was found.
fn search(args: &SearchArgs) -> Result<(String, bool), String> {
    let dir = args.krate.dir()?;
    let out_dir = build::out_dir_of(&dir)?;
    let record = read_record(&out_dir, &args.krate.toolset)?;
    if !compiles_an_index(&out_dir.join(&args.krate.toolset)) {
        term::warning(
            "the build compiles no search index (call `.tool_search(true)` on the Builder in build.rs); \
             this is what it would find",
        );
    }
    let query = args.query.join(" ");
    Ok(hits_text(&record, &query, args.limit))
}

/// Whether the generated file at `path` holds a search index.
fn compiles_an_index(path: &Path) -> bool {
    std::fs::read_to_string(path).is_ok_and(|text| text.contains("static __ALL_SEARCH:"))
}

/// One block per hit, best first: rank, name, module and score, then the description's
/// first line; or a line saying nothing matched.
fn hits_text(record: &Record, query: &str, limit: usize) -> (String, bool) {
    let tools: Vec<(String, &toolcall_runtime::ir::Tool)> = record.tools().collect();
    let hits = record.search_index().rank(query, limit, |_| true);
    let mut text = String::new();
    if hits.is_empty() {
        let _ = writeln!(text, "no tool of the {} matches {query:?}", tools.len());
        return (text, false);
    }
    for (rank, (row, score)) in hits.iter().enumerate() {
        let Some((module, tool)) = tools.get(*row as usize) else { continue };
        let _ = writeln!(text, "{:>2}. {}  ({module})  {score:.2}", rank + 1, tool.name);
        if let Some(line) = tool.description.lines().next().filter(|l| !l.is_empty()) {
            let _ = writeln!(text, "    {line}");
        }
    }
    (text, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolcall_build::export::RecordModule;
    use toolcall_runtime::ir::Tool;

    fn record() -> Record {
        let module = |path: &str, tools: Vec<Tool>| RecordModule {
            path: vec![path.to_owned()],
            file: format!("src/tools/{path}.rs").into(),
            tools: tools.into_iter().map(|t| (1, 1, t)).collect(),
        };
        Record {
            tools_dir: "src/tools".into(),
            modules: vec![
                module("weather", vec![Tool::new("get_weather").description("The weather in a city.")]),
                module("bank", vec![Tool::new("transfer").description("Sends money to an account.\nMore.")]),
            ],
            diagnostics: Vec::new(),
            printed: Vec::new(),
        }
    }

    #[test]
    fn hits_print_best_first_with_module_and_description() {
        let (text, found) = hits_text(&record(), "send money", 5);
        assert!(found);
        assert!(text.starts_with(" 1. transfer  (bank)  "), "{text}");
        assert!(text.contains("\n    Sends money to an account.\n"), "{text}");
        assert!(!text.contains("get_weather"), "{text}");
    }

    #[test]
    fn nothing_found_says_so() {
        let (text, found) = hits_text(&record(), "zebra", 5);
        assert!(!found);
        assert_eq!(text, "no tool of the 2 matches \"zebra\"\n");
    }
}
