//! What clean runs buy: the confidence `1 - (1-p)^N` after `N` runs that
//! found nothing, and the runs `ceil(ln eps / ln(1-p))` needed to reach
//! confidence `1 - eps`, for a per-run bound `p` from PCT/PCTVB (paper §3,
//! Theorem 3.1) or thread bounding (§4).

use crate::error::StatsError;
use crate::probability::Probability;

/// A number of runs, or the statement that it does not fit in a `u64`.
///
/// Per-run bounds such as `1/(n k^(d-1))` with `k = 10^9` call for more
/// runs than a `u64` counts; those come back as [`RunCount::TooMany`] with
/// the logarithm of the (real-valued) count, never a wrapped or saturated
/// integer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RunCount {
    /// The count, which fits in a `u64`.
    Finite(u64),
    /// More than `u64::MAX` runs.
    TooMany {
        /// Natural logarithm of the real-valued count (before rounding up).
        ln_runs: f64,
    },
}

impl RunCount {
    /// The count if it fits in a `u64`.
    pub fn finite(self) -> Option<u64> {
        match self {
            RunCount::Finite(runs) => Some(runs),
            RunCount::TooMany { .. } => None,
        }
    }

    /// Rounds a positive real count up, or reports it as too many.
    pub(crate) fn from_real(runs: f64, ln_runs: f64) -> Self {
        // 2^64 as f64; every f64 below it is an integer or rounds up to one below it.
        const LIMIT: f64 = 18_446_744_073_709_551_616.0;
        if runs < LIMIT {
            RunCount::Finite(runs.ceil() as u64)
        } else {
            RunCount::TooMany { ln_runs }
        }
    }
}

/// The probability that `runs` independent runs, each finding the bug with
/// probability `p`, all miss it: `(1-p)^N`, in log space
/// (`N ln(1-p)`, with `ln(1-p)` from [`Probability::ln_complement`]).
pub fn miss_after(per_run: Probability, runs: u64) -> Probability {
    per_run.complement().repeated(runs)
}

/// The confidence that a bug with per-run probability at least `p` would
/// have been found in `runs` runs: `1 - (1-p)^N`, computed as the
/// complement of [`miss_after`] so that `p = 10^-12, N = 1` gives `10^-12`
/// and not 0.
pub fn confidence_after(per_run: Probability, runs: u64) -> Probability {
    miss_after(per_run, runs).complement()
}

/// The fewest runs `N` with `(1-p)^N <= eps`: `ceil(ln eps / ln(1-p))`.
///
/// `ln(1-p)` comes from the log-space `p` without forming `1 - p`, so
/// `p = 10^-12` gives about `4.6 * 10^12` runs for `eps = 0.01` (not
/// infinity, which `(1.0 - 1e-12).ln()` would nearly give, nor a value off
/// by `10^-4` relative). A count above `u64::MAX` is
/// [`RunCount::TooMany`]; `p = 0` is [`StatsError::ZeroProbability`];
/// `p = 1` needs one run.
pub fn runs_needed(per_run: Probability, miss: f64) -> Result<RunCount, StatsError> {
    if !(miss > 0.0 && miss < 1.0) {
        return Err(StatsError::InvalidMissProbability(miss));
    }
    if per_run.is_zero() {
        return Err(StatsError::ZeroProbability);
    }
    let ln_p = per_run.ln();
    if ln_p == 0.0 {
        return Ok(RunCount::Finite(1));
    }
    // N = target / rate with target = -ln eps > 0 and rate = -ln(1-p) > 0.
    let target = -miss.ln();
    if ln_p < -700.0 {
        // p < 1e-304: rate = p (1 + p/2 + ...) equals p to double precision,
        // but p itself is (near-)subnormal as an f64. Stay in logs; the count
        // is at least 1e-16 * 1e304 runs anyway.
        let ln_runs = target.ln() - ln_p;
        return Ok(RunCount::TooMany { ln_runs });
    }
    let rate = -per_run.ln_complement();
    let runs = target / rate;
    Ok(RunCount::from_real(runs, target.ln() - rate.ln()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_probability_by_hand() {
        // p = 1/2, eps = 0.01: ln 0.01 / ln 0.5 = 4.60517 / 0.693147 = 6.64386 -> 7 runs.
        // Check: 0.5^7 = 0.0078 <= 0.01 < 0.5^6 = 0.0156.
        let half = Probability::new(0.5).unwrap();
        assert_eq!(runs_needed(half, 0.01), Ok(RunCount::Finite(7)));
        assert!((confidence_after(half, 7).value() - (1.0 - 0.0078125)).abs() < 1e-15);
        assert!((miss_after(half, 6).value() - 0.015625).abs() < 1e-15);
    }

    #[test]
    fn one_in_a_trillion() {
        // p = 1e-12, eps = 0.01:
        //   -ln(1 - 1e-12) = 1e-12 + 5e-25 = 1.0000000000005e-12,
        //   N = 4.605170185988092 / 1.0000000000005e-12 = 4_605_170_185_985.789 -> 4_605_170_185_986.
        let p = Probability::new(1e-12).unwrap();
        assert_eq!(
            runs_needed(p, 0.01),
            Ok(RunCount::Finite(4_605_170_185_986))
        );
        // The count is the smallest that works: N misses with <= 0.01, N - 1 with more.
        let ln_eps = 0.01f64.ln();
        assert!(miss_after(p, 4_605_170_185_986).ln() <= ln_eps);
        assert!(miss_after(p, 4_605_170_185_985).ln() > ln_eps);
        // One run: confidence exactly p, not 0 (1 - (1 - 1e-12) would give 1.0000889e-12).
        assert!((confidence_after(p, 1).value() / 1e-12 - 1.0).abs() < 1e-12);
        // 10^12 runs: 1 - exp(-1.0000000000005) = 0.6321205588287416
        let confidence = confidence_after(p, 1_000_000_000_000).value();
        assert!((confidence - 0.632_120_558_828_741_6).abs() < 1e-12);
    }

    #[test]
    fn a_pct_bound_with_a_billion_steps_needs_more_than_u64_runs() {
        // p = 1/(4 * 10^36) (PCT, n = 4, k = 1e9, d = 5), eps = 0.01:
        // N = ln 100 * 4e36 = 1.842e37 > u64::MAX = 1.8e19;
        // ln N = ln 4.605170 + ln 4 + 36 ln 10 = 1.527180 + 84.279358 = 85.806537.
        let p = crate::bound::RunBound::pct(4, 1_000_000_000, 5)
            .unwrap()
            .probability();
        match runs_needed(p, 0.01) {
            Ok(RunCount::TooMany { ln_runs }) => {
                assert!((ln_runs - 85.806_537).abs() < 1e-5, "{ln_runs}")
            }
            other => panic!("expected TooMany, got {other:?}"),
        }
    }

    #[test]
    fn probabilities_below_f64_range_still_give_a_count() {
        // ln p = -1e6 (p = e^-1000000, 0 as an f64): ln N = ln ln 100 + 1e6 = 1000001.52718.
        let p = Probability::from_ln(-1e6).unwrap();
        match runs_needed(p, 0.01) {
            Ok(RunCount::TooMany { ln_runs }) => {
                assert!((ln_runs - 1_000_001.527_18).abs() < 1e-4, "{ln_runs}")
            }
            other => panic!("expected TooMany, got {other:?}"),
        }
        // ln p = -60 (p = 8.76e-27): N = 4.60517 e^60 = 5.26e26; ln N = 61.5271796.
        let p = Probability::from_ln(-60.0).unwrap();
        match runs_needed(p, 0.01) {
            Ok(RunCount::TooMany { ln_runs }) => {
                assert!((ln_runs - 61.527_179_6).abs() < 1e-6, "{ln_runs}")
            }
            other => panic!("expected TooMany, got {other:?}"),
        }
        // The boundary: p = 1e-18, eps = 0.01 -> N = 4.6e18 still fits a u64 (1.8e19).
        let p = Probability::new(1e-18).unwrap();
        let runs = runs_needed(p, 0.01).unwrap().finite().unwrap();
        assert!((runs as f64 / 4.605_170_185_988_092e18 - 1.0).abs() < 1e-12);
    }

    #[test]
    fn edge_probabilities_and_bad_targets() {
        assert_eq!(runs_needed(Probability::ONE, 0.01), Ok(RunCount::Finite(1)));
        assert_eq!(
            runs_needed(Probability::ZERO, 0.01),
            Err(StatsError::ZeroProbability)
        );
        let p = Probability::new(0.1).unwrap();
        assert_eq!(
            runs_needed(p, 0.0),
            Err(StatsError::InvalidMissProbability(0.0))
        );
        assert!(runs_needed(p, 1.0).is_err());
        assert!(runs_needed(p, f64::NAN).is_err());
        // A miss probability close to 1 still needs one run.
        assert_eq!(runs_needed(p, 0.999_999), Ok(RunCount::Finite(1)));
        assert_eq!(confidence_after(p, 0), Probability::ZERO);
        assert_eq!(confidence_after(Probability::ONE, 3), Probability::ONE);
    }
}
