//! # conformance
//!
//! Provider conformance for toolcall's emitted schemas (issue #6). The library holds what
//! the tests in `tests/` share:
//!
//! * [`corpus`]: the tools checked — `example-app`'s, `toolcall-fixtures`', and hand-built
//!   IR tools covering every `ir::Type` variant — and how to call them;
//! * [`samples`]: valid arguments generated from the IR (minimal, maximal, boundary values,
//!   every union branch);
//! * [`rules`]: the OpenAI, Anthropic and MCP rules of `provider-rules.md` as checks over
//!   emitted JSON;
//! * [`validate`]: JSON Schema validation (`jsonschema`), [`grammar`]: llguidance (run as
//!   the separate `llguidance-check` process, see there why);
//! * [`known`]: findings in code this crate does not own, tolerated precisely and printed
//!   as `KNOWN ISSUE <id>` until fixed;
//! * [`peers`]: the peers' own checks on strict schemas, ported (Anthropic's
//!   `transform_schema`, openai-agents' depth limit); `scripts/peer_sdks.py` runs the
//!   Python originals;
//! * [`reference`](mod@reference): loading `../shared/reference/` (skip when missing, fail when
//!   `TOOLCALL_REQUIRE_REFERENCE=1`); [`build_fixture`]: generator runs on tool-file text.
//!
//! Each test file checks one thing: `metaschema.rs` (JSON Schema 2020-12, and that the
//! in-process rendering equals what the compiled crates ship), `mcp_schema.rs` (the MCP
//! `Tool` definitions of every protocol version), `llguidance.rs` (grammar compilation of
//! strict schemas), `provider_rules.rs` (OpenAI/Anthropic strict subsets, names, integer
//! bounds), `sdk_models.rs` (async-openai and rmcp models), `peer_checks.rs` (the ported
//! peers' checks), `sample_args.rs` (generated
//! arguments against schemas and dispatchers), `check_stage.rs` (build-time checks that
//! exist) and `build_checks.rs` (build-time checks and fixes still to be written; it fails
//! until they land).

pub mod build_fixture;
pub mod corpus;
pub mod grammar;
pub mod known;
pub mod peers;
pub mod reference;
pub mod rules;
pub mod samples;
pub mod validate;

use serde_json::Value;

/// The elements of an emitted JSON array of tool definitions.
///
/// # Panics
///
/// When `value` is not an array.
pub fn definitions(value: &Value) -> &[Value] {
    match value {
        Value::Array(items) => items,
        other => panic!("emitted definitions are not a JSON array: {other}"),
    }
}
