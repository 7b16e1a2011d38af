//! The tools' context with its type erased: the one place the server meets the user's `C`.
//!
//! [`McpServer<C>`](crate::McpServer) is a typed front over a server that knows no `C`:
//! the context is held as an [`ErasedContext`] (`Arc<dyn Any + Send + Sync>`), the toolset as a
//! [`Tools`] object, and every user function (request function, tool filter, run-time
//! tools, resources, prompts) is wrapped here into one taking the erased context. So the
//! server (its MCP handler, call path, HTTP front and transports) is compiled once, in this
//! crate, and a user's crate instantiates only these small wrappers and its own toolset.
//!
//! Every context the server holds comes from the same `McpServer<C>`, so the downcasts
//! below cannot miss. If one ever did (a toolcall bug), nothing panics: a tool call, a
//! resource read or a prompt fails with [`mismatch`], a tool filter hides the tool, and a
//! lister or completion function gives nothing.

use std::any::Any;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;
use toolcall_runtime::{Format, Progress, ToolError, ToolInfo, Toolset};

use crate::arguments::Arguments;

/// The tools' context, its type erased.
pub(crate) type ErasedContext = Arc<dyn Any + Send + Sync>;

/// One call of a tool, boxed and not yet polled.
pub(crate) type Call = Pin<Box<dyn Future<Output = Result<Value, ToolError>> + Send>>;

/// The context as the user's type, `None` if it is not one (a toolcall bug).
pub(crate) fn typed<C: Send + Sync + 'static>(context: ErasedContext) -> Option<Arc<C>> {
    context.downcast::<C>().ok()
}

/// The error of a context that is not of the toolset's type (a toolcall bug: every
/// context a server holds comes from its one `McpServer<C>`).
pub(crate) fn mismatch<C>() -> ToolError {
    ToolError::Failed(format!(
        "the server's context is not a {} (a toolcall bug: the server was built for that type)",
        std::any::type_name::<C>()
    ))
}

/// The answer of a resource read or a prompt whose context is not a `C`: [`mismatch`] as
/// an internal error for the client.
#[cfg(any(feature = "resources", feature = "prompts"))]
pub(crate) fn refused<C, T>() -> Pin<Box<dyn Future<Output = Result<T, rmcp::model::ErrorData>> + Send>>
where
    T: Send + 'static,
{
    Box::pin(std::future::ready(Err(rmcp::model::ErrorData::internal_error(
        mismatch::<C>().to_string(),
        None,
    ))))
}

/// A generated toolset, its context type erased: what the server needs of it.
pub(crate) trait Tools: Send + Sync {
    /// The tools' descriptions, in order.
    fn describe(&self) -> &'static [ToolInfo];

    /// The tools' MCP definitions as JSON text (`emit(Format::Mcp, false)`).
    fn mcp_definitions(&self) -> &'static str;

    /// Whether the build compiled a search index of the tools.
    fn is_searchable(&self) -> bool;

    /// The tools best matching `query` in the compiled index, best first.
    fn search(&self, query: &str, limit: usize) -> Vec<toolcall_runtime::SearchHit>;

    /// The call of tool `name` with `context`, not yet polled: text arguments decoded
    /// straight from their text, an object through the value decoder.
    fn call(
        &'static self,
        context: ErasedContext,
        name: std::borrow::Cow<'static, str>,
        args: Arguments,
        progress: Progress,
    ) -> Call;
}

impl<C: Send + Sync + 'static> Tools for Toolset<C> {
    fn describe(&self) -> &'static [ToolInfo] {
        Toolset::describe(self)
    }

    fn mcp_definitions(&self) -> &'static str {
        self.emit(Format::Mcp, false)
    }

    fn is_searchable(&self) -> bool {
        Toolset::is_searchable(self)
    }

    fn search(&self, query: &str, limit: usize) -> Vec<toolcall_runtime::SearchHit> {
        Toolset::search(self, query, limit)
    }

    fn call(
        &'static self,
        context: ErasedContext,
        name: std::borrow::Cow<'static, str>,
        args: Arguments,
        progress: Progress,
    ) -> Call {
        Box::pin(async move {
            let Some(context) = typed::<C>(context) else {
                return Err(mismatch::<C>());
            };
            match args.text() {
                Some(text) => self.call_json_reporting(&context, &name, text, &progress).await,
                None => {
                    let value = match args {
                        Arguments::Value(value) => value,
                        Arguments::Text(_) => Value::Null,
                    };
                    self.call_reporting(&context, &name, &value, &progress).await
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    static EMITTED: toolcall_runtime::Emitted = toolcall_runtime::Emitted::new();
    static INFO: [ToolInfo; 1] = [ToolInfo { name: "whose", ..ToolInfo::EMPTY }];
    /// One tool answering with its context, a `u64`.
    static TOOLS: Toolset<u64> = Toolset::new(&INFO, &EMITTED, |context, name, _| {
        (name == "whose").then(|| toolcall_runtime::__private::Dispatched::Ready(Ok(Value::from(*context))))
    });

    #[test]
    fn the_context_comes_back_as_its_own_type_only() {
        let context: ErasedContext = Arc::new(7u64);
        assert_eq!(typed::<u64>(Arc::clone(&context)).as_deref(), Some(&7));
        assert!(typed::<u32>(context).is_none());
        // The trap an erased context sets: a reference to the `Arc` is itself `Any`.
        let context: ErasedContext = Arc::new(7u64);
        let wrong: &(dyn Any + Send + Sync) = &context;
        assert!(wrong.downcast_ref::<u64>().is_none());
        assert_eq!((*context).downcast_ref::<u64>(), Some(&7));
    }

    #[tokio::test]
    async fn the_erased_toolset_calls_with_the_typed_context_or_fails_without_panicking() {
        let tools: &'static dyn Tools = &TOOLS;
        let args = || Arguments::Text(bytes::Bytes::from_static(b"{}"));
        let called = tools.call(Arc::new(42u64), "whose".into(), args(), Progress::none().clone()).await;
        assert_eq!(called.unwrap(), Value::from(42));
        let value = Arguments::Value(serde_json::json!({}));
        let called = tools.call(Arc::new(5u64), "whose".into(), value, Progress::none().clone()).await;
        assert_eq!(called.unwrap(), Value::from(5));
        let mismatched =
            tools.call(Arc::new("not a u64"), "whose".into(), args(), Progress::none().clone()).await;
        assert!(
            matches!(mismatched, Err(ToolError::Failed(text)) if text.contains("toolcall bug") && text.contains("u64"))
        );
        assert_eq!(tools.describe()[0].name, "whose");
    }

    #[tokio::test]
    async fn a_read_or_prompt_with_a_context_of_another_type_is_an_internal_error() {
        let refusal = refused::<u64, Vec<String>>().await.unwrap_err();
        assert_eq!(refusal.code, rmcp::model::ErrorCode::INTERNAL_ERROR);
        assert!(
            refusal.message.contains("u64") && refusal.message.contains("toolcall bug"),
            "{}",
            refusal.message
        );
    }
}
