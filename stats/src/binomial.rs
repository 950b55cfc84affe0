//! Binomial coefficients `C(n, k)`: exact in `u128` while they fit, as
//! logarithms beyond (used by Theorem 3.1's `1/C(Q,v)` and Lemma 4.1's
//! `t! C(n,t)`).

/// `C(n, k)` exactly, or `None` when it exceeds `u128::MAX`.
///
/// Multiplies up `C(n-k+i, i)` for `i = 1..=k`, dividing out the common
/// factor first, so an intermediate overflows only when the result does.
pub fn binomial(n: u64, k: u64) -> Option<u128> {
    if k > n {
        return Some(0);
    }
    let k = k.min(n - k);
    let mut value: u128 = 1;
    for i in 1..=u128::from(k) {
        // value = C(n-k+i-1, i-1); the next one is value * (n-k+i) / i, an integer.
        let numerator = u128::from(n - k) + i;
        let common = gcd(value, i);
        value = (value / common).checked_mul(numerator / (i / common))?;
    }
    Some(value)
}

/// `ln C(n, k)`; `-inf` when `k > n`.
///
/// Exact (to rounding) via [`binomial`] while that fits; otherwise a sum of
/// `ln((n-k+i)/i)` terms while `k` is at most a million, which avoids the
/// cancellation of `ln n! - ln k! - ln (n-k)!` at large `n`; statrs's
/// log-gamma form only beyond that.
pub fn ln_binomial(n: u64, k: u64) -> f64 {
    if k > n {
        return f64::NEG_INFINITY;
    }
    let k = k.min(n - k);
    if let Some(exact) = binomial(n, k) {
        return (exact as f64).ln();
    }
    if k <= 1_000_000 {
        let base = (n - k) as f64;
        (1..=k)
            .map(|i| {
                let i = i as f64;
                (base / i).ln_1p()
            })
            .sum()
    } else {
        statrs::function::factorial::ln_binomial(n, k)
    }
}

/// `ln n!`, exact to rounding for the small `n` the formulas use.
pub fn ln_factorial(n: u64) -> f64 {
    statrs::function::factorial::ln_factorial(n)
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_values_by_hand() {
        assert_eq!(binomial(5, 2), Some(10));
        assert_eq!(binomial(5, 0), Some(1));
        assert_eq!(binomial(5, 5), Some(1));
        assert_eq!(binomial(5, 6), Some(0));
        // C(200, 2) = 200 * 199 / 2 = 19900.
        assert_eq!(binomial(200, 2), Some(19_900));
        // C(600, 3) = 600 * 599 * 598 / 6 = 35_820_200.
        assert_eq!(binomial(600, 3), Some(35_820_200));
        // C(600, 5) = 600*599*598*597*596 / 120 = 76_471_542_014_400 / 120 = 637_262_850_120.
        assert_eq!(binomial(600, 5), Some(637_262_850_120));
    }

    #[test]
    fn overflow_is_reported_not_wrapped() {
        // C(130, 65) ~ 9.5e37 fits in u128 (max ~3.4e38); C(132, 66) ~ 3.8e38 does not.
        assert!(binomial(130, 65).is_some());
        assert_eq!(binomial(132, 66), None);
        // ln C(132, 66) = ln(3.7785e38) ~ 88.83 either way.
        let ln = ln_binomial(132, 66);
        let expected = ln_factorial(132) - 2.0 * ln_factorial(66);
        assert!((ln - expected).abs() < 1e-9, "{ln} vs {expected}");
    }

    #[test]
    fn log_of_huge_n_small_k_does_not_cancel() {
        // n = 2^63, k = 40: the exact value
        // overflows u128, and ln C = sum ln((n-40+i)/i) ~ 40 ln n - ln 40!.
        let n = 1u64 << 63;
        let ln = ln_binomial(n, 40);
        let approx = 40.0 * (n as f64).ln() - ln_factorial(40);
        // The (n-40+i)/n corrections are ~1e-17: agreement to ~1e-12 relative.
        assert!((ln / approx - 1.0).abs() < 1e-12, "{ln} vs {approx}");
        assert_eq!(ln_binomial(3, 4), f64::NEG_INFINITY);
    }
}
