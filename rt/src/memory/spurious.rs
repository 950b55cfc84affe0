//! How often a `compare_exchange_weak` may fail spuriously: at most once
//! in a row per thread and atomic. After a spurious failure, the same
//! thread's next weak compare-exchange of the same atomic that would
//! succeed does succeed.
//!
//! Hardware fails a weak compare-exchange spuriously now and then, never
//! forever, and the retry loop it sits in relies on that. Offering the
//! choice at every attempt would give the exhaustive exploration an
//! infinite schedule per retry loop (every attempt failing), which it
//! would report as possible non-termination; and a run of several
//! spurious failures in a row reaches no state one of them does not, the
//! loop rereading the same current value each time.

use rankcheck_engine::ThreadId;

/// The (thread, atomic) pairs whose last weak compare-exchange failed
/// spuriously.
#[derive(Debug, Default)]
pub struct SpuriousFailures {
    just_failed: Vec<(ThreadId, usize)>,
}

impl SpuriousFailures {
    /// Whether `thread`'s weak compare-exchange of atomic `object`, which
    /// would succeed, may fail spuriously: not right after one that did
    /// (that one is then forgotten).
    pub fn may_fail(&mut self, thread: ThreadId, object: usize) -> bool {
        match self.just_failed.iter().position(|&p| p == (thread, object)) {
            Some(i) => {
                self.just_failed.swap_remove(i);
                false
            }
            None => true,
        }
    }

    /// `thread`'s weak compare-exchange of `object` failed spuriously.
    pub fn failed(&mut self, thread: ThreadId, object: usize) {
        self.just_failed.push((thread, object));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spurious_failure_is_never_followed_by_another_of_the_same_thread_and_atomic() {
        let (t0, t1) = (ThreadId(0), ThreadId(1));
        let mut failures = SpuriousFailures::default();
        assert!(failures.may_fail(t0, 3));
        failures.failed(t0, 3);
        assert!(failures.may_fail(t1, 3), "another thread");
        assert!(failures.may_fail(t0, 4), "another atomic");
        assert!(!failures.may_fail(t0, 3), "the next attempt succeeds");
        assert!(failures.may_fail(t0, 3), "and the one after may fail again");
    }
}
