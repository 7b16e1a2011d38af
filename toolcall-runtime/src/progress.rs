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
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::form::Form;

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

/// What the user answered a question: the values by field name ([`Progress::elicit`]),
/// a typed form ([`Progress::ask`]), or nothing for a page they were sent to
/// ([`Progress::elicit_url`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Answer<T = Map<String, Value>> {
    /// They filled in the form (or agreed to open the page).
    Accept(T),
    /// They said no.
    Decline,
    /// They dismissed the question without choosing.
    Cancel,
}

/// Why a question or a request for the client's model got no answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AskError {
    /// Whoever runs the tool cannot ask: no client, or one without the capability. The
    /// tool goes on without, or fails saying what it needed.
    Unsupported(String),
    /// The request failed on the way: the client answered an error, or went away.
    Failed(String),
}

impl fmt::Display for AskError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AskError::Unsupported(why) => write!(f, "cannot ask: {why}"),
            AskError::Failed(why) => write!(f, "asking failed: {why}"),
        }
    }
}

impl std::error::Error for AskError {}

/// The future of a question to the client ([`ProgressSink::elicit`], [`ProgressSink::sample`]).
pub type AskFuture<T> = Pin<Box<dyn Future<Output = Result<T, AskError>> + Send>>;

/// Where a tool's progress and log messages go, and who answers its questions:
/// implemented by whoever runs the tool (an MCP server, an agent loop, a test). Called
/// from the tool's thread or task, while it runs; keep `progress` and `log` quick (queue
/// the message, do not wait on the network). A sink that cannot ask keeps the default
/// `elicit` and `sample`, which answer [`AskError::Unsupported`].
pub trait ProgressSink: Send + Sync {
    /// `done` units of work out of `total` (when known) are finished; `message` says what
    /// is happening ("" when the tool gave none).
    fn progress(&self, done: u64, total: Option<u64>, message: &str);

    /// A log message at `level`.
    fn log(&self, level: LogLevel, message: &str);

    /// Asks the user `message`, with a form: `schema` is a flat JSON object schema
    /// (string, number, integer, boolean and enum fields, with defaults).
    fn elicit(&self, message: &str, schema: &Value) -> AskFuture<Answer> {
        let _ = (message, schema);
        unsupported("whoever runs this tool cannot ask the user")
    }

    /// Sends the user to `url` (an `https:` page the tool's service serves: a sign-in, a
    /// payment) with `message` saying why; whether they agreed to open it. What they do
    /// there reaches the service, not the tool.
    fn elicit_url(&self, message: &str, url: &str) -> AskFuture<Answer<()>> {
        let _ = (message, url);
        unsupported("whoever runs this tool cannot send the user to a page")
    }

    /// Asks the client's model to answer `prompt` in at most `max_tokens` tokens; its text.
    fn sample(&self, prompt: &str, max_tokens: u32) -> AskFuture<String> {
        let _ = (prompt, max_tokens);
        unsupported("whoever runs this tool has no model to ask")
    }
}

/// An answer that says asking is not possible, and why.
fn unsupported<T: Send + 'static>(why: &str) -> AskFuture<T> {
    let error = AskError::Unsupported(why.to_owned());
    Box::pin(std::future::ready(Err(error)))
}

/// A shared sink reports where it does: keep an `Arc` to read what a tool reported.
impl<S: ProgressSink + ?Sized> ProgressSink for Arc<S> {
    fn progress(&self, done: u64, total: Option<u64>, message: &str) {
        S::progress(self, done, total, message);
    }

    fn log(&self, level: LogLevel, message: &str) {
        S::log(self, level, message);
    }

    fn elicit(&self, message: &str, schema: &Value) -> AskFuture<Answer> {
        S::elicit(self, message, schema)
    }

    fn elicit_url(&self, message: &str, url: &str) -> AskFuture<Answer<()>> {
        S::elicit_url(self, message, url)
    }

    fn sample(&self, prompt: &str, max_tokens: u32) -> AskFuture<String> {
        S::sample(self, prompt, max_tokens)
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

    /// Asks the user `message` mid-call, with a form described by `schema` (a flat JSON
    /// object schema), and waits for the answer: over MCP an `elicitation/create` request
    /// to a client that declared the capability. Without one (no client, a client that
    /// cannot answer, [`Progress::none`]) the answer is [`AskError::Unsupported`] at once,
    /// never a wait.
    pub async fn elicit(&self, message: &str, schema: &Value) -> Result<Answer, AskError> {
        match &self.sink {
            Some(sink) => sink.elicit(message, schema).await,
            None => Err(AskError::Unsupported("this call has no client to ask".to_owned())),
        }
    }

    /// Asks the user to fill in the form `T` (a type named with `Builder::form_type`) and
    /// waits for the answer, decoded: [`Progress::elicit`] with `T`'s schema. Values that
    /// do not fit `T` are [`AskError::Failed`], saying which field and why.
    pub async fn ask<T: Form>(&self, message: &str) -> Result<Answer<T>, AskError> {
        let schema = serde_json::from_str(T::schema()).unwrap_or(Value::Null);
        typed(self.elicit(message, &schema).await?)
    }

    /// [`Progress::ask`] with the form filled in from `defaults`: each of its fields is
    /// the property's `default` (SEP-1034), which the user confirms or changes.
    pub async fn ask_with<T: Form + serde::Serialize>(
        &self,
        message: &str,
        defaults: &T,
    ) -> Result<Answer<T>, AskError> {
        let values = serde_json::to_value(defaults).map_err(|e| AskError::Failed(e.to_string()))?;
        let schema = crate::form::prefilled(T::schema(), &values);
        typed(self.elicit(message, &schema).await?)
    }

    /// Sends the user to `url` (MCP's URL-mode elicitation: a sign-in, a payment, anything
    /// that must not pass through the client) with `message` saying why, and waits for
    /// whether they agreed to open it. Without a client that can, [`AskError::Unsupported`]
    /// at once.
    pub async fn elicit_url(&self, message: &str, url: &str) -> Result<Answer<()>, AskError> {
        match &self.sink {
            Some(sink) => sink.elicit_url(message, url).await,
            None => Err(AskError::Unsupported("this call has no client to ask".to_owned())),
        }
    }

    /// Asks the client's model to answer `prompt` in at most `max_tokens` tokens and
    /// waits for its text: over MCP a `sampling/createMessage` request to a client that
    /// declared the capability; otherwise [`AskError::Unsupported`] at once.
    pub async fn sample(&self, prompt: &str, max_tokens: u32) -> Result<String, AskError> {
        match &self.sink {
            Some(sink) => sink.sample(prompt, max_tokens).await,
            None => Err(AskError::Unsupported("this call has no client to ask".to_owned())),
        }
    }
}

/// A form's answer decoded as `T`.
fn typed<T: Form>(answer: Answer) -> Result<Answer<T>, AskError> {
    Ok(match answer {
        Answer::Accept(values) => {
            let decoded = T::decode(&Value::Object(values))
                .map_err(|why| AskError::Failed(format!("the answer does not fit the form: {why}")))?;
            Answer::Accept(decoded)
        }
        Answer::Decline => Answer::Decline,
        Answer::Cancel => Answer::Cancel,
    })
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
    fn a_sink_that_cannot_ask_answers_unsupported_at_once() {
        let recorder = Arc::new(Recorder::default());
        let progress = Progress::new(Arc::clone(&recorder));
        let poll = |future: std::pin::Pin<&mut dyn Future<Output = Result<Answer, AskError>>>| {
            let waker = std::task::Waker::noop();
            future.poll(&mut std::task::Context::from_waker(waker))
        };
        let schema = serde_json::json!({"type": "object"});
        let mut asked = std::pin::pin!(progress.elicit("Name?", &schema));
        let std::task::Poll::Ready(Err(AskError::Unsupported(why))) = poll(asked.as_mut()) else {
            panic!("not answered at once")
        };
        assert!(why.contains("cannot ask the user"), "{why}");
        let mut none = std::pin::pin!(Progress::none().elicit("Name?", &schema));
        assert!(matches!(poll(none.as_mut()), std::task::Poll::Ready(Err(AskError::Unsupported(_)))));
    }

    /// A sink whose user answers every form with `values`.
    struct Answering(Value);

    impl ProgressSink for Answering {
        fn progress(&self, _: u64, _: Option<u64>, _: &str) {}
        fn log(&self, _: LogLevel, _: &str) {}
        fn elicit(&self, _: &str, schema: &Value) -> AskFuture<Answer> {
            // The form arrives with its defaults; the user keeps them and adds `values`.
            let mut answer = Map::new();
            for (name, property) in schema["properties"].as_object().into_iter().flatten() {
                if let Some(default) = property.get("default") {
                    answer.insert(name.clone(), default.clone());
                }
            }
            answer.extend(self.0.as_object().cloned().unwrap_or_default());
            Box::pin(std::future::ready(Ok(Answer::Accept(answer))))
        }
    }

    #[derive(Debug, PartialEq, serde::Serialize)]
    struct Age {
        name: String,
        age: u8,
    }

    impl Form for Age {
        fn schema() -> &'static str {
            r#"{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}},"required":["name","age"]}"#
        }
        fn decode(values: &Value) -> Result<Self, String> {
            let name = values["name"].as_str().ok_or("name: expected a string")?.to_owned();
            let age =
                values["age"].as_u64().and_then(|a| u8::try_from(a).ok()).ok_or("age: expected 0 to 255")?;
            Ok(Age { name, age })
        }
    }

    fn ready<T>(future: impl Future<Output = T>) -> T {
        let mut future = std::pin::pin!(future);
        match future.as_mut().poll(&mut std::task::Context::from_waker(std::task::Waker::noop())) {
            std::task::Poll::Ready(value) => value,
            std::task::Poll::Pending => panic!("not ready"),
        }
    }

    #[test]
    fn a_typed_form_is_decoded_and_prefilled_from_its_defaults() {
        let progress = Progress::new(Answering(serde_json::json!({"age": 36})));
        let defaults = Age { name: "Ada".to_owned(), age: 0 };
        let answer = ready(progress.ask_with("Who?", &defaults));
        assert_eq!(answer, Ok(Answer::Accept(Age { name: "Ada".to_owned(), age: 36 })));
        let wrong = Progress::new(Answering(serde_json::json!({"name": "Ada", "age": 300})));
        let Err(AskError::Failed(why)) = ready(wrong.ask::<Age>("Who?")) else { panic!("accepted") };
        assert!(why.contains("does not fit the form: age: expected 0 to 255"), "{why}");
        let Err(AskError::Unsupported(_)) = ready(Progress::none().elicit_url("Sign in", "https://x")) else {
            panic!("asked nobody")
        };
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
