//! Re-running one execution from its schedule: the thread chosen at every
//! scheduling point.

use crate::failure::Kind;
use crate::machine::{Machine, Meter};
use crate::program::Program;
use crate::step::{run_step, TrackSet};
use crate::Replayed;

/// Runs `program` choosing `schedule[i]` at the `i`-th scheduling point.
///
/// The execution ends when no thread can run (every thread finished: a
/// pass; otherwise a deadlock) or a thread fails; schedule entries left over
/// then are ignored. Every scheduling point counts one operation against
/// `max_ops`, as do loop iterations and calls.
pub fn replay(program: &Program, schedule: &[u32], tracked: &TrackSet, max_ops: u64) -> Replayed {
    let mut machine = Machine::start(program);
    let mut meter = Meter::new(max_ops);
    let mut point = 0;
    loop {
        let enabled = machine.enabled(program);
        if enabled.is_empty() {
            return match machine.deadlock() {
                Some(failure) => Replayed::Fail(failure),
                None => Replayed::Pass,
            };
        }
        let Some(&wanted) = schedule.get(point) else {
            return Replayed::Unfinished { point };
        };
        if !enabled.contains(&wanted) {
            return Replayed::Diverged {
                point,
                wanted,
                enabled,
            };
        }
        if !meter.tick() {
            return Replayed::StepLimit;
        }
        match run_step(program, &mut machine, wanted as usize, tracked, &mut meter) {
            Ok(_) => {}
            Err(failure) if failure.kind == Kind::StepLimit => return Replayed::StepLimit,
            Err(failure) => return Replayed::Fail(failure),
        }
        point += 1;
    }
}
