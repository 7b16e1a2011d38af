//! The app's context: what every tool call may use and no model can choose.
//!
//! [`App`] is built per request: the signed-in [`User`] (from authentication, never from a
//! tool's arguments) plus an `Arc` of the shared [`Store`], which holds the database's
//! connection pool. Tools take it as `&App`; the build script declares it with
//! `Builder::new().context("crate::App")`.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sqlx::sqlite::SqliteConnection;
use tokio::sync::OnceCell;
use toolcall_mcp::InvalidIdempotencyKey;

use crate::db::{self, Pool};
pub use crate::db::{Location, OpenError, PoolSettings, StoreError, Written};
use crate::models::{Note, User};
use crate::outage::Outage;
use crate::plain::PlainNotes;

/// The notes database: a pool on a SQLite file or a Postgres server (`--db`), or the
/// built-in in-memory SQLite database the demo runs on without `--db`.
///
/// Every method takes the owner whose notes it reads or writes; the tools pass the
/// context's user.
pub struct Store {
    /// The open database (shared with the probe of an outage).
    db: Arc<OnceCell<Db>>,
    /// What the built-in database starts with; `None` for a database opened by location.
    builtin: Option<Builtin>,
    location: Option<Location>,
    /// The pool of a database opened by location.
    pool_settings: PoolSettings,
    /// A delay added before each query, standing for a database across a network (the
    /// demo shows concurrent tools with it); zero for a database opened by location.
    pub latency: Duration,
    /// Whether a write or delete was asked for since the store was made or last reset
    /// (set before the query: a reset after a failed write has nothing to undo, and costs
    /// only the reset).
    written: AtomicBool,
    /// The notes without SQL ([`Store::plain`]); `None` for a database.
    plain: Option<Mutex<PlainNotes>>,
    /// Whether the database opened by location is known to be unreachable.
    outage: Arc<Outage>,
}

/// The built-in database's first contents.
#[derive(Clone, Copy, Debug)]
enum Builtin {
    Empty,
    Seeded,
}

struct Db {
    pool: Pool,
    /// The built-in database's own connection: an in-memory database lives as long as
    /// one connection to it does. Only held, never used.
    _keep_alive: Option<Mutex<SqliteConnection>>,
}

impl Store {
    /// An empty built-in database whose queries each wait `latency` first.
    ///
    /// Nothing is opened until the first query, so this needs no runtime; the database
    /// is an in-memory SQLite one, private to this store and gone with it.
    pub fn new(latency: Duration) -> Self {
        Store {
            db: Arc::new(OnceCell::new()),
            builtin: Some(Builtin::Empty),
            location: None,
            pool_settings: PoolSettings::default(),
            latency,
            written: AtomicBool::new(false),
            plain: None,
            outage: Arc::default(),
        }
    }

    /// The built-in database the demo starts with: Ada (user 1) has two notes, Grace
    /// (user 2) one. Lazy like [`Store::new`].
    pub fn seeded(latency: Duration) -> Self {
        Store { builtin: Some(Builtin::Seeded), ..Store::new(latency) }
    }

    /// The notes in a plain `Vec`, with no SQL at all: no notes, or the demo's when
    /// `seeded`. It answers every query as the built-in database does (the same ids and
    /// order); a fuzzer or a test of millions of calls uses it, where a query of the
    /// built-in SQLite database costs a trip to its connection's thread.
    pub fn plain(seeded: bool) -> Self {
        Store { plain: Some(Mutex::new(PlainNotes::new(seeded))), ..Store::new(Duration::ZERO) }
    }

    /// The plain notes, when this store has them (a poisoned lock is taken as it is: every
    /// change to the notes is one step).
    fn plain_notes(&self) -> Option<std::sync::MutexGuard<'_, PlainNotes>> {
        Some(self.plain.as_ref()?.lock().unwrap_or_else(std::sync::PoisonError::into_inner))
    }

    /// Opens the database at `location`: connects, creates a missing SQLite file, and
    /// migrates it. A new database has no notes.
    ///
    /// # Errors
    ///
    /// One line naming the database (never its password) and why it cannot be used: a
    /// server that does not answer or refuses, a file that cannot be created, a file that
    /// is not a SQLite database.
    pub async fn open(location: &Location) -> Result<Self, OpenError> {
        Store::open_with(location, PoolSettings::default()).await
    }

    /// [`Store::open`] with a pool of `settings`.
    ///
    /// # Errors
    ///
    /// As [`Store::open`].
    pub async fn open_with(location: &Location, settings: PoolSettings) -> Result<Self, OpenError> {
        let pool = db::open(location, settings).await?;
        let store = Store::open_later(location, settings);
        Ok(Store { db: Arc::new(OnceCell::new_with(Some(Db { pool, _keep_alive: None }))), ..store })
    }

    /// The database at `location`, opened (connected and migrated) by the first query
    /// that finds it answering: a server starts while its database is down, and
    /// [`Store::ping`] says when it is back.
    pub fn open_later(location: &Location, settings: PoolSettings) -> Self {
        Store {
            db: Arc::new(OnceCell::new()),
            builtin: None,
            location: Some(location.clone()),
            pool_settings: settings,
            latency: Duration::ZERO,
            written: AtomicBool::new(false),
            plain: None,
            outage: Arc::default(),
        }
    }

    /// Whether the database answers (opening it first when [`Store::open_later`] left it
    /// closed): what a server's readiness asks.
    ///
    /// # Errors
    ///
    /// When it does not answer, or cannot be opened.
    pub async fn ping(&self) -> Result<(), StoreError> {
        self.notes_of(0, 1).await.map(drop)
    }

    /// `--db`'s store: the database at `location`, or without one the seeded built-in
    /// database with `latency` per query.
    ///
    /// # Errors
    ///
    /// As [`Store::open`].
    pub async fn open_or_builtin(location: Option<&Location>, latency: Duration) -> Result<Self, OpenError> {
        match location {
            Some(location) => Store::open(location).await,
            None => Ok(Store::seeded(latency)),
        }
    }

    /// The same store with `latency` before each query.
    #[must_use]
    pub fn with_latency(mut self, latency: Duration) -> Self {
        self.latency = latency;
        self
    }

    /// Where the notes are: the `--db` location, or `None` for the built-in database.
    pub fn location(&self) -> Option<&Location> {
        self.location.as_ref()
    }

    /// The pool, after the store's latency; the built-in database is created on first use.
    async fn pool(&self) -> Result<&Pool, StoreError> {
        tokio::time::sleep(self.latency).await;
        let db = self
            .db
            .get_or_try_init(|| open_db(self.builtin, self.location.as_ref(), self.pool_settings))
            .await?;
        Ok(&db.pool)
    }

    /// `query` on the pool, unless the database is known to be unreachable: then refused
    /// at once (with when to try again), `action` naming what was not done. A failure
    /// saying the database cannot be reached begins an outage ([`crate::outage`]).
    async fn guarded<'a, T, F, Fut>(&'a self, action: &'static str, query: F) -> Result<T, StoreError>
    where
        F: FnOnce(&'a Pool) -> Fut,
        Fut: Future<Output = Result<T, StoreError>>,
    {
        if let Some(refusal) = self.outage.refusal() {
            return Err(StoreError::refused(action, refusal));
        }
        let result = match self.pool().await {
            Ok(pool) => query(pool).await,
            Err(error) => Err(error),
        };
        if let Err(error) = &result {
            self.failed(error);
        }
        result
    }

    /// After a failed query: when it says a database opened by location cannot be reached
    /// (and not merely that every connection is busy), the outage begins and its probe
    /// starts.
    fn failed(&self, error: &StoreError) {
        let (Some(kind), Some(location)) = (error.unreachable(), &self.location) else { return };
        let busy = self.db.get().is_some_and(|db| db.pool.is_full());
        if (busy && error.timed_out()) || !self.outage.down(kind) {
            return;
        }
        let (db, location, settings) = (Arc::clone(&self.db), location.clone(), self.pool_settings);
        let outage = Arc::clone(&self.outage);
        tokio::spawn(async move {
            let ask = || async {
                let db =
                    db.get_or_try_init(|| open_db(None, Some(&location), settings)).await.map_err(drop)?;
                db.pool.ping().await.map_err(drop)
            };
            outage.probe(ask).await;
        });
    }

    /// `owner`'s notes, newest first, at most `limit`.
    ///
    /// # Errors
    ///
    /// When the query fails; the error's text names no SQL, path or host.
    pub async fn notes_of(&self, owner: u64, limit: u32) -> Result<Vec<Note>, StoreError> {
        if let Some(notes) = self.plain_notes() {
            return Ok(notes.notes_of(owner, limit));
        }
        self.guarded("list your notes", |pool| pool.notes_of(owner, limit)).await
    }

    /// Saves a note for `owner` and returns it, with its new id.
    ///
    /// # Errors
    ///
    /// As [`Store::notes_of`].
    pub async fn insert(&self, owner: u64, text: &str) -> Result<Note, StoreError> {
        self.insert_once(owner, text, None).await.map(Written::note)
    }

    /// Saves a note for `owner`, once per idempotency `key`: a write with a key `owner`
    /// used before writes nothing and finds that note ([`Written::Found`]), on whichever
    /// replica and however long after (the key is stored with the note). Without a key,
    /// as [`Store::insert`].
    ///
    /// # Errors
    ///
    /// As [`Store::notes_of`].
    pub async fn insert_once(
        &self,
        owner: u64,
        text: &str,
        key: Option<&str>,
    ) -> Result<Written, StoreError> {
        self.written.store(true, Ordering::SeqCst);
        if let Some(mut notes) = self.plain_notes() {
            return Ok(notes.insert(owner, text, key));
        }
        self.guarded("save the note", |pool| pool.insert(owner, text, key)).await
    }

    /// Deletes note `id` of `owner`: the deleted note, or `None` when `owner` has none with
    /// that id (another user's note is never touched).
    ///
    /// # Errors
    ///
    /// As [`Store::notes_of`].
    pub async fn remove(&self, owner: u64, id: u64) -> Result<Option<Note>, StoreError> {
        self.written.store(true, Ordering::SeqCst);
        if let Some(mut notes) = self.plain_notes() {
            return Ok(notes.remove(owner, id));
        }
        self.guarded("delete the note", |pool| pool.remove(owner, id)).await
    }

    /// Puts the built-in database (or the plain notes) back as it started (the demo's notes for
    /// [`Store::seeded`], none for [`Store::new`], ids from 1 again) when a note was
    /// written or deleted since the store was made or last reset; otherwise does
    /// nothing, at the cost of one atomic load. A fuzzer or a test reuses one store this
    /// way instead of opening a database per run. A database opened by location is never
    /// touched.
    ///
    /// # Errors
    ///
    /// When the database cannot be written.
    pub async fn reset(&self) -> Result<(), StoreError> {
        if !self.written.swap(false, Ordering::SeqCst) {
            return Ok(());
        }
        if let Some(mut notes) = self.plain_notes() {
            notes.reset();
            return Ok(());
        }
        let (Some(builtin), Some(db)) = (self.builtin, self.db.get()) else { return Ok(()) };
        db.pool.reset_builtin(matches!(builtin, Builtin::Seeded)).await
    }

    /// Closes the pool: every query after it fails with a [`StoreError`]. A server
    /// shutting down calls it; tests use it to see what a tool says when its database is
    /// gone.
    pub async fn close(&self) {
        if let Some(db) = self.db.get() {
            db.pool.close().await;
        }
    }
}

/// Opens the database a store names: the one at `location`, else the built-in one (with
/// the demo's notes when `builtin` says so).
async fn open_db(
    builtin: Option<Builtin>,
    location: Option<&Location>,
    settings: PoolSettings,
) -> Result<Db, StoreError> {
    if let (None, Some(location)) = (builtin, location) {
        let pool = db::open(location, settings).await.map_err(StoreError::opening)?;
        return Ok(Db { pool, _keep_alive: None });
    }
    let seed = matches!(builtin, Some(Builtin::Seeded));
    let (pool, keep_alive) = db::open_memory(seed).await?;
    Ok(Db { pool, _keep_alive: Some(Mutex::new(keep_alive)) })
}

/// The location and latency; the pool prints nothing useful.
impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store")
            .field("location", &self.location)
            .field("builtin", &self.builtin)
            .field("latency", &self.latency)
            .finish_non_exhaustive()
    }
}

/// The context of every call: who is asking, the shared store, and the request's
/// idempotency key.
#[derive(Clone, Debug)]
pub struct App {
    /// The signed-in user, from authentication.
    pub user: User,
    /// The shared store and its pool.
    pub store: Arc<Store>,
    /// The client's key for this request (`Idempotency-Key` over HTTP,
    /// [`toolcall_mcp::idempotency_key`]): a write retried with it is done once. `Err`: a
    /// header that cannot be used, and writes refuse to run rather than risk running twice.
    pub idempotency_key: Result<Option<String>, InvalidIdempotencyKey>,
}

impl App {
    /// The context for one request by `user`, without an idempotency key.
    pub fn for_user(store: &Arc<Store>, user: User) -> Self {
        App { user, store: Arc::clone(store), idempotency_key: Ok(None) }
    }

    /// The same context with the request's idempotency key.
    #[must_use]
    pub fn with_idempotency_key(self, key: Result<Option<String>, InvalidIdempotencyKey>) -> Self {
        App { idempotency_key: key, ..self }
    }

    /// The demo's context: Ada (user 1) signed in to a seeded built-in database whose
    /// queries each take 50 ms more.
    pub fn demo() -> Self {
        let store = Arc::new(Store::seeded(Duration::from_millis(50)));
        App::for_user(&store, User::ada())
    }
}
