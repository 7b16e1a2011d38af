//! toolcall's benchmarks, with their baselines measured in the same run.
//!
//! Run with `cargo bench -p toolcall-bench`; `python3 toolcall-bench/report.py` runs them
//! and writes `BENCHMARKS.md` from criterion's estimates. Benchmark ids are
//! `<group>/<function>`; the report maps them to the DESIGN.md targets.
//!
//! | group | what |
//! |---|---|
//! | `emit` | `ALL.emit(format, strict)` for each format |
//! | `accessors` | `ALL.names()` (iterated), `ALL.describe()` |
//! | `run_<tool>` | `toolcall` = `ALL.run`; `serde_derive` = hand-written dispatcher; `jsonschema_serde` = validate with `jsonschema`, then the hand-written dispatcher |
//! | `run_json_<tool>` | the same from JSON text (`ALL.run_json`, `serde_json::from_str`) |
//! | `render_tool` | `render::render_tool` on a runtime-built `ir::Tool` (get_weather) |
//! | `generate` | `Builder::generate_from` on 20 and 1,000 synthetic tools, in memory |
//! | `dispatch` | `ALL.run` on the first and the last tool of a 10-tool and a 1,000-tool toolset (same call shape) |
//! | `call_add` | `run` = `ALL.run("add")`; `call_sync` = `ALL.call(&(), "add")` polled to completion; `call_async` = `ALL.call(&(), "add_async")`, the same tool as an `async fn` |

#![allow(missing_docs, reason = "criterion's macros generate undocumented items")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "benchmark setup should fail loudly on a broken fixture"
)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use serde_json::Value;
use toolcall_bench::{baseline, big_toolset, small_toolset, synth, toolset};
use toolcall_build::Builder;

#[path = "common/sources.rs"]
mod sources;
use sources::synthetic_sources;
use toolcall_runtime::Format;
use toolcall_runtime::render::render_tool;

/// The three real tools and the arguments each is called with.
const CALLS: [(&str, &str); 3] = [
    ("add", r#"{"a":2,"b":40}"#),
    ("get_weather", r#"{"city":"Oslo"}"#),
    (
        "create_order",
        r#"{"order":{"customer":"Ada Lovelace","address":{"street":"Storgata 1","city":"Oslo","zip":"0155","country":"NO"},"items":[{"sku":"A-100","quantity":2,"unit_cents":1250},{"sku":"B-7","quantity":1,"unit_cents":499}],"note":"leave at the door"}}"#,
    ),
];

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(1))
        .sample_size(30)
        // Without rayon the bootstrap is single-threaded; 10k resamples keep analysis short.
        .nresamples(10_000)
}

fn emit(c: &mut Criterion) {
    let mut group = c.benchmark_group("emit");
    for format in Format::ALL {
        for strict in [false, true] {
            let id = if strict { format!("{}_strict", format.as_str()) } else { format.as_str().to_owned() };
            group.bench_function(id, |b| {
                b.iter(|| toolset::ALL.emit(black_box(format), black_box(strict)));
            });
        }
    }
    group.finish();
}

fn accessors(c: &mut Criterion) {
    let mut group = c.benchmark_group("accessors");
    group.bench_function("names", |b| {
        b.iter(|| {
            for name in black_box(&toolset::ALL).names() {
                black_box(name);
            }
        });
    });
    group.bench_function("describe", |b| b.iter(|| black_box(&toolset::ALL).describe()));
    group.finish();
}

/// The `jsonschema` baseline: one compiled validator per tool, built from the tool's
/// JSON Schema (`describe().parameters`), checked before the hand-written dispatcher.
struct Validated {
    validators: Vec<(&'static str, jsonschema::Validator)>,
}

impl Validated {
    fn new() -> Self {
        let validators = toolset::ALL
            .describe()
            .iter()
            .map(|info| (info.name, jsonschema::validator_for(&info.parameters_value()).unwrap()))
            .collect();
        Validated { validators }
    }

    fn validator(&self, name: &str) -> Option<&jsonschema::Validator> {
        self.validators.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }

    fn run(&self, name: &str, args: &Value) -> Result<Value, String> {
        let validator = self.validator(name).ok_or("unknown tool")?;
        validator.validate(args).map_err(|e| e.to_string())?;
        baseline::run(name, args).map_err(|e| format!("{e:?}"))
    }

    fn run_json(&self, name: &str, args: &str) -> Result<Value, String> {
        let args: Value = serde_json::from_str(args).map_err(|e| e.to_string())?;
        self.run(name, &args)
    }
}

fn run(c: &mut Criterion) {
    let validated = Validated::new();
    for (name, text) in CALLS {
        let args: Value = serde_json::from_str(text).unwrap();
        // Every implementation must agree before it is timed.
        let expected = toolset::ALL.run(name, &args).unwrap();
        assert_eq!(baseline::run(name, &args).unwrap(), expected);
        assert_eq!(validated.run(name, &args).unwrap(), expected);
        assert_eq!(toolset::ALL.run_json(name, text).unwrap(), expected);
        assert_eq!(baseline::run_json(name, text).unwrap(), expected);
        assert_eq!(validated.run_json(name, text).unwrap(), expected);

        let mut group = c.benchmark_group(format!("run_{name}"));
        group.bench_function("toolcall", |b| b.iter(|| toolset::ALL.run(black_box(name), black_box(&args))));
        group.bench_function("serde_derive", |b| b.iter(|| baseline::run(black_box(name), black_box(&args))));
        group.bench_function("jsonschema_serde", |b| {
            b.iter(|| validated.run(black_box(name), black_box(&args)));
        });
        group.finish();

        let mut group = c.benchmark_group(format!("run_json_{name}"));
        group.bench_function("toolcall", |b| {
            b.iter(|| toolset::ALL.run_json(black_box(name), black_box(text)));
        });
        group.bench_function("serde_derive", |b| {
            b.iter(|| baseline::run_json(black_box(name), black_box(text)));
        });
        group.bench_function("jsonschema_serde", |b| {
            b.iter(|| validated.run_json(black_box(name), black_box(text)));
        });
        group.finish();
    }
}

fn render(c: &mut Criterion) {
    let tool = toolcall_bench::weather_tool();
    let mut group = c.benchmark_group("render_tool");
    for (id, format, strict) in [
        ("openai", Format::OpenAi, false),
        ("openai_strict", Format::OpenAi, true),
        ("anthropic", Format::Anthropic, false),
    ] {
        group.bench_function(id, |b| b.iter(|| render_tool(black_box(&tool), format, strict)));
    }
    group.finish();
}

fn generate(c: &mut Criterion) {
    let mut group = c.benchmark_group("generate");
    for (id, n, modules) in [("20_tools", 20, 2), ("1000_tools", 1000, 10)] {
        let sources = synthetic_sources(n, modules);
        let builder = Builder::new().module_root("crate::tools");
        let generated = builder.generate_from(sources.clone()).unwrap();
        assert!(!generated.has_errors(), "{:?}", generated.diagnostics);
        if n >= 1000 {
            group.sample_size(10).measurement_time(Duration::from_secs(4));
        }
        group.bench_function(id, |b| {
            b.iter_batched(
                || sources.clone(),
                |sources| builder.generate_from(sources).unwrap(),
                BatchSize::LargeInput,
            );
        });
    }
    group.finish();
}

fn dispatch(c: &mut Criterion) {
    let args: Value = serde_json::from_str(synth::PROBE_ARGS).unwrap();
    let small_last = synth::last_tool_name(small_toolset::ALL.len());
    let big_last = synth::last_tool_name(big_toolset::ALL.len());
    let first = synth::tool_name(0);
    assert_eq!(small_toolset::ALL.len(), 10);
    assert_eq!(big_toolset::ALL.len(), 1000);
    assert_eq!(small_toolset::ALL.names().last(), Some(small_last.as_str()));
    assert_eq!(big_toolset::ALL.names().last(), Some(big_last.as_str()));
    assert_eq!(big_toolset::ALL.names().next(), Some(first.as_str()));
    // The first and last tools have the same shape, so every call below does the same work
    // but for finding the tool.
    let expected = small_toolset::ALL.run(&small_last, &args).unwrap();
    assert_eq!(big_toolset::ALL.run(&big_last, &args).unwrap(), expected);
    assert_eq!(big_toolset::ALL.run(&first, &args).unwrap(), expected);
    assert_eq!(small_toolset::ALL.run(&first, &args).unwrap(), expected);

    let mut group = c.benchmark_group("dispatch");
    let cases = [
        ("10_tools_first", &small_toolset::ALL, &first),
        ("10_tools_last", &small_toolset::ALL, &small_last),
        ("1000_tools_first", &big_toolset::ALL, &first),
        ("1000_tools_last", &big_toolset::ALL, &big_last),
    ];
    for (id, set, name) in cases {
        group.bench_function(id, |b| b.iter(|| set.run(black_box(name), black_box(&args))));
    }
    group.finish();
}

/// Polls a call to completion with a no-op waker: the tools here never wait, so this is
/// the cost of the entry point itself, with no executor in the measurement.
fn complete<F: std::future::Future + Unpin>(mut future: F) -> F::Output {
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(out) = std::pin::Pin::new(&mut future).poll(&mut cx) {
            return out;
        }
    }
}

fn call(c: &mut Criterion) {
    let args: Value = serde_json::from_str(CALLS[0].1).unwrap();
    let expected = toolset::ALL.run("add", &args).unwrap();
    assert_eq!(complete(toolset::ALL.call(&(), "add", &args)).unwrap(), expected);
    assert_eq!(complete(toolset::ALL.call(&(), "add_async", &args)).unwrap(), expected);
    let mut group = c.benchmark_group("call_add");
    group.bench_function("run", |b| b.iter(|| toolset::ALL.run(black_box("add"), black_box(&args))));
    group.bench_function("call_sync", |b| {
        b.iter(|| complete(toolset::ALL.call(&(), black_box("add"), black_box(&args))));
    });
    group.bench_function("call_async", |b| {
        b.iter(|| complete(toolset::ALL.call(&(), black_box("add_async"), black_box(&args))));
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = config();
    targets = emit, accessors, run, render, generate, dispatch, call
}
criterion_main!(benches);
