//! The cap on concurrent calls. Takes the two limits of a server; gives each call a slot
//! to run in, a place in line, or a refusal.
//!
//! At most `running` tool calls run at once across every session and request of one
//! server; up to `waiting` more wait in line for a slot, first come first served (tokio's
//! fair semaphore); a call past both is refused at once. The line is bounded so that a
//! flood is answered with a clear error instead of piling up requests in memory. A slot
//! is owned, so it can travel with a call to the blocking pool and stay taken until the
//! call's sync part is over, even when the caller has stopped waiting.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Slots for running calls and a bounded line for the rest.
#[derive(Debug)]
pub(crate) struct CallLimit {
    slots: Arc<Semaphore>,
    running: usize,
    waiting: AtomicUsize,
    max_waiting: usize,
}

/// A call refused because every slot and every place in line was taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Busy {
    /// The server's limit on running calls.
    pub running: usize,
    /// The server's limit on waiting calls.
    pub waiting: usize,
}

/// A place in line, given back when the call gets a slot, is refused or is dropped.
struct InLine<'a>(&'a AtomicUsize);

impl Drop for InLine<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl CallLimit {
    /// At most `running` calls at once (at least 1), and `waiting` more in line.
    pub(crate) fn new(running: usize, waiting: usize) -> Self {
        let running = running.clamp(1, Semaphore::MAX_PERMITS);
        CallLimit {
            slots: Arc::new(Semaphore::new(running)),
            running,
            waiting: AtomicUsize::new(0),
            max_waiting: waiting,
        }
    }

    /// The limit on running calls.
    pub(crate) fn running(&self) -> usize {
        self.running
    }

    /// The limit on waiting calls.
    pub(crate) fn waiting(&self) -> usize {
        self.max_waiting
    }

    /// A slot for one call: at once when one is free, else after waiting in line; `Busy`
    /// when the line is full. Dropping the future leaves the line.
    pub(crate) async fn enter(&self) -> Result<OwnedSemaphorePermit, Busy> {
        if let Ok(slot) = Arc::clone(&self.slots).try_acquire_owned() {
            return Ok(slot);
        }
        let _place = self.join_line().ok_or(self.busy())?;
        // The semaphore is never closed, so acquiring only fails if it were.
        Arc::clone(&self.slots).acquire_owned().await.map_err(|_| self.busy())
    }

    fn join_line(&self) -> Option<InLine<'_>> {
        let max = self.max_waiting;
        self.waiting.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| (n < max).then_some(n + 1)).ok()?;
        Some(InLine(&self.waiting))
    }

    fn busy(&self) -> Busy {
        Busy { running: self.running, waiting: self.max_waiting }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[tokio::test]
    async fn slots_then_line_then_refusal() {
        let limit = CallLimit::new(2, 1);
        let first = limit.enter().await.unwrap();
        let _second = limit.enter().await.unwrap();
        let mut third = Box::pin(limit.enter());
        // The third waits in line: not ready while both slots are taken.
        assert!(futures_poll(&mut third).is_none());
        assert_eq!(limit.enter().await.unwrap_err(), Busy { running: 2, waiting: 1 });
        drop(first);
        assert!(third.await.is_ok(), "a freed slot goes to the call in line");
        assert_eq!(limit.waiting.load(Ordering::SeqCst), 0);
    }

    #[tokio::test]
    async fn a_dropped_waiter_leaves_the_line() {
        let limit = CallLimit::new(1, 1);
        let _slot = limit.enter().await.unwrap();
        let mut waiter = Box::pin(limit.enter());
        assert!(futures_poll(&mut waiter).is_none());
        assert_eq!(limit.waiting.load(Ordering::SeqCst), 1);
        drop(waiter);
        assert_eq!(limit.waiting.load(Ordering::SeqCst), 0);
        let mut next = Box::pin(limit.enter());
        assert!(futures_poll(&mut next).is_none(), "the line has room again");
    }

    /// Polls once with a no-op waker.
    fn futures_poll<F: std::future::Future + Unpin>(future: &mut F) -> Option<F::Output> {
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        match std::pin::Pin::new(future).poll(&mut cx) {
            std::task::Poll::Ready(out) => Some(out),
            std::task::Poll::Pending => None,
        }
    }
}
