//! The command line: clap types, turned into plain config structs at once so
//! that clap never reaches the engine.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// rankcheck finds concurrency bugs in `.rk` programs by running them many
/// times under a scheduler it controls.
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
}

/// Options of `rankcheck PROGRAM`.
#[derive(Debug, Args)]
pub struct TestArgs {
    /// The `.rk` program to test.
    #[arg(required = true)]
    pub program: Option<PathBuf>,
    /// Executions to run at most.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub runs: u64,
    /// Master seed; every run's scheduler is seeded from it and the run's
    /// number. Default: a fresh seed, printed in the report.
    #[arg(long)]
    pub seed: Option<u64>,
    /// The search strategy.
    #[arg(long, value_enum, default_value_t = StrategyArg::Random)]
    pub strategy: StrategyArg,
    /// Count every failing run instead of stopping at the first.
    #[arg(long)]
    pub keep_going: bool,
    /// Steps one execution may take (scheduling points, loop iterations and
    /// calls) before it is reported as possible non-termination.
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_steps: u64,
    /// Override a `const` of the program: `-D HOT=400`. Repeatable.
    #[arg(short = 'D', value_name = "NAME=VALUE", value_parser = parse_define)]
    pub define: Vec<(String, i64)>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Directory where the replay file of a failure is written.
    #[arg(long, default_value = ".")]
    pub replay_dir: PathBuf,
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
    /// A uniformly random choice among the enabled threads at every
    /// scheduling point, every shared access tracked.
    Random,
}

impl StrategyArg {
    /// The name reports and replay files use.
    pub fn name(self) -> &'static str {
        match self {
            StrategyArg::Random => "random",
        }
    }
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
