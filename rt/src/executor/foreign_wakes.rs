//! Wakes from outside the run: a waker of one of the run's tasks woken on
//! another OS thread, a `std::thread` the test spawned, which the
//! scheduler does not see (triggered 0.1.3's `single_listen_first` wakes
//! its awaiting task from one after a `thread::sleep`, as tokio allows).
//! Such a wake cannot reach the execution, which lives on the run's OS
//! thread, so it is posted here, and the run applies it at its next
//! scheduling point.
//!
//! When no thread of the run can run and one awaits a wake, the run waits
//! for a posted wake up to [`GRACE`] before it is a deadlock. A test's
//! first such wait that no wake ends tells the session that its test's
//! wakes come from its own threads only: later runs of the session then
//! call such a state a deadlock at once, so that a genuine lost wake-up
//! costs [`GRACE`] once, not once per replay while it is shrunk. What a
//! test's fruitless wait taught outlives its session: the test's other
//! sessions (an exploration's report, a loom model's next `model` call)
//! start from it ([`Waiting::for_this_test`], keyed by the OS thread's
//! name, which the test harness gives each test), and a loom model starts
//! fruitless ([`never_wait_in_this_test`]: loom has no wake from outside
//! a model). A run that depends on another OS thread's timing is
//! nondeterministic, which a replay of it may show ("uncontrolled
//! nondeterminism").

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rankcheck_engine::ThreadId;

/// The longest a run whose threads all wait waits for a wake from outside.
pub const GRACE: Duration = Duration::from_secs(2);

/// The wakes posted from other OS threads, by execution.
#[derive(Debug, Default)]
pub struct ForeignWakes {
    /// Whether `wakes` may hold one: read at every scheduling point, so
    /// that a run with none takes no lock.
    posted: AtomicBool,
    wakes: Mutex<Vec<(u64, ThreadId)>>,
    arrived: Condvar,
}

impl ForeignWakes {
    /// Post a wake of `thread` of execution `execution`.
    pub fn post(&self, execution: u64, thread: ThreadId) {
        let mut wakes = self.wakes.lock().unwrap_or_else(PoisonError::into_inner);
        wakes.push((execution, thread));
        self.posted.store(true, Ordering::Release);
        self.arrived.notify_all();
    }

    /// Whether a wake may be waiting to be taken.
    pub fn posted(&self) -> bool {
        self.posted.load(Ordering::Acquire)
    }

    /// The wakes posted for `execution`, taken (those of other executions,
    /// wakers kept past their run, are dropped).
    pub fn take(&self, execution: u64) -> Vec<ThreadId> {
        let mut wakes = self.wakes.lock().unwrap_or_else(PoisonError::into_inner);
        self.take_locked(&mut wakes, execution)
    }

    fn take_locked(&self, wakes: &mut Vec<(u64, ThreadId)>, execution: u64) -> Vec<ThreadId> {
        self.posted.store(false, Ordering::Release);
        wakes
            .drain(..)
            .filter(|(posted_for, _)| *posted_for == execution)
            .map(|(_, thread)| thread)
            .collect()
    }

    /// The wakes posted for `execution`, waiting until one comes or
    /// `until` passes.
    pub fn wait(&self, execution: u64, until: Instant) -> Vec<ThreadId> {
        let mut wakes = self.wakes.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            let taken = self.take_locked(&mut wakes, execution);
            let now = Instant::now();
            if !taken.is_empty() || now >= until {
                return taken;
            }
            wakes = self
                .arrived
                .wait_timeout(wakes, until - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

/// Whether a session's runs wait for wakes from outside.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Waiting {
    /// No run has waited yet: the next that needs to waits.
    #[default]
    Untried,
    /// A wait was ended by a wake from outside: runs keep waiting.
    Fruitful,
    /// A wait ended with none: runs no longer wait.
    Fruitless,
}

/// The tests (by OS thread name) whose waits proved fruitless, or that
/// asked never to wait.
static FRUITLESS_TESTS: Mutex<Option<HashSet<String>>> = Mutex::new(None);

/// `f` on the set of fruitless tests and the name of the test on this OS
/// thread; `None` on a thread with no name, which is no test the harness
/// ran and shares nothing.
fn with_this_test<R>(f: impl FnOnce(&mut HashSet<String>, &str) -> R) -> Option<R> {
    let current = std::thread::current();
    let name = current.name()?;
    let mut tests = FRUITLESS_TESTS
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    Some(f(tests.get_or_insert_with(HashSet::new), name))
}

/// Whether the test on this OS thread is known not to be woken from
/// outside.
fn fruitless_here() -> bool {
    with_this_test(|tests, name| tests.contains(name)).unwrap_or(false)
}

/// The test on this OS thread is not woken from outside.
fn learn_fruitless_here() {
    with_this_test(|tests, name| tests.insert(name.to_owned()));
}

/// The runs of the test on this OS thread never wait for a wake from
/// outside: a deadlock of tasks is one at once (a loom model's, which
/// has no such wake).
pub fn never_wait_in_this_test() {
    learn_fruitless_here();
}

impl Waiting {
    /// Where a new session of the test on this OS thread starts: fruitless
    /// if an earlier session of it learned so (or it asked never to wait).
    pub fn for_this_test() -> Waiting {
        if fruitless_here() {
            Waiting::Fruitless
        } else {
            Waiting::Untried
        }
    }

    /// Whether a run should wait now.
    pub fn waits(self) -> bool {
        self != Waiting::Fruitless
    }

    /// After a wait that took `wakes` wakes (a fruitless one is
    /// remembered for the test's later sessions).
    pub fn after(self, wakes: usize) -> Waiting {
        let next = match (self, wakes) {
            (_, 1..) => Waiting::Fruitful,
            (Waiting::Fruitful, 0) => Waiting::Fruitful,
            (_, 0) => Waiting::Fruitless,
        };
        if next == Waiting::Fruitless {
            learn_fruitless_here();
        }
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wake_posted_from_another_thread_ends_the_wait() {
        let wakes = std::sync::Arc::new(ForeignWakes::default());
        let poster = {
            let wakes = wakes.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(20));
                wakes.post(9, ThreadId(1));
                wakes.post(3, ThreadId(2));
            })
        };
        let taken = wakes.wait(9, Instant::now() + Duration::from_secs(60));
        poster.join().unwrap();
        assert_eq!(taken, vec![ThreadId(1)]);
    }

    /// `f` on a new OS thread named `name`, as the test harness runs a test.
    fn in_test<R: Send + 'static>(name: &str, f: impl FnOnce() -> R + Send + 'static) -> R {
        let thread = std::thread::Builder::new().name(name.to_owned());
        thread.spawn(f).unwrap().join().unwrap()
    }

    #[test]
    fn a_fruitless_wait_is_remembered_for_the_same_test_only() {
        let first = in_test("fruitless::a", || {
            let before = Waiting::for_this_test();
            let after = before.after(0);
            (before, after, Waiting::for_this_test())
        });
        assert_eq!(
            first,
            (Waiting::Untried, Waiting::Fruitless, Waiting::Fruitless)
        );
        assert_eq!(
            in_test("fruitless::a", Waiting::for_this_test),
            Waiting::Fruitless
        );
        assert_eq!(
            in_test("fruitless::b", Waiting::for_this_test),
            Waiting::Untried
        );
        let fruitful = in_test("fruitless::c", || Waiting::for_this_test().after(1));
        assert_eq!(fruitful, Waiting::Fruitful);
        assert_eq!(
            in_test("fruitless::c", Waiting::for_this_test),
            Waiting::Untried
        );
    }

    #[test]
    fn a_test_that_never_waits_starts_fruitless() {
        let start = in_test("never::waits", || {
            never_wait_in_this_test();
            Waiting::for_this_test()
        });
        assert_eq!(start, Waiting::Fruitless);
    }

    #[test]
    fn a_wait_with_no_wake_ends_at_its_time() {
        let wakes = ForeignWakes::default();
        wakes.post(1, ThreadId(0));
        assert!(wakes.wait(2, Instant::now()).is_empty());
        assert!(!wakes.posted());
    }

    #[test]
    fn a_fruitless_first_wait_ends_the_waiting_and_a_fruitful_one_keeps_it() {
        assert!(Waiting::Untried.waits());
        assert_eq!(Waiting::Untried.after(0), Waiting::Fruitless);
        assert!(!Waiting::Fruitless.waits());
        assert_eq!(Waiting::Untried.after(2), Waiting::Fruitful);
        assert_eq!(Waiting::Fruitful.after(0), Waiting::Fruitful);
    }
}
