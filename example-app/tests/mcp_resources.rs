//! The notes as MCP resources, under the caller's identity (#44 item 1), and `remove_note`
//! asking for confirmation over MCP (#44 item 3), through rmcp's client in process: Ada
//! reads her notes and her export (the URI `export_notes` embeds), never Grace's; a
//! client that can answer is asked before a note goes, and its "no" keeps the note.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use example_app::app::Store;
use example_app::models::{Role, User};
use example_app::{App, toolset};
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult,
    ElicitationAction, ErrorData, ReadResourceRequestParams, ResourceContents,
};
use rmcp::service::{RequestContext, RoleClient, RunningService};
use rmcp::{ClientHandler, ServiceExt};
use serde_json::json;
use toolcall_mcp::McpServer;

fn user(id: u64, name: &str) -> User {
    User { id, name: name.to_owned(), role: Role::Editor }
}

async fn connect<H: ClientHandler>(app: App, client: H) -> RunningService<RoleClient, H> {
    let server = McpServer::new(&toolset::ALL, app)
        .resources(example_app::served::resources())
        .prompts(example_app::served::prompts());
    let (server_side, client_side) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_side).await {
            let _ = running.waiting().await;
        }
    });
    client.serve(client_side).await.expect("initializes")
}

async fn read(
    client: &RunningService<RoleClient, ()>,
    uri: &str,
) -> Result<rmcp::model::ReadResourceResult, rmcp::ServiceError> {
    client.read_resource(ReadResourceRequestParams::new(uri)).await
}

fn text(contents: &[ResourceContents]) -> String {
    match &contents[0] {
        ResourceContents::TextResourceContents { text, .. } => text.clone(),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn each_user_reads_their_own_notes_and_nobody_elses() {
    let store = Arc::new(Store::seeded(Duration::ZERO));
    let ada = connect(App::for_user(&store, user(1, "Ada")), ()).await;
    let listed: Vec<String> = ada.list_all_resources().await.unwrap().into_iter().map(|r| r.uri).collect();
    assert_eq!(listed, ["notes://note/2", "notes://note/1"], "Ada's notes, newest first");
    assert_eq!(text(&read(&ada, "notes://note/1").await.unwrap().contents), "buy oat milk");
    // The URI export_notes embeds reads back as the same document.
    let exported = ada.call_tool(CallToolRequestParams::new("export_notes")).await.unwrap();
    let embedded = serde_json::to_value(&exported.content[0]).unwrap();
    let uri = embedded["resource"]["uri"].as_str().unwrap().to_owned();
    assert_eq!(uri, "notes://user/1/export.md");
    let read_back = text(&read(&ada, &uri).await.unwrap().contents);
    assert_eq!(read_back, embedded["resource"]["text"].as_str().unwrap());
    assert!(read_back.contains("call the plumber"));
    // Grace's note and Grace's export are not there for Ada: the same answer as a note
    // that does not exist.
    for uri in ["notes://note/3", "notes://user/2/export.md", "notes://note/99"] {
        let error = read(&ada, uri).await.unwrap_err().to_string();
        assert!(error.contains("no resource"), "{uri}: {error}");
    }
    // A variable its parameter's decoder refuses is the caller's mistake, named as a
    // tool's argument would be.
    let error = read(&ada, "notes://note/x").await.unwrap_err().to_string();
    assert!(error.contains("-32602: resource notes://note/x: id: expected an integer"), "{error}");
    let grace = connect(App::for_user(&store, user(2, "Grace")), ()).await;
    assert!(text(&read(&grace, "notes://note/3").await.unwrap().contents).contains("launch codes"));
    assert!(read(&grace, "notes://note/1").await.is_err());
    ada.cancel().await.ok();
    grace.cancel().await.ok();
}

/// A client that can ask its user, who answers with `action` (ticking the box or not
/// when they accept).
#[derive(Clone)]
struct Confirming(ElicitationAction, bool);

impl ClientHandler for Confirming {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = Some(Default::default());
        let mut config = ClientConfig::default();
        config.capabilities = capabilities;
        config
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let asked = serde_json::to_value(&request).unwrap();
        assert!(asked["message"].as_str().is_some_and(|m| m.ends_with("for good?")), "{asked}");
        // The form generated from `Confirm` (`Builder::form_type`), "no" filled in.
        let confirm = json!({"type": "boolean", "description": "Remove it for good.", "default": false});
        assert_eq!(asked["requestedSchema"]["properties"]["confirm"], confirm);
        assert_eq!(asked["requestedSchema"]["required"], json!(["confirm"]));
        let mut answer = ElicitResult::new(self.0.clone());
        if self.0 == ElicitationAction::Accept {
            answer.content = Some(json!({"confirm": self.1}));
        }
        Ok(answer)
    }
}

/// `remove_note` removes only after a yes (`Progress::confirm_with`, #62): a box left
/// unticked, a decline, a dismissed question and a client that cannot ask are each
/// refused, saying which, and the note stays.
#[tokio::test]
async fn remove_note_asks_first_and_removes_only_after_a_yes() {
    let store = Arc::new(Store::seeded(Duration::ZERO));
    let remove = |id: u64| {
        CallToolRequestParams::new("remove_note")
            .with_arguments(json!({"id": id}).as_object().cloned().unwrap())
    };
    let refusals = [
        (Some(Confirming(ElicitationAction::Accept, false)), "the user declined; nothing was done"),
        (Some(Confirming(ElicitationAction::Decline, true)), "the user declined; nothing was done"),
        (
            Some(Confirming(ElicitationAction::Cancel, true)),
            "the user dismissed the question without answering; nothing was done",
        ),
        (
            None,
            "it needs the user's confirmation, and the user cannot be asked (the client did not \
             declare elicitation (asking the user)); nothing was done",
        ),
    ];
    for (user_answers, says) in refusals {
        let kept = match user_answers {
            Some(handler) => {
                let client = connect(App::for_user(&store, user(1, "Ada")), handler).await;
                let kept = client.call_tool(remove(1)).await.unwrap();
                client.cancel().await.ok();
                kept
            }
            // A client without elicitation (the Inspector CLI, a Python client without an
            // elicitation callback): no one to ask is no yes.
            None => {
                let plain = connect(App::for_user(&store, user(1, "Ada")), ()).await;
                let kept = plain.call_tool(remove(1)).await.unwrap();
                plain.cancel().await.ok();
                kept
            }
        };
        assert_eq!(kept.is_error, Some(true), "{says}");
        let text = kept.content[0].as_text().unwrap().text.clone();
        assert!(text.ends_with(&format!("note 1 was not removed: {says}")), "{text}");
        assert_eq!(store.notes_of(1, 10).await.unwrap().len(), 2, "the note is still there: {says}");
    }
    let confirming =
        connect(App::for_user(&store, user(1, "Ada")), Confirming(ElicitationAction::Accept, true)).await;
    let removed = confirming.call_tool(remove(1)).await.unwrap();
    assert_eq!(removed.is_error, Some(false), "{removed:?}");
    assert_eq!(store.notes_of(1, 10).await.unwrap().len(), 1);
    confirming.cancel().await.ok();
}

#[tokio::test]
async fn prompts_decode_their_arguments_as_tools_do_and_complete_their_enums() {
    use rmcp::model::{ArgumentInfo, CompleteRequestParams, GetPromptRequestParams, Reference};
    let store = Arc::new(Store::seeded(Duration::ZERO));
    let ada = connect(App::for_user(&store, user(1, "Ada")), ()).await;
    let prompts = ada.list_all_prompts().await.unwrap();
    let summarize = prompts.iter().find(|p| p.name == "summarize_notes").expect("listed");
    assert_eq!(summarize.description.as_deref(), Some("Ask the model to summarize your notes."));
    let arguments: Vec<(String, Option<bool>)> =
        summarize.arguments.iter().flatten().map(|a| (a.name.clone(), a.required)).collect();
    assert_eq!(arguments, [("length".to_owned(), Some(true)), ("newest".to_owned(), Some(false))]);
    let get = |arguments: serde_json::Value| {
        GetPromptRequestParams::new("summarize_notes").with_arguments(arguments.as_object().cloned().unwrap())
    };
    // "1" is decoded as the u32 it spells; only the newest note is in the text.
    let got = ada.get_prompt(get(json!({"length": "brief", "newest": "1"}))).await.unwrap();
    let text = serde_json::to_value(&got.messages[0]).unwrap();
    let text = text["content"]["text"].as_str().unwrap().to_owned();
    assert!(text.starts_with("Summarize Ada's notes in one sentence:"), "{text}");
    assert_eq!(text.matches("\n- ").count(), 1, "{text}");
    // A value the parameter's decoder refuses gets the tool's message, naming it.
    for (arguments, named) in [
        (json!({"length": "short"}), ["-32602", r#"length: "short" is not one of "brief", "detailed""#]),
        (json!({"length": "brief", "newest": "many"}), ["-32602", "newest: expected an integer"]),
    ] {
        let error = ada.get_prompt(get(arguments)).await.unwrap_err().to_string();
        assert!(named.iter().all(|n| error.contains(n)), "{error}");
    }
    // An enum argument completes from its variants, with no code.
    let reference = Reference::for_prompt("summarize_notes");
    let done =
        ada.complete(CompleteRequestParams::new(reference, ArgumentInfo::new("length", "d"))).await.unwrap();
    assert_eq!(done.completion.values, ["detailed"]);
    ada.cancel().await.ok();
}
