//! The notes database: where it is ([`Location`], what `--db` names), its pool
//! ([`PoolSettings`]), opening and migrating it, and the queries, on sqlx with SQLite or
//! Postgres.
//!
//! Migrations are versioned (sqlx's migrator, its `_sqlx_migrations` table), their SQL in
//! `migrations/sqlite` and `migrations/postgres`, built into the binary. On Postgres the
//! migrator holds an advisory lock while it runs, so replicas starting at once (or
//! `example-app migrate` run by each) take turns and each finds the work done.
//!
//! The queries are plain `sqlx::query` text with binds (`$1` is a parameter in both SQLite
//! and Postgres), so nothing needs a database to compile. Every query that touches notes
//! takes the owner and filters by it: callers pass the context's user, never an argument
//! from the model.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use sqlx::migrate::{Migration, MigrationSource, MigrationType, Migrator};
use sqlx::postgres::{PgConnectOptions, PgConnection, PgPool, PgPoolOptions};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqlitePool, SqlitePoolOptions,
};
use sqlx::{ConnectOptions as _, Connection as _, Row as _};

use crate::models::Note;
use crate::outage::Refusal;

/// How long opening a database may take before `--db` is reported unreachable, and how
/// long a query waits for a free connection.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a SQLite query waits for another process's write to finish.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The pool of a database opened by location: how many connections at most, and how long
/// a query waits for a free one before it fails (a store error the model reads as "try
/// again later"). Several replicas on one Postgres server share its `max_connections`:
/// keep their sum below it, with room for the administrator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolSettings {
    /// The most connections the pool opens. Default: 8 on Postgres, 4 on SQLite.
    pub max_connections: Option<u32>,
    /// How long a query waits for a connection (and opening may take). Default: 10 s.
    pub acquire_timeout: Duration,
}

impl Default for PoolSettings {
    fn default() -> Self {
        PoolSettings { max_connections: None, acquire_timeout: CONNECT_TIMEOUT }
    }
}

/// The migrations, newest last: version, description, SQL.
const SQLITE_MIGRATIONS: &[(i64, &str, &str)] = &[
    (1, "notes", include_str!("../migrations/sqlite/0001_notes.sql")),
    (2, "idempotency keys", include_str!("../migrations/sqlite/0002_idempotency_keys.sql")),
];

/// The same on Postgres.
const POSTGRES_MIGRATIONS: &[(i64, &str, &str)] = &[
    (1, "notes", include_str!("../migrations/postgres/0001_notes.sql")),
    (2, "idempotency keys", include_str!("../migrations/postgres/0002_idempotency_keys.sql")),
];

/// Migrations built into the binary, for sqlx's migrator.
#[derive(Debug)]
struct Embedded(&'static [(i64, &'static str, &'static str)]);

impl MigrationSource<'static> for Embedded {
    fn resolve(
        self,
    ) -> std::pin::Pin<Box<dyn Future<Output = Result<Vec<Migration>, sqlx::error::BoxDynError>> + Send>>
    {
        let migrations = self
            .0
            .iter()
            .map(|(version, description, sql)| {
                Migration::new(*version, (*description).into(), MigrationType::Simple, (*sql).into(), false)
            })
            .collect();
        Box::pin(std::future::ready(Ok(migrations)))
    }
}

/// The migrator of `migrations` (taking the database's lock while it runs).
async fn migrator(migrations: &'static [(i64, &'static str, &'static str)]) -> Result<Migrator, sqlx::Error> {
    Migrator::new(Embedded(migrations)).await.map_err(|e| sqlx::Error::Migrate(Box::new(e)))
}

/// The newest migration's version: what a migrated database is at.
pub fn schema_version() -> i64 {
    POSTGRES_MIGRATIONS.last().map_or(0, |(version, ..)| *version)
}

/// A database named on the command line: `--db PATH` or `--db postgres://...`.
#[derive(Clone, PartialEq, Eq)]
pub enum Location {
    /// A SQLite file, created and migrated on first use.
    Sqlite(PathBuf),
    /// A Postgres server, by URL (`postgres://` or `postgresql://`).
    Postgres(String),
}

impl FromStr for Location {
    type Err = String;

    /// `postgres://...` and `postgresql://...` are Postgres; `sqlite:PATH` and any other
    /// text are a SQLite file's path; another `scheme://` is refused.
    fn from_str(text: &str) -> Result<Self, String> {
        if text.trim().is_empty() {
            return Err("give a SQLite file's path or a postgres:// URL".to_owned());
        }
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            return Ok(Location::Postgres(text.to_owned()));
        }
        if let Some(path) = text.strip_prefix("sqlite://").or_else(|| text.strip_prefix("sqlite:")) {
            return match path {
                "" => Err("sqlite: needs a file's path".to_owned()),
                path => Ok(Location::Sqlite(PathBuf::from(path))),
            };
        }
        match text.split_once("://") {
            Some((scheme, _)) if !scheme.is_empty() && scheme.bytes().all(|b| b.is_ascii_alphanumeric()) => {
                Err(format!("`{scheme}://` is not supported: give a SQLite file's path or a postgres:// URL"))
            }
            _ => Ok(Location::Sqlite(PathBuf::from(text))),
        }
    }
}

/// The path, or the URL without its password.
impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Sqlite(path) => write!(f, "{}", path.display()),
            Location::Postgres(url) => f.write_str(&without_password(url)),
        }
    }
}

/// Never prints a password.
impl fmt::Debug for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Sqlite(path) => f.debug_tuple("Sqlite").field(path).finish(),
            Location::Postgres(_) => f.debug_tuple("Postgres").field(&self.to_string()).finish(),
        }
    }
}

/// `scheme://user:secret@host/..?password=secret` as
/// `scheme://user:***@host/..?password=***`.
fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_owned() };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let authority = match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _)) => format!("{user}:***@{host}"),
            None => authority.to_owned(),
        },
        None => authority.to_owned(),
    };
    let tail = match tail.split_once('?') {
        Some((path, query)) => {
            let hidden = |pair: &str| match pair.split_once('=') {
                Some((key, _)) if key.eq_ignore_ascii_case("password") => format!("{key}=***"),
                _ => pair.to_owned(),
            };
            format!("{path}?{}", query.split('&').map(hidden).collect::<Vec<_>>().join("&"))
        }
        None => tail.to_owned(),
    };
    format!("{scheme}://{authority}{tail}")
}

/// Why `--db` could not be opened: one line naming the database (without a password)
/// and the reason; the driver's error is its `source()`.
#[derive(Debug, Clone)]
pub struct OpenError(String, std::sync::Arc<sqlx::Error>);

/// Two errors are the same when they say the same.
impl PartialEq for OpenError {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl Eq for OpenError {}

impl OpenError {
    fn new(location: &dyn fmt::Display, error: sqlx::Error) -> Self {
        let reason = match &error {
            sqlx::Error::Database(db) => match db.code().as_deref() {
                Some("26") => "it is not a SQLite database".to_owned(),
                Some("14") => {
                    "cannot create or open the file (is its folder there, and writable?)".to_owned()
                }
                Some("8") => "the file is read-only".to_owned(),
                _ => db.message().to_owned(),
            },
            sqlx::Error::PoolTimedOut => format!("no answer within {} s", CONNECT_TIMEOUT.as_secs()),
            sqlx::Error::Configuration(why) => format!("a bad URL: {why}"),
            other => other.to_string(),
        };
        let line = format!("cannot open the database {location}: {reason}");
        OpenError(line.split_whitespace().collect::<Vec<_>>().join(" "), std::sync::Arc::new(error))
    }
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OpenError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(self.1.as_ref())
    }
}

/// A query that failed, or was not sent because the database is known to be unreachable.
/// What the model sees ([`Display`](fmt::Display)) says what could not be done and
/// nothing of the database (no SQL, path, host or driver message), and when to try again;
/// the driver's error is [`source`](std::error::Error::source), for the operator's log.
#[derive(Debug)]
pub struct StoreError {
    action: &'static str,
    cause: Cause,
}

/// Why a query was not answered.
#[derive(Debug)]
enum Cause {
    /// The database was asked and failed.
    Query(sqlx::Error),
    /// The database is known to be unreachable: it was not asked.
    Down(Refusal),
}

impl StoreError {
    fn new(action: &'static str) -> impl FnOnce(sqlx::Error) -> Self {
        move |cause| StoreError { action, cause: Cause::Query(cause) }
    }

    /// The error of a database that could not be opened (connected and migrated).
    pub(crate) fn opening(error: OpenError) -> Self {
        let cause = match std::sync::Arc::try_unwrap(error.1) {
            Ok(cause) => cause,
            Err(shared) => sqlx::Error::Protocol(shared.to_string()),
        };
        StoreError { action: "open the notes database", cause: Cause::Query(cause) }
    }

    /// `action` was not tried: the database is known to be unreachable.
    pub(crate) fn refused(action: &'static str, refusal: Refusal) -> Self {
        StoreError { action, cause: Cause::Down(refusal) }
    }

    /// What readiness says of it (nothing of the database's names): what could not be
    /// done, and whether no connection came within the pool's wait, a connection failed,
    /// or a query did.
    pub fn unavailable(&self) -> String {
        let kind = match &self.cause {
            Cause::Query(cause) => unreachable_kind(cause).unwrap_or("a query failed"),
            Cause::Down(refusal) => refusal.kind,
        };
        format!("could not {}: {kind}", self.action)
    }

    /// The driver's error, for logs only (it may name tables, files or hosts); `None` when
    /// the query was not sent because the database is known to be unreachable (the outage
    /// is logged once, not per query).
    pub fn cause(&self) -> Option<&sqlx::Error> {
        match &self.cause {
            Cause::Query(cause) => Some(cause),
            Cause::Down(_) => None,
        }
    }

    /// Whether no connection came within the pool's wait (every connection busy, or none
    /// could be made).
    pub(crate) fn timed_out(&self) -> bool {
        matches!(self.cause(), Some(sqlx::Error::PoolTimedOut))
    }

    /// How the database could not be reached, when that is why the query failed.
    pub(crate) fn unreachable(&self) -> Option<&'static str> {
        self.cause().and_then(unreachable_kind)
    }
}

/// How `error` says the database could not be reached: no connection within the pool's
/// wait, a connection that could not be made or broke, a server shutting down; `None` for
/// any other failure (a query the database refused, a pool closed on purpose).
fn unreachable_kind(error: &sqlx::Error) -> Option<&'static str> {
    match error {
        sqlx::Error::PoolTimedOut => Some("no connection within the pool's wait"),
        sqlx::Error::Io(_) | sqlx::Error::Tls(_) => Some("cannot connect"),
        // Postgres's classes 08 (connection exception) and 57P (operator intervention:
        // shutting down, starting up).
        sqlx::Error::Database(db) => match db.code().as_deref() {
            Some(code) if code.starts_with("08") || code.starts_with("57P") => {
                Some("the database server is shutting down or starting")
            }
            _ => None,
        },
        _ => None,
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.cause {
            Cause::Query(_) => {
                write!(f, "could not {}: the notes database did not answer; try again later", self.action)
            }
            Cause::Down(refusal) => write!(
                f,
                "could not {}: the notes database is unavailable; try again in {} s",
                self.action,
                refusal.retry_after.as_secs().max(1)
            ),
        }
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.cause().map(|cause| cause as &(dyn std::error::Error + 'static))
    }
}

/// What a write did: wrote a new note, or found the one an earlier write with the same
/// idempotency key wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Written {
    /// Written now.
    New(Note),
    /// Written before, with the same idempotency key; not written again.
    Found(Note),
}

impl Written {
    /// The note, new or found.
    pub fn note(self) -> Note {
        match self {
            Written::New(note) | Written::Found(note) => note,
        }
    }
}

/// A connection pool on one of the two databases.
#[derive(Clone, Debug)]
pub(crate) enum Pool {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// The same code on either pool: `$pool` is the `SqlitePool` or the `PgPool`.
macro_rules! on_pool {
    ($self:expr, $pool:ident => $body:expr) => {
        match $self {
            Pool::Sqlite($pool) => $body,
            Pool::Postgres($pool) => $body,
        }
    };
}

/// The demo's notes, in the order they are written: Ada (1) has two, Grace (2) one.
pub(crate) const SEED: &[(u64, &str)] = &[
    (1, "buy oat milk"),
    (1, "call the plumber about the boiler"),
    (2, "Grace's private note: the launch codes are 0000"),
];

/// Connects to `location`, creating the SQLite file when it is missing, and migrates it.
/// One connection first, so that a server that refuses is reported at once, with its
/// reason; then a pool of `settings` that connects as queries need it.
pub(crate) async fn open(location: &Location, settings: PoolSettings) -> Result<Pool, OpenError> {
    let failed = |error: sqlx::Error| OpenError::new(location, error);
    match location {
        Location::Sqlite(path) => {
            let options = SqliteConnectOptions::new()
                .filename(path)
                .create_if_missing(true)
                .journal_mode(SqliteJournalMode::Wal)
                .busy_timeout(BUSY_TIMEOUT);
            let mut first = within(options.connect()).await.map_err(failed)?;
            migrate_sqlite(&mut first).await.map_err(failed)?;
            let _ = first.close().await;
            let pool = SqlitePoolOptions::new()
                .max_connections(settings.max_connections.unwrap_or(4).max(1))
                .acquire_timeout(settings.acquire_timeout)
                .connect_lazy_with(options);
            Ok(Pool::Sqlite(pool))
        }
        Location::Postgres(url) => {
            let options = PgConnectOptions::from_str(url).map_err(failed)?;
            let mut first = within(PgConnection::connect_with(&options)).await.map_err(failed)?;
            migrate_postgres(&mut first).await.map_err(failed)?;
            let _ = first.close().await;
            let pool = PgPoolOptions::new()
                .max_connections(settings.max_connections.unwrap_or(8).max(1))
                .acquire_timeout(settings.acquire_timeout)
                .connect_lazy_with(options);
            Ok(Pool::Postgres(pool))
        }
    }
}

/// A private in-memory SQLite database, migrated, with the demo's notes when `seed`: the
/// pool, and the connection that keeps the database alive (an in-memory database lives
/// as long as one connection to it is open). Nothing to set up, nothing left behind.
pub(crate) async fn open_memory(seed: bool) -> Result<(Pool, SqliteConnection), StoreError> {
    let failed = |cause| StoreError { action: "open the built-in database", cause: Cause::Query(cause) };
    let options = SqliteConnectOptions::from_str("sqlite::memory:").map_err(&failed)?;
    let mut keep_alive = options.connect().await.map_err(&failed)?;
    migrate_sqlite(&mut keep_alive).await.map_err(&failed)?;
    if seed {
        write_seed(&mut keep_alive).await.map_err(&failed)?;
    }
    // No idle timeout or maximum lifetime: no background task, and connections are only
    // closed with the pool.
    let pool = SqlitePoolOptions::new()
        .max_connections(4)
        .acquire_timeout(CONNECT_TIMEOUT)
        .idle_timeout(None)
        .max_lifetime(None)
        .connect_lazy_with(options);
    Ok((Pool::Sqlite(pool), keep_alive))
}

/// Writes the demo's notes.
async fn write_seed(connection: &mut SqliteConnection) -> Result<(), sqlx::Error> {
    for (owner, text) in SEED {
        sqlx::query("INSERT INTO notes (owner, text) VALUES ($1, $2)")
            .bind(to_i64(*owner))
            .bind(*text)
            .execute(&mut *connection)
            .await?;
    }
    Ok(())
}

async fn within<T>(connect: impl Future<Output = Result<T, sqlx::Error>>) -> Result<T, sqlx::Error> {
    tokio::time::timeout(CONNECT_TIMEOUT, connect).await.unwrap_or(Err(sqlx::Error::PoolTimedOut))
}

/// Brings a SQLite database to the newest version.
async fn migrate_sqlite(connection: &mut SqliteConnection) -> Result<(), sqlx::Error> {
    let migrator = migrator(SQLITE_MIGRATIONS).await?;
    migrator.run_direct(connection).await.map_err(|e| sqlx::Error::Migrate(Box::new(e)))
}

/// Brings a Postgres database to the newest version, under the migrator's advisory lock.
async fn migrate_postgres(connection: &mut PgConnection) -> Result<(), sqlx::Error> {
    let migrator = migrator(POSTGRES_MIGRATIONS).await?;
    migrator.run_direct(connection).await.map_err(|e| sqlx::Error::Migrate(Box::new(e)))
}

/// A user id or note id as the database stores it. Ids past `i64::MAX` cannot be in the
/// database; they become -1, which matches no row.
pub(crate) fn to_i64(id: u64) -> i64 {
    i64::try_from(id).unwrap_or(-1)
}

/// A stored id; the database's ids are positive.
pub(crate) fn to_u64(id: i64) -> u64 {
    u64::try_from(id).unwrap_or(0)
}

/// The note in a row of `id, owner, text`.
macro_rules! note {
    ($row:expr) => {{
        let row = $row;
        Note {
            id: to_u64(row.try_get("id")?),
            owner: to_u64(row.try_get("owner")?),
            text: row.try_get("text")?,
        }
    }};
}

impl Pool {
    /// `owner`'s newest notes, at most `limit`.
    pub(crate) async fn notes_of(&self, owner: u64, limit: u32) -> Result<Vec<Note>, StoreError> {
        const SQL: &str = "SELECT id, owner, text FROM notes WHERE owner = $1 ORDER BY id DESC LIMIT $2";
        let read = async {
            on_pool!(self, pool => {
                let rows = sqlx::query(SQL).bind(to_i64(owner)).bind(i64::from(limit)).fetch_all(pool).await?;
                rows.iter().map(|row| Ok(note!(row))).collect::<Result<Vec<_>, sqlx::Error>>()
            })
        };
        read.await.map_err(StoreError::new("list your notes"))
    }

    /// Writes a note for `owner`; with an idempotency `key`, only when `owner` has no note
    /// written with that key: otherwise that note is returned, unwritten again
    /// ([`Written::Found`]).
    pub(crate) async fn insert(
        &self,
        owner: u64,
        text: &str,
        key: Option<&str>,
    ) -> Result<Written, StoreError> {
        const SQL: &str = "INSERT INTO notes (owner, text, idempotency_key) VALUES ($1, $2, $3) \
                           ON CONFLICT (owner, idempotency_key) DO NOTHING RETURNING id, owner, text";
        const FOUND: &str = "SELECT id, owner, text FROM notes WHERE owner = $1 AND idempotency_key = $2";
        let write = async {
            on_pool!(self, pool => {
                let row = sqlx::query(SQL).bind(to_i64(owner)).bind(text).bind(key).fetch_optional(pool).await?;
                if let Some(row) = row {
                    return Ok::<_, sqlx::Error>(Written::New(note!(&row)));
                }
                // The key was used: the note it wrote (committed, since the insert waited
                // for it).
                let row = sqlx::query(FOUND).bind(to_i64(owner)).bind(key).fetch_one(pool).await?;
                Ok(Written::Found(note!(&row)))
            })
        };
        write.await.map_err(StoreError::new("save the note"))
    }

    /// Deletes note `id` when `owner` wrote it; `None` when `owner` has no such note
    /// (another user's note is never touched).
    pub(crate) async fn remove(&self, owner: u64, id: u64) -> Result<Option<Note>, StoreError> {
        const SQL: &str = "DELETE FROM notes WHERE id = $1 AND owner = $2 RETURNING id, owner, text";
        let delete = async {
            on_pool!(self, pool => {
                let row = sqlx::query(SQL).bind(to_i64(id)).bind(to_i64(owner)).fetch_optional(pool).await?;
                row.map(|row| Ok::<_, sqlx::Error>(note!(&row))).transpose()
            })
        };
        delete.await.map_err(StoreError::new("delete the note"))
    }

    /// Empties the built-in (SQLite) database, restarts its ids, and writes the demo's
    /// notes again when `seed`, in one transaction: it is as [`open_memory`] left it.
    pub(crate) async fn reset_builtin(&self, seed: bool) -> Result<(), StoreError> {
        let Pool::Sqlite(pool) = self else { return Ok(()) };
        let reset = async {
            let mut transaction = pool.begin().await?;
            sqlx::query("DELETE FROM notes").execute(&mut *transaction).await?;
            // AUTOINCREMENT remembers the largest id used; without its row ids start at 1.
            sqlx::query("DELETE FROM sqlite_sequence WHERE name = 'notes'")
                .execute(&mut *transaction)
                .await?;
            if seed {
                write_seed(&mut transaction).await?;
            }
            transaction.commit().await
        };
        reset.await.map_err(StoreError::new("reset the built-in database"))
    }

    /// Whether the pool holds as many connections as it may open (a wait for one is then
    /// a busy pool, not an unreachable database).
    pub(crate) fn is_full(&self) -> bool {
        on_pool!(self, pool => pool.size() >= pool.options().get_max_connections())
    }

    /// Whether the database answers a trivial query (`SELECT 1`).
    pub(crate) async fn ping(&self) -> Result<(), sqlx::Error> {
        on_pool!(self, pool => sqlx::query("SELECT 1").execute(pool).await.map(drop))
    }

    /// Closes every connection; queries after it fail.
    pub(crate) async fn close(&self) {
        on_pool!(self, pool => pool.close().await);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn locations_by_their_text() {
        let sqlite = |path: &str| Ok(Location::Sqlite(PathBuf::from(path)));
        assert_eq!("notes.db".parse(), sqlite("notes.db"));
        assert_eq!("/tmp/x/notes.sqlite".parse(), sqlite("/tmp/x/notes.sqlite"));
        assert_eq!("sqlite://notes.db".parse(), sqlite("notes.db"));
        assert_eq!("sqlite:/tmp/n.db".parse(), sqlite("/tmp/n.db"));
        let pg = "postgres://ada:s3cret@db.example:5432/notes?sslmode=disable";
        assert_eq!(pg.parse(), Ok(Location::Postgres(pg.to_owned())));
        assert!(matches!("postgresql://localhost/notes".parse(), Ok(Location::Postgres(_))));
        assert!("".parse::<Location>().is_err());
        assert!("sqlite:".parse::<Location>().is_err());
        let refused = "mysql://localhost/notes".parse::<Location>().unwrap_err();
        assert!(refused.starts_with("`mysql://` is not supported"), "{refused}");
    }

    #[test]
    fn a_password_is_never_shown() {
        let pg: Location = "postgres://ada:s3cret@db.example:5432/notes?password=s3cret".parse().unwrap();
        assert_eq!(pg.to_string(), "postgres://ada:***@db.example:5432/notes?password=***");
        assert!(!format!("{pg:?}").contains("s3cret"));
        let at_in_password: Location = "postgres://ada:p@ss@host/db".parse().unwrap();
        assert_eq!(at_in_password.to_string(), "postgres://ada:***@host/db");
        let no_password: Location = "postgres://ada@host/db".parse().unwrap();
        assert_eq!(no_password.to_string(), "postgres://ada@host/db");
    }

    #[test]
    fn ids_past_the_database_range_match_nothing() {
        assert_eq!(to_i64(7), 7);
        assert_eq!(to_i64(u64::MAX), -1);
        assert_eq!(to_u64(-5), 0);
    }
}
