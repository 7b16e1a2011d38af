//! Notes of the signed-in user: async tools doing their I/O on the database pool held in
//! the context. Every query is scoped to the context's user, so no argument can read or
//! write another user's notes. Their result types ([`User`], [`Note`]) live in
//! [`crate::models`]; the build finds them there and describes them (MCP `outputSchema`).

use toolcall_runtime::{Content, LogLevel, Progress, ToolMeta};

use crate::App;
use crate::app::{StoreError, Written};
use crate::models::{Confirm, Note, User, export_uri, markdown};

/// What these tools are, for clients and models: a confirmation-worthy destructive tool
/// under its wire name, read-only hints, a tool-specific time limit and examples, a tool
/// that runs as a task for clients that declared the Tasks extension (`export_notes`: the
/// call is answered at once with the task, whose progress and result the client polls);
/// and, for the OAuth resource server of `serve --auth-issuer` only (never sent to a
/// client), the scope the tools that write need beside `notes:read`.
pub(crate) const TOOLS: &[ToolMeta] = &[
    ToolMeta::new("delete_note")
        .name("remove_note")
        .title("Remove a note")
        .destructive()
        .idempotent()
        .closed_world()
        .timeout_ms(2_000)
        .scopes(&["notes:write"])
        .example(r#"{"id": 2}"#),
    ToolMeta::new("add_note").scopes(&["notes:write"]),
    ToolMeta::new("list_notes")
        .title("List my notes")
        .read_only()
        .closed_world()
        .example("{}")
        .example(r#"{"limit": 3}"#),
    ToolMeta::new("whoami")
        .title("Who am I")
        .read_only()
        .closed_world()
        .icon(
            "data:image/svg+xml;base64,PHN2ZyB4bWxucz0naHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmcnLz4=",
            "image/svg+xml",
        )
        .meta("rs.toolcall.example/audience", r#""signed-in users""#),
    ToolMeta::new("export_notes").title("Export my notes").read_only().closed_world().task(),
];

/// Who the assistant is acting for.
pub fn whoami(app: &App) -> User {
    app.user.clone()
}

/// List the signed-in user's notes, newest first.
///
/// # Arguments
///
/// * `limit` - at most this many notes
///
/// # Errors
///
/// When the notes database does not answer.
pub async fn list_notes(app: &App, limit: Option<u32>) -> Result<Vec<Note>, String> {
    let limit = limit.unwrap_or(10);
    app.store.notes_of(app.user.id, limit).await.map_err(told)
}

/// Save a note for the signed-in user.
///
/// # Arguments
///
/// * `text` - the note, 1 to 500 characters
///
/// # Errors
///
/// When the text is empty or too long, or the notes database does not answer.
pub async fn add_note(app: &App, text: String) -> Result<Note, String> {
    let length = text.chars().count();
    if !(1..=500).contains(&length) {
        return Err(format!("a note has 1 to 500 characters, got {length}"));
    }
    // A request retried with its idempotency key writes once: the retry gets the note
    // the first attempt wrote, even when that attempt's answer was lost.
    let key = app.idempotency_key.as_ref().map_err(|invalid| format!("{invalid}; nothing was written"))?;
    match app.store.insert_once(app.user.id, &text, key.as_deref()).await.map_err(told)? {
        Written::New(note) => Ok(note),
        Written::Found(note) if note.text == text => Ok(note),
        Written::Found(note) => Err(format!(
            "the Idempotency-Key of this request was used for another note (id {}); nothing was written: send a new key for a new note",
            note.id
        )),
    }
}

/// Delete one of the signed-in user's notes for good, once the user confirms. Over MCP, a
/// client that can ask the user asks them; one that cannot gets a refusal, and nothing is
/// deleted.
///
/// # Arguments
///
/// * `id` - the note's id, as `list_notes` shows it
///
/// # Errors
///
/// When the signed-in user has no note with that id, the user did not confirm (or could
/// not be asked), or the notes database does not answer.
pub async fn delete_note(app: &App, id: u64, progress: &Progress) -> Result<Note, String> {
    // A typed form (`Builder::form_type` in build.rs), shown with "no" filled in. Only a
    // yes goes on: a no, a dismissed question, a client that cannot ask (no elicitation)
    // and a failed question are each refused with a text the model reads. A caller that
    // approved this call before it ran (the agent's approval) is not asked again.
    let question = format!("Remove note {id} for good?");
    progress
        .confirm_with(&question, &Confirm { confirm: false }, |answer| answer.confirm)
        .await
        .required()
        .map_err(|refused| format!("note {id} was not removed: {refused}"))?;
    match app.store.remove(app.user.id, id).await {
        Ok(Some(note)) => Ok(note),
        Ok(None) => Err(format!("you have no note {id}")),
        Err(error) => Err(told(error)),
    }
}

/// Export all of the signed-in user's notes as one Markdown document, oldest first, to
/// save or share. To read or search notes, use `list_notes` instead.
///
/// # Errors
///
/// When the notes database does not answer.
pub async fn export_notes(app: &App, progress: &Progress) -> Result<Content, String> {
    progress.log(LogLevel::Info, format!("exporting the notes of user {}", app.user.id));
    let mut notes = app.store.notes_of(app.user.id, u32::MAX).await.map_err(told)?;
    notes.sort_by_key(|note| note.id);
    let total = notes.len() as u64;
    for (done, note) in (1..).zip(&notes) {
        progress.report(done, Some(total), format!("note {}", note.id));
    }
    progress.log(LogLevel::Info, format!("exported {total} notes"));
    let markdown = markdown(&app.user.name, &notes);
    Ok(Content::resource_text(export_uri(app.user.id), "text/markdown", markdown))
}

/// What the model is told when a query fails: what could not be done, without the
/// database's own message (SQL, paths, hosts), which goes to the operator on stderr.
fn told(error: StoreError) -> String {
    // A query refused during a known outage has no cause: the outage is logged once.
    if let Some(cause) = error.cause() {
        eprintln!("example-app: {error}: {cause}");
    }
    error.to_string()
}
