//! Prompts a server offers beside its tools: named message templates a user picks in
//! the client, with string arguments (MCP sends every prompt argument as a string), and
//! completions of those arguments.
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
use std::pin::Pin;
use std::sync::Arc;

use rmcp::model::{ErrorData, Prompt, PromptMessage};

use crate::resources::CompleteFn;

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
    prompts: Vec<(Prompt, Arc<PromptFn<C>>)>,
    completions: Vec<(String, String, Arc<CompleteFn<C>>)>,
}

impl<C> Default for Prompts<C> {
    fn default() -> Self {
        Prompts { prompts: Vec::new(), completions: Vec::new() }
    }
}

impl<C> std::fmt::Debug for Prompts<C> {
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

    /// A prompt, got by `get`.
    pub fn prompt(
        mut self,
        prompt: Prompt,
        get: impl Fn(Arc<C>, PromptRequest) -> PromptFuture + Send + Sync + 'static,
    ) -> Self {
        self.prompts.push((prompt, Arc::new(get)));
        self
    }

    /// Completes argument `argument` of prompt `prompt` (`completion/complete`).
    pub fn complete(
        mut self,
        prompt: &str,
        argument: &str,
        complete: impl Fn(Arc<C>, &str, &BTreeMap<String, String>) -> Vec<String> + Send + Sync + 'static,
    ) -> Self {
        self.completions.push((prompt.to_owned(), argument.to_owned(), Arc::new(complete)));
        self
    }

    /// How many prompts there are.
    pub fn len(&self) -> usize {
        self.prompts.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.prompts.is_empty()
    }

    /// Every prompt, in order.
    pub(crate) fn list(&self) -> Vec<Prompt> {
        self.prompts.iter().map(|(p, _)| p.clone()).collect()
    }

    /// Gets prompt `name` with `arguments` for `context`: an unknown name, an argument the
    /// prompt does not declare or a missing required one is an invalid-params error naming
    /// it (and the prompts or arguments there are).
    pub(crate) async fn get(
        &self,
        context: Arc<C>,
        name: &str,
        arguments: BTreeMap<String, String>,
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
        get(context, PromptRequest { name: name.to_owned(), arguments }).await
    }

    /// The candidates for `argument` of `prompt`, `None` when no function completes it.
    pub(crate) fn completions(
        &self,
        context: Arc<C>,
        prompt: &str,
        argument: &str,
        typed: &str,
        given: &BTreeMap<String, String>,
    ) -> Option<Vec<String>> {
        let (_, _, complete) = self.completions.iter().find(|(p, a, _)| p == prompt && a == argument)?;
        Some(complete(context, typed, given))
    }
}
