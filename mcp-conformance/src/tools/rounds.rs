//! The tools of the suite's input-required scenarios (SEP-2322, 2026-07-28): each asks
//! through its `&Progress` as any tool does, under the key the suite expects
//! (`Progress::keyed`); the server turns the questions into an input-required result and
//! the client's answers, on the retry, into the tool's answers.

use serde_json::{Value, json};
use toolcall_runtime::{Answer, AskError, Progress};

/// A form of one field.
fn form(field: &str, kind: &str) -> Value {
    json!({"type": "object", "properties": {field: {"type": kind}}, "required": [field]})
}

/// The text of an accepted form's `field`, or what the user did instead.
fn field(answer: Result<Answer, AskError>, field: &str) -> Result<String, String> {
    match answer.map_err(|e| e.to_string())? {
        Answer::Accept(values) => Ok(values.get(field).map_or_else(String::new, |v| match v {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        })),
        other => Ok(format!("{other:?}")),
    }
}

/// Asks the user's name (key `user_name`) and greets them.
///
/// # Errors
///
/// When the client cannot ask the user.
pub async fn test_input_required_result_elicitation(progress: &Progress) -> Result<String, String> {
    let name = field(
        progress.keyed("user_name").elicit("What is your name?", &form("name", "string")).await,
        "name",
    )?;
    Ok(format!("Hello, {name}!"))
}

/// Asks the client's model a question (key `capital_question`).
///
/// # Errors
///
/// When the client has no model to ask.
pub async fn test_input_required_result_sampling(progress: &Progress) -> Result<String, String> {
    let answer = progress
        .keyed("capital_question")
        .sample("What is the capital of France?", 100)
        .await
        .map_err(|e| e.to_string())?;
    Ok(format!("The model answered: {answer}"))
}

/// Asks the client for its roots (key `client_roots`).
///
/// # Errors
///
/// When the client has no roots to give.
pub async fn test_input_required_result_list_roots(progress: &Progress) -> Result<String, String> {
    let roots = progress.keyed("client_roots").roots().await.map_err(|e| e.to_string())?;
    let uris: Vec<&str> = roots.iter().map(|root| root.uri.as_str()).collect();
    Ok(format!("The client's roots: {}", uris.join(", ")))
}

/// Asks for a confirmation (key `confirm`); its answer comes back through the sealed
/// `requestState`.
///
/// # Errors
///
/// When the client cannot ask the user.
pub async fn test_input_required_result_request_state(progress: &Progress) -> Result<String, String> {
    let ok = field(progress.keyed("confirm").elicit("Please confirm", &form("ok", "boolean")).await, "ok")?;
    Ok(format!("state-ok: the state held the answer, ok = {ok}"))
}

/// Asks the user, the client's model and the client's roots at once.
///
/// # Errors
///
/// When the client cannot be asked one of them.
pub async fn test_input_required_result_multiple_inputs(progress: &Progress) -> Result<String, String> {
    let (user, model, client) =
        (progress.keyed("user_name"), progress.keyed("greeting"), progress.keyed("client_roots"));
    let name_form = form("name", "string");
    let (name, greeting, roots) = tokio::join!(
        user.elicit("What is your name?", &name_form),
        model.sample("Generate a greeting", 50),
        client.roots(),
    );
    let name = field(name, "name")?;
    let greeting = greeting.map_err(|e| e.to_string())?;
    let roots = roots.map_err(|e| e.to_string())?;
    Ok(format!("{greeting} {name} ({} roots)", roots.len()))
}

/// Asks two questions, one per round (keys `step1`, `step2`).
///
/// # Errors
///
/// When the client cannot ask the user.
pub async fn test_input_required_result_multi_round(progress: &Progress) -> Result<String, String> {
    let name = field(
        progress.keyed("step1").elicit("Step 1: What is your name?", &form("name", "string")).await,
        "name",
    )?;
    let color = field(
        progress
            .keyed("step2")
            .elicit("Step 2: What is your favorite color?", &form("color", "string"))
            .await,
        "color",
    )?;
    Ok(format!("{name} likes {color}"))
}

/// Asks a question whose sealed state the suite then alters.
///
/// # Errors
///
/// When the client cannot ask the user.
pub async fn test_input_required_result_tampered_state(progress: &Progress) -> Result<String, String> {
    let name = field(progress.elicit("What is your name?", &form("name", "string")).await, "name")?;
    Ok(format!("Hello, {name}!"))
}

/// Asks the user when the client can be asked, else the client's model: only what the
/// client declared.
///
/// # Errors
///
/// When the client can be asked neither.
pub async fn test_input_required_result_capabilities(progress: &Progress) -> Result<String, String> {
    match progress.elicit("What is your name?", &form("name", "string")).await {
        Err(AskError::Unsupported(_)) => {
            let answer = progress.sample("Say a name", 20).await.map_err(|e| e.to_string())?;
            Ok(format!("The model said: {answer}"))
        }
        answer => Ok(format!("The user said: {}", field(answer, "name")?)),
    }
}
