//! The preemption bound `c` of docs/LANGUAGE.md "Priorities, change points and
//! preemptions", under thread bounding's fragment orders: the fewest change
//! points with which some total order of fragments makes a failure happen,
//! every variable tracked.
//!
//! The search runs over executions, not orders. At a scheduling point that
//! follows a change point of thread `T`, it may first cut `T` (start a new
//! fragment for it, costing one; at most `bound` in all). Then it may run
//! any thread `X` that can run, adding the constraints "`X`'s fragment
//! outranks the current fragment of every other thread that can run"; a
//! choice whose constraints would be cyclic is no choice. An execution is
//! possible under some total order of fragments exactly when its
//! constraints are acyclic (a DAG extends to a total order, and new
//! fragments may be placed anywhere), so the failures found are exactly
//! those some order with at most `bound` change points produces.
//!
//! States are memoized on the machine, the order between current fragments
//! (see [`crate::order`]), the cuts used and the pending change point. The
//! bound grows from 0 until a failure appears (iterative deepening).

use std::collections::BTreeSet;

use crate::failure::Failure;
use crate::machine::{Machine, Meter};
use crate::order::Order;
use crate::program::Program;
use crate::step::{run_step, TrackSet};
use crate::visited::Visited;
use crate::{Budget, Exhausted};

/// A search state at a scheduling point.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Node {
    /// The machine.
    machine: Machine,
    /// Constraints between the current fragments.
    order: Order,
    /// Change points used as cuts so far.
    cuts: u32,
    /// The thread whose step just ended at a change point, if any: the one
    /// thread that may be cut here.
    change_point: Option<u32>,
}

/// The smallest `c <= max_c` at which some failure is reachable, with the
/// failures reachable at that `c`; `None` if there is none up to `max_c`.
/// `budget.max_states` bounds the states of each round (each `c`).
pub fn min_preemptions(
    program: &Program,
    max_c: u32,
    budget: &Budget,
) -> Result<Option<(u32, BTreeSet<Failure>)>, Exhausted> {
    for bound in 0..=max_c {
        let failures = failures_within(program, bound, budget)?;
        if !failures.is_empty() {
            return Ok(Some((bound, failures)));
        }
    }
    Ok(None)
}

/// Every failure reachable with at most `bound` cuts.
fn failures_within(
    program: &Program,
    bound: u32,
    budget: &Budget,
) -> Result<BTreeSet<Failure>, Exhausted> {
    let start = Node {
        machine: Machine::start(program),
        order: Order::default(),
        cuts: 0,
        change_point: None,
    };
    let mut seen = Visited::new();
    let mut stack: Vec<(usize, u64)> = seen.insert(start).map(|i| (i, 0)).into_iter().collect();
    let mut failures = BTreeSet::new();
    while let Some((index, ops)) = stack.pop() {
        let node = seen.get(index);
        let enabled = node.machine.enabled(program);
        if enabled.is_empty() {
            failures.extend(node.machine.deadlock());
            continue;
        }
        for (order, cuts) in cut_choices(node, bound, &enabled) {
            for &chosen in &enabled {
                if !order.can_outrank(chosen, &enabled) {
                    continue;
                }
                let mut order = order.clone();
                order.outrank(chosen, &enabled);
                let mut meter = Meter {
                    used: ops,
                    limit: budget.max_ops_per_execution,
                };
                let machine = &seen.get(index).machine;
                match successor(program, machine, chosen, order, cuts, &mut meter) {
                    Err(failure) => {
                        failures.insert(failure);
                    }
                    Ok(next) => {
                        if let Some(next) = seen.insert(next) {
                            if seen.len() > budget.max_states {
                                return Err(Exhausted {
                                    states: budget.max_states,
                                });
                            }
                            stack.push((next, meter.used));
                        }
                    }
                }
            }
        }
    }
    Ok(failures)
}

/// The orders to choose under: as is, and, if the previous step ended at a
/// change point of a thread that can still run and cuts are left, with that
/// thread's fragment cut.
fn cut_choices(node: &Node, bound: u32, enabled: &[u32]) -> Vec<(Order, u32)> {
    let mut choices = vec![(node.order.clone(), node.cuts)];
    if let Some(thread) = node.change_point {
        if node.cuts < bound && enabled.contains(&thread) {
            let mut order = node.order.clone();
            order.forget(thread);
            choices.push((order, node.cuts + 1));
        }
    }
    choices
}

/// The node after `chosen`'s step from `machine`.
fn successor(
    program: &Program,
    machine: &Machine,
    chosen: u32,
    mut order: Order,
    cuts: u32,
    meter: &mut Meter,
) -> Result<Node, Failure> {
    if !meter.tick() {
        return Err(Failure::step_limit(chosen));
    }
    let mut machine = machine.clone();
    let end = run_step(
        program,
        &mut machine,
        chosen as usize,
        &TrackSet::All,
        meter,
    )?;
    if machine.threads[chosen as usize].is_finished() {
        order.forget(chosen);
    }
    Ok(Node {
        machine,
        order,
        cuts,
        change_point: end.change_point.then_some(chosen),
    })
}
