//! Relative orders of a few elements within a permutation, numbered
//! `0..t!`, and the enumerations Lemma 4.1's analysis walks (paper §4: the
//! `t!` orders of each `t`-subset).

use crate::error::StatsError;

/// Largest subset size handled: the `t!` orders of a subset are tracked
/// in a `u128` set, and `5! = 120` fits while `6! = 720` does not.
pub(crate) const MAX_SUBSET_SIZE: u32 = 5;

/// Checks `2 <= t <= 5` and returns `t` as a `usize`.
pub(crate) fn check_subset_size(subset_size: u32) -> Result<usize, StatsError> {
    if (2..=MAX_SUBSET_SIZE).contains(&subset_size) {
        Ok(subset_size as usize)
    } else {
        Err(StatsError::SubsetSizeOutOfRange(subset_size))
    }
}

/// `n!` for the small `n` used here.
pub(crate) fn factorial(n: usize) -> usize {
    (1..=n).product()
}

/// The index in `0..t!` of the relative order of `t` distinct positions:
/// their Lehmer code (for each, how many later ones are smaller) read in
/// the factorial number system. Any bijection would do; this one is cheap.
pub(crate) fn order_index(positions: &[u32]) -> usize {
    // Index loops: this is the inner loop of every simulation, and iterator
    // adaptors are slow in the unoptimized builds the tests run in.
    let len = positions.len();
    let mut index = 0;
    let mut i = 0;
    while i < len {
        let mut smaller_later = 0;
        let mut j = i + 1;
        while j < len {
            if positions[j] < positions[i] {
                smaller_later += 1;
            }
            j += 1;
        }
        index = index * (len - i) + smaller_later;
        i += 1;
    }
    index
}

/// Calls `visit` with every `t`-subset of `0..n`, sorted, in lexicographic order.
pub(crate) fn for_each_subset(n: u32, t: usize, mut visit: impl FnMut(&[u32])) {
    let t_u32 = t as u32;
    if t_u32 > n {
        return;
    }
    let mut subset: Vec<u32> = (0..t_u32).collect();
    loop {
        visit(&subset);
        // The rightmost element that can still move right.
        let Some(i) = (0..t).rev().find(|&i| subset[i] < n - t_u32 + i as u32) else {
            return;
        };
        subset[i] += 1;
        for j in i + 1..t {
            subset[j] = subset[j - 1] + 1;
        }
    }
}

/// Calls `visit` with every permutation of `0..len` (Heap's algorithm,
/// iterative form): `len!` calls.
pub(crate) fn for_each_permutation(len: usize, mut visit: impl FnMut(&[u32])) {
    let mut items: Vec<u32> = (0..len as u32).collect();
    let mut counters = vec![0usize; len];
    visit(&items);
    let mut i = 1;
    while i < len {
        if counters[i] < i {
            if i % 2 == 0 {
                items.swap(0, i);
            } else {
                items.swap(counters[i], i);
            }
            visit(&items);
            counters[i] += 1;
            i = 1;
        } else {
            counters[i] = 0;
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn order_index_numbers_the_orders_of_three() {
        // Increasing positions have no inversions: index 0; decreasing: 3! - 1 = 5.
        assert_eq!(order_index(&[10, 20, 30]), 0);
        assert_eq!(order_index(&[30, 20, 10]), 5);
        // [20, 10, 30]: digits (1, 0, 0) -> (1 * 2 + 0) * 1 + 0 = 2.
        assert_eq!(order_index(&[20, 10, 30]), 2);
    }

    #[test]
    fn order_index_is_a_bijection_onto_factorial_range() {
        for t in 1..=5 {
            let mut seen = BTreeSet::new();
            for_each_permutation(t, |p| {
                seen.insert(order_index(p));
            });
            assert_eq!(seen.len(), factorial(t));
            assert_eq!(seen.last().copied(), Some(factorial(t) - 1));
        }
    }

    #[test]
    fn subsets_are_all_visited_once() {
        // C(6, 3) = 20 subsets, all distinct and sorted.
        let mut all = Vec::new();
        for_each_subset(6, 3, |s| all.push(s.to_vec()));
        assert_eq!(all.len(), 20);
        assert_eq!(all.first(), Some(&vec![0, 1, 2]));
        assert_eq!(all.last(), Some(&vec![3, 4, 5]));
        assert!(all.windows(2).all(|w| w[0] < w[1]));
        let mut none = 0;
        for_each_subset(2, 3, |_| none += 1);
        assert_eq!(none, 0);
    }

    #[test]
    fn permutations_are_all_visited_once() {
        // 4! = 24 distinct permutations.
        let mut all = BTreeSet::new();
        for_each_permutation(4, |p| {
            all.insert(p.to_vec());
        });
        assert_eq!(all.len(), 24);
        assert_eq!(
            check_subset_size(6),
            Err(StatsError::SubsetSizeOutOfRange(6))
        );
        assert_eq!(
            check_subset_size(1),
            Err(StatsError::SubsetSizeOutOfRange(1))
        );
        assert_eq!(check_subset_size(5), Ok(5));
    }
}
