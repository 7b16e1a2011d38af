//! Tool search over MCP (`McpServer::tool_search`), with rmcp's client: `tools/list` shows
//! the search tool and the tools named always visible; `search_tools` answers with the
//! definitions of the best matches, in `tools/list`'s form, from the crate's compiled
//! index and the tools added at run time, only among the tools the caller sees and not
//! listed; every tool stays callable by its name; mistakes in the settings stop the
//! server from starting; a bad query gets the message any tool's bad arguments get.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::connect;
use common::net::{post, serve};
use example_app::{App, toolset};
use rmcp::model::{CallToolRequestParams, CallToolResult, Tool};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Map, Value, json};
use toolcall_mcp::{McpServer, ServeError, ToolSearch};

fn object(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap()
}

fn server() -> McpServer<App> {
    McpServer::new(&toolset::ALL, App::demo()).tool_search(ToolSearch::new().always_visible(["whoami"]))
}

async fn call<S: rmcp::service::Service<RoleClient>>(
    client: &RunningService<RoleClient, S>,
    name: &str,
    args: Value,
) -> CallToolResult {
    let params = CallToolRequestParams::new(name.to_owned()).with_arguments(object(args));
    client.call_tool(params).await.expect("tools/call")
}

/// The names of the tools a search found, from its structured content.
fn found(result: &CallToolResult) -> Vec<String> {
    let tools = result.structured_content.as_ref().expect("structured content")["tools"].as_array().unwrap();
    tools.iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn the_list_shows_the_search_tool_and_the_pinned_ones_only() {
    let client = connect(server()).await;
    let listed = client.list_tools(None).await.expect("tools/list");
    let names: Vec<&str> = listed.tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["whoami", "search_tools"]);
    let search = &listed.tools[1];
    assert_eq!(search.input_schema["required"], json!(["query"]));
    assert_eq!(search.annotations.as_ref().and_then(|a| a.read_only_hint), Some(true));
    client.cancel().await.ok();
}

#[tokio::test]
async fn a_search_finds_definitions_in_the_lists_form_and_they_are_callable_by_name() {
    let client = connect(server()).await;
    let result =
        call(&client, "search_tools", json!({"query": "what is the weather going to be in Oslo"})).await;
    assert_eq!(result.is_error, Some(false), "{result:?}");
    let names = found(&result);
    assert_eq!(names.first().map(String::as_str), Some("get_weather"), "{names:?}");
    assert!(names.len() <= 5, "the default limit: {names:?}");
    // The definition is the one tools/list would give without search.
    let plain = connect(McpServer::new(&toolset::ALL, App::demo()).page_size(1000)).await;
    let every = plain.list_tools(None).await.expect("tools/list").tools;
    let weather: &Tool = every.iter().find(|t| t.name == "get_weather").unwrap();
    let definition = &result.structured_content.as_ref().unwrap()["tools"][0];
    assert_eq!(definition, &serde_json::to_value(weather).unwrap());
    // The text block holds the same JSON, for clients that read only text.
    let text = &result.content[0].as_text().unwrap().text;
    assert_eq!(serde_json::from_str::<Value>(text).unwrap(), *result.structured_content.as_ref().unwrap());
    // Found, not listed, and callable by name.
    let weather = call(&client, "get_weather", json!({"city": "Oslo"})).await;
    assert_eq!(weather.is_error, Some(false), "{weather:?}");
    plain.cancel().await.ok();
    client.cancel().await.ok();
}

#[tokio::test]
async fn the_limit_the_pinned_tools_and_the_filter_bound_what_is_found() {
    let hide_notes = McpServer::new(&toolset::ALL, App::demo())
        .tool_filter(|_, tool| tool.module != "notes" || tool.name == "whoami")
        .tool_search(ToolSearch::new().always_visible(["whoami"]));
    let client = connect(hide_notes).await;
    let one = call(&client, "search_tools", json!({"query": "weather forecast", "limit": 1})).await;
    assert_eq!(found(&one), ["get_weather"]);
    let notes =
        call(&client, "search_tools", json!({"query": "add a note, list my notes, who am I", "limit": 50}))
            .await;
    let names = found(&notes);
    assert!(
        names.iter().all(|n| !["add_note", "list_notes", "remove_note", "whoami"].contains(&n.as_str())),
        "{names:?}"
    );
    let hidden = client
        .call_tool(CallToolRequestParams::new("add_note").with_arguments(object(json!({"text": "x"}))))
        .await;
    assert!(hidden.is_err(), "a tool the filter hides is neither found nor callable");
    client.cancel().await.ok();
}

#[tokio::test]
async fn tools_added_at_run_time_are_found_too() {
    let shout = Tool::new(
        "shout",
        "Repeat a word loudly, in capitals.",
        object(json!({"type": "object", "properties": {"word": {"type": "string"}}})),
    );
    let server =
        server().tool(shout, |_, args, _| async move { Ok(json!(args["word"].to_string().to_uppercase())) });
    let client = connect(server).await;
    let result = call(&client, "search_tools", json!({"query": "say a word loudly in capitals"})).await;
    assert_eq!(found(&result).first().map(String::as_str), Some("shout"), "{result:?}");
    client.cancel().await.ok();
}

#[tokio::test]
async fn a_bad_query_gets_the_message_any_tools_bad_arguments_get() {
    let client = connect(server()).await;
    let result = call(&client, "search_tools", json!({"limit": 0})).await;
    assert_eq!(result.is_error, Some(true));
    let text = &result.content[0].as_text().unwrap().text;
    assert!(text.contains("query") && text.contains("limit"), "{text}");
    client.cancel().await.ok();
}

#[tokio::test]
async fn mistakes_in_the_settings_stop_the_server_from_starting() {
    for (server, says) in [
        (server().tool_search(ToolSearch::new()), "turned on twice"),
        (
            McpServer::new(&toolset::ALL, App::demo()).tool_search(ToolSearch::new().named("get_weather")),
            "has the name of a tool",
        ),
        (
            McpServer::new(&toolset::ALL, App::demo())
                .tool_search(ToolSearch::new().always_visible(["nope"])),
            "names no tool: nope",
        ),
    ] {
        let (_client, server_side) = tokio::io::duplex(1024);
        let (read, write) = tokio::io::split(server_side);
        match server.serve_lines(read, write).await {
            Err(ServeError::Definitions(why)) => assert!(why.contains(says), "{why}"),
            other => panic!("expected the definitions' error naming {says:?}: {other:?}"),
        }
    }
}

/// 2026-07-28 over HTTP (stateless): the list and a search, each asked several times (the
/// hot path answers once the tool is warm) and once through rmcp: the same answers, and
/// the definition found carries its output schema as that revision's list does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_works_on_2026_07_28_over_http_on_either_path() {
    let uri = serve(server()).await;
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {},
                      "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"}});
    let ask = async |method: &str, name: Option<&str>, mut params: Value| -> Value {
        params["_meta"] = meta.clone();
        let mut headers = vec![("mcp-protocol-version", "2026-07-28"), ("mcp-method", method)];
        if let Some(name) = name {
            headers.push(("mcp-name", name));
        }
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let (status, _, text) = post(&uri, body.to_string(), &headers).await;
        assert_eq!(status, 200, "{text}");
        let data = text.lines().find_map(|l| l.strip_prefix("data: ")).unwrap_or(&text);
        serde_json::from_str(data).unwrap()
    };
    let listed = ask("tools/list", None, json!({})).await;
    let names: Vec<&str> =
        listed["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["whoami", "search_tools"]);
    let query = json!({"name": "search_tools", "arguments": {"query": "weather forecast for a city"}});
    let mut answers = Vec::new();
    for _ in 0..12 {
        answers.push(ask("tools/call", Some("search_tools"), query.clone()).await);
    }
    let mut cold = query.clone();
    cold["x-through-rmcp"] = json!(true);
    answers.push(ask("tools/call", Some("search_tools"), cold).await);
    let first = &answers[0]["result"]["structuredContent"]["tools"][0];
    assert_eq!(first["name"], "get_weather", "{}", answers[0]);
    assert!(first.get("outputSchema").is_some(), "{first}");
    assert!(answers.windows(2).all(|pair| pair[0] == pair[1]), "the hot path and rmcp answer alike");
}
