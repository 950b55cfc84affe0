//! Uncontrolled nondeterminism, detected: a test whose runs depend on
//! something rankcheck does not schedule (std's `HashMap` seeds, `std::sync`
//! or `std::thread` used directly, the clock, I/O, randomness) can fail in
//! a run that its replay does not repeat, and the report would then show a
//! run that did not happen. Every run records a digest of each scheduling
//! point (the thread that ran, what ended its step, the threads able to
//! run); the failing run's replay records its own, and where they part, or
//! where the failure differs, the search reports the nondeterminism instead
//! of the failure.

use rankcheck_engine::{Point, Scheduler, ThreadId};

use crate::executor::RunResult;
use crate::failure::Failure;

/// A scheduler that records a digest of every point it is asked at.
pub struct Recording<S> {
    inner: S,
    digests: Vec<u64>,
}

impl<S: Scheduler> Recording<S> {
    /// Record the points `inner` chooses at, into `buffer` (emptied).
    pub fn new(inner: S, mut buffer: Vec<u64>) -> Recording<S> {
        buffer.clear();
        Recording {
            inner,
            digests: buffer,
        }
    }

    /// The scheduler and the digests.
    pub fn into_parts(self) -> (S, Vec<u64>) {
        (self.inner, self.digests)
    }
}

impl<S: Scheduler> Scheduler for Recording<S> {
    fn choose(&mut self, point: &Point<'_>) -> ThreadId {
        self.digests.push(digest(point));
        self.inner.choose(point)
    }

    fn wants_pending(&self) -> bool {
        self.inner.wants_pending()
    }
}

/// Mix one word into a digest (FNV-1a's step, a word at a time: cheap
/// enough for every point of every run, and the same in every process).
fn mix(digest: u64, word: u64) -> u64 {
    (digest ^ word).wrapping_mul(0x100_0000_01b3)
}

/// What a replay must see again at a point: the thread that ran, what
/// ended its step and on which variable, and who can run next.
fn digest(point: &Point<'_>) -> u64 {
    let last = point.last.map_or(u64::MAX, |t| u64::from(t.0));
    let var = point.event.var.map_or(u64::MAX, |v| u64::from(v.0));
    let mut digest = mix(0xcbf2_9ce4_8422_2325, last);
    digest = mix(digest, point.event.kind as u64);
    digest = mix(digest, var);
    for thread in point.enabled {
        digest = mix(digest, u64::from(thread.0));
    }
    digest
}

/// Where a replay parted from the run it repeats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Parted {
    /// At this scheduling point (from 1) the runs differed.
    AtPoint(usize),
    /// Every point matched, but the runs ended differently.
    AtEnd,
}

/// Where `replay` parted from `original` (with the digests of each), if
/// it did. Failures are compared by kind, place and thread, not message:
/// a message may print an address.
pub fn parted(original: (&RunResult, &[u64]), replay: (&RunResult, &[u64])) -> Option<Parted> {
    let (first, first_digests) = original;
    let (second, second_digests) = replay;
    let differing = first_digests
        .iter()
        .zip(second_digests)
        .position(|(a, b)| a != b);
    if let Some(point) = differing {
        return Some(Parted::AtPoint(point + 1));
    }
    if first_digests.len() != second_digests.len() {
        let shorter = first_digests.len().min(second_digests.len());
        return Some(Parted::AtPoint(shorter + 1));
    }
    let key = |f: &Option<Failure>| {
        f.as_ref()
            .map(|f| (f.kind, f.location.clone(), f.thread.clone()))
    };
    (key(&first.failure) != key(&second.failure)).then_some(Parted::AtEnd)
}

/// The report of a failing run whose replay parted from it.
pub fn report(failed: &RunResult, parted: &Parted, points: usize) -> String {
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
