//! A tool asks mid-call (#44 item 3), through rmcp's client in process: a client that
//! declared elicitation and sampling answers, and the tool gets the typed answer (accept
//! with its values, decline, cancel); a client that declared neither makes the call end at
//! once in an `isError` result saying what it lacks, never a hang.
#![allow(clippy::unwrap_used, clippy::expect_used, deprecated)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, ElicitationAction, ErrorData, Role, SamplingMessage,
};
use rmcp::service::{RequestContext, RoleClient};
use rmcp::{ClientHandler, ServiceExt};
use serde_json::{Value, json};

/// A client that answers every question with `action` (and fixed values when it accepts)
/// and every sampling request with a fixed text, recording what it was asked.
#[derive(Clone)]
struct Answering {
    action: ElicitationAction,
    asked: Arc<Mutex<Vec<Value>>>,
}

impl ClientHandler for Answering {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = Some(Default::default());
        capabilities.sampling = Some(Default::default());
        let mut config = ClientConfig::default();
        config.capabilities = capabilities;
        config
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.asked.lock().unwrap().push(serde_json::to_value(&request).unwrap());
        let mut result = ElicitResult::new(self.action.clone());
        if self.action == ElicitationAction::Accept {
            result.content = Some(json!({"username": "ada", "email": "ada@example.com"}));
        }
        Ok(result)
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.asked.lock().unwrap().push(serde_json::to_value(&params).unwrap());
        Ok(CreateMessageResult::new(SamplingMessage::assistant_text("forty-two"), "test-model".to_owned()))
    }
}

async fn call(
    client: &rmcp::service::RunningService<RoleClient, impl ClientHandler>,
    name: &str,
    args: Value,
) -> (bool, String) {
    let params =
        CallToolRequestParams::new(name.to_owned()).with_arguments(args.as_object().cloned().unwrap());
    let result = tokio::time::timeout(Duration::from_secs(10), client.call_tool(params))
        .await
        .expect("answered, not hung")
        .expect("a result");
    let text = result.content[0].as_text().map(|t| t.text.clone()).unwrap_or_default();
    (result.is_error == Some(true), text)
}

async fn connect<H: ClientHandler>(handler: H) -> rmcp::service::RunningService<RoleClient, H> {
    let (server_side, client_side) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = mcp_conformance::server().serve(server_side).await {
            let _ = running.waiting().await;
        }
    });
    handler.serve(client_side).await.expect("initializes")
}

#[tokio::test]
async fn a_client_that_can_answer_gets_asked_and_the_tool_reads_its_answer() {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let client = connect(Answering { action: ElicitationAction::Accept, asked: Arc::clone(&asked) }).await;
    let (error, text) = call(&client, "test_elicitation", json!({"message": "Who are you?"})).await;
    assert!(!error, "{text}");
    assert_eq!(text, r#"User response: action=accept, content={"username":"ada","email":"ada@example.com"}"#);
    let question = asked.lock().unwrap()[0].clone();
    assert_eq!(
        (question["mode"].as_str(), question["message"].as_str()),
        (Some("form"), Some("Who are you?"))
    );
    assert_eq!(question["requestedSchema"]["required"], json!(["username", "email"]));

    let (error, text) = call(&client, "test_sampling", json!({"prompt": "6 times 7?"})).await;
    assert_eq!((error, text.as_str()), (false, "LLM response: forty-two"));
    let sampling = asked.lock().unwrap()[1].clone();
    assert_eq!(sampling["messages"][0]["content"]["text"], "6 times 7?");
    assert_eq!(sampling["maxTokens"], 100);
    client.cancel().await.ok();

    for (action, said) in
        [(ElicitationAction::Decline, "action=decline"), (ElicitationAction::Cancel, "action=cancel")]
    {
        let client = connect(Answering { action, asked: Arc::default() }).await;
        let (error, text) = call(&client, "test_elicitation_sep1034_defaults", json!({})).await;
        assert_eq!((error, text), (false, format!("Elicitation completed: {said}")));
        client.cancel().await.ok();
    }
}

#[tokio::test]
async fn a_client_without_the_capability_gets_an_error_result_at_once() {
    let client = connect(()).await;
    let (error, text) = call(&client, "test_elicitation", json!({"message": "Who are you?"})).await;
    assert!(error, "{text}");
    assert!(text.contains("the client did not declare elicitation"), "{text}");
    let (error, text) = call(&client, "test_sampling", json!({"prompt": "hi"})).await;
    assert!(error && text.contains("the client did not declare sampling"), "{text}");
    let _ = Role::User;
    client.cancel().await.ok();
}
