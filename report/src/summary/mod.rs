//! The closing summary of a search: what it ran, the bound of each setting
//! and the confidence its clean runs earned (or, after a failure, the same
//! figures without the claim), per variable set where variables are drawn,
//! and the settings it could not run. [`SummaryJson`] is the model and the
//! JSON of `rankcheck check --format json`; [`SummaryJson::of_search`]
//! builds it from the engine's facts, [`summary_text`] and
//! [`summary_rows`] render it.

mod build;
mod csv;
mod text;

use serde::Serialize;

use crate::failure::FailureJson;

pub use self::build::{describe_selection, rate, var_count, SearchFacts, VarNames};
pub use self::csv::{summary_rows, SUMMARY_COLUMNS};
pub use self::text::{over_vars, summary_headline, summary_text};

/// One variable set's guarantee within a setting that draws variables.
#[derive(Debug, Serialize)]
pub struct SetJson {
    /// The variables.
    pub vars: Vec<String>,
    /// Per-run lower bound on finding a bug over exactly these variables.
    pub bound: f64,
    /// `ln` of the bound.
    pub bound_ln: f64,
    /// Probability that the setting's runs would have found such a bug.
    pub confidence: f64,
    /// Runs the target confidence needs for such a bug.
    pub runs_needed: Option<u64>,
}

/// One (depth, variables) setting's guarantee.
#[derive(Debug, Serialize)]
pub struct SettingJson {
    /// PCT's depth `d`.
    pub depth: u32,
    /// `v`, or null for all variables.
    pub vars: Option<usize>,
    /// How the variables were chosen: `1 of 4`, `all`, `none`, names.
    pub tracking: String,
    /// The runs it got.
    pub runs: u64,
    /// Per-run lower bound on finding a bug of this depth over any `v`
    /// variables (the worst case over variable sets), or null where none
    /// is claimed.
    pub bound: Option<f64>,
    /// `ln` of the bound, exact where `bound` underflows.
    pub bound_ln: Option<f64>,
    /// Probability that the runs done would have found such a bug.
    pub confidence: Option<f64>,
    /// Runs the target confidence needs.
    pub runs_needed: Option<u64>,
    /// For variables drawn each run: the guarantee per variable set,
    /// weakest first; null otherwise (or past 10,000 sets).
    pub per_set: Option<Vec<SetJson>>,
}

/// A setting asked for but not run.
#[derive(Debug, Serialize)]
pub struct SkippedJson {
    /// Its depth.
    pub depth: u32,
    /// Its variables, as reports name them.
    pub tracking: String,
    /// Why it cannot do anything.
    pub reason: String,
}

/// The runs one sampling strategy of the portfolio made.
#[derive(Debug, Serialize)]
pub struct SamplingRunsJson {
    /// `surw`, `pos`, `urw` or `wpos`.
    pub strategy: String,
    /// Its runs.
    pub runs: u64,
}

/// A variable's profile.
#[derive(Debug, Serialize)]
pub struct KqJson {
    /// Its name.
    pub var: String,
    /// Its kind: `int`, `mutex`, ... for a `.rk` program; the replacement
    /// type (`AtomicUsize`, `Mutex`, ...) for a Rust test.
    pub kind: String,
    /// Most accesses in a preparatory run.
    pub k_q: u64,
    /// Mean accesses per preparatory run.
    pub mean: f64,
    /// Whether two threads touched it.
    pub shared: bool,
}

/// The summary of a search: the JSON object of `rankcheck check --format
/// json`. Fields are added, never renamed
/// (`docs/guide/src/json-output.md`).
#[derive(Debug, Serialize)]
pub struct SummaryJson {
    /// The program's path (for a Rust test, where `check` was called).
    pub program: String,
    /// The strategy asked for.
    pub strategy: String,
    /// `pct` or `thread-bounded`.
    pub priorities: String,
    /// The master seed.
    pub seed: u64,
    /// Executions done.
    pub runs: u64,
    /// Failing executions.
    pub failures: u64,
    /// Wall time of the search.
    pub elapsed_s: f64,
    /// Its rate.
    pub executions_per_s: f64,
    /// The depth asked for (null when rotating through settings).
    pub depth: Option<u32>,
    /// The `--vars` asked for, as given: a count, `all`, `sync` or `none`
    /// (null when not given). A string, so named apart from the
    /// settings' `vars`, which is the count a setting tracks.
    pub vars_asked: Option<String>,
    /// The `--threads` asked for (null when not given).
    pub threads: Option<u32>,
    /// Most threads of a preparatory run.
    pub n: usize,
    /// Most tracked accesses of a preparatory run.
    pub k: u64,
    /// The number of variables.
    #[serde(rename = "Q")]
    pub q: usize,
    /// Each variable's profile.
    pub k_q: Vec<KqJson>,
    /// Preparatory runs.
    pub profile_runs: u64,
    /// The confidence each setting's runs aim for.
    pub target_confidence: f64,
    /// Whether `--max-runs` cut the run count the confidence asked for.
    pub runs_capped: bool,
    /// Whether SIGINT or SIGTERM stopped the search early.
    pub interrupted: bool,
    /// The portfolio's sampling strategies with their runs (the priority
    /// settings' runs are in `settings`); null for other strategies.
    pub sampling: Option<Vec<SamplingRunsJson>>,
    /// Each (depth, variables) setting's guarantee.
    pub settings: Vec<SettingJson>,
    /// Settings asked for but not run.
    pub skipped: Vec<SkippedJson>,
    /// The lowest confidence over the settings (the guarantee of the run as
    /// a whole), null if no setting claims one.
    pub confidence: Option<f64>,
    /// The setting's bound when there is exactly one.
    pub bound: Option<f64>,
    /// The setting's runs needed when there is exactly one.
    pub runs_needed: Option<u64>,
    /// With `--keep-going`: failures / runs.
    pub hit_rate: Option<f64>,
    /// The lower end of its interval at the target confidence.
    pub hit_rate_low: Option<f64>,
    /// The upper end.
    pub hit_rate_high: Option<f64>,
    /// The first failure, if any.
    pub first_failure: Option<FailureJson>,
    /// The memory model the runs explored: `sc` (sequentially consistent,
    /// every `.rk` program and a Rust test by default) or `weak` (a Rust
    /// test under `MemoryModel::Weak`).
    pub memory_model: String,
    /// Under weak memory, the loads whose choice among older stores the
    /// history bound cut; 0 otherwise.
    pub loads_cut: u64,
    /// The spurious wake-ups the runs made (Rust tests; 0 for `.rk`).
    pub spurious_wakeups: u64,
    /// The timeouts the runs' timed waits made (Rust tests; 0 for `.rk`).
    pub timeouts: u64,
}
