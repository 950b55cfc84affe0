//! The families exhaustive search enumerates: thread-bounding priority
//! orders of `n + c` fragments, and the variable sets it tracks in turn
//! (docs/ALGORITHMS.md, Thread bounding and Exhaustive search).

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

use crate::id::VarId;
use crate::profile::{accessed_vars, Profile};

/// The most fragments whose priority orders are all enumerated: 7! = 5,040
/// orders. Beyond it, orders are sampled (Lemma 4.1).
pub const MAX_ENUMERATED_FRAGMENTS: usize = 7;

/// A thread-bounding priority order over `n + c` thread fragments: thread
/// `i` starts at `order[i]`, and the `j`-th preemption gives the running
/// thread `order[n + j]` (docs/ALGORITHMS.md, Thread bounding). Higher runs first.
pub type Order = Vec<i64>;

/// Every order of `fragments` fragments, in lexicographic order.
pub fn all_orders(fragments: usize) -> Vec<Order> {
    let mut current: Vec<i64> = (1..=fragments as i64).collect();
    let mut orders = vec![current.clone()];
    // Next lexicographic permutation, until the last.
    loop {
        let Some(i) = (1..current.len())
            .rev()
            .find(|&i| current[i - 1] < current[i])
        else {
            return orders;
        };
        let pivot = i - 1;
        let Some(j) = (i..current.len())
            .rev()
            .find(|&j| current[j] > current[pivot])
        else {
            unreachable!("invariant: a successor exists right of the pivot")
        };
        current.swap(pivot, j);
        current[i..].reverse();
        orders.push(current.clone());
    }
}

/// `count` random orders of `fragments` fragments, from `seed`.
pub fn random_orders(fragments: usize, count: usize, seed: u64) -> Vec<Order> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            let mut order: Vec<i64> = (1..=fragments as i64).collect();
            order.shuffle(&mut rng);
            order
        })
        .collect()
}

/// The priority orders of `n + c` fragments: every one when there are at
/// most [`MAX_ENUMERATED_FRAGMENTS`], else `sampled` random ones from
/// `seed` (the caller sizes the sample by Lemma 4.1). The flag says whether
/// they were enumerated.
pub fn priority_orders(
    n: usize,
    c: u32,
    sampled: impl FnOnce() -> usize,
    seed: u64,
) -> (Vec<Order>, bool) {
    let fragments = n + c as usize;
    if fragments <= MAX_ENUMERATED_FRAGMENTS {
        (all_orders(fragments), true)
    } else {
        (random_orders(fragments, sampled(), seed), false)
    }
}

/// Every `size`-subset of `items`, in order: the variable sets exhaustive
/// search tries in turn.
pub fn combinations<T: Copy>(items: &[T], size: usize) -> Vec<Vec<T>> {
    if size == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for (i, &first) in items.iter().enumerate() {
        for mut rest in combinations(&items[i + 1..], size - 1) {
            rest.insert(0, first);
            out.push(rest);
        }
    }
    out
}

/// The variables exhaustive search chooses among, in the order it tries
/// them: those the preparatory runs accessed, the ones seen shared first
/// (docs/ALGORITHMS.md, Exhaustive search), then by id.
pub fn ranked_vars(profile: &Profile) -> Vec<VarId> {
    let mut ranked = accessed_vars(profile);
    ranked.sort_by_key(|var| (!profile.vars[var.index()].shared(), *var));
    ranked
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn all_orders_are_every_permutation_once() {
        let orders = all_orders(4);
        assert_eq!(orders.len(), 24);
        let distinct: BTreeSet<_> = orders.iter().collect();
        assert_eq!(distinct.len(), 24);
        assert_eq!(orders[0], vec![1, 2, 3, 4]);
        assert_eq!(orders[23], vec![4, 3, 2, 1]);
    }

    #[test]
    fn combinations_are_binomial() {
        let five = [0, 1, 2, 3, 4];
        assert_eq!(combinations(&five, 2).len(), 10);
        assert_eq!(combinations(&five, 5), vec![vec![0, 1, 2, 3, 4]]);
        assert_eq!(combinations(&five, 0), vec![Vec::<i32>::new()]);
    }
}
