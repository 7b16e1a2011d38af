//! The notes tools on a real database (#34): the same checks on a SQLite file always, and
//! on Postgres when `initdb` and `postgres` are installed (a throwaway cluster; the test
//! output says whether it ran). Notes outlive the store that wrote them, no argument
//! reaches another user's rows, a failing query is a `ToolError` that names nothing of
//! the database, and a bad location is one line.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod pg;

use std::sync::Arc;
use std::time::Duration;

use example_app::app::{Location, Store};
use example_app::models::{Role, User};
use example_app::{App, toolset};
use pg::{Cluster, TempDir, say};
use serde_json::{Value, json};
use sqlx::Connection as _;
use toolcall_runtime::{Progress, ToolError};

fn ada(store: &Arc<Store>) -> App {
    App::for_user(store, User::ada())
}

fn grace(store: &Arc<Store>) -> App {
    App::for_user(store, User { id: 2, name: "Grace".into(), role: Role::Viewer })
}

async fn open(location: &Location) -> Arc<Store> {
    Arc::new(Store::open(location).await.unwrap_or_else(|e| panic!("{e}")))
}

/// Calls `name` as a caller that approved the call before it ran (a person who typed it):
/// `remove_note`'s confirmation is that yes, so these tests reach the store.
async fn call(app: &App, name: &str, args: Value) -> Result<Value, ToolError> {
    toolset::ALL.call_reporting(app, name, &args, &Progress::default().approved()).await
}

fn texts(notes: &Value) -> Vec<&str> {
    notes.as_array().unwrap().iter().map(|note| note["text"].as_str().unwrap()).collect()
}

/// What a store written by one `Store` shows to the next one opened at the same place.
async fn notes_outlive_the_store_that_wrote_them(location: &Location) {
    let first = open(location).await;
    assert_eq!(call(&ada(&first), "list_notes", json!({})).await, Ok(json!([])), "a new database is empty");
    let milk = call(&ada(&first), "add_note", json!({"text": "buy oat milk"})).await.unwrap();
    let plumber = call(&ada(&first), "add_note", json!({"text": "call the plumber"})).await.unwrap();
    let hers = call(&grace(&first), "add_note", json!({"text": "Grace's secret"})).await.unwrap();
    assert_eq!((milk["owner"].as_u64(), hers["owner"].as_u64()), (Some(1), Some(2)));
    assert!(milk["id"].as_u64() < plumber["id"].as_u64(), "{milk} {plumber}");
    first.close().await;
    drop(first);

    let second = open(location).await;
    let mine = call(&ada(&second), "list_notes", json!({})).await.unwrap();
    assert_eq!(mine, json!([plumber, milk]), "newest first, as written");
    assert_eq!(call(&ada(&second), "list_notes", json!({"limit": 1})).await.unwrap(), json!([plumber]));
    assert_eq!(call(&grace(&second), "list_notes", json!({})).await.unwrap(), json!([hers]));
    let removed = call(&ada(&second), "remove_note", json!({"id": milk["id"]})).await.unwrap();
    assert_eq!(removed, milk);
    second.close().await;

    let third = open(location).await;
    assert_eq!(call(&ada(&third), "list_notes", json!({})).await.unwrap(), json!([plumber]));
}

/// Ada's calls, with every argument a model could try, never read, change or delete
/// Grace's note: the tools have no argument naming a user, the owner in every query is
/// the context's user, and the text is bound, not spliced into SQL.
async fn no_argument_reaches_another_users_rows(location: &Location) {
    let store = open(location).await;
    let (ada, grace) = (ada(&store), grace(&store));
    let hers = call(&grace, "add_note", json!({"text": "Grace's private note"})).await.unwrap();
    let her_id = hers["id"].as_u64().unwrap();
    call(&ada, "add_note", json!({"text": "Ada's note"})).await.unwrap();

    // Arguments that name a user or an owner are refused before any query.
    let forged_keys = [
        json!({"user_id": 2}),
        json!({"owner": 2}),
        json!({"user": {"id": 2}}),
        json!({"app": {"user": {"id": 2}}}),
    ];
    for tool in ["list_notes", "add_note", "remove_note", "whoami"] {
        for forged in &forged_keys {
            let mut args = match tool {
                "add_note" => json!({"text": "x"}),
                "remove_note" => json!({"id": her_id}),
                _ => json!({}),
            };
            args.as_object_mut().unwrap().extend(forged.as_object().unwrap().clone());
            let result = call(&ada, tool, args.clone()).await;
            let unknown = matches!(&result, Err(ToolError::UnknownArguments(_)) | Err(ToolError::Several(_)));
            assert!(unknown, "{tool} {args}: {result:?}");
        }
    }
    // Her id, every limit, ids at and past the edges of the database's integers.
    assert_eq!(
        call(&ada, "remove_note", json!({"id": her_id})).await,
        Err(ToolError::Failed(format!("you have no note {her_id}")))
    );
    for id in [0, u64::MAX, i64::MAX as u64, (i64::MAX as u64) + 1] {
        let result = call(&ada, "remove_note", json!({"id": id})).await;
        assert_eq!(result, Err(ToolError::Failed(format!("you have no note {id}"))));
    }
    for limit in [json!(0), json!(1), json!(u32::MAX), json!(null)] {
        let mine = call(&ada, "list_notes", json!({"limit": limit})).await.unwrap();
        assert!(mine.as_array().unwrap().iter().all(|note| note["owner"] == 1), "{limit}: {mine}");
    }
    assert!(call(&ada, "list_notes", json!({"limit": -1})).await.is_err());
    // Text that would be SQL if it were spliced in is stored as text.
    for text in ["'); DELETE FROM notes; --", "x' OR owner = 2 --", "\"; DROP TABLE notes; --"] {
        let saved = call(&ada, "add_note", json!({"text": text})).await.unwrap();
        assert_eq!((saved["text"].as_str(), saved["owner"].as_u64()), (Some(text), Some(1)));
    }
    let mine = call(&ada, "list_notes", json!({"limit": 100})).await.unwrap();
    assert_eq!(texts(&mine).len(), 4);
    assert!(!mine.to_string().contains("Grace"), "{mine}");

    // Grace's note is there, unchanged, and only hers.
    assert_eq!(call(&grace, "list_notes", json!({"limit": 100})).await.unwrap(), json!([hers]));
    assert_eq!(call(&grace, "whoami", json!({})).await.unwrap(), json!({"id": 2, "name": "Grace"}));
}

/// Concurrent calls of many users, each in its own spawned task with its own context,
/// on one pool: each user sees exactly what it wrote.
async fn concurrent_users_on_one_pool(location: &Location) {
    let store = open(location).await;
    let tasks: Vec<_> = (0..24u64)
        .map(|i| {
            let app = App::for_user(
                &store,
                User { id: 100 + i % 6, name: format!("user {}", i % 6), role: Role::Editor },
            );
            tokio::spawn(async move { call(&app, "add_note", json!({"text": format!("note {i}")})).await })
        })
        .collect();
    for task in tasks {
        task.await.unwrap().unwrap();
    }
    for user in 0..6u64 {
        let app = App::for_user(&store, User { id: 100 + user, name: String::new(), role: Role::Editor });
        let notes = call(&app, "list_notes", json!({"limit": 50})).await.unwrap();
        let mut got: Vec<&str> = texts(&notes);
        got.sort_unstable();
        let mut expected: Vec<String> =
            (0..24).filter(|i| i % 6 == user).map(|i| format!("note {i}")).collect();
        expected.sort_unstable();
        assert_eq!(got, expected, "user {user}");
    }
}

/// The words a tool error must not carry: SQL, the driver's phrases, where the database
/// is.
fn assert_tells_nothing_of_the_database(message: &str, location: &Location) {
    let lower = message.to_lowercase();
    for word in
        ["select", "insert", "delete from", "table", "sql", "relation", "database error", "error returned"]
    {
        assert!(!lower.contains(word), "`{word}` in: {message}");
    }
    let place = match location {
        Location::Sqlite(path) => path.file_name().unwrap().to_string_lossy().into_owned(),
        Location::Postgres(url) => url.split('@').nth(1).unwrap().split('/').next().unwrap().to_owned(),
    };
    assert!(!message.contains(&place), "`{place}` in: {message}");
    assert!(!message.contains('\n'), "{message}");
}

/// A query that fails (the table is gone; then the pool is closed) is a `ToolError`
/// saying what could not be done, and nothing of SQL, paths or hosts.
async fn a_failing_query_is_a_tool_error(location: &Location, drop_table: impl AsyncFnOnce()) {
    let store = open(location).await;
    let ada = ada(&store);
    call(&ada, "add_note", json!({"text": "before"})).await.unwrap();
    drop_table().await;
    let expected = [
        (
            "list_notes",
            json!({}),
            "could not list your notes: the notes database did not answer; try again later",
        ),
        (
            "add_note",
            json!({"text": "x"}),
            "could not save the note: the notes database did not answer; try again later",
        ),
        (
            "remove_note",
            json!({"id": 1}),
            "could not delete the note: the notes database did not answer; try again later",
        ),
    ];
    for (tool, args, message) in &expected {
        let result = call(&ada, tool, args.clone()).await;
        assert_eq!(result, Err(ToolError::Failed((*message).to_owned())), "{tool}");
        let error = result.unwrap_err();
        assert_tells_nothing_of_the_database(&error.to_string(), location);
        assert_tells_nothing_of_the_database(&error.to_value().to_string(), location);
    }
    store.close().await;
    let closed = call(&ada, "list_notes", json!({})).await;
    assert_eq!(closed, Err(ToolError::Failed(expected[0].2.to_owned())));
    assert_eq!(
        call(&ada, "whoami", json!({})).await,
        Ok(json!({"id": 1, "name": "Ada"})),
        "other tools work"
    );
}

/// `add_note` with an idempotency key (#65 item 7): the same key sent at once through
/// two replicas (two stores on one database) writes one note, and both get it; the key
/// with another text is refused, writing nothing; keys are per user; a header that
/// cannot be used writes nothing; without a key every call writes.
async fn a_key_writes_once(location: &Location) {
    let (one, two) = (open(location).await, open(location).await);
    let keyed = |app: App, key: &str| app.with_idempotency_key(Ok(Some(key.to_owned())));
    let note = json!({"text": "pay the rent"});
    let (on_one, on_two) = (keyed(ada(&one), "rent-1"), keyed(ada(&two), "rent-1"));
    let (first, second) =
        tokio::join!(call(&on_one, "add_note", note.clone()), call(&on_two, "add_note", note.clone()));
    let (first, second) = (first.unwrap(), second.unwrap());
    assert_eq!(first, second, "both attempts answer the one note");
    let again = call(&keyed(ada(&one), "rent-1"), "add_note", note.clone()).await.unwrap();
    assert_eq!(again, first, "a later retry too");
    let other = call(&keyed(ada(&two), "rent-1"), "add_note", json!({"text": "something else"})).await;
    let refused = other.unwrap_err().to_string();
    assert!(
        refused.contains("was used for another note (id ") && refused.contains("nothing was written"),
        "{refused}"
    );
    let graces = call(&keyed(grace(&one), "rent-1"), "add_note", note.clone()).await.unwrap();
    assert_ne!(graces["id"], first["id"], "keys are each user's own");
    let invalid = ada(&one).with_idempotency_key(Err(toolcall_mcp::InvalidIdempotencyKey::Malformed));
    let refused = call(&invalid, "add_note", json!({"text": "never written"})).await.unwrap_err().to_string();
    assert!(
        refused.contains("Idempotency-Key header is not a quoted string")
            && refused.contains("nothing was written"),
        "{refused}"
    );
    call(&ada(&two), "add_note", note.clone()).await.unwrap();
    call(&ada(&two), "add_note", note.clone()).await.unwrap();
    let listed = call(&ada(&one), "list_notes", json!({})).await.unwrap();
    assert_eq!(texts(&listed), ["pay the rent", "pay the rent", "pay the rent"], "one keyed, two unkeyed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_file() {
    let dir = TempDir::new("store");
    let location = |name: &str| Location::Sqlite(dir.path(name));
    notes_outlive_the_store_that_wrote_them(&location("outlive.db")).await;
    no_argument_reaches_another_users_rows(&location("isolation.db")).await;
    concurrent_users_on_one_pool(&location("concurrent.db")).await;
    a_key_writes_once(&location("keyed.db")).await;
    let path = dir.path("failing.db");
    a_failing_query_is_a_tool_error(&location("failing.db"), async || {
        let mut other =
            sqlx::SqliteConnection::connect(&format!("sqlite://{}", path.display())).await.unwrap();
        sqlx::query("DROP TABLE notes").execute(&mut other).await.unwrap();
        other.close().await.unwrap();
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_when_available() {
    let cluster = match Cluster::start().await {
        Ok(cluster) => cluster,
        Err(why) => {
            // In CI a skip would pass without testing Postgres: it is a failure there.
            assert!(std::env::var_os("CI").is_none(), "store: Postgres is needed in CI: {why}");
            say(&format!("store: Postgres tests skipped: {why}"));
            assert!(why.contains("initdb"), "{why}");
            return;
        }
    };
    let location = |url: String| Location::Postgres(url);
    notes_outlive_the_store_that_wrote_them(&location(cluster.database("outlive").await)).await;
    no_argument_reaches_another_users_rows(&location(cluster.database("isolation").await)).await;
    concurrent_users_on_one_pool(&location(cluster.database("concurrent").await)).await;
    a_key_writes_once(&location(cluster.database("keyed").await)).await;
    let url = cluster.database("failing").await;
    a_failing_query_is_a_tool_error(&location(url.clone()), async || {
        let mut other = sqlx::PgConnection::connect(&url).await.unwrap();
        sqlx::query("DROP TABLE notes").execute(&mut other).await.unwrap();
        other.close().await.unwrap();
    })
    .await;
    // Two stores migrating one new database at once take turns.
    let url = cluster.database("racing").await;
    let (first, second) = (location(url.clone()), location(url));
    let (a, b) = tokio::join!(Store::open(&first), Store::open(&second));
    assert!(a.is_ok() && b.is_ok(), "{a:?} {b:?}");
    say(&format!(
        "store: Postgres tests ran on a throwaway cluster at 127.0.0.1:{} ({})",
        cluster.port,
        cluster.bin().display()
    ));
    tokio::task::spawn_blocking(move || drop(cluster)).await.unwrap();
}

fn run<F: Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(future)
}

/// The built-in database: seeded, private to its store, created on first use from any
/// runtime, and its notes stay while the store lives.
#[test]
fn the_builtin_database_needs_no_setup() {
    let store = Arc::new(Store::seeded(Duration::ZERO));
    let other = Arc::new(Store::seeded(Duration::ZERO));
    let added = run(call(&ada(&store), "add_note", json!({"text": "kept"}))).unwrap();
    // A second runtime (the first is gone) sees the note the first wrote.
    let mine = run(call(&ada(&store), "list_notes", json!({}))).unwrap();
    assert_eq!(texts(&mine), ["kept", "call the plumber about the boiler", "buy oat milk"]);
    assert_eq!(mine[0], added);
    let theirs = run(call(&ada(&other), "list_notes", json!({}))).unwrap();
    assert_eq!(texts(&theirs), ["call the plumber about the boiler", "buy oat milk"], "each store its own");
    let empty = Arc::new(Store::new(Duration::ZERO));
    assert_eq!(run(call(&ada(&empty), "list_notes", json!({}))), Ok(json!([])));
    assert!(store.location().is_none());
}

/// A location that cannot be used is one line naming it, and never a panic.
#[tokio::test]
async fn a_bad_location_is_one_line() {
    let dir = TempDir::new("bad-db");
    let not_a_database = dir.path("notes.txt");
    let text = "these are my notes, in plain text, not a SQLite database\n".repeat(20);
    std::fs::write(&not_a_database, &text).unwrap();
    let cases = [
        (Location::Sqlite(dir.0.clone()), "cannot create or open the file"),
        (Location::Sqlite(dir.path("missing/notes.db")), "cannot create or open the file"),
        (Location::Sqlite(not_a_database.clone()), "it is not a SQLite database"),
        (Location::Postgres("postgres://ada:s3cret@127.0.0.1:1/notes".into()), "refused"),
        (Location::Postgres("postgres://ada:s3cret@127.0.0.1:notaport/notes".into()), "a bad URL"),
    ];
    for (location, reason) in cases {
        let error = Store::open(&location).await.unwrap_err();
        assert!(std::error::Error::source(&error).is_some(), "the driver's error is kept as the source");
        let error = error.to_string();
        assert!(error.starts_with(&format!("cannot open the database {location}: ")), "{error}");
        assert!(error.contains(reason), "{location}: {error}");
        assert!(!error.contains('\n') && !error.contains("s3cret"), "{error}");
    }
    assert_eq!(std::fs::read_to_string(&not_a_database).unwrap(), text, "the file is left as it was");
}

/// `Store::reset` puts the built-in database back as it started, ids included, only
/// when something was written; a store opened by location is never touched.
#[tokio::test]
async fn reset_puts_the_builtin_database_back_as_it_started() {
    let store = Arc::new(Store::seeded(Duration::ZERO));
    let first = call(&ada(&store), "list_notes", json!({})).await.unwrap();
    let added = call(&ada(&store), "add_note", json!({"text": "a third"})).await.unwrap();
    assert_eq!(added["id"], 4);
    call(&ada(&store), "remove_note", json!({"id": 1})).await.unwrap();
    assert_ne!(call(&ada(&store), "list_notes", json!({})).await.unwrap(), first);
    store.reset().await.unwrap();
    assert_eq!(call(&ada(&store), "list_notes", json!({})).await.unwrap(), first);
    let again = call(&ada(&store), "add_note", json!({"text": "a third"})).await.unwrap();
    assert_eq!(again, added, "ids start again where the seed left them");
    store.reset().await.unwrap();
    store.reset().await.unwrap(); // nothing written since: nothing to do
    assert_eq!(call(&ada(&store), "list_notes", json!({})).await.unwrap(), first);

    let empty = Arc::new(Store::new(Duration::ZERO));
    call(&ada(&empty), "add_note", json!({"text": "x"})).await.unwrap();
    empty.reset().await.unwrap();
    assert_eq!(call(&ada(&empty), "list_notes", json!({})).await.unwrap(), json!([]));

    let dir = TempDir::new("reset");
    let location = Location::Sqlite(dir.path("notes.db"));
    let file = open(&location).await;
    call(&ada(&file), "add_note", json!({"text": "kept"})).await.unwrap();
    file.reset().await.unwrap();
    assert_eq!(texts(&call(&ada(&file), "list_notes", json!({})).await.unwrap()), ["kept"]);
}

/// One step of a store's life, over the notes tools' three queries.
#[derive(Clone, Debug)]
enum Step {
    List { owner: u64, limit: u32 },
    Add { owner: u64, text: String, key: Option<String> },
    Remove { owner: u64, id: u64 },
    Reset,
}

fn step() -> impl proptest::strategy::Strategy<Value = Step> {
    use proptest::prelude::*;
    let owner = prop_oneof![0u64..4, Just(u64::MAX), Just(i64::MAX as u64 + 1)];
    let id = prop_oneof![0u64..12, Just(u64::MAX)];
    prop_oneof![
        (owner.clone(), prop_oneof![0u32..5, Just(u32::MAX)])
            .prop_map(|(owner, limit)| Step::List { owner, limit }),
        (owner.clone(), "[a-z]{0,3}", proptest::option::of("k[12]"))
            .prop_map(|(owner, text, key)| Step::Add { owner, text, key }),
        (owner, id).prop_map(|(owner, id)| Step::Remove { owner, id }),
        Just(Step::Reset),
    ]
}

/// What a store answers to `step`, as comparable text.
async fn answer(store: &Store, step: &Step) -> String {
    match step {
        Step::List { owner, limit } => format!("{:?}", store.notes_of(*owner, *limit).await.unwrap()),
        Step::Add { owner, text, key: None } => format!("{:?}", store.insert(*owner, text).await.unwrap()),
        Step::Add { owner, text, key } => {
            format!("{:?}", store.insert_once(*owner, text, key.as_deref()).await.unwrap())
        }
        Step::Remove { owner, id } => format!("{:?}", store.remove(*owner, *id).await.unwrap()),
        Step::Reset => format!("{:?}", store.reset().await.unwrap()),
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    /// `Store::plain` answers every sequence of writes (with and without idempotency keys),
    /// deletes, reads and resets exactly as the built-in SQLite database does: the same
    /// notes, ids and order, the same notes found by a key used before.
    #[test]
    fn the_plain_store_answers_as_the_builtin_database(
        seeded in proptest::bool::ANY,
        steps in proptest::collection::vec(step(), 0..24),
    ) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
        runtime.block_on(async {
            let sql = if seeded { Store::seeded(Duration::ZERO) } else { Store::new(Duration::ZERO) };
            let plain = Store::plain(seeded);
            for step in &steps {
                assert_eq!(answer(&plain, step).await, answer(&sql, step).await, "{step:?} in {steps:?}");
            }
        });
    }
}
