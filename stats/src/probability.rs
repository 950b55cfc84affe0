//! Probabilities held as natural logarithms, so per-run bounds far below
//! `f64`'s range (paper §3, Theorem 3.1) neither underflow nor lose precision.

use crate::error::StatsError;
use std::f64::consts::{LN_10, LN_2};

/// A probability `p` in `[0, 1]`, held as `ln p`.
///
/// The per-run guarantees of PCT and PCTVB (paper §3, Theorem 3.1) are
/// reciprocals of large integers, `1 / (n k^(d-1))`: for `k = 10^9` and
/// `d = 5` that is below `10^-36`, and the coverage questions built on it
/// need `1 - p` and `(1 - p)^N` without rounding `p` away. Holding `ln p`
/// keeps such values to a relative `10^-15` at any magnitude; only
/// [`Probability::value`] converts to a plain `f64`, and only that
/// conversion may underflow to 0 (below about `10^-308`).
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Probability {
    /// `ln p`: in `[-inf, 0]`, never NaN; `-inf` is probability 0.
    ln: f64,
}

impl Probability {
    /// Probability 0 (`ln p = -inf`).
    pub const ZERO: Probability = Probability {
        ln: f64::NEG_INFINITY,
    };
    /// Probability 1 (`ln p = 0`).
    pub const ONE: Probability = Probability { ln: 0.0 };

    /// The probability `p`; an error unless `0 <= p <= 1`.
    pub fn new(p: f64) -> Result<Self, StatsError> {
        if (0.0..=1.0).contains(&p) {
            Ok(Probability { ln: p.ln() })
        } else {
            Err(StatsError::InvalidProbability(p))
        }
    }

    /// The probability whose natural logarithm is `ln`; an error unless
    /// `ln <= 0` (`-inf` is probability 0).
    pub fn from_ln(ln: f64) -> Result<Self, StatsError> {
        // NaN fails the comparison and is rejected with the positive values.
        if ln <= 0.0 {
            Ok(Probability { ln })
        } else {
            Err(StatsError::InvalidLogProbability(ln))
        }
    }

    /// `ln p`, in `[-inf, 0]`.
    pub fn ln(self) -> f64 {
        self.ln
    }

    /// `log10 p`, handy for reporting bounds such as `10^-36.6`.
    pub fn log10(self) -> f64 {
        self.ln / LN_10
    }

    /// `p` as a plain `f64`. This conversion, and only this one, underflows
    /// to 0 when `p` is below about `10^-308`.
    pub fn value(self) -> f64 {
        self.ln.exp()
    }

    /// Whether this is probability 0.
    pub fn is_zero(self) -> bool {
        self.ln == f64::NEG_INFINITY
    }

    /// `ln(1 - p)`, accurate for `p` near 0 as well as near 1 (Mächler,
    /// "Accurately computing log(1 - exp(-|a|))", 2012): the miss
    /// probability of one run in log space, used by the coverage formulas.
    pub fn ln_complement(self) -> f64 {
        ln_one_minus_exp(self.ln)
    }

    /// `1 - p`, the probability of the complementary event.
    pub fn complement(self) -> Probability {
        Probability {
            ln: self.ln_complement(),
        }
    }

    /// `p * q`: both of two independent events, e.g. the right variables are
    /// chosen (`1/C(Q,v)`) and then the right schedule (Theorem 3.1).
    pub fn and(self, other: Probability) -> Probability {
        Probability {
            ln: self.ln + other.ln,
        }
    }

    /// `p^times`: an event that must happen in each of `times` independent
    /// trials; `p^0 = 1` even for `p = 0`.
    pub fn repeated(self, times: u64) -> Probability {
        if times == 0 {
            return Probability::ONE;
        }
        Probability {
            ln: self.ln * times as f64,
        }
    }
}

/// `ln(1 - e^x)` for `x <= 0`, by Mächler's rule: `ln(-expm1(x))` near 0,
/// `ln_1p(-exp(x))` further out, each where it does not cancel.
pub(crate) fn ln_one_minus_exp(x: f64) -> f64 {
    if x == 0.0 {
        f64::NEG_INFINITY
    } else if x > -LN_2 {
        (-x.exp_m1()).ln()
    } else {
        (-x.exp()).ln_1p()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_rejects_values_outside_the_unit_interval() {
        assert_eq!(
            Probability::new(1.5),
            Err(StatsError::InvalidProbability(1.5))
        );
        assert!(Probability::new(-0.1).is_err());
        assert!(Probability::new(f64::NAN).is_err());
        assert!(Probability::from_ln(0.1).is_err());
        assert!(Probability::from_ln(f64::NAN).is_err());
        assert!(Probability::new(0.0).is_ok_and(Probability::is_zero));
        assert_eq!(Probability::new(1.0), Ok(Probability::ONE));
    }

    #[test]
    fn complement_keeps_tiny_probabilities() {
        // 1 - (1 - 1e-12) computed naively in f64 gives 1.000088900582341e-12;
        // through ln_complement it must come back to 1e-12 within 1e-15 relative.
        let p = Probability::new(1e-12).unwrap();
        let q = p.complement();
        // ln(1 - 1e-12) = -1e-12 - 5e-25 - ...; the round trip through ln p
        // costs one ulp (1e-27) of the 1e-12.
        assert!((q.ln() + 1e-12 + 5e-25).abs() < 1e-26);
        let back = q.complement();
        assert!((back.value() / 1e-12 - 1.0).abs() < 1e-12);
    }

    #[test]
    fn complement_near_one_and_at_the_ends() {
        // p = 1 - 1e-20 is 1.0 in f64, so build it from ln p = ln(1 - 1e-20) ~ -1e-20:
        // 1 - p = 1e-20 must survive.
        let p = Probability::from_ln(-1e-20).unwrap();
        assert!((p.complement().value() / 1e-20 - 1.0).abs() < 1e-12);
        assert_eq!(Probability::ONE.complement(), Probability::ZERO);
        assert_eq!(Probability::ZERO.complement(), Probability::ONE);
        // 1 - 0.25 = 0.75 exactly representable; both branches of the rule.
        let quarter = Probability::new(0.25).unwrap();
        assert!((quarter.complement().value() - 0.75).abs() < 1e-15);
        let three_quarters = Probability::new(0.75).unwrap();
        assert!((three_quarters.complement().value() - 0.25).abs() < 1e-15);
    }

    #[test]
    fn products_below_f64_range_stay_exact_in_log_space() {
        // (1e-200)^2 = 1e-400 underflows as an f64 but not as a log:
        // ln = 2 * ln(1e-200) = -400 ln 10 = -921.034037...
        let p = Probability::new(1e-200).unwrap();
        let square = p.and(p);
        assert!((square.ln() + 400.0 * LN_10).abs() < 1e-9);
        assert!((square.log10() + 400.0).abs() < 1e-9);
        assert_eq!(square.value(), 0.0);
        assert!(!square.is_zero());
        // repeated(3) of 0.5 is 0.125; repeated(0) of zero is one.
        let half = Probability::new(0.5).unwrap();
        assert!((half.repeated(3).value() - 0.125).abs() < 1e-16);
        assert_eq!(Probability::ZERO.repeated(0), Probability::ONE);
        assert_eq!(Probability::ZERO.repeated(2), Probability::ZERO);
    }
}
