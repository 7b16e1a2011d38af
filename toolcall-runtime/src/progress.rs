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
//!
//! A destructive tool asks the user first with [`Progress::confirm`] (or
//! [`Progress::confirm_with`], for a typed form): the [`Confirmation`] tells yes from no,
//! from a dismissed question, from a client that cannot ask, and
//! [`Confirmation::required`] turns anything but yes into the error the model reads, so
//! the destructive part runs only after a yes. No one to ask is not a yes.
//!
//! ```
//! use toolcall_runtime::{Confirmation, Progress};
//!
//! /// Delete a note for good.
//! ///
//! /// # Arguments
//! ///
//! /// * `id` - the note
//! pub async fn delete_note(id: u64, progress: &Progress) -> Result<String, String> {
//!     progress
//!         .confirm(&format!("Delete note {id}?"))
//!         .await
//!         .required()
//!         .map_err(|no| format!("note {id} was not deleted: {no}"))?;
//!     Ok(format!("deleted note {id}")) // only after a yes
//! }
//! # fn run<F: std::future::Future>(f: F) -> Option<F::Output> {
//! #     tokio::runtime::Builder::new_current_thread().build().ok().map(|rt| rt.block_on(f))
//! # }
//! // A call with no client to ask (`Progress::none()`) is refused, and says why.
//! let refused = run(delete_note(3, Progress::none())).and_then(Result::err).unwrap_or_default();
//! assert_eq!(
//!     refused,
//!     "note 3 was not deleted: it needs the user's confirmation, and the user cannot be asked \
//!      (this call has no client to ask); nothing was done"
//! );
//! // A caller that approved the call before it ran (an agent's approval callback).
//! let approved = Progress::none().clone().approved();
//! assert_eq!(run(delete_note(3, &approved)), Some(Ok("deleted note 3".to_owned())));
//! # assert_eq!(Confirmation::CannotAsk("x".into()).is_yes(), false);
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

/// What became of a request for the user's confirmation ([`Progress::confirm`],
/// [`Progress::confirm_with`]) before a destructive step: only [`Confirmation::Yes`]
/// lets it run. A client that cannot ask is [`Confirmation::CannotAsk`], never a yes:
/// [`Confirmation::required`] refuses it with a text the model can read, as it refuses a
/// no. A tool that means to go on without a confirmation when no one can be asked says so
/// in its own `match` arm.
///
/// ```
/// use toolcall_runtime::{Answer, AskError, Confirmation};
///
/// // The answer to a typed form reads as a confirmation: accepted with the box ticked.
/// let ticked = |answer| Confirmation::from_answer(answer, |confirm: &bool| *confirm);
/// assert_eq!(ticked(Ok(Answer::Accept(true))), Confirmation::Yes);
/// assert_eq!(ticked(Ok(Answer::Accept(false))), Confirmation::Declined);
/// assert_eq!(ticked(Ok(Answer::Cancel)), Confirmation::Cancelled);
/// let cannot = ticked(Err(AskError::Unsupported("no elicitation".into())));
/// assert_eq!(cannot, Confirmation::CannotAsk("no elicitation".into()));
/// let refused = cannot.required().map_err(|no| no.to_string());
/// assert_eq!(
///     refused,
///     Err("it needs the user's confirmation, and the user cannot be asked (no elicitation); \
///          nothing was done".to_owned())
/// );
/// ```
#[must_use = "a confirmation does nothing unless its answer is checked (`.required()?`)"]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Confirmation {
    /// The user said yes; or whoever runs the tool approved this very call before it ran
    /// ([`Progress::approved`]: an agent's approval callback), and no one was asked again.
    Yes,
    /// The user said no: declined the question, or accepted a form that says no.
    Declined,
    /// The user dismissed the question without answering.
    Cancelled,
    /// No one could be asked, and why: no client ([`Progress::none`]), a client that did
    /// not declare elicitation (an MCP client without an elicitation callback), or a
    /// server built without toolcall-mcp's feature `ask`.
    CannotAsk(String),
    /// Asking failed on the way (the client answered an error or went away, or its answer
    /// did not fit the form), and why.
    Failed(String),
}

impl Confirmation {
    /// `answer` (of [`Progress::ask`], [`Progress::ask_with`], [`Progress::elicit`]) as a
    /// confirmation: an accepted form for which `yes` is true is [`Confirmation::Yes`];
    /// one for which it is false, or a decline, is [`Confirmation::Declined`]; a cancel is
    /// [`Confirmation::Cancelled`]; [`AskError::Unsupported`] is
    /// [`Confirmation::CannotAsk`] and [`AskError::Failed`] is [`Confirmation::Failed`].
    pub fn from_answer<T>(answer: Result<Answer<T>, AskError>, yes: impl FnOnce(&T) -> bool) -> Confirmation {
        match answer {
            Ok(Answer::Accept(form)) if yes(&form) => Confirmation::Yes,
            Ok(Answer::Accept(_) | Answer::Decline) => Confirmation::Declined,
            Ok(Answer::Cancel) => Confirmation::Cancelled,
            Err(AskError::Unsupported(why)) => Confirmation::CannotAsk(why),
            Err(AskError::Failed(why)) => Confirmation::Failed(why),
        }
    }

    /// Whether this is [`Confirmation::Yes`].
    pub fn is_yes(&self) -> bool {
        matches!(self, Confirmation::Yes)
    }

    /// `Ok(())` for [`Confirmation::Yes`]; anything else is [`NotConfirmed`], whose text
    /// tells the model what happened and that nothing was done. With `?` in a tool
    /// returning `Result<_, String>`, the refusal is the tool's error.
    pub fn required(self) -> Result<(), NotConfirmed> {
        match self {
            Confirmation::Yes => Ok(()),
            other => Err(NotConfirmed(other)),
        }
    }
}

/// A [`Confirmation`] other than yes, as an error: its `Display` is the text the model
/// reads (`the user declined; nothing was done`). Converts into a `String` and a
/// [`ToolError::Failed`](crate::ToolError::Failed), so `?` returns it from a tool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotConfirmed(Confirmation);

impl NotConfirmed {
    /// What the confirmation was: [`Confirmation::Declined`], [`Confirmation::Cancelled`],
    /// [`Confirmation::CannotAsk`] or [`Confirmation::Failed`].
    pub fn confirmation(&self) -> &Confirmation {
        &self.0
    }
}

impl fmt::Display for NotConfirmed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Confirmation::Declined => f.write_str("the user declined; nothing was done"),
            Confirmation::Cancelled => {
                f.write_str("the user dismissed the question without answering; nothing was done")
            }
            Confirmation::CannotAsk(why) => write!(
                f,
                "it needs the user's confirmation, and the user cannot be asked ({why}); nothing was done"
            ),
            Confirmation::Failed(why) => {
                write!(f, "asking the user to confirm failed ({why}); nothing was done")
            }
            // Never built from a yes (`required` gives `Ok`); said plainly all the same.
            Confirmation::Yes => f.write_str("the user confirmed"),
        }
    }
}

impl std::error::Error for NotConfirmed {}

impl From<NotConfirmed> for String {
    fn from(refused: NotConfirmed) -> String {
        refused.to_string()
    }
}

impl From<NotConfirmed> for crate::ToolError {
    fn from(refused: NotConfirmed) -> crate::ToolError {
        crate::ToolError::Failed(refused.to_string())
    }
}

/// The form of a plain yes/no question ([`Progress::confirm`]): no field, so accepting it
/// is the yes (what MCP clients show as a message with accept and decline, and FastMCP
/// asks for `response_type=None`).
const YES_NO: &str = r#"{"type":"object","properties":{}}"#;

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

    /// The next question asked (on this thread, at once) carries `key` where the
    /// protocol names questions ([`Progress::keyed`]); a sink that names none ignores it.
    fn name_next(&self, key: &str) {
        let _ = key;
    }

    /// Asks the client for its roots (the directories or files it lets the server see).
    fn roots(&self) -> AskFuture<Vec<Root>> {
        unsupported("whoever runs this tool has no roots to give")
    }

    /// The tool may go on without its caller waiting ([`Progress::detach`]): a server
    /// running it for a client that takes tasks answers the request with a task handle
    /// now and lets the call go on as that task. Resolves once that is done; at once where
    /// nothing changes (the default).
    fn detach(&self) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        Box::pin(std::future::ready(()))
    }
}

/// One root a client gives ([`Progress::roots`]): a directory or file it lets the server
/// see.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Root {
    /// Its URI (`file:///home/me/project`).
    pub uri: String,
    /// A name to show for it, when the client gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
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

    fn detach(&self) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        S::detach(self)
    }

    fn name_next(&self, key: &str) {
        S::name_next(self, key);
    }

    fn roots(&self) -> AskFuture<Vec<Root>> {
        S::roots(self)
    }
}

/// A tool's handle for reporting progress and logging to whoever called it. `Send` and
/// `Sync`; a tool takes it as `&Progress`. Reports go to the caller's [`ProgressSink`],
/// or nowhere ([`Progress::none`]).
#[derive(Clone, Default)]
pub struct Progress {
    sink: Option<Arc<dyn ProgressSink>>,
    /// Whoever runs the tool approved this call before it ran ([`Progress::approved`]).
    approved: bool,
    /// The key the questions asked through this handle carry ([`Progress::keyed`]).
    key: Option<Arc<str>>,
}

static NONE: Progress = Progress { sink: None, approved: false, key: None };

impl Progress {
    /// Reports to `sink`.
    pub fn new(sink: impl ProgressSink + 'static) -> Progress {
        Progress { sink: Some(Arc::new(sink)), approved: false, key: None }
    }

    /// Reports to a shared `sink`.
    pub fn shared(sink: Arc<dyn ProgressSink>) -> Progress {
        Progress { sink: Some(sink), approved: false, key: None }
    }

    /// This progress, for a call that whoever runs the tool approved before it ran: a
    /// person answered yes to this very call (an agent loop's approval callback, a
    /// person who typed the call). [`Progress::confirm`] and [`Progress::confirm_with`]
    /// then answer [`Confirmation::Yes`] without asking again. Only the caller sets it;
    /// an MCP server never does (a client's own approval is not known to it).
    pub fn approved(mut self) -> Progress {
        self.approved = true;
        self
    }

    /// Whether the call was approved before it ran ([`Progress::approved`]).
    pub fn is_approved(&self) -> bool {
        self.approved
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
            Some(sink) => self.named(sink).elicit(message, schema).await,
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
            Some(sink) => self.named(sink).elicit_url(message, url).await,
            None => Err(AskError::Unsupported("this call has no client to ask".to_owned())),
        }
    }

    /// Asks the client's model to answer `prompt` in at most `max_tokens` tokens and
    /// waits for its text: over MCP a `sampling/createMessage` request to a client that
    /// declared the capability; otherwise [`AskError::Unsupported`] at once.
    pub async fn sample(&self, prompt: &str, max_tokens: u32) -> Result<String, AskError> {
        match &self.sink {
            Some(sink) => self.named(sink).sample(prompt, max_tokens).await,
            None => Err(AskError::Unsupported("this call has no client to ask".to_owned())),
        }
    }

    /// Asks the client for its roots (MCP `roots/list`: the directories or files it lets
    /// the server see) and waits for them; a client that did not declare the `roots`
    /// capability, or whoever runs the tool without a client, is [`AskError::Unsupported`]
    /// at once.
    pub async fn roots(&self) -> Result<Vec<Root>, AskError> {
        match &self.sink {
            Some(sink) => self.named(sink).roots().await,
            None => Err(AskError::Unsupported("this call has no client to ask".to_owned())),
        }
    }

    /// The same handle, whose questions carry `key` where the protocol names them (the
    /// keys of a 2026-07-28 input-required result, of a task's input requests), instead of
    /// the ones the server picks (`q0`, `q1`, ..). For a client that expects a question
    /// under a name; questions asked at once through handles keyed alike are refused by
    /// the server (keys are unique per round).
    ///
    /// ```
    /// use toolcall_runtime::Progress;
    ///
    /// pub async fn greet(progress: &Progress) -> String {
    ///     let schema = serde_json::json!({"type": "object", "properties": {"name": {"type": "string"}}});
    ///     match progress.keyed("user_name").elicit("What is your name?", &schema).await {
    ///         Ok(answer) => format!("Hello, {answer:?}"),
    ///         Err(_) => "Hello".to_owned(),
    ///     }
    /// }
    /// ```
    pub fn keyed(&self, key: &str) -> Progress {
        Progress { key: Some(Arc::from(key)), ..self.clone() }
    }

    /// `sink`, told the key of the question about to be asked, when this handle has one.
    fn named<'a>(&self, sink: &'a Arc<dyn ProgressSink>) -> &'a Arc<dyn ProgressSink> {
        if let Some(key) = &self.key {
            sink.name_next(key);
        }
        sink
    }

    /// Lets the rest of the call run without its caller waiting: for a tool declared
    /// `ToolMeta::task_from_detach`, called by an MCP client that takes tasks, the client
    /// gets its task handle here and the call goes on as that task (questions asked
    /// before went through the request; questions asked after are the task's). Anywhere
    /// else it returns at once and changes nothing.
    ///
    /// ```
    /// use toolcall_runtime::Progress;
    ///
    /// pub async fn rebuild_index(progress: &Progress) -> String {
    ///     progress.detach().await; // the long part starts here
    ///     "rebuilt".to_owned()
    /// }
    /// # let text = futures_lite_ready(rebuild_index(Progress::none()));
    /// # assert_eq!(text, "rebuilt");
    /// # fn futures_lite_ready<F: std::future::Future>(f: F) -> F::Output {
    /// #     let waker = std::task::Waker::noop();
    /// #     let mut cx = std::task::Context::from_waker(waker);
    /// #     let mut f = std::pin::pin!(f);
    /// #     match f.as_mut().poll(&mut cx) { std::task::Poll::Ready(v) => v, _ => panic!("pending") }
    /// # }
    /// ```
    pub async fn detach(&self) {
        if let Some(sink) = &self.sink {
            sink.detach().await;
        }
    }

    /// Asks the user to confirm `message` (a yes/no question: over MCP an elicitation
    /// whose form has no field, so accept is yes, decline is no) and waits for the answer,
    /// before a destructive step. A client that cannot ask is [`Confirmation::CannotAsk`]
    /// at once, not a yes; a call approved before it ran ([`Progress::approved`]) is
    /// [`Confirmation::Yes`] without asking. `.required()?` lets only a yes through:
    ///
    /// ```
    /// # use toolcall_runtime::Progress;
    /// # async fn remove(_id: u64) {}
    /// /// Remove a recipe for good.
    /// pub async fn remove_recipe(id: u64, progress: &Progress) -> Result<String, String> {
    ///     progress.confirm(&format!("Remove recipe {id}?")).await.required()?;
    ///     remove(id).await;
    ///     Ok(format!("removed recipe {id}"))
    /// }
    /// ```
    ///
    /// On MCP 2026-07-28 the question ends the call with an input-required result and the
    /// tool runs again from its start with the answer: ask before changing anything.
    pub async fn confirm(&self, message: &str) -> Confirmation {
        if self.approved {
            return Confirmation::Yes;
        }
        let schema = serde_json::from_str(YES_NO).unwrap_or(Value::Null);
        Confirmation::from_answer(self.elicit(message, &schema).await, |_| true)
    }

    /// [`Progress::confirm`] with a typed form `T` shown filled in from `defaults`
    /// ([`Progress::ask_with`]); `yes` reads whether an accepted answer confirms (a ticked
    /// box). Declined, or accepted with `yes` false, is [`Confirmation::Declined`]; an
    /// answer that does not fit `T` is [`Confirmation::Failed`].
    pub async fn confirm_with<T: Form + serde::Serialize>(
        &self,
        message: &str,
        defaults: &T,
        yes: impl FnOnce(&T) -> bool,
    ) -> Confirmation {
        if self.approved {
            return Confirmation::Yes;
        }
        Confirmation::from_answer(self.ask_with(message, defaults).await, yes)
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
        f.debug_struct("Progress")
            .field("reporting", &self.is_reporting())
            .field("approved", &self.approved)
            .finish()
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

    /// A sink whose user answers every question with `answer`, keeping the forms asked.
    struct Replying(Answer, Mutex<Vec<Value>>);

    impl ProgressSink for Replying {
        fn progress(&self, _: u64, _: Option<u64>, _: &str) {}
        fn log(&self, _: LogLevel, _: &str) {}
        fn elicit(&self, message: &str, schema: &Value) -> AskFuture<Answer> {
            let asked = serde_json::json!({"message": message, "schema": schema});
            self.1.lock().unwrap_or_else(|e| e.into_inner()).push(asked);
            Box::pin(std::future::ready(Ok(self.0.clone())))
        }
    }

    #[test]
    fn a_confirmation_tells_yes_from_no_from_dismissed_and_no_one_to_ask_is_no_yes() {
        let replying = |answer: Answer| Arc::new(Replying(answer, Mutex::default()));
        let accept = replying(Answer::Accept(Map::new()));
        let progress = Progress::new(Arc::clone(&accept));
        assert_eq!(ready(progress.confirm("Delete note 3?")), Confirmation::Yes);
        // A yes/no question: a form with no field.
        let asked = accept.1.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let form = serde_json::json!({"type": "object", "properties": {}});
        assert_eq!(asked, [serde_json::json!({"message": "Delete note 3?", "schema": form})]);
        let answered = |answer| ready(Progress::new(replying(answer)).confirm("Delete?"));
        assert_eq!(answered(Answer::Decline), Confirmation::Declined);
        assert_eq!(answered(Answer::Cancel), Confirmation::Cancelled);
        // No client, or one that cannot ask: not a yes, and the refusal says so.
        let nobody = ready(Progress::none().confirm("Delete?"));
        assert_eq!(nobody, Confirmation::CannotAsk("this call has no client to ask".to_owned()));
        let cannot = ready(Progress::new(Recorder::default()).confirm("Delete?"));
        let Err(refused) = cannot.clone().required() else { panic!("a client that cannot ask said yes") };
        assert_eq!(refused.confirmation(), &cannot);
        assert_eq!(
            String::from(refused),
            "it needs the user's confirmation, and the user cannot be asked (whoever runs this tool \
             cannot ask the user); nothing was done"
        );
        let said = |c: Confirmation| c.required().map_err(|no| no.to_string());
        assert_eq!(said(Confirmation::Declined), Err("the user declined; nothing was done".to_owned()));
        assert_eq!(
            said(Confirmation::Cancelled),
            Err("the user dismissed the question without answering; nothing was done".to_owned())
        );
        assert_eq!(
            said(Confirmation::Failed("the client went away".into())),
            Err("asking the user to confirm failed (the client went away); nothing was done".to_owned())
        );
        assert_eq!(said(Confirmation::Yes), Ok(()));
        let failed: crate::ToolError = Confirmation::Declined.required().map_err(Into::into).unwrap_err();
        assert_eq!(failed, crate::ToolError::Failed("the user declined; nothing was done".to_owned()));
    }

    #[test]
    fn an_approved_call_is_confirmed_without_asking() {
        let decline = Arc::new(Replying(Answer::Decline, Mutex::default()));
        let progress = Progress::new(Arc::clone(&decline)).approved();
        assert!(progress.is_approved() && !Progress::none().is_approved());
        assert_eq!(ready(progress.confirm("Delete?")), Confirmation::Yes);
        let defaults = Age { name: "Ada".to_owned(), age: 0 };
        assert_eq!(ready(progress.confirm_with("Who?", &defaults, |_| false)), Confirmation::Yes);
        assert!(decline.1.lock().unwrap_or_else(|e| e.into_inner()).is_empty(), "nobody was asked");
        // Asking for a form is not confirming: an approved call's questions still go out.
        assert_eq!(ready(progress.elicit("Name?", &Value::Null)), Ok(Answer::Decline));
    }

    #[test]
    fn a_typed_form_confirms_when_its_answer_says_yes() {
        let progress = Progress::new(Answering(serde_json::json!({"age": 36})));
        let defaults = Age { name: "Ada".to_owned(), age: 0 };
        assert_eq!(ready(progress.confirm_with("Who?", &defaults, |a| a.age >= 18)), Confirmation::Yes);
        let young = Progress::new(Answering(serde_json::json!({"age": 7})));
        assert_eq!(ready(young.confirm_with("Who?", &defaults, |a| a.age >= 18)), Confirmation::Declined);
        let wrong = Progress::new(Answering(serde_json::json!({"age": 300})));
        let Confirmation::Failed(why) = ready(wrong.confirm_with("Who?", &defaults, |_| true)) else {
            panic!("an answer that does not fit the form confirmed")
        };
        assert!(why.contains("age: expected 0 to 255"), "{why}");
        let none = ready(Progress::none().confirm_with("Who?", &defaults, |_| true));
        assert!(matches!(none, Confirmation::CannotAsk(_)), "{none:?}");
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
