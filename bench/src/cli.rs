//! The benchmark harness's command line, read with clap like the
//! `rankcheck` binary's.

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Benchmarks whose numbers go to `results/`.
#[derive(Debug, Parser)]
#[command(name = "rankcheck-bench")]
pub struct Cli {
    /// The benchmark to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The benchmarks.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Executions per second of the random scheduler on the VM against
    /// awslabs/shuttle's on the same programs (`results/throughput.*`).
    Throughput(ThroughputArgs),
    /// Executions until the bug in corner_variable.rk as HOT grows: PCT,
    /// PCTVB and shuttle's PCT (`results/corner_variable.*`).
    Corner(CornerArgs),
    /// The speed-up of two workers (`results/jobs.*`).
    Jobs(JobsArgs),
    /// A failure's schedule before and after shrinking, on every buggy
    /// program of the corpus and the examples (`results/shrink.*`).
    Shrink(ShrinkArgs),
    /// Time per execution tracking none, one, two and all variables: the
    /// paper's Table 2 (`results/table2.*`).
    Table2(Table2Args),
    /// Schedules until the first bug with and without variable bounding:
    /// the paper's Table 3 (`results/table3.*`).
    Table3(Table3Args),
    /// Memory over a million executions, and cost against the number of
    /// threads (`results/scaling.*`).
    Scaling(ScalingArgs),
    /// Every strategy against every buggy program of the corpus and the
    /// examples, 20 seeds each (`results/strategies.*`).
    Strategies(StrategiesArgs),
    /// Choose the default search's cycle from the strategies' measured
    /// per-run hit rates (`results/cycle.md`).
    Cycle(CycleArgs),
    /// Rebuild every SVG figure of `results/` from the CSV beside it
    /// (`corner_variable.svg`, `table2.svg`, `strategies.svg`), skipping
    /// CSVs not written yet.
    Figures,
    /// Executions per second of a night in 2 shards against 1, and of a
    /// night with checkpoints against a plain search (`results/nightly.*`).
    Nightly(NightlyArgs),
    /// Published crates' own loom tests under real loom and under
    /// rankcheck-loom by a dependency rename (`bench/crates/corpus.toml`,
    /// `results/crates.*`).
    Crates(CratesArgs),
    /// Published concurrency bugs, the version before each fix run with
    /// the fix's loom regression test: time to the first failure under
    /// loom and under rankcheck (`bench/crates/historical.toml`,
    /// `results/historical.*`).
    Historical(HistoricalArgs),
}

/// Options of `crates`.
#[derive(Debug, Args)]
pub struct CratesArgs {
    /// Only these crates of the corpus (`name` or `name-version`),
    /// comma-separated, run in this order; the other crates' rows in
    /// `crates.csv` are kept.
    #[arg(long, value_delimiter = ',')]
    pub crates: Vec<String>,
    /// Seconds a test may run under one tool before its process group is
    /// killed (outcome `timeout`).
    #[arg(long, default_value_t = 300)]
    pub timeout: u64,
    /// Seconds one side's build may take.
    #[arg(long, default_value_t = 3600)]
    pub build_timeout: u64,
    /// The work folder: fetched sources, the two copies, their target
    /// folders and every test's log (default `target/crates/`).
    #[arg(long)]
    pub work: Option<std::path::PathBuf>,
    /// Cargo's jobs for the crates' builds (CARGO_BUILD_JOBS; builds run
    /// under `nice -n 19`).
    #[arg(long, default_value_t = 1)]
    pub jobs: usize,
    /// Run at most this many tests per crate, the rest recorded as
    /// `skipped` (0: all).
    #[arg(long, default_value_t = 0)]
    pub max_tests: usize,
    /// Run only the tests whose name (`target: test`) contains one of
    /// these, comma-separated; the crate's other tests keep the rows they
    /// have (a large suite, tokio's, is measured a part at a time).
    #[arg(long, value_delimiter = ',')]
    pub tests: Vec<String>,
    /// Only the crates of this facade (`loom` or `tokio`; default both).
    #[arg(long, value_enum)]
    pub facade: Option<FacadeArg>,
    /// Run the published side's tests (real loom, real tokio) even where
    /// the facade's side did not build (otherwise they are recorded as
    /// `skipped`: nothing to compare).
    #[arg(long, alias = "loom-alone")]
    pub published_alone: bool,
    /// Rewrite `crates.md` from `crates.csv` only.
    #[arg(long)]
    pub report_only: bool,
}

/// `crates --facade`: which facade's crates run.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum FacadeArg {
    /// The loom crates (rankcheck-loom).
    Loom,
    /// The tokio crates (rankcheck-tokio).
    Tokio,
}

impl From<FacadeArg> for crate::crates::Facade {
    fn from(facade: FacadeArg) -> Self {
        match facade {
            FacadeArg::Loom => Self::Loom,
            FacadeArg::Tokio => Self::Tokio,
        }
    }
}

/// Options of `historical`.
#[derive(Debug, Args)]
pub struct HistoricalArgs {
    /// Only these bugs (crate `name` or `name-buggyversion`),
    /// comma-separated; the other bugs' rows in `historical.csv` are kept.
    #[arg(long, value_delimiter = ',')]
    pub bugs: Vec<String>,
    /// The seeds of rankcheck's search on the buggy version, 1 to this
    /// (`RANKCHECK_SEED`); the median of their times is reported.
    #[arg(long, default_value_t = 5)]
    pub seeds: usize,
    /// The most runs of loom's and rankcheck's `model` on the buggy
    /// version (deterministic: repeated, while they take under 30 s in
    /// all, for the median of their times).
    #[arg(long, default_value_t = 5)]
    pub repeats: usize,
    /// Seconds one run of a test may take before its process group is
    /// killed (outcome `timeout`).
    #[arg(long, default_value_t = 300)]
    pub timeout: u64,
    /// Seconds one side's build may take.
    #[arg(long, default_value_t = 3600)]
    pub build_timeout: u64,
    /// The work folder: fetched sources, the copies, their target folders
    /// and every run's log (default `target/historical/`).
    #[arg(long)]
    pub work: Option<std::path::PathBuf>,
    /// Cargo's jobs for the crates' builds (CARGO_BUILD_JOBS; builds run
    /// under `nice -n 19`).
    #[arg(long, default_value_t = 1)]
    pub jobs: usize,
    /// Rewrite `historical.md` from `historical.csv` only.
    #[arg(long)]
    pub report_only: bool,
}

/// Options of `nightly`.
#[derive(Debug, Args)]
pub struct NightlyArgs {
    /// Runs of each measured night and search.
    #[arg(long, default_value_t = 1_000_000)]
    pub runs: u64,
    /// Runs per chunk of the checkpointed night.
    #[arg(long, default_value_t = 1024)]
    pub chunk: u64,
    /// Rounds, alternating the sides of each comparison.
    #[arg(long, default_value_t = 5)]
    pub rounds: u32,
}

/// Options of `throughput`.
#[derive(Debug, Args)]
pub struct ThroughputArgs {
    /// Seconds each tool runs each program per round.
    #[arg(long, default_value_t = 3.0)]
    pub seconds: f64,
    /// Rounds, alternating the tools.
    #[arg(long, default_value_t = 3)]
    pub rounds: u32,
    /// Measure the VM only.
    #[arg(long)]
    pub no_shuttle: bool,
    /// Also compare the `rankcheck` binary with the one built at this
    /// commit, random and PCTVB searches alike (`throughput_baseline.csv`).
    #[arg(long, value_name = "REV")]
    pub baseline: Option<String>,
}

/// Options of `strategies`.
#[derive(Debug, Args)]
pub struct StrategiesArgs {
    /// Trials (seeds 0..N) per program and line.
    #[arg(long, default_value_t = 20)]
    pub seeds: u64,
    /// Executions a trial may run.
    #[arg(long, default_value_t = 10_000)]
    pub cap: u64,
    /// Executions a trial of the scaled families (group `scaled`) may run.
    #[arg(long, default_value_t = 3_000)]
    pub scaled_cap: u64,
    /// Trials run at once (each one `rankcheck` process).
    #[arg(long, default_value_t = crate::workload::cores())]
    pub jobs: usize,
    /// Only these strategies (the CSV's `strategy` column), comma-separated:
    /// their rows are measured again, the others' kept.
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    /// Only the programs whose names start with one of these,
    /// comma-separated (`reorder,twostage`).
    #[arg(long, value_delimiter = ',')]
    pub programs: Vec<String>,
    /// Keep the rows already in `results/strategies.csv` and run only the
    /// trials missing from it.
    #[arg(long)]
    pub resume: bool,
    /// Rewrite `strategies.md` and `strategies.svg` from the CSV only.
    #[arg(long)]
    pub report_only: bool,
    /// Fresh seeds on which a program where the default looks more than
    /// 3x slower than the best line is measured again, for both
    /// (`strategies_confirm.csv`; 0: no confirmation).
    #[arg(long, default_value_t = 200)]
    pub confirm_seeds: u64,
}

/// Options of `cycle`.
#[derive(Debug, Args)]
pub struct CycleArgs {
    /// More seeds for each strategy on each program where it finds the
    /// bug within 300 executions on average (`results/cycle_extra.csv`,
    /// whose trials are kept: only the missing ones run; 0: use the file
    /// as it is).
    #[arg(long, default_value_t = 100)]
    pub extra_seeds: u64,
    /// Executions a trial may run, and the horizon of the model.
    #[arg(long, default_value_t = 10_000)]
    pub cap: u64,
    /// Executions a trial of the scaled families may run.
    #[arg(long, default_value_t = 3_000)]
    pub scaled_cap: u64,
    /// Trials run at once.
    #[arg(long, default_value_t = crate::workload::cores())]
    pub jobs: usize,
    /// The seed of the search over cycles.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

/// Options of `corner`.
#[derive(Debug, Args)]
pub struct CornerArgs {
    /// Seeds per (strategy, HOT).
    #[arg(long, default_value_t = 30)]
    pub seeds: u64,
    /// Measure rankcheck only.
    #[arg(long)]
    pub no_shuttle: bool,
}

/// Options of `shrink`.
#[derive(Debug, Args)]
pub struct ShrinkArgs {
    /// Seeds per program (1, 2, ...).
    #[arg(long, default_value_t = 5)]
    pub seeds: u64,
    /// `--shrink-time` of each check.
    #[arg(long, default_value = "0.5s")]
    pub shrink_time: String,
    /// The rankcheck binary to measure (default: the release build, built
    /// if missing).
    #[arg(long)]
    pub binary: Option<std::path::PathBuf>,
}

/// Options of `jobs`.
#[derive(Debug, Args)]
pub struct JobsArgs {
    /// Executions per measurement.
    #[arg(long, default_value_t = 400_000)]
    pub runs: u64,
    /// Rounds, alternating one and two workers.
    #[arg(long, default_value_t = 3)]
    pub rounds: u32,
}

/// Options of `table2`. Many short rounds rather than a few long ones: on
/// a shared machine the noise comes in stretches of seconds, and a median
/// over many rounds spread across them is steadier than one over a few.
#[derive(Debug, Args)]
pub struct Table2Args {
    /// Seconds one configuration runs per round when it tracks nothing;
    /// fixes the executions per configuration.
    #[arg(long, default_value_t = 0.015)]
    pub seconds: f64,
    /// Rounds.
    #[arg(long, default_value_t = 36)]
    pub rounds: u32,
    /// Variable pairs measured per program.
    #[arg(long, default_value_t = 20)]
    pub pairs: usize,
    /// Seed of the preparatory runs and the pair sample.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Options of `table3`.
#[derive(Debug, Args)]
pub struct Table3Args {
    /// Schedules an exploration may run.
    #[arg(long, default_value_t = 2_000_000)]
    pub cap: u64,
    /// Schedules an exploration tracking every variable may run.
    #[arg(long, default_value_t = 200_000)]
    pub all_cap: u64,
    /// Only the larger programs, not the examples.
    #[arg(long)]
    pub no_examples: bool,
}

/// Options of `scaling`.
#[derive(Debug, Args)]
pub struct ScalingArgs {
    /// The most executions of the memory measurement.
    #[arg(long, default_value_t = 1_000_000)]
    pub runs: u64,
    /// The most threads of the thread measurement (doubling from 1,000).
    #[arg(long, default_value_t = 8_000)]
    pub threads: usize,
}
