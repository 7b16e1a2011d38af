//! Generates the toolset from `src/tools`, with a type provider for `crate::money::Money`.

use toolcall_build::{ProvidedType, TypeProvider};
use toolcall_runtime::ir::Type;

/// `crate::money::Money` travels as a decimal string with exactly two places ("12.50")
/// and is decoded by `Money::from_wire`, which turns a bad string into a message the
/// model can act on.
struct MoneyProvider;

impl TypeProvider for MoneyProvider {
    fn resolve(&self, path: &str, args: &[Type]) -> Option<ProvidedType> {
        let is_money = path == "crate::money::Money" || path == "money::Money";
        (is_money && args.is_empty()).then(|| {
            ProvidedType::new(Type::string_pattern(r"^-?\d+\.\d{2}$"))
                .decode_with("crate::money::Money::from_wire")
        })
    }
}

/// The warnings the demo's tools give on purpose (tuples and an open map, which strict modes
/// flatten): not printed by the build; `tests/warnings.rs` keeps the list exact.
const EXPECTED_WARNINGS: &str = "toolcall-warnings.txt";

fn main() {
    toolcall_build::Builder::new()
        .context("crate::App")
        .type_provider(MoneyProvider)
        .form_type("crate::models::Confirm")
        // A search index of the tools in tools.rs: `serve --tool-search` and
        // `agent --tool-search` send the model a search tool instead of every definition.
        .tool_search(true)
        .expect_warnings(EXPECTED_WARNINGS)
        .compile();
}
