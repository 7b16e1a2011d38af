//! Tasks shared by replicas through Redis (features `redis` and `tasks`): a real
//! `redis-server`, two servers over streamable HTTP each with a [`RedisTaskStore`] on it,
//! and a 2026-07-28 client speaking raw JSON-RPC. A task started on replica A is seen,
//! answered and cancelled through replica B; a task whose replica stopped is reported
//! failed by the other within the lease. And the store alone: what it writes, under which
//! keys, for how long, and how many bytes a task takes in Redis.

#![cfg(all(feature = "redis", feature = "tasks"))]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolcall_mcp::tasks::{TaskRecord, TaskState, TaskStore};
use toolcall_mcp::{Caller, McpServer, RedisTaskStore, Rejection, TaskSettings, bearer_token};
// What generated code uses (`__private`): the toolset below stands in for a generated one.
use toolcall_runtime::__private::Dispatched;
use toolcall_runtime::__private::fast::Args;
use toolcall_runtime::{Answer, Emitted, Progress, TaskPolicy, TaskSupport, ToolInfo, Toolset};

mod common;
#[path = "common/redis.rs"]
mod local_redis;

use local_redis::redis_server;

/// The lease of the replicas here: a task whose replica stopped is failed this soon.
const LEASE: Duration = Duration::from_millis(600);

// The toolset: three task tools, written out by hand the way toolcall-build generates one.

/// The context: how many `slow` calls run now on this replica.
struct Jobs {
    live: Arc<AtomicUsize>,
}

const SLOW: &str =
    r#"{"type":"object","properties":{"ms":{"type":"integer","minimum":0}},"required":["ms"]}"#;
const ECHO: &str = r#"{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}"#;
const NONE: &str = r#"{"type":"object","properties":{}}"#;
const TASK: Option<TaskPolicy> = Some(TaskPolicy { support: TaskSupport::Optional, at_detach: false });

static INFO: [ToolInfo; 3] = [
    ToolInfo {
        module: "jobs",
        name: "slow",
        description: "Work for `ms` milliseconds.",
        parameters: SLOW,
        strict_parameters: SLOW,
        anthropic_strict_parameters: SLOW,
        gemini_parameters: SLOW,
        task: TASK,
        ..ToolInfo::EMPTY
    },
    ToolInfo {
        module: "jobs",
        name: "confirm",
        description: "Ask the user to confirm.",
        parameters: NONE,
        strict_parameters: NONE,
        anthropic_strict_parameters: NONE,
        task: TASK,
        ..ToolInfo::EMPTY
    },
    ToolInfo {
        module: "jobs",
        name: "echo",
        description: "Answer `text`.",
        parameters: ECHO,
        strict_parameters: ECHO,
        anthropic_strict_parameters: ECHO,
        gemini_parameters: ECHO,
        task: TASK,
        ..ToolInfo::EMPTY
    },
];

static EMITTED: Emitted = Emitted::new();

/// `slow`, `confirm` and `echo`, each a task for a client that takes tasks.
static JOBS: Toolset<Jobs> = Toolset::generated(&INFO, &EMITTED, dispatch);

fn dispatch<'a>(
    ctx: &'a Jobs,
    name: &'a str,
    args: Args<'a>,
    progress: &'a Progress,
) -> Option<Dispatched<'a>> {
    // Text arguments are parsed and handed back as a value.
    let Args::Value(args) = args else { return None };
    match name {
        "slow" => {
            let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(0);
            Some(Dispatched::Async(Box::pin(slow(ctx, ms, progress))))
        }
        "confirm" => Some(Dispatched::Async(Box::pin(confirm(progress)))),
        "echo" => Some(Dispatched::Ready(Ok(args.get("text").cloned().unwrap_or(Value::Null)))),
        _ => None,
    }
}

async fn slow(ctx: &Jobs, ms: u64, progress: &Progress) -> Result<Value, toolcall_runtime::ToolError> {
    ctx.live.fetch_add(1, Ordering::SeqCst);
    let _live = Live(&ctx.live);
    progress.report(0, Some(ms), "started");
    tokio::time::sleep(Duration::from_millis(ms)).await;
    Ok(json!(format!("slept {ms} ms")))
}

async fn confirm(progress: &Progress) -> Result<Value, toolcall_runtime::ToolError> {
    let schema =
        json!({"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]});
    Ok(match progress.elicit("Go on?", &schema).await {
        Ok(Answer::Accept(values)) if values["confirm"] == json!(true) => json!("confirmed"),
        Ok(other) => json!(format!("not confirmed: {other:?}")),
        Err(error) => json!(format!("not asked: {error}")),
    })
}

/// Counts one running `slow` call until dropped (finished or cancelled).
struct Live<'a>(&'a AtomicUsize);

impl Drop for Live<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

// The replicas.

/// A server of [`JOBS`] over HTTP on a runtime of its own (stopping the runtime stops the
/// replica, its task runs included), with its tasks in the Redis at `url`. Callers sign
/// in with bearer token `ada` or `grace`.
struct Replica {
    uri: String,
    live: Arc<AtomicUsize>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl Replica {
    async fn start(name: &str, url: &str) -> Replica {
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        let live = Arc::new(AtomicUsize::new(0));
        let (name, url, counted) = (name.to_owned(), url.to_owned(), Arc::clone(&live));
        let uri = runtime
            .spawn(async move {
                let store = RedisTaskStore::connect(&url).await.expect("connects to Redis");
                let mut tasks = TaskSettings::in_store(Arc::new(store));
                tasks.lease = LEASE;
                tasks.poll_interval = Duration::from_millis(50);
                tasks.ttl = Duration::from_secs(60);
                tasks.replica = name;
                let server = McpServer::new(&JOBS, Jobs { live: Arc::clone(&counted) })
                    .tasks(tasks)
                    .context_from_request(move |request| match bearer_token(request) {
                        Some(user @ ("ada" | "grace")) => {
                            Ok(Caller::new(user, Jobs { live: Arc::clone(&counted) }))
                        }
                        _ => Err(Rejection::unauthorized("send Authorization: Bearer ada")),
                    });
                common::net::serve(server).await
            })
            .await
            .unwrap();
        Replica { uri, live, runtime: Some(runtime) }
    }

    /// Stops the replica at once, as a killed process would: its runtime, with the server
    /// and every task it runs, is gone.
    fn stop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        self.stop();
    }
}

// The client: raw JSON-RPC of 2026-07-28, one POST a request.

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// `method` with `params` sent to `uri` as `user`, with the `_meta` of a 2026-07-28 request
/// from a client that takes tasks and can be asked (elicitation); the JSON-RPC answer.
async fn rpc(uri: &str, user: &str, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "elicitation": {},
            "extensions": {"io.modelcontextprotocol/tasks": {}},
        },
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
    });
    let name = params.get("name").or_else(|| params.get("taskId")).and_then(Value::as_str).map(str::to_owned);
    let id = NEXT_ID.fetch_add(1, Ordering::SeqCst);
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
    let bearer = format!("Bearer {user}");
    let mut headers =
        vec![("mcp-protocol-version", "2026-07-28"), ("mcp-method", method), ("authorization", &bearer)];
    if let Some(name) = &name {
        headers.push(("mcp-name", name));
    }
    let (status, _, text) = common::net::post(uri, body, &headers).await;
    assert_eq!(status, 200, "{method}: {text}");
    message_of(&text)
}

/// The JSON-RPC message in an HTTP response body (plain JSON, or an SSE event's data).
fn message_of(body: &str) -> Value {
    body.lines()
        .map(|line| line.strip_prefix("data:").unwrap_or(line).trim())
        .find_map(|line| serde_json::from_str::<Value>(line).ok().filter(|v| v.get("jsonrpc").is_some()))
        .unwrap_or_else(|| panic!("no JSON-RPC message in {body}"))
}

/// Calls `tool` with `arguments` on `uri` as ada: the new task's id.
async fn start(uri: &str, tool: &str, arguments: Value) -> String {
    let answer = rpc(uri, "ada", "tools/call", json!({"name": tool, "arguments": arguments})).await;
    assert_eq!(answer["result"]["resultType"], "task", "{answer}");
    assert_eq!(answer["result"]["status"], "working", "{answer}");
    answer["result"]["taskId"].as_str().unwrap().to_owned()
}

/// `tasks/get` of task `id` on `uri` as ada, until its status is `status` (within 10 s);
/// that answer's result, and how long it took.
async fn until(uri: &str, id: &str, status: &str) -> (Value, Duration) {
    let began = Instant::now();
    loop {
        let answer = rpc(uri, "ada", "tasks/get", json!({"taskId": id})).await;
        if answer["result"]["status"] == status {
            return (answer["result"].clone(), began.elapsed());
        }
        assert!(began.elapsed() < Duration::from_secs(10), "task {id} never became {status}: {answer}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_started_on_one_replica_is_answered_through_the_other() {
    let Some((_redis, url)) = redis_server().await else { return };
    let (a, b) = (Replica::start("a", &url).await, Replica::start("b", &url).await);
    let id = start(&a.uri, "confirm", json!({})).await;
    // B sees the question A's run asked, from Redis.
    let (asked, _) = until(&b.uri, &id, "input_required").await;
    assert_eq!(asked["inputRequests"]["q0"]["method"], "elicitation/create", "{asked}");
    assert_eq!(asked["inputRequests"]["q0"]["params"]["message"], "Go on?", "{asked}");
    // Another caller does not: the same error as for no task at all.
    let stranger = rpc(&b.uri, "grace", "tasks/get", json!({"taskId": id})).await;
    assert_eq!(stranger["error"]["code"], -32602, "{stranger}");
    assert_eq!(stranger["error"]["data"]["error"], "unknown_task", "{stranger}");
    // The answer given to B reaches the run on A.
    let answers = json!({"q0": {"action": "accept", "content": {"confirm": true}}});
    let updated = rpc(&b.uri, "ada", "tasks/update", json!({"taskId": id, "inputResponses": answers})).await;
    assert!(updated.get("result").is_some(), "{updated}");
    let (done, _) = until(&b.uri, &id, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "confirmed", "{done}");
    let (on_a, _) = until(&a.uri, &id, "completed").await;
    assert_eq!(on_a["result"], done["result"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_started_on_one_replica_is_cancelled_through_the_other() {
    let Some((_redis, url)) = redis_server().await else { return };
    let (a, b) = (Replica::start("a", &url).await, Replica::start("b", &url).await);
    let id = start(&a.uri, "slow", json!({"ms": 60_000})).await;
    let (working, _) = until(&b.uri, &id, "working").await;
    assert_eq!(a.live.load(Ordering::SeqCst), 1, "the call runs on A: {working}");
    assert_eq!(b.live.load(Ordering::SeqCst), 0);
    let stranger = rpc(&b.uri, "grace", "tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(stranger["error"]["code"], -32602, "another caller cannot cancel it: {stranger}");
    let cancelled = rpc(&b.uri, "ada", "tasks/cancel", json!({"taskId": id})).await;
    assert!(cancelled.get("result").is_some(), "{cancelled}");
    let (over, _) = until(&b.uri, &id, "cancelled").await;
    assert!(over.get("result").is_none() && over.get("error").is_none(), "{over}");
    assert_eq!(a.live.load(Ordering::SeqCst), 0, "A dropped the call");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_whose_replica_stopped_is_failed_by_the_other_within_the_lease() {
    let Some((_redis, url)) = redis_server().await else { return };
    let (mut a, b) = (Replica::start("a", &url).await, Replica::start("b", &url).await);
    let id = start(&a.uri, "slow", json!({"ms": 60_000})).await;
    // Past a lease, A still vouches for it: renewed, not failed.
    tokio::time::sleep(LEASE * 2).await;
    let (working, _) = until(&b.uri, &id, "working").await;
    assert_eq!(working["statusMessage"], "started", "{working}");
    a.stop();
    let (failed, took) = until(&b.uri, &id, "failed").await;
    eprintln!("failed {took:?} after its replica stopped (lease {LEASE:?})");
    // At most a lease after A's last renewal (before it stopped), give or take a poll.
    assert!(took <= LEASE + Duration::from_millis(500), "failed {took:?} after A stopped (lease {LEASE:?})");
    assert_eq!(failed["error"]["code"], -32603, "{failed}");
    assert_eq!(failed["error"]["data"], json!({"error": "replica_lost", "replica": "a"}), "{failed}");
    assert!(failed["error"]["message"].as_str().unwrap().contains("stopped"), "{failed}");
    // Written back: it stays failed, and cancelling it changes nothing.
    let cancelled = rpc(&b.uri, "ada", "tasks/cancel", json!({"taskId": id})).await;
    assert!(cancelled.get("result").is_some(), "{cancelled}");
    let again = rpc(&b.uri, "ada", "tasks/get", json!({"taskId": id})).await;
    assert_eq!(again["result"], failed, "{again}");
}

// The store alone.

/// A connection to the Redis at `url`, to read what the store wrote.
async fn redis_connection(url: &str) -> redis::aio::MultiplexedConnection {
    redis::Client::open(url).unwrap().get_multiplexed_async_connection().await.unwrap()
}

/// `command` with `args` on `connection`.
async fn ask_redis<T: redis::FromRedisValue>(
    connection: &mut redis::aio::MultiplexedConnection,
    command: &str,
    args: &[&str],
) -> T {
    redis::cmd(command).arg(args).query_async(connection).await.unwrap()
}

/// A task created `age` ago, kept `ttl` after.
fn record(id: &str, age: Duration, ttl: Duration) -> TaskRecord {
    // RFC 3339, as rmcp writes it.
    let created_at = chrono::DateTime::<chrono::Utc>::from(std::time::SystemTime::now() - age).to_rfc3339();
    TaskRecord {
        id: id.to_owned(),
        owner: "0123456789abcdef0123456789abcdef".to_owned(),
        tool: "slow".to_owned(),
        state: TaskState::Working,
        status_message: None,
        created_at: created_at.clone(),
        last_updated_at: created_at,
        ttl_ms: u64::try_from(ttl.as_millis()).unwrap(),
        poll_interval_ms: 500,
        input_requests: BTreeMap::new(),
        result: None,
        error: None,
        replica: "r1".to_owned(),
        lease_until_ms: 0,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_redis_store_keeps_a_task_its_answers_and_its_cancellation_for_its_ttl() {
    let Some((_redis, url)) = redis_server().await else { return };
    let store = RedisTaskStore::connect(&url).await.expect("connects");
    let mut raw = redis_connection(&url).await;
    let id = "00112233445566778899aabbccddeeff";
    let (key, answers_key, cancel_key) = (
        format!("toolcall:task:{{{id}}}"),
        format!("toolcall:task:{{{id}}}:answers"),
        format!("toolcall:task:{{{id}}}:cancel"),
    );
    // Created 20 s ago, kept 60 s: 40 s left, not 60.
    let mut task = record(id, Duration::from_secs(20), Duration::from_secs(60));
    store.save(&task).await.unwrap();
    assert_eq!(store.load(id).await.unwrap(), Some(task.clone()));
    let ttl: i64 = ask_redis(&mut raw, "PTTL", &[&key]).await;
    assert!((38_000..=40_000).contains(&ttl), "the TTL counts from the creation: {ttl} ms");
    let stored: String = ask_redis(&mut raw, "GET", &[&key]).await;
    assert_eq!(serde_json::from_str::<TaskRecord>(&stored).unwrap(), task, "the record as JSON");

    // Answers add up, each kept as JSON, and expire with the task.
    let first = BTreeMap::from([("q0".to_owned(), json!({"action": "accept", "content": {"n": 1}}))]);
    let second = BTreeMap::from([("q1".to_owned(), json!({"action": "decline"}))]);
    store.answer(id, &first).await.unwrap();
    store.answer(id, &second).await.unwrap();
    store.answer(id, &BTreeMap::new()).await.unwrap();
    let mut both = first.clone();
    both.extend(second);
    assert_eq!(store.answers(id).await.unwrap(), both);
    let ttl: i64 = ask_redis(&mut raw, "PTTL", &[&answers_key]).await;
    assert!((38_000..=40_000).contains(&ttl), "the answers expire with the task: {ttl} ms");

    assert!(!store.is_cancelled(id).await.unwrap());
    store.cancel(id).await.unwrap();
    assert!(store.is_cancelled(id).await.unwrap());
    let ttl: i64 = ask_redis(&mut raw, "PTTL", &[&cancel_key]).await;
    assert!((38_000..=40_000).contains(&ttl), "the flag expires with the task: {ttl} ms");

    // A rewrite keeps the answers, the flag and the remaining time.
    tokio::time::sleep(Duration::from_millis(300)).await;
    task.state = TaskState::Completed;
    task.result = Some(json!({"content": [{"type": "text", "text": "done"}]}));
    store.save(&task).await.unwrap();
    assert_eq!(store.load(id).await.unwrap(), Some(task.clone()));
    assert_eq!(store.answers(id).await.unwrap(), both);
    assert!(store.is_cancelled(id).await.unwrap());
    let ttl: i64 = ask_redis(&mut raw, "PTTL", &[&key]).await;
    assert!((37_500..=39_700).contains(&ttl), "a rewrite does not start the TTL again: {ttl} ms");

    // Nothing is known of a task never saved, and nothing is written for it.
    let unknown = "ffeeddccbbaa99887766554433221100";
    assert_eq!(store.load(unknown).await.unwrap(), None);
    store.answer(unknown, &first).await.unwrap();
    store.cancel(unknown).await.unwrap();
    assert!(store.answers(unknown).await.unwrap().is_empty());
    assert!(!store.is_cancelled(unknown).await.unwrap());
    assert_eq!(store.load(&"f".repeat(100_000)).await.unwrap(), None, "an id no server made");
    let mut keys: Vec<String> = ask_redis(&mut raw, "KEYS", &["*"]).await;
    keys.sort();
    assert_eq!(keys, [key.clone(), answers_key.clone(), cancel_key.clone()]);

    // Past its TTL the task is gone, with its answers and its flag.
    let short = "0000000000000000000000000000000a";
    store.save(&record(short, Duration::ZERO, Duration::from_secs(1))).await.unwrap();
    store.answer(short, &first).await.unwrap();
    store.cancel(short).await.unwrap();
    assert!(store.load(short).await.unwrap().is_some() && store.is_cancelled(short).await.unwrap());
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    assert_eq!(store.load(short).await.unwrap(), None);
    assert!(store.answers(short).await.unwrap().is_empty() && !store.is_cancelled(short).await.unwrap());
    // A task saved after its TTL passed is not stored at all.
    store
        .save(&record("0000000000000000000000000000000b", Duration::from_secs(61), Duration::from_secs(60)))
        .await
        .unwrap();
    assert_eq!(store.load("0000000000000000000000000000000b").await.unwrap(), None);
    let count: usize = ask_redis(&mut raw, "DBSIZE", &[]).await;
    assert_eq!(count, 3, "only the first task's keys are left");

    // A record that is not a task's JSON is the store's error, not a panic nor a miss.
    let () = ask_redis(&mut raw, "SET", &[&key, "{not json"]).await;
    let error = store.load(id).await.unwrap_err().to_string();
    assert!(error.starts_with("task store: task 00112233445566778899aabbccddeeff: its record"), "{error}");
}

/// What a task costs in Redis (`MEMORY USAGE` of its keys, in bytes) and in a process
/// (its record's size plus its text, estimated from its JSON). Prints the numbers:
/// `CI=true cargo test -p toolcall-mcp --features redis --test tasks_replicas -- --nocapture what_a_task_costs`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_a_task_costs() {
    let Some((_redis, url)) = redis_server().await else { return };
    let a = Replica::start("a", &url).await;
    let mut raw = redis_connection(&url).await;
    let usage = |key: String| {
        let mut raw = raw.clone();
        async move {
            ask_redis::<Option<u64>>(&mut raw, "MEMORY", &["USAGE", &key, "SAMPLES", "0"]).await.unwrap_or(0)
        }
    };
    let store = RedisTaskStore::connect(&url).await.unwrap();
    let mut rows = Vec::new();
    for (what, text) in [("small (\"hi\")", "hi".to_owned()), ("1 KiB result", "x".repeat(1024))] {
        let id = start(&a.uri, "echo", json!({"text": text})).await;
        let (done, _) = until(&a.uri, &id, "completed").await;
        assert_eq!(done["result"]["content"][0]["text"], text.as_str());
        let key = format!("toolcall:task:{{{id}}}");
        let record = store.load(&id).await.unwrap().unwrap();
        let json = serde_json::to_string(&record).unwrap();
        if rows.is_empty() {
            eprintln!("a small completed task's record: {json}");
        }
        rows.push((what, usage(key).await, json.len(), in_memory(&record)));
    }
    // The side keys, as `tasks/update` and `tasks/cancel` write them.
    let id = start(&a.uri, "slow", json!({"ms": 60_000})).await;
    let answer =
        BTreeMap::from([("q0".to_owned(), json!({"action": "accept", "content": {"confirm": true}}))]);
    store.answer(&id, &answer).await.unwrap();
    store.cancel(&id).await.unwrap();
    let answers = usage(format!("toolcall:task:{{{id}}}:answers")).await;
    let cancel = usage(format!("toolcall:task:{{{id}}}:cancel")).await;
    let version: String = ask_redis(&mut raw, "INFO", &["server"]).await;
    let version = version.lines().find(|l| l.starts_with("redis_version:")).unwrap_or("?").to_owned();
    eprintln!(
        "task costs ({version}; a TaskRecord is {} B before its heap):",
        std::mem::size_of::<TaskRecord>()
    );
    for (what, redis_bytes, json_bytes, memory_bytes) in &rows {
        eprintln!(
            "  {what}: record key {redis_bytes} B in Redis (JSON {json_bytes} B); in memory about {memory_bytes} B"
        );
    }
    eprintln!("  answers hash with one answer: {answers} B; cancel flag: {cancel} B");
    let (small, large) = (rows[0].1, rows[1].1);
    assert!(small > 0 && small < 2048, "{rows:?}");
    assert!(large >= small + 1024 && large < small + 4096, "{rows:?}");
    assert!(answers > 0 && answers < 1024 && cancel > 0 && cancel < 256, "{answers} {cancel}");
}

/// The bytes a task takes in a process: its record, the text of its strings, and its
/// questions, result and error estimated by their JSON text (a `Value` takes more).
fn in_memory(record: &TaskRecord) -> usize {
    let texts = [
        &record.id,
        &record.owner,
        &record.tool,
        &record.created_at,
        &record.last_updated_at,
        &record.replica,
    ]
    .iter()
    .map(|text| text.len())
    .sum::<usize>()
        + record.status_message.as_ref().map_or(0, String::len);
    let json = |value: &Option<Value>| value.as_ref().map_or(0, |v| v.to_string().len());
    let questions = record.input_requests.iter().map(|(k, v)| k.len() + v.to_string().len()).sum::<usize>();
    std::mem::size_of::<TaskRecord>() + texts + questions + json(&record.result) + json(&record.error)
}
