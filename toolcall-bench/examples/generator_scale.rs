//! Generator time against tool count: `Builder::generate_from` on synthetic toolsets of
//! 10 to 5,000 tools, in memory, as the `generate` benchmark calls it; one CSV row per size
//! for `toolcall-bench/figures/draw.py`.
//!
//! ```text
//! cargo build --release -p toolcall-bench --example generator_scale
//! target/release/examples/generator_scale --csv toolcall-bench/figures/data/generator.csv
//! target/release/examples/generator_scale --runs 3 --tools 10,100   # a quick look, to stdout
//! target/release/examples/generator_scale --csv -                     # stdout as well
//! ```
//!
//! The tools come from `toolcall_bench::synth` (four shapes, 100 tools per module file, so
//! 5,000 tools are 50 files). Each size is generated once unmeasured, then in `--runs`
//! samples (7 by default). A sample times `batch` calls of `generate_from` back to back
//! (the sources are cloned before the clock starts; `batch` is 1 for sizes that take
//! 0.5 s or more, and enough calls to fill about 0.5 s for smaller ones) and divides by
//! `batch`. Two clocks: the process's CPU time (user + system, from `/proc/self/stat`,
//! which counts the generator's worker thread; 10 ms ticks, hence the batches) and wall
//! time. On a machine shared with other builds the wall time stretches with the load and
//! the CPU time barely moves, so the figure draws the CPU time and shows the wall time
//! beside it. The row holds each clock's median, fastest and slowest sample and the size
//! of the generated `tools.rs` in bytes and lines; the date and commit of the measured
//! code (`+dirty` when toolcall-build or toolcall-runtime has uncommitted changes) and the
//! 1-minute load average when the size started end it. Without `/proc` the CPU columns
//! are empty.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use toolcall_build::{Builder, SourceFile};

#[path = "../benches/common/sources.rs"]
mod sources;
use sources::synthetic_sources;

/// The tool counts measured when `--tools` is not given.
const DEFAULT_TOOLS: [usize; 7] = [10, 50, 100, 500, 1000, 2000, 5000];
/// Tools per module file.
const TOOLS_PER_FILE: usize = 100;
/// The CSV's header row: units in the column names.
const HEADER: &str = "tools,files,cpu_median_ms,cpu_min_ms,cpu_max_ms,wall_median_ms,wall_min_ms,wall_max_ms,\
                      runs,batch,generated_bytes,generated_lines,date,commit,load_1min";
/// How long one sample should last at least, so the CPU clock's 10 ms ticks stay small.
const SAMPLE: Duration = Duration::from_millis(500);
/// Clock ticks per second of `/proc/self/stat`'s times (`USER_HZ`, 100 on Linux).
const TICKS_PER_SECOND: f64 = 100.0;

/// What the command line asks for.
struct Options {
    /// Tool counts, in order.
    tools: Vec<usize>,
    /// Measured runs per count.
    runs: usize,
    /// Where the CSV goes; stdout when `None`.
    csv: Option<PathBuf>,
}

/// One tool count's measurement.
struct Row {
    /// The 1-minute load average when it started (empty where /proc/loadavg is not).
    load: String,
    tools: usize,
    files: usize,
    /// CPU time per call, one per sample, sorted; empty without `/proc/self/stat`.
    cpu: Vec<Duration>,
    /// Wall time per call, one per sample, sorted.
    wall: Vec<Duration>,
    /// Calls per sample.
    batch: usize,
    bytes: usize,
    lines: usize,
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: generator_scale: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let options = parse_options(std::env::args().skip(1))?;
    let stamp = format!("{},{}", today(), commit());
    let mut lines = vec![HEADER.to_owned()];
    for &tools in &options.tools {
        let row = measure(tools, options.runs)?;
        eprintln!(
            "{tools} tools: median {:.2} ms CPU, {:.2} ms wall over {} samples of {} call(s), {} bytes generated",
            millis(median(&row.cpu)),
            millis(median(&row.wall)),
            row.wall.len(),
            row.batch,
            row.bytes
        );
        lines.push(format!("{},{stamp},{}", csv_fields(&row), row.load));
    }
    let text = lines.join("\n") + "\n";
    match &options.csv {
        Some(path) => write_csv(path, &text),
        None => {
            print!("{text}");
            Ok(())
        }
    }
}

/// Reads `--tools 10,50`, `--runs N` and `--csv PATH`.
fn parse_options(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut options = Options { tools: DEFAULT_TOOLS.to_vec(), runs: 7, csv: None };
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("`{flag}` needs a value"));
        match flag.as_str() {
            "--tools" => options.tools = parse_counts(&value()?)?,
            "--runs" => options.runs = parse_count(&value()?, "--runs")?,
            // `-` is stdout, as without `--csv`.
            "--csv" => options.csv = Some(value()?).filter(|path| path.as_str() != "-").map(PathBuf::from),
            _ => return Err(format!("unknown argument `{flag}` (use --tools N,N.. --runs N --csv PATH)")),
        }
    }
    Ok(options)
}

/// `10,50,100` as counts, each at least 1.
fn parse_counts(text: &str) -> Result<Vec<usize>, String> {
    text.split(',').map(|part| parse_count(part.trim(), "--tools")).collect()
}

/// A count of at least 1, or an error naming the flag.
fn parse_count(text: &str, flag: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("`{flag}` takes whole numbers above 0, not `{text}`")),
    }
}

/// Generates `tools` synthetic tools once unmeasured, then `runs` samples measured.
fn measure(tools: usize, runs: usize) -> Result<Row, String> {
    let load = load_average();
    let files = tools.div_ceil(TOOLS_PER_FILE);
    let sources = synthetic_sources(tools, files);
    let builder = Builder::new().module_root("crate::tools");
    let generated = builder.generate_from(sources.clone()).map_err(|e| format!("{tools} tools: {e}"))?;
    if generated.has_errors() {
        return Err(format!("{tools} tools: the generator reported errors: {:?}", generated.diagnostics));
    }
    // The batch from a second call: the first one is slower (cold caches, first allocations).
    let (_, one) = sample(&builder, &sources, 1);
    let batch = batch_for(one);
    let (mut cpu, mut wall) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
    for _ in 0..runs {
        let (cpu_time, wall_time) = sample(&builder, &sources, batch);
        cpu.extend(cpu_time);
        wall.push(wall_time);
    }
    cpu.sort();
    wall.sort();
    let (bytes, lines) = (generated.code.len(), generated.code.lines().count());
    Ok(Row { load, tools, files, cpu, wall, batch, bytes, lines })
}

/// Calls per sample: enough that a sample lasts about [`SAMPLE`], given one call's time.
fn batch_for(one: Duration) -> usize {
    let calls = SAMPLE.as_secs_f64() / one.as_secs_f64().max(1e-6);
    (calls.ceil() as usize).clamp(1, 10_000)
}

/// One sample: `batch` calls of `generate_from`; CPU time (when known) and wall time per call.
fn sample(builder: &Builder, sources: &[SourceFile], batch: usize) -> (Option<Duration>, Duration) {
    let inputs: Vec<Vec<SourceFile>> = (0..batch).map(|_| sources.to_vec()).collect();
    let cpu_start = process_cpu_time();
    let start = Instant::now();
    for input in inputs {
        drop(std::hint::black_box(builder.generate_from(input)));
    }
    let wall = start.elapsed();
    let cpu = cpu_start.zip(process_cpu_time()).map(|(a, b)| b.saturating_sub(a));
    let per_call = |d: Duration| d / u32::try_from(batch).unwrap_or(u32::MAX);
    (cpu.map(per_call), per_call(wall))
}

/// The process's user + system CPU time so far, from `/proc/self/stat` (all its threads,
/// including those that have exited); `None` where that file is not.
fn process_cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces): state is the first, utime
    // the 12th and stime the 13th.
    let rest = stat.rsplit_once(')')?.1;
    let mut fields = rest.split_whitespace().skip(11);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    Some(Duration::from_secs_f64((user + system) as f64 / TICKS_PER_SECOND))
}

/// The middle of sorted times (the mean of the two middle ones for an even count).
fn median(sorted: &[Duration]) -> Duration {
    match sorted.len() {
        0 => Duration::ZERO,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2,
    }
}

fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The row's fields before the date and commit.
fn csv_fields(row: &Row) -> String {
    let (cpu, wall) = (spread(&row.cpu), spread(&row.wall));
    let (runs, batch, bytes, lines) = (row.wall.len(), row.batch, row.bytes, row.lines);
    format!("{},{},{cpu},{wall},{runs},{batch},{bytes},{lines}", row.tools, row.files)
}

/// `median,min,max` in milliseconds of sorted times; three empty fields when there are none.
fn spread(sorted: &[Duration]) -> String {
    match (sorted.first(), sorted.last()) {
        (Some(&first), Some(&last)) => {
            format!("{:.3},{:.3},{:.3}", millis(median(sorted)), millis(first), millis(last))
        }
        _ => ",,".to_owned(),
    }
}

fn write_csv(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    eprintln!("wrote {}", path.display());
    Ok(())
}

/// The 1-minute load average from /proc/loadavg, or "" where there is none.
fn load_average() -> String {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    text.split_whitespace().next().unwrap_or_default().to_owned()
}

/// Today's date (UTC) as `YYYY-MM-DD`.
fn today() -> String {
    let days = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() / 86_400);
    let (year, month, day) = civil_from_days(days as i64);
    format!("{year:04}-{month:02}-{day:02}")
}

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * shifted_month + 2) / 5 + 1) as u32;
    let month = if shifted_month < 10 { shifted_month + 3 } else { shifted_month - 9 } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// The checkout's short commit, `+dirty` when toolcall-build or toolcall-runtime has
/// uncommitted changes (the code measured); `unknown` without git.
fn commit() -> String {
    let Some(head) = git(&["rev-parse", "--short", "HEAD"]) else {
        return "unknown".to_owned();
    };
    match git(&["status", "--porcelain", "--", "toolcall-build", "toolcall-runtime"]) {
        Some(changes) if !changes.is_empty() => format!("{head}+dirty"),
        _ => head,
    }
}

/// `git args` run at the workspace root: its trimmed stdout, or `None` when it fails.
fn git(args: &[&str]) -> Option<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent()?;
    let output = Command::new("git").args(args).current_dir(root).output().ok()?;
    output.status.success().then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(args: &[&str]) -> Result<Options, String> {
        parse_options(args.iter().map(|arg| (*arg).to_owned()))
    }

    #[test]
    fn csv_dash_is_stdout_and_a_path_is_a_file() {
        assert_eq!(parsed(&["--csv", "-"]).map(|o| o.csv), Ok(None));
        assert_eq!(parsed(&["--csv", "out.csv"]).map(|o| o.csv), Ok(Some(PathBuf::from("out.csv"))));
        assert!(parsed(&["--csv"]).is_err_and(|why| why.contains("needs a value")));
    }
}
