//! The observed rate at which runs find a bug, with an exact
//! (Clopper–Pearson) confidence interval: the empirical side of the paper's
//! per-run bounds (§3, Theorem 3.1; §5, executions per bug).

use crate::error::StatsError;
use crate::interval::{beta_quantile, check_level, Interval};

/// `hits` runs out of `runs` found the bug.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HitRate {
    /// Runs that found the bug; at most `runs`.
    hits: u64,
    /// Runs in all; at least 1.
    runs: u64,
}

impl HitRate {
    /// `hits` of `runs`; an error if `runs = 0` or `hits > runs`.
    pub fn new(hits: u64, runs: u64) -> Result<Self, StatsError> {
        if runs == 0 {
            return Err(StatsError::NoRuns);
        }
        if hits > runs {
            return Err(StatsError::HitsExceedRuns { hits, runs });
        }
        Ok(HitRate { hits, runs })
    }

    /// Runs that found the bug.
    pub fn hits(&self) -> u64 {
        self.hits
    }

    /// Runs in all.
    pub fn runs(&self) -> u64 {
        self.runs
    }

    /// The point estimate `hits / runs`.
    pub fn estimate(&self) -> f64 {
        self.hits as f64 / self.runs as f64
    }

    /// The two-sided Clopper–Pearson interval (Clopper & Pearson,
    /// Biometrika 1934) for the per-run probability at the given
    /// `confidence` (e.g. 0.95): with `alpha = 1 - confidence`, `x` hits
    /// and `n` runs, `lower = Beta(x, n-x+1).quantile(alpha/2)` and
    /// `upper = Beta(x+1, n-x).quantile(1 - alpha/2)`.
    ///
    /// It is exact in the sense of never covering less than `confidence`.
    /// The ends are closed forms at `x = 0` (lower 0, upper
    /// `1 - (alpha/2)^(1/n)`) and `x = n` (lower `(alpha/2)^(1/n)`, upper 1),
    /// computed with `exp_m1` so that huge `n` keeps its precision.
    pub fn clopper_pearson(&self, confidence: f64) -> Result<Interval, StatsError> {
        let alpha = 1.0 - check_level(confidence)?;
        let (x, n) = (self.hits as f64, self.runs as f64);
        let ln_half_alpha = (alpha / 2.0).ln();
        let lower = if self.hits == 0 {
            0.0
        } else if self.hits == self.runs {
            (ln_half_alpha / n).exp()
        } else {
            beta_quantile(x, n - x + 1.0, alpha / 2.0)
        };
        let upper = if self.hits == self.runs {
            1.0
        } else if self.hits == 0 {
            -(ln_half_alpha / n).exp_m1()
        } else {
            beta_quantile(x + 1.0, n - x, 1.0 - alpha / 2.0)
        };
        Ok(Interval { lower, upper })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64Mcg;

    fn interval(hits: u64, runs: u64, confidence: f64) -> Interval {
        HitRate::new(hits, runs)
            .unwrap()
            .clopper_pearson(confidence)
            .unwrap()
    }

    #[test]
    fn zero_of_ten() {
        // Published: 0/10 at 95% gives [0, 0.3085].
        // By hand: 1 - 0.025^(1/10) = 1 - e^(-0.3688879) = 1 - 0.6915029 = 0.3084971.
        let ci = interval(0, 10, 0.95);
        assert_eq!(ci.lower, 0.0);
        assert!((ci.upper - 0.308_497_1).abs() < 1e-7);
    }

    #[test]
    fn five_of_ten() {
        // Published: 5/10 at 95% gives [0.1871, 0.8129] (symmetric about 1/2).
        let ci = interval(5, 10, 0.95);
        assert!((ci.lower - 0.1871).abs() < 5e-5, "{ci:?}");
        assert!((ci.upper - 0.8129).abs() < 5e-5, "{ci:?}");
        assert!((ci.lower + ci.upper - 1.0).abs() < 1e-9);
    }

    #[test]
    fn one_of_ten_and_all_of_ten() {
        // Published: 1/10 at 95% gives [0.0025, 0.4450]; the lower end is
        // 1 - 0.975^(1/10) = 0.0025286 (Beta(1, 10) has cdf 1 - (1-x)^10).
        let ci = interval(1, 10, 0.95);
        assert!((ci.lower - 0.002_528_6).abs() < 1e-7, "{ci:?}");
        assert!((ci.upper - 0.4450).abs() < 5e-5, "{ci:?}");
        // 10/10 mirrors 0/10: lower = 0.025^(1/10) = 0.6915029, upper = 1.
        let ci = interval(10, 10, 0.95);
        assert!((ci.lower - 0.691_502_9).abs() < 1e-7);
        assert_eq!(ci.upper, 1.0);
    }

    #[test]
    fn zero_hits_in_a_trillion_runs() {
        // Upper end 1 - 0.025^(1e-12) = -expm1(ln(0.025) * 1e-12) = 3.688879454107e-12;
        // the naive 1.0 - 0.025f64.powf(1e-12) gives 3.688827e-12, off by 1.4e-5 relative.
        let ci = interval(0, 1_000_000_000_000, 0.95);
        assert!((ci.upper / 3.688_879_454_107_132e-12 - 1.0).abs() < 1e-12);
    }

    #[test]
    fn rejects_bad_counts_and_levels() {
        assert_eq!(HitRate::new(1, 0), Err(StatsError::NoRuns));
        assert_eq!(
            HitRate::new(3, 2),
            Err(StatsError::HitsExceedRuns { hits: 3, runs: 2 })
        );
        let rate = HitRate::new(1, 2).unwrap();
        assert_eq!(rate.estimate(), 0.5);
        assert_eq!(
            rate.clopper_pearson(0.0),
            Err(StatsError::InvalidLevel(0.0))
        );
    }

    #[test]
    fn covers_the_true_rate_at_least_as_often_as_promised() {
        // 400 seeded experiments of 50 runs at p = 0.2. A 95% Clopper-Pearson
        // interval is conservative: summing Binomial(50, 0.2) over the hit counts
        // whose interval contains 0.2 gives coverage 0.9671. The cover count is
        // ~Binomial(400, 0.9671): mean 386.8, sd 3.6. Asserting 366..=399 leaves
        // 5.8 sd below and fails above only if all 400 cover (0.9671^400 = 1.5e-6).
        let mut rng = Pcg64Mcg::seed_from_u64(5);
        let covered = (0..400)
            .filter(|_| {
                let hits = (0..50).filter(|_| rng.random::<f64>() < 0.2).count() as u64;
                interval(hits, 50, 0.95).contains(0.2)
            })
            .count();
        assert!((366..=399).contains(&covered), "covered {covered} of 400");
    }
}
