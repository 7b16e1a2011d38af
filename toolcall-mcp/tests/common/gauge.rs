//! A toolset written out by hand the way toolcall-build generates one, whose tools
//! measure the server: `work` holds a slot for `ms` milliseconds while counting the calls
//! running at once (and their peak), `whoami` answers the context's user.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
// What generated code uses (`__private`): this file stands in for a generated one.
use toolcall_runtime::__private::Dispatched;
use toolcall_runtime::{Emitted, ToolError, ToolInfo, Toolset};

/// The context: who is calling, and counters shared by every context of one test.
pub struct Gauge {
    /// The signed-in user.
    pub user: String,
    /// Shared by the contexts a request function builds.
    pub stats: Arc<Stats>,
}

/// What the tools saw.
#[derive(Debug, Default)]
pub struct Stats {
    /// `work` calls running now.
    pub live: AtomicUsize,
    /// The most `work` calls ever running at once.
    pub peak: AtomicUsize,
    /// Calls of any tool that ran.
    pub calls: AtomicUsize,
}

impl Gauge {
    /// `user`'s context over `stats`.
    pub fn new(user: &str, stats: &Arc<Stats>) -> Self {
        Gauge { user: user.to_owned(), stats: Arc::clone(stats) }
    }
}

const WORK: &str =
    r#"{"type":"object","properties":{"ms":{"type":"integer","minimum":0}},"required":["ms"]}"#;
const WHOAMI: &str = r#"{"type":"object","properties":{}}"#;

static INFO: [ToolInfo; 2] = [
    ToolInfo {
        module: "gauge",
        name: "work",
        description: "Hold a slot for `ms` milliseconds; answer the caller.",
        parameters: WORK,
        strict_parameters: WORK,
        anthropic_strict_parameters: WORK,
        gemini_parameters: WORK,
        ..ToolInfo::EMPTY
    },
    ToolInfo {
        module: "gauge",
        name: "whoami",
        description: "The signed-in user.",
        parameters: WHOAMI,
        strict_parameters: WHOAMI,
        anthropic_strict_parameters: WHOAMI,
        gemini_parameters: "",
        ..ToolInfo::EMPTY
    },
];

static EMITTED: Emitted = Emitted::new();

/// `work` and `whoami` over a [`Gauge`].
pub static GAUGE: Toolset<Gauge> = Toolset::new(&INFO, &EMITTED, dispatch);

fn dispatch<'a>(ctx: &'a Gauge, name: &'a str, args: &'a Value) -> Option<Dispatched<'a>> {
    match name {
        "work" => {
            let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(0);
            Some(Dispatched::Async(Box::pin(work(ctx, ms))))
        }
        "whoami" => {
            ctx.stats.calls.fetch_add(1, Ordering::SeqCst);
            Some(Dispatched::Ready(Ok(json!(ctx.user))))
        }
        _ => None,
    }
}

async fn work(ctx: &Gauge, ms: u64) -> Result<Value, ToolError> {
    let stats = &ctx.stats;
    stats.calls.fetch_add(1, Ordering::SeqCst);
    let _live = Live::enter(stats);
    tokio::time::sleep(Duration::from_millis(ms)).await;
    Ok(json!(ctx.user))
}

/// Counts one running `work` call until dropped (finished or cancelled).
struct Live<'a>(&'a Stats);

impl<'a> Live<'a> {
    fn enter(stats: &'a Stats) -> Self {
        let now = stats.live.fetch_add(1, Ordering::SeqCst) + 1;
        stats.peak.fetch_max(now, Ordering::SeqCst);
        Live(stats)
    }
}

impl Drop for Live<'_> {
    fn drop(&mut self) {
        self.0.live.fetch_sub(1, Ordering::SeqCst);
    }
}
