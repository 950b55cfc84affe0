//! The cost of nightly campaigns, through the real `rankcheck` binary:
//! executions per second of a night split into 2 shards (2 processes on 2
//! cores) against the same night in 1, and of a night that checkpoints
//! every chunk to its shard file against a plain `check` search of the same
//! setting and run count. Rounds alternate between the two sides of each
//! comparison, so that machine noise hits both alike.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use rankcheck_history::{parse_shard, Record};

use crate::cli::NightlyArgs;
use crate::workload::{commit, cores, root};

/// One measurement.
struct Row {
    measure: &'static str,
    side: &'static str,
    round: u32,
    executions: u64,
    seconds: f64,
}

pub fn run(args: &NightlyArgs) -> Result<()> {
    let binary = rankcheck_binary()?;
    let scratch =
        std::env::temp_dir().join(format!("rankcheck-bench-nightly-{}", std::process::id()));
    let mut rows = Vec::new();
    for round in 1..=args.rounds {
        for shards in [1u32, 2] {
            let (executions, seconds) = shards_round(&binary, &scratch, args.runs, shards, round)?;
            eprintln!(
                "round {round}, {shards} shard(s): {:.0} runs/s",
                executions as f64 / seconds
            );
            rows.push(Row {
                measure: "shards",
                side: if shards == 1 { "1 shard" } else { "2 shards" },
                round,
                executions,
                seconds,
            });
        }
        for parallel in [1u32, 2] {
            let (executions, seconds) = ceiling_round(&binary, args.runs, parallel, round)?;
            eprintln!(
                "round {round}, {parallel} plain search(es) at once: {:.0} runs/s",
                executions as f64 / seconds
            );
            rows.push(Row {
                measure: "ceiling",
                side: if parallel == 1 {
                    "1 search at a time"
                } else {
                    "2 searches at once"
                },
                round,
                executions,
                seconds,
            });
        }
        for side in ["search", "night"] {
            let (executions, seconds) = if side == "search" {
                plain_search(&binary, args.runs, round)?
            } else {
                checkpointed_night(&binary, &scratch, args.runs, args.chunk, round)?
            };
            eprintln!(
                "round {round}, {side}: {:.0} runs/s",
                executions as f64 / seconds
            );
            rows.push(Row {
                measure: "checkpoints",
                side: if side == "search" {
                    "plain search"
                } else {
                    "night with checkpoints"
                },
                round,
                executions,
                seconds,
            });
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    write_results(args, &rows)
}

/// The release binary, built if missing.
pub fn rankcheck_binary() -> Result<PathBuf> {
    let status = Command::new("cargo")
        .args(["build", "--release", "--quiet", "--bin", "rankcheck"])
        .current_dir(root())
        .status()
        .context("cargo build runs")?;
    if !status.success() {
        bail!("cargo build --release --bin rankcheck failed");
    }
    Ok(root().join("target/release/rankcheck"))
}

fn suite(name: &str) -> String {
    root()
        .join("bench/nightly")
        .join(name)
        .display()
        .to_string()
}

fn spawn(binary: &Path, args: &[String]) -> Result<Child> {
    Command::new(binary)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .context("rankcheck runs")
}

/// A night of `runs` runs in its two shards, one worker each: run at once
/// (`parallel` = 2), or one after the other, as one core would do the
/// whole night (`parallel` = 1). Both sides run the same processes, so
/// neither merges: (executions, wall seconds until the last one ends).
fn shards_round(
    binary: &Path,
    scratch: &Path,
    runs: u64,
    parallel: u32,
    round: u32,
) -> Result<(u64, f64)> {
    let out = scratch.join(format!("shards-{parallel}-{round}"));
    let _ = std::fs::remove_dir_all(&out);
    let args = |i: u32| -> Vec<String> {
        vec![
            "nightly".into(),
            suite("throughput.toml"),
            "--runs".into(),
            runs.to_string(),
            "--night".into(),
            format!("r{round}"),
            "--shard".into(),
            format!("{i}/2"),
            "--jobs".into(),
            "1".into(),
            "--out".into(),
            out.display().to_string(),
        ]
    };
    let started = Instant::now();
    let mut children = Vec::new();
    for i in 0..2 {
        children.push(spawn(binary, &args(i))?);
        if parallel == 1 {
            wait(children.pop())?;
        }
    }
    for child in children {
        wait(Some(child))?;
    }
    let seconds = started.elapsed().as_secs_f64();
    let executions = (0..2)
        .map(|i| {
            end_record(&out.join(format!("nights/r{round}/shard-{i}-of-2.jsonl")))
                .map(|(runs, _)| runs)
        })
        .sum::<Result<u64>>()?;
    Ok((executions, seconds))
}

/// The machine's own ceiling for the shard measurement: two plain `check`
/// searches of half the runs each (one worker), one after the other or at
/// once, timed the same way.
fn ceiling_round(binary: &Path, runs: u64, parallel: u32, round: u32) -> Result<(u64, f64)> {
    let args = |i: u32| -> Vec<String> {
        vec![
            "check".into(),
            "--jobs".into(),
            "1".into(),
            "--runs".into(),
            (runs / 2).to_string(),
            "--seed".into(),
            format!("{round}{i}"),
            "--format".into(),
            "json".into(),
            root()
                .join("examples/locked_counter_ok.rk")
                .display()
                .to_string(),
        ]
    };
    let started = Instant::now();
    let mut children = Vec::new();
    for i in 0..2 {
        children.push(spawn(binary, &args(i))?);
        if parallel == 1 {
            wait(children.pop())?;
        }
    }
    for child in children {
        wait(Some(child))?;
    }
    Ok((runs / 2 * 2, started.elapsed().as_secs_f64()))
}

fn wait(child: Option<Child>) -> Result<()> {
    if let Some(mut child) = child {
        let status = child.wait()?;
        if !status.success() {
            bail!("a shard failed: {status}");
        }
    }
    Ok(())
}

/// What a shard file's end record says: runs and seconds of the process.
fn end_record(path: &Path) -> Result<(u64, f64)> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    parse_shard(&text)
        .records
        .into_iter()
        .rev()
        .find_map(|(_, r)| match r {
            Record::End(end) => Some((end.runs, end.elapsed_s)),
            _ => None,
        })
        .with_context(|| format!("{}: no end record", path.display()))
}

/// `rankcheck check` of the checkpoint suite's setting: its own rate.
fn plain_search(binary: &Path, runs: u64, round: u32) -> Result<(u64, f64)> {
    let out = Command::new(binary)
        .args([
            "check", "--depth", "3", "--vars", "2", "--jobs", "1", "--format", "json", "--runs",
        ])
        .arg(runs.to_string())
        .args(["--seed", &round.to_string()])
        .arg(root().join("examples/locked_counter_ok.rk"))
        .output()
        .context("rankcheck check runs")?;
    let report: serde_json::Value =
        serde_json::from_slice(&out.stdout).context("check prints JSON")?;
    let executions = report["runs"].as_u64().context("runs")?;
    let seconds = report["elapsed_s"].as_f64().context("elapsed_s")?;
    Ok((executions, seconds))
}

/// The same setting and run count as a night of one stream, every chunk
/// appended to the shard file: its rate as the shard's end record gives it.
fn checkpointed_night(
    binary: &Path,
    scratch: &Path,
    runs: u64,
    chunk: u64,
    round: u32,
) -> Result<(u64, f64)> {
    let out = scratch.join(format!("checkpoints-{round}"));
    let _ = std::fs::remove_dir_all(&out);
    let status = spawn(
        binary,
        &[
            "nightly".into(),
            suite("checkpoint.toml"),
            "--runs".into(),
            runs.to_string(),
            "--chunk".into(),
            chunk.to_string(),
            "--seed".into(),
            round.to_string(),
            "--night".into(),
            "c".into(),
            "--shard".into(),
            "0/1".into(),
            "--jobs".into(),
            "1".into(),
            "--out".into(),
            out.display().to_string(),
        ],
    )?
    .wait()?;
    if !status.success() {
        bail!("the checkpointed night failed: {status}");
    }
    end_record(&out.join("nights/c/shard-0-of-1.jsonl"))
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}

fn write_results(args: &NightlyArgs, rows: &[Row]) -> Result<()> {
    let dir = root().join("results");
    std::fs::create_dir_all(&dir)?;
    let mut csv = csv::Writer::from_path(dir.join("nightly.csv"))?;
    csv.write_record([
        "measure",
        "side",
        "round",
        "executions",
        "seconds",
        "executions_per_s",
    ])?;
    for r in rows {
        csv.write_record([
            r.measure.to_string(),
            r.side.to_string(),
            r.round.to_string(),
            r.executions.to_string(),
            format!("{:.3}", r.seconds),
            format!("{:.0}", r.executions as f64 / r.seconds),
        ])?;
    }
    csv.flush()?;
    let rate = |side: &str| {
        median(
            rows.iter()
                .filter(|r| r.side == side)
                .map(|r| r.executions as f64 / r.seconds)
                .collect(),
        )
    };
    let (one, two) = (rate("1 shard"), rate("2 shards"));
    let (plain, night) = (rate("plain search"), rate("night with checkpoints"));
    let (alone, together) = (rate("1 search at a time"), rate("2 searches at once"));
    // Per round, each pair measured back to back: the machine's noise
    // comes in stretches of seconds, so pairs say more than medians of
    // each side.
    let per_round = |slow: &str, fast: &str| -> Vec<f64> {
        (1..=args.rounds)
            .filter_map(|round| {
                let time = |side: &str| {
                    rows.iter()
                        .find(|r| r.side == side && r.round == round)
                        .map(|r| r.executions as f64 / r.seconds)
                };
                Some(time(fast)? / time(slow)?)
            })
            .collect()
    };
    let shard_ratios = per_round("1 shard", "2 shards");
    let ceiling_ratios = per_round("1 search at a time", "2 searches at once");
    let list = |v: &[f64]| {
        v.iter()
            .map(|r| format!("{r:.2}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let best = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
    let mut md = String::from("# Nightly campaigns: shards and checkpoints\n\n");
    let _ = writeln!(
        md,
        "Written by `cargo run --release -p rankcheck-bench -- nightly --runs {} --chunk {} --rounds {}` at commit {}, \
         on a machine with {} cores, through the release `rankcheck` binary. Rounds alternate the sides of each \
         comparison; medians over rounds. Raw rows: `nightly.csv`.\n",
        args.runs, args.chunk, args.rounds, commit(), cores()
    );
    let _ = writeln!(
        md,
        "## Shards\n\nA night of {} runs of `examples/locked_counter_ok.rk` (its default streams, one per component of the portfolio, \
         chunks of 1,024), split into its 2 shards of one worker each: one after the other (1 core) against both \
         at once (2 cores); executions over the wall time until the last one ends (start-up, preparatory runs \
         and shard files included).\n\n\
         | shards at once | runs/s (median) |\n| ---: | ---: |\n| 1 | {one:.0} |\n| 2 | {two:.0} |\n\n\
         Speed-up: {:.2}x (target 1.8x).\n\n\
         The machine's ceiling, measured the same way in the same rounds: two plain `rankcheck check --jobs 1` \
         searches of half the runs each (the default portfolio) one after the other, {alone:.0} runs/s, against \
         both at once, {together:.0} runs/s: {:.2}x. The shards' speed-up is {:.0}% of what the machine gives \
         two processes.\n\n\
         Per round (each pair back to back), 2 shards against 1: {}; median {:.2}x, best {:.2}x. Two plain \
         searches at once against one after the other: {}; median {:.2}x, best {:.2}x. This machine is shared: \
         in some stretches its second core is busy elsewhere and two processes run no faster than one, whatever \
         they are.\n",
        args.runs,
        two / one,
        together / alone,
        100.0 * (two / one) / (together / alone),
        list(&shard_ratios),
        median(shard_ratios.clone()),
        best(&shard_ratios),
        list(&ceiling_ratios),
        median(ceiling_ratios.clone()),
        best(&ceiling_ratios),
    );
    let _ = writeln!(
        md,
        "## Checkpoints\n\nThe same setting (PCTVB, d=3, v=2) and run count on the same program: a plain \
         `rankcheck check --jobs 1` search (its own `executions_per_s`) against a night of one stream that \
         appends every chunk of {} runs to its shard file (runs over the shard's own elapsed time, fsync included).\n\n\
         | search | runs/s (median) |\n| --- | ---: |\n| plain search | {plain:.0} |\n| night with checkpoints | {night:.0} |\n\n\
         Ratio: {:.3}x (target >= 0.95x).",
        args.chunk,
        night / plain
    );
    std::fs::write(dir.join("nightly.md"), md)?;
    eprintln!("wrote results/nightly.csv and results/nightly.md");
    Ok(())
}
