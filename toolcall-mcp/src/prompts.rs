//! Prompts a server offers beside its tools: named message templates a user picks in
//! the client, with string arguments (MCP sends every prompt argument as a string), and
//! completions of those arguments.
//!
//! Most prompts are written as tools are: plain functions in `src/prompts/*.rs`, which the
//! build script turns into the crate's `PROMPTS` toolset ([`Prompts::from_set`]): the
//! function's name, doc comment and parameters are the prompt's name, description and
//! arguments; each argument's string is decoded by the parameter's own decoder (`"42"`
//! for a `u32`), so a wrong one gets the message a tool's would; an enum parameter
//! completes from its variants with no code. The function returns its text (one user
//! message), a `toolcall_runtime::Message`, `Content`, or a `Vec` of them.
//!
//! Prompts that exist only at run time are added one by one:
//!
//! ```
//! use toolcall_mcp::prompts::Prompts;
//! use toolcall_mcp::rmcp::model::{Prompt, PromptArgument, PromptMessage, Role};
//!
//! let prompts = Prompts::<()>::new().prompt(
//!     Prompt::new("review", Some("Review a change"), Some(vec![PromptArgument::new("diff").with_required(true)])),
//!     |_ctx, request| {
//!         Box::pin(async move {
//!             let diff = request.arguments.get("diff").cloned().unwrap_or_default();
//!             Ok(vec![PromptMessage::new_text(Role::User, format!("Review:\n{diff}"))])
//!         })
//!     },
//! );
//! assert_eq!(prompts.len(), 1);
//! ```

use std::collections::BTreeMap;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::model::{ErrorData, Prompt, PromptArgument, PromptMessage, Role};
use serde_json::Value;
use toolcall_runtime::Toolset;

pub use crate::completion::{CompleteFn, starting_with};
use crate::completion::{Completer, completer};
use crate::context::{ErasedContext, refused, typed};
use crate::string_arguments::{Argument, arguments_of, call_error, to_json};

tokio::task_local! {
    /// The `Progress` a generated prompt function that takes `&Progress` asks through,
    /// for the `prompts/get` being answered: on 2026-07-28 its questions end the request
    /// with an input-required result, as a tool's do ([`crate::ask::rounds`]).
    static ASKING: toolcall_runtime::Progress;
}

/// What getting a prompt answers: its messages, or an error for the client.
pub type PromptResult = Result<Vec<PromptMessage>, ErrorData>;

/// The future a prompt function returns.
pub type PromptFuture = Pin<Box<dyn Future<Output = PromptResult> + Send>>;

/// A prompt function: the caller's context and the request.
pub type PromptFn<C> = dyn Fn(Arc<C>, PromptRequest) -> PromptFuture + Send + Sync;

/// One `prompts/get`: the prompt's name and its arguments (required ones checked present).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PromptRequest {
    /// The prompt's name.
    pub name: String,
    /// The arguments the client sent.
    pub arguments: BTreeMap<String, String>,
}

/// A server's prompts and the completions of their arguments. Built once and handed to
/// [`McpServer::prompts`](crate::McpServer::prompts).
pub struct Prompts<C> {
    pub(crate) table: PromptTable,
    context: PhantomData<fn(Arc<C>) -> Arc<C>>,
}

impl<C> Default for Prompts<C> {
    fn default() -> Self {
        Prompts { table: PromptTable::default(), context: PhantomData }
    }
}

impl<C> std::fmt::Debug for Prompts<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.table.fmt(f)
    }
}

/// A [`PromptFn`], its context's type erased ([`crate::context`]).
type Getter = dyn Fn(ErasedContext, PromptRequest) -> PromptFuture + Send + Sync;

/// The prompts behind [`Prompts`], their functions taking the erased context: what the
/// server reads.
#[derive(Default)]
pub(crate) struct PromptTable {
    prompts: Vec<(Prompt, Arc<Getter>)>,
    completions: Vec<(String, String, Arc<Completer>)>,
    /// The values of each enum argument of a generated prompt: (prompt, argument, values).
    choices: Vec<(String, String, Vec<String>)>,
}

impl std::fmt::Debug for PromptTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prompts")
            .field("prompts", &self.prompts.iter().map(|(p, _)| p.name.as_str()).collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl<C: Send + Sync + 'static> Prompts<C> {
    /// No prompts yet.
    pub fn new() -> Self {
        Prompts::default()
    }

    /// The crate's generated prompts (`toolset::PROMPTS`, from `src/prompts`), as
    #[cfg_attr(
        feature = "resources",
        doc = "[`Resources::from_set`](crate::Resources::from_set) takes its resources: the same"
    )]
    #[cfg_attr(
        not(feature = "resources"),
        doc = "`Resources::from_set` (feature `resources`) takes its resources: the same"
    )]
    /// name for both (`from_toolset` before; it still works, deprecated).
    ///
    /// ```
    /// use toolcall_mcp::{Prompts, Resources};
    /// # use example_app::{App, toolset};
    ///
    /// let resources = Resources::<App>::from_set(&toolset::RESOURCES);
    /// let prompts = Prompts::<App>::from_set(&toolset::PROMPTS);
    /// assert_eq!(prompts.len(), toolset::PROMPTS.len());
    /// # assert_eq!(resources.len(), toolset::RESOURCES.len());
    /// #[allow(deprecated)]
    /// let old = Prompts::<App>::from_toolset(&toolset::PROMPTS);
    /// assert_eq!(old.len(), prompts.len());
    /// ```
    pub fn from_set(prompts: &'static Toolset<C>) -> Self {
        Prompts::new().set(prompts)
    }

    /// The old name of [`Prompts::from_set`].
    #[deprecated(note = "renamed `Prompts::from_set`, as `Resources::from_set`")]
    pub fn from_toolset(prompts: &'static Toolset<C>) -> Self {
        Prompts::from_set(prompts)
    }

    /// The old name of [`Prompts::set`].
    #[deprecated(note = "renamed `Prompts::set`, as `Resources::set`")]
    pub fn toolset(self, prompts: &'static Toolset<C>) -> Self {
        self.set(prompts)
    }

    /// Adds the prompts of a generated toolset (`toolset::PROMPTS`): each function a
    /// prompt, its parameters the arguments (required unless optional or defaulted),
    /// decoded by their own decoders; enum arguments complete from their variants.
    pub fn set(mut self, prompts: &'static Toolset<C>) -> Self {
        for info in prompts.describe() {
            let arguments = arguments_of(info);
            for argument in arguments.iter().filter(|a| !a.choices.is_empty()) {
                self.table.choices.push((
                    info.name.to_owned(),
                    argument.name.clone(),
                    argument.choices.clone(),
                ));
            }
            let prompt = prompt_of(info, &arguments);
            let arguments = Arc::new(arguments);
            self = self.prompt(prompt, move |context, request| {
                let arguments = Arc::clone(&arguments);
                Box::pin(async move {
                    let args = to_json(&arguments, &request.arguments);
                    let name = info.name;
                    let progress = ASKING.try_with(Clone::clone).unwrap_or_default();
                    match prompts.call_reporting(&*context, name, &args, &progress).await {
                        Ok(value) => messages(name, value),
                        Err(error) => Err(call_error(&format!("prompt {name:?}"), &error)),
                    }
                })
            });
        }
        self
    }

    /// A prompt, got by `get`.
    pub fn prompt(
        mut self,
        prompt: Prompt,
        get: impl Fn(Arc<C>, PromptRequest) -> PromptFuture + Send + Sync + 'static,
    ) -> Self {
        self.table.prompts.push((
            prompt,
            Arc::new(move |context, request| match typed::<C>(context) {
                Some(context) => get(context, request),
                None => refused::<C, _>(),
            }),
        ));
        self
    }

    /// Completes argument `argument` of prompt `prompt` (`completion/complete`).
    pub fn complete(
        mut self,
        prompt: &str,
        argument: &str,
        complete: impl Fn(Arc<C>, &str, &BTreeMap<String, String>) -> Vec<String> + Send + Sync + 'static,
    ) -> Self {
        self.table.completions.push((prompt.to_owned(), argument.to_owned(), completer(complete)));
        self
    }

    /// How many prompts there are.
    pub fn len(&self) -> usize {
        self.table.prompts.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.table.prompts.is_empty()
    }
}

impl PromptTable {
    /// Every prompt, in order.
    pub(crate) fn list(&self) -> Vec<Prompt> {
        self.prompts.iter().map(|(p, _)| p.clone()).collect()
    }

    /// Gets prompt `name` with `arguments` for `context`: an unknown name, an argument the
    /// prompt does not declare or a missing required one is an invalid-params error naming
    /// it (and the prompts or arguments there are).
    pub(crate) async fn get(
        &self,
        context: ErasedContext,
        name: &str,
        arguments: BTreeMap<String, String>,
        progress: toolcall_runtime::Progress,
    ) -> PromptResult {
        let Some((prompt, get)) = self.prompts.iter().find(|(p, _)| p.name == name) else {
            let known: Vec<&str> = self.prompts.iter().map(|(p, _)| p.name.as_str()).collect();
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown prompt {:?}; known prompts: {}",
                    crate::error::cut(name, 120),
                    known.join(", ")
                ),
                None,
            ));
        };
        let declared = prompt.arguments.as_deref().unwrap_or_default();
        if let Some(unknown) = arguments.keys().find(|k| !declared.iter().any(|a| &a.name == *k)) {
            let names: Vec<&str> = declared.iter().map(|a| a.name.as_str()).collect();
            return Err(ErrorData::invalid_params(
                format!(
                    "prompt {name:?} has no argument {:?}; its arguments: {}",
                    crate::error::cut(unknown, 120),
                    if names.is_empty() { "none".to_owned() } else { names.join(", ") }
                ),
                None,
            ));
        }
        if let Some(missing) =
            declared.iter().find(|a| a.required == Some(true) && !arguments.contains_key(&a.name))
        {
            return Err(ErrorData::invalid_params(
                format!("prompt {name:?} needs argument {:?}", missing.name),
                None,
            ));
        }
        let request = PromptRequest { name: name.to_owned(), arguments };
        ASKING.scope(progress, get(context, request)).await
    }

    /// The candidates for `argument` of `prompt`, `None` when no function completes it.
    pub(crate) fn completions(
        &self,
        context: ErasedContext,
        prompt: &str,
        argument: &str,
        typed: &str,
        given: &BTreeMap<String, String>,
    ) -> Option<Vec<String>> {
        if let Some((_, _, complete)) = self.completions.iter().find(|(p, a, _)| p == prompt && a == argument)
        {
            return Some(complete(context, typed, given));
        }
        let (_, _, values) = self.choices.iter().find(|(p, a, _)| p == prompt && a == argument)?;
        let values: Vec<&str> = values.iter().map(String::as_str).collect();
        Some(starting_with(&values, typed))
    }
}

/// The MCP prompt a generated function is listed as.
fn prompt_of(info: &toolcall_runtime::ToolInfo, arguments: &[Argument]) -> Prompt {
    let arguments: Vec<PromptArgument> = arguments
        .iter()
        .map(|a| {
            let argument = PromptArgument::new(&a.name).with_required(a.required);
            if a.description.is_empty() { argument } else { argument.with_description(&a.description) }
        })
        .collect();
    let description = (!info.description.is_empty()).then_some(info.description);
    let prompt = Prompt::new(info.name, description, (!arguments.is_empty()).then_some(arguments));
    if info.title.is_empty() { prompt } else { prompt.with_title(info.title) }
}

/// The messages of a prompt function's value: text is one user message; a message
/// (`{"role", "content"}`) is itself; a content block is a user message holding it; a
/// list is each of its items so.
fn messages(name: &str, value: Value) -> PromptResult {
    let items = match value {
        Value::Array(items) => items,
        other => vec![other],
    };
    items.into_iter().map(|item| message(name, item)).collect()
}

/// One message of [`messages`].
fn message(name: &str, item: Value) -> Result<PromptMessage, ErrorData> {
    let refused = |why: String| ErrorData::internal_error(format!("prompt {name:?} gave {why}"), None);
    match item {
        Value::String(text) => Ok(PromptMessage::new_text(Role::User, text)),
        Value::Object(ref object) if object.contains_key("role") => serde_json::from_value(item)
            .map_err(|error| refused(format!("a message MCP cannot carry ({error})"))),
        Value::Object(_) => serde_json::from_value(item)
            .map(|content| PromptMessage::new(Role::User, content))
            .map_err(|error| refused(format!("content MCP cannot carry ({error})"))),
        other => Err(refused(format!("{other}, which is not text or a message"))),
    }
}
