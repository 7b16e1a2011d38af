//! [`Progress`]: how a tool talks back while it runs. A tool that takes
//! `&toolcall_runtime::Progress` (in any position, like the context; never in a schema)
//! reports how far it got and logs; whoever called it decides where that goes through a
//! [`ProgressSink`]: an MCP server sends `notifications/progress` and
//! `notifications/message`, an agent loop turns them into events, and the sync entry
//! points and a plain [`Toolset::call`](crate::Toolset::call) pass [`Progress::none`],
//! which drops everything.
//!
//! ```
//! use toolcall_runtime::{LogLevel, Progress};
//!
//! /// Export every note.
//! pub fn export(progress: &Progress, notes: Vec<String>) -> usize {
//!     let total = notes.len() as u64;
//!     for (done, _note) in notes.iter().enumerate() {
//!         progress.report(done as u64 + 1, Some(total), "exported a note");
//!     }
//!     progress.log(LogLevel::Info, format!("exported {total} notes"));
//!     notes.len()
//! }
//! assert_eq!(export(Progress::none(), vec!["a".into()]), 1);
//! ```

use std::fmt;
use std::sync::Arc;

/// A log message's severity: the syslog levels MCP's `notifications/message` uses
/// (RFC 5424), least severe first, so `level >= LogLevel::Warning` reads as expected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// Detailed debugging information.
    Debug,
    /// Normal operation.
    Info,
    /// Normal but significant.
    Notice,
    /// Something to look at.
    Warning,
    /// An operation failed.
    Error,
    /// A component failed.
    Critical,
    /// Action must be taken now.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LogLevel {
    /// Every level, least severe first.
    pub const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    /// The level's name as MCP writes it (`"warning"`).
    pub const fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }

    /// The level MCP calls `name`; `None` for any other text.
    pub fn parse(name: &str) -> Option<LogLevel> {
        LogLevel::ALL.into_iter().find(|level| level.as_str() == name)
    }
}

impl fmt::Display for LogLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for LogLevel {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// Where a tool's progress and log messages go: implemented by whoever runs the tool (an
/// MCP server, an agent loop, a test). Called from the tool's thread or task, while it
/// runs; keep it quick (queue the message, do not wait on the network).
pub trait ProgressSink: Send + Sync {
    /// `done` units of work out of `total` (when known) are finished; `message` says what
    /// is happening ("" when the tool gave none).
    fn progress(&self, done: u64, total: Option<u64>, message: &str);

    /// A log message at `level`.
    fn log(&self, level: LogLevel, message: &str);
}

/// A shared sink reports where it does: keep an `Arc` to read what a tool reported.
impl<S: ProgressSink + ?Sized> ProgressSink for Arc<S> {
    fn progress(&self, done: u64, total: Option<u64>, message: &str) {
        S::progress(self, done, total, message);
    }

    fn log(&self, level: LogLevel, message: &str) {
        S::log(self, level, message);
    }
}

/// A tool's handle for reporting progress and logging to whoever called it. `Send` and
/// `Sync`; a tool takes it as `&Progress`. Reports go to the caller's [`ProgressSink`],
/// or nowhere ([`Progress::none`]).
#[derive(Clone, Default)]
pub struct Progress {
    sink: Option<Arc<dyn ProgressSink>>,
}

static NONE: Progress = Progress { sink: None };

impl Progress {
    /// Reports to `sink`.
    pub fn new(sink: impl ProgressSink + 'static) -> Progress {
        Progress { sink: Some(Arc::new(sink)) }
    }

    /// Reports to a shared `sink`.
    pub fn shared(sink: Arc<dyn ProgressSink>) -> Progress {
        Progress { sink: Some(sink) }
    }

    /// The progress that reports nowhere: what [`Toolset::call`](crate::Toolset::call) and
    /// the sync entry points pass, and what a test calling a tool directly can pass.
    pub fn none() -> &'static Progress {
        &NONE
    }

    /// Whether reports go anywhere: a tool may skip building costly messages when not.
    pub fn is_reporting(&self) -> bool {
        self.sink.is_some()
    }

    /// Reports that `done` units of work out of `total` (when known) are finished, with a
    /// message for a progress bar ("" for none). `done` should grow from one report to
    /// the next (MCP requires it).
    pub fn report(&self, done: u64, total: Option<u64>, message: impl AsRef<str>) {
        if let Some(sink) = &self.sink {
            sink.progress(done, total, message.as_ref());
        }
    }

    /// Logs `message` at `level` to the caller (an MCP client's log, an agent's events).
    pub fn log(&self, level: LogLevel, message: impl AsRef<str>) {
        if let Some(sink) = &self.sink {
            sink.log(level, message.as_ref());
        }
    }
}

impl fmt::Debug for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Progress").field("reporting", &self.is_reporting()).finish()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    #[derive(Default)]
    struct Recorder(Mutex<Vec<String>>);

    impl ProgressSink for Recorder {
        fn progress(&self, done: u64, total: Option<u64>, message: &str) {
            self.0.lock().unwrap_or_else(|e| e.into_inner()).push(format!("{done}/{total:?} {message}"));
        }

        fn log(&self, level: LogLevel, message: &str) {
            self.0.lock().unwrap_or_else(|e| e.into_inner()).push(format!("{level}: {message}"));
        }
    }

    #[test]
    fn reports_reach_the_sink_in_order() {
        let recorder = Arc::new(Recorder::default());
        let progress = Progress::new(Arc::clone(&recorder));
        assert!(progress.is_reporting());
        progress.report(1, Some(2), "one");
        progress.log(LogLevel::Warning, String::from("careful"));
        progress.report(2, None, "");
        let seen = recorder.0.lock().unwrap_or_else(|e| e.into_inner()).clone();
        assert_eq!(seen, ["1/Some(2) one", "warning: careful", "2/None "]);
    }

    #[test]
    fn none_reports_nowhere_and_is_shared() {
        assert!(!Progress::none().is_reporting());
        Progress::none().report(1, None, "dropped");
        assert!(std::ptr::eq(Progress::none(), Progress::none()));
        fn send_sync<T: Send + Sync>() {}
        send_sync::<Progress>();
    }

    #[test]
    fn levels_order_and_parse_as_mcp_names_them() {
        assert!(LogLevel::Warning > LogLevel::Info);
        assert!(LogLevel::Emergency > LogLevel::Alert);
        for level in LogLevel::ALL {
            assert_eq!(LogLevel::parse(level.as_str()), Some(level));
        }
        assert_eq!(LogLevel::parse("warn"), None);
        assert_eq!(serde_json::to_value(LogLevel::Notice).ok(), Some(serde_json::json!("notice")));
    }
}
