//! `historical`: published concurrency bugs, each the version before its
//! fix run with the fix's regression test, under real loom and under
//! rankcheck-loom (`results/historical.*`).
//!
//! For each bug of `bench/crates/historical.toml`, both versions go the
//! `crates` mode's way (fetched through cargo, copied, `loom` renamed to
//! `rankcheck-loom` in one copy, built with the crate's RUSTFLAGS and
//! arguments), after the fix's test files
//! (`bench/crates/historical/<crate>-<buggy version>/`) are laid over the
//! buggy version's source (the fixed version runs as published). The regression test then runs alone: under
//! loom's `model`; under rankcheck-loom's `model` as it is; and under
//! rankcheck's randomized search (`RANKCHECK_LOOM_SEARCH=random`) once per
//! seed. Each rankcheck failure's replay string is rerun
//! (`RANKCHECK_REPLAY`), and the fixed version runs the same test under
//! every mode (seed 1) to show it passes. A bug's rows replace its old
//! ones in `results/historical.csv` as soon as it is done, and
//! `results/historical.md` is rewritten from the whole CSV.

mod bugs;
mod replay;
mod table;

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context, Result};

use crate::cli::HistoricalArgs;
use crate::crates::corpus::{Entry, Facade};
use crate::crates::historical::bugs::{overlay, Bug, Bugs};
use crate::crates::historical::table::{Mode, Row, BUGGY, BUILD_FAILURE, BUILT, FIXED};
use crate::crates::outcome::Outcome;
use crate::crates::{
    copy_fresh, fetch, log_path, prepare_and_build, run_logged, Binary, Settings, Side, Tool,
};
use crate::workload::{commit, root};

pub fn run(args: &HistoricalArgs) -> Result<()> {
    let root = root().canonicalize()?;
    let bugs = Bugs::load(&root.join("bench/crates/historical.toml"))?;
    let csv_path = root.join("results/historical.csv");
    let md_path = root.join("results/historical.md");
    let mut rows = table::read(&csv_path)?;
    if !args.report_only {
        for name in &args.bugs {
            if !bugs
                .bugs
                .iter()
                .any(|b| b.is_named(std::slice::from_ref(name)))
            {
                bail!("no bug `{name}` in bench/crates/historical.toml");
            }
        }
        let work = args
            .work
            .clone()
            .unwrap_or_else(|| root.join("target/historical"));
        std::fs::create_dir_all(&work)?;
        let settings = Settings {
            work: work.canonicalize()?,
            repo: root.clone(),
            timeout: Duration::from_secs(args.timeout),
            build_timeout: Duration::from_secs(args.build_timeout),
            jobs: args.jobs,
            max_tests: 0,
            tests: Vec::new(),
            published_alone: true,
            commit: commit(),
        };
        let plan = Plan {
            settings,
            overlays: root.join("bench/crates/historical"),
            seeds: args.seeds,
            repeats: args.repeats.max(1),
        };
        for bug in bugs.bugs.iter().filter(|b| b.is_named(&args.bugs)) {
            eprintln!("== {} -> {}", bug.id(), bug.fixed);
            let measured = measure(bug, &plan);
            rows.retain(|r| r.bug != bug.id());
            rows.extend(measured);
            table::write(&csv_path, &rows)?;
            std::fs::write(&md_path, table::markdown(&bugs, &rows, args.seeds))?;
        }
    }
    std::fs::write(&md_path, table::markdown(&bugs, &rows, args.seeds))?;
    eprintln!("wrote results/historical.csv and results/historical.md");
    Ok(())
}

/// What one command-line run holds fixed.
struct Plan {
    settings: Settings,
    /// `bench/crates/historical/`: the fixes' test files by version.
    overlays: PathBuf,
    /// The search's seeds, 1 to `seeds`.
    seeds: usize,
    /// The most runs of a deterministic mode (loom's and rankcheck's
    /// `model`) on the buggy version, for a median of their times.
    repeats: usize,
}

/// A deterministic mode is run again only while its runs so far took
/// less than this in all: a run near the timeout is not repeated.
const REPEAT_BUDGET: Duration = Duration::from_secs(30);

/// One version of a bug's crate, built under both tools (or not).
struct Version {
    side: &'static str,
    entry: Entry,
    built: Vec<Side>,
}

/// Every row of one bug: its four builds, then its runs. Nothing here
/// fails the whole command: what fails is a row with its cause.
fn measure(bug: &Bug, plan: &Plan) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut versions = Vec::new();
    for (side, version) in [BUGGY, FIXED].into_iter().zip(bug.versions()) {
        let entry = bug.entry(version);
        let built = build_version(bug, side, &entry, plan, &mut rows);
        versions.push(Version { side, entry, built });
    }
    for version in &versions {
        for mode in Mode::RUNS {
            rows.extend(run_mode(bug, version, mode, plan));
        }
    }
    rows
}

/// Fetch `entry`'s version, lay the fix's files over it, build it under
/// both tools: the sides that built, and a build row per tool.
fn build_version(
    bug: &Bug,
    side: &'static str,
    entry: &Entry,
    plan: &Plan,
    rows: &mut Vec<Row>,
) -> Vec<Side> {
    let build_row = |tool: Tool, outcome: &str, seconds: Option<f64>, detail: String| Row {
        bug: bug.id(),
        side: side.to_string(),
        version: entry.version.clone(),
        mode: Mode::Build.word().to_string(),
        tool: tool.word().to_string(),
        outcome: outcome.to_string(),
        seconds: seconds.map(|s| format!("{s:.1}")).unwrap_or_default(),
        timeout_s: plan.settings.timeout.as_secs(),
        detail,
        commit: plan.settings.commit.clone(),
        ..Row::default()
    };
    let overlaid = (side == BUGGY).then(|| bug.id());
    let (source, placed) = match source_with_overlay(entry, overlaid.as_deref(), plan) {
        Ok(found) => found,
        Err(error) => {
            for tool in Tool::pair(Facade::Loom) {
                rows.push(build_row(
                    tool,
                    BUILD_FAILURE,
                    None,
                    format!("fetch: {error:#}"),
                ));
            }
            return Vec::new();
        }
    };
    let mut built = Vec::new();
    for tool in Tool::pair(Facade::Loom) {
        eprintln!("   {} {} under {}", side, entry.id(), tool.word());
        match prepare_and_build(entry, tool, &source, &plan.settings) {
            Ok((built_side, seconds, manifest)) => {
                eprintln!("   built in {seconds:.0} s");
                rows.push(build_row(
                    tool,
                    BUILT,
                    Some(seconds),
                    format!("{manifest}{placed}"),
                ));
                built.push(built_side);
            }
            Err(failure) => {
                eprintln!("   build failure: {}", failure.cause);
                let detail = format!("{}{placed} | {}", failure.manifest, failure.cause);
                rows.push(build_row(tool, BUILD_FAILURE, failure.seconds, detail));
            }
        }
    }
    built
}

/// The version's published source, or, for the buggy version of a bug
/// (`bug`, its id) whose fix's files are kept, a copy under
/// `<work>/sources/` with them laid over; and the overlay in words
/// (`; overlay: tests/loom.rs`).
fn source_with_overlay(entry: &Entry, bug: Option<&str>, plan: &Plan) -> Result<(PathBuf, String)> {
    let published = fetch(entry, &plan.settings)?;
    let files = match bug {
        Some(id) => overlay(&plan.overlays, id)?,
        None => Vec::new(),
    };
    if files.is_empty() {
        return Ok((published, String::new()));
    }
    let patched = plan.settings.work.join("sources").join(entry.id());
    copy_fresh(&published, &patched)?;
    let mut placed = Vec::new();
    for (inside, file) in &files {
        let target = patched.join(inside);
        if let Some(folder) = target.parent() {
            std::fs::create_dir_all(folder)?;
        }
        std::fs::copy(file, &target)
            .with_context(|| format!("cannot lay {} over the source", file.display()))?;
        placed.push(inside.display().to_string());
    }
    Ok((patched, format!("; overlay: {}", placed.join(", "))))
}

/// The runs of `mode` on one version. On the buggy version: once per
/// seed for the search; loom's and rankcheck's `model` again and again,
/// up to `repeats` runs while they take less than [`REPEAT_BUDGET`] in
/// all, for the median of their times. On the fixed version: once (seed
/// 1 for the search).
fn run_mode(bug: &Bug, version: &Version, mode: Mode, plan: &Plan) -> Vec<Row> {
    let tool = match mode {
        Mode::Loom => Tool::Loom,
        _ => Tool::RankcheckLoom,
    };
    let Some(side) = version.built.iter().find(|s| s.tool == tool) else {
        return Vec::new();
    };
    let buggy = version.side == BUGGY;
    if mode == Mode::Search {
        let seeds = if buggy { plan.seeds } else { 1 };
        return (1..=seeds)
            .map(|seed| run_test(bug, version, side, mode, Attempt::Seed(seed), plan))
            .collect();
    }
    let mut rows: Vec<Row> = Vec::new();
    let mut spent = 0.0;
    for repeat in 1..=if buggy { plan.repeats } else { 1 } {
        let row = run_test(bug, version, side, mode, Attempt::Repeat(repeat), plan);
        spent += row.seconds.parse::<f64>().unwrap_or(f64::INFINITY);
        let stop = row.outcome == Outcome::Timeout.word() || spent >= REPEAT_BUDGET.as_secs_f64();
        rows.push(row);
        if stop {
            break;
        }
    }
    rows
}

/// Which run of a mode: a seed of the search, or a repeat of a
/// deterministic mode.
#[derive(Debug, Clone, Copy)]
enum Attempt {
    Seed(usize),
    Repeat(usize),
}

impl Attempt {
    /// The run's name in its log file (`-seed3`, `-run2`; the first
    /// repeat has none).
    fn label(self) -> String {
        match self {
            Attempt::Seed(seed) => format!("-seed{seed}"),
            Attempt::Repeat(1) => String::new(),
            Attempt::Repeat(n) => format!("-run{n}"),
        }
    }
}

/// One run of the regression test, and, when rankcheck failed, its replay.
fn run_test(
    bug: &Bug,
    version: &Version,
    side: &Side,
    mode: Mode,
    attempt: Attempt,
    plan: &Plan,
) -> Row {
    let seed = match attempt {
        Attempt::Seed(seed) => Some(seed),
        Attempt::Repeat(_) => None,
    };
    let mut row = Row {
        bug: bug.id(),
        side: version.side.to_string(),
        version: version.entry.version.clone(),
        mode: mode.word().to_string(),
        seed: seed.map(|s| s.to_string()).unwrap_or_default(),
        repeat: match attempt {
            Attempt::Repeat(n) => n.to_string(),
            Attempt::Seed(_) => String::new(),
        },
        test: bug.test.clone(),
        timeout_s: plan.settings.timeout.as_secs(),
        commit: plan.settings.commit.clone(),
        ..Row::default()
    };
    let Some(binary) = side.binaries.iter().find(|b| b.tests.contains(&bug.test)) else {
        row.outcome = Outcome::NotRun.word().to_string();
        row.detail = format!("no test binary lists `{}`", bug.test);
        return row;
    };
    let mut extra = Vec::new();
    if mode == Mode::Search {
        extra.push(("RANKCHECK_LOOM_SEARCH".to_string(), "random".to_string()));
    }
    if let Some(seed) = seed {
        extra.push(("RANKCHECK_SEED".to_string(), seed.to_string()));
    }
    let label = format!("{}-{}{}", version.side, mode.word(), attempt.label());
    let ran = run_logged_test(version, side, binary, &bug.test, &extra, &label, plan);
    let (outcome, seconds, detail, output) = match ran {
        Ok(ran) => ran,
        Err(error) => (
            Outcome::NotRun,
            0.0,
            format!("bench: {error:#}"),
            String::new(),
        ),
    };
    eprintln!(
        "   {} {}{}: {outcome} {seconds:.3} s",
        version.side,
        mode.word(),
        attempt.label()
    );
    row.outcome = outcome.word().to_string();
    row.seconds = format!("{seconds:.3}");
    let head = replay::failure_head(&output);
    row.detail = head.clone().unwrap_or(detail);
    if matches!(outcome, Outcome::Fail | Outcome::Abort) && mode != Mode::Loom {
        if let Some(replay) = replay::replay_string(&output) {
            row.reproduces = replays(
                version,
                side,
                binary,
                bug,
                &replay,
                head.as_deref(),
                &label,
                plan,
            );
            row.replay = replay;
        } else {
            row.reproduces = "no".to_string();
            row.detail = format!("no replay string in the output | {}", row.detail);
        }
    }
    row
}

/// Rerun `replay` (`RANKCHECK_REPLAY`): `yes` when it fails again with a
/// failure of the same kind.
#[allow(clippy::too_many_arguments)]
fn replays(
    version: &Version,
    side: &Side,
    binary: &Binary,
    bug: &Bug,
    replay: &str,
    head: Option<&str>,
    label: &str,
    plan: &Plan,
) -> String {
    let extra = [("RANKCHECK_REPLAY".to_string(), replay.to_string())];
    let label = format!("{label}-replay");
    match run_logged_test(version, side, binary, &bug.test, &extra, &label, plan) {
        Ok((Outcome::Fail, _, _, output)) if replay::reproduces(head, &output) => "yes",
        _ => "no",
    }
    .to_string()
}

/// `run_logged` with its log under the version's logs, labelled; its
/// outcome, seconds, message and whole output.
fn run_logged_test(
    version: &Version,
    side: &Side,
    binary: &Binary,
    test: &str,
    extra: &[(String, String)],
    label: &str,
    plan: &Plan,
) -> Result<(Outcome, f64, String, String)> {
    let log: PathBuf = log_path(&version.entry, side.tool, label, &plan.settings)?;
    run_logged(
        &version.entry,
        side,
        binary,
        test,
        &plan.settings,
        extra,
        &log,
    )
}
