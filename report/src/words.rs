//! Counts and lists in English, so that reports never say `1 runs`.

/// `1 run`, `2 runs`.
pub fn count<N: TryInto<u64>>(n: N, one: &str, many: &str) -> String {
    let n: u64 = n.try_into().unwrap_or(u64::MAX);
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `a`, `a and b`, `a, b and c`.
pub fn list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn singular_and_plural() {
        assert_eq!(count(1u64, "run", "runs"), "1 run");
        assert_eq!(count(0u64, "run", "runs"), "0 runs");
        assert_eq!(count(2usize, "variable", "variables"), "2 variables");
        assert_eq!(list(&["a".into(), "b".into(), "c".into()]), "a, b and c");
    }
}
