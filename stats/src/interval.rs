//! Two-sided confidence intervals, and the Beta quantiles that the exact
//! (Clopper–Pearson style) intervals of this crate are made of.

use crate::error::StatsError;
use statrs::distribution::{Beta, ContinuousCDF};

/// A two-sided confidence interval `[lower, upper]` for a real quantity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// The lower end.
    pub lower: f64,
    /// The upper end; never below `lower`.
    pub upper: f64,
}

impl Interval {
    /// Whether `x` lies in the closed interval.
    pub fn contains(&self, x: f64) -> bool {
        self.lower <= x && x <= self.upper
    }
}

/// Checks that a confidence or significance level lies in `(0, 1)`.
pub(crate) fn check_level(level: f64) -> Result<f64, StatsError> {
    if level > 0.0 && level < 1.0 {
        Ok(level)
    } else {
        Err(StatsError::InvalidLevel(level))
    }
}

/// The `probability`-quantile of the Beta(`a`, `b`) distribution (statrs).
pub(crate) fn beta_quantile(a: f64, b: f64, probability: f64) -> f64 {
    Beta::new(a, b)
        .expect("invariant: Beta shape parameters are positive and finite")
        .inverse_cdf(probability)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn beta_quantiles_match_closed_forms() {
        // Beta(1, b) has cdf 1 - (1-x)^b: its 0.5-quantile for b = 2 is 1 - sqrt(0.5) = 0.2928932.
        assert!((beta_quantile(1.0, 2.0, 0.5) - 0.292_893_218_8).abs() < 1e-9);
        // Beta(a, 1) has cdf x^a: the 0.025-quantile for a = 3 is 0.025^(1/3) = 0.2924018.
        assert!((beta_quantile(3.0, 1.0, 0.025) - 0.292_401_773_8).abs() < 1e-9);
        assert!(Interval {
            lower: 0.1,
            upper: 0.2
        }
        .contains(0.2));
        assert_eq!(check_level(1.0), Err(StatsError::InvalidLevel(1.0)));
        assert!(check_level(f64::NAN).is_err());
    }
}
