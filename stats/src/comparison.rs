//! Whether two strategies' hit rates differ significantly: Fisher's exact
//! test on the 2x2 table of hits and misses (the comparison behind the
//! paper's PCT vs PCTVB and bounded vs unbounded results, §3 Figure 6 and
//! §5 Tables 3 and 4).

use crate::error::StatsError;
use crate::hit_rate::HitRate;
use crate::interval::check_level;

/// The outcome of comparing two hit rates at a significance level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The first strategy's rate is significantly higher.
    FirstHigher,
    /// The second strategy's rate is significantly higher.
    SecondHigher,
    /// No significant difference at this level.
    NoSignificantDifference,
}

/// The result of [`compare`]: the two-sided p-value and the verdict.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Comparison {
    /// Two-sided p-value of Fisher's exact test.
    pub p_value: f64,
    /// [`Verdict::NoSignificantDifference`] unless `p_value <= level`.
    pub verdict: Verdict,
}

/// Compares two strategies' hit rates with Fisher's exact test (Fisher
/// 1922; two-sided by summing the probabilities of all tables no more
/// likely than the observed one, with R's `fisher.test` tolerance of a
/// relative `10^-7`).
///
/// Why Fisher and not a two-proportion z-test: bug hits are rare, often 0
/// for one strategy, and the z-test's normal approximation needs about 5
/// expected hits and 5 expected misses in each cell, which such tables
/// miss. Fisher's test conditions on the margins and is exact at any
/// sample size; it is conservative (its true size is at most `level`).
///
/// Computed in log space relative to the table at the mode of the
/// hypergeometric law, walking outward with the ratio of consecutive
/// probabilities and stopping once the rest is provably below `e^-40` of
/// what has been summed (the law is log-concave, so the remaining terms
/// shrink at least geometrically). The cost is linear in the distance
/// walked, at most the total hits. A p-value below about `10^-308`
/// underflows to 0, which no level can mistake for insignificance.
pub fn compare(first: HitRate, second: HitRate, level: f64) -> Result<Comparison, StatsError> {
    let level = check_level(level)?;
    let p_value = fisher_two_sided(first, second);
    let verdict = if p_value > level {
        Verdict::NoSignificantDifference
    } else if u128::from(first.hits()) * u128::from(second.runs())
        > u128::from(second.hits()) * u128::from(first.runs())
    {
        Verdict::FirstHigher
    } else {
        Verdict::SecondHigher
    };
    Ok(Comparison { p_value, verdict })
}

/// The two-sided p-value of Fisher's exact test. Given the margins, the
/// first strategy's hits `X` are hypergeometric: `N = n1 + n2` runs of
/// which `K` hits, `n1` drawn.
fn fisher_two_sided(first: HitRate, second: HitRate) -> f64 {
    let n1 = u128::from(first.runs());
    let n2 = u128::from(second.runs());
    let hits = u128::from(first.hits()) + u128::from(second.hits());
    let observed = u128::from(first.hits());
    let low = hits.saturating_sub(n2);
    let high = hits.min(n1);
    if low == high {
        return 1.0;
    }
    // ln f(x+1)/f(x) = ln[(K-x)(n1-x)] - ln[(x+1)(n2-K+x+1)]; every factor is
    // at least 1 for low <= x < high.
    let ln = |v: u128| (v as f64).ln();
    let ln_ratio_up = |x: u128| ln(hits - x) + ln(n1 - x) - ln(x + 1) - ln(n2 + x + 1 - hits);
    // The mode, floor((n1+1)(K+1)/(N+2)), in f64 (u128 products could
    // overflow); being off by one only adds a step that goes uphill.
    let mode_estimate =
        ((n1 as f64 + 1.0) * (hits as f64 + 1.0) / ((n1 + n2) as f64 + 2.0)).floor() as u128;
    let start = mode_estimate.clamp(low, high);

    // ln f(observed) / f(start).
    let ln_observed: f64 = if observed >= start {
        (start..observed).map(ln_ratio_up).sum()
    } else {
        (observed..start).map(|x| -ln_ratio_up(x)).sum()
    };
    let threshold = ln_observed + 1e-7;
    let negligible = ln_observed.min(0.0) - 40.0;

    let mut total = 1.0;
    let mut extreme = if 0.0 <= threshold { 1.0 } else { 0.0 };
    // Upward from the start, then downward.
    let mut walk = |steps: &mut dyn Iterator<Item = f64>| {
        let mut ln_term = 0.0;
        for ln_ratio in steps {
            ln_term += ln_ratio;
            let term = ln_term.exp();
            total += term;
            if ln_term <= threshold {
                extreme += term;
            }
            // Log-concavity: the ratios ahead are at most this one, r, so the
            // remaining terms sum to at most term * r / (1 - r).
            if ln_ratio < 0.0 {
                let ln_rest = ln_term + ln_ratio - (-ln_ratio.exp_m1()).ln();
                if ln_rest < negligible {
                    break;
                }
            }
        }
    };
    walk(&mut (start..high).map(ln_ratio_up));
    walk(&mut (low..start).rev().map(|x| -ln_ratio_up(x)));
    (extreme / total).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rate(hits: u64, runs: u64) -> HitRate {
        HitRate::new(hits, runs).unwrap()
    }

    #[test]
    fn lady_tasting_tea() {
        // Table [[3, 1], [1, 3]]: N = 8, K = 4, n1 = 4; f(x) = C(4,x) C(4,4-x) / 70 =
        // (1, 16, 36, 16, 1) / 70. Observed x = 3 (16/70); the tables no more likely
        // are x = 0, 1, 3, 4: p = 34/70 = 0.4857143 (R: fisher.test gives 0.4857).
        let result = compare(rate(3, 4), rate(1, 4), 0.05).unwrap();
        assert!((result.p_value - 34.0 / 70.0).abs() < 1e-12);
        assert_eq!(result.verdict, Verdict::NoSignificantDifference);
    }

    #[test]
    fn dieting_example() {
        // Wikipedia's example: 1 of 12 men vs 9 of 12 women. N = 24, K = 10, n1 = 12;
        // f(x) = C(10,x) C(14,12-x) / C(24,12) with C(24,12) = 2_704_156.
        // f(1) = f(9) = 10 * 364 = 3640, f(0) = f(10) = 91, f(8) = 45 * 1001 > 3640:
        // p = 2 (3640 + 91) / 2_704_156 = 0.0027594.
        let result = compare(rate(1, 12), rate(9, 12), 0.01).unwrap();
        assert!((result.p_value - 7462.0 / 2_704_156.0).abs() < 1e-12);
        assert_eq!(result.verdict, Verdict::SecondHigher);
        // The test is symmetric in the two strategies.
        let swapped = compare(rate(9, 12), rate(1, 12), 0.01).unwrap();
        assert!((swapped.p_value - result.p_value).abs() < 1e-15);
        assert_eq!(swapped.verdict, Verdict::FirstHigher);
    }

    #[test]
    fn zero_of_ten_against_five_of_ten() {
        // N = 20, K = 5, n1 = 10: f(0) = f(5) = C(10,5) / C(20,5) = 252 / 15504;
        // f(1) = 10 * 210 / 15504 is larger, so p = 504 / 15504 = 0.0325077:
        // significant at 5%, not at 1%.
        let at_five = compare(rate(0, 10), rate(5, 10), 0.05).unwrap();
        assert!((at_five.p_value - 504.0 / 15504.0).abs() < 1e-12);
        assert_eq!(at_five.verdict, Verdict::SecondHigher);
        let at_one = compare(rate(0, 10), rate(5, 10), 0.01).unwrap();
        assert_eq!(at_one.verdict, Verdict::NoSignificantDifference);
    }

    #[test]
    fn rare_bugs_over_a_million_runs_each() {
        // 0 vs 20 hits in 10^6 runs each: K = 20, n1 = n2, so the law is symmetric
        // and only x = 0 and x = 20 are as unlikely as the observation:
        // p = 2 prod_{i<20} (10^6 - i) / (2*10^6 - i) ~ 2 * 2^-20 * e^(-190/2e6)
        // = 1.907167e-6.
        let exact: f64 = 2.0
            * (0..20)
                .map(|i| (1e6 - f64::from(i)) / (2e6 - f64::from(i)))
                .product::<f64>();
        let result = compare(rate(0, 1_000_000), rate(20, 1_000_000), 0.001).unwrap();
        assert!((result.p_value / exact - 1.0).abs() < 1e-9, "{result:?}");
        assert!((result.p_value - 1.907_167e-6).abs() < 1e-11);
        assert_eq!(result.verdict, Verdict::SecondHigher);
    }

    #[test]
    fn equal_rates_and_degenerate_tables() {
        let same = compare(rate(5, 10), rate(5, 10), 0.05).unwrap();
        assert!((same.p_value - 1.0).abs() < 1e-12);
        assert_eq!(same.verdict, Verdict::NoSignificantDifference);
        // No hits at all: a single possible table, p = 1.
        let none = compare(rate(0, 100), rate(0, 50), 0.05).unwrap();
        assert_eq!(none.p_value, 1.0);
        assert_eq!(
            compare(rate(0, 1), rate(0, 1), 0.0),
            Err(StatsError::InvalidLevel(0.0))
        );
    }

    #[test]
    fn large_lopsided_tables_stay_fast_and_tiny() {
        // 10 vs 10_000 hits in 10^5 runs each: the p-value is astronomically small
        // (below 1e-300 it may round to 0 in f64) and the walk covers about 5000
        // steps from the mode. Only its order is pinned: p < 1e-100.
        let result = compare(rate(10, 100_000), rate(10_000, 100_000), 0.01).unwrap();
        assert!(result.p_value < 1e-100, "{result:?}");
        assert_eq!(result.verdict, Verdict::SecondHigher);
    }
}
