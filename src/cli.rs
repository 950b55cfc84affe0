//! The command line: clap types, turned into plain config structs at once so
//! that clap never reaches the engine.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// rankcheck finds concurrency bugs in `.rk` programs by running them many
/// times under a scheduler it controls: PCT with variable bounding by
/// default, with a probability guarantee for what it did not find.
#[derive(Debug, Parser)]
#[command(
    name = "rankcheck",
    version,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
pub struct Cli {
    /// A subcommand; without one, rankcheck tests the program given.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Testing options (the default command).
    #[command(flatten)]
    pub test: TestArgs,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Re-run the execution a replay file records, step by step.
    Replay(ReplayArgs),
    /// Print the per-run probability bound and the runs a confidence needs,
    /// for PCT and PCTVB side by side, after the preparatory runs only.
    Bounds(BoundsArgs),
    /// Explore every schedule with at most C preemptions at accesses to V
    /// variables, for thread bounding's priority orders (the paper's
    /// Algorithm 1).
    Explore(ExploreArgs),
    /// Find a bug's minimal (c, v, t): explore with increasing bounds until
    /// it appears.
    Classify(ClassifyArgs),
    /// List the program's variables (what variable bounding chooses among)
    /// with their access sites and profiled accesses, and the sites that
    /// tracking given variables instruments.
    Sites(SitesArgs),
}

/// Options of `rankcheck sites`.
#[derive(Debug, Args)]
pub struct SitesArgs {
    /// The `.rk` program.
    pub program: PathBuf,
    /// Override a `const` of the program: `-D HOT=400`. Repeatable.
    #[arg(short = 'D', value_name = "NAME=VALUE", value_parser = parse_define)]
    pub define: Vec<(String, i64)>,
    /// Show the sites that tracking these variables instruments
    /// (comma-separated names).
    #[arg(long, value_delimiter = ',')]
    pub vars: Vec<String>,
    /// Preparatory random runs that measure accesses per variable.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..))]
    pub profile_runs: u64,
    /// Steps one preparatory run may take.
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_steps: u64,
    /// Seed of the preparatory runs.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TableFormat::Human)]
    pub format: TableFormat,
}

/// Output formats of tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TableFormat {
    /// A table for people.
    Human,
    /// One JSON object.
    Json,
    /// CSV rows with a header.
    Csv,
}

/// Options shared by `explore` and `classify`.
#[derive(Debug, Args)]
pub struct ExhaustiveArgs {
    /// The program and shared options.
    #[command(flatten)]
    pub common: ProgramArgs,
    /// Do not prune schedules whose happens-before relation was explored.
    #[arg(long)]
    pub no_prune: bool,
    /// Stop after this many schedules.
    #[arg(long, default_value_t = 10_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_schedules: u64,
    /// Seed of the preparatory runs and of sampled priority orders.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Directory where the replay file of a bug is written.
    #[arg(long, default_value = ".")]
    pub replay_dir: PathBuf,
    /// Worker threads that run schedules (default: one per core). Results
    /// do not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=256))]
    pub jobs: Option<u64>,
    /// Stop, saying what was proved so far, when the queued work and the
    /// pruning memory pass this size: `512M`, `2G`.
    #[arg(long, default_value = "2G", value_parser = parse_size)]
    pub max_memory: u64,
}

/// Options of `rankcheck explore`.
#[derive(Debug, Args)]
pub struct ExploreArgs {
    /// Shared options.
    #[command(flatten)]
    pub exhaustive: ExhaustiveArgs,
    /// The preemption bound c, or `unbounded` to try every thread that can
    /// run at every scheduling point (a model checker's proof).
    #[arg(long, default_value = "2", value_parser = parse_bound)]
    pub preemptions: Bound,
    /// Variables preemptions may follow: a number v (every v-subset in
    /// turn, variables seen shared first), `all` (CHESS's iterative context
    /// bounding), `sync` (mutexes and conds only) or `none`.
    #[arg(long, default_value = "1", value_parser = parse_vars)]
    pub vars: VarsArg,
    /// Thread bound t: when the priority orders are too many to enumerate,
    /// enough random ones to cover every order of t threads (Lemma 4.1).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(2..=16))]
    pub threads: u32,
    /// Split allocation sites into heap instances: the first L objects each
    /// site makes per call stack become variables of their own, ranked by
    /// loop-iteration number. 0 keeps allocation sites whole.
    #[arg(long, default_value_t = 0)]
    pub loop_bound: u32,
}

/// Options of `rankcheck classify`.
#[derive(Debug, Args)]
pub struct ClassifyArgs {
    /// Shared options.
    #[command(flatten)]
    pub exhaustive: ExhaustiveArgs,
    /// The highest preemption bound to try.
    #[arg(long, default_value_t = 3)]
    pub max_preemptions: u32,
}

/// How many preemptions an exploration allows: `--preemptions`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// At most this many.
    At(u32),
    /// Any number: every schedule.
    Unbounded,
}

impl std::fmt::Display for Bound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Bound::At(c) => write!(f, "{c}"),
            Bound::Unbounded => f.write_str("unbounded"),
        }
    }
}

/// Which variables a search tracks: `--vars`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VarsArg {
    /// This many variables, drawn at random for each run (PCTVB's `v`).
    Count(usize),
    /// Every variable (plain PCT).
    All,
    /// Mutexes and condition variables only (CHESS's choice).
    Sync,
    /// Nothing: only synchronisation operations are scheduling points.
    None,
}

impl std::fmt::Display for VarsArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VarsArg::Count(v) => write!(f, "{v}"),
            VarsArg::All => f.write_str("all"),
            VarsArg::Sync => f.write_str("sync"),
            VarsArg::None => f.write_str("none"),
        }
    }
}

/// The program and the options every command that runs it shares.
#[derive(Debug, Args)]
pub struct ProgramArgs {
    /// The `.rk` program.
    #[arg(required = true)]
    pub program: Option<PathBuf>,
    /// Override a `const` of the program: `-D HOT=400`. Repeatable.
    #[arg(short = 'D', value_name = "NAME=VALUE", value_parser = parse_define)]
    pub define: Vec<(String, i64)>,
    /// Steps one execution may take (scheduling points, loop iterations and
    /// calls) before it is reported as possible non-termination.
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_steps: u64,
    /// Preparatory random runs that measure threads (n), steps (k) and
    /// accesses per variable (k_q) before the search.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..))]
    pub profile_runs: u64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// Options of `rankcheck PROGRAM`.
#[derive(Debug, Args)]
pub struct TestArgs {
    /// The program and shared options.
    #[command(flatten)]
    pub common: ProgramArgs,
    /// The search strategy.
    #[arg(long, value_enum, default_value_t = StrategyArg::Pctvb)]
    pub strategy: StrategyArg,
    /// Bug depth d: d-1 priority change points per run. Without it (and
    /// without --vars) runs rotate through (d, v) = (1,0), (2,1), (3,1), (3,2).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=32))]
    pub depth: Option<u32>,
    /// Variables tracked per run: a number v (drawn at random each run),
    /// `all` (plain PCT), `sync` (mutexes and conds) or `none`.
    #[arg(long, value_parser = parse_vars)]
    pub vars: Option<VarsArg>,
    /// Only choose among these variables (comma-separated names, as
    /// `rankcheck` reports them).
    #[arg(long, value_delimiter = ',')]
    pub track: Vec<String>,
    /// Priority scheme: PCT's, or thread bounding's permutations.
    #[arg(long, value_enum, default_value_t = PrioritiesArg::Pct)]
    pub priorities: PrioritiesArg,
    /// Thread bound t the guarantee is stated for.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(2..=16))]
    pub threads: u32,
    /// Executions to run at most. Without it (and without --time), as many
    /// as --confidence needs, up to --max-runs.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub runs: Option<u64>,
    /// Stop after this much time: `90s`, `10m`, `2h`.
    #[arg(long, value_parser = parse_duration)]
    pub time: Option<Duration>,
    /// The most runs the confidence target may ask for.
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_runs: u64,
    /// The confidence the run count aims at when --runs is not given.
    #[arg(long, default_value_t = 0.99, value_parser = parse_confidence)]
    pub confidence: f64,
    /// Master seed; every run's scheduler is seeded from it and the run's
    /// number. Default: a fresh seed, printed in the report.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Worker threads (default: one per core). Results do not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=256))]
    pub jobs: Option<u64>,
    /// Count every failing run instead of stopping at the first.
    #[arg(long)]
    pub keep_going: bool,
    /// Directory where the replay file of a failure is written.
    #[arg(long, default_value = ".")]
    pub replay_dir: PathBuf,
}

/// Options of `rankcheck bounds`.
#[derive(Debug, Args)]
pub struct BoundsArgs {
    /// The program and shared options.
    #[command(flatten)]
    pub common: ProgramArgs,
    /// Bug depth d.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=32))]
    pub depth: u32,
    /// Bug variable bound v.
    #[arg(long, default_value_t = 1)]
    pub vars: usize,
    /// Target confidence.
    #[arg(long, default_value_t = 0.99, value_parser = parse_confidence)]
    pub confidence: f64,
    /// Seed of the preparatory runs.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

/// Options of `rankcheck replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The replay file a failing run wrote.
    pub file: PathBuf,
    /// The program to replay against, if not the path the file names.
    #[arg(long)]
    pub program: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// Search strategies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum StrategyArg {
    /// PCT with variable bounding: change points only at accesses to v
    /// variables drawn for each run.
    Pctvb,
    /// PCT: change points among all accesses.
    Pct,
    /// A uniformly random choice among the enabled threads at every
    /// scheduling point, every shared access tracked.
    Random,
}

impl StrategyArg {
    /// The name reports and replay files use.
    pub fn name(self) -> &'static str {
        match self {
            StrategyArg::Pctvb => "pctvb",
            StrategyArg::Pct => "pct",
            StrategyArg::Random => "random",
        }
    }
}

/// Priority schemes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PrioritiesArg {
    /// PCT's: random initial priorities, change points drop below all.
    Pct,
    /// Thread bounding's: one permutation of n+c priorities per run.
    ThreadBounded,
}

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// A report for people.
    Human,
    /// One JSON object on stdout, for scripts and CI.
    Json,
}

/// `NAME=VALUE` with an integer value.
fn parse_define(text: &str) -> Result<(String, i64), String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| format!("expected NAME=VALUE, found `{text}`"))?;
    let name = name.trim();
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(format!("`{name}` is not a const name"));
    }
    let value = value
        .trim()
        .parse::<i64>()
        .map_err(|_| format!("`{value}` is not a 64-bit integer"))?;
    Ok((name.to_string(), value))
}

fn parse_vars(text: &str) -> Result<VarsArg, String> {
    match text {
        "all" => Ok(VarsArg::All),
        "sync" => Ok(VarsArg::Sync),
        "none" => Ok(VarsArg::None),
        n => n.parse::<usize>().map(VarsArg::Count).map_err(|_| {
            format!("expected a number of variables, `all`, `sync` or `none`, found `{n}`")
        }),
    }
}

fn parse_bound(text: &str) -> Result<Bound, String> {
    match text {
        "unbounded" => Ok(Bound::Unbounded),
        n => n
            .parse::<u32>()
            .map(Bound::At)
            .map_err(|_| format!("expected a number of preemptions or `unbounded`, found `{n}`")),
    }
}

/// A size in bytes: a number with an optional K, M or G (powers of 1024).
fn parse_size(text: &str) -> Result<u64, String> {
    let bad = || format!("expected a size like 512M or 2G, found `{text}`");
    let (number, unit) = text.split_at(
        text.find(|c: char| !c.is_ascii_digit())
            .unwrap_or(text.len()),
    );
    let value: u64 = number.parse().map_err(|_| bad())?;
    let scale: u64 = match unit.to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1 << 10,
        "M" | "MB" | "MIB" => 1 << 20,
        "G" | "GB" | "GIB" => 1 << 30,
        _ => return Err(bad()),
    };
    match value.checked_mul(scale) {
        Some(bytes) if bytes > 0 => Ok(bytes),
        _ => Err(bad()),
    }
}

fn parse_duration(text: &str) -> Result<Duration, String> {
    let split = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("expected a duration like 90s, 10m or 2h, found `{text}`"))?;
    let seconds = match unit {
        "" | "s" => value,
        "m" => value * 60.0,
        "h" => value * 3600.0,
        _ => return Err(format!("unknown time unit `{unit}`: use s, m or h")),
    };
    if !seconds.is_finite() || seconds <= 0.0 {
        return Err(format!("`{text}` is not a positive duration"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

fn parse_confidence(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(c) if c > 0.0 && c < 1.0 => Ok(c),
        _ => Err(format!(
            "expected a confidence strictly between 0 and 1, found `{text}`"
        )),
    }
}
