//! A session store for the unit tests of the layers over one (the session guard, the
//! parked sessions, the store's deadline): it counts what it is asked, keeps the last
//! state written, and answers each kind of operation as told.

use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::transport::streamable_http_server::session::{SessionState, SessionStore, SessionStoreError};

/// The future of one store operation (what `async_trait` would box).
type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, SessionStoreError>> + Send + 'a>>;

/// How an operation answers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Answer {
    /// At once, as a store holding nothing does (a read finds nothing).
    #[default]
    Works,
    /// At once, with a refused connection.
    Fails,
    /// Never.
    Hangs,
}

/// A store whose reads answer `reads_answer` and whose writes answer `writes_answer`
/// (deletes always work), counting them.
#[derive(Debug, Default)]
pub(crate) struct TestStore {
    pub(crate) reads_answer: Answer,
    pub(crate) writes_answer: Answer,
    /// Reads asked for.
    pub(crate) reads: AtomicUsize,
    /// Writes asked for.
    pub(crate) writes: AtomicUsize,
    /// The state last written.
    pub(crate) last: Mutex<Option<SessionState>>,
}

impl TestStore {
    /// A store whose reads and writes answer as told.
    pub(crate) fn answering(reads_answer: Answer, writes_answer: Answer) -> TestStore {
        TestStore { reads_answer, writes_answer, ..TestStore::default() }
    }
}

/// The answer `answer` gives, `found` when it works.
fn answered<T: Send + 'static>(answer: Answer, found: T) -> StoreFuture<'static, T> {
    Box::pin(async move {
        match answer {
            Answer::Works => Ok(found),
            Answer::Fails => Err("connection refused".into()),
            Answer::Hangs => std::future::pending().await,
        }
    })
}

impl SessionStore for TestStore {
    fn load<'a, 'b, 'c>(&'a self, _: &'b str) -> StoreFuture<'c, Option<SessionState>>
    where
        'a: 'c,
        'b: 'c,
        Self: 'c,
    {
        self.reads.fetch_add(1, Ordering::SeqCst);
        answered(self.reads_answer, None)
    }

    fn store<'a, 'b, 'd, 'c>(&'a self, _: &'b str, state: &'d SessionState) -> StoreFuture<'c, ()>
    where
        'a: 'c,
        'b: 'c,
        'd: 'c,
        Self: 'c,
    {
        self.writes.fetch_add(1, Ordering::SeqCst);
        if let Ok(mut last) = self.last.lock() {
            *last = Some(state.clone());
        }
        answered(self.writes_answer, ())
    }

    fn delete<'a, 'b, 'c>(&'a self, _: &'b str) -> StoreFuture<'c, ()>
    where
        'a: 'c,
        'b: 'c,
        Self: 'c,
    {
        answered(Answer::Works, ())
    }
}
