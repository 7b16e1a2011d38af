//! Tools that talk back (#32), compiled for real: `context_tools::talking` takes
//! `&Progress` in every position and returns `Content` blocks.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolcall_fixtures::Ctx;
use toolcall_fixtures::context_toolset::ALL;
use toolcall_runtime::{Content, Format, LogLevel, Progress, ProgressSink};

/// Everything a tool reported, as lines.
#[derive(Default)]
struct Recorder(Mutex<Vec<String>>);

impl Recorder {
    fn lines(&self) -> Vec<String> {
        self.0.lock().map(|lines| lines.clone()).unwrap_or_default()
    }
}

impl ProgressSink for Recorder {
    fn progress(&self, done: u64, total: Option<u64>, message: &str) {
        if let Ok(mut lines) = self.0.lock() {
            lines.push(format!("{done}/{total:?} {message}"));
        }
    }

    fn log(&self, level: LogLevel, message: &str) {
        if let Ok(mut lines) = self.0.lock() {
            lines.push(format!("{level}: {message}"));
        }
    }
}

fn ada() -> Ctx {
    Ctx { user: "ada".to_owned(), ..Ctx::default() }
}

fn info(name: &str) -> &'static toolcall_runtime::ToolInfo {
    ALL.describe().iter().find(|i| i.name == name).unwrap_or_else(|| panic!("no tool {name}"))
}

#[test]
fn progress_is_in_no_schema_and_content_tools_claim_no_output_schema() {
    let keys = |name: &str| -> Vec<String> {
        let schema = info(name).parameters_value();
        schema["properties"].as_object().map(|p| p.keys().cloned().collect()).unwrap_or_default()
    };
    assert_eq!(keys("export"), ["count"]);
    assert_eq!(keys("pixel"), Vec::<String>::new());
    assert_eq!(keys("count_up"), ["to"]);
    for name in ["export", "pixel"] {
        assert!(info(name).returns_content, "{name}");
        assert_eq!(info(name).output, None, "{name}");
        assert!(ALL.returns_content(name));
    }
    assert!(!info("count_up").returns_content);
    assert!(!ALL.returns_content("count_up") && !ALL.returns_content("nope"));
    for format in Format::ALL {
        assert!(!ALL.emit(format, false).contains("\"progress\""), "{format:?}");
    }
}

#[tokio::test]
async fn an_async_tool_reports_to_the_callers_sink_and_returns_blocks() {
    let recorder = Arc::new(Recorder::default());
    let progress = Progress::new(Arc::clone(&recorder));
    let ctx = ada();
    let args = json!({"count": 3});
    let out = ALL.call_reporting(&ctx, "export", &args, &progress).await;
    let out = out.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        recorder.lines(),
        ["1/Some(3) item 1", "2/Some(3) item 2", "3/Some(3) item 3", "info: exported 3 items"]
    );
    let blocks = Content::blocks(&out).unwrap_or_else(|| panic!("not blocks: {out}"));
    assert_eq!(blocks[0], Content::text("3 items"));
    assert_eq!(
        out[1],
        json!({"type": "resource", "resource": {
            "uri": "items://ada", "mimeType": "text/markdown",
            "text": "# ada\n- item 1\n- item 2\n- item 3\n"
        }})
    );
}

#[tokio::test]
async fn plain_calls_and_sync_runs_report_nowhere() {
    let ctx = ada();
    let out = ALL.call(&ctx, "export", &json!({"count": 2})).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.as_array().map(Vec::len), Some(2));
    let pixel = ALL.run_with(&ctx, "pixel", &json!({})).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(pixel, json!({"type": "image", "data": "iVBORw==", "mimeType": "image/png"}));
    let counted = ALL.call_json(&ctx, "count_up", r#"{"to":2}"#).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(counted, Value::from(2));
}

#[tokio::test]
async fn a_sync_tool_reports_from_text_and_value_paths_alike() {
    let ctx = ada();
    for args in [json!({"to": 2}), json!({"to": 2.0})] {
        let recorder = Arc::new(Recorder::default());
        let progress = Progress::new(Arc::clone(&recorder));
        let out = ALL.call_reporting(&ctx, "count_up", &args, &progress).await;
        assert_eq!(out.ok(), Some(Value::from(2)));
        assert_eq!(recorder.lines(), ["1/None ", "2/None "], "{args}");
    }
    let recorder = Arc::new(Recorder::default());
    let out = ALL.call_reporting(&ctx, "pixel", &json!({}), &Progress::new(Arc::clone(&recorder))).await;
    assert!(out.is_ok());
    assert_eq!(recorder.lines(), ["warning: only one pixel"]);
}
