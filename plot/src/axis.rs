//! Axis ranges and tick labels shared by the figures: decades for counts
//! on log axes, and "nines" for confidences close to 1.

/// The decade range `[10^a, 10^b]` that holds `low..=high` (both positive).
pub fn decades(low: f64, high: f64) -> (f64, f64) {
    let low = low.max(f64::MIN_POSITIVE);
    let high = high.max(low);
    let a = low.log10().floor();
    let mut b = high.log10().ceil();
    if b <= a {
        b = a + 1.0;
    }
    (10f64.powf(a), 10f64.powf(b))
}

/// How many labels a log axis over `range` should ask plotters for, so that
/// it labels the decades and nothing between them.
pub fn decade_labels(range: (f64, f64)) -> usize {
    ((range.1 / range.0).log10().round() as usize).max(1) + 1
}

/// A count on a log axis: `1`, `10`, `100`, `1k`, `10k`, `1M`, `1e9`. Ticks
/// that are not powers of ten get no label (the grid line still shows).
pub fn count_label(x: &f64) -> String {
    let exponent = x.log10();
    if (exponent - exponent.round()).abs() > 1e-9 {
        return String::new();
    }
    match exponent.round() as i32 {
        e @ 0..=2 => format!("{}", 10u64.pow(e as u32)),
        e @ 3..=5 => format!("{}k", 10u64.pow(e as u32 - 3)),
        e @ 6..=8 => format!("{}M", 10u64.pow(e as u32 - 6)),
        e => format!("1e{e}"),
    }
}

/// The margin right of a plot whose x axis ends at `end` on a log axis of
/// counts, at least `margin`: room for half the last tick label, which is
/// centred on the axis's end, at text size `size`.
pub fn end_label_margin(end: f64, margin: i32, size: f64) -> i32 {
    let (width, _) = crate::font::text_size(&count_label(&end), size);
    margin.max(width as i32 / 2 + 6)
}

/// A count as text: `5,000`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A confidence as "nines", `-log10(1 - c)`: 0.9 is 1, 0.99 is 2; capped
/// at `cap` where `1 - c` underflows.
pub fn nines(confidence: f64, cap: f64) -> f64 {
    let miss = 1.0 - confidence;
    if miss <= 0.0 {
        cap
    } else {
        (-miss.log10()).min(cap)
    }
}

/// The label of a "nines" tick: `0`, `0.9`, `0.99`, `0.999`, `1 - 10^-6`.
pub fn nines_label(y: &f64) -> String {
    if (y - y.round()).abs() > 1e-9 {
        return String::new();
    }
    match y.round() as i32 {
        k if k <= 0 => "0".to_string(),
        k @ 1..=4 => format!("0.{}", "9".repeat(k as usize)),
        k => format!("1 - 10^-{k}"),
    }
}

/// A small probability as reports print it: `1/800`, or `1/10^16.3`.
pub fn one_in(p: rankcheck_stats::Probability) -> String {
    let inverse = (-p.ln()).exp();
    if inverse.is_finite() && inverse < 1e15 {
        format!("1/{inverse:.0}")
    } else {
        format!("1/10^{:.1}", -p.log10())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decades_hold_the_range() {
        assert_eq!(decades(1.0, 5000.0), (1.0, 10000.0));
        assert_eq!(decades(10.0, 10.0), (10.0, 100.0));
        assert_eq!(decade_labels((1.0, 10000.0)), 5);
    }

    #[test]
    fn labels_read_as_people_write_them() {
        assert_eq!(count_label(&1.0), "1");
        assert_eq!(count_label(&1000.0), "1k");
        assert_eq!(count_label(&1e6), "1M");
        assert_eq!(count_label(&2000.0), "");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(thousands(999), "999");
        assert_eq!(nines_label(&2.0), "0.99");
        assert_eq!(nines_label(&6.0), "1 - 10^-6");
        assert!((nines(0.999, 12.0) - 3.0).abs() < 1e-9);
        assert_eq!(nines(1.0, 12.0), 12.0);
    }
}
