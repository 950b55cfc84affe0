//! Failing schedules before and after shrinking: `rankcheck check` (the
//! default search, seeds 1..=N, one process per trial) on every buggy
//! program of the corpus and the examples, reading the first failure's
//! `shrunk` sizes and the time the check took with and without shrinking,
//! measured in the same run. Raw rows go to `results/shrink.csv`, the
//! medians and totals to `results/shrink.md`.

use std::fmt::Write as _;
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use serde_json::Value;

use crate::cli::ShrinkArgs;
use crate::nightly::rankcheck_binary;
use crate::strategies::programs;
use crate::workload::{commit, root};

/// One trial: the sizes of the first failure's schedule before and after
/// shrinking, and the seconds of the check with and without it.
struct Row {
    program: String,
    group: &'static str,
    seed: u64,
    before: [u64; 3],
    after: [u64; 3],
    critical: u64,
    replays: u64,
    complete: bool,
    seconds: f64,
    seconds_unshrunk: f64,
}

const COLUMNS: [&str; 16] = [
    "program",
    "group",
    "seed",
    "preemptions_before",
    "switches_before",
    "steps_before",
    "preemptions_after",
    "switches_after",
    "steps_after",
    "critical",
    "replays",
    "complete",
    "seconds",
    "seconds_unshrunk",
    "shrink_time",
    "commit",
];

pub fn run(args: &ShrinkArgs) -> Result<()> {
    let binary = match &args.binary {
        Some(binary) => binary.clone(),
        None => rankcheck_binary()?,
    };
    let scratch =
        std::env::temp_dir().join(format!("rankcheck-bench-shrink-{}", std::process::id()));
    let mut rows = Vec::new();
    for program in programs()? {
        for seed in 1..=args.seeds {
            let check = |extra: &[&str]| -> Result<(Value, f64)> {
                let started = Instant::now();
                let out = Command::new(&binary)
                    .args(["check", "--format", "json", "--jobs", "1", "--seed"])
                    .arg(seed.to_string())
                    .args(["--runs", "100000", "--replay-dir"])
                    .arg(&scratch)
                    .args(extra)
                    .arg(&program.path)
                    .output()
                    .context("rankcheck runs")?;
                let seconds = started.elapsed().as_secs_f64();
                let report: Value = serde_json::from_slice(&out.stdout)
                    .with_context(|| format!("{}: not JSON", program.name))?;
                Ok((report, seconds))
            };
            let (_, seconds_unshrunk) = check(&["--no-shrink"])?;
            let (report, seconds) = check(&["--shrink-time", &args.shrink_time])?;
            let shrunk = &report["first_failure"]["shrunk"];
            if shrunk.is_null() {
                eprintln!("{} seed {seed}: no shrunk failure", program.name);
                continue;
            }
            let size = |s: &Value| {
                ["preemptions", "switches", "steps"].map(|f| s[f].as_u64().unwrap_or(0))
            };
            let row = Row {
                program: program.name.clone(),
                group: program.group,
                seed,
                before: size(&shrunk["before"]),
                after: size(&shrunk["after"]),
                critical: shrunk["critical"].as_array().map_or(0, |c| c.len() as u64),
                replays: shrunk["replays"].as_u64().unwrap_or(0),
                complete: shrunk["complete"] == true,
                seconds,
                seconds_unshrunk,
            };
            eprintln!(
                "{} seed {seed}: {:?} -> {:?} in {} replays",
                row.program, row.before, row.after, row.replays
            );
            rows.push(row);
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    if rows.is_empty() {
        bail!("no failure was shrunk");
    }
    write(args, &rows)
}

fn write(args: &ShrinkArgs, rows: &[Row]) -> Result<()> {
    let dir = root().join("results");
    let commit = commit();
    let mut csv = csv::Writer::from_path(dir.join("shrink.csv"))?;
    csv.write_record(COLUMNS)?;
    for r in rows {
        let mut record = vec![r.program.clone(), r.group.to_string(), r.seed.to_string()];
        record.extend(r.before.iter().chain(&r.after).map(u64::to_string));
        record.extend([
            r.critical.to_string(),
            r.replays.to_string(),
            r.complete.to_string(),
            format!("{:.3}", r.seconds),
            format!("{:.3}", r.seconds_unshrunk),
            args.shrink_time.clone(),
            commit.clone(),
        ]);
        csv.write_record(record)?;
    }
    csv.flush()?;
    std::fs::write(dir.join("shrink.md"), summary(args, rows, &commit))?;
    Ok(())
}

/// The median of `values`.
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn summary(args: &ShrinkArgs, rows: &[Row], commit: &str) -> String {
    let mut md = String::from("# Shrinking: a failure's schedule before and after\n\n");
    let _ = writeln!(
        md,
        "`cargo run --release -p rankcheck-bench -- shrink --seeds {} --shrink-time {}{}` at {commit}: `rankcheck check` (the default search, one worker) on every buggy program of `bench/corpus` and `examples`, seeds 1 to {}, the first failure's schedule as the search found it and as reported; seconds of the whole check with shrinking and with `--no-shrink`, measured in the same run. Raw rows: `shrink.csv`.\n",
        args.seeds,
        args.shrink_time,
        args.binary
            .as_ref()
            .map(|b| format!(" --binary {}", b.display()))
            .unwrap_or_default(),
        args.seeds
    );
    let total = |pick: fn(&Row) -> u64| rows.iter().map(pick).sum::<u64>();
    let _ = writeln!(
        md,
        "Over {} failures: preemptions {} -> {}, context switches {} -> {}, steps {} -> {}; {} stopped by the time limit. Median extra time per check {:.3} s (largest {:.3} s).\n",
        rows.len(),
        total(|r| r.before[0]),
        total(|r| r.after[0]),
        total(|r| r.before[1]),
        total(|r| r.after[1]),
        total(|r| r.before[2]),
        total(|r| r.after[2]),
        rows.iter().filter(|r| !r.complete).count(),
        median(rows.iter().map(|r| r.seconds - r.seconds_unshrunk).collect()),
        rows.iter()
            .map(|r| r.seconds - r.seconds_unshrunk)
            .fold(f64::MIN, f64::max),
    );
    md.push_str("| program | failures | preemptions (median before -> after) | switches | steps | critical | replays | complete |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n");
    let mut names: Vec<&str> = rows.iter().map(|r| r.program.as_str()).collect();
    names.dedup();
    for name in names {
        let of: Vec<&Row> = rows.iter().filter(|r| r.program == name).collect();
        let med = |pick: &dyn Fn(&Row) -> u64| median(of.iter().map(|r| pick(r) as f64).collect());
        let _ = writeln!(
            md,
            "| {name} | {} | {} -> {} | {} -> {} | {} -> {} | {} | {} | {}/{} |",
            of.len(),
            med(&|r| r.before[0]),
            med(&|r| r.after[0]),
            med(&|r| r.before[1]),
            med(&|r| r.after[1]),
            med(&|r| r.before[2]),
            med(&|r| r.after[2]),
            med(&|r| r.critical),
            med(&|r| r.replays),
            of.iter().filter(|r| r.complete).count(),
            of.len(),
        );
    }
    md
}
