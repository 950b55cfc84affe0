//! The command line: clap types, turned into plain values by `main`.

use clap::{Parser, Subcommand, ValueEnum};

/// awslabs/shuttle on rankcheck's benchmark programs: the baseline for our ratios.
/// Every subcommand writes CSV with a header to stdout.
#[derive(Debug, Parser)]
#[command(name = "shuttle-baseline", version)]
pub struct Cli {
    /// What to measure.
    #[command(subcommand)]
    pub command: Command,
}

/// The measurements.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Executions per second of shuttle's random scheduler, in one timed run.
    Throughput {
        /// Which tool runs it.
        #[arg(long, value_enum, default_value_t = Tool::Shuttle)]
        tool: Tool,
        /// The program to run.
        #[arg(long)]
        program: ThroughputProgram,
        /// How long to run, in seconds.
        #[arg(long, default_value_t = 5.0)]
        seconds: f64,
        /// Seed of the random scheduler.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Run exactly this many executions, without calibration (for an instruction count
        /// under valgrind); `--seconds` is then ignored.
        #[arg(long)]
        executions: Option<u64>,
    },
    /// Executions until shuttle's PCT first fails corner_variable.rk's assertion; one row per
    /// HOT and seed 0..SEEDS.
    PctUntilBug {
        /// HOT of corner_variable.rk; a comma-separated list sweeps it.
        #[arg(long, value_delimiter = ',', required = true)]
        hot: Vec<u32>,
        /// Number of seeds: each of 0..SEEDS searches on its own.
        #[arg(long)]
        seeds: u64,
        /// PCT bug depth (shuttle's max_depth).
        #[arg(long, default_value_t = 2)]
        depth: usize,
        /// Executions after which a seed gives up (reported with found = false).
        #[arg(long, default_value_t = 1_000_000)]
        cap: usize,
    },
    /// Executions until rankcheck-rt's PCTVB (preparatory runs included)
    /// first fails corner_variable.rk's assertion; one row per HOT and seed.
    RtUntilBug {
        /// HOT of corner_variable.rk; a comma-separated list sweeps it.
        #[arg(long, value_delimiter = ',', required = true)]
        hot: Vec<u32>,
        /// Number of seeds.
        #[arg(long)]
        seeds: u64,
        /// PCT bug depth.
        #[arg(long, default_value_t = 2)]
        depth: u32,
        /// Variables PCTVB draws per run.
        #[arg(long, default_value_t = 1)]
        vars: usize,
        /// Runs after which a seed gives up.
        #[arg(long, default_value_t = 1_000_000)]
        cap: u64,
    },
    /// Scheduling decisions per execution: shuttle's `next_task` calls, and those with two or
    /// more runnable tasks (the steps PCT counts).
    Steps {
        /// The program to run.
        #[arg(long)]
        program: StepsProgram,
        /// HOT of corner_variable.rk (ignored by the other programs).
        #[arg(long, default_value_t = 50)]
        hot: u32,
        /// Executions to count over.
        #[arg(long, default_value_t = 1000)]
        executions: usize,
        /// The scheduler.
        #[arg(long, value_enum, default_value_t = StepsScheduler::Random)]
        scheduler: StepsScheduler,
        /// PCT bug depth, with --scheduler pct.
        #[arg(long, default_value_t = 2)]
        depth: usize,
        /// Seed of the scheduler.
        #[arg(long, default_value_t = 0)]
        seed: u64,
    },
}

/// The tool that runs a program.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Tool {
    /// awslabs/shuttle's random scheduler.
    Shuttle,
    /// rankcheck-rt's random strategy.
    #[value(name = "rankcheck-rt")]
    RankcheckRt,
}

/// The programs whose throughput we compare.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ThroughputProgram {
    /// fig02_c1v1.rk without its assertion.
    #[value(name = "fig02-noassert")]
    Fig02NoAssert,
    /// locked_counter_ok.rk.
    #[value(name = "locked-counter")]
    LockedCounter,
    /// locked_counter_ok.rk with the counter inside a Mutex<i64> (fewer steps; not the baseline).
    #[value(name = "locked-counter-inner")]
    LockedCounterInner,
    /// Issue 20's mutex counter: 3 threads x 5 increments of a Mutex<i64>.
    #[value(name = "mutex-counter")]
    MutexCounter,
    /// Issue 20's two-thread atomic flag/data handoff.
    #[value(name = "flag-handoff")]
    FlagHandoff,
    /// Async task switches: 3 tasks x 5 yields around a shared increment, under block_on.
    #[value(name = "async-yields")]
    AsyncYields,
}

/// The programs whose steps can be counted.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum StepsProgram {
    /// fig02_c1v1.rk without its assertion.
    #[value(name = "fig02-noassert")]
    Fig02NoAssert,
    /// locked_counter_ok.rk.
    #[value(name = "locked-counter")]
    LockedCounter,
    /// locked_counter_ok.rk with the counter inside a Mutex<i64> (fewer steps; not the baseline).
    #[value(name = "locked-counter-inner")]
    LockedCounterInner,
    /// corner_variable.rk, its two reads of cold made but not compared.
    #[value(name = "corner-variable")]
    CornerVariable,
}

/// The schedulers for `steps`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum StepsScheduler {
    /// shuttle::scheduler::RandomScheduler.
    Random,
    /// shuttle::scheduler::PctScheduler.
    Pct,
}
