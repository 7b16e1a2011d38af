//! What the README's "Resources and prompts in detail" says, each statement checked
//! (#62 item 12): how a generated resource is listed (its name, title and default MIME
//! types, from the build) and read (text, JSON, bytes as a base64 `blob`), that
//! `resources/subscribe` is refused with -32002 for a URI the server does not serve, that
//! a camelCase prompt argument keeps its name, that a prompt returning content blocks is
//! one user message per block, and how completions answer. The generated sets are the
//! official suite's server (`mcp-conformance`) and example-app's.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use rmcp::model::{
    ArgumentInfo, CompleteRequestParams, ErrorCode, GetPromptRequestParams, ReadResourceRequestParams,
    Reference, ResourceContents, SubscribeRequestParams,
};
use serde_json::{Value, json};
use toolcall_mcp::{McpServer, Prompts, Resources};
use toolcall_runtime::__private::Dispatched;
use toolcall_runtime::{Content, Emitted, ToolError, ToolInfo, Toolset};

/// The server of the official suite's resources and prompts, generated from
/// `mcp-conformance/src/resources` and `src/prompts`.
fn conformance() -> McpServer<()> {
    McpServer::new(&mcp_conformance::toolset::ALL, ())
        .resources(Resources::from_set(&mcp_conformance::toolset::RESOURCES))
        .prompts(Prompts::from_set(&mcp_conformance::toolset::PROMPTS))
}

/// The `ResourceInfo` fields the build writes for each resource of `file`
/// (`src/resources/files.rs` of a crate in memory), by function.
fn generated_resources(file: &str) -> BTreeMap<String, BTreeMap<String, String>> {
    let files: BTreeMap<PathBuf, String> = BTreeMap::from([
        ("src/lib.rs".into(), "pub mod tools;\npub mod resources;\n".into()),
        ("src/tools/mod.rs".into(), String::new()),
        ("src/resources/mod.rs".into(), "pub mod files;\n".into()),
        ("src/resources/files.rs".into(), file.into()),
    ]);
    let generated = toolcall_build::Builder::new().generate_from_files(files).unwrap();
    assert!(!generated.has_errors(), "{:?}", generated.diagnostics);
    let mut resources = BTreeMap::new();
    for entry in generated.code.split("::toolcall_runtime::ResourceInfo {").skip(1) {
        let entry = entry.split('}').next().unwrap();
        let fields: BTreeMap<String, String> = entry
            .split(",\n")
            .filter_map(|line| line.trim().split_once(": "))
            .map(|(key, value)| (key.to_owned(), value.trim_matches(|c| c == '"' || c == ',').to_owned()))
            .collect();
        resources.insert(fields["function"].clone(), fields);
    }
    resources
}

#[test]
fn a_generated_resource_is_listed_by_its_meta_and_its_type_gives_the_default_mime_type() {
    let resources = generated_resources(
        r#"
use toolcall_runtime::ResourceMeta;

pub(crate) const RESOURCES: &[ResourceMeta] = &[
    ResourceMeta::new("logo", "files://logo.png"),
    ResourceMeta::new("readme", "files://readme").title("Read me first"),
    ResourceMeta::new("settings", "files://settings").name("config"),
    ResourceMeta::new("page", "files://page.html").mime_type("text/html"),
];

/// The logo.
pub fn logo() -> Vec<u8> { vec![1, 2, 3] }

/// The readme.
pub fn readme() -> String { String::new() }

/// The settings.
pub fn settings() -> std::collections::BTreeMap<String, u32> { Default::default() }

/// A page.
pub fn page() -> &'static str { "<p>hi</p>" }
"#,
    );
    let field = |function: &str, name: &str| resources[function][name].clone();
    // The name: `.name(..)`, else the function's.
    assert_eq!((field("settings", "name"), field("logo", "name")), ("config".into(), "logo".into()));
    assert_eq!((field("readme", "title"), field("logo", "title")), ("Read me first".into(), String::new()));
    assert_eq!(field("logo", "description"), "The logo.");
    // The MIME type: `.mime_type(..)`, else by what the function returns.
    assert_eq!(field("logo", "mime_type"), "application/octet-stream");
    assert_eq!(field("readme", "mime_type"), "text/plain");
    assert_eq!(field("settings", "mime_type"), "application/json");
    assert_eq!(field("page", "mime_type"), "text/html");
}

#[tokio::test]
async fn generated_resources_read_as_text_json_and_bytes_as_a_base64_blob() {
    let client = common::connect(conformance()).await;
    let listed = client.list_all_resources().await.unwrap();
    let described: Vec<(&str, &str, Option<&str>)> =
        listed.iter().map(|r| (r.uri.as_str(), r.name.as_str(), r.mime_type.as_deref())).collect();
    assert_eq!(
        described,
        [
            ("test://static-text", "static-text", Some("text/plain")),
            ("test://static-binary", "static-binary", Some("image/png")),
            ("test://watched-resource", "watched-resource", Some("text/plain")),
        ]
    );
    assert_eq!(listed[0].description.as_deref(), Some("A static text resource."));
    let templates = client.list_all_resource_templates().await.unwrap();
    assert_eq!(
        (templates[0].name.as_str(), templates[0].mime_type.as_deref()),
        ("template", Some("application/json"))
    );

    let read =
        async |uri: &str| client.read_resource(ReadResourceRequestParams::new(uri)).await.unwrap().contents;
    let binary = read("test://static-binary").await;
    let ResourceContents::BlobResourceContents { blob, mime_type, .. } = &binary[0] else {
        panic!("{binary:?}")
    };
    assert_eq!(toolcall_runtime::base64_decode(blob), Some(mcp_conformance::media::png()));
    assert_eq!(mime_type.as_deref(), Some("image/png"));
    let json = read("test://template/7/data").await;
    let ResourceContents::TextResourceContents { text, mime_type, .. } = &json[0] else { panic!("{json:?}") };
    assert_eq!(
        serde_json::from_str::<Value>(text).unwrap(),
        json!({"id": "7", "templateTest": true, "data": "Data for ID: 7"})
    );
    assert_eq!(mime_type.as_deref(), Some("application/json"));
    client.cancel().await.ok();
}

/// `resources/subscribe` is the subscription of revisions before 2026-07-28 (rmcp marks
/// its client methods deprecated for that reason).
#[tokio::test]
#[allow(deprecated)]
async fn subscribing_to_a_uri_the_server_does_not_serve_is_refused_with_32002() {
    let client = common::connect(conformance()).await;
    // A fixed resource's URI, and one a template matches.
    client.subscribe(SubscribeRequestParams::new("test://static-text")).await.unwrap();
    client.subscribe(SubscribeRequestParams::new("test://template/7/data")).await.unwrap();
    let refused = client.subscribe(SubscribeRequestParams::new("test://nothing")).await.unwrap_err();
    let rmcp::ServiceError::McpError(error) = refused else { panic!("not a JSON-RPC error: {refused:?}") };
    assert_eq!(error.code, ErrorCode::RESOURCE_NOT_FOUND);
    assert_eq!(error.code.0, -32002);
    client.cancel().await.ok();
}

#[tokio::test]
async fn a_camel_case_prompt_argument_keeps_its_name() {
    let client = common::connect(conformance()).await;
    let prompts = client.list_all_prompts().await.unwrap();
    let embedded = prompts.iter().find(|p| p.name == "test_prompt_with_embedded_resource").unwrap();
    let arguments: Vec<(&str, Option<bool>)> =
        embedded.arguments.iter().flatten().map(|a| (a.name.as_str(), a.required)).collect();
    assert_eq!(arguments, [("resourceUri", Some(true))]);
    let mut request = GetPromptRequestParams::new("test_prompt_with_embedded_resource");
    request.arguments = json!({"resourceUri": "test://mine"}).as_object().cloned();
    let got = client.get_prompt(request).await.unwrap();
    let messages = serde_json::to_value(&got.messages).unwrap();
    assert_eq!(messages[0]["content"]["resource"]["uri"], "test://mine", "{messages}");
    client.cancel().await.ok();
}

const NO_PARAMS: &str = r#"{"type":"object","properties":{},"required":[],"additionalProperties":false}"#;

/// A prompt `show` returning `Vec<Content>`, written out as toolcall-build writes one.
static SHOW: [ToolInfo; 1] = [ToolInfo {
    module: "prompts",
    name: "show",
    description: "Show the picture.",
    parameters: NO_PARAMS,
    strict_parameters: NO_PARAMS,
    anthropic_strict_parameters: NO_PARAMS,
    ..ToolInfo::EMPTY
}];
static SHOW_EMITTED: Emitted = Emitted::new();
static SHOW_PROMPTS: Toolset = Toolset::new(&SHOW, &SHOW_EMITTED, |_, name, _| {
    // What the generated call encodes a `Vec<Content>` as: its blocks.
    let blocks = vec![Content::text("Look:"), Content::image("image/png", vec![1, 2, 3])];
    (name == "show").then(|| {
        Dispatched::Ready(serde_json::to_value(blocks).map_err(|e| ToolError::Failed(e.to_string())))
    })
});

#[tokio::test]
async fn a_prompt_returning_content_blocks_is_one_user_message_per_block() {
    let server = McpServer::new(&mcp_conformance::toolset::ALL, ()).prompts(Prompts::from_set(&SHOW_PROMPTS));
    let client = common::connect(server).await;
    let got = client.get_prompt(GetPromptRequestParams::new("show")).await.unwrap();
    assert_eq!(
        serde_json::to_value(&got.messages).unwrap(),
        json!([
            {"role": "user", "content": {"type": "text", "text": "Look:"}},
            {"role": "user", "content": {"type": "image", "data": "AQID", "mimeType": "image/png"}},
        ])
    );
    client.cancel().await.ok();
}

#[tokio::test]
async fn completions_come_from_a_function_before_an_enums_variants_at_most_a_hundred() {
    use example_app::{App, toolset};
    let complete = async |prompts: Prompts<App>, argument: &str, typed: &str| {
        let client = common::connect(McpServer::new(&toolset::ALL, App::demo()).prompts(prompts)).await;
        let request = CompleteRequestParams::new(
            Reference::for_prompt("summarize_notes"),
            ArgumentInfo::new(argument, typed),
        );
        let answer = client.complete(request).await.unwrap().completion;
        client.cancel().await.ok();
        (answer.values, answer.total, answer.has_more)
    };
    // An enum argument completes from its variants, with no code.
    let variants = complete(Prompts::from_set(&toolset::PROMPTS), "length", "B").await;
    assert_eq!(variants, (vec!["brief".to_owned()], Some(1), Some(false)));
    // A function given for it takes their place; at most 100 values go, with the total.
    let many = Prompts::from_set(&toolset::PROMPTS).complete("summarize_notes", "length", |_, typed, _| {
        (0..150).map(|i| format!("{typed}{i}")).collect()
    });
    let (values, total, more) = complete(many, "length", "x").await;
    assert_eq!((values.len(), values[0].as_str(), total, more), (100, "x0", Some(150), Some(true)));
    // Anything else completes to no values.
    let nothing = complete(Prompts::from_set(&toolset::PROMPTS), "newest", "1").await;
    assert_eq!(nothing, (Vec::<String>::new(), Some(0), Some(false)));
}
