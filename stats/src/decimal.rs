//! Numbers as every output writes them (CSV cells, figure marks): one
//! format, so that a column never mixes notations.

/// `x` in the shortest form that parses back to the same `f64`: plain
/// decimals between 1e-6 and 1e16, scientific notation outside (where a
/// plain decimal would run to dozens of zeros).
pub fn number(x: f64) -> String {
    let size = x.abs();
    if x == 0.0 || (1e-6..1e16).contains(&size) || !x.is_finite() {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

#[cfg(test)]
mod tests {
    use super::number;

    #[test]
    fn plain_in_the_middle_scientific_at_the_ends_and_always_exact() {
        assert_eq!(number(0.25), "0.25");
        assert_eq!(number(1.0 / 42.0), "0.023809523809523808");
        assert_eq!(number(0.996828788061066), "0.996828788061066");
        assert_eq!(number(3.0), "3");
        assert_eq!(number(1.826e-9), "1.826e-9");
        assert_eq!(number(0.0), "0");
        for x in [1.0 / 3.0, 2.5e-300, 6.02e23, 0.1 + 0.2] {
            assert_eq!(number(x).parse::<f64>().unwrap(), x);
        }
    }
}
