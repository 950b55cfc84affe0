//! Executions per second of the VM against shuttle's random scheduler,
//! measured side by side (issue 19: at least 6x on the locked counter,
//! without losing the 13x on the flag program). Where the time goes is in
//! results/throughput_profile.md.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use rankcheck_engine::{search, Executables, Limits, RandomStrategy, SearchConfig};

use crate::baseline;
use crate::cli::ThroughputArgs;

/// A benchmark program: our `.rk` file, shuttle's name for the same test,
/// and the ratio to shuttle we aim for.
struct Workload {
    name: &'static str,
    path: &'static str,
    shuttle: &'static str,
    target: &'static str,
}

const WORKLOADS: [Workload; 2] = [
    Workload {
        name: "fig02-noassert",
        path: "bench/programs/fig02_noassert.rk",
        shuttle: "fig02-noassert",
        target: "13x",
    },
    Workload {
        name: "locked-counter",
        path: "examples/locked_counter_ok.rk",
        shuttle: "locked-counter",
        target: "6x",
    },
];

/// Executions whose instructions are counted against the baseline.
const INSTRUCTION_RUNS: u64 = 100_000;

/// The comparison with a baseline commit: its revision, the rates and
/// the instruction counts.
type Comparison = (
    String,
    Vec<baseline::Row>,
    Vec<(&'static str, &'static str, u64, u64)>,
);

/// One measurement.
struct Row {
    tool: &'static str,
    program: &'static str,
    round: u32,
    executions: u64,
    seconds: f64,
}

impl Row {
    fn rate(&self) -> f64 {
        self.executions as f64 / self.seconds
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

pub fn run(args: &ThroughputArgs) -> Result<()> {
    let (seconds, rounds) = (args.seconds, args.rounds);
    let shuttle = if !args.no_shuttle {
        Some(build_shuttle()?)
    } else {
        None
    };
    let baseline = match &args.baseline {
        Some(rev) => {
            let (old, new) = (baseline::build_baseline(rev)?, baseline::build_current()?);
            let counts = if baseline::have_valgrind() {
                baseline::count_instructions(&old, &new, INSTRUCTION_RUNS)?
            } else {
                eprintln!("valgrind is not installed: no instruction counts");
                Vec::new()
            };
            let rates = baseline::compare(&old, &new, seconds, rounds)?;
            Some((rev.clone(), rates, counts))
        }
        None => None,
    };
    let mut rows = Vec::new();
    for round in 1..=rounds {
        for workload in &WORKLOADS {
            rows.push(measure_rankcheck(workload, round, seconds)?);
            if let Some(binary) = &shuttle {
                rows.push(measure_shuttle(binary, workload, round, seconds)?);
            }
            let last = rows
                .iter()
                .rev()
                .take(2)
                .map(|r| format!("{} {:.0}/s", r.tool, r.rate()))
                .collect::<Vec<_>>();
            eprintln!("round {round} {}: {}", workload.name, last.join(", "));
        }
    }
    write_results(&rows, args, baseline.as_ref())
}

fn measure_rankcheck(workload: &Workload, round: u32, seconds: f64) -> Result<Row> {
    let path = root().join(workload.path);
    let source = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let program = Arc::new(
        rankcheck_instr::compile(&source, &[])
            .map_err(|e| anyhow::anyhow!("{}: {e}", workload.path))?,
    );
    let strategy = RandomStrategy::new();
    let executables = Executables::every_variable(program);
    let config = SearchConfig {
        first_run: 0,
        runs: u64::MAX,
        seed: u64::from(round),
        limits: Limits::default(),
        keep_going: true,
        jobs: 1,
    };
    let budget = Duration::from_secs_f64(seconds);
    let started = Instant::now();
    // Check the clock every 4096 executions: reading it costs as much as a
    // short execution.
    let result = search(&strategy, &executables, &config, &|done| {
        done % 4096 != 0 || started.elapsed() < budget
    });
    let elapsed = started.elapsed().as_secs_f64();
    if result.failures > 0 {
        bail!(
            "{} failed under the benchmark: it must be correct",
            workload.path
        );
    }
    Ok(Row {
        tool: "rankcheck",
        program: workload.name,
        round,
        executions: result.runs,
        seconds: elapsed,
    })
}

pub fn build_shuttle() -> Result<PathBuf> {
    let manifest = root().join("bench/shuttle-baseline/Cargo.toml");
    let status = Command::new("cargo")
        .args(["build", "--release", "--quiet", "--manifest-path"])
        .arg(&manifest)
        .status()
        .context("cannot run cargo to build the shuttle baseline")?;
    if !status.success() {
        bail!("building {} failed", manifest.display());
    }
    Ok(root().join("bench/shuttle-baseline/target/release/shuttle-baseline"))
}

fn measure_shuttle(binary: &Path, workload: &Workload, round: u32, seconds: f64) -> Result<Row> {
    let output = Command::new(binary)
        .args([
            "throughput",
            "--program",
            workload.shuttle,
            "--seconds",
            &seconds.to_string(),
            "--seed",
        ])
        .arg(round.to_string())
        .output()
        .with_context(|| format!("cannot run {}", binary.display()))?;
    if !output.status.success() {
        bail!(
            "shuttle baseline failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    // tool,program,scheduler,seed,executions,seconds,executions_per_s
    let text = String::from_utf8_lossy(&output.stdout);
    let Some(line) = text.lines().nth(1) else {
        bail!("shuttle baseline printed no row: {text}")
    };
    let fields: Vec<&str> = line.split(',').collect();
    if fields.len() < 6 {
        bail!("unexpected shuttle row `{line}`");
    }
    Ok(Row {
        tool: "shuttle",
        program: workload.name,
        round,
        executions: fields[4].parse().context("shuttle executions")?,
        seconds: fields[5].parse().context("shuttle seconds")?,
    })
}

fn write_results(rows: &[Row], args: &ThroughputArgs, baseline: Option<&Comparison>) -> Result<()> {
    let (seconds, rounds) = (args.seconds, args.rounds);
    let dir = root().join("results");
    std::fs::create_dir_all(&dir)?;
    let mut csv = csv::Writer::from_path(dir.join("throughput.csv"))?;
    csv.write_record([
        "tool",
        "program",
        "scheduler",
        "round",
        "seed",
        "executions",
        "seconds",
        "executions_per_s",
    ])?;
    for row in rows {
        csv.write_record([
            row.tool.to_string(),
            row.program.to_string(),
            "random".to_string(),
            row.round.to_string(),
            row.round.to_string(),
            row.executions.to_string(),
            format!("{:.3}", row.seconds),
            format!("{:.0}", row.rate()),
        ])?;
    }
    csv.flush()?;

    let commit = crate::workload::commit();
    let mut md = String::from("# Throughput: executions per second, random scheduler\n\n");
    let _ = writeln!(
        md,
        "Written by `cargo run --release -p rankcheck-bench -- throughput --seconds {seconds} --rounds {rounds}{}` \
         at commit {commit}, on a machine with {} cores. Raw rows: `throughput.csv`. \
         Rounds alternate rankcheck and shuttle on each program; the ratio is of medians of the same run. \
         Where the time goes: `throughput_profile.md`.\n",
        args.baseline
            .as_ref()
            .map_or(String::new(), |rev| format!(" --baseline {rev}")),
        crate::workload::cores()
    );
    md.push_str("| program | rankcheck runs/s (median) | shuttle runs/s (median) | ratio | target |\n| --- | ---: | ---: | ---: | ---: |\n");
    for workload in &WORKLOADS {
        let ours = median(
            rows.iter()
                .filter(|r| r.tool == "rankcheck" && r.program == workload.name)
                .map(Row::rate),
        );
        let theirs = median(
            rows.iter()
                .filter(|r| r.tool == "shuttle" && r.program == workload.name)
                .map(Row::rate),
        );
        let ratio = if theirs > 0.0 {
            format!("{:.1}x", ours / theirs)
        } else {
            "-".into()
        };
        let _ = writeln!(
            md,
            "| {} | {ours:.0} | {theirs:.0} | {ratio} | {} |",
            workload.name, workload.target
        );
    }
    if let Some((rev, rows, counts)) = baseline {
        md.push_str(&baseline::section(rows, counts, INSTRUCTION_RUNS, rev));
        let mut csv = csv::Writer::from_path(dir.join("throughput_baseline.csv"))?;
        csv.write_record(["build", "program", "search", "round", "executions_per_s"])?;
        for row in rows {
            let build = if row.build == "baseline" {
                rev.as_str()
            } else {
                "current"
            };
            csv.write_record([
                build.to_string(),
                row.program.to_string(),
                row.search.to_string(),
                row.round.to_string(),
                format!("{:.0}", row.executions_per_s),
            ])?;
        }
        csv.flush()?;
    }
    std::fs::write(dir.join("throughput.md"), md)?;
    eprintln!("wrote results/throughput.csv and results/throughput.md");
    Ok(())
}

pub fn median(values: impl Iterator<Item = f64>) -> f64 {
    let mut v: Vec<f64> = values.collect();
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
