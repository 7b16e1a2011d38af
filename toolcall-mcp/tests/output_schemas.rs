//! Output schemas and structured results per protocol revision (#44, SEP-2106): a client
//! on 2026-07-28 gets every tool's `outputSchema`, whatever JSON Schema it is (an array, an
//! integer, a string, a union), and every result of such a tool as `structuredContent`,
//! whatever JSON it is; a client on an earlier revision keeps the rule those revisions
//! have: an `outputSchema` only when it is an object schema (from 2025-06-18), and
//! `structuredContent` only for an object result of such a tool. The text block is the
//! same in every revision: a string result's own text (`hello`, as rmcp's and FastMCP's
//! servers send a `str`), any other result's JSON text; `structuredContent` stays the JSON
//! value (`"hello"`, which the schema `{"type":"string"}` describes).
//!
//! The tools are a toolset written out by hand the way toolcall-build writes one, whose
//! `ToolInfo::output` holds a schema of any shape, plus one tool added at run time
//! (`McpServer::tool`) with a hand-written array schema. Clients: rmcp's, over the stdio
//! transport (`serve_lines`) in each revision, and over streamable HTTP in both
//! lifecycles.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::net::{Client, Era, serve};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientConfig, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService};
use serde_json::{Value, json};
// What generated code uses (`__private`): the toolset below stands in for a generated one.
use toolcall_mcp::McpServer;
use toolcall_mcp::rmcp::model::Tool;
use toolcall_runtime::__private::Dispatched;
use toolcall_runtime::{Emitted, ToolInfo, Toolset};

const NO_PARAMS: &str = r#"{"type":"object","properties":{},"required":[],"additionalProperties":false}"#;
const USER: &str = r#"{"type":"object","properties":{"id":{"type":"integer"},"name":{"type":"string"}},"required":["id","name"]}"#;
const MAYBE_USER: &str = r#"{"anyOf":[{"type":"object","properties":{"id":{"type":"integer"},"name":{"type":"string"}},"required":["id","name"]},{"type":"null"}]}"#;

/// A tool with no parameters and output schema `output`, as a generated table row.
const fn row(name: &'static str, output: Option<&'static str>) -> ToolInfo {
    ToolInfo {
        module: "results",
        name,
        description: "A result of one shape.",
        parameters: NO_PARAMS,
        strict_parameters: NO_PARAMS,
        anthropic_strict_parameters: NO_PARAMS,
        output,
        ..ToolInfo::EMPTY
    }
}

/// `Vec<String>`, `u64`, `String`, a struct, `Option` of a struct, and a result the build
/// could not describe (no schema).
static INFO: [ToolInfo; 6] = [
    row("names", Some(r#"{"type":"array","items":{"type":"string"}}"#)),
    row("count", Some(r#"{"type":"integer","minimum":0}"#)),
    row("greeting", Some(r#"{"type":"string"}"#)),
    row("user", Some(USER)),
    row("maybe_user", Some(MAYBE_USER)),
    row("untyped", None),
];

static EMITTED: Emitted = Emitted::new();

static RESULTS: Toolset = Toolset::new(&INFO, &EMITTED, dispatch);

fn dispatch<'a>(_: &'a (), name: &'a str, _: &'a Value) -> Option<Dispatched<'a>> {
    let value = result_of(name)?;
    Some(Dispatched::Ready(Ok(value)))
}

/// The text block of a result `value`: a string's own text, any other value's JSON.
fn text_of(value: &Value) -> String {
    value.as_str().map_or_else(|| value.to_string(), str::to_owned)
}

/// What tool `name` returns.
fn result_of(name: &str) -> Option<Value> {
    Some(match name {
        "names" | "tags" => json!(["ada", "grace"]),
        "count" => json!(2),
        "greeting" => json!("hello"),
        "user" | "maybe_user" => json!({"id": 1, "name": "ada"}),
        "untyped" => json!([1, 2]),
        _ => return None,
    })
}

/// The toolset and `tags`, a tool added at run time with a hand-written array schema.
fn server() -> McpServer<()> {
    let input = json!({"type": "object", "properties": {}, "additionalProperties": false});
    let output = json!({"type": "array", "items": {"type": "string"}});
    let tags = Tool::new("tags", "The tags.", input.as_object().cloned().unwrap())
        .with_raw_output_schema(output.as_object().cloned().unwrap().into());
    McpServer::new(&RESULTS, ()).tool(tags, |_, _, _| async { Ok(result_of("tags").unwrap_or_default()) })
}

/// Every tool's name.
const TOOLS: [&str; 7] = ["names", "count", "greeting", "user", "maybe_user", "untyped", "tags"];

/// The output schema of `name` as written: its row's, or `tags`'s.
fn schema_of(name: &str) -> Option<Value> {
    match name {
        "tags" => Some(json!({"type": "array", "items": {"type": "string"}})),
        _ => INFO.iter().find(|t| t.name == name).and_then(|t| t.output_value()),
    }
}

/// Whether a revision before 2026-07-28 lists `name`'s output schema: an object schema.
fn object_schema(name: &str) -> bool {
    schema_of(name).is_some_and(|schema| schema["type"] == "object")
}

/// rmcp's client, on protocol `version`, connected to [`server`] over its stdio transport.
async fn connect(version: &ProtocolVersion) -> RunningService<RoleClient, ClientConfig> {
    let (client_side, server_side) = tokio::io::duplex(1 << 20);
    let (read, write) = tokio::io::split(server_side);
    tokio::spawn(server().serve_lines(read, write));
    let config = ClientConfig::default().with_protocol_version(version.clone());
    if *version == ProtocolVersion::V_2026_07_28 {
        let lifecycle = ClientLifecycleMode::Discover { preferred_versions: vec![version.clone()] };
        config.serve_with_lifecycle(client_side, lifecycle).await.expect("discovers")
    } else {
        config.serve(client_side).await.expect("initializes")
    }
}

/// A call of `name` without arguments: its text block and its `structuredContent`.
async fn call<S: rmcp::service::Service<RoleClient>>(
    client: &RunningService<RoleClient, S>,
    name: &str,
) -> (String, Option<Value>) {
    let result = client.call_tool(CallToolRequestParams::new(name.to_owned())).await.expect("tools/call");
    assert_ne!(result.is_error, Some(true), "{name}: {result:?}");
    assert_eq!(result.content.len(), 1, "{name}: one block");
    let text = result.content[0].as_text().expect("a text block").text.clone();
    (text, result.structured_content)
}

#[tokio::test]
async fn a_2026_07_28_client_gets_every_output_schema_as_written() {
    let client = connect(&ProtocolVersion::V_2026_07_28).await;
    let listed = client.list_tools(None).await.expect("tools/list");
    let names: Vec<&str> = listed.tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, TOOLS);
    for tool in &listed.tools {
        let served = tool.output_schema.as_deref().cloned().map(Value::Object);
        assert_eq!(served, schema_of(&tool.name), "{}", tool.name);
    }
    // Byte for byte: the array schema in the author's key order.
    let tags = listed.tools.iter().find(|t| t.name == "tags").unwrap();
    assert_eq!(
        serde_json::to_string(tags.output_schema.as_deref().unwrap()).unwrap(),
        r#"{"type":"array","items":{"type":"string"}}"#
    );
    client.cancel().await.ok();
}

#[tokio::test]
async fn earlier_revisions_list_only_object_output_schemas() {
    for version in [ProtocolVersion::V_2025_06_18, ProtocolVersion::V_2025_11_25] {
        let client = connect(&version).await;
        let listed = client.list_tools(None).await.expect("tools/list");
        assert_eq!(listed.tools.len(), TOOLS.len());
        for tool in &listed.tools {
            let served = tool.output_schema.as_deref().cloned().map(Value::Object);
            let expected = schema_of(&tool.name).filter(|_| object_schema(&tool.name));
            assert_eq!(served, expected, "{version}: {}", tool.name);
        }
        client.cancel().await.ok();
    }
    // Before 2025-06-18 there is no output schema at all.
    let client = connect(&ProtocolVersion::V_2025_03_26).await;
    let listed = client.list_tools(None).await.expect("tools/list");
    assert!(listed.tools.iter().all(|t| t.output_schema.is_none()), "{:?}", listed.tools);
    client.cancel().await.ok();
}

#[tokio::test]
async fn a_2026_07_28_client_gets_any_result_as_structured_content() {
    let client = connect(&ProtocolVersion::V_2026_07_28).await;
    for name in TOOLS {
        let value = result_of(name).unwrap();
        let (text, structured) = call(&client, name).await;
        assert_eq!(text, text_of(&value), "{name}: the text");
        let expected = schema_of(name).map(|_| value);
        assert_eq!(structured, expected, "{name}: structuredContent exactly when it has an output schema");
    }
    // The string result in full: its text plain, its structured content the JSON string
    // its schema `{"type":"string"}` describes.
    assert_eq!(call(&client, "greeting").await, ("hello".to_owned(), Some(json!("hello"))));
    client.cancel().await.ok();
}

#[tokio::test]
async fn earlier_revisions_get_structured_content_only_for_objects_of_object_schemas() {
    for version in
        [ProtocolVersion::V_2025_03_26, ProtocolVersion::V_2025_06_18, ProtocolVersion::V_2025_11_25]
    {
        let client = connect(&version).await;
        for name in TOOLS {
            let value = result_of(name).unwrap();
            let (text, structured) = call(&client, name).await;
            assert_eq!(text, text_of(&value), "{version} {name}: the text, as in 2026-07-28");
            // Today's rule: `user` alone (an object, of an object schema). `maybe_user`
            // returns an object too, but its schema (`anyOf`) is not sent to these clients.
            let expected = (name == "user").then_some(value);
            assert_eq!(structured, expected, "{version} {name}");
        }
        client.cancel().await.ok();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_each_lifecycle_gets_its_revisions_shapes() {
    let uri = serve(server()).await;
    for era in [Era::Legacy, Era::Stateless] {
        let client = Client::new(&uri, era).connect().await.expect("connects");
        let listed = client.list_tools(None).await.expect("tools/list");
        let names = listed.tools.iter().find(|t| t.name == "names").unwrap();
        assert_eq!(names.output_schema.is_some(), era == Era::Stateless, "{era:?}");
        for name in ["names", "count", "tags", "user", "maybe_user"] {
            let value = result_of(name).unwrap();
            let (text, structured) = call(&client, name).await;
            assert_eq!(text, value.to_string(), "{era:?} {name}");
            let expected = (era == Era::Stateless || name == "user").then_some(value);
            assert_eq!(structured, expected, "{era:?} {name}");
        }
        client.cancel().await.ok();
    }
}
