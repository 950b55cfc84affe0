//! Run counts after which thread bounding has tried every relative order of
//! every `t`-thread bug with probability `1 - eps` (paper §4, Lemma 4.1), in
//! the three forms in circulation.

use crate::binomial::{ln_binomial, ln_factorial};
use crate::coverage::RunCount;
use crate::error::StatsError;
use crate::probability::Probability;

/// Which form of Lemma 4.1's count to use.
///
/// Write `n' = n + c` (thread fragments: a preempted thread counts as two)
/// and `t' = t + c` (paper §4, after Lemma 4.1: covering all `t'`-orders of
/// all `t'`-subsets of the `n'` fragments covers every `t`-thread bug at
/// context bound `c`). All three forms are sufficient run counts, largest
/// first: `Stated >= Summary >= UnionBound` whenever `t' >= 2`.
///
/// Discrepancies between docs/ALGORITHMS.md and the paper:
/// - The Lemma's `log(nt)` is `ln(n * t)`, not `ln C(n, t)`: the proof
///   reaches `M >= t ln(nt) + ln(1/eps)` by approximating `t!` by `t^t` and
///   `C(n,t)` by `n^t`, then multiplies by `t!` and rounds `t! * t` up to
///   `(t+1)!`, which also inflates the `ln(1/eps)` term by `t + 1`.
/// - docs/ALGORITHMS.md's `(t+c+1)! (ln(n+c) + ln(1/eps))` drops the `ln t` of
///   the stated form. It is still sufficient, and follows from the proof
///   more directly: `t! C(n,t) = n!/(n-t)! <= n^t`, so the `t^t`
///   approximation was never needed.
/// - The paper's closing summary, `(t+c+1)! log(n+c)`, has no `eps` term.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LemmaForm {
    /// docs/ALGORITHMS.md, "Thread bounding": `(t'+1)! (ln n' + ln(1/eps))`.
    Summary,
    /// Lemma 4.1 as stated, `(t+1)! (log(nt) + log(1/eps))` with `log`
    /// natural and `nt = n * t`, applied to `n'` and `t'`.
    Stated,
    /// The proof's union bound before any approximation: the smallest `P`
    /// with `t'! C(n',t') (1 - 1/t'!)^P <= eps`.
    UnionBound,
}

/// How many random-permutation runs cover every `t`-thread bug at context
/// bound `c` among `n` threads with probability at least `1 - eps`, by
/// Lemma 4.1 in the chosen [`LemmaForm`] (paper §4).
///
/// At `c = 0, t = 2` two fixed runs (a permutation and its reverse) already
/// suffice (paper §4); the lemma is about random permutations. A thread
/// bound below 2 or above `n` is an error (a `t`-thread bug needs `t`
/// threads, and `t >= 2` by the paper's definition).
pub fn runs_for_thread_coverage(
    form: LemmaForm,
    n_threads: u64,
    context_bound: u32,
    thread_bound: u32,
    miss: f64,
) -> Result<RunCount, StatsError> {
    if thread_bound < 2 {
        return Err(StatsError::ThreadBoundTooSmall(thread_bound));
    }
    if n_threads < u64::from(thread_bound) {
        return Err(StatsError::TooFewThreads {
            n_threads,
            thread_bound,
        });
    }
    if !(miss > 0.0 && miss < 1.0) {
        return Err(StatsError::InvalidMissProbability(miss));
    }
    // No program has 2^64 threads; saturating keeps the count meaningful if one did.
    let fragments = n_threads.saturating_add(u64::from(context_bound));
    let subset_size = u64::from(thread_bound) + u64::from(context_bound);
    let ln_inverse_miss = -miss.ln();
    match form {
        LemmaForm::Summary => Ok(factorial_times(
            subset_size + 1,
            (fragments as f64).ln() + ln_inverse_miss,
        )),
        LemmaForm::Stated => Ok(factorial_times(
            subset_size + 1,
            (fragments as f64).ln() + (subset_size as f64).ln() + ln_inverse_miss,
        )),
        LemmaForm::UnionBound => {
            // ln(t'! C(n',t') / eps) / -ln(1 - 1/t'!)
            let ln_orders = ln_factorial(subset_size);
            let target = ln_orders + ln_binomial(fragments, subset_size) + ln_inverse_miss;
            let rate = -(-(-ln_orders).exp()).ln_1p();
            Ok(RunCount::from_real(target / rate, target.ln() - rate.ln()))
        }
    }
}

/// The probability that `runs` random permutations of the `n + c`
/// fragments miss some relative order of some `t + c` of them, by the
/// proof's union bound: at most `t'! C(n',t') (1 - 1/t'!)^runs`, capped at
/// 1 (paper §4, Lemma 4.1 before its approximations). What a sample of a
/// given size guarantees, when it was not sized for a target.
pub fn miss_after_permutations(
    n_threads: u64,
    context_bound: u32,
    thread_bound: u32,
    runs: u64,
) -> Probability {
    let fragments = n_threads.saturating_add(u64::from(context_bound));
    let subset_size = (u64::from(thread_bound) + u64::from(context_bound)).min(fragments);
    let ln_orders = ln_factorial(subset_size);
    let ln_each = (-(-ln_orders).exp()).ln_1p();
    let ln_miss = ln_orders + ln_binomial(fragments, subset_size) + runs as f64 * ln_each;
    Probability::from_ln(ln_miss.min(0.0)).unwrap_or(Probability::ONE)
}

/// `ceil(m! * x)` for `x > 0`, as a [`RunCount`].
fn factorial_times(m: u64, x: f64) -> RunCount {
    // The product is exact in f64 up to 22!; beyond, rounding is far below
    // the ceiling's granularity relative to the count, and past 170! it is
    // infinite, which `from_real` reports through the logarithm.
    let factorial: f64 = (1..=m).map(|i| i as f64).product();
    RunCount::from_real(factorial * x, ln_factorial(m) + x.ln())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(form: LemmaForm, n: u64, c: u32, t: u32) -> u64 {
        runs_for_thread_coverage(form, n, c, t, 0.01)
            .unwrap()
            .finite()
            .unwrap()
    }

    #[test]
    fn summary_form_for_six_hundred_threads() {
        // ln 600 = 6.396930, ln 100 = 4.605170, sum 11.002100.
        // t = 3: 4! * 11.002100 = 264.050 -> 265
        // t = 4: 5! * 11.002100 = 1320.252 -> 1321
        // t = 5: 6! * 11.002100 = 7921.512 -> 7922
        assert_eq!(runs(LemmaForm::Summary, 600, 0, 3), 265);
        assert_eq!(runs(LemmaForm::Summary, 600, 0, 4), 1321);
        assert_eq!(runs(LemmaForm::Summary, 600, 0, 5), 7922);
    }

    #[test]
    fn stated_form_for_six_hundred_threads() {
        // t = 3: 24 * (ln 1800 + ln 100) = 24 * (7.495542 + 4.605170) = 290.417 -> 291
        // t = 4: 120 * (ln 2400 + ln 100) = 120 * (7.783224 + 4.605170) = 1486.607 -> 1487
        // t = 5: 720 * (ln 3000 + ln 100) = 720 * (8.006368 + 4.605170) = 9080.307 -> 9081
        assert_eq!(runs(LemmaForm::Stated, 600, 0, 3), 291);
        assert_eq!(runs(LemmaForm::Stated, 600, 0, 4), 1487);
        assert_eq!(runs(LemmaForm::Stated, 600, 0, 5), 9081);
    }

    #[test]
    fn the_miss_of_a_sample_inverts_its_count() {
        // 131 permutations of 600 threads were sized for eps = 0.01 at t = 3.
        let miss = miss_after_permutations(600, 0, 3, 131);
        assert!(
            miss.value() <= 0.01 && miss.value() > 0.009,
            "{}",
            miss.value()
        );
        // Far too few for every 11-thread order: no guarantee at all.
        assert_eq!(miss_after_permutations(11, 0, 11, 100_000).value(), 1.0);
        // Plenty for pairs among 11 threads: C(11,2) 2! 2^-60 < 1e-16.
        assert!(miss_after_permutations(11, 0, 2, 60).value() < 1e-16);
    }

    #[test]
    fn union_bound_for_six_hundred_threads() {
        // t = 3: 3! C(600,3) = 600*599*598 = 214_921_200, ln = 19.185782;
        //        (19.185782 + 4.605170) / -ln(5/6) = 23.790952 / 0.182322 = 130.49 -> 131
        // t = 4: 4! C(600,4) = 214_921_200 * 597 = 128_307_956_400, ln = 25.577699;
        //        (25.577699 + 4.605170) / -ln(23/24) = 30.182869 / 0.042560 = 709.19 -> 710
        // t = 5: 5! C(600,5) = 128_307_956_400 * 596 = 76_471_542_014_400, ln = 31.967943;
        //        (31.967943 + 4.605170) / -ln(119/120) = 36.573113 / 0.008368 = 4370.46 -> 4371
        assert_eq!(runs(LemmaForm::UnionBound, 600, 0, 3), 131);
        assert_eq!(runs(LemmaForm::UnionBound, 600, 0, 4), 710);
        assert_eq!(runs(LemmaForm::UnionBound, 600, 0, 5), 4371);
    }

    #[test]
    fn context_bound_adds_fragments_and_order_length() {
        // n = 10, c = 2, t = 2: n' = 12, t' = 4.
        // Summary: 5! (ln 12 + ln 100) = 120 * (2.484907 + 4.605170) = 850.809 -> 851
        // Stated:  5! (ln 48 + ln 100) = 120 * (3.871201 + 4.605170) = 1017.165 -> 1018
        assert_eq!(runs(LemmaForm::Summary, 10, 2, 2), 851);
        assert_eq!(runs(LemmaForm::Stated, 10, 2, 2), 1018);
        // Union: 4! C(12,4) = 11880, ln = 9.382611; (9.382611 + 4.605170) / 0.042560
        //        = 328.66 -> 329
        assert_eq!(runs(LemmaForm::UnionBound, 10, 2, 2), 329);
    }

    #[test]
    fn forms_are_ordered_and_huge_bounds_are_reported() {
        for t in 2..=6 {
            for c in 0..=3 {
                let summary = runs(LemmaForm::Summary, 50, c, t);
                let stated = runs(LemmaForm::Stated, 50, c, t);
                let union = runs(LemmaForm::UnionBound, 50, c, t);
                assert!(union <= summary && summary <= stated, "t={t} c={c}");
            }
        }
        // t' = 30: 31! = 8.2e33 runs is far beyond u64.
        let count = runs_for_thread_coverage(LemmaForm::Summary, 100, 10, 20, 0.01).unwrap();
        assert!(matches!(count, RunCount::TooMany { ln_runs } if ln_runs > 78.0));
        // t' = 200: 201! overflows f64 itself; the logarithm still comes back.
        let count = runs_for_thread_coverage(LemmaForm::Stated, 1000, 0, 200, 0.01).unwrap();
        assert!(matches!(count, RunCount::TooMany { ln_runs } if ln_runs.is_finite()));
    }

    #[test]
    fn rejects_meaningless_arguments() {
        let call = |n, t, eps| runs_for_thread_coverage(LemmaForm::Summary, n, 0, t, eps);
        assert_eq!(call(10, 1, 0.01), Err(StatsError::ThreadBoundTooSmall(1)));
        assert_eq!(
            call(2, 3, 0.01),
            Err(StatsError::TooFewThreads {
                n_threads: 2,
                thread_bound: 3
            })
        );
        assert_eq!(
            call(10, 2, 0.0),
            Err(StatsError::InvalidMissProbability(0.0))
        );
    }
}
