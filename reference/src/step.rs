//! One step: the chosen thread runs until its next scheduling point, by the
//! rules of docs/LANGUAGE.md "Steps and scheduling points". A step ends right
//! after
//!
//! 1. a tracked access,
//! 2. a synchronisation operation,
//! 3. a write that makes the condition of a thread blocked in `await` true
//!    (that thread could not run before the write and can after it),
//! 4. an operation that blocks the thread, or the thread's end,
//! 5. the end of an `atomic` block inside which one of 1-3 happened (inside
//!    the block they do not end the step).
//!
//! The step also says whether it ended at a change point (docs/LANGUAGE.md
//! "Priorities, change points and preemptions"): after an operation that
//! touched a tracked variable and after which the thread can go on; never
//! after a blocking operation, `spawn`, `join`, `yield` or the thread's end.

use crate::failure::Failure;
use crate::interpret::{micro_step, Cursor, Event};
use crate::machine::{Machine, Meter};
use crate::program::{Program, VarId};
use crate::thread::Status;

/// Which variables' accesses end steps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TrackSet {
    /// Every variable.
    All,
    /// The variables whose entry is true, by [`VarId`].
    Some(Vec<bool>),
}

impl TrackSet {
    /// Whether `var` is tracked.
    pub fn contains(&self, var: VarId) -> bool {
        match self {
            TrackSet::All => true,
            TrackSet::Some(flags) => flags.get(var.0 as usize).copied().unwrap_or(false),
        }
    }

    fn any(&self, vars: &[VarId]) -> bool {
        vars.iter().any(|&var| self.contains(var))
    }
}

/// How a step ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StepEnd {
    /// Whether the scheduling point after it is a change point.
    pub change_point: bool,
}

/// Runs one step of thread `tid`, which must be able to run.
pub fn run_step(
    program: &Program,
    machine: &mut Machine,
    tid: usize,
    tracked: &TrackSet,
    meter: &mut Meter,
) -> Result<StepEnd, Failure> {
    let id = machine.threads[tid].id;
    let outcome = if matches!(machine.threads[tid].status, Status::Blocked(_)) {
        let mut cursor = Cursor {
            program,
            machine,
            tid,
            meter,
        };
        cursor.resume().map(|event| match event {
            Event::Sync(touched) => StepEnd {
                change_point: tracked.any(&touched),
            },
            other => panic!("invariant: resuming is a synchronisation, got {other:?}"),
        })
    } else {
        run_ready(program, machine, tid, tracked, meter)
    };
    outcome.map_err(|fault| fault.into_failure(id))
}

/// Runs a ready thread until an event ends its step.
fn run_ready(
    program: &Program,
    machine: &mut Machine,
    tid: usize,
    tracked: &TrackSet,
    meter: &mut Meter,
) -> Result<StepEnd, crate::failure::Fault> {
    let mut sleepers = machine.sleeping_awaiters(program);
    loop {
        let event = micro_step(program, machine, tid, meter)?;
        // Whether the event ends the step (outside `atomic`), and whether it
        // touched a tracked variable.
        let (ends, touched) = match event {
            Event::Local => continue,
            Event::Read(var) => (tracked.contains(var), tracked.contains(var)),
            Event::Write(var) => {
                let wakes = wakes_an_awaiter(program, machine, &mut sleepers);
                (tracked.contains(var) || wakes, tracked.contains(var))
            }
            Event::Sync(vars) => (true, tracked.any(&vars)),
            Event::Blocked | Event::Ended => {
                return Ok(StepEnd {
                    change_point: false,
                })
            }
            Event::AtomicEnd => {
                // Clear the block's flags, so that states equal but for them
                // are one state to the searches.
                let thread = &mut machine.threads[tid];
                let ends = std::mem::take(&mut thread.atomic_ends_step);
                let touched = std::mem::take(&mut thread.atomic_touched);
                if ends {
                    return Ok(StepEnd {
                        change_point: touched,
                    });
                }
                continue;
            }
        };
        let thread = &mut machine.threads[tid];
        if thread.atomic_depth > 0 {
            thread.atomic_ends_step |= ends;
            thread.atomic_touched |= touched;
        } else if ends {
            return Ok(StepEnd {
                change_point: touched,
            });
        }
    }
}

/// After a write: whether a thread blocked in `await` that could not run
/// before (one of `sleepers`) can run now. Updates `sleepers` for the next
/// write of the step.
fn wakes_an_awaiter(program: &Program, machine: &Machine, sleepers: &mut Vec<usize>) -> bool {
    if sleepers.is_empty() && !any_awaiter(machine) {
        return false;
    }
    let now = machine.sleeping_awaiters(program);
    let woken = sleepers.iter().any(|tid| !now.contains(tid));
    *sleepers = now;
    woken
}

fn any_awaiter(machine: &Machine) -> bool {
    machine.threads.iter().any(|thread| {
        matches!(
            thread.status,
            Status::Blocked(crate::thread::Blocker::Await { .. })
        )
    })
}
