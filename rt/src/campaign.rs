//! A check as a chunk of a nightly campaign: with `RANKCHECK_RECORDS=FILE`
//! a check appends what it did to `FILE` in the shard record format the
//! command writes for a `.rk` program (`rankcheck_report::shard`), so that
//! `rankcheck nightly` counts a Rust test's runs like a program's
//! (`docs/guide/src/nightly/rust-tests.md`): a chunk record per setting of the
//! search (its runs, clean runs, failures and per-run bound), after the
//! failure record of a failing run (its identity and the command that
//! replays it). `RANKCHECK_FIRST_RUN` places the runs in the campaign's
//! run indices, so that no two chunks run the same run.

use std::io::Write as _;
use std::path::Path;

use rankcheck_engine::identity::masked;
use rankcheck_report::failure::FailureJson;
use rankcheck_report::shard::{
    executable_fingerprint, raced_on, thread_functions, ChunkRecord, FailureRecord, Record,
    Signature, REPLAY_COMMAND_PREFIX,
};
use rankcheck_report::summary::SummaryJson;

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
    let mut text = String::new();
    for record in records(summary, chunk) {
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
