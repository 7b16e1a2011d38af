//! The search index of the crate's tools (`Builder::tool_search`), written as static data:
//! each tool's document made by the runtime's one tokenizer and weights
//! ([`toolcall_runtime::search::Document`]), indexed in `ALL`'s row order, and printed as
//! the arguments of `SearchIndex::compiled`: every term in byte order with its postings
//! (row, weighted count), one term per line, then each row's length.

use toolcall_runtime::search::{Document, OwnedIndex};

use super::data::{Out, quoted};
use crate::model::ToolModule;

/// The static holding the index, at the file's root.
pub const INDEX: &str = "__ALL_SEARCH";

/// How many lengths go on one line.
const LENGTHS_PER_LINE: usize = 16;

/// The index of `modules`' tools, in the order `ALL`'s table holds them.
fn index_of(modules: &[&ToolModule]) -> OwnedIndex {
    let mut index = OwnedIndex::new();
    for module in modules {
        let path = module.path.join("::");
        for tool in &module.tools {
            index.add(&Document::of_ir(&tool.ir, &path));
        }
    }
    index
}

/// `static __ALL_SEARCH: SearchIndex = SearchIndex::compiled(&[..terms..], &[..lengths..]);`
pub fn write_index(out: &mut Out, modules: &[&ToolModule]) {
    let index = index_of(modules);
    out.line("");
    out.line("/// The search index of `ALL`'s tools (`Builder::tool_search`): each term of their names,");
    out.line("/// titles, descriptions, modules, parameters and enum values, with the rows it occurs in");
    out.line("/// and its weighted count there, then each row's length. Read in place by `search`.");
    out.open(&format!(
        "static {INDEX}: ::toolcall_runtime::search::SearchIndex = ::toolcall_runtime::search::SearchIndex::compiled("
    ));
    out.open("&[");
    for (term, postings) in index.terms() {
        let list: Vec<String> = postings.iter().map(|(row, count)| format!("({row}, {count})")).collect();
        out.line(&format!("({}, &[{}]),", quoted(term), list.join(", ")));
    }
    out.close("],");
    out.open("&[");
    for chunk in index.lengths().chunks(LENGTHS_PER_LINE) {
        let list: Vec<String> = chunk.iter().map(u32::to_string).collect();
        out.line(&format!("{},", list.join(", ")));
    }
    out.close("],");
    out.close(");");
}
