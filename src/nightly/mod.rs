//! `rankcheck nightly SUITE`: one night of a campaign, or one shard of it.
//! The phases: read the suite, decide the night (its name and index) and
//! the shard, load and profile every program into streams, plan the night
//! from the history, work through this shard's chunks into its shard file,
//! and, for a whole night, merge it and print the morning report. A
//! suite's Rust tests (`[[rust]]`) are built and probed beside the
//! programs, and each of their chunks is a run of the test executable.
//!
//! One module per phase: `suite.rs`, `stream.rs` (a program loaded and
//! profiled into one stream per setting, each with its stream seed),
//! `night_plan.rs`, `shard.rs` (the shard, and its append-only file),
//! `run.rs`, and `signature.rs` (a failing run's identity, variant and
//! replay file). A `[[rust]]` entry's tests: `rust_build.rs` and
//! `rust_chunk.rs`. A Rust test is one stream of the plan (its settings
//! rotate within each chunk), and in the header and the history a program
//! with a stream per setting. `merge.rs` and `report.rs` are the `merge`
//! and `report` commands; `history_figure.rs` draws each program's
//! history from the database and `html.rs` makes the report's page
//! (`report --html`).

mod html;
mod night_plan;
mod run;
mod rust_build;
mod rust_chunk;
mod shard;
mod signature;
pub(crate) mod stream;
mod suite;

pub mod history_figure;
pub mod merge;
pub mod report;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context, Result};
use rankcheck_history::{
    Budget, EndRecord, EndStatus, Evidence, Header, History, ProgramRecord, Record, StreamRecord,
    SHARD_FORMAT,
};
use rankcheck_report::words::count;

use crate::cli::{NightlyArgs, ReportFormat};
use crate::exit::Status;

use self::night_plan::{NightPlan, StreamStart};
use self::run::{Share, ShareDone, StreamIndex};
use self::rust_build::rust_tests;
use self::rust_chunk::{rust_run, scratch_path, RustRun};
use self::shard::{night_dir, read_header, shard_path, shard_spec, ShardFile, ShardSpec};
use self::stream::{program_run, ProgramRun};
use self::suite::read_suite;

pub use self::shard::ShardSpec as Shard;

/// Where a campaign writes unless `--out` says otherwise.
pub const DEFAULT_OUT: &str = "rankcheck-nightly";

/// The history's file name in an output directory.
pub const HISTORY_FILE: &str = "history.sqlite";

/// The history database: `--db`, else `DIR/history.sqlite`.
pub fn history_path(dir: &Path, db: Option<&Path>) -> PathBuf {
    db.map_or_else(|| dir.join(HISTORY_FILE), Path::to_path_buf)
}

/// What this process does tonight: the night, its shard, and where
/// things go. Decided before anything runs.
struct Tonight {
    /// The night's name.
    name: String,
    /// Its index in the history.
    index: u64,
    /// This process's share.
    shard: ShardSpec,
    /// The suite seed.
    suite_seed: u64,
    /// The budget.
    budget: Budget,
    /// The history database.
    db: PathBuf,
    /// This shard's file.
    file: PathBuf,
    /// The evidence of the nights before this one.
    prior: Vec<Evidence>,
}

/// Run one night, or this process's shard of it: decide the night, load
/// the programs, work through the share, then (whole nights) merge and
/// report.
pub fn nightly(args: &NightlyArgs) -> Result<ExitCode> {
    let suite = read_suite(&args.suite)?;
    let tonight = decide(args, suite.seed)?;
    let (programs, mut worst) = load_programs(&suite.programs, &tonight);
    let (rust, rust_worst) = load_rust(&suite.rust, &tonight)?;
    worst = worst.max(rust_worst);
    if programs.is_empty() && rust.is_empty() {
        bail!("no program of {} could be loaded", args.suite.display());
    }
    let done = work(args, &tonight, &programs, &rust)?;
    if done.interrupted {
        worst = worst.max(Status::Incomplete);
    }
    if done.broken {
        worst = worst.max(Status::Usage);
    }
    if !tonight.shard.whole() {
        return Ok(worst.into());
    }
    let merged = merge::merge_files(&tonight.db, std::slice::from_ref(&tonight.file))?;
    outln!("{}", merged.line(&tonight.db));
    let status = report::print(&tonight.db, ReportFormat::Human, args.gone_after, None)?;
    Ok(worst.max(status).into())
}

/// The night, the shard and the budget, and what the history knows of
/// the nights before; the history is read and let go (a shard never
/// writes it).
fn decide(args: &NightlyArgs, suite_seed: Option<u64>) -> Result<Tonight> {
    let shard = shard_spec(args.shard, args.shards)?;
    let name = match &args.night {
        Some(name) => checked_night_name(name)?,
        None => today(),
    };
    let db = history_path(&args.out, args.db.as_deref());
    let file = shard_path(&args.out, &name, shard);
    let budget = match (args.runs, args.time) {
        (Some(runs), _) => Budget::Runs(runs),
        (None, Some(time)) => Budget::Seconds(time.as_secs_f64()),
        (None, None) => bail!("give the night's budget: --runs N or --time 30m"),
    };
    let history = open_if_present(&db)?;
    let index = night_index(&args.out, &name, &file, history.as_ref())?;
    let prior = match &history {
        Some(h) => h.evidence(Some(index))?,
        None => Vec::new(),
    };
    Ok(Tonight {
        name,
        index,
        shard,
        suite_seed: args.seed.or(suite_seed).unwrap_or(0),
        budget,
        db,
        file,
        prior,
    })
}

/// Load and profile every program; one that does not compile is reported
/// and the others still run (status 2 at the end).
fn load_programs(specs: &[suite::SuiteProgram], tonight: &Tonight) -> (Vec<ProgramRun>, Status) {
    let mut worst = Status::Clean;
    let mut programs = Vec::new();
    for spec in specs {
        match program_run(spec, tonight.suite_seed, tonight.index) {
            Ok(program) => programs.push(program),
            Err(error) => {
                errln!("error: {}: {error:#}", spec.name);
                worst = Status::Usage;
            }
        }
    }
    (programs, worst)
}

/// Build every `[[rust]]` entry's tests and probe their settings; an entry
/// that does not build, whose filter matches nothing, or a test whose
/// executable gives no records, is reported naming it, and the rest still
/// run (status 2 at the end).
fn load_rust(specs: &[suite::SuiteRust], tonight: &Tonight) -> Result<(Vec<RustRun>, Status)> {
    let mut worst = Status::Clean;
    let mut runs = Vec::new();
    if specs.is_empty() {
        return Ok((runs, worst));
    }
    let dir = tonight.file.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    // The test executable runs in its package's directory: the scratch
    // file it writes must be named from the root.
    let dir = crate::invocation::absolute(dir);
    let shard = format!("shard-{}-of-{}", tonight.shard.index, tonight.shard.count);
    for spec in specs {
        let tests = match rust_tests(spec) {
            Ok(tests) => tests,
            Err(error) => {
                errln!("error: {}: {error:#}", spec.entry);
                worst = Status::Usage;
                continue;
            }
        };
        for test in tests {
            let scratch = scratch_path(&dir, &shard, runs.len());
            let name = test.test.clone();
            match rust_run(test, tonight.suite_seed, scratch) {
                Ok(run) => runs.push(run),
                Err(error) => {
                    errln!("error: {}: test {name}: {error:#}", spec.entry);
                    worst = Status::Usage;
                }
            }
        }
    }
    Ok((runs, worst))
}

/// Plan the night, work through this shard's chunks into its file, close
/// it with an end record, and print what was done.
fn work(
    args: &NightlyArgs,
    tonight: &Tonight,
    programs: &[ProgramRun],
    rust: &[RustRun],
) -> Result<ShareDone> {
    let header = header(args, tonight, programs, rust);
    let (mut streams, mut starts, mut prior_ln_miss) = stream_starts(programs, &tonight.prior);
    for (r, test) in rust.iter().enumerate() {
        streams.push((programs.len() + r, 0));
        starts.push(rust_start(test, &tonight.prior));
        prior_ln_miss.push(0.0);
    }
    let plan = NightPlan::new(&starts, tonight.index, args.chunk, args.runs);
    let (mut file, mut resumed) = ShardFile::open(&tonight.file, &header)?;
    let resumed_runs = resumed.runs;
    let share = Share {
        programs,
        rust,
        streams: &streams,
        prior_ln_miss,
        shard: tonight.shard,
        out: &args.out,
        jobs: args.jobs.map_or_else(
            || std::thread::available_parallelism().map_or(1, |n| n.get()),
            |j| j as usize,
        ),
        deadline: args.time.map(|t| Instant::now() + t),
    };
    let done = share.run(plan, &mut file, &mut resumed)?;
    let end = EndRecord {
        status: if done.interrupted {
            EndStatus::Interrupted
        } else {
            EndStatus::Complete
        },
        chunks: done.programs.iter().map(|p| p.chunks).sum(),
        runs: done.programs.iter().map(|p| p.runs).sum(),
        elapsed_s: done.elapsed,
    };
    file.append(&[Record::End(end)])?;
    file.close()?;
    let names: Vec<&str> = programs
        .iter()
        .map(|p| p.spec.name.as_str())
        .chain(rust.iter().map(|r| r.test.name.as_str()))
        .collect();
    out!("{}", summary(tonight, &names, &done, resumed_runs));
    Ok(done)
}

/// A night name must be usable as a directory name.
fn checked_night_name(name: &str) -> Result<String> {
    let fine = !name.is_empty()
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    if !fine {
        bail!("--night {name}: use letters, digits, `-`, `_` and `.` (it names a directory)");
    }
    Ok(name.to_string())
}

/// Today's date in UTC, `YYYY-MM-DD`: the default night name.
fn today() -> String {
    let days = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400) as i64;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// The history at `path` if there is one (refused if corrupt).
fn open_if_present(path: &Path) -> Result<Option<History>> {
    if !path.exists() {
        return Ok(None);
    }
    Ok(Some(History::open_existing(path)?))
}

/// The night's index: what a shard file of this night already says, else
/// what the history says of the night, else the next free index. Every
/// shard of a night reads the same history, so all agree.
fn night_index(out: &Path, night: &str, own: &Path, history: Option<&History>) -> Result<u64> {
    if let Some(header) = read_header(own) {
        return Ok(header.night_index);
    }
    let dir = night_dir(out, night);
    if let Ok(entries) = std::fs::read_dir(&dir) {
        let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        files.sort();
        if let Some(header) = files
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .find_map(|p| read_header(p))
        {
            return Ok(header.night_index);
        }
    }
    match history {
        Some(history) => match history.night(night)? {
            Some(known) => Ok(known.index),
            None => Ok(history.next_night_index()?),
        },
        None => Ok(0),
    }
}

/// The shard file's header.
fn header(
    args: &NightlyArgs,
    tonight: &Tonight,
    programs: &[ProgramRun],
    rust: &[RustRun],
) -> Header {
    let rust = rust.iter().map(|r| ProgramRecord {
        name: r.test.name.clone(),
        path: r.test.path(),
        fingerprint: r.test.executable.fingerprint.clone(),
        streams: r.streams.clone(),
    });
    Header {
        format: SHARD_FORMAT,
        suite: args.suite.display().to_string(),
        night: tonight.name.clone(),
        night_index: tonight.index,
        shard: tonight.shard.index,
        shards: tonight.shard.count,
        suite_seed: tonight.suite_seed,
        chunk_runs: args.chunk,
        budget: tonight.budget,
        rankcheck: env!("CARGO_PKG_VERSION").to_string(),
        programs: programs
            .iter()
            .map(|p| ProgramRecord {
                name: p.spec.name.clone(),
                path: p.path(),
                fingerprint: p.fingerprint.clone(),
                streams: p
                    .streams
                    .iter()
                    .map(|s| StreamRecord {
                        setting: s.key.clone(),
                        seed: s.seed,
                        bound_ln: s.bound.map(|b| b.ln()),
                    })
                    .collect(),
            })
            .chain(rust)
            .collect(),
    }
}

/// What the plan starts from for a Rust test: its one planned stream runs
/// all its settings, so it is planned as a stream without a bound, with
/// the clean runs its most tried setting has.
fn rust_start(test: &RustRun, prior: &[Evidence]) -> StreamStart {
    let clean_runs = prior
        .iter()
        .filter(|e| {
            e.program == test.test.name && e.fingerprint == test.test.executable.fingerprint
        })
        .map(|e| e.clean_runs)
        .max()
        .unwrap_or(0);
    StreamStart {
        ln_miss: 0.0,
        clean_runs,
        bound: None,
        weight: test.test.spec.weight,
        once: test.explores_only(),
    }
}

/// The flat stream index, what the plan starts from for each stream, and
/// each stream's accumulated `ln` miss.
fn stream_starts(
    programs: &[ProgramRun],
    prior: &[Evidence],
) -> (StreamIndex, Vec<StreamStart>, Vec<f64>) {
    let known: BTreeMap<(&str, &str, &str), &Evidence> = prior
        .iter()
        .map(|e| {
            (
                (
                    e.program.as_str(),
                    e.fingerprint.as_str(),
                    e.setting.as_str(),
                ),
                e,
            )
        })
        .collect();
    let mut index = Vec::new();
    let mut starts = Vec::new();
    let mut ln_miss = Vec::new();
    for (p, program) in programs.iter().enumerate() {
        for (s, stream) in program.streams.iter().enumerate() {
            let evidence = known.get(&(
                program.spec.name.as_str(),
                program.fingerprint.as_str(),
                stream.key.as_str(),
            ));
            let ln = evidence.and_then(|e| e.ln_miss).unwrap_or(0.0);
            index.push((p, s));
            ln_miss.push(ln);
            starts.push(StreamStart {
                ln_miss: ln,
                clean_runs: evidence.map_or(0, |e| e.clean_runs),
                bound: stream.bound,
                weight: program.spec.weight,
                once: false,
            });
        }
    }
    (index, starts, ln_miss)
}

/// What this process did, for stdout.
fn summary(tonight: &Tonight, names: &[&str], done: &ShareDone, resumed_runs: u64) -> String {
    let (night, night_index, shard, path) =
        (&tonight.name, tonight.index, tonight.shard, &tonight.file);
    let runs: u64 = done.programs.iter().map(|p| p.runs).sum();
    let chunks: u64 = done.programs.iter().map(|p| p.chunks).sum();
    let mut text = format!(
        "night {night} (index {night_index}), shard {} of {}: {} in {} ({:.2}s, {:.0} runs/s)",
        shard.index,
        shard.count,
        count(runs, "run", "runs"),
        count(chunks, "chunk", "chunks"),
        done.elapsed,
        runs as f64 / done.elapsed.max(1e-9)
    );
    if resumed_runs > 0 {
        text.push_str(&format!(
            ", resuming after {} already recorded",
            count(resumed_runs, "run", "runs")
        ));
    }
    text.push('\n');
    for (name, totals) in names.iter().zip(&done.programs) {
        let failing = if totals.failures == 0 {
            String::new()
        } else {
            format!(
                ", {} failed ({})",
                count(totals.failures, "chunk", "chunks"),
                count(
                    totals.failures_distinct.len(),
                    "distinct failure",
                    "distinct failures"
                )
            )
        };
        text.push_str(&format!(
            "  {}: {} in {}{failing}\n",
            name,
            count(totals.runs, "run", "runs"),
            count(totals.chunks, "chunk", "chunks")
        ));
    }
    if done.interrupted {
        text.push_str("interrupted: stopped after the chunk in flight; run the same command again to resume\n");
    }
    text.push_str(&format!("shard file: {}\n", path.display()));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn night_names_are_directory_names() {
        assert!(checked_night_name("2024-05-01").is_ok());
        assert!(checked_night_name("../x").is_err());
        assert!(checked_night_name("").is_err());
        let today = today();
        assert_eq!(today.len(), 10, "{today}");
    }
}
