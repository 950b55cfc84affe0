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
    let start = Machine::start(program);
    let mut seen = Visited::new();
    seen.insert(&start);
    let mut stack = vec![(start, 0u64)];
    let mut failures = BTreeSet::new();
    while let Some((machine, ops)) = stack.pop() {
        let enabled = machine.enabled(program);
        if enabled.is_empty() {
            failures.extend(machine.deadlock());
            continue;
        }
        for tid in enabled {
            let mut next = machine.clone();
            let mut meter = Meter {
                used: ops,
                limit: budget.max_ops_per_execution,
            };
            if !meter.tick() {
                failures.insert(Failure::step_limit(tid));
                continue;
            }
            match run_step(program, &mut next, tid as usize, &TrackSet::All, &mut meter) {
                Err(failure) => {
                    failures.insert(failure);
                }
                Ok(_) => {
                    if !seen.insert(&next) {
                        continue;
                    }
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
    Ok(failures)
}
