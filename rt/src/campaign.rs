//! A check as a chunk of a nightly campaign: with `RANKCHECK_RECORDS=FILE`
//! a check appends what it did to `FILE` in the shard record format the
//! command writes for a `.rk` program (`rankcheck_report::shard`), so that
//! `rankcheck nightly` counts a Rust test's runs like a program's
//! (`docs/guide/src/nightly/rust-tests.md`): a chunk record per setting of the
//! search (its runs, clean runs, failures and per-run bound), after the
//! failure record of a failing run (its identity and the command that
//! replays it). `RANKCHECK_FIRST_RUN` places the runs in the campaign's
//! run indices, so that no two chunks run the same run.
//!
//! An exploration (crate::explore, the loom facade's `model`) records one
//! chunk of its own setting, [`exploration_setting`]: its schedules as its
//! runs, and whether they were every schedule (up to its preemption
//! bound), which the campaign reports as that class proved. It is a
//! function of the test, so a night runs it once.

use std::io::Write as _;
use std::path::Path;

use rankcheck_engine::identity::masked;
use rankcheck_report::failure::FailureJson;
use rankcheck_report::shard::{
    executable_fingerprint, raced_on, thread_functions, ChunkRecord, ExplorationEnd,
    ExplorationSetting, FailureRecord, Record, Signature, REPLAY_COMMAND_PREFIX,
};
use rankcheck_report::summary::SummaryJson;

use crate::explore::Explored;

/// The setting a failure in a preparatory run is recorded under: those
/// runs are random, every variable tracked, before the search's settings
/// are known.
pub(crate) const PREPARATORY: &str = "preparatory";

/// What a check's records are made of besides its summary.
struct Chunk<'a> {
    /// The test's name (libtest names the test's thread with it), else
    /// where it called `check`.
    pub program: &'a str,
    /// The fingerprint of the test executable.
    pub fingerprint: &'a str,
    /// The index of its first run in the campaign.
    pub first_run: u64,
}

/// The name the records give the running test: its thread's name, which
/// libtest sets to the test's path (`tests::lost_flag`), else `fallback`.
fn test_name(fallback: &str) -> String {
    match std::thread::current().name() {
        Some(name) if name != "main" => name.to_string(),
        _ => fallback.to_string(),
    }
}

/// The fingerprint of the running executable: what was built, so that a
/// rebuilt test with other code starts its evidence again.
fn this_executable() -> Result<String, String> {
    let path =
        std::env::current_exe().map_err(|e| format!("cannot find the test executable: {e}"))?;
    let bytes = std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Ok(executable_fingerprint(&bytes))
}

/// Append the records of a check's search to `path` (`RANKCHECK_RECORDS`):
/// the test named by its thread (else `program`, where it called
/// `check`), its version the executable's fingerprint.
pub fn record(
    path: &Path,
    summary: &SummaryJson,
    program: &str,
    first_run: u64,
) -> Result<(), String> {
    let fingerprint = this_executable()?;
    let program = test_name(program);
    let chunk = Chunk {
        program: &program,
        fingerprint: &fingerprint,
        first_run,
    };
    append(path, summary, &chunk)
}

/// Append the records of the search `summary` describes to `path`.
fn append(path: &Path, summary: &SummaryJson, chunk: &Chunk<'_>) -> Result<(), String> {
    write_records(path, &records(summary, chunk))
}

/// Append `records` to `path`, a line each.
fn write_records(path: &Path, records: &[Record]) -> Result<(), String> {
    let mut text = String::new();
    for record in records {
        text.push_str(&record.to_line());
        text.push('\n');
    }
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut file| file.write_all(text.as_bytes()))
        .map_err(|e| format!("rankcheck: cannot write records to {}: {e}", path.display()))
}

/// An exploration as a campaign's chunk records it.
pub(crate) struct ExploredChunk<'a> {
    /// What it explored.
    pub explored: &'a Explored,
    /// Its preemption bound, if any.
    pub preemption_bound: Option<u32>,
    /// Its first failing run as the shared model, if it failed (and the
    /// rerun failed again).
    pub failure: Option<FailureJson>,
    /// Where the test called it, if its thread has no name.
    pub program: &'a str,
    /// The index its schedules start at in the campaign.
    pub first_run: u64,
    /// The exploration's wall time.
    pub elapsed_s: f64,
}

/// The setting an exploration is recorded under: `explore`, with `c=N`
/// for a preemption bound, then how it ended: `complete` when it covered
/// every schedule (within the bound), `failed` when it stopped at a
/// failure, `nondeterministic` when the test turned out not to be a
/// function of its schedule, `capped` when its schedule cap or time limit
/// stopped it. The history
/// reports a clean complete exploration as its class proved.
pub fn exploration_setting(preemption_bound: Option<u32>, explored: &Explored) -> String {
    let end = if explored.complete {
        ExplorationEnd::Complete
    } else if !explored.failures.is_empty() {
        ExplorationEnd::Failed
    } else if explored.nondeterminism.is_some() {
        ExplorationEnd::Nondeterministic
    } else {
        ExplorationEnd::Capped
    };
    ExplorationSetting {
        preemption_bound,
        end,
    }
    .to_string()
}

/// Append an exploration's records to `path` (`RANKCHECK_RECORDS`): its
/// failure's, if it failed, then its chunk.
pub(crate) fn record_exploration(path: &Path, chunk: &ExploredChunk<'_>) -> Result<(), String> {
    let fingerprint = this_executable()?;
    let program = test_name(chunk.program);
    let place = Chunk {
        program: &program,
        fingerprint: &fingerprint,
        first_run: chunk.first_run,
    };
    let explored = chunk.explored;
    let setting = exploration_setting(chunk.preemption_bound, explored);
    let mut records = Vec::new();
    if let Some(failure) = &chunk.failure {
        let mut record = failure_record(failure, &setting, &place);
        record.run = chunk.first_run + failure.run;
        records.push(Record::Failure(record));
    }
    let failures = u64::from(!explored.failures.is_empty());
    records.push(Record::Chunk(ChunkRecord {
        program: program.clone(),
        fingerprint: fingerprint.clone(),
        setting,
        plan_index: 0,
        first_run: chunk.first_run,
        runs: explored.schedules,
        clean_runs: explored.schedules.saturating_sub(failures),
        failures,
        bound_ln: None,
        elapsed_s: chunk.elapsed_s,
    }));
    write_records(path, &records)
}

/// The failure record (if the search failed), then a chunk record per
/// setting.
fn records(summary: &SummaryJson, chunk: &Chunk<'_>) -> Vec<Record> {
    let settings = setting_runs(summary);
    let failure = summary.first_failure.as_ref();
    let failed_setting = failure.map(|f| failing_setting(f, &settings));
    let mut records = Vec::new();
    if let (Some(failure), Some(setting)) = (failure, &failed_setting) {
        records.push(Record::Failure(failure_record(failure, setting, chunk)));
    }
    let total = summary.runs.max(1) as f64;
    for (setting, runs, bound_ln) in settings {
        let failures = u64::from(failed_setting.as_deref() == Some(setting.as_str()));
        records.push(Record::Chunk(ChunkRecord {
            program: chunk.program.to_string(),
            fingerprint: chunk.fingerprint.to_string(),
            setting,
            plan_index: 0,
            first_run: chunk.first_run,
            runs,
            clean_runs: runs.saturating_sub(failures),
            failures,
            bound_ln,
            elapsed_s: summary.elapsed_s * runs as f64 / total,
        }));
    }
    records
}

/// Each setting's key (as the command keys a `.rk` program's streams),
/// its runs and the `ln` of its per-run bound.
fn setting_runs(summary: &SummaryJson) -> Vec<(String, u64, Option<f64>)> {
    if let Some(failure) = summary
        .first_failure
        .as_ref()
        .filter(|f| f.found_by == "preparatory")
    {
        return vec![(PREPARATORY.to_string(), failure.run, None)];
    }
    let portfolio = summary.strategy == "portfolio";
    let mut out: Vec<(String, u64, Option<f64>)> = summary
        .sampling
        .iter()
        .flatten()
        .map(|s| (s.strategy.clone(), s.runs, None))
        .collect();
    for setting in &summary.settings {
        let vars = match setting.tracking.split_once(" of ") {
            Some((count, _)) => count.to_string(),
            None => setting.tracking.replace(", ", ","),
        };
        let drawn = setting.tracking.contains(" of ");
        let name = match (portfolio, drawn) {
            (true, true) => "pctvb",
            (true, false) => "pct",
            (false, _) => summary.strategy.as_str(),
        };
        let key = format!("{name} d={} v={vars} {}", setting.depth, summary.priorities);
        out.push((key, setting.runs, setting.bound_ln));
    }
    if out.is_empty() {
        out.push((summary.strategy.clone(), summary.runs, None));
    }
    out
}

/// The setting a failing run ran under: the component named by the
/// failure, at its depth for a priority search.
fn failing_setting(failure: &FailureJson, settings: &[(String, u64, Option<f64>)]) -> String {
    if failure.found_by == "preparatory" {
        return PREPARATORY.to_string();
    }
    let named = |key: &str| key.split(' ').next() == Some(failure.strategy.as_str());
    let depth = |key: &str| match failure.depth {
        Some(d) => key.contains(&format!(" d={d} ")),
        None => true,
    };
    settings
        .iter()
        .map(|(key, _, _)| key)
        .find(|key| named(key) && depth(key))
        .or_else(|| {
            settings
                .iter()
                .map(|(key, _, _)| key)
                .find(|key| depth(key))
        })
        .or_else(|| settings.first().map(|(key, _, _)| key))
        .cloned()
        .unwrap_or_else(|| failure.strategy.clone())
}

/// A failing run's record: its identity, and `cargo test` with the replay
/// string as the command that replays it.
fn failure_record(failure: &FailureJson, setting: &str, chunk: &Chunk<'_>) -> FailureRecord {
    let replay = failure.replay.as_ref().map(|replay| {
        format!(
            "{REPLAY_COMMAND_PREFIX}{replay} cargo test {} -- --exact",
            chunk.program
        )
    });
    FailureRecord {
        program: chunk.program.to_string(),
        fingerprint: chunk.fingerprint.to_string(),
        setting: setting.to_string(),
        // A search's failing run is numbered in its seed's runs already;
        // a preparatory run within the chunk.
        run: if failure.found_by == "preparatory" {
            chunk.first_run + failure.run
        } else {
            failure.run
        },
        signature: Signature {
            kind: failure.kind.clone(),
            file: failure.file.clone(),
            line: failure.line as u64,
            column: failure.column as u64,
            masked: Some(masked(&failure.message)),
            message: failure.message.clone(),
            variables: raced_on(&failure.trace),
            threads: thread_functions(&failure.trace),
        },
        replay,
    }
}
