//! The command line: clap types, turned into plain config structs at once so
//! that clap never reaches the engine.
//!
//! `rankcheck PROGRAM...` is `rankcheck check PROGRAM...`, and options may
//! come before the subcommand's name (`rankcheck -D N=5 bounds f.rk`):
//! [`parse`] moves the name first before clap reads the line. A flag means
//! the same in every subcommand that takes it.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use rankcheck_engine::guarantee::parse_duration;
use rankcheck_engine::strategy::registry::{self, Registered, UnknownStrategy};

/// rankcheck finds concurrency bugs in `.rk` programs by running them many
/// times under a scheduler it controls (by default the portfolio, a
/// rotation of strategies that `check --help` lists under --strategy),
/// with a probability guarantee for what it did not find.
/// `rankcheck PROGRAM...` tests programs (the `check` subcommand).
#[derive(Debug, Parser)]
#[command(
    name = "rankcheck",
    version,
    arg_required_else_help = true,
    subcommand_required = true
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Test programs: search for a failing schedule, or state the guarantee
    /// the clean runs earned (the default: `rankcheck PROGRAM...`).
    Check(CheckArgs),
    /// Re-run the execution a replay file records, step by step.
    Replay(ReplayArgs),
    /// Print the per-run probability bound and the runs a confidence needs,
    /// for PCT and PCTVB side by side and per variable, after the
    /// preparatory runs only.
    Bounds(BoundsArgs),
    /// Explore every schedule with at most C preemptions at accesses to V
    /// variables, for thread bounding's priority orders (the paper's
    /// Algorithm 1), or every schedule at all.
    Explore(ExploreArgs),
    /// Find a bug's minimal (c, v, t): explore with increasing bounds until
    /// it appears.
    Classify(ClassifyArgs),
    /// List the program's variables (what variable bounding chooses among)
    /// with their access sites and profiled accesses, and the sites that
    /// tracking given variables instruments.
    Sites(SitesArgs),
    /// Run one night of a campaign over a suite of programs (or this
    /// process's shard of it), spending the budget where the accumulated
    /// evidence is thinnest; unsharded, merge it and print the morning
    /// report.
    Nightly(NightlyArgs),
    /// Merge shard files into the campaign history.
    Merge(MergeArgs),
    /// The morning report: new failures, known ones, and the evidence
    /// accumulated per program and setting.
    Report(ReportArgs),
    /// Draw a plot as SVG: the guarantee against executions (`bound`), the
    /// measured rate of finding a bug against the bound (`hits`), or a
    /// program's nightly history (`history`).
    Plot(PlotArgs),
}

/// Options of `rankcheck plot`.
#[derive(Debug, Args)]
pub struct PlotArgs {
    /// Which plot.
    #[command(subcommand)]
    pub kind: PlotKind,
}

/// The plots.
#[derive(Debug, Subcommand)]
pub enum PlotKind {
    /// The guarantee 1 - (1 - p)^N against executions N for each (depth,
    /// variables) setting a search with the same flags would run, PCT and
    /// PCTVB side by side and per variable set, with the runs such a search
    /// would do marked; from the preparatory runs alone.
    Bound(PlotBoundArgs),
    /// Run independently seeded searches and plot the fraction that found
    /// the bug by N executions, with its Clopper-Pearson band, over the
    /// guaranteed lower bound of the same setting.
    Hits(PlotHitsArgs),
    /// A program's nightly history: per setting, the runs its current
    /// version accumulated night by night and the guarantee they earned,
    /// with the nights a failure appeared marked.
    History(PlotHistoryArgs),
}

/// Options of `rankcheck plot history`.
#[derive(Debug, Args)]
pub struct PlotHistoryArgs {
    /// The campaign's output directory.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// The history database (default: DIR/history.sqlite).
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,
    /// The program to plot, by the name the history knows it by (needed
    /// when the history holds several).
    #[arg(long, value_name = "NAME")]
    pub program: Option<String>,
    /// The target confidence, drawn as a line.
    #[arg(long, value_name = "C", allow_negative_numbers = true, default_value = "0.99", value_parser = parse_confidence)]
    pub confidence: f64,
    /// The SVG file to write: a name ending in `.svg` (another format's
    /// extension is refused).
    #[arg(short = 'o', long = "output", value_name = "FILE.svg")]
    pub output: PathBuf,
}

/// Options of `rankcheck plot bound`.
#[derive(Debug, Args)]
pub struct PlotBoundArgs {
    /// The `.rk` program.
    #[arg(value_name = "PROGRAM")]
    pub program: PathBuf,
    /// Shared options.
    #[command(flatten)]
    pub options: ProgramOptions,
    /// The search strategy whose settings are plotted (PCT's curve is drawn
    /// beside PCTVB's in any case).
    #[arg(long, value_name = "STRATEGY", default_value = "pctvb", value_parser = strategy_parser())]
    pub strategy: StrategyArg,
    /// Bug depth d, as for `check`.
    #[arg(long, value_name = "D", allow_negative_numbers = true, value_parser = depth)]
    pub depth: Option<u32>,
    /// Variables tracked per run, as for `check`.
    #[arg(long, value_name = "V", value_parser = parse_vars)]
    pub vars: Option<VarsArg>,
    /// Only choose among these variables (comma-separated names).
    #[arg(long, value_name = "NAME,...", value_delimiter = ',')]
    pub track: Vec<String>,
    /// Executions of the search to mark, shared among the settings as
    /// `check` shares them. Without it, the runs `check` would do for
    /// --confidence.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = positive)]
    pub runs: Option<u64>,
    /// The most runs the confidence target may ask for (default: as for
    /// `check`).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = positive)]
    pub max_runs: Option<u64>,
    /// The target confidence, drawn as a line.
    #[arg(long, value_name = "C", allow_negative_numbers = true, default_value = "0.99", value_parser = parse_confidence)]
    pub confidence: f64,
    /// The SVG file to write: a name ending in `.svg` (another format's
    /// extension is refused).
    #[arg(short = 'o', long = "output", value_name = "FILE.svg")]
    pub output: PathBuf,
}

/// Options of `rankcheck plot hits`.
#[derive(Debug, Args)]
pub struct PlotHitsArgs {
    /// The `.rk` program, with a bug.
    #[arg(value_name = "PROGRAM")]
    pub program: PathBuf,
    /// Shared options.
    #[command(flatten)]
    pub options: ProgramOptions,
    /// The search strategy: `pctvb` or `pct` (`random` states no bound).
    #[arg(long, value_name = "STRATEGY", default_value = "pctvb", value_parser = strategy_parser())]
    pub strategy: StrategyArg,
    /// Bug depth d of the setting searched and bounded.
    #[arg(long, value_name = "D", allow_negative_numbers = true, default_value = "2", value_parser = depth)]
    pub depth: u32,
    /// Variables tracked per run (pctvb): a number v, `sync` or `none`.
    #[arg(long, value_name = "V", value_parser = parse_vars)]
    pub vars: Option<VarsArg>,
    /// Only choose among these variables (comma-separated names).
    #[arg(long, value_name = "NAME,...", value_delimiter = ',')]
    pub track: Vec<String>,
    /// Independently seeded searches.
    #[arg(long, value_name = "T", allow_negative_numbers = true, default_value = "100", value_parser = positive)]
    pub trials: u64,
    /// Executions each search may run.
    #[arg(long, value_name = "N", allow_negative_numbers = true, default_value = "1000", value_parser = positive)]
    pub runs: u64,
    /// Level of the Clopper-Pearson intervals.
    #[arg(long, value_name = "C", allow_negative_numbers = true, default_value = "0.95", value_parser = parse_confidence)]
    pub confidence: f64,
    /// The SVG file to write: a name ending in `.svg` (another format's
    /// extension is refused).
    #[arg(short = 'o', long = "output", value_name = "FILE.svg")]
    pub output: PathBuf,
}

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// A report for people.
    Human,
    /// One JSON object on stdout, for scripts and CI.
    Json,
    /// CSV rows with a header.
    Csv,
}

/// Options every command that runs a program shares.
#[derive(Clone, Debug, Args)]
pub struct ProgramOptions {
    /// Override a `const` of the program: `-D HOT=400`. Repeatable.
    #[arg(short = 'D', value_name = "NAME=VALUE", value_parser = parse_define)]
    pub define: Vec<(String, i64)>,
    /// Steps one execution may take (scheduling points, loop iterations and
    /// calls) before it is reported as possible non-termination.
    #[arg(long, value_name = "N", allow_negative_numbers = true, default_value = "1000000", value_parser = positive)]
    pub max_steps: u64,
    /// Preparatory random runs that measure threads (n), steps (k) and
    /// accesses per variable (k_q) first.
    #[arg(long, value_name = "N", allow_negative_numbers = true, default_value = "20", value_parser = positive)]
    pub profile_runs: u64,
    /// The seed everything random follows from. `check` draws a fresh one
    /// when none is given (and prints it); the other commands use 0.
    #[arg(long, value_name = "S", allow_negative_numbers = true, value_parser = whole)]
    pub seed: Option<u64>,
    /// Worker threads (default: one per core). Results do not depend on it.
    #[arg(long, value_name = "J", allow_negative_numbers = true, value_parser = jobs)]
    pub jobs: Option<u64>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

impl ProgramOptions {
    /// The seed, or 0.
    pub fn seed_or_zero(&self) -> u64 {
        self.seed.unwrap_or(0)
    }

    /// Worker threads: `--jobs`, or one per core.
    pub fn jobs(&self) -> usize {
        self.jobs.map_or_else(
            || std::thread::available_parallelism().map_or(1, |n| n.get()),
            |j| j as usize,
        )
    }
}

/// Options of `rankcheck check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The `.rk` programs, tested one after the other.
    #[arg(required = true, value_name = "PROGRAM")]
    pub programs: Vec<PathBuf>,
    /// Shared options.
    #[command(flatten)]
    pub options: ProgramOptions,
    /// The search strategy. Without it: the portfolio, unless --depth,
    /// --vars or --track ask for a PCTVB setting.
    #[arg(long = "strategy", value_name = "STRATEGY", value_parser = strategy_parser())]
    pub strategy_flag: Option<StrategyArg>,
    /// Bug depth d: d-1 priority change points per run. Without it (and
    /// without --vars), `--strategy pctvb` rotates through (d, v) = (1,0),
    /// (2,1), (3,1), (3,2).
    #[arg(long, value_name = "D", allow_negative_numbers = true, value_parser = depth)]
    pub depth: Option<u32>,
    /// Variables tracked per run: a number v (drawn at random each run),
    /// `all` (plain PCT), `sync` (mutexes and conds) or `none`.
    #[arg(long, value_name = "V", value_parser = parse_vars)]
    pub vars: Option<VarsArg>,
    /// Only choose among these variables (comma-separated names, as
    /// `rankcheck sites` lists them).
    #[arg(long, value_name = "NAME,...", value_delimiter = ',')]
    pub track: Vec<String>,
    /// Priority scheme: PCT's, or thread bounding's permutations.
    #[arg(long, value_enum, default_value_t = PrioritiesArg::Pct)]
    pub priorities: PrioritiesArg,
    /// Thread bound t the guarantee is stated for.
    #[arg(long, value_name = "T", allow_negative_numbers = true, value_parser = thread_bound)]
    pub threads: Option<u32>,
    /// Executions to run at most. Without it (and without --time), as many
    /// as --confidence needs, up to --max-runs.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = positive)]
    pub runs: Option<u64>,
    /// Stop after this much time: `90s`, `10m`, `2h`.
    #[arg(long, value_parser = parse_duration)]
    pub time: Option<Duration>,
    /// The most runs the confidence target may ask for. Without it,
    /// 1,000,000, or fewer for a long program: as many as 100,000,000 steps
    /// allow at the longest preparatory run's steps, and at least 10,000.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = positive)]
    pub max_runs: Option<u64>,
    /// The confidence the run count aims at when --runs is not given.
    #[arg(long, value_name = "C", allow_negative_numbers = true, default_value = "0.99", value_parser = parse_confidence)]
    pub confidence: f64,
    /// Count every failing run instead of stopping at the first.
    #[arg(long)]
    pub keep_going: bool,
    /// The most time spent shrinking a failure's schedule (fewer
    /// preemptions, then switches, then steps) before it is reported:
    /// `0.5s`, `10s`.
    #[arg(long, value_name = "TIME", default_value = "0.5s", value_parser = parse_duration)]
    pub shrink_time: Duration,
    /// Report the failing schedule as the search found it, unshrunk.
    #[arg(long)]
    pub no_shrink: bool,
    /// Directory for replay files of failures.
    #[arg(long, value_name = "DIR", default_value = DEFAULT_REPLAY_DIR)]
    pub replay_dir: PathBuf,
    /// Also draw the guarantee against executions of each setting, with
    /// the runs done marked, into this SVG file (one program only; a name
    /// ending in `.svg`).
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
}

/// Where replay files go unless `--replay-dir` says otherwise.
pub const DEFAULT_REPLAY_DIR: &str = ".rankcheck/replays";

/// Options of `rankcheck bounds`.
#[derive(Debug, Args)]
pub struct BoundsArgs {
    /// The `.rk` program.
    #[arg(value_name = "PROGRAM")]
    pub program: PathBuf,
    /// Shared options.
    #[command(flatten)]
    pub options: ProgramOptions,
    /// Bug depth d.
    #[arg(long, value_name = "D", allow_negative_numbers = true, default_value = "2", value_parser = depth)]
    pub depth: u32,
    /// Variables the bug involves: a number v, `all`, `sync` or `none`, as
    /// for `check`.
    #[arg(long, value_name = "V", default_value = "1", value_parser = parse_vars)]
    pub vars: VarsArg,
    /// Only choose among these variables (comma-separated names).
    #[arg(long, value_name = "NAME,...", value_delimiter = ',')]
    pub track: Vec<String>,
    /// Target confidence.
    #[arg(long, value_name = "C", allow_negative_numbers = true, default_value = "0.99", value_parser = parse_confidence)]
    pub confidence: f64,
}

/// Options shared by `explore` and `classify`.
#[derive(Debug, Args)]
pub struct ExhaustiveArgs {
    /// The `.rk` program.
    #[arg(value_name = "PROGRAM")]
    pub program: PathBuf,
    /// Shared options.
    #[command(flatten)]
    pub options: ProgramOptions,
    /// Do not prune schedules whose happens-before relation was explored.
    #[arg(long)]
    pub no_prune: bool,
    /// Stop after this many schedules.
    #[arg(long, value_name = "N", allow_negative_numbers = true, default_value = "10000000", value_parser = positive)]
    pub max_schedules: u64,
    /// Stop, saying what was proved so far, when the queued work and the
    /// pruning memory pass this size: `512M`, `2G`.
    #[arg(long, value_name = "SIZE", default_value = "2G", value_parser = parse_size)]
    pub max_memory: u64,
    /// Directory for the replay file of a bug.
    #[arg(long, value_name = "DIR", default_value = DEFAULT_REPLAY_DIR)]
    pub replay_dir: PathBuf,
}

/// Options of `rankcheck explore`.
#[derive(Debug, Args)]
pub struct ExploreArgs {
    /// Shared options.
    #[command(flatten)]
    pub exhaustive: ExhaustiveArgs,
    /// The preemption bound c, or `unbounded` to try every thread that can
    /// run at every scheduling point (a model checker's proof).
    #[arg(long, value_name = "C", allow_negative_numbers = true, default_value = "2", value_parser = parse_bound)]
    pub preemptions: Bound,
    /// Variables preemptions may follow: a number v (every v-subset in
    /// turn, variables seen shared first), `all` (CHESS's iterative context
    /// bounding), `sync` (mutexes and conds only) or `none`.
    #[arg(long, value_name = "V", default_value = "1", value_parser = parse_vars)]
    pub vars: VarsArg,
    /// Thread bound t: when the priority orders are too many to enumerate,
    /// enough random ones to cover every order of t threads (Lemma 4.1).
    #[arg(long, value_name = "T", allow_negative_numbers = true, default_value = "2", value_parser = thread_bound)]
    pub threads: u32,
    /// Split allocation sites into heap instances: the first L objects each
    /// site makes per call stack become variables of their own, ranked by
    /// loop-iteration number. 0 keeps allocation sites whole.
    #[arg(long, value_name = "L", allow_negative_numbers = true, default_value = "0", value_parser = whole)]
    pub loop_bound: u64,
}

/// Options of `rankcheck classify`.
#[derive(Debug, Args)]
pub struct ClassifyArgs {
    /// Shared options.
    #[command(flatten)]
    pub exhaustive: ExhaustiveArgs,
    /// The highest preemption bound to try.
    #[arg(long, value_name = "C", allow_negative_numbers = true, default_value = "3", value_parser = whole)]
    pub max_preemptions: u64,
}

/// Options of `rankcheck sites`.
#[derive(Debug, Args)]
pub struct SitesArgs {
    /// The `.rk` program.
    #[arg(value_name = "PROGRAM")]
    pub program: PathBuf,
    /// Shared options.
    #[command(flatten)]
    pub options: ProgramOptions,
    /// Show the sites that tracking these variables instruments
    /// (comma-separated names), as `check --track` would.
    #[arg(long, value_name = "NAME,...", value_delimiter = ',')]
    pub track: Vec<String>,
}

/// Options of `rankcheck replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The replay file a failing run wrote.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// The program to replay against, if not the one the file names
    /// (found relative to the replay file, then to the current directory).
    #[arg(long, value_name = "PATH")]
    pub program: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// Options of `rankcheck nightly`.
#[derive(Debug, Args)]
pub struct NightlyArgs {
    /// A directory of `.rk` files, or a `rankcheck.toml` suite file.
    #[arg(value_name = "SUITE")]
    pub suite: PathBuf,
    /// The night's time budget: `90s`, `30m`, `8h` (each shard works
    /// through its share of an endless plan until then).
    #[arg(long, value_parser = parse_duration, conflicts_with = "runs")]
    pub time: Option<Duration>,
    /// The night's run budget: exactly this many runs over all programs
    /// and settings, split among the shards.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = positive)]
    pub runs: Option<u64>,
    /// Output directory: shard files, replay files and the history.
    #[arg(long, value_name = "DIR", default_value = crate::nightly::DEFAULT_OUT)]
    pub out: PathBuf,
    /// The history database (default: DIR/history.sqlite).
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,
    /// The night's name (default: today's UTC date). Running a night again
    /// resumes it.
    #[arg(long, value_name = "NAME")]
    pub night: Option<String>,
    /// Do shard I (from 0) of N. Without it, the shard comes from
    /// SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT, or from
    /// JOB_COMPLETION_INDEX with --shards.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    pub shard: Option<crate::nightly::Shard>,
    /// The number of shards, for a Kubernetes Indexed Job.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = shard_count)]
    pub shards: Option<u32>,
    /// Runs per chunk: the unit of planning, sharding and checkpointing.
    #[arg(long, value_name = "RUNS", allow_negative_numbers = true, default_value = "1024", value_parser = positive)]
    pub chunk: u64,
    /// Worker threads per chunk (default: one per core).
    #[arg(long, value_name = "J", allow_negative_numbers = true, value_parser = jobs)]
    pub jobs: Option<u64>,
    /// The suite seed (default: the suite file's `seed`, else 0).
    #[arg(long, value_name = "S", allow_negative_numbers = true, value_parser = whole)]
    pub seed: Option<u64>,
    /// For the report printed at the end: nights without a sighting after
    /// which a failure counts as gone.
    #[arg(long, value_name = "K", allow_negative_numbers = true, default_value = "3", value_parser = positive)]
    pub gone_after: u64,
}

/// Options of `rankcheck merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Output directories of `rankcheck nightly` (their
    /// `nights/*/shard-*.jsonl`), or shard files.
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// The history database (default: history.sqlite in the first DIR).
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,
}

/// Options of `rankcheck report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The campaign's output directory.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// The history database (default: DIR/history.sqlite).
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Human)]
    pub format: ReportFormat,
    /// Nights without a sighting after which a failure counts as gone.
    #[arg(long, value_name = "K", allow_negative_numbers = true, default_value = "3", value_parser = positive)]
    pub gone_after: u64,
    /// Also write the report as one self-contained HTML page, with each
    /// program's history plotted night by night (a name ending in `.html`
    /// or `.htm`).
    #[arg(long, value_name = "FILE.html")]
    pub html: Option<PathBuf>,
}

/// Formats of the morning report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// For people.
    Human,
    /// Markdown, for a CI job summary or an issue.
    Markdown,
    /// One JSON object.
    Json,
    /// CSV rows with a header.
    Csv,
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

impl CheckArgs {
    /// The strategy to run: the one named, else PCTVB when --depth, --vars
    /// or --track ask for a setting, else the portfolio (the engine's rule
    /// for every front end).
    pub fn strategy(&self) -> StrategyArg {
        let asks_settings = self.depth.is_some() || self.vars.is_some() || !self.track.is_empty();
        StrategyArg::chosen(self.strategy_flag, asks_settings)
    }
}

/// A search strategy: a name in the engine's registry of strategies
/// (`rankcheck_engine::strategy::registry`), which `--strategy` lists and
/// checks, so that a strategy registered there needs no edit here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StrategyArg(&'static Registered);

impl StrategyArg {
    /// The strategy registered as `name`.
    pub fn named(name: &str) -> Result<StrategyArg, UnknownStrategy> {
        registry::find(name).map(StrategyArg)
    }

    /// The strategy `named`, else PCTVB when settings are asked for, else
    /// the portfolio (the engine's rule for every front end).
    pub fn chosen(named: Option<StrategyArg>, asks_settings: bool) -> StrategyArg {
        StrategyArg(registry::chosen(named.map(|s| s.0), asks_settings))
    }

    /// Its entry in the registry.
    pub fn registered(self) -> &'static Registered {
        self.0
    }

    /// The name reports and replay files use.
    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// Whether its runs earn a per-run probability bound: only the
    /// priority searches' (the portfolio's priority settings) do.
    pub fn claims_bound(self) -> bool {
        self.0.claims_bound
    }

    /// Whether it takes --depth, --vars and --track.
    pub fn takes_settings(self) -> bool {
        self.0.takes_settings
    }
}

/// The parser of `--strategy`: the registered names, each with its help,
/// so that `--help` lists them and an unknown name is refused with them
/// (those for tests only are taken but not listed).
fn strategy_parser() -> impl TypedValueParser<Value = StrategyArg> {
    let names = registry::strategies().iter().map(|s| {
        PossibleValue::new(s.name)
            .help(s.about)
            .hide(s.is_for_tests())
    });
    PossibleValuesParser::new(names).map(|name| {
        StrategyArg::named(&name)
            .unwrap_or_else(|_| unreachable!("invariant: clap offers registered names only"))
    })
}

/// Priority schemes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PrioritiesArg {
    /// PCT's: random initial priorities, change points drop below all.
    Pct,
    /// Thread bounding's: one permutation of n+c priorities per run.
    ThreadBounded,
}

/// Read the command line: [`normalize`]d, then parsed by clap (which exits
/// with status 2 and a message naming the flag on a bad one).
pub fn parse() -> Cli {
    Cli::parse_from(normalize(std::env::args_os().collect()))
}

/// Put the subcommand's name first: `rankcheck -D N=5 bounds f.rk` becomes
/// `rankcheck bounds -D N=5 f.rk`, and a line with no subcommand is a
/// `check`. Values of options are skipped, so `--format json` or a program
/// named like a subcommand after `--` are left alone.
pub fn normalize(mut args: Vec<OsString>) -> Vec<OsString> {
    let command = Cli::command();
    let mut names: BTreeSet<String> = command
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    names.insert("help".into());
    let takes_value = options_with_values(&command);
    let mut first_positional = None;
    let mut i = 1;
    while i < args.len() {
        let arg = args[i].to_string_lossy().into_owned();
        if arg == "--" {
            // Everything after `--` is a program, never a subcommand.
            if i + 1 < args.len() {
                first_positional = Some(None);
            }
            break;
        }
        if arg.len() > 1 && arg.starts_with('-') && arg.parse::<f64>().is_err() {
            if !arg.contains('=') && takes_value.contains(&arg) {
                i += 1;
            }
            i += 1;
            continue;
        }
        first_positional = Some(Some(i));
        break;
    }
    match first_positional {
        Some(Some(i)) if names.contains(&*args[i].to_string_lossy()) => {
            let name = args.remove(i);
            let nested: BTreeSet<String> = command
                .find_subcommand(&*name.to_string_lossy())
                .map(|sub| {
                    sub.get_subcommands()
                        .map(|s| s.get_name().to_string())
                        .collect()
                })
                .unwrap_or_default();
            args.insert(1, name);
            // `plot bound`: the nested name goes second, so that options
            // before it belong to it.
            if !nested.is_empty() {
                if let Some(j) = (2..args.len()).find(|&j| {
                    nested.contains(&*args[j].to_string_lossy())
                        && !follows_option(&args, j, &takes_value)
                }) {
                    let inner = args.remove(j);
                    args.insert(2, inner);
                }
            }
        }
        Some(_) => args.insert(1, "check".into()),
        None => {
            let only_help = args
                .iter()
                .skip(1)
                .all(|a| matches!(a.to_str(), Some("-h" | "--help" | "-V" | "--version")));
            if args.len() > 1 && !only_help {
                args.insert(1, "check".into());
            }
        }
    }
    args
}

/// Whether `args[j]` is the value of the option before it.
fn follows_option(args: &[OsString], j: usize, takes_value: &BTreeSet<String>) -> bool {
    let before = args[j - 1].to_string_lossy();
    takes_value.contains(&*before)
}

/// Every option of every subcommand (and nested subcommand) that takes a
/// value, as written (`--seed`, `-D`).
fn options_with_values(command: &clap::Command) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for sub in command.get_subcommands() {
        names.extend(options_with_values(sub));
        for arg in sub.get_arguments() {
            if !arg.get_action().takes_values() || arg.is_positional() {
                continue;
            }
            if let Some(long) = arg.get_long() {
                names.insert(format!("--{long}"));
            }
            if let Some(short) = arg.get_short() {
                names.insert(format!("-{short}"));
            }
        }
    }
    names
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

/// A whole number in `min..=max`, with a message that says so.
fn number_in(text: &str, min: u64, max: u64) -> Result<u64, String> {
    let range = if max == u64::MAX {
        format!("a whole number of at least {min}")
    } else {
        format!("a whole number from {min} to {max}")
    };
    match text.trim().parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(format!("expected {range}, found `{text}`")),
    }
}

fn positive(text: &str) -> Result<u64, String> {
    number_in(text, 1, u64::MAX)
}

fn whole(text: &str) -> Result<u64, String> {
    number_in(text, 0, u64::MAX)
}

fn jobs(text: &str) -> Result<u64, String> {
    number_in(text, 1, 256)
}

fn shard_count(text: &str) -> Result<u32, String> {
    number_in(text, 1, 100_000).map(|n| n as u32)
}

/// `I/N`: shard I (from 0) of N.
fn parse_shard(text: &str) -> Result<crate::nightly::Shard, String> {
    let bad = || format!("expected I/N with 0 <= I < N, such as 0/4, found `{text}`");
    let (index, count) = text.split_once('/').ok_or_else(bad)?;
    let index: u32 = index.trim().parse().map_err(|_| bad())?;
    let count: u32 = count.trim().parse().map_err(|_| bad())?;
    if count == 0 || index >= count {
        return Err(bad());
    }
    Ok(crate::nightly::Shard { index, count })
}

fn depth(text: &str) -> Result<u32, String> {
    number_in(text, 1, 32).map(|d| d as u32)
}

fn thread_bound(text: &str) -> Result<u32, String> {
    number_in(text, 2, 16).map(|t| t as u32)
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
    let digits = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(digits);
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

fn parse_confidence(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(c) if c > 0.0 && c < 1.0 => Ok(c),
        _ => Err(format!(
            "expected a confidence strictly between 0 and 1, found `{text}`"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str) -> Vec<String> {
        normalize(
            std::iter::once("rankcheck")
                .chain(text.split_whitespace())
                .map(OsString::from)
                .collect(),
        )
        .into_iter()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
    }

    #[test]
    fn the_subcommand_goes_first_and_check_is_the_default() {
        assert_eq!(
            line("-D HOT=5 bounds f.rk"),
            ["bounds", "-D", "HOT=5", "f.rk"]
        );
        assert_eq!(line("a.rk b.rk"), ["check", "a.rk", "b.rk"]);
        assert_eq!(
            line("--format json f.rk"),
            ["check", "--format", "json", "f.rk"]
        );
        assert_eq!(line("--depth -1 f.rk"), ["check", "--depth", "-1", "f.rk"]);
        assert_eq!(
            line("explore --vars all f.rk"),
            ["explore", "--vars", "all", "f.rk"]
        );
        assert_eq!(line("--help"), ["--help"]);
        assert_eq!(
            line("-o x.svg plot --runs 5 bound f.rk"),
            ["plot", "bound", "-o", "x.svg", "--runs", "5", "f.rk"]
        );
        assert_eq!(
            line("plot hits -o bound f.rk"),
            ["plot", "hits", "-o", "bound", "f.rk"]
        );
        assert_eq!(line("--seed 3"), ["check", "--seed", "3"]);
    }

    /// Every strategy the command runs, and so every component a
    /// portfolio run can be (its settings' `pct` and `pctvb`, the
    /// sampling strategies), has a colour of its own in the palette the
    /// figures share. Strategies for tests only (`test-*`) take the
    /// colours of unknown lines.
    #[test]
    fn every_strategy_has_its_own_colour() {
        let names: BTreeSet<&str> = registry::strategies()
            .iter()
            .filter(|s| !s.is_for_tests())
            .map(|s| s.name)
            .collect();
        let mut colours = BTreeSet::new();
        for name in &names {
            let colour = rankcheck_plot::style::strategy_color(name)
                .unwrap_or_else(|| panic!("{name} has no colour"));
            assert!(
                colours.insert((colour.0, colour.1, colour.2)),
                "{name} shares its colour"
            );
        }
        assert!(names.contains("urw") && names.contains("ksurw"));
    }
}
