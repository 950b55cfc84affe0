//! Probability bounds, confidence intervals and coverage statements for
//! rankcheck, after "Variable and Thread Bounding for Systematic Testing of
//! Multithreaded Programs" (Bindal, Bansal, Lal) and PCT (Burckhardt et al.,
//! ASPLOS 2010).
//!
//! A leaf crate of pure functions: no I/O, no clock, and randomness only
//! from a generator the caller passes in (a seeded `rand_pcg`).
//!
//! What is here:
//! - [`Probability`]: a probability held as its logarithm, so bounds like
//!   `10^-40` neither underflow nor lose `1 - p`.
//! - [`RunBound`]: per-run lower bounds on finding a bug: PCT's
//!   `1/(n k^(d-1))` and PCTVB's with known, drawn or worst-case variables
//!   ([`VariableChoice`]; paper §3, Theorem 3.1).
//! - [`coverage`]: the confidence `N` clean runs buy and the runs needed
//!   for a target, as a [`RunCount`] that reports counts beyond `u64`.
//! - [`thread_bound`]: Lemma 4.1's run counts for thread bounding in the
//!   three forms in circulation ([`LemmaForm`]; paper §4), with the
//!   discrepancies between them documented.
//! - [`permutation_cover`]: the exact bracket on how many random
//!   permutations of `n` see every order of every `t`-subset
//!   ([`CoverAnalysis`], [`CoverBracket`]), which answers the paper's
//!   `n = 600` simulation; [`cover_simulation`] runs that process for real
//!   at small `n`.
//! - [`HitRate`] with its Clopper–Pearson [`Interval`]; [`RunsToBug`],
//!   executions until the first bug as a geometric sample; [`compare`],
//!   Fisher's exact test between two strategies ([`Comparison`],
//!   [`Verdict`]).
//! - [`decimal::number`]: the one notation every output writes numbers in.
//! - [`StatsError`]: every rejected argument.
//!
//! One finding worth knowing before quoting the paper: its simulated
//! figures for `n = 600` (70, 360 and 2000 permutations for `t = 3, 4, 5`
//! at 99%) are about half of what is needed; the exact bracket gives 131,
//! 710 and 4370 or 4371 (see [`permutation_cover`]).

pub mod binomial;
pub mod bound;
pub mod comparison;
pub mod cover_simulation;
pub mod coverage;
pub mod decimal;
pub mod error;
pub mod geometric;
pub mod hit_rate;
pub mod interval;
pub mod permutation_cover;
pub mod probability;
mod relative_order;
pub mod thread_bound;

pub use bound::{RunBound, VariableChoice};
pub use comparison::{compare, Comparison, Verdict};
pub use coverage::{confidence_after, miss_after, runs_needed, RunCount};
pub use error::StatsError;
pub use geometric::RunsToBug;
pub use hit_rate::HitRate;
pub use interval::Interval;
pub use permutation_cover::{CoverAnalysis, CoverBracket, MissBounds};
pub use probability::Probability;
pub use thread_bound::{miss_after_permutations, runs_for_thread_coverage, LemmaForm};
