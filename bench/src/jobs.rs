//! Executions per second of a PCTVB search with one worker and with two,
//! measured in the same run on a program without bugs.

use std::fmt::Write as _;
use std::time::Instant;

use anyhow::{bail, Result};
use rankcheck_engine::{search, Limits, SearchConfig};

use crate::cli::JobsArgs;
use crate::workload::{compile, executables, prepare, priority_strategy, root};

pub fn run(args: &JobsArgs) -> Result<()> {
    let (runs, rounds) = (args.runs, args.rounds);
    let program = compile("examples/locked_counter_ok.rk", &[])?;
    let profile = prepare(&program, 1);
    let strategy = priority_strategy(&profile, 3, Some(1));
    let executables = executables(&program);
    let mut rows = Vec::new();
    for round in 1..=rounds {
        for jobs in [1usize, 2] {
            let config = SearchConfig {
                first_run: 0,
                runs,
                seed: u64::from(round),
                limits: Limits::default(),
                keep_going: false,
                jobs,
            };
            let started = Instant::now();
            let result = search(&strategy, &executables, &config, &|_| true);
            let seconds = started.elapsed().as_secs_f64();
            if result.failures > 0 {
                bail!("locked_counter_ok failed under the benchmark");
            }
            eprintln!(
                "round {round} jobs {jobs}: {:.0} runs/s",
                result.runs as f64 / seconds
            );
            rows.push((round, jobs, result.runs, seconds));
        }
    }
    let dir = root().join("results");
    std::fs::create_dir_all(&dir)?;
    let mut csv = csv::Writer::from_path(dir.join("jobs.csv"))?;
    csv.write_record([
        "program",
        "strategy",
        "round",
        "jobs",
        "executions",
        "seconds",
        "executions_per_s",
    ])?;
    for &(round, jobs, executions, seconds) in &rows {
        csv.write_record([
            "locked-counter".to_string(),
            "pctvb d=3 v=1".to_string(),
            round.to_string(),
            jobs.to_string(),
            executions.to_string(),
            format!("{seconds:.3}"),
            format!("{:.0}", executions as f64 / seconds),
        ])?;
    }
    csv.flush()?;
    let rate = |jobs: usize| {
        let mut v: Vec<f64> = rows
            .iter()
            .filter(|r| r.1 == jobs)
            .map(|r| r.2 as f64 / r.3)
            .collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (one, two) = (rate(1), rate(2));
    let mut md =
        String::from("# Parallel runs: executions per second with --jobs 1 and --jobs 2\n\n");
    let _ = writeln!(
        md,
        "Written by `cargo run --release -p rankcheck-bench -- jobs --runs {runs} --rounds {rounds}` on a machine \
         with {} cores: PCTVB (d=3, v=1) on examples/locked_counter_ok.rk, rounds alternating. Raw rows: `jobs.csv`.\n",
        crate::workload::cores()
    );
    let _ = writeln!(
        md,
        "| jobs | runs/s (median) |\n| ---: | ---: |\n| 1 | {one:.0} |\n| 2 | {two:.0} |\n"
    );
    let _ = writeln!(md, "Speed-up: {:.2}x (target 1.8x).", two / one);
    std::fs::write(dir.join("jobs.md"), md)?;
    eprintln!("wrote results/jobs.csv and results/jobs.md");
    Ok(())
}
