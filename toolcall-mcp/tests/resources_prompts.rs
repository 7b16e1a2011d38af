//! Resources, prompts and completions beside the tools, through rmcp's client (#44 items 1
//! and 2): listing, reading fixed resources and templates, errors for what does not
//! exist, subscriptions and their update notifications, prompts with checked arguments,
//! completions, and capabilities only for what the server has.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::{Arc, Mutex};

use rmcp::ClientHandler;
use rmcp::model::{
    ArgumentInfo, CompleteRequestParams, ErrorCode, GetPromptRequestParams, Prompt, PromptArgument,
    PromptMessage, ReadResourceRequestParams, Reference, Resource, ResourceContents, ResourceTemplate,
    ResourceUpdatedNotificationParam, Role, SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RoleClient};
use toolcall_fixtures::toolset::ALL;
use toolcall_mcp::resources::{blob, not_found, starting_with, text};
use toolcall_mcp::{McpServer, Prompts, Resources};

fn resources() -> Resources<()> {
    Resources::new()
        .resource(
            Resource::new("test://static-text", "static text").with_mime_type("text/plain"),
            |_, request| Box::pin(async move { Ok(vec![text(&request.uri, "text/plain", "plain words")]) }),
        )
        .resource(Resource::new("test://static-binary", "static binary"), |_, request| {
            Box::pin(async move { Ok(vec![blob(&request.uri, "image/png", &[0x89, b'P', b'N', b'G'])]) })
        })
        .template(ResourceTemplate::new("test://template/{id}/data", "data by id"), |_, request| {
            Box::pin(async move {
                let id = request.variables.get("id").cloned().unwrap_or_default();
                if id == "404" {
                    return Err(not_found(&request.uri));
                }
                Ok(vec![text(&request.uri, "application/json", format!("{{\"id\":\"{id}\"}}"))])
            })
        })
        .list_with(|_| Box::pin(async { vec![Resource::new("test://template/7/data", "row 7")] }))
        .complete("test://template/{id}/data", "id", |_, typed, _| starting_with(&["12", "123", "7"], typed))
}

fn prompts() -> Prompts<()> {
    let args = vec![PromptArgument::new("arg1").with_required(true), PromptArgument::new("arg2")];
    Prompts::new()
        .prompt(Prompt::new("test_prompt_with_arguments", Some("Two arguments"), Some(args)), |_, request| {
            Box::pin(async move {
                let arg = |name: &str| request.arguments.get(name).cloned().unwrap_or_default();
                let text = format!("first {}, second {}", arg("arg1"), arg("arg2"));
                Ok(vec![PromptMessage::new_text(Role::User, text)])
            })
        })
        .complete("test_prompt_with_arguments", "arg1", |_, typed, _| {
            starting_with(&["testValue", "other"], typed)
        })
}

/// Records the resource updates the server sends.
#[derive(Clone, Default)]
struct Updates(Arc<Mutex<Vec<String>>>);

impl ClientHandler for Updates {
    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.0.lock().unwrap().push("list changed".to_owned());
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.0.lock().unwrap().push(params.uri);
    }
}

#[tokio::test]
async fn resources_list_read_and_fail_as_they_should() {
    let server = McpServer::new(&ALL, ()).resources(resources());
    let client = common::connect(server).await;
    let info = client.peer_info().expect("initialized");
    assert!(info.capabilities.resources.as_ref().is_some_and(|r| r.subscribe == Some(true)));
    assert!(info.capabilities.completions.is_some());
    assert!(info.capabilities.prompts.is_none(), "no prompts, none advertised");

    let listed = client.list_all_resources().await.unwrap();
    let uris: Vec<&str> = listed.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(uris, ["test://static-text", "test://static-binary", "test://template/7/data"]);
    let templates = client.list_all_resource_templates().await.unwrap();
    assert_eq!(templates[0].uri_template, "test://template/{id}/data");

    let read = |uri: &str| client.read_resource(ReadResourceRequestParams::new(uri));
    let static_text = read("test://static-text").await.unwrap();
    let ResourceContents::TextResourceContents { text, mime_type, .. } = &static_text.contents[0] else {
        panic!("{static_text:?}")
    };
    assert_eq!((text.as_str(), mime_type.as_deref()), ("plain words", Some("text/plain")));
    let binary = read("test://static-binary").await.unwrap();
    let ResourceContents::BlobResourceContents { blob, .. } = &binary.contents[0] else {
        panic!("{binary:?}")
    };
    assert_eq!(toolcall_runtime::base64_decode(blob), Some(vec![0x89, b'P', b'N', b'G']));
    let templated = read("test://template/123/data").await.unwrap();
    let ResourceContents::TextResourceContents { text, uri, .. } = &templated.contents[0] else { panic!() };
    assert_eq!((uri.as_str(), text.as_str()), ("test://template/123/data", "{\"id\":\"123\"}"));

    for missing in ["test://nothing", "test://template/404/data", "test://template/1/2/data"] {
        let error = read(missing).await.unwrap_err().to_string();
        assert!(error.contains("-32002") || error.contains("no resource"), "{missing}: {error}");
    }
    client.cancel().await.ok();
}

/// `resources/subscribe` is the subscription of revisions before 2026-07-28 (rmcp marks
/// its client methods deprecated for that reason).
#[tokio::test]
#[allow(deprecated)]
async fn subscribers_hear_of_updates_until_they_unsubscribe() {
    let server = McpServer::new(&ALL, ()).resources(resources());
    let notifier = server.notifier();
    let updates = Updates::default();
    let client = common::connect_as(server, updates.clone()).await;
    client.subscribe(SubscribeRequestParams::new("test://static-text")).await.unwrap();
    let refused = client.subscribe(SubscribeRequestParams::new("test://nothing")).await;
    assert!(refused.is_err(), "an unknown URI cannot be subscribed to");
    assert_eq!(notifier.resource_updated("test://static-text").await, 1);
    assert_eq!(notifier.resource_updated("test://static-binary").await, 0, "nobody subscribed to it");
    for _ in 0..50 {
        if !updates.0.lock().unwrap().is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(*updates.0.lock().unwrap(), ["test://static-text"]);
    client.unsubscribe(UnsubscribeRequestParams::new("test://static-text")).await.unwrap();
    assert_eq!(notifier.resource_updated("test://static-text").await, 0);
    client.cancel().await.ok();
}

#[tokio::test]
async fn every_session_hears_that_the_list_changed_until_it_goes() {
    let server = McpServer::new(&ALL, ()).resources(resources());
    let notifier = server.notifier();
    let (first, second) = (Updates::default(), Updates::default());
    let one = common::connect_as(server.clone(), first.clone()).await;
    let two = common::connect_as(server, second.clone()).await;
    let info = one.peer_info().expect("initialized");
    assert!(info.capabilities.resources.as_ref().is_some_and(|r| r.list_changed == Some(true)));
    // `notifications/initialized` is a notification: wait until both sessions are known.
    let mut told = 0;
    for _ in 0..100 {
        told = notifier.resources_list_changed().await;
        if told == 2 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(told, 2);
    for updates in [&first, &second] {
        for _ in 0..50 {
            if !updates.0.lock().unwrap().is_empty() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        assert!(updates.0.lock().unwrap().iter().all(|u| u == "list changed"));
        assert!(!updates.0.lock().unwrap().is_empty());
    }
    two.cancel().await.ok();
    let mut told = 2;
    for _ in 0..100 {
        told = notifier.resources_list_changed().await;
        if told == 1 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(told, 1, "a session that closed is forgotten");
    one.cancel().await.ok();
}

#[tokio::test]
async fn prompts_check_their_arguments_and_completions_answer() {
    let server = McpServer::new(&ALL, ()).resources(resources()).prompts(prompts());
    let client = common::connect(server).await;
    let listed = client.list_all_prompts().await.unwrap();
    assert_eq!(listed[0].name, "test_prompt_with_arguments");

    let get = |arguments: serde_json::Value| {
        let mut request = GetPromptRequestParams::new("test_prompt_with_arguments");
        request.arguments = arguments.as_object().cloned();
        client.get_prompt(request)
    };
    let got = get(serde_json::json!({"arg1": "testValue1", "arg2": "testValue2"})).await.unwrap();
    let text = serde_json::to_string(&got.messages).unwrap();
    assert!(text.contains("first testValue1, second testValue2"), "{text}");
    let missing = get(serde_json::json!({"arg2": "x"})).await.unwrap_err().to_string();
    assert!(missing.contains("needs argument \"arg1\""), "{missing}");
    let unknown = get(serde_json::json!({"arg1": "a", "arg3": "x"})).await.unwrap_err().to_string();
    assert!(unknown.contains("has no argument \"arg3\"; its arguments: arg1, arg2"), "{unknown}");
    let no_such = client.get_prompt(GetPromptRequestParams::new("nope")).await.unwrap_err().to_string();
    assert!(no_such.contains("unknown prompt \"nope\""), "{no_such}");

    let complete = |reference: Reference, name: &str, value: &str| {
        client.complete(CompleteRequestParams::new(reference, ArgumentInfo::new(name, value)))
    };
    let prompt_values =
        complete(Reference::for_prompt("test_prompt_with_arguments"), "arg1", "test").await.unwrap();
    assert_eq!(prompt_values.completion.values, ["testValue"]);
    let id_values = complete(Reference::for_resource("test://template/{id}/data"), "id", "12").await.unwrap();
    assert_eq!(id_values.completion.values, ["12", "123"]);
    let nothing = complete(Reference::for_prompt("test_prompt_with_arguments"), "arg2", "").await.unwrap();
    assert!(nothing.completion.values.is_empty(), "no completion function: no values");
    client.cancel().await.ok();
}

#[tokio::test]
async fn a_server_with_tools_only_advertises_tools_only() {
    let client = common::connect(McpServer::new(&ALL, ())).await;
    let info = client.peer_info().expect("initialized");
    assert!(info.capabilities.resources.is_none() && info.capabilities.prompts.is_none());
    assert!(info.capabilities.completions.is_none());
    let error = client.read_resource(ReadResourceRequestParams::new("test://static-text")).await.unwrap_err();
    assert!(error.to_string().contains("no resource"), "{error}");
    let _ = ErrorCode::RESOURCE_NOT_FOUND;
    client.cancel().await.ok();
}

/// `toolcall_mcp::server!` serves everything the crate's build generated (#62 point 2): a
/// crate with `src/resources` and `src/prompts` (example-app) gets its resources, templates
/// and prompts without a line for each, so none can be forgotten; a crate of tools alone
/// (the fixtures) gets a server of its tools.
#[tokio::test]
async fn the_server_macro_serves_the_generated_resources_and_prompts() {
    let client = common::connect(toolcall_mcp::server!(example_app::toolset, example_app::App::demo())).await;
    let info = client.peer_info().expect("initialized");
    assert!(info.capabilities.resources.is_some() && info.capabilities.prompts.is_some());
    let prompts = client.list_all_prompts().await.unwrap();
    let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
    let generated: Vec<&str> = example_app::toolset::PROMPTS.names().collect();
    assert_eq!(names, generated);
    let templates = client.list_all_resource_templates().await.unwrap();
    let uris: Vec<&str> = templates.iter().map(|t| t.uri_template.as_str()).collect();
    assert_eq!(uris, ["notes://note/{id}", "notes://user/{user}/export.md"]);
    let read = client.read_resource(ReadResourceRequestParams::new("notes://note/1")).await.unwrap();
    let ResourceContents::TextResourceContents { text, .. } = &read.contents[0] else { panic!("{read:?}") };
    assert_eq!(text, "buy oat milk");
    client.cancel().await.ok();

    let tools_only = common::connect(toolcall_mcp::server!(toolcall_fixtures::toolset, ())).await;
    let info = tools_only.peer_info().expect("initialized");
    assert!(info.capabilities.resources.is_none() && info.capabilities.prompts.is_none());
    assert_eq!(tools_only.list_all_tools().await.unwrap().len(), ALL.len());
    tools_only.cancel().await.ok();
}
