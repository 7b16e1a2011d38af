//! Tools that talk back (#32), in the app: `export_notes` reports progress per note and
//! logs while it runs, and returns the signed-in user's notes (only theirs) as one
//! embedded `text/markdown` resource.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use example_app::app::Store;
use example_app::models::{Role, User};
use example_app::{App, toolset};
use serde_json::json;
use toolcall_runtime::{Content, LogLevel, Progress, ProgressSink, ResourceBody, ToolError};

/// What a tool reported, in order.
#[derive(Default)]
struct Recorder(Mutex<Vec<String>>);

impl ProgressSink for Recorder {
    fn progress(&self, done: u64, total: Option<u64>, message: &str) {
        self.0.lock().unwrap().push(format!("progress {done}/{total:?} {message}"));
    }

    fn log(&self, level: LogLevel, message: &str) {
        self.0.lock().unwrap().push(format!("{level}: {message}"));
    }
}

/// Calls `export_notes` as `app`, recording what it reports: its blocks and the reports.
async fn export(app: &App) -> (Vec<Content>, Vec<String>) {
    let recorder = Arc::new(Recorder::default());
    let progress = Progress::shared(recorder.clone());
    let out = toolset::ALL.call_json_reporting(app, "export_notes", "{}", &progress).await.unwrap();
    let blocks = Content::blocks(&out).expect("content blocks");
    let reports = recorder.0.lock().unwrap().clone();
    (blocks, reports)
}

#[tokio::test]
async fn export_notes_reports_each_note_and_returns_only_the_users_notes_as_markdown() {
    let store = Arc::new(Store::seeded(Duration::ZERO));
    let grace = App::for_user(&store, User { id: 2, name: "Grace".into(), role: Role::Viewer });
    let added = toolset::ALL.call(&grace, "add_note", &json!({"text": "second thought"})).await.unwrap();
    let id = added["id"].as_u64().unwrap();

    let (blocks, reports) = export(&grace).await;
    let markdown = format!(
        "# Grace's notes\n\n## Note 3\n\nGrace's private note: the launch codes are 0000\n\n## Note {id}\n\nsecond thought\n"
    );
    assert_eq!(blocks, [Content::resource_text("notes://user/2/export.md", "text/markdown", markdown)]);
    assert_eq!(
        reports,
        [
            "info: exporting the notes of user 2".to_owned(),
            "progress 1/Some(2) note 3".to_owned(),
            format!("progress 2/Some(2) note {id}"),
            "info: exported 2 notes".to_owned(),
        ]
    );

    let (blocks, reports) = export(&App::for_user(&store, User::ada())).await;
    let [Content::Resource { uri, body: ResourceBody::Text(text), .. }] = &blocks[..] else {
        panic!("{blocks:?}")
    };
    assert_eq!(uri, "notes://user/1/export.md");
    assert!(text.contains("buy oat milk") && !text.contains("launch codes") && !text.contains("second"));
    assert_eq!(reports.iter().filter(|r| r.starts_with("progress")).count(), 2, "{reports:?}");

    let nobody = App::for_user(&store, User { id: 9, name: "Nobody".into(), role: Role::Editor });
    let (blocks, reports) = export(&nobody).await;
    let empty = Content::resource_text(
        "notes://user/9/export.md",
        "text/markdown",
        "# Nobody's notes\n\nNo notes yet.\n",
    );
    assert_eq!(blocks, [empty]);
    assert_eq!(reports, ["info: exporting the notes of user 9", "info: exported 0 notes"]);
}

#[tokio::test]
async fn a_failed_export_is_a_tool_error_without_internals() {
    let store = Arc::new(Store::seeded(Duration::ZERO));
    let app = App::for_user(&store, User::ada());
    assert_eq!(export(&app).await.0.len(), 1, "the database is open");
    store.close().await;
    let recorder = Arc::new(Recorder::default());
    let progress = Progress::shared(recorder.clone());
    let failed = toolset::ALL.call_json_reporting(&app, "export_notes", "{}", &progress).await;
    let message = "could not list your notes: the notes database did not answer; try again later";
    assert_eq!(failed, Err(ToolError::Failed(message.to_owned())));
    assert_eq!(*recorder.0.lock().unwrap(), ["info: exporting the notes of user 1"], "no progress, no done");
}
