//! Uncontrolled nondeterminism, detected: a test whose runs depend on
//! something rankcheck does not schedule (std's `HashMap` seeds, `std::sync`
//! or `std::thread` used directly, the clock, I/O, randomness) can fail in
//! a run that its replay does not repeat, and the report would then show a
//! run that did not happen. The failing run is replayed for its trace
//! anyway; where the replay parts from it (a thread the run chose cannot
//! run at that point, the replay takes more or fewer points, or it ends
//! differently), the search reports the nondeterminism instead of the
//! failure. Comparing the replay with the run's own record costs the runs
//! of the search nothing.

use crate::executor::RunResult;
use crate::failure::{Failure, FailureKind};

/// Where a replay parted from the run it repeats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Parted {
    /// At this scheduling point (from 1) the runs differed.
    AtPoint(usize),
    /// Every point matched, but the runs ended differently.
    AtEnd,
}

/// Where `replay` parted from `original`, if it did. Failures are compared
/// by kind, place and thread, not message: a message may print an address.
pub fn parted(original: &RunResult, replay: &RunResult) -> Option<Parted> {
    let diverged = replay
        .failure
        .as_ref()
        .is_some_and(|f| f.kind == FailureKind::Diverged);
    if diverged {
        // The executor stopped at the point whose choice could not run.
        return Some(Parted::AtPoint(replay.schedule.len()));
    }
    let (points, replayed) = (original.schedule.len(), replay.schedule.len());
    if points != replayed {
        return Some(Parted::AtPoint(points.min(replayed) + 1));
    }
    let key = |f: &Option<Failure>| {
        f.as_ref()
            .map(|f| (f.kind, f.location.clone(), f.thread.clone()))
    };
    (key(&original.failure) != key(&replay.failure)).then_some(Parted::AtEnd)
}

/// The report of a failing run whose replay parted from it.
pub fn report(failed: &RunResult, parted: &Parted) -> String {
    let points = failed.schedule.len();
    let place = match parted {
        Parted::AtPoint(point) => {
            let ran = point
                .checked_sub(2)
                .and_then(|i| failed.schedule.get(i))
                .and_then(|t| failed.thread_names.get(t.index()))
                .map_or(String::new(), |name| format!(", after thread {name} ran"));
            format!("it parted from it at scheduling point {point} of {points}{ran}")
        }
        Parted::AtEnd => {
            format!("its {points} scheduling points matched, but it ended differently")
        }
    };
    let failure = failed.failure.as_ref().map_or(String::new(), |f| f.head());
    format!(
        "rankcheck: uncontrolled nondeterminism: a run failed, but replaying its schedule \
         did not repeat it ({place}). The test depends on something rankcheck does not \
         schedule: std's HashMap or HashSet iteration order (a random seed per instance), \
         std::sync or std::thread used directly instead of rankcheck's, the clock, I/O, or \
         randomness. Make it deterministic (e.g. BTreeMap, a fixed hasher, a seeded \
         generator) and search again. The run that failed:\n{failure}"
    )
}
