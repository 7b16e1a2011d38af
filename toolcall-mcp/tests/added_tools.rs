//! Tools added at run time (`McpServer::tool`, #44): a hand-written definition is listed
//! as written, after the toolset's tools, in the order added (so a JSON Schema 2020-12
//! with `$schema`, `$defs` and `additionalProperties` keeps every keyword and its order);
//! a call runs the function with the caller's context and the arguments as sent, under
//! the same time limit and panic handling as a generated tool; a tool filter sees it; a
//! name served twice or an input schema that is not an object stops the server from
//! starting; a `DynTool` served this way has its arguments checked by toolcall.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::connect;
use common::gauge::{GAUGE, Gauge, Stats};
use rmcp::model::{CallToolRequestParams, CallToolResult, ToolAnnotations};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Map, Value, json};
use toolcall_mcp::rmcp::model::Tool;
use toolcall_mcp::{McpServer, ServeError};
use toolcall_runtime::ir::{Param, Tool as IrTool, Type};
use toolcall_runtime::{DynTool, Format, ToolError};

/// The conformance suite's `json_schema_2020_12_tool` (SEP-1613), key for key.
fn schema_tool() -> Tool {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
            }
        },
        "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
        "additionalProperties": false
    });
    Tool::new("json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features", object(schema))
}

fn object(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap()
}

fn stats() -> Arc<Stats> {
    Arc::new(Stats::default())
}

/// The gauge toolset as `ada`, with the schema tool (answering its arguments and the
/// caller) and `sleepy` (which sleeps for its `ms`, or panics when asked).
fn server() -> McpServer<Gauge> {
    let sleepy = Tool::new(
        "sleepy",
        "Sleep for `ms`.",
        object(json!({"type": "object", "properties": {"ms": {"type": "integer"}, "panic": {"type": "boolean"}}})),
    )
    .with_annotations(ToolAnnotations::new().destructive(true));
    McpServer::new(&GAUGE, Gauge::new("ada", &stats()))
        .tool(schema_tool(), |ctx: Arc<Gauge>, args, _| async move {
            Ok(json!({"user": ctx.user, "arguments": args}))
        })
        .tool(sleepy, |_, args, _| async move {
            if args.get("panic") == Some(&json!(true)) {
                panic!("asked to");
            }
            let ms = args
                .get("ms")
                .and_then(Value::as_u64)
                .ok_or_else(|| ToolError::Failed("ms: expected an integer".into()))?;
            tokio::time::sleep(Duration::from_millis(ms)).await;
            Ok(json!(ms))
        })
}

async fn call<S: rmcp::service::Service<RoleClient>>(
    client: &RunningService<RoleClient, S>,
    name: &str,
    args: Value,
) -> CallToolResult {
    let params = CallToolRequestParams::new(name.to_owned()).with_arguments(object(args));
    client.call_tool(params).await.expect("tools/call")
}

fn text(result: &CallToolResult) -> &str {
    &result.content[0].as_text().expect("a text block").text
}

#[tokio::test]
async fn a_hand_written_definition_is_listed_as_written_after_the_toolsets() {
    let client = connect(server()).await;
    let listed = client.list_tools(None).await.expect("tools/list");
    let names: Vec<&str> = listed.tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["work", "whoami", "json_schema_2020_12_tool", "sleepy"]);
    let served = serde_json::to_string(&listed.tools[2]).unwrap();
    assert_eq!(
        served,
        serde_json::to_string(&schema_tool()).unwrap(),
        "every keyword, in the author's order"
    );
    let schema = &listed.tools[2].input_schema;
    assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
    assert!(schema["$defs"].get("address").is_some());
    assert_eq!(schema["additionalProperties"], false);
    client.cancel().await.ok();
}

#[tokio::test]
async fn a_call_runs_the_function_with_the_context_and_the_arguments_as_sent() {
    let client = connect(server()).await;
    let args = json!({"name": "Ada", "address": {"city": "London"}});
    let result = call(&client, "json_schema_2020_12_tool", args.clone()).await;
    assert_eq!(result.is_error, Some(false));
    assert_eq!(text(&result), json!({"user": "ada", "arguments": args}).to_string());
    assert_eq!(result.structured_content, None, "no output schema, no structured content");
    let failed = call(&client, "sleepy", json!({})).await;
    assert_eq!((failed.is_error, text(&failed)), (Some(true), "tool failed: ms: expected an integer"));
    client.cancel().await.ok();
}

#[tokio::test]
async fn a_panic_or_an_overrun_ends_the_call_as_a_generated_ones_does() {
    let client = connect(server().timeout(Duration::from_millis(200))).await;
    let panicked = call(&client, "sleepy", json!({"panic": true})).await;
    assert_eq!(panicked.is_error, Some(true));
    assert!(
        text(&panicked).contains("panicked") && text(&panicked).contains("asked to"),
        "{}",
        text(&panicked)
    );
    let late = call(&client, "sleepy", json!({"ms": 5_000})).await;
    assert_eq!(late.is_error, Some(true));
    assert!(text(&late).starts_with("tool `sleepy` did not finish within 200 ms"), "{}", text(&late));
    // The server goes on.
    let fine = call(&client, "sleepy", json!({"ms": 1})).await;
    assert_eq!((fine.is_error, text(&fine)), (Some(false), "1"));
    client.cancel().await.ok();
}

/// Many tools (past the few the server finds by scanning their names): each call reaches
/// the tool it names, the toolset's as the added ones, and a result goes as
/// `structuredContent` exactly for the tools with an output schema.
#[tokio::test]
async fn among_many_tools_each_call_reaches_the_tool_it_names() {
    let mut server = server();
    for n in 0..40 {
        let name = format!("tool_{n:02}");
        let mut definition = Tool::new(name.clone(), "Answers its name.", object(json!({"type": "object"})));
        if n % 3 == 0 {
            definition = definition.with_raw_output_schema(Arc::new(object(
                json!({"type": "object", "properties": {"name": {"type": "string"}}}),
            )));
        }
        server = server.tool(definition, move |_, _, _| {
            let name = name.clone();
            async move { Ok(json!({ "name": name })) }
        });
    }
    let client = connect(server).await;
    for n in (0..40).rev() {
        let name = format!("tool_{n:02}");
        let result = call(&client, &name, json!({})).await;
        assert_eq!(text(&result), json!({ "name": name }).to_string(), "{name}");
        let structured = result.structured_content.is_some();
        assert_eq!(structured, n % 3 == 0, "{name}: structured content iff an output schema");
    }
    let first = call(&client, "whoami", json!({})).await;
    assert_eq!((first.is_error, text(&first)), (Some(false), "ada"));
    let unknown = client.call_tool(CallToolRequestParams::new("tool_40")).await;
    assert!(unknown.is_err(), "a name no tool has is an unknown tool: {unknown:?}");
    client.cancel().await.ok();
}

#[tokio::test]
async fn a_tool_filter_sees_an_added_tool() {
    let server = server().tool_filter(|_, tool| !tool.is_destructive());
    let client = connect(server).await;
    let listed = client.list_tools(None).await.expect("tools/list");
    let names: Vec<&str> = listed.tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["work", "whoami", "json_schema_2020_12_tool"], "`sleepy` is destructive");
    let params = CallToolRequestParams::new("sleepy").with_arguments(object(json!({"ms": 1})));
    let hidden = client.call_tool(params).await.expect_err("an unknown tool to this caller");
    assert!(hidden.to_string().contains("sleepy"), "{hidden}");
    client.cancel().await.ok();
}

#[tokio::test]
async fn a_name_served_twice_or_a_schema_that_is_not_an_object_stops_the_server() {
    let serve = |server: McpServer<Gauge>| async move {
        let (_client, server_side) = tokio::io::duplex(1024);
        let (read, write) = tokio::io::split(server_side);
        server.serve_lines(read, write).await
    };
    let twice = server()
        .tool(Tool::new("whoami", "Again.", object(json!({"type": "object"}))), |_, _, _| async {
            Ok(Value::Null)
        });
    let Err(ServeError::Definitions(why)) = serve(twice).await else { panic!("refused") };
    assert!(why.contains("`whoami` is served twice"), "{why}");
    let array = server()
        .tool(Tool::new("list", "A list.", object(json!({"type": "array"}))), |_, _, _| async {
            Ok(Value::Null)
        });
    let Err(ServeError::Definitions(why)) = serve(array).await else { panic!("refused") };
    assert!(why.contains("`list`: its input schema's root must be"), "{why}");
}

#[tokio::test]
async fn a_dyn_tool_served_this_way_has_its_arguments_checked() {
    let add = Arc::new(DynTool::new(
        IrTool::new("add").param(Param::new("a", Type::integer())).param(Param::new("b", Type::integer())),
        |args| Ok(json!(args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0))),
    ));
    let definition: Tool = serde_json::from_str(&add.render(Format::Mcp, false)).unwrap();
    let server =
        McpServer::new(&GAUGE, Gauge::new("ada", &stats())).tool(definition.clone(), move |_, args, _| {
            let add = Arc::clone(&add);
            async move { add.run(&Value::Object(args)) }
        });
    let client = connect(server).await;
    let listed = client.list_tools(None).await.expect("tools/list");
    assert_eq!(listed.tools.last(), Some(&definition));
    let sum = call(&client, "add", json!({"a": 2, "b": 3})).await;
    assert_eq!((sum.is_error, text(&sum)), (Some(false), "5"));
    let wrong = call(&client, "add", json!({"a": "two", "b": 3})).await;
    assert_eq!(wrong.is_error, Some(true));
    assert!(text(&wrong).starts_with("a: expected an integer"), "{}", text(&wrong));
    client.cancel().await.ok();
}
