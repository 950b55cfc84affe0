//! Executions until the bug in `examples/corner_variable.rk` as the hot
//! variable's share grows (the paper's Figure 6): PCT against PCTVB, and
//! shuttle's PCT in the same run.

use std::fmt::Write as _;
use std::process::Command;

use anyhow::{bail, Context, Result};
use rankcheck_engine::{search, Limits, SearchConfig};

use crate::cli::CornerArgs;
use crate::throughput::build_shuttle;
use crate::workload::{compile, executables, prepare, priority_strategy, root};

const HOTS: [i64; 5] = [10, 50, 100, 200, 400];
/// Executions after which a seed counts as not having found the bug.
const CAP: u64 = 1_000_000;

struct Row {
    tool: &'static str,
    strategy: &'static str,
    hot: i64,
    seed: u64,
    executions: u64,
    found: bool,
}

pub fn run(args: &CornerArgs) -> Result<()> {
    let seeds = args.seeds;
    let shuttle = if !args.no_shuttle {
        Some(build_shuttle()?)
    } else {
        None
    };
    let mut rows = Vec::new();
    for hot in HOTS {
        let program = compile("examples/corner_variable.rk", &[("HOT".to_string(), hot)])?;
        let executables = executables(&program);
        for (strategy, vars) in [("pct", None), ("pctvb", Some(1))] {
            for seed in 0..seeds {
                let profile = prepare(&program, seed ^ 0xfeed);
                let strategy_impl = priority_strategy(&profile, 2, vars);
                let config = SearchConfig {
                    first_run: 0,
                    runs: CAP,
                    seed,
                    limits: Limits::default(),
                    keep_going: false,
                    jobs: 1,
                };
                let result = search(&strategy_impl, &executables, &config, &|_| true);
                let found = result.first_failure.is_some();
                rows.push(Row {
                    tool: "rankcheck",
                    strategy,
                    hot,
                    seed,
                    executions: result.runs,
                    found,
                });
            }
            let mean = mean(
                rows.iter()
                    .filter(|r| r.tool == "rankcheck" && r.strategy == strategy && r.hot == hot),
            );
            eprintln!("HOT={hot} rankcheck {strategy}: mean {mean:.1} executions");
        }
        if let Some(binary) = &shuttle {
            let output = Command::new(binary)
                .args([
                    "pct-until-bug",
                    "--hot",
                    &hot.to_string(),
                    "--seeds",
                    &seeds.to_string(),
                    "--depth",
                    "2",
                ])
                .output()
                .context("cannot run the shuttle baseline")?;
            if !output.status.success() {
                bail!(
                    "shuttle baseline failed: {}",
                    String::from_utf8_lossy(&output.stderr)
                );
            }
            // tool,program,scheduler,hot,depth,seed,executions_until_bug,found
            for line in String::from_utf8_lossy(&output.stdout).lines().skip(1) {
                let f: Vec<&str> = line.split(',').collect();
                if f.len() < 8 {
                    bail!("unexpected shuttle row `{line}`");
                }
                rows.push(Row {
                    tool: "shuttle",
                    strategy: "pct",
                    hot,
                    seed: f[5].parse()?,
                    executions: f[6].parse()?,
                    found: f[7] == "true",
                });
            }
            let mean = mean(rows.iter().filter(|r| r.tool == "shuttle" && r.hot == hot));
            eprintln!("HOT={hot} shuttle pct: mean {mean:.1} executions");
        }
    }
    write(&rows, seeds)
}

fn mean<'a>(rows: impl Iterator<Item = &'a Row>) -> f64 {
    let (sum, n) = rows.fold((0u64, 0u64), |(s, n), r| (s + r.executions, n + 1));
    if n == 0 {
        0.0
    } else {
        sum as f64 / n as f64
    }
}

fn write(rows: &[Row], seeds: u64) -> Result<()> {
    let dir = root().join("results");
    std::fs::create_dir_all(&dir)?;
    let mut csv = csv::Writer::from_path(dir.join("corner_variable.csv"))?;
    csv.write_record([
        "tool",
        "strategy",
        "depth",
        "vars",
        "hot",
        "seed",
        "executions_until_bug",
        "found",
    ])?;
    for r in rows {
        let vars = if r.strategy == "pctvb" { "1" } else { "all" };
        csv.write_record([
            r.tool,
            r.strategy,
            "2",
            vars,
            &r.hot.to_string(),
            &r.seed.to_string(),
            &r.executions.to_string(),
            &r.found.to_string(),
        ])?;
    }
    csv.flush()?;
    let mut md = String::from("# Corner variable: executions until the bug (depth 2)\n\n");
    let _ = writeln!(
        md,
        "Written by `cargo run --release -p rankcheck-bench -- corner --seeds {seeds}`. Raw rows: \
         `corner_variable.csv` (one per seed; a seed that hit the cap of {CAP} counts as {CAP}).\n"
    );
    md.push_str("| HOT | rankcheck pct | rankcheck pctvb (v=1) | shuttle pct | pctvb / shuttle |\n| ---: | ---: | ---: | ---: | ---: |\n");
    for hot in HOTS {
        let pick = |tool: &str, strategy: &str| {
            mean(
                rows.iter()
                    .filter(|r| r.tool == tool && r.strategy == strategy && r.hot == hot),
            )
        };
        let (pct, pctvb, shuttle) = (
            pick("rankcheck", "pct"),
            pick("rankcheck", "pctvb"),
            pick("shuttle", "pct"),
        );
        let ratio = if shuttle > 0.0 {
            format!("1/{:.0}", shuttle / pctvb.max(1e-9))
        } else {
            "-".into()
        };
        let _ = writeln!(
            md,
            "| {hot} | {pct:.1} | {pctvb:.1} | {shuttle:.1} | {ratio} |"
        );
    }
    std::fs::write(dir.join("corner_variable.md"), md)?;
    eprintln!("wrote results/corner_variable.csv and results/corner_variable.md");
    Ok(())
}
