//! Shrinking a failing run's schedule before it is reported (docs/
//! ALGORITHMS.md, Shrinking): the engine's search, replayed on the VM
//! under the failing run's instrumentation (so its scheduling points are
//! the run's), bounded by `--shrink-time`, with a progress line on a
//! terminal when it takes longer than a second.

use std::io::IsTerminal;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rankcheck_engine::identity::Identity;
use rankcheck_engine::ir::Program;
use rankcheck_engine::outcome::Bug;
use rankcheck_engine::shrink::{shrink, Shrunk, Size, VmReplayer};
use rankcheck_engine::{Executable, Instrumentation, Limits, ThreadId};

/// After how long shrinking says what it is doing.
const QUIET: Duration = Duration::from_secs(1);

/// Shrink `schedule`, whose run of `program` under `instrumentation`
/// failed with `bug`, for at most `budget`. `None` when the schedule does
/// not fail the same way again.
pub fn shrink_schedule(
    program: &Arc<Program>,
    instrumentation: &Instrumentation,
    limits: Limits,
    schedule: &[ThreadId],
    bug: &Bug,
    budget: Duration,
) -> Option<Shrunk> {
    let exe = Executable::new(program.clone(), instrumentation);
    let started = Instant::now();
    let terminal = std::io::stderr().is_terminal();
    let mut shown = false;
    let mut watch = |improved: Option<(Size, u64)>| {
        let elapsed = started.elapsed();
        if let Some((size, replays)) = improved.filter(|_| terminal && elapsed >= QUIET) {
            eprint!(
                "\rshrinking the failing schedule: {} preemptions, {} switches, {} steps after {replays} replays ({:.1} s)\x1b[K",
                size.preemptions,
                size.switches,
                size.steps,
                elapsed.as_secs_f64()
            );
            shown = true;
        }
        elapsed >= budget
    };
    let mut replayer = VmReplayer::new(&exe, limits, Identity::of(bug), &mut watch);
    let shrunk = shrink(schedule, &mut replayer);
    if shown {
        eprintln!();
    }
    shrunk
}
