//! The operator's log: one line on stderr for each warning of toolcall-mcp, rmcp or the
//! app (the `log` records at `warn` and above, whatever their target) and each life event
//! of the server (target [`LIFECYCLE_TARGET`] at `info`: its drain, its session store) and
//! of the database ([`DATABASE_TARGET`]: an outage's end), human-readable by
//! default (`WARN toolcall_mcp::lifecycle: drained ...`), one JSON object per line with
//! `--log-json` (`{"level":"WARN","target":..,"message":..}`). Installed once in `main`
//! ([`install`]); `tracing` warnings (rmcp's) reach it through [`TracingWarnings`], a
//! layer of [`crate::telemetry`]'s subscriber, whose request log is beside it.

use std::io::Write as _;

use toolcall_mcp::telemetry::LIFECYCLE_TARGET;

use crate::outage::DATABASE_TARGET;

/// How lines are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogFormat {
    /// `LEVEL target: message`.
    Text,
    /// `{"level":..,"target":..,"message":..}`.
    Json,
}

impl LogFormat {
    /// The format the command line asks for: JSON when it holds `--log-json`.
    pub fn from_args<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> LogFormat {
        if args.iter().any(|arg| arg.as_ref() == "--log-json") { LogFormat::Json } else { LogFormat::Text }
    }
}

/// One line of the log (ending in a newline): `level` and `target` of a record, and its
/// `message`, which cannot break the line (a newline in it is escaped).
pub fn line(format: LogFormat, level: log::Level, target: &str, message: &str) -> String {
    match format {
        LogFormat::Text => {
            let message = message.replace('\n', "\\n");
            format!("{level} {target}: {message}\n")
        }
        LogFormat::Json => {
            let object = serde_json::json!({"level": level.as_str(), "target": target, "message": message});
            format!("{object}\n")
        }
    }
}

/// Whether a record of `level` on `target` is written: warnings and worse from anyone,
/// and the server's life events and the database's outages and recoveries.
fn kept(level: log::Level, target: &str) -> bool {
    level <= log::Level::Warn
        || (level <= log::Level::Info && (target == LIFECYCLE_TARGET || target == DATABASE_TARGET))
}

/// The `log` logger writing the operator's log.
struct OpLog {
    format: LogFormat,
}

impl log::Log for OpLog {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        kept(metadata.level(), metadata.target())
    }

    fn log(&self, record: &log::Record<'_>) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let text = line(self.format, record.level(), record.target(), &record.args().to_string());
        // One write of the whole line: lines written at once do not interleave.
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
    }

    fn flush(&self) {
        let _ = std::io::stderr().flush();
    }
}

/// The format [`install`] was given, for the `tracing` warnings ([`TracingWarnings`]).
static FORMAT: std::sync::OnceLock<LogFormat> = std::sync::OnceLock::new();

/// Installs the operator's log as the process's `log` logger; `false` when one was
/// installed already.
pub fn install(format: LogFormat) -> bool {
    let _ = FORMAT.set(format);
    let installed = log::set_boxed_logger(Box::new(OpLog { format })).is_ok();
    if installed {
        log::set_max_level(log::LevelFilter::Info);
    }
    installed
}

/// The `tracing` half of the operator's log, a layer of [`crate::telemetry`]'s subscriber:
/// each `tracing` event at `warn` or `error` (rmcp's own warnings are `tracing` events, not
/// `log` records) is one line, in the format [`install`] was given, its fields after the
/// message as `key=value`.
#[derive(Clone, Copy, Debug, Default)]
pub struct TracingWarnings;

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for TracingWarnings {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: tracing_subscriber::layer::Context<'_, S>) {
        let format = FORMAT.get().copied().unwrap_or(LogFormat::Text);
        if let Some(text) = warning_line(format, event) {
            let _ = std::io::stderr().lock().write_all(text.as_bytes());
        }
    }
}

/// The operator's log line of a `tracing` event at `warn` or `error`; `None` for any
/// other level.
fn warning_line(format: LogFormat, event: &tracing::Event<'_>) -> Option<String> {
    let metadata = event.metadata();
    let level = match *metadata.level() {
        tracing::Level::ERROR => log::Level::Error,
        tracing::Level::WARN => log::Level::Warn,
        _ => return None,
    };
    let mut message = Message::default();
    event.record(&mut message);
    Some(line(format, level, metadata.target(), &message.text()))
}

/// An event's message and its other fields.
#[derive(Default)]
struct Message {
    message: String,
    fields: String,
}

impl Message {
    /// The message, then ` key=value` for each other field.
    fn text(self) -> String {
        self.message + &self.fields
    }
}

impl tracing::field::Visit for Message {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.message = format!("{value:?}");
        } else {
            self.fields.push_str(&format!(" {}={value:?}", field.name()));
        }
    }

    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        if field.name() == "message" {
            value.clone_into(&mut self.message);
        } else {
            self.fields.push_str(&format!(" {}={value:?}", field.name()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_one_each_in_either_format() {
        let text = line(LogFormat::Text, log::Level::Warn, "toolcall_mcp::x", "two\nlines");
        assert_eq!(text, "WARN toolcall_mcp::x: two\\nlines\n");
        let json = line(LogFormat::Json, log::Level::Info, LIFECYCLE_TARGET, "drained \"now\"");
        let read: serde_json::Value = serde_json::from_str(json.trim_end()).unwrap_or_default();
        assert_eq!(
            read,
            serde_json::json!({"level": "INFO", "target": LIFECYCLE_TARGET, "message": "drained \"now\""})
        );
        assert_eq!(json.matches('\n').count(), 1);
    }

    #[test]
    fn warnings_and_life_events_are_kept_and_the_rest_is_not() {
        assert!(kept(log::Level::Warn, "toolcall_mcp::streamable_http"));
        assert!(kept(log::Level::Error, "rmcp::service"));
        assert!(kept(log::Level::Info, LIFECYCLE_TARGET));
        assert!(kept(log::Level::Info, DATABASE_TARGET));
        assert!(
            !kept(log::Level::Info, "toolcall_mcp::oauth::guard"),
            "per-request refusals are the request log's"
        );
        assert!(!kept(log::Level::Debug, LIFECYCLE_TARGET));
        assert_eq!(LogFormat::from_args(&["serve", "--log-json"]), LogFormat::Json);
        assert_eq!(LogFormat::from_args(&["serve"]), LogFormat::Text);
    }

    #[test]
    fn a_tracing_warning_is_one_line_its_message_first_and_lower_levels_none() {
        use tracing_subscriber::layer::SubscriberExt as _;
        /// Keeps the line the operator's log writes for each event (`-` for none).
        struct Kept(std::sync::Arc<std::sync::Mutex<Vec<String>>>);
        impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Kept {
            fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
                let line = warning_line(LogFormat::Text, event).unwrap_or_else(|| "-".to_owned());
                self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(line);
            }
        }
        let kept = std::sync::Arc::default();
        let subscriber = tracing_subscriber::registry().with(Kept(std::sync::Arc::clone(&kept)));
        tracing::subscriber::with_default(subscriber, || {
            tracing::warn!(target: "rmcp::transport", session = "abc", tries = 3, "session not found");
            tracing::error!(target: "rmcp::service", "two\nlines");
            tracing::info!(target: "rmcp::service", "not a warning");
        });
        let kept = kept.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
        assert_eq!(
            kept,
            [
                "WARN rmcp::transport: session not found session=\"abc\" tries=3\n",
                "ERROR rmcp::service: two\\nlines\n",
                "-"
            ]
        );
    }
}
