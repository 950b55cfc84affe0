//! The typed errors of the stats crate: every way an argument can be out of range.

/// An argument outside the range where a formula of the paper is defined.
///
/// Every public function of this crate that takes user input returns this
/// instead of panicking; messages are lower case and say what was expected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StatsError {
    /// A probability outside `[0, 1]` (or NaN).
    #[error("expected a probability in [0, 1], got {0}")]
    InvalidProbability(f64),
    /// A log-probability above 0 (or NaN).
    #[error("expected a log-probability at most 0, got {0}")]
    InvalidLogProbability(f64),
    /// A miss probability `eps` outside the open interval `(0, 1)`.
    #[error("expected a miss probability in (0, 1), got {0}")]
    InvalidMissProbability(f64),
    /// A confidence level or significance level outside `(0, 1)`.
    #[error("expected a level in (0, 1), got {0}")]
    InvalidLevel(f64),
    /// `n = 0` threads: PCT's bound `1/(n k^(d-1))` is undefined.
    #[error("expected at least one thread")]
    NoThreads,
    /// Bug depth `d = 0`: PCT counts depth from 1.
    #[error("expected a bug depth of at least 1")]
    ZeroDepth,
    /// Depth `d > 1` needs `d - 1` change points, but there is nowhere to put them
    /// (`k = 0` steps, or the chosen variables are never accessed).
    #[error("bug depth {depth} needs change points, but the range to place them in is empty")]
    EmptyChangePointRange {
        /// The bug depth `d` asked for.
        depth: u32,
    },
    /// A variable index not below `Q`, the number of variables.
    #[error("variable index {index} out of range: there are {n_variables} variables")]
    VariableOutOfRange {
        /// The offending index.
        index: usize,
        /// `Q`, the number of variables.
        n_variables: usize,
    },
    /// The same variable listed twice among the bug's variables.
    #[error("variable {0} listed twice")]
    DuplicateVariable(usize),
    /// More variables to choose (`v`) than exist (`Q`).
    #[error("cannot choose {chosen} variables out of {n_variables}")]
    TooManyVariables {
        /// `v`, the variables to choose.
        chosen: usize,
        /// `Q`, the number of variables.
        n_variables: usize,
    },
    /// A thread bound `t` below 2 (paper §4: a bug's thread bound is at least 2).
    #[error("expected a thread bound of at least 2, got {0}")]
    ThreadBoundTooSmall(u32),
    /// Fewer threads than the thread bound `t`.
    #[error("a {thread_bound}-thread bug needs at least {thread_bound} threads, got {n_threads}")]
    TooFewThreads {
        /// `n`.
        n_threads: u64,
        /// `t`.
        thread_bound: u32,
    },
    /// A subset size the permutation-cover analysis does not handle: it
    /// tracks the `t!` orders of a subset in a 128-bit set, so `2 <= t <= 5`.
    #[error("expected a subset size between 2 and 5, got {0}")]
    SubsetSizeOutOfRange(u32),
    /// Fewer elements than the subset size.
    #[error("cannot take subsets of size {subset_size} from {n_elements} elements")]
    TooFewElements {
        /// `n`.
        n_elements: u64,
        /// `t`.
        subset_size: u32,
    },
    /// An exhaustive simulation would track more subsets than it allows.
    #[error("exhaustive simulation would track {subsets} subsets, more than the limit of {limit}")]
    SimulationTooLarge {
        /// `C(n, t)`, saturated at `u128::MAX`.
        subsets: u128,
        /// The limit.
        limit: u128,
    },
    /// A sequence given as a permutation of `0..n` that is not one.
    #[error("permutation {index} is not a permutation of 0..{n_elements}")]
    NotAPermutation {
        /// Its position in the list.
        index: usize,
        /// `n`.
        n_elements: u32,
    },
    /// A simulation asked for zero trials.
    #[error("expected at least one trial")]
    NoTrials,
    /// A probability of zero where a run count is asked for: no number of runs suffices.
    #[error("the per-run probability is zero: no number of runs reaches the target")]
    ZeroProbability,
    /// More hits than runs.
    #[error("hits ({hits}) exceed runs ({runs})")]
    HitsExceedRuns {
        /// Hits.
        hits: u64,
        /// Runs.
        runs: u64,
    },
    /// A hit rate over zero runs.
    #[error("expected at least one run")]
    NoRuns,
    /// An empty sample of run counts.
    #[error("expected at least one observation")]
    EmptySample,
    /// A run count of 0 in a sample of executions-until-first-bug (the first run is run 1).
    #[error("expected run counts of at least 1 (the first run is run 1), got 0 at position {0}")]
    ZeroRunCount(usize),
}
