//! The brute-force model checker: every failure reachable when every
//! variable is tracked and any thread that can run may be chosen at every
//! scheduling point. A depth-first search over machine states between steps,
//! each state explored once.

use std::collections::BTreeSet;

use crate::failure::Failure;
use crate::machine::{Machine, Meter};
use crate::program::Program;
use crate::step::{run_step, TrackSet};
use crate::visited::Visited;
use crate::{Budget, Exhausted};

/// Every failure reachable from the start of `program`.
///
/// The state space is finite for terminating programs; `budget.max_states`
/// bounds the distinct states visited. Operations are counted along the
/// search path from the start; a path longer than
/// `budget.max_ops_per_execution` is reported as a step-limit failure and
/// not followed further (so a result holding one may lack failures beyond
/// it).
pub fn reachable_failures(
    program: &Program,
    budget: &Budget,
) -> Result<BTreeSet<Failure>, Exhausted> {
    let mut seen = Visited::new();
    let start = seen.insert(Machine::start(program));
    let mut stack: Vec<(usize, u64)> = start.map(|index| (index, 0)).into_iter().collect();
    let mut failures = BTreeSet::new();
    while let Some((index, ops)) = stack.pop() {
        let enabled = seen.get(index).enabled(program);
        if enabled.is_empty() {
            failures.extend(seen.get(index).deadlock());
            continue;
        }
        for tid in enabled {
            let mut meter = Meter {
                used: ops,
                limit: budget.max_ops_per_execution,
            };
            if !meter.tick() {
                failures.insert(Failure::step_limit(tid));
                continue;
            }
            let mut next = seen.get(index).clone();
            if let Err(failure) =
                run_step(program, &mut next, tid as usize, &TrackSet::All, &mut meter)
            {
                failures.insert(failure);
                continue;
            }
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
    Ok(failures)
}
