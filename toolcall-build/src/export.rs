//! The build's record for `cargo toolcall export`: what [`Builder::compile`] generated,
//! written beside `tools.rs` as `tools.rs.export.json`, so that export shows what the
//! build made (the same settings, type providers, crate-wide types and warnings) instead
//! of reading the crate a second way.
//!
//! The record holds each tool module's tools as IR (in the order the generated toolset
//! lists them), every diagnostic, and the warning lines the build printed (after its
//! expected-warnings list). Export renders the IR with the renderer `emit()` uses, so
//! its definitions are the built crate's, byte for byte.
//!
//! [`Builder::compile`]: crate::Builder::compile

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use toolcall_runtime::ir::Tool;

use crate::diagnostics::Level;
use crate::records::Generated;

/// The record's file name for a toolset written to `out_file` (`tools.rs` ->
/// `tools.rs.export.json`).
pub fn record_file(out_file: &str) -> String {
    format!("{out_file}.export.json")
}

/// What one run of [`Builder::compile`](crate::Builder::compile) generated, as export
/// reads it back.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// The tools directory the builder read (`src/tools`).
    pub tools_dir: PathBuf,
    /// The tool modules, in the generated toolset's order.
    pub modules: Vec<RecordModule>,
    /// Every diagnostic, with its level: `level: file:line:col: message` lines.
    pub diagnostics: Vec<(Level, String)>,
    /// The warning lines the build printed as `cargo:warning` (those its expected list
    /// does not hold).
    pub printed: Vec<String>,
}

/// One tool module of a [`Record`].
#[derive(Clone, Debug, PartialEq)]
pub struct RecordModule {
    /// Module path below the tools root (`["billing", "invoices"]`).
    pub path: Vec<String>,
    /// The file, relative to the crate.
    pub file: PathBuf,
    /// Its tools: where each is declared (line, column) and its IR.
    pub tools: Vec<(usize, usize, Tool)>,
}

impl Record {
    /// The record of `generated`, read from `tools_dir`, whose build printed `printed`.
    pub(crate) fn of(generated: &Generated, tools_dir: &Path, printed: Vec<String>) -> Record {
        let modules = generated
            .modules
            .iter()
            .map(|module| RecordModule {
                path: module.path.clone(),
                file: module.file.clone(),
                tools: module.tools.iter().map(|t| (t.line, t.column, t.ir.clone())).collect(),
            })
            .collect();
        let diagnostics = generated.diagnostics.iter().map(|d| (d.level, d.to_string())).collect();
        Record { tools_dir: tools_dir.to_owned(), modules, diagnostics, printed }
    }

    /// Every tool of the record in the generated toolset's order (`ALL`'s rows), with its
    /// module path (`billing::invoices`).
    pub fn tools(&self) -> impl Iterator<Item = (String, &Tool)> {
        self.modules.iter().flat_map(|m| m.tools.iter().map(move |(_, _, ir)| (m.path.join("::"), ir)))
    }

    /// The search index `Builder::tool_search(true)` compiles for these tools: row `i` is
    /// the `i`th of [`Record::tools`]. The same documents as the build's
    /// ([`toolcall_runtime::search::Document::of_ir`]), so `cargo toolcall search` finds
    /// what the built crate's `search` finds.
    pub fn search_index(&self) -> toolcall_runtime::search::OwnedIndex {
        let mut index = toolcall_runtime::search::OwnedIndex::new();
        for (module, ir) in self.tools() {
            index.add(&toolcall_runtime::search::Document::of_ir(ir, &module));
        }
        index
    }

    /// The record as JSON text (one line; the IR as `toolcall_runtime::ir` serializes).
    pub fn to_text(&self) -> String {
        let modules: Vec<Value> = self
            .modules
            .iter()
            .map(|module| {
                let tools: Vec<Value> = module
                    .tools
                    .iter()
                    .map(|(line, column, ir)| json!({"line": line, "column": column, "ir": ir}))
                    .collect();
                json!({"path": module.path, "file": module.file, "tools": tools})
            })
            .collect();
        let diagnostics: Vec<Value> = self
            .diagnostics
            .iter()
            .map(|(level, text)| json!({"level": level_name(*level), "text": text}))
            .collect();
        json!({
            "version": 1,
            "tools_dir": self.tools_dir,
            "modules": modules,
            "diagnostics": diagnostics,
            "printed": self.printed,
        })
        .to_string()
    }

    /// Reads a record written by [`Record::to_text`]; `Err` says what is wrong with it.
    pub fn from_text(text: &str) -> Result<Record, String> {
        let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        if value["version"] != 1 {
            return Err(format!("record version {} (this export reads 1)", value["version"]));
        }
        let strings = |value: &Value| -> Vec<String> {
            value.as_array().into_iter().flatten().filter_map(|s| s.as_str().map(str::to_owned)).collect()
        };
        let path = |value: &Value| PathBuf::from(value.as_str().unwrap_or_default());
        let mut modules = Vec::new();
        for module in value["modules"].as_array().into_iter().flatten() {
            let mut tools = Vec::new();
            for tool in module["tools"].as_array().into_iter().flatten() {
                let ir: Tool =
                    serde_json::from_value(tool["ir"].clone()).map_err(|e| format!("a tool's IR: {e}"))?;
                let number =
                    |key: &str| tool[key].as_u64().and_then(|n| usize::try_from(n).ok()).unwrap_or(0);
                tools.push((number("line"), number("column"), ir));
            }
            modules.push(RecordModule { path: strings(&module["path"]), file: path(&module["file"]), tools });
        }
        let diagnostics = value["diagnostics"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|d| Some((level_named(d["level"].as_str()?)?, d["text"].as_str()?.to_owned())))
            .collect();
        Ok(Record {
            tools_dir: path(&value["tools_dir"]),
            modules,
            diagnostics,
            printed: strings(&value["printed"]),
        })
    }
}

fn level_name(level: Level) -> &'static str {
    match level {
        Level::Error => "error",
        Level::Warning => "warning",
        Level::Note => "note",
    }
}

fn level_named(name: &str) -> Option<Level> {
    match name {
        "error" => Some(Level::Error),
        "warning" => Some(Level::Warning),
        "note" => Some(Level::Note),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_as_written() {
        let files = [
            ("src/lib.rs", "pub mod tools;"),
            ("src/tools/mod.rs", "pub mod notes;"),
            (
                "src/tools/notes.rs",
                "/// Adds a note.\n///\n/// # Arguments\n///\n/// * `text` - the note\npub fn add(text: String, pinned: Option<bool>) -> usize { text.len() }\n",
            ),
        ];
        let files = files.map(|(path, text)| (PathBuf::from(path), text.to_owned()));
        let generated = crate::Builder::new().generate_from_files(files.into()).unwrap();
        let record = Record::of(&generated, Path::new("src/tools"), vec!["a printed line".to_owned()]);
        assert_eq!(record.modules.len(), 1);
        assert_eq!(record.modules[0].tools[0].2.name, "add");
        let text = record.to_text();
        assert_eq!(Record::from_text(&text), Ok(record));
        assert!(Record::from_text("{\"version\": 2}").unwrap_err().contains("version 2"));
        assert!(Record::from_text("nope").is_err());
    }
}
