//! How cost grows: peak memory over a million executions of one search (it
//! must stay flat), and time per execution as the thread count doubles (it
//! must grow linearly, not with the square). Writes `results/scaling.csv`
//! and `results/scaling.md`.

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};
use rankcheck_engine::{
    search, Executable, Instrumentation, Limits, PriorityScheduler, PriorityScheme, Program,
    RandomScheduler, SearchConfig, Vm,
};

use crate::cli::ScalingArgs;
use crate::workload::{commit, compile, cores, executables, prepare, priority_strategy, root};

/// One measurement.
struct Row {
    what: &'static str,
    /// Executions run (memory), or threads (thread scaling).
    size: u64,
    strategy: &'static str,
    seconds: f64,
    /// Peak resident memory so far, in KiB (memory rows).
    peak_kib: Option<u64>,
    /// Executions timed (thread rows).
    executions: u64,
}

pub fn run(args: &ScalingArgs) -> Result<()> {
    let mut rows = memory(args.runs)?;
    let mut n = 1_000;
    while n <= args.threads {
        rows.extend(threads(n)?);
        n *= 2;
    }
    write(&rows)
}

/// The process's peak resident memory, in KiB.
fn peak_kib() -> Result<u64> {
    let status =
        std::fs::read_to_string("/proc/self/status").context("reading /proc/self/status")?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .context("no VmHWM in /proc/self/status")
}

/// Peak memory after searches of growing length on locked_counter_ok.rk
/// (PCTVB, d = 3, v = 1, two workers): flat means a search keeps nothing
/// per run.
fn memory(most: u64) -> Result<Vec<Row>> {
    let program = compile("examples/locked_counter_ok.rk", &[])?;
    let profile = prepare(&program, 1);
    let strategy = priority_strategy(&profile, 3, Some(1));
    let executables = executables(&program);
    let mut rows = Vec::new();
    let mut runs = 10_000;
    while runs <= most {
        let config = SearchConfig {
            first_run: 0,
            runs,
            seed: 1,
            limits: Limits::default(),
            keep_going: false,
            jobs: 2,
        };
        let started = Instant::now();
        let result = search(&strategy, &executables, &config, &|_| true);
        rows.push(Row {
            what: "memory",
            size: result.runs,
            strategy: "pctvb",
            seconds: started.elapsed().as_secs_f64(),
            peak_kib: Some(peak_kib()?),
            executions: result.runs,
        });
        runs *= 10;
    }
    Ok(rows)
}

/// A program whose `main` spawns `n` workers that each increment a counter,
/// then joins them all.
fn spawning(n: usize) -> Result<Arc<Program>> {
    let source = std::fs::read_to_string(root().join("bench/programs/scaling_spawn.rk"))
        .context("reading bench/programs/scaling_spawn.rk")?;
    let program = rankcheck_instr::compile(&source, &[("N".into(), n as i64)])
        .map_err(|e| anyhow::anyhow!("scaling_spawn.rk: {e}"))?;
    Ok(Arc::new(program))
}

/// Time a few executions with `n` threads under PCT and the random
/// scheduler.
fn threads(n: usize) -> Result<Vec<Row>> {
    let program = spawning(n)?;
    let exe = Executable::new(program.clone(), &Instrumentation::all(&program));
    let limits = Limits {
        max_steps: 100_000_000,
        ..Limits::default()
    };
    let executions = 10;
    let mut rows = Vec::new();
    for strategy in ["pct", "random"] {
        let mut vm = Vm::new(&exe, limits);
        let started = Instant::now();
        for seed in 0..executions {
            match strategy {
                "pct" => {
                    let window = 10 * n as u64;
                    let mut pct =
                        PriorityScheduler::new(seed, PriorityScheme::Pct, 2, n + 1, window);
                    vm.run(&mut pct)
                }
                _ => vm.run(&mut RandomScheduler::new(seed)),
            };
        }
        rows.push(Row {
            what: "threads",
            size: n as u64 + 1,
            strategy,
            seconds: started.elapsed().as_secs_f64(),
            peak_kib: None,
            executions,
        });
    }
    Ok(rows)
}

fn write(rows: &[Row]) -> Result<()> {
    let dir = root().join("results");
    let mut csv = csv::Writer::from_path(dir.join("scaling.csv"))?;
    csv.write_record([
        "what",
        "size",
        "strategy",
        "executions",
        "seconds",
        "peak_kib",
        "commit",
    ])?;
    let commit = commit();
    for r in rows {
        csv.write_record([
            r.what.to_string(),
            r.size.to_string(),
            r.strategy.to_string(),
            r.executions.to_string(),
            format!("{:.4}", r.seconds),
            r.peak_kib.map(|k| k.to_string()).unwrap_or_default(),
            commit.clone(),
        ])?;
    }
    csv.flush()?;
    std::fs::write(dir.join("scaling.md"), markdown(rows, &commit))?;
    Ok(())
}

fn markdown(rows: &[Row], commit: &str) -> String {
    let mut out = format!(
        "# Scaling\n\nWritten by `cargo run --release -p rankcheck-bench -- scaling` at commit `{commit}` on {} cores. Raw rows: `scaling.csv`.\n\n",
        cores()
    );
    out.push_str("## Memory over a million executions\n\nPeak resident memory of the process after searches of growing length on `examples/locked_counter_ok.rk` (PCTVB, d = 3, v = 1, two workers), run one after the other: a search keeps nothing per execution, so the peak does not grow.\n\n| executions | seconds | peak resident memory |\n| ---: | ---: | ---: |\n");
    for r in rows.iter().filter(|r| r.what == "memory") {
        let _ = writeln!(
            out,
            "| {} | {:.2} | {} KiB |",
            r.size,
            r.seconds,
            r.peak_kib.unwrap_or(0)
        );
    }
    out.push_str("\n## Cost against the number of threads\n\n`bench/programs/scaling_spawn.rk`: `main` spawns N workers that each increment a shared counter, then joins them all; every access tracked. Time per execution divided by the thread count stays flat as N doubles: the cost is linear in the threads (it was quadratic when every scheduling point rescanned every thread).\n\n| threads | strategy | ms per execution | µs per thread |\n| ---: | --- | ---: | ---: |\n");
    for r in rows.iter().filter(|r| r.what == "threads") {
        let per_execution = r.seconds / r.executions as f64;
        let _ = writeln!(
            out,
            "| {} | {} | {:.2} | {:.3} |",
            r.size,
            r.strategy,
            per_execution * 1e3,
            per_execution * 1e6 / r.size as f64
        );
    }
    out
}
