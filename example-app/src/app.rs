//! The app's context: what every tool call may use and no model can choose.
//!
//! [`App`] is built per request: the signed-in [`User`] (from authentication, never from a
//! tool's arguments) plus an `Arc` of the shared [`Store`]. Tools take it as `&App`; the
//! build script declares it with `Builder::new().context("crate::App")`.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;

pub use crate::tools::notes::{Note, User};

/// The shared in-memory store standing for a database: notes by owner.
#[derive(Debug, Default)]
pub struct Store {
    notes: RwLock<BTreeMap<u64, Vec<Note>>>,
    next_id: std::sync::atomic::AtomicU64,
    /// How long a read or write takes, standing for a database round trip.
    pub latency: Duration,
}

impl Store {
    /// An empty store whose operations take `latency`.
    pub fn new(latency: Duration) -> Self {
        Store { latency, next_id: std::sync::atomic::AtomicU64::new(1), ..Store::default() }
    }

    /// The store the demo starts with: two users' notes.
    pub fn seeded(latency: Duration) -> Self {
        let store = Store::new(latency);
        store.insert(1, "buy oat milk");
        store.insert(1, "call the plumber about the boiler");
        store.insert(2, "Grace's private note: the launch codes are 0000");
        store
    }

    /// Adds a note for `owner` and returns it.
    pub fn insert(&self, owner: u64, text: &str) -> Note {
        let id = self.next_id.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let note = Note { id, owner, text: text.to_owned() };
        // A poisoned lock only means another call panicked mid-write; the map is still whole.
        let mut notes = self.notes.write().unwrap_or_else(|e| e.into_inner());
        notes.entry(owner).or_default().push(note.clone());
        note
    }

    /// Removes note `id` of `owner`; the removed note, or `None` when `owner` has none
    /// with that id (another user's note is never touched).
    pub fn remove(&self, owner: u64, id: u64) -> Option<Note> {
        let mut notes = self.notes.write().unwrap_or_else(|e| e.into_inner());
        let mine = notes.get_mut(&owner)?;
        let at = mine.iter().position(|note| note.id == id)?;
        Some(mine.remove(at))
    }

    /// The notes of `owner`, oldest first.
    pub fn notes_of(&self, owner: u64) -> Vec<Note> {
        let notes = self.notes.read().unwrap_or_else(|e| e.into_inner());
        notes.get(&owner).cloned().unwrap_or_default()
    }

    /// Waits as long as one round trip to the store takes.
    pub async fn round_trip(&self) {
        tokio::time::sleep(self.latency).await;
    }
}

/// The context of every call: who is asking, and the shared store.
#[derive(Clone, Debug)]
pub struct App {
    /// The signed-in user, from authentication.
    pub user: User,
    /// The shared store.
    pub store: Arc<Store>,
}

impl App {
    /// The context for one request by `user`.
    pub fn for_user(store: &Arc<Store>, user: User) -> Self {
        App { user, store: Arc::clone(store) }
    }

    /// The demo's context: Ada (user 1) signed in to a seeded store with 50 ms latency.
    pub fn demo() -> Self {
        let store = Arc::new(Store::seeded(Duration::from_millis(50)));
        App::for_user(&store, User { id: 1, name: "Ada".to_owned() })
    }
}
