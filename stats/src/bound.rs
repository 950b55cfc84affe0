//! Per-run lower bounds on the probability that one run finds a bug: PCT's
//! `1/(n k^(d-1))` and PCTVB's, with and without the variable choice
//! (paper §3, Theorem 3.1 and the formula after it).

use crate::binomial::{binomial, ln_binomial};
use crate::error::StatsError;
use crate::probability::Probability;

/// A per-run lower bound of the form `1/D` for a positive integer `D`.
///
/// PCT guarantees `D = n k^(d-1)` (Burckhardt et al., ASPLOS 2010,
/// Theorem 9); PCTVB `D = n (sum k_q)^(d-1)` when it tracks the bug's
/// variables and `D = C(Q,v) n (sum k_q)^(d-1)` when it draws them (paper
/// §3, Theorem 3.1). `D` is kept exactly while it fits in `u128` and always
/// as `ln D`, so `k = 10^9, d = 5` neither overflows nor rounds to 0.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunBound {
    /// `ln D`: finite and at least 0.
    ln_denominator: f64,
    /// `D` exactly, when it fits in `u128`.
    denominator: Option<u128>,
}

/// Which variables PCTVB tracks, and what is known about the bug's
/// (paper §3, PCTVB step 0 and Theorem 3.1).
///
/// `access_bounds[q]` is `k_q`, an upper bound on the accesses to variable
/// `q` in one run (PCTVB step 2, estimated by preparatory runs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VariableChoice<'a> {
    /// The bug's variables are tracked on purpose; `access_bounds` lists
    /// `k_q` for each of them. Theorem 3.1: `P >= 1/(n (sum k_q)^(d-1))`.
    Known {
        /// `k_q` of each of the bug's `v` variables.
        access_bounds: &'a [u64],
    },
    /// `v` of the `Q` variables are drawn uniformly at random and the bug's
    /// variables are known (by index). Paper §3, after Theorem 3.1:
    /// `P >= 1/C(Q,v) * 1/(n (sum k_q)^(d-1))`, the sum over the bug's
    /// variables.
    Drawn {
        /// `k_q` of all `Q` variables.
        access_bounds: &'a [u64],
        /// Indices into `access_bounds` of the bug's `v` variables.
        bug_variables: &'a [usize],
    },
    /// `v` of the `Q` variables are drawn uniformly at random and the bug's
    /// variables are unknown: the bound must hold for every `v`-subset, so
    /// `sum k_q` is the largest such sum, that of the `v` largest `k_q`.
    DrawnWorstCase {
        /// `k_q` of all `Q` variables.
        access_bounds: &'a [u64],
        /// `v`, the number of variables drawn (and the bug's variable bound).
        n_variables: usize,
    },
}

impl RunBound {
    /// PCT's guarantee for `n` threads, `k` steps and bug depth `d`:
    /// each run finds the bug with probability at least `1/(n k^(d-1))`
    /// (Burckhardt et al., Theorem 9; docs/ALGORITHMS.md "PCT").
    ///
    /// `k = 0` is allowed only for `d = 1`, which needs no change points.
    pub fn pct(n_threads: u64, n_steps: u64, bug_depth: u32) -> Result<Self, StatsError> {
        Self::build((Some(1), 0.0), n_threads, u128::from(n_steps), bug_depth)
    }

    /// PCTVB's guarantee for `n` threads and bug depth `d` (paper §3,
    /// Theorem 3.1 and the formula after it); see [`VariableChoice`] for
    /// the three cases.
    pub fn pctvb(
        n_threads: u64,
        bug_depth: u32,
        variables: VariableChoice<'_>,
    ) -> Result<Self, StatsError> {
        match variables {
            VariableChoice::Known { access_bounds } => Self::build(
                (Some(1), 0.0),
                n_threads,
                sum(access_bounds.iter().copied()),
                bug_depth,
            ),
            VariableChoice::Drawn {
                access_bounds,
                bug_variables,
            } => {
                let n_variables = access_bounds.len();
                let mut seen = vec![false; n_variables];
                for &index in bug_variables {
                    match seen.get_mut(index) {
                        None => return Err(StatsError::VariableOutOfRange { index, n_variables }),
                        Some(true) => return Err(StatsError::DuplicateVariable(index)),
                        Some(flag) => *flag = true,
                    }
                }
                let range = sum(bug_variables.iter().map(|&q| access_bounds[q]));
                Self::build(
                    choice_factor(n_variables, bug_variables.len()),
                    n_threads,
                    range,
                    bug_depth,
                )
            }
            VariableChoice::DrawnWorstCase {
                access_bounds,
                n_variables: chosen,
            } => {
                let n_variables = access_bounds.len();
                if chosen > n_variables {
                    return Err(StatsError::TooManyVariables {
                        chosen,
                        n_variables,
                    });
                }
                let mut sorted = access_bounds.to_vec();
                sorted.sort_unstable_by(|a, b| b.cmp(a));
                let range = sum(sorted.into_iter().take(chosen));
                Self::build(
                    choice_factor(n_variables, chosen),
                    n_threads,
                    range,
                    bug_depth,
                )
            }
        }
    }

    /// `D = factor * n * range^(d-1)`, where `factor` is `C(Q,v)` or 1
    /// (given exactly when it fits, and as a logarithm) and `range` is `k`
    /// or `sum k_q`, the number of places a change point can go.
    fn build(
        (factor, ln_factor): (Option<u128>, f64),
        n_threads: u64,
        range: u128,
        bug_depth: u32,
    ) -> Result<Self, StatsError> {
        if n_threads == 0 {
            return Err(StatsError::NoThreads);
        }
        if bug_depth == 0 {
            return Err(StatsError::ZeroDepth);
        }
        let change_points = bug_depth - 1;
        if change_points > 0 && range == 0 {
            return Err(StatsError::EmptyChangePointRange { depth: bug_depth });
        }
        // range^0 = 1 even for range = 0, so depth 1 skips the term.
        let ln_range_power = if change_points == 0 {
            0.0
        } else {
            f64::from(change_points) * (range as f64).ln()
        };
        let ln_denominator = ln_factor + (n_threads as f64).ln() + ln_range_power;
        let denominator = factor
            .and_then(|f| f.checked_mul(u128::from(n_threads)))
            .and_then(|f| f.checked_mul(range.checked_pow(change_points)?));
        Ok(RunBound {
            ln_denominator,
            denominator,
        })
    }

    /// The bound `1/D` as a probability (log space: never 0).
    pub fn probability(&self) -> Probability {
        Probability::from_ln(-self.ln_denominator)
            .expect("invariant: ln_denominator is finite and non-negative")
    }

    /// `D` exactly, or `None` when it exceeds `u128::MAX` (about `3.4e38`).
    pub fn denominator(&self) -> Option<u128> {
        self.denominator
    }

    /// `ln D`, always available.
    pub fn ln_denominator(&self) -> f64 {
        self.ln_denominator
    }
}

/// `C(Q, v)`, exactly when it fits, and its logarithm: the chance
/// `1/C(Q,v)` of drawing the bug's `v` variables (paper §3).
fn choice_factor(n_variables: usize, chosen: usize) -> (Option<u128>, f64) {
    let (q, v) = (n_variables as u64, chosen as u64);
    (binomial(q, v), ln_binomial(q, v))
}

/// A sum of `u64`s in `u128`: fewer than `2^64` terms below `2^64` each
/// cannot overflow it.
fn sum(values: impl Iterator<Item = u64>) -> u128 {
    values.map(u128::from).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::LN_10;

    fn close(actual: f64, expected: f64, relative: f64) -> bool {
        ((actual - expected) / expected).abs() <= relative
    }

    #[test]
    fn pct_small_case_by_hand() {
        // n = 2, k = 10, d = 3: D = 2 * 10^2 = 200, p = 0.005.
        let bound = RunBound::pct(2, 10, 3).unwrap();
        assert_eq!(bound.denominator(), Some(200));
        assert!(close(bound.probability().value(), 0.005, 1e-14));
        // d = 1 needs no change point: D = n, even with k = 0.
        assert_eq!(RunBound::pct(3, 0, 1).unwrap().denominator(), Some(3));
    }

    #[test]
    fn pct_with_a_billion_steps_and_depth_five() {
        // n = 4, k = 1e9, d = 5: D = 4 * 10^36, which fits u128 (max ~3.4e38);
        // ln D = ln 4 + 36 ln 10 = 1.3862944 + 82.8930633 = 84.2793577.
        let bound = RunBound::pct(4, 1_000_000_000, 5).unwrap();
        assert_eq!(bound.denominator(), Some(4 * 10u128.pow(36)));
        assert!(close(bound.ln_denominator(), 84.279_357_7, 1e-9));
        assert!(close(bound.probability().value(), 2.5e-37, 1e-12));
        // n = 1000: D = 10^39 no longer fits u128 but ln D = 39 ln 10 = 89.8008.
        let bound = RunBound::pct(1000, 1_000_000_000, 5).unwrap();
        assert_eq!(bound.denominator(), None);
        assert!(close(bound.ln_denominator(), 39.0 * LN_10, 1e-14));
        assert!(close(bound.probability().log10(), -39.0, 1e-14));
    }

    #[test]
    fn pct_rejects_degenerate_inputs() {
        assert_eq!(RunBound::pct(0, 10, 2), Err(StatsError::NoThreads));
        assert_eq!(RunBound::pct(2, 10, 0), Err(StatsError::ZeroDepth));
        assert_eq!(
            RunBound::pct(2, 0, 2),
            Err(StatsError::EmptyChangePointRange { depth: 2 })
        );
    }

    #[test]
    fn pctvb_known_variables() {
        // k_q = 10 and 30, n = 2, d = 2: D = 2 * (10 + 30)^1 = 80.
        let bound = RunBound::pctvb(
            2,
            2,
            VariableChoice::Known {
                access_bounds: &[10, 30],
            },
        )
        .unwrap();
        assert_eq!(bound.denominator(), Some(80));
        assert!(close(bound.probability().value(), 1.0 / 80.0, 1e-14));
    }

    /// k_q = q + 1 for q = 0..200: Q = 200 variables accessed 1..=200 times.
    fn two_hundred_variables() -> Vec<u64> {
        (1..=200).collect()
    }

    #[test]
    fn pctvb_two_of_two_hundred_worst_case() {
        // Q = 200, v = 2: C(200, 2) = 19900. The two largest k_q are 200 and 199,
        // sum 399. n = 3, d = 3: D = 19900 * 3 * 399^2 = 19900 * 3 * 159201
        // = 19900 * 477603 = 9_504_299_700.
        let access_bounds = two_hundred_variables();
        let bound = RunBound::pctvb(
            3,
            3,
            VariableChoice::DrawnWorstCase {
                access_bounds: &access_bounds,
                n_variables: 2,
            },
        )
        .unwrap();
        assert_eq!(bound.denominator(), Some(9_504_299_700));
        assert!(close(
            bound.probability().value(),
            1.0 / 9_504_299_700.0,
            1e-13
        ));
    }

    #[test]
    fn pctvb_two_of_two_hundred_with_the_bug_variables_given() {
        // Bug on variables 0 and 5 (k = 1 and 6, sum 7); n = 3, d = 3:
        // D = 19900 * 3 * 7^2 = 19900 * 147 = 2_925_300.
        let access_bounds = two_hundred_variables();
        let bound = RunBound::pctvb(
            3,
            3,
            VariableChoice::Drawn {
                access_bounds: &access_bounds,
                bug_variables: &[0, 5],
            },
        )
        .unwrap();
        assert_eq!(bound.denominator(), Some(2_925_300));
        // The corner-variable effect of §3: a rarely accessed pair beats the worst case.
        let worst = RunBound::pctvb(
            3,
            3,
            VariableChoice::DrawnWorstCase {
                access_bounds: &access_bounds,
                n_variables: 2,
            },
        )
        .unwrap();
        assert!(bound.probability() > worst.probability());
    }

    #[test]
    fn pctvb_with_a_billion_accesses_overflows_only_the_exact_form() {
        // Q = 200, v = 2, every k_q = 1e9, n = 8, d = 5: sum = 2e9,
        // D = 19900 * 8 * (2e9)^4 = 159200 * 1.6e37 = 2.5472e42 > u128::MAX;
        // ln D = ln 159200 + 4 ln 2e9 = 11.97792 + 4 * 21.41641 = 11.97792 + 85.66565 = 97.64357.
        let access_bounds = vec![1_000_000_000u64; 200];
        let bound = RunBound::pctvb(
            8,
            5,
            VariableChoice::DrawnWorstCase {
                access_bounds: &access_bounds,
                n_variables: 2,
            },
        )
        .unwrap();
        assert_eq!(bound.denominator(), None);
        let expected = 159_200f64.ln() + 4.0 * 2e9f64.ln();
        assert!(close(bound.ln_denominator(), expected, 1e-14));
        assert!(close(bound.ln_denominator(), 97.643_57, 1e-6));
    }

    #[test]
    fn pctvb_rejects_bad_variable_lists() {
        let access_bounds = [5, 6, 7];
        let drawn = |bug_variables: &'static [usize]| {
            RunBound::pctvb(
                2,
                2,
                VariableChoice::Drawn {
                    access_bounds: &access_bounds,
                    bug_variables,
                },
            )
        };
        assert_eq!(
            drawn(&[3]),
            Err(StatsError::VariableOutOfRange {
                index: 3,
                n_variables: 3
            })
        );
        assert_eq!(drawn(&[1, 1]), Err(StatsError::DuplicateVariable(1)));
        assert_eq!(
            RunBound::pctvb(
                2,
                2,
                VariableChoice::DrawnWorstCase {
                    access_bounds: &access_bounds,
                    n_variables: 4
                }
            ),
            Err(StatsError::TooManyVariables {
                chosen: 4,
                n_variables: 3
            })
        );
        // Chosen variables never accessed: nowhere to put a change point.
        assert_eq!(
            RunBound::pctvb(
                2,
                3,
                VariableChoice::Known {
                    access_bounds: &[0]
                }
            ),
            Err(StatsError::EmptyChangePointRange { depth: 3 })
        );
    }
}
