//! `shuttle-baseline`: runs awslabs/shuttle on rankcheck's benchmark programs and writes CSV.

mod bug_hunt;
mod cli;
mod config;
mod counting;
mod program;
mod rt;
mod step_count;
mod throughput;

use bug_hunt::{Hunt, Outcome};
use clap::Parser;
use cli::{Cli, Command, StepsProgram, StepsScheduler, ThroughputProgram, Tool};
use config::QuietPanics;
use program::{Assertion, Program};
use std::process::ExitCode;
use std::time::Duration;
use step_count::SchedulerChoice;

/// The `tool` column of every row.
const TOOL: &str = "shuttle";

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<ExitCode, String> {
    let cli = Cli::parse();
    // Shuttle's schedulers take their seed from this variable, when it is set, instead of the
    // one they are given: every row would then carry a seed that was not used.
    if std::env::var_os("SHUTTLE_RANDOM_SEED").is_some() {
        return Err("SHUTTLE_RANDOM_SEED is set and would override the seeds; unset it".to_owned());
    }
    match cli.command {
        Command::Throughput {
            tool,
            program,
            seconds,
            seed,
            executions,
        } => throughput(tool, program, seconds, seed, executions)?,
        Command::RtUntilBug {
            hot,
            seeds,
            depth,
            vars,
            cap,
        } => rt_until_bug(&hot, seeds, depth, vars, cap)?,
        Command::PctUntilBug {
            hot,
            seeds,
            depth,
            cap,
        } => pct_until_bug(&hot, seeds, depth, cap)?,
        Command::Steps {
            program,
            hot,
            executions,
            scheduler,
            depth,
            seed,
        } => steps(program, hot, executions, scheduler, depth, seed)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// One row per seed: executions until rankcheck-rt's PCTVB fails
/// corner_variable at each HOT.
fn rt_until_bug(hots: &[u32], seeds: u64, depth: u32, vars: usize, cap: u64) -> Result<(), String> {
    // Each found bug's report is a panic out of `check`: silence it (the
    // rows say what was found). rankcheck-rt's own hook, installed on its
    // first run, hands such panics to this one.
    std::panic::set_hook(Box::new(|_| {}));
    println!("tool,program,scheduler,hot,depth,seed,executions_until_bug,found");
    for &hot in hots {
        for seed in 0..seeds {
            let found = rt::until_bug(hot, depth, vars, seed, cap)?;
            println!(
                "rankcheck-rt,corner-variable,pctvb-v{vars},{hot},{depth},{seed},{},{}",
                found.unwrap_or(cap),
                found.is_some()
            );
        }
    }
    Ok(())
}

fn throughput(
    tool: Tool,
    program: ThroughputProgram,
    seconds: f64,
    seed: u64,
    executions: Option<u64>,
) -> Result<(), String> {
    let duration = Duration::try_from_secs_f64(seconds)
        .ok()
        .filter(|duration| !duration.is_zero())
        .ok_or_else(|| format!("expected a positive number of seconds, got {seconds}"))?;
    let program = match program {
        ThroughputProgram::Fig02NoAssert => Program::Fig02NoAssert,
        ThroughputProgram::LockedCounter => Program::LockedCounter,
        ThroughputProgram::LockedCounterInner => Program::LockedCounterInner,
        ThroughputProgram::MutexCounter => Program::MutexCounter,
        ThroughputProgram::FlagHandoff => Program::FlagHandoff,
        ThroughputProgram::AsyncYields => Program::AsyncYields,
    };
    let (measured, tool) = match (tool, executions) {
        (Tool::Shuttle, None) => (throughput::measure(program, duration, seed)?, TOOL),
        (Tool::Shuttle, Some(n)) => (throughput::exactly(program, n, seed)?, TOOL),
        (Tool::RankcheckRt, None) => (rt::throughput(program, duration, seed)?, "rankcheck-rt"),
        (Tool::RankcheckRt, Some(n)) => (rt::exactly(program, n, seed)?, "rankcheck-rt"),
    };
    println!("tool,program,scheduler,seed,executions,seconds,executions_per_s");
    println!(
        "{tool},{},random,{seed},{},{:.3},{:.1}",
        program.name(),
        measured.executions,
        measured.seconds,
        measured.per_second()
    );
    Ok(())
}

fn pct_until_bug(hot: &[u32], seeds: u64, depth: usize, cap: usize) -> Result<(), String> {
    if depth == 0 {
        return Err("expected a depth of at least 1".to_owned());
    }
    if cap == 0 {
        return Err("expected a cap of at least 1 execution".to_owned());
    }
    let program = Program::CornerVariable {
        hot: 0,
        assertion: Assertion::Checked,
    };
    let _quiet = QuietPanics::new();
    println!("tool,program,scheduler,hot,depth,seed,executions_until_bug,found");
    for &hot in hot {
        for seed in 0..seeds {
            let outcome = Hunt {
                hot,
                depth,
                seed,
                cap,
            }
            .run()?;
            let (executions, found) = match outcome {
                Outcome::Bug { executions } => (executions, true),
                Outcome::Cap { executions } => (executions, false),
            };
            println!(
                "{TOOL},{},pct,{hot},{depth},{seed},{executions},{found}",
                program.name()
            );
        }
    }
    Ok(())
}

fn steps(
    program: StepsProgram,
    hot: u32,
    executions: usize,
    scheduler: StepsScheduler,
    depth: usize,
    seed: u64,
) -> Result<(), String> {
    if executions == 0 {
        return Err("expected at least 1 execution".to_owned());
    }
    let (program, hot_column) = match program {
        StepsProgram::Fig02NoAssert => (Program::Fig02NoAssert, String::new()),
        StepsProgram::LockedCounter => (Program::LockedCounter, String::new()),
        StepsProgram::LockedCounterInner => (Program::LockedCounterInner, String::new()),
        StepsProgram::CornerVariable => (
            Program::CornerVariable {
                hot,
                assertion: Assertion::Skipped,
            },
            hot.to_string(),
        ),
    };
    let scheduler = match scheduler {
        StepsScheduler::Random => SchedulerChoice::Random,
        StepsScheduler::Pct if depth == 0 => {
            return Err("expected a depth of at least 1".to_owned())
        }
        StepsScheduler::Pct => SchedulerChoice::Pct { depth },
    };
    let spread = step_count::count(program, scheduler, executions, seed);
    let mean = |sum: u64| sum as f64 / spread.executions as f64;
    println!(
        "tool,program,hot,scheduler,depth,seed,executions,\
         next_task_min,next_task_mean,next_task_max,\
         choice_points_min,choice_points_mean,choice_points_max"
    );
    println!(
        "{TOOL},{},{hot_column},{},{},{seed},{},{},{:.2},{},{},{:.2},{}",
        program.name(),
        scheduler.name(),
        scheduler
            .depth()
            .map(|depth| depth.to_string())
            .unwrap_or_default(),
        spread.executions,
        spread.next_task_min,
        mean(spread.next_task_sum),
        spread.next_task_max,
        spread.choice_points_min,
        mean(spread.choice_points_sum),
        spread.choice_points_max
    );
    Ok(())
}
